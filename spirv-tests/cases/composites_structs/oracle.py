import struct

import numpy as np

from common import Case, buf

N = 8
rng = np.random.default_rng(20260130)

# std430 struct S { vec3 p; int id; float w[3]; uvec2 q; }: p@0, id@12, w@16 (stride 4),
# q@32 (8-aligned) -> 40, rounded up to the struct's 16-byte alignment: array stride 48.
raw = bytearray()
recs = []
for k in range(N):
    p = rng.uniform(-5, 5, 3).astype(np.float32)
    idv = int(rng.integers(-100, 100))
    w = rng.uniform(0, 1, 3).astype(np.float32)
    q = [int(x) for x in rng.integers(0, 1000, 2)]
    recs.append((p, idv, w, q))
    raw += p.tobytes() + struct.pack("<i", idv) + w.tobytes() + bytes(4) + struct.pack("<II", *q)
    raw += bytes(8)
out = bytearray()
for k, (p, idv, w, q) in enumerate(recs):
    # A local array indexed dynamically, a dynamic vector component, a composite insert.
    arr = [float(np.float32(p[j % 3]) * np.float32(j)) for j in range(5)]
    sel = arr[(k * 3) % 5]
    vec = [float(x) for x in p]
    comp = vec[k % 3]
    vec[(k + 1) % 3] = float(np.float32(w[0]) + np.float32(w[1]))
    # std430 struct R { vec3 a; uint b; float c; float d; int id2; uint qq; }: 32 bytes.
    out += np.array(vec, np.float32).tobytes() + struct.pack("<I", q[0] + q[1])
    out += struct.pack("<ffiI", np.float32(sel), np.float32(comp), idv * 2, q[k % 2])

case = Case("std430 structs with vec3, arrays and uvec2 members read and written whole; local "
            "arrays and vector components indexed dynamically")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, bytes(raw), compare="u32"),
                   buf(1, bytes(len(out)), bytes(out), compare="u32")])
