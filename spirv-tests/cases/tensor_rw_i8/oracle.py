import numpy as np

from common import Case, tensor, tensor_el, wrap

DIMS = (3, 4, 5)
rng = np.random.default_rng(20260130)
info = np.iinfo(np.int8)
a = rng.integers(int(info.min), int(info.max), DIMS, endpoint=True, dtype=np.int8)
a.flat[0], a.flat[1] = info.max, info.min
r = np.array([wrap(int(v) * 3 + 1, 8, True) for v in a.flat],
             dtype=np.int8).reshape(DIMS)

n = int(np.prod(DIMS))
case = Case("int8_t rank-3 tensors (padded source, packed destination): tensorReadARM, "
            "tensorWriteARM of x * 3 + 1 (wrapping), tensorSizeARM")
case.run(dispatch=[(n + 7) // 8, 1, 1],
         bindings=[tensor(0, tensor_el("i8", a, a, strides="padded")),
                   tensor(1, tensor_el("i8", np.zeros(DIMS, a.dtype), r,
                                       strides="packed"))])
