import numpy as np

from common import Case, buf, shader

N = 48
rng = np.random.default_rng(5)
# Keys: multiples of 3 for some lanes (found at different positions), others never found.
keys = rng.permutation(np.arange(0, 3 * 64, 3, dtype=np.uint32))[:32]
out = []
for g in range(N):
    s = sum(2 * i for i in range(4 if g % 2 else 8))
    hits = np.nonzero(keys == 3 * g)[0]
    out += [s, int(hits[0]) if len(hits) else 99]

case = Case("Lanes that leave loops at different iterations: a sum left by a break only odd "
            "lanes take, and a search returning at each lane's own iteration",
            shaders=[shader("shader.spv", "shader.comp")])
case.run(dispatch=[N // 16, 1, 1],
         bindings=[buf(0, keys), buf(1, np.zeros(2 * N, np.uint32), out)])
