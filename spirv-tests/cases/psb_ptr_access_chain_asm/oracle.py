import numpy as np

from common import Case, address, buf

N = 8
rng = np.random.default_rng(20261203)
s = rng.integers(0, 1 << 20, (N, 2)).astype(np.uint32)
a, b = s[:, 0], s[:, 1]
s_out = s.copy()
s_out[:, 0] += 100

out = np.zeros(64, np.uint32)
out[0:8] = b
out[8:16] = b
out[16:24] = 1                               # unmapped atomic: old value 0
out[24:32] = b
out[32:40] = np.where(np.arange(N) % 2 == 1, b, 0)
out[40:48] = b
out[48:56] = np.where(np.arange(N) % 2 == 1, b, 0)
out[56:64] = 20 + 16

# Two nodes: node 0 -> node 1 -> null; the backend writes node 0's next pointer.
nodes = np.array([0, 0, 10, 0, 0, 0, 20, 0], np.uint32)
nodes_mask = np.array([0, 0, 1, 1, 1, 1, 1, 1], np.uint8)

case = Case("PhysicalStorageBuffer pointers in SPIR-V assembly: OpPtrAccessChain "
            "with ArrayStride, Aligned, OpConvertUToPtr/PtrToU, a uvec2 "
            "bitcast to a pointer, OpSelect and OpPhi of pointers, a pointer in a Function variable, atomics through a "
            "pointer and on an unmapped address, a forward-declared pointer loaded from memory")
case.run(dispatch=[1, 1, 1], push=bytes(32),
         bindings=[buf(0, s.reshape(-1), s_out.reshape(-1)),
                   buf(1, np.zeros(2, np.uint32), np.array([4, 4], np.uint32)),
                   buf(2, np.zeros(64, np.uint32), out),
                   buf(3, nodes, nodes, mask=nodes_mask)],
         addresses=[address(0, 0), address(1, 8), address(0, 16), address(3, 24),
                    address(3, 0, into=3, add=16)])
