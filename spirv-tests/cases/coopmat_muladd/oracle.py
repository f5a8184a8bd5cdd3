import ml_dtypes
import numpy as np

from common import Case, buf, shader

TILES = 4  # two workgroups of two subgroups
rng = np.random.default_rng(30)
GLSL = {"f16": "float16_t", "f32": "float", "bf16": "bfloat16_t", "i8": "int8_t", "u8": "uint8_t",
        "i32": "int32_t", "u32": "uint32_t"}
NP = {"f16": np.float16, "f32": np.float32, "bf16": ml_dtypes.bfloat16, "i8": np.int8,
      "u8": np.uint8, "i32": np.int32, "u32": np.uint32}
ROW, COL = "gl_CooperativeMatrixLayoutRowMajor", "gl_CooperativeMatrixLayoutColumnMajor"
shaders, runs = [], []


def store(mats, col_major, pad):
    """Tiles (TILES x R x C) as stored: each tile row- or column-major with `pad` extra elements
    per line; returns (flat array, stride in elements, tile size in elements)."""
    t, r, c = mats.shape
    lines, length = (c, r) if col_major else (r, c)
    stride = length + pad
    out = np.zeros((t, lines, stride), mats.dtype)
    for i in range(t):
        out[i, :, :length] = mats[i].T if col_major else mats[i]
    return out.reshape(-1), stride, lines * stride


def form(name, m, n, k, at, ct, rt, a_col=False, b_col=False, saturating=False, data="small"):
    if at in ("f16", "bf16", "f32"):
        a = rng.integers(-8, 9, (TILES, m, k)) * 0.5
        b = rng.integers(-8, 9, (TILES, k, n)) * 0.25
        c = rng.integers(-16, 17, (TILES, m, n)) * 0.5
        dd = np.einsum("tik,tkj->tij", a, b) + c
    else:
        lo, hi = (-128, 127) if at == "i8" else (0, 255)
        a = rng.integers(lo, hi + 1, (TILES, m, k))
        b = rng.integers(lo, hi + 1, (TILES, k, n))
        clo, chi = (-2**31, 2**31 - 1) if rt == "i32" else (0, 2**32 - 1)
        c = rng.integers(clo, chi + 1, (TILES, m, n), dtype=np.int64)
        if data == "saturate":
            c[:, :2, :] = chi - 5 if rt == "u32" else np.array([chi - 5, clo + 5])[None, :, None]
        dd = np.einsum("tik,tkj->tij", a.astype(np.int64), b.astype(np.int64)) + c
        if saturating:
            dd = np.clip(dd, clo, chi)
        else:
            dd = dd % 2**32
            if rt == "i32":
                dd = np.where(dd >= 2**31, dd - 2**32, dd)
    a_mem, a_stride, a_tile = store(a.astype(NP[at]), a_col, 3)
    b_mem, b_stride, b_tile = store(b.astype(NP[at]), b_col, 5)
    c_mem = c.astype(NP[ct]).reshape(-1)
    d_want = dd.astype(NP[rt]).reshape(-1)
    defines = {"AT": GLSL[at], "BT": GLSL[at], "CT": GLSL[ct], "RT": GLSL[rt], "M": m, "N": n,
               "K": k, "A_TILE": a_tile, "B_TILE": b_tile, "A_STRIDE": a_stride,
               "B_STRIDE": b_stride, "A_LAYOUT": COL if a_col else ROW,
               "B_LAYOUT": COL if b_col else ROW,
               "OPERANDS": ", gl_MatrixOperandsSaturatingAccumulation" if saturating else ""}
    spv = f"{name}.spv"
    shaders.append(shader(spv, "shader.comp", defines=defines))
    dt = NP[rt]
    runs.append(dict(name=name, shader=spv, dispatch=[2, 1, 1], bindings=[
        buf(0, a_mem.view(np.uint8), dtype=np.uint8),
        buf(1, b_mem.view(np.uint8), dtype=np.uint8),
        buf(2, c_mem.view(np.uint8), dtype=np.uint8),
        buf(3, np.zeros(d_want.size, dt), d_want.view(np.uint16) if rt == "bf16" else d_want,
            dtype=np.uint16 if rt == "bf16" else dt)]))


form("f16_f32_16x16x16", 16, 16, 16, "f16", "f32", "f32")
form("f16_f32_16x8x16_colmajor", 16, 8, 16, "f16", "f32", "f32", a_col=True, b_col=True)
form("f16_f16_16x8x8", 16, 8, 8, "f16", "f16", "f16", b_col=True)
form("f16_f16_16x16x16", 16, 16, 16, "f16", "f16", "f16", a_col=True)
form("bf16_f32_16x16x16", 16, 16, 16, "bf16", "f32", "f32")
form("f32_f32_16x16x8", 16, 16, 8, "f32", "f32", "f32")
form("s8_s32_16x16x32", 16, 16, 32, "i8", "i32", "i32")
form("u8_u32_16x8x32", 16, 8, 32, "u8", "u32", "u32", b_col=True)
form("s8_s32_saturating", 16, 16, 32, "i8", "i32", "i32", saturating=True, data="saturate")
form("u8_u32_saturating", 16, 8, 32, "u8", "u32", "u32", saturating=True, data="saturate")
# A bfloat16 accumulator and result (summed in f32, rounded once), as ncnn's bf16 GEMM has.
form("bf16_bf16_16x16x16", 16, 16, 16, "bf16", "bf16", "bf16")

case = Case("SPV_KHR_cooperative_matrix: coopMatLoad row- and column-major with padded strides, "
            "coopMatMulAdd for f16/bf16/f32 (bf16 accumulators too) and 8-bit integer forms (wrapping and saturating) "
            "at every listed size, coopMatStore; one tile per subgroup", shaders=shaders)
for r in runs:
    case.run(**r)
