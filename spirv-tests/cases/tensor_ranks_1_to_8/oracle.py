import numpy as np

from common import Case, buf, tensor, tensor_el

DIMS = [3, 2, 5, 1, 2, 3, 2, 4]
rng = np.random.default_rng(20260130)

binds = []
sizes = []
maxn = 0
for r in range(1, 9):
    dims = tuple(DIMS[:r])
    maxn = max(maxn, int(np.prod(dims)))
    a = rng.integers(-10000, 10000, dims).astype(np.int32)
    # src{r} at binding 2r-2 (padded), dst{r} = src{r} * 10 + r at binding 2r-1.
    binds.append(tensor(2 * r - 2, tensor_el("i32", a, a, strides="padded")))
    binds.append(tensor(2 * r - 1, tensor_el("i32", np.zeros(dims, np.int32), a * 10 + r,
                                             strides="packed" if r % 2 else "padded")))
    sizes += DIMS[:r] + [0] * (8 - r)
binds.append(buf(16, np.zeros(64, np.uint32), sizes))

case = Case("int tensors of ranks 1 to 8 (packed and padded): reads, writes and every "
            "tensorSizeARM dimension")
case.run(dispatch=[(maxn + 31) // 32, 1, 1], bindings=binds)
