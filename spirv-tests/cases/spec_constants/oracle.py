import numpy as np

from common import Case, buf, f32bits, wrap

LOCAL, GROUPS = 8, 3
K, FLAG, SCALE, OFF = -5, True, 2.5, 11   # OFF (id 4) keeps its default
n = LOCAL * GROUPS
out = []
for i in range(n):
    k2 = K * 2 + 1
    out += [wrap(i * k2, 32, True) & 0xFFFFFFFF, 1000 if FLAG else 0, LOCAL,
            f32bits(float(np.float32(SCALE) * np.float32(i))), OFF, i % LOCAL]

case = Case("Specialization constants: the workgroup size, int, bool and float constants, a "
            "constant left at its default, a spec-constant expression, a shared array sized by "
            "gl_WorkGroupSize")
case.run(dispatch=[GROUPS, 1, 1], bindings=[buf(0, np.zeros(n * 6, np.uint32), out)],
         spec=[(0, 4, LOCAL), (1, 4, K & 0xFFFFFFFF), (2, 4, int(FLAG)), (3, 4, f32bits(SCALE))])
