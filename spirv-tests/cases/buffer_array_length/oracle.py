import numpy as np

from common import Case, buf

# a: 40 bytes in range of a 64-byte memory -> 10 elements. tail starts at byte 16 (uvec2's
# std430 alignment after the 12-byte header): a 58-byte range holds (58 - 16) // 8 = 5 whole
# elements (the last 2 bytes are not one). Each of the 4 invocations writes both lengths plus its
# index.
a = bytes(64)
b = bytes(64)
out = np.array([[10 + i, 500 + i] for i in range(4)], np.uint32).reshape(-1)

case = Case("OpArrayLength of runtime arrays over a descriptor range, and behind a header "
            "(whole elements only)")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, a, range=40), buf(1, b, range=58), buf(2, np.zeros(8, np.uint32), out)])
