import numpy as np

from common import Case, buf

N = 96  # three workgroups of 32
rng = np.random.default_rng(27)
# Values whose products and sums are exact in f16: halves in [-2, 2], sums stay small.
a = (rng.integers(-2, 3, (N, 8)) * 0.5).astype(np.float16)
b = (rng.integers(-2, 3, (N, 4)) * 0.5).astype(np.float16)
x = np.zeros((N, 16), np.float16)
x[:, :8] = a
x[:, 8:12] = b
A = a.astype(np.float64)
B = b.astype(np.float64)
m = np.zeros((3, 8, 4))
m[0] = sum(np.outer(A[i], B[i]) for i in range(N))
for i in range(N):
    if i % 3 == 1:
        m[1 + i % 2] += np.outer(A[i], B[i])
m16 = np.zeros(3 * 32, np.float16)  # matrices at 0, 64 and 128 bytes: 8 x 4 f16 each
for k in range(3):
    m16[k * 32:k * 32 + 32] = m[k].reshape(-1)
m32 = m[0].reshape(-1).astype(np.float32)
s16 = A.sum(axis=0).astype(np.float16)
s32 = np.zeros((5, 8), np.float32)
for i in range(N):
    s32[i % 4] += A[i]
    if i % 6 == 4:
        s32[4] += A[i]

case = Case("SPV_NV_cooperative_vector training: coopVecOuterProductAccumulateNV into f16 and f32 "
            "training-optimal matrices (one shared by every invocation, others by some) and "
            "coopVecReduceSumAccumulateNV of f16 and f32 vectors, some under divergent branches")
case.run(dispatch=[3, 1, 1], bindings=[
    buf(0, x.view(np.uint32).reshape(-1), dtype=np.uint32),
    buf(1, np.zeros(m16.size, np.float16), m16, dtype=np.float16),
    buf(2, np.zeros(m32.size, np.float32), m32, dtype=np.float32),
    buf(3, np.zeros(8, np.float16), s16, dtype=np.float16),
    buf(4, np.zeros(40, np.float32), s32.reshape(-1), dtype=np.float32),
])
