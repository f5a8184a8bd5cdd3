import numpy as np

from common import Case, buf

N = 16
rng = np.random.default_rng(9)

v = rng.uniform(-1, 1, (N, 3, 3)).astype(np.float32)   # per invocation: n, i, nref
eta = rng.uniform(0.3, 1.8, N).astype(np.float32)
out = []
for k in range(N):
    nn, ii, nref = (v[k, j].astype(np.float64) for j in range(3))
    v[k, 0] = (nn / np.linalg.norm(nn)).astype(np.float32)
    nn = v[k, 0].astype(np.float64)
    ff = nn if np.dot(nref, ii) < 0 else -nn
    rf = ii - 2 * np.dot(nn, ii) * nn
    e = float(eta[k])
    kk = 1 - e * e * (1 - np.dot(nn, ii) ** 2)
    rr = np.zeros(3) if kk < 0 else e * ii - (e * np.dot(nn, ii) + np.sqrt(kk)) * nn
    out += list(ff) + list(rf) + list(rr)

case = Case("GLSL.std.450 FaceForward, Reflect and Refract on vec3")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, v.flatten(), dtype=np.float32), buf(1, eta, dtype=np.float32),
                   buf(2, np.zeros(len(out), np.float32), out, dtype=np.float32, tol=1e-5)])
