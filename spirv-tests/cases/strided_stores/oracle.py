import numpy as np

from common import Case, buf

N = 32          # two workgroups of 16
A_ROWS = 20     # uvec4s in a: lanes 20.. write past the end
B_ROWS = 24     # uvec4s in b: lanes with 2i + 1 >= 24 write past the end
init_a = np.full((A_ROWS, 4), 0xEEEEEEEE, np.uint32)
init_b = np.full((B_ROWS, 4), 0xDDDDDDDD, np.uint32)

a = init_a.copy()
for i in range(min(N, A_ROWS)):
    a[i] = [i, 3 * i + 1, 5 * i + 2, 7 * i + 3]
b = init_b.copy()
for i in range(N):
    if 2 * i + 1 < B_ROWS:
        b[2 * i + 1] = [100 + i, 200 + i, 300 + i, 400 + i]
c = np.zeros((N, 4), np.float32)
for i in range(N):
    f = np.float32(i)
    c[i] = [f * np.float32(0.5), f + np.float32(0.25), -f, f * f]

case = Case("vec4 stores per lane at a stride of 16 and 32 bytes, partly past the buffer's end "
            "(robust access: dropped), and a float vec4 per lane")
case.run(dispatch=[2, 1, 1],
         bindings=[buf(0, init_a.reshape(-1), a.reshape(-1)),
                   buf(1, init_b.reshape(-1), b.reshape(-1)),
                   buf(2, np.zeros(N * 4, np.float32), c.reshape(-1), dtype=np.float32)])
