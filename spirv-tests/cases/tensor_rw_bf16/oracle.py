import ml_dtypes
import numpy as np

from common import Case, tensor, tensor_el

DIMS = (3, 4, 5)
DT, BITS = ml_dtypes.bfloat16, np.uint16
rng = np.random.default_rng(20260130)

a = rng.uniform(-50, 50, DIMS).astype(np.float32).astype(DT)
r = (a.astype(np.float32) * np.float32(2) - np.float32(1)).astype(DT)

n = int(np.prod(DIMS))
case = Case("bfloat16_t rank-3 tensors (padded source, packed destination): read, convert "
            "through float, write")
case.run(dispatch=[(n + 7) // 8, 1, 1],
         bindings=[tensor(0, tensor_el("bf16", a.view(BITS), a.view(BITS), strides="padded")),
                   tensor(1, tensor_el("bf16", np.zeros(DIMS, BITS), r.view(BITS),
                                       strides="packed"))])
