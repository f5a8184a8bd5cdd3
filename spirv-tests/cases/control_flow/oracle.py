import numpy as np

from common import Case, buf

N = 64


def ref(i):
    acc = 0
    for j in range(20):
        if j == i % 7 + 9:
            break
        if j % 3 == 0:
            continue
        acc += j * (i % 5 + 1)
    m = i % 6
    if m == 0:
        sw = 10
    elif m in (1, 2):
        sw = 20 + m        # case 1 falls through into case 2
    elif m == 3:
        sw = 30
    else:
        sw = 99
    if m == 1:
        sw += 1            # the fallthrough adds case 1's part
    if i % 2 == 0:
        nest = 1 if i % 4 == 0 else 2
    elif i % 3 == 0:
        nest = 3
    else:
        nest = 4 if i > 30 else 5
    w = i
    steps = 0
    while w != 1 and steps < 50:
        w = w // 2 if w % 2 == 0 else 3 * w + 1
        steps += 1
    d = 0
    while True:
        d += 3
        if d > i:
            break
    return [acc, sw, nest, steps, d]


out = []
for i in range(N):
    out += ref(i)

case = Case("for with break and continue, switch with fallthrough and default, nested if/else, "
            "while, do-while")
case.run(dispatch=[N // 16, 1, 1], bindings=[buf(0, np.zeros(N * 5, np.uint32), out)])
