import ml_dtypes
import numpy as np

from common import Case, buf, matrix, shader

N = 64  # invocations: two workgroups of 32
rng = np.random.default_rng(25)

CT = {"f16": "gl_ComponentTypeFloat16NV", "f32": "gl_ComponentTypeFloat32NV",
      "i8": "gl_ComponentTypeSignedInt8NV", "u8": "gl_ComponentTypeUnsignedInt8NV",
      "i32": "gl_ComponentTypeSignedInt32NV", "u32": "gl_ComponentTypeUnsignedInt32NV",
      "i8packed": "gl_ComponentTypeSignedInt8PackedNV", "e4m3": "gl_ComponentTypeFloatE4M3NV"}
GLSL = {"f16": "float16_t", "f32": "float", "i8": "int8_t", "u8": "uint8_t", "i32": "int32_t",
        "u32": "uint32_t"}
LAYOUT = {"row": "gl_CooperativeVectorMatrixLayoutRowMajorNV",
          "col": "gl_CooperativeVectorMatrixLayoutColumnMajorNV",
          "inferencing": "gl_CooperativeVectorMatrixLayoutInferencingOptimalNV",
          "training": "gl_CooperativeVectorMatrixLayoutTrainingOptimalNV"}
NP = {"f16": np.float16, "f32": np.float32, "i8": np.int8, "u8": np.uint8, "i32": np.int32,
      "u32": np.uint32, "e4m3": ml_dtypes.float8_e4m3fn}


def up16(n):
    return (n + 15) // 16 * 16


def up64(n):
    return (n + 63) // 64 * 64


def values(kind, shape, lo, hi, step):
    v = rng.integers(int(lo / step), int(hi / step) + 1, shape) * step
    return v.astype(np.float64) if kind in ("f16", "f32", "e4m3") else v.astype(np.int64)


shaders = []
runs = []


