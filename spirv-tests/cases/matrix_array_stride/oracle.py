import numpy as np

from common import Case, buf

# std140 arrays of matrices: mat2 columns 16 bytes apart, matrices 32 bytes apart.
mats = np.arange(3 * 2 * 2, dtype=np.float32).reshape(3, 2, 2) * 1.5 - 4  # [m][col][row]
ubo = np.zeros((3, 2, 4), np.float32)  # each column padded to 16 bytes
ubo[:, :, :2] = mats
out = [float(mats[i, c, r]) for i in range(3) for c in range(2) for r in range(2)]

case = Case("A std140 uniform array of mat2: MatrixStride on the struct member, the matrices "
            "inside the array")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, ubo.flatten(), dtype=np.float32, uniform=True),
                   buf(1, np.zeros(12, np.float32), out, dtype=np.float32)])
