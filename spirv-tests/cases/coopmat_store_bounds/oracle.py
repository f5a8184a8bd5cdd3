import numpy as np

from common import Case, buf, shader

TILES = 4  # 2 workgroups of 2 subgroups
rng = np.random.default_rng(41)
h = (rng.integers(-64, 65, TILES * 512) * 0.25).astype(np.float16)
f = (rng.integers(-64, 65, TILES * 256) * 0.5).astype(np.float32)
# Outputs: memory longer than the descriptor's range; elements outside it keep these bytes.
A_LEN, A_RANGE = TILES * 320, 3 * 320 + 7 * 20 + 16  # the last tile: rows 0-7 in, 8-15 out
B_LEN, B_RANGE = TILES * 280, 2 * 280 + 9 * 17 + 5  # tile 2: stops inside row 9
C_LEN, C_RANGE = TILES * 256 + 64, 2 * 256 + 100  # tile 2 in part, tile 3 wholly out
oa0 = np.full(A_LEN, -3.0, np.float16)
ob0 = np.full(B_LEN, 7.0, np.float16)
oc0 = np.full(C_LEN, -1.5, np.float32)


def store(out, in_range, base, stride, m):
    """A 16x16 row-major matrix stored at element `base`; elements past the range dropped."""
    for r in range(16):
        for c in range(16):
            i = base + r * stride + c
            if i < in_range:
                out[i] = m[r, c]


oa, ob, oc = oa0.copy(), ob0.copy(), oc0.copy()
for t in range(TILES):
    store(oa, A_RANGE, t * 320, 20, h[t * 512:t * 512 + 256].reshape(16, 16))
    store(ob, B_RANGE, t * 280, 17, h[t * 512 + 256:t * 512 + 512].reshape(16, 16))
    store(oc, C_RANGE, t * 256, 16, f[t * 256:t * 256 + 256].reshape(16, 16))

case = Case("SPV_KHR_cooperative_matrix: row-major stores running past the end of the "
            "descriptor's range (out-of-range elements dropped, the memory past it untouched) "
            "for A, B and accumulators, beside stores inside it, two subgroups a workgroup",
            shaders=[shader("shader.spv", "shader.comp")])
case.run(dispatch=[TILES // 2, 1, 1], bindings=[
    buf(0, h.view(np.uint16), dtype=np.uint16),
    buf(1, f, dtype=np.float32),
    buf(2, oa0.view(np.uint16), oa.view(np.uint16), dtype=np.uint16, range=2 * A_RANGE),
    buf(3, ob0.view(np.uint16), ob.view(np.uint16), dtype=np.uint16, range=2 * B_RANGE),
    buf(4, oc0, oc, dtype=np.float32, range=4 * C_RANGE)])
