import numpy as np

from common import Case, buf, shader

# coopmat_gemm's C = A·B (M = N = 64: two workgroups of two subgroups, a 32×32 block of C
# each), unrolled and optimised: the K loop loads two A and two B matrices and multiplies them
# at once, so compiled code reads A and B where the loads found them. The `short_b` runs bind
# B with a descriptor range that ends inside the last step's B matrices: those loads are not
# wholly inside the buffer, read zeros past its end (robust buffer access), and the
# multiply-adds read what they loaded into registers instead.
M = N = 64
rng = np.random.default_rng(47)
shaders, runs = [], []


def form(name, k, at, ks, short_b=False):
    if at == "f16":
        a = rng.integers(-8, 9, (M, k)) * 0.5
        b = rng.integers(-8, 9, (k, N)) * 0.25
        a, b = a.astype(np.float16), b.astype(np.float16)
        glsl = ("float16_t", "float")
        out = np.float32
    else:
        a = rng.integers(-128, 128, (M, k)).astype(np.int8)
        b = rng.integers(-128, 128, (k, N)).astype(np.int8)
        glsl = ("int8_t", "int32_t")
        out = np.int32
    spv = f"{name}.spv"
    if not any(s["spv"] == spv for s in shaders):
        shaders.append(shader(f"{name}_O0.spv", "shader.comp", defines={
            "AT": glsl[0], "BT": glsl[0], "CT": glsl[1], "M": M, "N": N, "K": k, "KS": ks}))
        shaders.append(shader(spv, optimize=f"{name}_O0.spv"))
    b_bytes = b.reshape(-1).view(np.uint8)
    seen = b.astype(np.float64)
    b_range = None
    if short_b:
        # The range ends 5 elements into row k - 7: rows k - 7 .. k - 1 (part of the last
        # step's B matrices of every block) read zeros from there on.
        keep = (k - 7) * N + 5
        b_range = keep * b.itemsize
        flat = seen.reshape(-1)
        flat[keep:] = 0
    c = (a.astype(np.float64) @ seen).astype(out)
    runs.append(dict(name=name + ("_short_b" if short_b else ""), shader=spv, dispatch=[2, 1, 1],
                     bindings=[
                         buf(0, a.reshape(-1).view(np.uint8), dtype=np.uint8),
                         buf(1, b_bytes, dtype=np.uint8, range=b_range),
                         buf(2, np.zeros(c.size, c.dtype), c.reshape(-1), dtype=c.dtype)]))


form("f16_f32_k64", 64, "f16", 16)
form("s8_s32_k96", 96, "i8", 32)
form("f16_f32_k64", 64, "f16", 16, short_b=True)
form("s8_s32_k96", 96, "i8", 32, short_b=True)

case = Case("SPV_KHR_cooperative_matrix: coopmat_gemm unrolled and optimised (spirv-opt -O): "
            "A and B read where they were loaded, accumulators carried around the K loop, and "
            "B's last matrices partly outside a short descriptor range", shaders=shaders)
for r in runs:
    case.run(**r)
