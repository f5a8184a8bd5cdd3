import numpy as np

from common import Case, buf

WG = 64
out = []
for g in range(2):
    # Lane `lid` leaves the loop after `lid` iterations with n = lid.
    n = list(range(WG))
    for lid in range(WG):
        out += [n[(lid + 1) % WG], sum(n[(lid // 32) * 32:(lid // 32) * 32 + 32])]

case = Case("Lanes leave a loop through a break at different iterations and must reconverge "
            "before a barrier and a subgroupAdd")
case.run(dispatch=[2, 1, 1], bindings=[buf(0, np.zeros(len(out), np.uint32), out)])
