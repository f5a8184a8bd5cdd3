import struct

import numpy as np

from common import Case, buf

# uniform P { uint a; float b; uvec2 c; }: a = 3, b = 0.5, c = (9, 11).
push = struct.pack("<IfII", 3, 0.5, 9, 11)
out = [np.float32(3 + i) * np.float32(0.5) + np.float32(11) for i in range(8)]

case = Case("A push-constant block of uint, float and uvec2")
case.run(dispatch=[2, 1, 1], push=push,
         bindings=[buf(0, np.zeros(8, np.float32), out, dtype=np.float32)])
