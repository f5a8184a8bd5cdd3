import struct

import numpy as np

from common import Case, buf

# uniform U { float f; vec2 v2; vec3 v3; float g; float arr[3]; mat3 m; S s[2]; ivec4 iv; }
# std140: f@0, v2@8, v3@16, g@28, arr@32 (stride 16) -> 80, m@80 (3 cols x 16) -> 128,
# S { int i; vec2 p; } size 16 (i@0, p@8), array stride 16: s@128 -> 160, iv@160 -> 176.
f, v2, v3, g = 1.25, [2.0, -3.0], [4.0, 5.5, -6.0], 7.0
arr = [8.0, 9.0, 10.0]
m = np.arange(9, dtype=np.float32).reshape(3, 3) + 0.5   # m[col][row]
s = [(11, [12.0, 13.0]), (-14, [15.0, 16.5])]
iv = [17, -18, 19, -20]
ub = bytearray(176)
struct.pack_into("<f", ub, 0, f)
struct.pack_into("<2f", ub, 8, *v2)
struct.pack_into("<3f", ub, 16, *v3)
struct.pack_into("<f", ub, 28, g)
for k in range(3):
    struct.pack_into("<f", ub, 32 + 16 * k, arr[k])
    struct.pack_into("<3f", ub, 80 + 16 * k, *m[k])
for k in range(2):
    struct.pack_into("<i2f", ub, 128 + 16 * k, s[k][0], 0.0, 0.0)
    struct.pack_into("<2f", ub, 128 + 16 * k + 8, *s[k][1])
struct.pack_into("<4i", ub, 160, *iv)
# Poison the std140 padding: a wrong layout reads these.
for off in [4, 36, 40, 44, 52, 56, 60, 68, 72, 76, 92, 108, 124, 132, 148]:
    struct.pack_into("<f", ub, off, -999.0)
outv = [f, *v2, *v3, g, *arr, *m.reshape(-1), float(s[0][0]), *s[0][1], float(s[1][0]),
        *s[1][1], *[float(x) for x in iv]]

case = Case("A std140 uniform block: scalars, vec2/vec3 alignment, a float array and a struct "
            "array at 16-byte strides, a mat3, an ivec4; the padding is poisoned")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, bytes(ub), uniform=True, compare="u32"),
                   buf(1, np.zeros(len(outv), np.float32), outv, dtype=np.float32)])
