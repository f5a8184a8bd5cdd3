import numpy as np

from common import Case, buf

N = 16
rng = np.random.default_rng(11)

v = (rng.uniform(-1.6, 1.6, (N, 4))).astype(np.float32)
v[0] = [0.0, 1.0, -1.0, 2.0]
v[1] = [-0.31, 0.31, 0.999, -3.0]


def pack(c, bits, signed):
    """Pack{Snorm,Unorm}: rounds to nearest (the inputs avoid exact halves, which GLSL leaves
    open)."""
    scale = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    lo = -1.0 if signed else 0.0
    t = np.clip(c, np.float32(lo), np.float32(1.0)) * np.float32(scale)  # float32, as GLSL
    assert not np.any(t - np.floor(t) == 0.5), "a tie: GLSL leaves its rounding open"
    q = np.rint(t).astype(np.int64)
    out = 0
    for k, x in enumerate(q):
        out |= (int(x) & ((1 << bits) - 1)) << (bits * k)
    return out


def unpack(u, bits, signed):
    scale = np.float32((1 << (bits - 1)) - 1 if signed else (1 << bits) - 1)
    res = []
    for k in range(32 // bits):
        f = (u >> (bits * k)) & ((1 << bits) - 1)
        if signed and f >= 1 << (bits - 1):
            f -= 1 << bits
        x = np.float32(f) / scale
        res.append(max(x, np.float32(-1.0)) if signed else x)
    return res


words = (rng.integers(0, 2**32, N, dtype=np.uint64)).astype(np.uint32)
words[0] = 0x80808080
words[1] = 0x7F7F8000
packs, unpacks, dbl = [], [], []
for i in range(N):
    packs += [pack(v[i], 8, True), pack(v[i], 8, False), pack(v[i][:2], 16, True),
              pack(v[i][2:], 16, False)]
    u = int(words[i])
    unpacks += unpack(u, 8, True) + unpack(u, 8, False) + unpack(u, 16, True) + \
        unpack(u, 16, False)
    d = np.array([u, (u * 2654435761) & 0xFFFFFFFF], np.uint32).view(np.float64)[0]
    back = np.array([d], np.float64).view(np.uint32)
    dbl += [int(back[0]), int(back[1])]
mats = []
inv = []
for k in (2, 3, 4):
    m = (rng.uniform(-2, 2, (k, k)) + np.eye(k) * 3).astype(np.float32)
    mats.append(m)
    inv.append(np.linalg.inv(m.astype(np.float64)).astype(np.float32))
# Column-major storage: GLSL mat[c][r]; numpy m[r][c] -> store m.T flattened.
mat_in = np.concatenate([m.T.flatten() for m in mats]).astype(np.float32)
inv_out = np.concatenate([x.T.flatten() for x in inv]).astype(np.float32)

case = Case("Pack/Unpack{Snorm,Unorm}{4x8,2x16}, Pack/UnpackDouble2x32 and MatrixInverse of "
            "mat2, mat3, mat4")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, v.flatten(), dtype=np.float32),
                   buf(1, words, dtype=np.uint32),
                   buf(2, np.zeros(4 * N, np.uint32), packs, dtype=np.uint32),
                   buf(3, np.zeros(12 * N, np.float32), unpacks, dtype=np.float32),
                   buf(4, np.zeros(2 * N, np.uint32), dbl, dtype=np.uint32),
                   buf(5, mat_in, dtype=np.float32),
                   buf(6, np.zeros(len(inv_out), np.float32), inv_out, dtype=np.float32,
                       tol=1e-5)])
