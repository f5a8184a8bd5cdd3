import numpy as np

from common import Case, shader, tensor, tensor_el

DIMS = (3, 5, 37)
N = int(np.prod(DIMS))
rng = np.random.default_rng(11)
a = rng.integers(-64, 64, DIMS).astype(np.float32) / 4
b = rng.integers(-64, 64, DIMS).astype(np.float32) / 8
want = 2 * a + b

case = Case("Tensor accesses at coordinates split from a flat index by division and remainder "
            "(unsigned and signed): packed views, padded strides, a destination of other sizes",
            shaders=[shader("shader.spv", "shader.comp"),
                     shader("signed.spv", "shader.comp", defines={"SIGNED": 1})])
for spv in ["shader.spv", "signed.spv"]:
    kind = spv.split(".")[0]
    groups = [(N + 63) // 64, 1, 1]
    # Every view packed with a's sizes: the flat path.
    case.run(name=f"{kind}_packed", shader=spv, dispatch=groups,
             bindings=[tensor(0, tensor_el("f32", a)), tensor(1, tensor_el("f32", b)),
                       tensor(2, tensor_el("f32", np.full(DIMS, -1, np.float32), want))])
    # b and c padded: their strides are not packed, the general path.
    case.run(name=f"{kind}_padded", shader=spv, dispatch=groups,
             bindings=[tensor(0, tensor_el("f32", a)),
                       tensor(1, tensor_el("f32", b, strides="padded")),
                       tensor(2, tensor_el("f32", np.full(DIMS, -1, np.float32), want,
                                           strides="padded"))])
    # c has longer rows than a: the coordinates, not the flat index, place each element.
    wide = np.full((3, 5, 40), -1, np.float32)
    wide_want = wide.copy()
    wide_want[:, :, :37] = want
    case.run(name=f"{kind}_wider", shader=spv, dispatch=groups,
             bindings=[tensor(0, tensor_el("f32", a)), tensor(1, tensor_el("f32", b)),
                       tensor(2, tensor_el("f32", wide, wide_want))])