def form(name, k, m, inp, interp, mat, out, bias=None, layout="row", transpose=False, relu=False,
         matrices=1, packed=False):
    """One run: `matrices` different matrices (invocation i uses i % matrices)."""
    es_in = np.dtype(NP[inp]).itemsize
    in_n = (k + 3) // 4 if packed else k
    in_bytes = up16(in_n * es_in)
    es_m = np.dtype(NP[mat]).itemsize
    # The stored matrix: M x K, or K x M when transposed (converted the same way).
    rows, cols = (k, m) if transpose else (m, k)
    stride = up16(cols * es_m) + 16
    # inputs
    if packed:
        logical = values("i8", (N, k), -128, 127, 1)
        words = np.zeros((N, in_n * 4), np.int64)
        words[:, :k] = logical
        # The bytes of the last word past K are garbage the product must ignore.
        words[:, k:] = rng.integers(-128, 128, (N, in_n * 4 - k))
        x_stored = words.astype(np.int8).view(np.uint32).reshape(N, in_n)
        x_value = logical
    elif inp in ("f16", "f32"):
        x_value = values(inp, (N, k), -2, 2, 0.5)
        if interp == "e4m3":
            x_value = x_value.astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
        x_stored = x_value.astype(NP[inp])
        if interp in ("i8", "u8"):
            # float to int8: round to nearest even, saturate (ties and overflow included)
            x_stored = (values("f32", (N, k), -200, 200, 0.25)).astype(np.float32)
            lo, hi = (-128, 127) if interp == "i8" else (0, 255)
            x_value = np.clip(np.round(x_stored.astype(np.float64)), lo, hi).astype(np.int64)
    else:
        lo, hi = (-128, 127) if inp == "i8" else (0, 255)
        x_value = values(inp, (N, k), lo, hi, 1)
        x_stored = x_value.astype(NP[inp])
    inputs = np.zeros((N, in_bytes), np.uint8)
    inputs[:, :in_n * es_in] = np.ascontiguousarray(x_stored).view(np.uint8).reshape(N, -1)
    # matrices, row-major in binding 1, each followed by room for its converted form
    float_m = mat in ("f16", "f32", "e4m3")
    if float_m:
        ws = [values(mat, (m, k), -1, 1, 0.25) for _ in range(matrices)]
        if mat == "e4m3":
            ws = [w.astype(ml_dtypes.float8_e4m3fn).astype(np.float64) for w in ws]
    else:
        lo, hi = (-128, 127) if mat == "i8" else (0, 255)
        ws = [values(mat, (m, k), lo, hi, 1) for _ in range(matrices)]
    raw_size = up64(rows * stride)
    room = up64(((rows + 7) // 8) * 8 * (cols + 1) * 4)
    step = raw_size + room
    mem = np.zeros(step * matrices, np.uint8)
    convs = []
    for j, w in enumerate(ws):
        stored = w.T if transpose else w
        body = np.zeros((rows, stride), np.uint8)
        body[:, :cols * es_m] = np.ascontiguousarray(stored.astype(NP[mat])).view(np.uint8).reshape(rows, -1)
        mem[j * step:j * step + rows * stride] = body.reshape(-1)
        if layout == "row":
            continue
        dst_stride = up16(rows * es_m) if layout == "col" else 0
        convs.append(matrix(1, j * step, rows, cols, mat, stride, layout, j * step + raw_size, room,
                            dst_stride=dst_stride))
    mat_at = 0 if layout == "row" else raw_size
    mat_stride = {"row": stride, "col": up16(rows * es_m)}.get(layout, 0)
    # bias
    bvals = None
    bias_mem = np.zeros(up16(m * 4), np.uint8)
    if bias is not None:
        if bias in ("f16", "f32"):
            bvals = values(bias, m, -4, 4, 0.5)
        else:
            bvals = values(bias, m, -100000, 100000, 1) if bias == "i32" else values(bias, m, 0, 100000, 1)
        bb = bvals.astype(NP[bias]).view(np.uint8)
        bias_mem[:bb.size] = bb
    # expected
    es_out = np.dtype(NP[out]).itemsize
    out_bytes = up16(m * es_out)
    expect = np.zeros((N, out_bytes), np.uint8)
    for i in range(N):
        w = ws[i % matrices]
        if float_m:
            acc = w @ x_value[i]
            if bvals is not None:
                acc = acc + bvals
            if relu:
                acc = np.maximum(acc, 0)
        else:
            acc = (w.astype(np.int64) @ x_value[i].astype(np.int64))
            if bvals is not None:
                acc = acc + bvals
            acc = ((acc + 2**31) % 2**32) - 2**31
        r = np.asarray(acc).astype(np.int64 if not float_m else np.float64)
        r = r.astype(NP[out]) if float_m else r.astype(np.int64).astype(np.uint32 if out == "u32" else np.int32)
        expect[i, :m * es_out] = np.ascontiguousarray(r).view(np.uint8)
    defines = {"IN_T": GLSL["u32" if packed else inp], "IN_N": in_n, "OUT_T": GLSL[out], "M": m,
               "K": k, "INTERP": CT[interp], "MAT_T": CT[mat], "LAYOUT": LAYOUT[layout],
               "TRANSPOSE": "true" if transpose else "false", "STRIDE": mat_stride,
               "IN_BYTES": in_bytes, "OUT_BYTES": out_bytes,
               "MAT_OFFSET": f"{mat_at}" if matrices == 1 else f"(i % {matrices}u) * {step}u + {mat_at}u"}
    if bias is not None:
        defines["BIAS_T"] = CT[bias]
    if relu:
        defines["RELU"] = 1
    spv = f"{name}.spv"
    shaders.append(shader(spv, "shader.comp", defines=defines))
    runs.append(dict(name=name, shader=spv, dispatch=[2, 1, 1], matrices=convs, bindings=[
        buf(0, inputs.reshape(-1), dtype=np.uint8),
        buf(1, mem, dtype=np.uint8),
        buf(2, bias_mem, dtype=np.uint8),
        buf(3, np.zeros(N * out_bytes // es_out, NP[out]), expect.reshape(-1).view(NP[out]), dtype=NP[out])]))


form("f16_row", 32, 24, "f16", "f16", "f16", "f16", bias="f16")
form("f16_inferencing", 32, 24, "f16", "f16", "f16", "f16", bias="f16", layout="inferencing")
form("f16_inferencing_transpose", 32, 24, "f16", "f16", "f16", "f16", bias="f16",
     layout="inferencing", transpose=True)
form("f16_training_relu", 24, 40, "f16", "f16", "f16", "f16", layout="training", relu=True)
form("f32_col", 13, 7, "f32", "f32", "f32", "f32", bias="f32", layout="col")
form("s8_row", 40, 20, "i8", "i8", "i8", "i32", bias="i32")
form("u8_u8_inferencing", 33, 17, "u8", "u8", "u8", "i32", bias="i32", layout="inferencing")
form("packed_inferencing", 35, 9, "u32", "i8packed", "i8", "i32", bias="i32",
     layout="inferencing", packed=True)
form("f32_as_s8_training", 16, 8, "f32", "i8", "i8", "i32", bias="i32", layout="training")
form("e4m3_inferencing", 32, 16, "f16", "e4m3", "e4m3", "f16", bias="f16", layout="inferencing")
form("f16_nonuniform_matrix", 16, 16, "f16", "f16", "f16", "f16", bias="f16", matrices=3)

case = Case("SPV_NV_cooperative_vector: coopVecMatMulNV/MatMulAddNV for f16, f32, int8, packed "
            "int8 and float8 forms in every layout (optimal ones converted by the driver), "
            "transposed, with per-invocation matrices", shaders=shaders)
for r in runs:
    case.run(**r)
