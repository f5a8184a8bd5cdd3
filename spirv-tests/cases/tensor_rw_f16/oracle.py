import numpy as np

from common import Case, tensor, tensor_el

DIMS = (3, 4, 5)
rng = np.random.default_rng(20260130)
a = rng.uniform(-50, 50, DIMS).astype(np.float16)
r = (a.astype(np.float64) * 2 - 1).astype(np.float16)

n = int(np.prod(DIMS))
case = Case("float16_t rank-3 tensors (packed source, padded destination): tensorReadARM, "
            "tensorWriteARM of x * 2 - 1, tensorSizeARM")
case.run(dispatch=[(n + 7) // 8, 1, 1],
         bindings=[tensor(0, tensor_el("f16", a, a, strides="packed")),
                   tensor(1, tensor_el("f16", np.zeros(DIMS, a.dtype), r,
                                       strides="padded", tol=1e-3))])
