import numpy as np

from common import Case, tensor, tensor_el, wrap

DIMS = (3, 4, 5)
rng = np.random.default_rng(20260130)
info = np.iinfo(np.int32)
a = rng.integers(int(info.min), int(info.max), DIMS, endpoint=True, dtype=np.int32)
a.flat[0], a.flat[1] = info.max, info.min
r = np.array([wrap(int(v) * 3 + 1, 32, True) for v in a.flat],
             dtype=np.int32).reshape(DIMS)

n = int(np.prod(DIMS))
case = Case("int rank-3 tensors (packed source, padded destination): tensorReadARM, "
            "tensorWriteARM of x * 3 + 1 (wrapping), tensorSizeARM")
case.run(dispatch=[(n + 7) // 8, 1, 1],
         bindings=[tensor(0, tensor_el("i32", a, a, strides="packed")),
                   tensor(1, tensor_el("i32", np.zeros(DIMS, a.dtype), r,
                                       strides="padded"))])
