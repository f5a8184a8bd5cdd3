import numpy as np

from common import Case, buf, tensor, tensor_el

a = (np.arange(12).reshape(3, 4) * 3 - 5).astype(np.int32)
b = (np.arange(12).reshape(3, 4) * -7 + 2).astype(np.int32)
out = []
for i in range(12):
    r, c = divmod(i, 4)
    # Through the shaped type [3,4]: the element; through [4,3] (does not match the tensor):
    # the OOB value -1. Both size queries give 3 * 10 + 4.
    out += [int(a[r, c]), -1, 34, 34]

case = Case("Shaped OpTypeTensorARM that matches the bound tensor and one that does not (reads "
            "give the OOB value, writes are dropped); an unranked type declared (SPIR-V assembly)")
case.run(dispatch=[1, 1, 1],
         bindings=[tensor(0, tensor_el("i32", a, a + 1000, strides="padded")),
                   tensor(1, tensor_el("i32", b, b)),
                   buf(2, np.zeros(len(out), np.int32), out, dtype=np.int32)])
