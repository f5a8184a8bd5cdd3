import struct

import numpy as np

from common import Case, buf, f32bits, wrap

# layout(push_constant) std430: uint a @0; int b @4; float c @8; vec4 v @16; uint arr[3] @32
a, b, c = 1000, -37, 2.5
v = [1.0, -2.0, 0.5, 8.0]
arr = [3, 5, 7]
push = struct.pack("<Iif4x4f3I", a, b, c, *v, *arr)
N = 16
out = []
for i in range(N):
    f = np.float32
    out += [a + i, wrap(b * i, 32, True) & 0xFFFFFFFF,
            f32bits(float(f(c) * f(i))), f32bits(float(f(v[i % 4]) * f(c))), arr[i % 3] * i]

case = Case("A std430 push-constant block: uint, int, float, vec4 and a uint array")
case.run(dispatch=[1, 1, 1], bindings=[buf(0, np.zeros(N * 5, np.uint32), out)], push=push)
