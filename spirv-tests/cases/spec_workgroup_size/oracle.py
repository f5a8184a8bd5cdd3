import numpy as np

from common import Case, buf

# layout(local_size_x_id = 0); K (id 1, default 3); FLAG (id 2, default false); K2 = K * 2 + 1.
N = 16


def expect(local, k, flag):
    return [i * (k * 2 + 1) + (1000 if flag else 0) + local * 100_000 for i in range(N)]


case = Case("Specialization constants: the workgroup size, an int and a bool, and a "
            "spec-constant expression, at their defaults and set")
case.run(name="defaults", dispatch=[N, 1, 1],
         bindings=[buf(0, np.zeros(N, np.uint32), expect(1, 3, False))])
case.run(name="set", dispatch=[N // 4, 1, 1], spec=[(0, 4, 4), (1, 4, 10), (2, 4, 1)],
         bindings=[buf(0, np.zeros(N, np.uint32), expect(4, 10, True))])
