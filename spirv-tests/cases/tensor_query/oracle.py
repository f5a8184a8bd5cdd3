import numpy as np

from common import Case, buf, shader, tensor, tensor_el

# Dimension i of the rank-r tensor is i + 2 (crates/spirv/tests/tensor.rs also queries tensors
# of dims i * 3 + 2 with these shaders: 385 MB at rank 8, too much for a case).
case = Case("tensorSizeARM of every dimension of an int tensor of rank RANK = 1 to 8",
            shaders=[shader(f"r{r}.spv", "shader.comp", defines={"T": "int", "RANK": r})
                     for r in range(1, 9)])
for r in range(1, 9):
    dims = [i + 2 for i in range(r)]
    case.run(name=f"rank{r}", shader=f"r{r}.spv", dispatch=[1, 1, 1],
             bindings=[tensor(0, tensor_el("i32", np.zeros(dims, np.int32))),
                       buf(1, np.zeros(8, np.uint32), dims + [0] * (8 - r))])
