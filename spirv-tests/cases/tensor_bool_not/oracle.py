import numpy as np

from common import Case, tensor, tensor_el

N = 37
a = np.array([[0, 1, 2, 255, 0][i % 5] for i in range(N)], np.uint8)   # any non-zero is true
case = Case("A bool tensor (any non-zero byte is true) negated into another")
case.run(dispatch=[N, 1, 1],
         bindings=[tensor(0, tensor_el("bool", a)),
                   tensor(1, tensor_el("bool", np.full(N, 0x77, np.uint8),
                                       (a == 0).astype(np.uint8)))])
