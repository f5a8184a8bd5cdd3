import numpy as np

from common import Case, buf

# o[i] = inp[i + 6] + 1 for 8 invocations over an 8-word input: the last 6 read zero. The
# output descriptor covers 8 words of a larger buffer whose tail (and every far write) must stay
# untouched.
inp = [10, 20, 30, 40, 50, 60, 70, 80]
backing = bytes([0xEE]) * (8 * 4 + 64)
expect = np.array([71, 81, 1, 1, 1, 1, 1, 1], np.uint32).tobytes() + backing[32:]

case = Case("Out-of-range buffer reads give zero and writes are dropped, also past a descriptor "
            "range inside a larger buffer")
case.run(dispatch=[2, 1, 1],
         bindings=[buf(0, inp), buf(1, backing, expect, range=32)])
