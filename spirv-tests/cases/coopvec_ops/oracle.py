import numpy as np

from common import Case, address, buf

N = 128  # two workgroups of 64
rng = np.random.default_rng(26)
a = (rng.integers(-8, 9, (N, 8)) * 0.5).astype(np.float16)
b = (rng.integers(-8, 9, (N, 8)) * 0.25).astype(np.float16)
x = np.concatenate([a, b], axis=1)
n = np.empty_like(b)
for i in range(N):
    wg, l = divmod(i, 64)
    n[i] = b[wg * 64 + (l + 1) % 64]
f16 = np.float16
r = ((a * b).astype(f16) + n).astype(f16) - f16(0.5)
r = (np.maximum(r, f16(-1.0)) * f16(2.0)).astype(f16)
for i in range(N):
    r[i, 3] = a[i, i % 8]
wide = np.clip(r.astype(np.float32), -3.0, 9.0)
k = wide.astype(np.int32) * 3 + np.arange(N, dtype=np.int32)[:, None]
out = np.zeros((N, 16), np.uint32)
out[:, :8] = wide.view(np.uint32)
out[:, 8:] = k.view(np.uint32)
prod = np.zeros((N, 8), np.float16)
prod[:] = (a * b).astype(f16)

case = Case("SPV_NV_cooperative_vector: loads and stores through buffers, shared memory and "
            "buffer references; element-wise arithmetic, GLSL.std.450 max/clamp, conversions, "
            "splats (replicated composites) and component access")
case.run(dispatch=[2, 1, 1], bindings=[
    buf(0, x.view(np.uint32).reshape(-1), dtype=np.uint32),
    buf(1, np.zeros(N * 16, np.uint32), out.reshape(-1), dtype=np.uint32),
    buf(2, np.zeros(4, np.uint32), dtype=np.uint32),
    buf(3, np.zeros(N * 4, np.uint32), prod.view(np.uint32).reshape(-1), dtype=np.uint32),
], addresses=[address(3, 0, into=2)])
