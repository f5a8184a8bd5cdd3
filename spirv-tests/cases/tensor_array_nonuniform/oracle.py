import numpy as np

from common import Case, buf, tensor, tensor_el

# Invocation i reads element i / 3 of tensor i % 3 (a non-uniform index) and adds
# tensorSizeARM(ts[1], 0) * 1000. Tensor k holds k * 10 + 0..3.
ts = [np.arange(4, dtype=np.int32) + k * 10 for k in range(3)]
out = [(i % 3) * 10 + i // 3 + 4 * 1000 for i in range(12)]

case = Case("An array of three tensors indexed non-uniformly, and a size query through a "
            "constant index")
case.run(dispatch=[3, 1, 1],
         bindings=[tensor(0, *[tensor_el("i32", t) for t in ts]),
                   buf(1, np.zeros(12, np.int32), out, dtype=np.int32)])
