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
    mv = M @ V
    vm = V @ M
    m3 = M[:3, :3]
    mm = m3 @ m3
    cr = np.cross(V[:3], mv[:3])
    dt = np.dot(V, mv)
    comp = M[:2, :2] * M[2:, 2:]
    sw = V[[3, 1, 0, 2]] * 2 + V[[0, 0, 1, 1]]
    out += list(mv) + list(vm) + list(mm.T.reshape(-1)) + list(cr) + [dt] + \
        list(comp.T.reshape(-1)) + list(sw) + [np.linalg.norm(V)] + list(M @ V * 0.5)
K = 4 + 4 + 9 + 3 + 1 + 4 + 4 + 1 + 4

case = Case("mat4 * vec4, vec4 * mat4, mat3 * mat3, cross, dot, matrixCompMult, swizzles, "
            "length, matrix * scalar (std430 column-major matrices)")
case.run(dispatch=[N // 4, 1, 1],
         bindings=[buf(0, m, dtype=np.float32), buf(1, v, dtype=np.float32),
                   buf(2, np.zeros(N * K, np.float32), out, dtype=np.float32, tol=1e-5)])
