import numpy as np

from common import Case, buf

N = 8
rng = np.random.default_rng(20261206)
a = rng.integers(1, 1 << 20, 16).astype(np.uint32)
b = rng.integers(1, 1 << 20, 8).astype(np.uint32)
s = np.array([0, 1, 2, 3, 1, 0, 3, 2], np.uint32)
i = np.arange(N)
odd = (s & 1) == 1
odd1 = ((s >> 1) & 1) == 1

out = np.zeros(80, np.uint32)
out[0:8] = np.where(odd, b[i], a[2 * i])
out[8:16] = np.where(odd1, a[2 * i + 1], b[(i + 1) % 8])
out[16:24] = [sum(int(a[j + 2 * k]) for k in range(4)) for j in i]
out[24:32] = np.where(odd, a[i], b[i])
out[32:40] = [int(b[j + 4]) if j + 4 < 8 else 0 for j in i]
for j in i:
    out[(40 if j < 4 else 48) + j] = j + 100
w1 = i * 3
w2 = i * 5
out[56:64] = np.where(odd, w1[7 - i], w2[7 - i])
out[64:72] = np.where(odd, 0, 1)
out[72:80] = (2 * i + 1 - i).astype(np.uint32)

case = Case("Variable pointers in SPIR-V assembly: storage-buffer pointers through "
            "OpSelect across buffers, a function's return value, an OpPhi stepped by "
            "OpPtrAccessChain, a Function variable, a store, a step past the buffer's end "
            "(reads 0), OpPtrEqual and OpPtrDiff; workgroup pointers through OpSelect")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, a), buf(1, b), buf(2, s),
                   buf(3, np.zeros(80, np.uint32), out)])
