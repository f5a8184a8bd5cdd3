import numpy as np

from common import Case, buf

N = 8
rng = np.random.default_rng(20260130)

m = rng.uniform(-2, 2, (N, 4, 4)).astype(np.float32)   # [k][column][row], std430 column-major
v = rng.uniform(-2, 2, (N, 4)).astype(np.float32)
out = []
for k in range(N):
    M = m[k].astype(np.float64).T   # rows x cols
    V = v[k].astype(np.float64)
    outer = np.outer(V[:2], V[2:])   # mat2: column c = V[:2] * V[2+c]
    # transpose(M)[c][r] (column c, row r) is M[c, r]: M's rows in order.
    out += list(M.reshape(-1)) + list(outer.T.reshape(-1)) + \
        [np.linalg.det(M[:3, :3]), np.linalg.det(M)]
K = 16 + 4 + 2

case = Case("transpose(mat4), outerProduct(vec2, vec2), determinant of mat3 and mat4")
case.run(dispatch=[N // 4, 1, 1],
         bindings=[buf(0, m, dtype=np.float32), buf(1, v, dtype=np.float32),
                   buf(2, np.zeros(N * K, np.float32), out, dtype=np.float32, tol=1e-4)])
