import numpy as np

from common import Case, tensor, tensor_el

rng = np.random.default_rng(20260130)

a = rng.integers(-1000, 1000, (4, 5, 6)).astype(np.int32)
h = (a.reshape(6, 20).astype(np.float64) * 0.5).astype(np.float16)
u = (a.reshape(2, 3, 4, 5) & 0xFF).astype(np.uint8)
lin = a * 3 - 7

case = Case("Optimal-tiling tensors (int, float16, uint8; ranks 2 to 4) read and written next "
            "to a padded linear one")
case.run(dispatch=[8, 1, 1],
         bindings=[tensor(0, tensor_el("i32", a, a, tiling="optimal")),
                   tensor(1, tensor_el("f16", np.zeros((6, 20), np.float16), h, tiling="optimal")),
                   tensor(2, tensor_el("u8", np.zeros((2, 3, 4, 5), np.uint8), u,
                                       tiling="optimal")),
                   tensor(3, tensor_el("i32", np.zeros((4, 5, 6), np.int32), lin,
                                       strides="padded"))])
