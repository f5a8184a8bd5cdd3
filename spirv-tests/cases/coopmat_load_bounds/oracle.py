import numpy as np

from common import Case, buf, shader

TILES = 4
H_LEN, H_RANGE = 640, 500  # f16 elements in memory, in the descriptor's range
F_LEN, F_RANGE = 480, 300  # f32 elements
B_STRIDE = 21
rng = np.random.default_rng(31)
h = (rng.integers(-64, 65, H_LEN) * 0.25).astype(np.float16)
f = (rng.integers(-64, 65, F_LEN) * 0.5).astype(np.float32)


def load(mem, in_range, base, stride):
    """A 16x16 row-major matrix at element `base`; elements past the range read 0."""
    out = np.zeros((16, 16), mem.dtype)
    for r in range(16):
        for c in range(16):
            i = base + r * stride + c
            out[r, c] = mem[i] if i < in_range else 0
    return out


oa = np.concatenate([load(h, H_RANGE, t * 96, 20).reshape(-1) for t in range(TILES)])
ob = np.concatenate([load(h, H_RANGE, t * 96 + 8, B_STRIDE).reshape(-1) for t in range(TILES)])
oc = np.concatenate([load(f, F_RANGE, t * 64, 17).reshape(-1) for t in range(TILES)])
# Tile 0 lies inside both ranges, the last tiles do not (A: only its second half of rows).
assert (oa[:256] == load(h, H_LEN, 0, 20).reshape(-1)).all()
assert 96 * 2 + 7 * 20 + 16 <= H_RANGE < 96 * 2 + 15 * 20 + 16

case = Case("SPV_KHR_cooperative_matrix: row-major loads running past the end of the descriptor's "
            "range (out-of-range elements read 0) for A, B (stride from memory) and "
            "accumulators, beside loads inside it", shaders=[shader("shader.spv", "shader.comp")])
case.run(dispatch=[TILES, 1, 1], bindings=[
    buf(0, h.view(np.uint16), dtype=np.uint16, range=2 * H_RANGE),
    buf(1, f, dtype=np.float32, range=4 * F_RANGE),
    buf(2, np.zeros(oa.size, np.uint16), oa.view(np.uint16), dtype=np.uint16),
    buf(3, np.zeros(ob.size, np.uint16), ob.view(np.uint16), dtype=np.uint16),
    buf(4, np.zeros(oc.size, np.float32), oc, dtype=np.float32),
    buf(5, np.array([B_STRIDE], np.uint32))])
