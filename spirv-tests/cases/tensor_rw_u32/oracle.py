import numpy as np

from common import Case, tensor, tensor_el, wrap

DIMS = (3, 4, 5)
rng = np.random.default_rng(20260130)
info = np.iinfo(np.uint32)
a = rng.integers(int(info.min), int(info.max), DIMS, endpoint=True, dtype=np.uint32)
a.flat[0], a.flat[1] = info.max, info.min
r = np.array([wrap(int(v) * 3 + 1, 32, False) for v in a.flat],
             dtype=np.uint32).reshape(DIMS)

n = int(np.prod(DIMS))
case = Case("uint rank-3 tensors (padded source, packed destination): tensorReadARM, "
            "tensorWriteARM of x * 3 + 1 (wrapping), tensorSizeARM")
case.run(dispatch=[(n + 7) // 8, 1, 1],
         bindings=[tensor(0, tensor_el("u32", a, a, strides="padded")),
                   tensor(1, tensor_el("u32", np.zeros(DIMS, a.dtype), r,
                                       strides="packed"))])
