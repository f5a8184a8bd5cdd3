import numpy as np

from common import Case, buf

N = 32          # two workgroups of 16
TABLE = [(k * k * 37 + 11) % 1000 for k in range(80)]
K = 77

y = np.zeros(2 * N, np.uint32)
for i in range(N):
    y[2 * i] = TABLE[(i * 7) % 80]
    y[2 * i + 1] = TABLE[K % 80] + TABLE[(K + 3) % 80]

case = Case("a lookup table copied into a local array, read at a varying and a uniform index")
case.run(dispatch=[2, 1, 1], push=np.array([K], np.uint32).tobytes(),
         bindings=[buf(0, np.zeros(2 * N, np.uint32), y)])
