import numpy as np

from common import Case, buf

# uniform U { mat4 m; vec4 v; float arr[3]; vec3 p; float q; }: std140 offsets m 0, v 64,
# arr 80 (stride 16), p 128, q 140.
u = np.zeros(36, np.float32)
u[:16] = np.arange(16)          # column-major: m[c][r] = c * 4 + r
u[16:20] = [1, 2, 3, 4]
u[20], u[24], u[28] = 10, 20, 3
u[32:35] = [3, 4, 0]
u[35] = 0.25
m = u[:16].reshape(4, 4)        # [column][row]
v = u[16:20]
f = np.float32
rows = [sum((m[c, r] * v[c] for c in range(4)), f(0)) + f(20) for r in range(4)]
out = rows + [f(3 + 30), f(4 + 5), f(0 + 4), f(0.25 - 2)] + [f(0.25), f(2), f(7), f(8)]

case = Case("A std140 uniform block (mat4, vec4, float array, vec3 + float) and a few "
            "GLSL.std.450 operations")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, u, dtype=np.float32, uniform=True),
                   buf(1, np.zeros(12, np.float32), out, dtype=np.float32)])
