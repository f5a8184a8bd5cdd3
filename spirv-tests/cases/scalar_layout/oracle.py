import numpy as np

from common import Case, buf

N = 64
rng = np.random.default_rng(32)
pos = (rng.integers(-32, 33, (N, 3)) * 0.25).astype(np.float32)
w = (rng.integers(-32, 33, N) * 0.5).astype(np.float32)
ids = rng.integers(0, 65536, N).astype(np.uint16)
uv = (rng.integers(-32, 33, (N, 2)) * 0.125).astype(np.float32)
scale = np.array([0.5, -2.0, 4.0], np.float32)
bias = np.float32(1.5)
table = (np.arange(8) * 0.75 - 2).astype(np.float32)

# Scalar layout: pos @0 (12 bytes), w @12, id @16 (2 bytes, then 2 of padding), uv @20: stride 28.
points = bytearray(28 * N)
for i in range(N):
    points[28 * i:28 * i + 12] = pos[i].tobytes()
    points[28 * i + 12:28 * i + 16] = w[i].tobytes()
    points[28 * i + 16:28 * i + 18] = ids[i].tobytes()
    points[28 * i + 18:28 * i + 20] = b"\xa5\xa5"
    points[28 * i + 20:28 * i + 28] = uv[i].tobytes()
params = scale.tobytes() + bias.tobytes()  # bias right after the vec3, at 12
moved = (pos * scale + (w + bias)[:, None]).astype(np.float32)
sums = (uv + np.stack([ids.astype(np.float32), table[np.arange(N) % 8]], 1)).astype(np.float32)

case = Case("Scalar block layout in storage and uniform buffers (vec3 at stride 12, a struct of "
            "stride 28 with a 16-bit member, a float right after a vec3) and an std430 uniform "
            "block")
case.run(dispatch=[N // 32, 1, 1], bindings=[
    buf(0, bytes(points), dtype=np.uint8),
    buf(1, np.zeros(3 * N, np.float32), moved.reshape(-1), dtype=np.float32),
    buf(2, params, dtype=np.uint8, uniform=True),
    buf(3, table, dtype=np.float32, uniform=True),
    buf(4, np.zeros(2 * N, np.float32), sums.reshape(-1), dtype=np.float32)])
