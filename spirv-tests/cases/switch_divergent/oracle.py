import numpy as np

from common import Case, buf

N = 192


def ref(i):
    m = i % 7
    if m == 0:
        v = i * 3
    elif m in (1, 4):
        v = 100 + i
    elif m == 2:
        v = 200 if i % 2 == 0 else 201
    elif m == 5:
        v = 500 - i + 1    # falls into case 6
    elif m == 6:
        v = 1
    else:
        v = 9
    small = i % 5 - 2
    w = {-2: 1, 1: 2}.get(small, 3)
    late = i if i // 100 == 1 else 0
    return [v, w, late]


out = []
for i in range(N):
    out += ref(i)
store = np.arange(N, dtype=np.uint32) * 11
stored = store.copy()
for i in range(N):
    if i % 7 in (1, 4):
        stored[i] += 7
    if i % 7 in (5, 6):
        stored[i] += 1

case = Case("a switch whose lanes pick different cases: several literals to one case, a case "
            "falling into the next, a default, stores and nested ifs inside cases, a signed "
            "selector with a negative literal")
case.run(dispatch=[N // 64, 1, 1],
         bindings=[buf(0, np.zeros(N * 3, np.uint32), out), buf(1, store, stored)])
