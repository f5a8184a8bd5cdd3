import numpy as np

from common import Case, buf, shader

# C = A·B with M = N = 64 (4 blocks of 32×32: two workgroups of two subgroups).
M = N = 64
rng = np.random.default_rng(31)
shaders, runs = [], []


def form(name, k, at, ct, ks):
    if at == "f16":
        a = rng.integers(-8, 9, (M, k)) * 0.5
        b = rng.integers(-8, 9, (k, N)) * 0.25
        c = (a @ b).astype(np.float32)
        a, b = a.astype(np.float16), b.astype(np.float16)
        glsl = ("float16_t", "float")
    else:
        a = rng.integers(-128, 128, (M, k))
        b = rng.integers(-128, 128, (k, N))
        c = (a @ b).astype(np.int32)
        a, b = a.astype(np.int8), b.astype(np.int8)
        glsl = ("int8_t", "int32_t")
    spv = f"{name}.spv"
    shaders.append(shader(spv, "shader.comp", defines={
        "AT": glsl[0], "BT": glsl[0], "CT": glsl[1], "M": M, "N": N, "K": k, "KS": ks}))
    runs.append(dict(name=name, shader=spv, dispatch=[2, 1, 1], bindings=[
        buf(0, a.reshape(-1).view(np.uint8), dtype=np.uint8),
        buf(1, b.reshape(-1).view(np.uint8), dtype=np.uint8),
        buf(2, np.zeros(c.size, c.dtype), c.reshape(-1), dtype=c.dtype)]))


form("f16_f32_k64", 64, "f16", "f32", 16)
form("s8_s32_k96", 96, "i8", "i32", 32)

case = Case("SPV_KHR_cooperative_matrix: a tiled GEMM, 2×2 accumulators per subgroup and arrays of "
            "A and B matrices indexed by loop counters (f16→f32 and s8→s32)", shaders=shaders)
for r in runs:
    case.run(**r)
