import numpy as np

from common import Case, address, buf

N, WG = 10, 32
rng = np.random.default_rng(20261202)
values = rng.integers(0, 1000, N).astype(np.uint32)

# Node k at byte 16k: next (u64, written by the backend: node k+1, or null for the last), value, pad.
nodes = np.zeros(4 * N, np.uint32)
nodes[2::4] = values
nodes[3::4] = 0xA5A5A5A5

suffix = np.array([int(values[k:].sum()) for k in range(N)], np.uint64)
sums = np.array([suffix[i % N] for i in range(WG)], np.uint32)
counters = np.zeros(4, np.uint32)
counters[0] = int(sums[0::2].astype(np.uint64).sum() & 0xFFFFFFFF)
counters[2] = int(sums[1::2].astype(np.uint64).sum() & 0xFFFFFFFF)

# nexts[i]: node (i % N)'s next pointer: a host address; only the nulls are compared.
nexts_mask = np.zeros(2 * WG, np.uint8)
for i in range(WG):
    if i % N == N - 1:
        nexts_mask[2 * i:2 * i + 2] = 1

push = bytes(24) + np.uint32(N).tobytes()
# The next pointers hold host addresses: compare values and padding only.
nodes_mask = np.tile(np.array([0, 0, 1, 1], np.uint8), N)
case = Case("A linked list of PhysicalStorageBuffer pointers stored in a buffer: pointer "
            "arithmetic, a loop over pointers (phi), OpSelect of pointers, atomics through a "
            "pointer, a pointer stored into a buffer")
case.run(dispatch=[1, 1, 1], push=push,
         bindings=[buf(0, nodes, nodes, mask=nodes_mask), buf(1, np.zeros(WG, np.uint32), sums),
                   buf(2, np.zeros(4, np.uint32), counters),
                   buf(3, np.zeros(2 * WG, np.uint32), np.zeros(2 * WG, np.uint32),
                       mask=nexts_mask)],
         addresses=[address(0, 0), address(2, 8), address(2, 16, add=8)]
         + [address(0, 16 * k, into=0, add=16 * (k + 1)) for k in range(N - 1)])
