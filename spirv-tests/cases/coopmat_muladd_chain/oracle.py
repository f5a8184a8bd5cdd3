import numpy as np

from common import Case, buf, shader

# One subgroup: A0, A1 (16×KS), B0, B1 (KS×16), C0, E0 (16×16); D holds five 16×16 results.
rng = np.random.default_rng(53)
shaders, runs = [], []


def form(name, at, ks):
    if at == "f16":
        a = rng.integers(-8, 9, (2, 16, ks)) * 0.5
        b = rng.integers(-8, 9, (2, ks, 16)) * 0.25
        c = rng.integers(-8, 9, (2, 16, 16)) * 0.5
        glsl, in_t, out_t = ("float16_t", "float"), np.float16, np.float32
    else:
        a = rng.integers(-128, 128, (2, 16, ks))
        b = rng.integers(-128, 128, (2, ks, 16))
        c = rng.integers(-1000, 1000, (2, 16, 16))
        glsl, in_t, out_t = ("int8_t", "int32_t"), np.int8, np.int32
    d1 = a[0] @ b[0] + c[0]
    d2 = a[1] @ b[0] + d1
    e = a[0] @ b[1] + c[0]
    f = a[1] @ b[1] + c[1]
    g = a[1] @ b[0] + f
    out = np.stack([d1, d2, e, f, g]).astype(out_t)
    spv = f"{name}.spv"
    shaders.append(shader(f"{name}_O0.spv", "shader.comp",
                          defines={"AT": glsl[0], "CT": glsl[1], "KS": ks}))
    shaders.append(shader(spv, optimize=f"{name}_O0.spv"))
    runs.append(dict(name=name, shader=spv, dispatch=[1, 1, 1], bindings=[
        buf(0, a.astype(in_t).reshape(-1).view(np.uint8), dtype=np.uint8),
        buf(1, b.astype(in_t).reshape(-1).view(np.uint8), dtype=np.uint8),
        buf(2, c.astype(out_t).reshape(-1), dtype=out_t),
        buf(3, np.zeros(out.size, out_t), out.reshape(-1), dtype=out_t)]))


form("f16_f32", "f16", 16)
form("s8_s32", "s8", 32)

case = Case("SPV_KHR_cooperative_matrix: multiply-adds in one block that read each other's "
            "results beside independent ones (optimised by spirv-opt -O): batched kernel calls "
            "keep every dependency", shaders=shaders)
for r in runs:
    case.run(**r)
