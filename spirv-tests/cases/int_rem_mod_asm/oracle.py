import numpy as np

from common import Case, buf, smod, srem, tdiv, wrap

pairs = [(7, 3), (-7, 3), (7, -3), (-7, -3), (6, 3), (-6, 3), (6, -3), (0, -5),
         (2**31 - 1, 10), (-2**31, 10), (-2**31, 2**31 - 1), (123456789, -1000),
         (-1, 2**31 - 1), (5, 2**31 - 1), (-5, -2**31), (1, -1)]
a = [p[0] for p in pairs]
b = [p[1] for p in pairs]
out = []
for x, y in pairs:
    ux, uy = x & 0xFFFFFFFF, y & 0xFFFFFFFF
    out += [srem(x, y), smod(x, y), tdiv(x, y), wrap(ux // uy, 32, True),
            wrap(ux % uy, 32, True), wrap(-x, 32, True)]

case = Case("OpSRem, OpSMod, OpSDiv, OpUDiv, OpUMod and OpSNegate on int32 sign combinations "
            "(SPIR-V assembly: GLSL's % does not map to OpSRem)")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, a, dtype=np.int32), buf(1, b, dtype=np.int32),
                   buf(2, np.zeros(len(out), np.int32), out, dtype=np.int32)])
