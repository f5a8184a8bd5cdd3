import numpy as np

from common import Case, buf

# buffer C { uint count; uint maxv; int minv; uint slots[]; }, 64 invocations:
# slots[atomicAdd(count, 1)] = i + 1, so the slots hold 1..64 in an unspecified order.
N = 64
init = np.zeros(3 + N, np.int64)
init[2] = 100
expect = [N, (N - 1) * 7, -(N - 1)] + list(range(1, N + 1))

case = Case("atomicAdd ticket counter, atomicMax and atomicMin on a buffer from every "
            "invocation")
case.run(dispatch=[N // 16, 1, 1],
         bindings=[buf(0, init.astype(np.uint32), np.array(expect, np.int64).astype(np.uint32),
                       unordered=(3, 3 + N))])
