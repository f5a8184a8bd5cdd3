import numpy as np

from common import Case, buf, shader

# Workgroups of 32 (one subgroup). Lane l runs the loop l % 4 times when l % 3 != 0; iteration k
# runs with the lanes whose trip count exceeds k, so subgroupAdd(k + 1) is (k + 1) times their
# number. arr starts as 0..N-1; each iteration adds s at (acc + l) % N.
NWG = 3
SIZES = [8, 72]
case = Case("Divergent loops around a subgroup reduction and a local array store, run block "
            "by block (N = 8), or compiled without stepping (N = 72)",
            shaders=[shader(f"n{n}.spv", "shader.comp", defines={"N": n}) for n in SIZES])
for n in SIZES:
    spv = f"n{n}.spv"
    o = np.zeros((32 * NWG, 3), np.uint32)

    def trips(l):
        return l % 4 if l % 3 != 0 else 0

    for g in range(32 * NWG):
        l = g % 32
        arr = list(range(n))
        acc = 0
        for k in range(trips(l)):
            s = (k + 1) * sum(1 for h in range(32) if trips(h) > k)
            acc += s
            arr[(acc + l) % n] += s
        o[g] = [acc, arr[g % n], arr[(g + 5) % n]]
    case.run(name=f"n{n}", shader=spv, dispatch=[NWG, 1, 1],
             bindings=[buf(0, np.zeros(o.size, np.uint32), o.reshape(-1))])
