#!/usr/bin/env python3
"""Writes every case of the spirv-tests suite: cases/<name>/{shader.comp | shader.spvasm, case.json,
*.bin}. The expected outputs are computed here with numpy / plain Python from the case's definition,
independently of Tessera. Run `./regen.sh` afterwards to rebuild the committed shader.spv files.
CI runs neither script: everything they write is committed.

Case format (case.json, read by spirv-tests/src/lib.rs):
  entry       entry point name
  shader      SPIR-V file next to case.json (default shader.spv)
  dispatch    [x, y, z] workgroup counts
  push        raw push-constant bytes file, or null
  spec        [{id, size, value}] specialization constants (value = little-endian bit pattern)
  bindings    [{set, binding, kind, elements: [element...]}], kind = storage_buffer | uniform_buffer
              | tensor; one element per descriptor (an array of tensors has several)
  element     init    raw little-endian initial contents (for linear tensors: the whole strided
                      footprint strides[0]*dims[0], padding included; optimal tensors: packed)
              expect  expected contents after the dispatch (same layout as init), or null
              compare element type used to compare and report: bool u8 i8 u16 i16 u32 i32 u64 i64
                      f16 f32 f64 (integers and bool must match exactly)
              tolerance  floats: |got - expected| <= tolerance * max(1, |expected|) (0 = exact bits)
              tensors only: format (bool u8 i8 u16 i16 f16 u32 i32 f32 u64 i64 f64), dims
                      (outermost first), strides (bytes, outermost first, or null = packed),
                      tiling (linear | optimal)
"""

import json
import os
import shutil
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "cases")
CASES = []

FMT = {
    "bool": (np.uint8, "bool"),
    "u8": (np.uint8, "uint8_t"),
    "i8": (np.int8, "int8_t"),
    "u16": (np.uint16, "uint16_t"),
    "i16": (np.int16, "int16_t"),
    "f16": (np.float16, "float16_t"),
    "u32": (np.uint32, "uint"),
    "i32": (np.int32, "int"),
    "f32": (np.float32, "float"),
    "u64": (np.uint64, "uint64_t"),
    "i64": (np.int64, "int64_t"),
    "f64": (np.float64, "double"),
    # bfloat16 and float8 tensors are stored as their bit patterns.
    "bf16": (np.uint16, "bfloat16_t"),
    "e4m3": (np.uint8, "floate4m3_t"),
    "e5m2": (np.uint8, "floate5m2_t"),
}

HEADER = """#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
"""
TENSOR_HEADER = HEADER + "#extension GL_ARM_tensors : require\n"


def le(arr, dtype):
    return np.asarray(arr, dtype=dtype).astype(np.dtype(dtype).newbyteorder("<")).tobytes()


def compare_of(dtype):
    return {
        np.dtype(np.uint8): "u8", np.dtype(np.int8): "i8", np.dtype(np.uint16): "u16",
        np.dtype(np.int16): "i16", np.dtype(np.float16): "f16", np.dtype(np.uint32): "u32",
        np.dtype(np.int32): "i32", np.dtype(np.float32): "f32", np.dtype(np.uint64): "u64",
        np.dtype(np.int64): "i64", np.dtype(np.float64): "f64",
    }[np.dtype(dtype)]


def buf(binding, init, expect=None, dtype=np.uint32, tol=0.0, set=0, uniform=False, compare=None):
    """A buffer binding. `init`/`expect`: arrays (converted to dtype) or raw bytes."""
    ib = init if isinstance(init, (bytes, bytearray)) else le(init, dtype)
    eb = None
    if expect is not None:
        eb = expect if isinstance(expect, (bytes, bytearray)) else le(expect, dtype)
        assert len(eb) == len(ib), (len(eb), len(ib))
    return {
        "set": set, "binding": binding,
        "kind": "uniform_buffer" if uniform else "storage_buffer",
        "elements": [{"init": bytes(ib), "expect": None if eb is None else bytes(eb),
                      "compare": compare or compare_of(dtype), "tolerance": tol}],
    }


def packed_strides(dims, es):
    s, acc = [0] * len(dims), es
    for i in reversed(range(len(dims))):
        s[i] = acc
        acc *= dims[i]
    return s


def padded_strides(dims, es, pad=3):
    """Every outer stride gets `pad` elements of padding (the innermost stride stays packed)."""
    s, acc = [0] * len(dims), es
    for i in reversed(range(len(dims))):
        s[i] = acc
        acc = acc * dims[i] + pad * es
    return s


def tensor_mem(arr, strides, fill=0xA5):
    arr = np.asarray(arr)
    es = arr.dtype.itemsize
    dims = arr.shape
    out = bytearray([fill]) * (strides[0] * dims[0])
    flat = arr.astype(arr.dtype.newbyteorder("<"))
    for idx in np.ndindex(dims):
        off = sum(i * s for i, s in zip(idx, strides))
        out[off:off + es] = flat[idx].tobytes()
    return bytes(out)


def tensor_el(fmt, init, expect=None, strides="packed", tiling="linear", tol=0.0, fill=0xA5):
    dtype = FMT[fmt][0]
    init = np.asarray(init, dtype=dtype)
    dims = list(init.shape)
    es = np.dtype(dtype).itemsize
    if tiling == "optimal":
        assert strides == "packed"
    st = {"packed": packed_strides(dims, es), "padded": padded_strides(dims, es)}.get(strides, strides)
    el = {
        "format": fmt, "dims": dims, "strides": None if strides == "packed" else st,
        "tiling": tiling, "init": tensor_mem(init, st, fill),
        "expect": None if expect is None else tensor_mem(np.asarray(expect, dtype=dtype), st, fill),
        "compare": "bool" if fmt == "bool" else fmt, "tolerance": tol,
    }
    return el


def tensor(binding, *elements, set=0):
    return {"set": set, "binding": binding, "kind": "tensor", "elements": list(elements)}


def case(name, src, bindings, dispatch, push=None, spec=(), lang="comp", entry="main"):
    CASES.append(dict(name=name, src=src, bindings=bindings, dispatch=list(dispatch), push=push,
                      spec=list(spec), lang=lang, entry=entry))


def write_all():
    if os.path.isdir(CASES_DIR):
        # Keep committed shader.spv files (regen.sh rebuilds them); replace everything else.
        for name in os.listdir(CASES_DIR):
            d = os.path.join(CASES_DIR, name)
            for f in os.listdir(d):
                if f != "shader.spv":
                    os.remove(os.path.join(d, f))
    names = set()
    for c in CASES:
        assert c["name"] not in names, c["name"]
        names.add(c["name"])
        d = os.path.join(CASES_DIR, c["name"])
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "shader." + c["lang"]), "w") as f:
            f.write(c["src"].lstrip("\n"))
        desc = {"entry": c["entry"], "shader": "shader.spv", "dispatch": c["dispatch"],
                "push": None, "spec": [], "bindings": []}
        if c["push"] is not None:
            with open(os.path.join(d, "push.bin"), "wb") as f:
                f.write(c["push"])
            desc["push"] = "push.bin"
        for sid, size, value in c["spec"]:
            desc["spec"].append({"id": sid, "size": size, "value": value})
        for b in c["bindings"]:
            jb = {"set": b["set"], "binding": b["binding"], "kind": b["kind"], "elements": []}
            for k, el in enumerate(b["elements"]):
                stem = f"s{b['set']}b{b['binding']}" + (f"_{k}" if len(b["elements"]) > 1 else "")
                je = dict(el)
                with open(os.path.join(d, stem + ".init.bin"), "wb") as f:
                    f.write(el["init"])
                je["init"] = stem + ".init.bin"
                if el["expect"] is not None:
                    with open(os.path.join(d, stem + ".expect.bin"), "wb") as f:
                        f.write(el["expect"])
                    je["expect"] = stem + ".expect.bin"
                jb["elements"].append(je)
            desc["bindings"].append(jb)
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump(desc, f, indent=1)
            f.write("\n")
    for name in os.listdir(CASES_DIR):
        if name not in names:
            shutil.rmtree(os.path.join(CASES_DIR, name))
    print(f"wrote {len(CASES)} cases")


RNG = np.random.default_rng(20260130)


def wrap(v, bits, signed):
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def tdiv(a, b):
    """Truncating division (OpSDiv)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def srem(a, b):
    return a - b * tdiv(a, b)


def smod(a, b):
    r = srem(a, b)
    return r + b if r != 0 and (r < 0) != (b < 0) else r


# ---------------------------------------------------------------------------------------------
# Integer arithmetic
# ---------------------------------------------------------------------------------------------

def int_case(name, glsl_t, bits, signed, n=64, extra_ext=""):
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    a = [lo + int.from_bytes(RNG.bytes(8), "little") % (hi - lo + 1) for _ in range(n)]
    b = [lo + int.from_bytes(RNG.bytes(8), "little") % (hi - lo + 1) for _ in range(n)]
    # Small values and sign combinations first, then random full-range ones.
    smalls = [(7, 3), (-7, 3), (7, -3), (-7, -3), (0, 5), (lo, 1), (hi, 2), (lo + 1, -1),
              (100, 7), (-100, 7), (5, 9), (-5, 9), (1, hi), (lo, hi), (13, -13), (-1, 1)]
    for k, (x, y) in enumerate(smalls):
        if not signed:
            x, y = x & ((1 << bits) - 1), y & ((1 << bits) - 1)
        a[k], b[k] = x, y
    for k in range(n):
        if b[k] == 0 or (signed and a[k] == lo and b[k] == -1):
            b[k] = 3
    K = 10
    out = []
    for x, y in zip(a, b):
        if signed:
            mod = smod(x, y)
        else:
            mod = x % y
        r = [x + y, x - y, x * y, tdiv(x, y) if signed else x // y, mod, -x, min(x, y), max(x, y),
             abs(x) if signed else x, min(max(x, lo // 2 if signed else 10), hi // 2)]
        out += [wrap(v, bits, signed) for v in r]
    dt = {(8, True): np.int8, (8, False): np.uint8, (16, True): np.int16, (16, False): np.uint16,
          (32, True): np.int32, (32, False): np.uint32, (64, True): np.int64, (64, False): np.uint64}[(bits, signed)]
    sfx = ("l" if signed else "ul") if bits == 64 else ""
    lo_c = f"{glsl_t}({lo // 2}{sfx})" if signed else f"{glsl_t}(10)"
    src = HEADER + extra_ext + f"""
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer A {{ {glsl_t} a[]; }};
layout(set = 0, binding = 1) readonly buffer B {{ {glsl_t} b[]; }};
layout(set = 0, binding = 2) writeonly buffer O {{ {glsl_t} o[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    {glsl_t} x = a[i];
    {glsl_t} y = b[i];
    uint k = i * {K}u;
    o[k + 0u] = x + y;
    o[k + 1u] = x - y;
    o[k + 2u] = x * y;
    o[k + 3u] = x / y;
    o[k + 4u] = x % y;
    o[k + 5u] = -x;
    o[k + 6u] = min(x, y);
    o[k + 7u] = max(x, y);
    o[k + 8u] = {"abs(x)" if signed else "x"};
    o[k + 9u] = clamp(x, {lo_c}, {glsl_t}({hi // 2}{sfx}));
}}
"""
    case(name, src, [buf(0, a, dtype=dt), buf(1, b, dtype=dt),
                     buf(2, np.zeros(n * K, dt), out, dtype=dt)], [n // 32, 1, 1])


int_case("int_i32", "int", 32, True)
int_case("int_u32", "uint", 32, False)
int_case("int_i64", "int64_t", 64, True)
int_case("int_u64", "uint64_t", 64, False)
int_case("int_i16", "int16_t", 16, True)
int_case("int_u16", "uint16_t", 16, False)
int_case("int_i8", "int8_t", 8, True)
int_case("int_u8", "uint8_t", 8, False)

# OpSRem / OpSMod / OpSDiv / OpUDiv / OpUMod / OpSNegate written directly in SPIR-V assembly
# (GLSL has no remainder operator that maps to OpSRem).
REM_ASM = """; SPIR-V
; Version: 1.6
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %a %b %o
               OpExecutionMode %main LocalSize 16 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %Blk 0 Offset 0
               OpDecorate %Blk Block
               OpDecorate %a DescriptorSet 0
               OpDecorate %a Binding 0
               OpDecorate %b DescriptorSet 0
               OpDecorate %b Binding 1
               OpDecorate %o DescriptorSet 0
               OpDecorate %o Binding 2
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %v3u = OpTypeVector %uint 3
   %p_in_v3u = OpTypePointer Input %v3u
        %gid = OpVariable %p_in_v3u Input
        %rta = OpTypeRuntimeArray %int
        %Blk = OpTypeStruct %rta
      %p_blk = OpTypePointer StorageBuffer %Blk
      %p_int = OpTypePointer StorageBuffer %int
          %a = OpVariable %p_blk StorageBuffer
          %b = OpVariable %p_blk StorageBuffer
          %o = OpVariable %p_blk StorageBuffer
      %int_0 = OpConstant %int 0
     %uint_6 = OpConstant %uint 6
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
     %uint_3 = OpConstant %uint 3
     %uint_4 = OpConstant %uint 4
     %uint_5 = OpConstant %uint 5
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %g3 = OpLoad %v3u %gid
          %i = OpCompositeExtract %uint %g3 0
         %pa = OpAccessChain %p_int %a %int_0 %i
         %pb = OpAccessChain %p_int %b %int_0 %i
          %x = OpLoad %int %pa
          %y = OpLoad %int %pb
         %ux = OpBitcast %uint %x
         %uy = OpBitcast %uint %y
       %srem = OpSRem %int %x %y
       %smod = OpSMod %int %x %y
       %sdiv = OpSDiv %int %x %y
       %udiv = OpUDiv %uint %ux %uy
       %umod = OpUMod %uint %ux %uy
       %sneg = OpSNegate %int %x
      %udivi = OpBitcast %int %udiv
      %umodi = OpBitcast %int %umod
          %k = OpIMul %uint %i %uint_6
         %k1 = OpIAdd %uint %k %uint_1
         %k2 = OpIAdd %uint %k %uint_2
         %k3 = OpIAdd %uint %k %uint_3
         %k4 = OpIAdd %uint %k %uint_4
         %k5 = OpIAdd %uint %k %uint_5
         %p0 = OpAccessChain %p_int %o %int_0 %k
         %p1 = OpAccessChain %p_int %o %int_0 %k1
         %p2 = OpAccessChain %p_int %o %int_0 %k2
         %p3 = OpAccessChain %p_int %o %int_0 %k3
         %p4 = OpAccessChain %p_int %o %int_0 %k4
         %p5 = OpAccessChain %p_int %o %int_0 %k5
               OpStore %p0 %srem
               OpStore %p1 %smod
               OpStore %p2 %sdiv
               OpStore %p3 %udivi
               OpStore %p4 %umodi
               OpStore %p5 %sneg
               OpReturn
               OpFunctionEnd
"""


def rem_case():
    pairs = [(7, 3), (-7, 3), (7, -3), (-7, -3), (6, 3), (-6, 3), (6, -3), (0, -5),
             (2**31 - 1, 10), (-2**31, 10), (-2**31, 2**31 - 1), (123456789, -1000),
             (-1, 2**31 - 1), (5, 2**31 - 1), (-5, -2**31), (1, -1)]
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    out = []
    for x, y in pairs:
        ux, uy = x & 0xFFFFFFFF, y & 0xFFFFFFFF
        out += [srem(x, y), smod(x, y), tdiv(x, y), wrap(ux // uy, 32, True),
                wrap(ux % uy, 32, True), wrap(-x, 32, True)]
    case("int_rem_mod_asm", REM_ASM, [buf(0, a, dtype=np.int32), buf(1, b, dtype=np.int32),
                                      buf(2, np.zeros(len(out), np.int32), out, dtype=np.int32)],
         [1, 1, 1], lang="spvasm")


rem_case()

# ---------------------------------------------------------------------------------------------
# Float arithmetic
# ---------------------------------------------------------------------------------------------


def float_case(name, glsl_t, dt, tol, n=64, rng=100):
    a = RNG.uniform(-rng, rng, n).astype(dt)
    b = RNG.uniform(-rng, rng, n).astype(dt)
    b[np.abs(b) < 0.5] = dt(1.5)
    a[:6] = np.array([0.0, -0.0, 1.0, -2.5, 3.75, 1e-3], dtype=dt)
    b[:6] = np.array([1.0, 2.0, -0.5, 2.5, -1.25, 4.0], dtype=dt)
    w = np.float64
    x, y = a.astype(w), b.astype(w)
    cols = [x + y, x - y, x * y, x / y, -x, x - y * np.floor(x / y), np.minimum(x, y),
            np.maximum(x, y), np.abs(x), np.floor(x), np.ceil(x), x - np.floor(x), np.trunc(x),
            np.sign(x), np.clip(x, -10, 10), x * y + x]
    K = len(cols)
    out = np.stack(cols, axis=1).astype(dt).reshape(-1)
    # The reference rounds each double result once to the target type: exact for + - * / and
    # within one ulp for the composite ones (mod, fma-like), so the tolerance covers rounding.
    src = HEADER + f"""
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer A {{ {glsl_t} a[]; }};
layout(set = 0, binding = 1) readonly buffer B {{ {glsl_t} b[]; }};
layout(set = 0, binding = 2) writeonly buffer O {{ {glsl_t} o[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    {glsl_t} x = a[i];
    {glsl_t} y = b[i];
    uint k = i * {K}u;
    o[k + 0u] = x + y;
    o[k + 1u] = x - y;
    o[k + 2u] = x * y;
    o[k + 3u] = x / y;
    o[k + 4u] = -x;
    o[k + 5u] = mod(x, y);
    o[k + 6u] = min(x, y);
    o[k + 7u] = max(x, y);
    o[k + 8u] = abs(x);
    o[k + 9u] = floor(x);
    o[k + 10u] = ceil(x);
    o[k + 11u] = fract(x);
    o[k + 12u] = trunc(x);
    o[k + 13u] = sign(x);
    o[k + 14u] = clamp(x, {glsl_t}(-10), {glsl_t}(10));
    o[k + 15u] = x * y + x;
}}
"""
    case(name, src, [buf(0, a, dtype=dt), buf(1, b, dtype=dt),
                     buf(2, np.zeros(n * K, dt), out, dtype=dt, tol=tol)], [n // 16, 1, 1])


# f16 keeps to ±8 so the multi-rounding ops (mod, x * y + x) stay within 1e-2 of the single-rounded
# reference; f32's tolerance covers the two roundings of mod at magnitude 100.
float_case("float_f16", "float16_t", np.float16, 1e-2, rng=8)
float_case("float_f32", "float", np.float32, 1e-5)
float_case("float_f64", "double", np.float64, 1e-13)

# ---------------------------------------------------------------------------------------------
# Conversions and bitcasts: every result stored as its 32-bit pattern.
# ---------------------------------------------------------------------------------------------


def f32bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def conversions():
    fl = [0.0, -0.0, 1.5, -1.5, 2.5, -2.75, 1e6 + 0.5, -123456.75, 0.999, -0.999, 16777217.0, 3e9]
    it = [0, 1, -1, 127, 128, -129, 255, 256, 65535, -32768, 16777217, 16777219, 2**31 - 1, -2**31,
          0x12345678, -0x789ABCDE]
    n = 16
    fl = (fl + [float(x) for x in RNG.uniform(-1000, 1000, n - len(fl))])[:n]
    f = np.array(fl, dtype=np.float32)
    i = np.array(it, dtype=np.int32)
    out = []
    for k in range(n):
        fv, iv = float(f[k]), int(i[k])
        uv = iv & 0xFFFFFFFF
        r = [
            wrap(int(np.trunc(fv)), 32, True) if abs(fv) < 2**31 else 0,   # int(f)
            (int(np.trunc(fv)) & 0xFFFFFFFF) if 0 <= fv < 2**32 else 0,    # uint(f), f >= 0
            f32bits(float(np.float32(iv))),                                 # float(int)
            f32bits(float(np.float32(uv))),                                 # float(uint)
            wrap(iv, 8, True) & 0xFFFFFFFF,                                 # int(int8_t(i))
            wrap(iv, 8, False),                                             # uint(uint8_t(i))
            wrap(iv, 16, True) & 0xFFFFFFFF,                                # int(int16_t(i))
            wrap(iv, 16, False),                                            # uint(uint16_t(i))
            (iv * 3) & 0xFFFFFFFF,                                          # int(int64_t(i) * 3)
            ((uv * 0x10001) >> 16) & 0xFFFFFFFF,                            # uint((u64(u) * 0x10001) >> 16)
            f32bits(float(np.float32(np.float16(fv)))) if abs(fv) < 60000 else 0,
            f32bits(float(np.float32(np.float64(fv) * 3.0))),               # float(double(f) * 3)
            f32bits(fv),                                                    # floatBitsToUint
            uv ^ 0x80000000,                                                # uint(floatBitsToInt(intBitsToFloat(i ^ sign)))
            f32bits(float(np.float32(float(np.float64(iv)) / 4.0))),        # float(double(i) / 4)
            wrap(int(np.trunc(np.float64(fv) * 2.0)), 64, True) & 0xFFFFFFFF,  # uint(int64_t(double(f) * 2))
        ]
        out += [v & 0xFFFFFFFF for v in r]
    K = 16
    src = HEADER + f"""
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer F {{ float f[]; }};
layout(set = 0, binding = 1) readonly buffer I {{ int iv[]; }};
layout(set = 0, binding = 2) writeonly buffer O {{ uint o[]; }};
void main() {{
    uint k = gl_GlobalInvocationID.x;
    float x = f[k];
    int i = iv[k];
    uint u = uint(i);
    uint b = k * {K}u;
    o[b + 0u] = (abs(x) < 2147483648.0) ? uint(int(x)) : 0u;
    o[b + 1u] = (x >= 0.0 && x < 4294967296.0) ? uint(x) : 0u;
    o[b + 2u] = floatBitsToUint(float(i));
    o[b + 3u] = floatBitsToUint(float(u));
    o[b + 4u] = uint(int(int8_t(i)));
    o[b + 5u] = uint(uint8_t(i));
    o[b + 6u] = uint(int(int16_t(i)));
    o[b + 7u] = uint(uint16_t(i));
    o[b + 8u] = uint(int(int64_t(i) * 3l));
    o[b + 9u] = uint((uint64_t(u) * 65537ul) >> 16);
    o[b + 10u] = (abs(x) < 60000.0) ? floatBitsToUint(float(float16_t(x))) : 0u;
    o[b + 11u] = floatBitsToUint(float(double(x) * 3.0lf));
    o[b + 12u] = floatBitsToUint(x);
    o[b + 13u] = uint(floatBitsToInt(intBitsToFloat(i ^ int(0x80000000u))));
    o[b + 14u] = floatBitsToUint(float(double(i) / 4.0lf));
    o[b + 15u] = uint(int64_t(double(x) * 2.0lf));
}}
"""
    # Values whose f16 rounding is a tie or RTE/RTZ-dependent are fine: numpy rounds to nearest
    # even, which is what Vulkan's correctly rounded conversions give.
    case("convert", src, [buf(0, f, dtype=np.float32), buf(1, i, dtype=np.int32),
                          buf(2, np.zeros(n * K, np.uint32), out, dtype=np.uint32)], [1, 1, 1])


conversions()

# ---------------------------------------------------------------------------------------------
# Bit operations and shifts
# ---------------------------------------------------------------------------------------------


def bitops():
    n = 32
    a = [0, 1, 0x80000000, 0xFFFFFFFF, 0x7FFFFFFF, 0x12345678, 0xF0F0F0F0, 0x00010000] + \
        [int(x) for x in RNG.integers(0, 2**32, n - 8)]
    s = [0, 1, 31, 4, 16, 7, 3, 30] + [int(x) for x in RNG.integers(0, 32, n - 8)]
    out, bf = [], []

    def msb_s(v):
        sv = wrap(v, 32, True)
        if sv < 0:
            sv = ~sv
        return (sv.bit_length() - 1) & 0xFFFFFFFF if sv else 0xFFFFFFFF

    for x, sh in zip(a, s):
        y = (x * 2654435761) & 0xFFFFFFFF
        sx = wrap(x, 32, True)
        off, bits = sh % 16, 1 + (sh % 16)
        ext_u = (x >> off) & ((1 << bits) - 1)
        ext_s = wrap(ext_u, bits, True) & 0xFFFFFFFF
        mask = ((1 << bits) - 1) << off
        ins = (x & ~mask | ((y << off) & mask)) & 0xFFFFFFFF
        bf += [ext_u, ext_s, ins]
        r = [x & y, x | y, x ^ y, (~x) & 0xFFFFFFFF, (x << sh) & 0xFFFFFFFF, x >> sh,
             (sx >> sh) & 0xFFFFFFFF, bin(x).count("1"),
             ((x & -x).bit_length() - 1) & 0xFFFFFFFF if x else 0xFFFFFFFF,
             (x.bit_length() - 1) & 0xFFFFFFFF if x else 0xFFFFFFFF, msb_s(x),
             int(f"{x:032b}"[::-1], 2)]
        out += r
    K = 12
    src = HEADER + f"""
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer A {{ uint a[]; }};
layout(set = 0, binding = 1) readonly buffer S {{ uint s[]; }};
layout(set = 0, binding = 2) writeonly buffer O {{ uint o[]; }};
void main() {{
    uint k = gl_GlobalInvocationID.x;
    uint x = a[k];
    uint y = x * 2654435761u;
    uint sh = s[k];
    int sx = int(x);
    uint b = k * {K}u;
    o[b + 0u] = x & y;
    o[b + 1u] = x | y;
    o[b + 2u] = x ^ y;
    o[b + 3u] = ~x;
    o[b + 4u] = x << sh;
    o[b + 5u] = x >> sh;
    o[b + 6u] = uint(sx >> int(sh));
    o[b + 7u] = uint(bitCount(x));
    o[b + 8u] = uint(findLSB(x));
    o[b + 9u] = uint(findMSB(x));
    o[b + 10u] = uint(findMSB(sx));
    o[b + 11u] = bitfieldReverse(x);
}}
"""
    case("bitops_shifts", src, [buf(0, a), buf(1, s),
                                buf(2, np.zeros(n * K, np.uint32), out)], [n // 8, 1, 1])
    src = HEADER + """
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(set = 0, binding = 1) readonly buffer S { uint s[]; };
layout(set = 0, binding = 2) writeonly buffer O { uint o[]; };
void main() {
    uint k = gl_GlobalInvocationID.x;
    uint x = a[k];
    uint y = x * 2654435761u;
    int off = int(s[k] % 16u);
    int bits = 1 + int(s[k] % 16u);
    o[k * 3u] = bitfieldExtract(x, off, bits);
    o[k * 3u + 1u] = uint(bitfieldExtract(int(x), off, bits));
    o[k * 3u + 2u] = bitfieldInsert(x, y, off, bits);
}
"""
    case("bitfield_extract_insert", src, [buf(0, a), buf(1, s),
                                          buf(2, np.zeros(n * 3, np.uint32), bf)], [n // 8, 1, 1])


bitops()

# ---------------------------------------------------------------------------------------------
# Comparisons and selection
# ---------------------------------------------------------------------------------------------


def compare_select():
    n = 24
    nan = float("nan")
    fa = [1.0, 1.0, -0.0, nan, nan, 2.0, -1.0, float("inf")] + list(RNG.uniform(-4, 4, n - 8).round(1))
    fb = [1.0, 2.0, 0.0, 1.0, nan, nan, -2.0, float("inf")] + list(RNG.uniform(-4, 4, n - 8).round(1))
    ia = [5, -5, 0, 7, -2**31, 2**31 - 1, 3, -1] + [int(x) for x in RNG.integers(-5, 5, n - 8)]
    ib = [5, 5, -1, -7, 0, -2**31, 3, 1] + [int(x) for x in RNG.integers(-5, 5, n - 8)]
    out = []
    for x, y, p, q in zip(fa, fb, ia, ib):
        up, uq = p & 0xFFFFFFFF, q & 0xFFFFFFFF
        unord = x != x or y != y
        flags = [
            x < y, x <= y, x > y, x >= y, x == y, (x != y) or unord,  # GLSL != is unordered
            p < q, p <= q, p > q, p >= q, p == q, p != q,
            up < uq, up <= uq, up > uq, up >= uq, x != x,
        ]
        bits = sum(int(bool(v)) << k for k, v in enumerate(flags))
        sel = p if (x < y) else q
        vmix = [p if flags[6] else q, up if flags[12] else uq]
        anyall = int(any([p < q, up < uq])) | (int(all([p < q, up < uq])) << 1)
        out += [bits, sel & 0xFFFFFFFF, vmix[0] & 0xFFFFFFFF, vmix[1],
                anyall, (max(p, q) if p < q or p > q else 77) & 0xFFFFFFFF]
    K = 6
    src = HEADER + f"""
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer FA {{ float fa[]; }};
layout(set = 0, binding = 1) readonly buffer FB {{ float fb[]; }};
layout(set = 0, binding = 2) readonly buffer IA {{ int ia[]; }};
layout(set = 0, binding = 3) readonly buffer IB {{ int ib[]; }};
layout(set = 0, binding = 4) writeonly buffer O {{ uint o[]; }};
void main() {{
    uint k = gl_GlobalInvocationID.x;
    float x = fa[k], y = fb[k];
    int p = ia[k], q = ib[k];
    uint up = uint(p), uq = uint(q);
    bool f[17] = bool[17](x < y, x <= y, x > y, x >= y, x == y, x != y,
                          p < q, p <= q, p > q, p >= q, p == q, p != q,
                          up < uq, up <= uq, up > uq, up >= uq, isnan(x));
    uint bits = 0u;
    for (int j = 0; j < 17; j++) {{
        bits |= f[j] ? (1u << uint(j)) : 0u;
    }}
    uint b = k * {K}u;
    o[b + 0u] = bits;
    o[b + 1u] = uint(x < y ? p : q);
    ivec2 m = mix(ivec2(q, int(uq)), ivec2(p, int(up)), bvec2(p < q, up < uq));
    o[b + 2u] = uint(m.x);
    o[b + 3u] = uint(m.y);
    // Signed compare of the sign-flipped bits == unsigned compare.
    bvec2 lt = lessThan(ivec2(p, int(up ^ 0x80000000u)), ivec2(q, int(uq ^ 0x80000000u)));
    o[b + 4u] = (any(lt) ? 1u : 0u) | (all(lt) ? 2u : 0u);
    o[b + 5u] = uint((p < q || p > q) ? max(p, q) : 77);
}}
"""
    case("compare_select", src, [buf(0, fa, dtype=np.float32), buf(1, fb, dtype=np.float32),
                                 buf(2, ia, dtype=np.int32), buf(3, ib, dtype=np.int32),
                                 buf(4, np.zeros(n * K, np.uint32), out)], [n // 8, 1, 1])


compare_select()

# ---------------------------------------------------------------------------------------------
# Vectors, matrices and composites
# ---------------------------------------------------------------------------------------------


def vector_matrix():
    n = 8
    m = RNG.uniform(-2, 2, (n, 4, 4)).astype(np.float32)   # [k][column][row], std430 column-major
    v = RNG.uniform(-2, 2, (n, 4)).astype(np.float32)
    out, out2 = [], []
    for k in range(n):
        M = m[k].astype(np.float64).T   # rows x cols
        V = v[k].astype(np.float64)
        mv = M @ V
        vm = V @ M
        m3 = M[:3, :3]
        mm = m3 @ m3
        cr = np.cross(V[:3], mv[:3])
        dt = np.dot(V, mv)
        comp = M[:2, :2] * M[2:, 2:]
        sw = V[[3, 1, 0, 2]] * 2 + V[[0, 0, 1, 1]]
        res = list(mv) + list(vm) + list(mm.T.reshape(-1)) + list(cr) + [dt] + \
            list(comp.T.reshape(-1)) + list(sw) + [np.linalg.norm(V)] + list(M @ V * 0.5)
        out += res
        outer = np.outer(V[:2], V[2:])   # mat2: column c = V[:2] * V[2+c]
        tr = M.T
        out2 += list(tr.T.reshape(-1)) + list(outer.T.reshape(-1)) + [np.linalg.det(m3),
                                                                     np.linalg.det(M)]
    K = 4 + 4 + 9 + 3 + 1 + 4 + 4 + 1 + 4
    src = HEADER + f"""
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) readonly buffer M {{ mat4 m[]; }};
layout(set = 0, binding = 1) readonly buffer V {{ vec4 v[]; }};
layout(set = 0, binding = 2) writeonly buffer O {{ float o[]; }};
uint at = 0u;
void put(float x) {{ o[gl_GlobalInvocationID.x * {K}u + at] = x; at++; }}
void main() {{
    uint k = gl_GlobalInvocationID.x;
    mat4 M = m[k];
    vec4 V = v[k];
    vec4 mv = M * V;
    vec4 vm = V * M;
    mat3 m3 = mat3(M);
    mat3 mm = m3 * m3;
    for (int i = 0; i < 4; i++) put(mv[i]);
    for (int i = 0; i < 4; i++) put(vm[i]);
    for (int c = 0; c < 3; c++) for (int r = 0; r < 3; r++) put(mm[c][r]);
    vec3 cr = cross(V.xyz, mv.xyz);
    put(cr.x); put(cr.y); put(cr.z);
    put(dot(V, mv));
    mat2 cm = matrixCompMult(mat2(M[0].xy, M[1].xy), mat2(M[2].zw, M[3].zw));
    put(cm[0][0]); put(cm[0][1]); put(cm[1][0]); put(cm[1][1]);
    vec4 sw = V.wyxz * 2.0 + V.xxyy;
    put(sw.x); put(sw.y); put(sw.z); put(sw.w);
    put(length(V));
    vec4 half_mv = (M * 0.5) * V;
    for (int i = 0; i < 4; i++) put(half_mv[i]);
}}
"""
    case("vector_matrix", src, [buf(0, m, dtype=np.float32), buf(1, v, dtype=np.float32),
                                buf(2, np.zeros(n * K, np.float32), out, dtype=np.float32, tol=1e-5)],
         [n // 4, 1, 1])
    K2 = 16 + 4 + 2
    src = HEADER + f"""
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) readonly buffer M {{ mat4 m[]; }};
layout(set = 0, binding = 1) readonly buffer V {{ vec4 v[]; }};
layout(set = 0, binding = 2) writeonly buffer O {{ float o[]; }};
uint at = 0u;
void put(float x) {{ o[gl_GlobalInvocationID.x * {K2}u + at] = x; at++; }}
void main() {{
    uint k = gl_GlobalInvocationID.x;
    mat4 M = m[k];
    vec4 V = v[k];
    mat4 t = transpose(M);
    for (int c = 0; c < 4; c++) for (int r = 0; r < 4; r++) put(t[c][r]);
    mat2 op = outerProduct(V.xy, V.zw);
    put(op[0][0]); put(op[0][1]); put(op[1][0]); put(op[1][1]);
    put(determinant(mat3(M)));
    put(determinant(M));
}}
"""
    case("matrix_transpose_outer_det", src,
         [buf(0, m, dtype=np.float32), buf(1, v, dtype=np.float32),
          buf(2, np.zeros(n * K2, np.float32), out2, dtype=np.float32, tol=1e-4)], [n // 4, 1, 1])


vector_matrix()


def composites():
    # std430 struct S { vec3 p; int id; float w[3]; uvec2 q; } : p@0, id@12, w@16 (stride 4),
    # q@32 (8-aligned) → 40, rounded up to the struct's 16-byte alignment: array stride 48.
    n = 8
    raw = bytearray()
    recs = []
    for k in range(n):
        p = RNG.uniform(-5, 5, 3).astype(np.float32)
        idv = int(RNG.integers(-100, 100))
        w = RNG.uniform(0, 1, 3).astype(np.float32)
        q = [int(x) for x in RNG.integers(0, 1000, 2)]
        recs.append((p, idv, w, q))
        raw += p.tobytes() + struct.pack("<i", idv) + w.tobytes() + bytes(4) + struct.pack("<II", *q)
        raw += bytes(8)
    out = bytearray()
    for k, (p, idv, w, q) in enumerate(recs):
        # local array indexed dynamically, dynamic vector component, composite insert
        arr = [float(np.float32(p[j % 3]) * np.float32(j)) for j in range(5)]
        sel = arr[(k * 3) % 5]
        vec = [float(x) for x in p]
        comp = vec[k % 3]
        vec[(k + 1) % 3] = float(np.float32(w[0]) + np.float32(w[1]))
        # out struct std430 { vec3 a; uint b; float c; float d; int id2; uint qq; } → 32 bytes
        out += np.array(vec, np.float32).tobytes() + struct.pack("<I", q[0] + q[1])
        out += struct.pack("<ffiI", np.float32(sel), np.float32(comp), idv * 2, q[k % 2])
    src = HEADER + """
layout(local_size_x = 8) in;
struct S { vec3 p; int id; float w[3]; uvec2 q; };
struct R { vec3 a; uint b; float c; float d; int id2; uint qq; };
layout(set = 0, binding = 0) readonly buffer In { S s[]; };
layout(set = 0, binding = 1) writeonly buffer Out { R r[]; };
void main() {
    uint k = gl_GlobalInvocationID.x;
    S x = s[k];
    float arr[5];
    for (int j = 0; j < 5; j++) arr[j] = x.p[j % 3] * float(j);
    R y;
    y.c = arr[(k * 3u) % 5u];
    vec3 v = x.p;
    y.d = v[k % 3u];
    v[(k + 1u) % 3u] = x.w[0] + x.w[1];
    y.a = v;
    y.b = x.q.x + x.q.y;
    y.id2 = x.id * 2;
    y.qq = x.q[k % 2u];
    r[k] = y;
}
"""
    case("composites_structs", src, [buf(0, bytes(raw), compare="u32"),
                                     buf(1, bytes(len(out)), bytes(out), compare="u32")],
         [1, 1, 1])


composites()

# ---------------------------------------------------------------------------------------------
# Control flow and functions
# ---------------------------------------------------------------------------------------------


def control_flow():
    n = 64

    def ref(i):
        acc = 0
        for j in range(20):
            if j == i % 7 + 9:
                break
            if j % 3 == 0:
                continue
            acc += j * (i % 5 + 1)
        sw = 0
        m = i % 6
        if m == 0:
            sw = 10
        elif m in (1, 2):
            sw = 20 + m        # case 1 falls through into case 2
        elif m == 3:
            sw = 30
        else:
            sw = 99
        if m == 1:
            sw += 1            # fallthrough adds case 1's part
        nest = 0
        if i % 2 == 0:
            if i % 4 == 0:
                nest = 1
            else:
                nest = 2
        elif i % 3 == 0:
            nest = 3
        else:
            nest = 4 if i > 30 else 5
        w = i
        steps = 0
        while w != 1 and steps < 50:
            w = w // 2 if w % 2 == 0 else 3 * w + 1
            steps += 1
        d = 0
        while True:
            d += 3
            if d > i:
                break
        return [acc, sw, nest, steps, d]

    out = []
    for i in range(n):
        out += ref(i)
    src = HEADER + """
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint acc = 0u;
    for (uint j = 0u; j < 20u; j++) {
        if (j == i % 7u + 9u) break;
        if (j % 3u == 0u) continue;
        acc += j * (i % 5u + 1u);
    }
    uint sw = 0u;
    switch (i % 6u) {
        case 0u: sw = 10u; break;
        case 1u: sw = 1u;
        case 2u: sw += 20u + i % 6u; break;
        case 3u: sw = 30u; break;
        default: sw = 99u; break;
    }
    uint nest;
    if (i % 2u == 0u) {
        if (i % 4u == 0u) nest = 1u; else nest = 2u;
    } else if (i % 3u == 0u) {
        nest = 3u;
    } else {
        nest = i > 30u ? 4u : 5u;
    }
    uint w = i;
    uint steps = 0u;
    while (w != 1u && steps < 50u) {
        w = (w % 2u == 0u) ? w / 2u : 3u * w + 1u;
        steps++;
    }
    uint d = 0u;
    do { d += 3u; } while (d <= i);
    uint b = i * 5u;
    o[b] = acc; o[b + 1u] = sw; o[b + 2u] = nest; o[b + 3u] = steps; o[b + 4u] = d;
}
"""
    case("control_flow", src, [buf(0, np.zeros(n * 5, np.uint32), out)], [n // 16, 1, 1])


control_flow()


def copy_propagation():
    # Patterns the IR optimiser (crates/spirv/src/opt.rs) must not break: a variable read before
    # its store in a loop (last iteration's value), a variable stored only in a branch, a copy
    # of a variable taken before the variable changes, and function results copied around.
    n = 64
    a = [(i * 37 + 11) % 1000 for i in range(n)]
    out = []
    for i in range(n):
        prev = None
        first = 0
        s = 0
        for k in range(6):
            cur = a[(i + k) % n] + k
            if k > 0:
                s += prev * (k + 1)
            prev = cur
            if k == 2:
                first = cur
        x = i
        y = x
        x = x + 7
        z = y * 3 + x
        t = z * 2
        u = t
        t = t + 1
        out += [s & 0xFFFFFFFF, first, z, (u + t) & 0xFFFFFFFF]
    src = HEADER + """
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer I { uint a[]; };
layout(set = 0, binding = 1) writeonly buffer O { uint o[]; };
uint twice(uint x) { return x * 2u; }
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint prev;
    uint first = 0u;
    uint sum = 0u;
    for (uint k = 0u; k < 6u; k++) {
        uint cur = a[(i + k) % 64u] + k;
        if (k > 0u) sum += prev * (k + 1u);
        prev = cur;
        if (k == 2u) first = cur;
    }
    uint x = i;
    uint y = x;
    x = x + 7u;
    uint z = y * 3u + x;
    uint t = twice(z);
    uint u = t;
    t = t + 1u;
    uint b = i * 4u;
    o[b] = sum; o[b + 1u] = first; o[b + 2u] = z; o[b + 3u] = u + t;
}
"""
    case("copy_propagation", src,
         [buf(0, np.array(a, np.uint32)), buf(1, np.zeros(n * 4, np.uint32), out)],
         [n // 16, 1, 1])


copy_propagation()


def reconvergence_after_break():
    # Lanes leave a loop through a break at different iterations; after the loop they must
    # reconverge before the barrier and the subgroup sum (a block merge across the loop once broke
    # this).
    wg = 64
    out = []
    for g in range(2):
        n = list(range(wg))
        for lid in range(wg):
            out += [n[(lid + 1) % wg], sum(n[(lid // 32) * 32:(lid // 32) * 32 + 32])]
    src = HEADER + """
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
shared uint s[64];
void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = 0u;
    for (;;) {
        if (n >= lid) break;
        n++;
    }
    s[lid] = n;
    barrier();
    uint total = subgroupAdd(n);
    o[gl_GlobalInvocationID.x * 2u] = s[(lid + 1u) % 64u];
    o[gl_GlobalInvocationID.x * 2u + 1u] = total;
}
"""
    case("reconvergence_after_break", src, [buf(0, np.zeros(len(out), np.uint32), out)], [2, 1, 1])


reconvergence_after_break()


def device_index():
    # GL_EXT_device_group: a device is one physical device, so gl_DeviceIndex is 0.
    n = 16
    src = HEADER + """
#extension GL_EXT_device_group : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
void main() {
    o[gl_GlobalInvocationID.x] = uint(gl_DeviceIndex) + gl_GlobalInvocationID.x * 3u;
}
"""
    case("device_index", src, [buf(0, np.full(n, 99, np.uint32), [i * 3 for i in range(n)])],
         [1, 1, 1])


device_index()


def integer_dot_product():
    # SPV_KHR_integer_dot_product (OpSDot/OpUDot/OpSUDot and AccSat forms, vector and packed 4x8).
    n = 16
    rng = np.random.default_rng(5)
    rows = []
    expect = []

    def wrap(v, bits, signed=True):
        v &= (1 << bits) - 1
        return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v

    def sat(v, bits, signed):
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        return min(max(v, lo), hi)

    def bytes_of(w, signed):
        return [wrap(w >> (8 * k), 8, signed) for k in range(4)]

    for i in range(n):
        big = i % 2 == 0
        if big:
            a = [int(v) for v in rng.integers(-2**31, 2**31, 4)]
            b = [int(v) for v in rng.integers(-2**31, 2**31, 4)]
        else:
            a = [int(v) for v in rng.integers(-200, 200, 4)]
            b = [int(v) for v in rng.integers(-200, 200, 4)]
        px, py = (int(v) for v in rng.integers(0, 2**32, 2, dtype=np.uint64))
        acc = int(rng.integers(-2**31, 2**31)) if i % 3 else 2**31 - 7
        rows += [a, b, [wrap(px, 32), wrap(py, 32), acc, 0]]
        ua, ub = [v & 0xFFFFFFFF for v in a], [v & 0xFFFFFFFF for v in b]
        sd = sum(x * y for x, y in zip(a, b))
        ud = sum(x * y for x, y in zip(ua, ub))
        sa, sb = bytes_of(px, True), bytes_of(py, True)
        uxa, uxb = bytes_of(px, False), bytes_of(py, False)
        a8, b8 = [wrap(v, 8) for v in a], [wrap(v, 8) for v in b]
        a16, b16 = [wrap(v, 16) for v in a], [wrap(v, 16) for v in b]
        expect += [
            wrap(sd, 32),
            wrap(ud, 32),
            sat(acc + sd, 32, True),
            wrap(sat((acc & 0xFFFFFFFF) + ud, 32, False), 32),
            wrap(sum(x * y for x, y in zip(sa, sb)), 32),
            wrap(sum(x * y for x, y in zip(uxa, uxb)), 32),
            wrap(sum(x * y for x, y in zip(sa, uxb)), 32),
            sat(acc + sum(x * y for x, y in zip(sa, sb)), 32, True),
            wrap(sum(x * y for x, y in zip(a8, b8)), 32),
            sat(wrap(acc, 16) + sum(x * y for x, y in zip(a16, b16)), 32, True),  # glslang widens
        ]
    src = HEADER + """#extension GL_EXT_integer_dot_product : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer I { ivec4 x[]; };
layout(set = 0, binding = 1) writeonly buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    ivec4 a = x[i * 3u], b = x[i * 3u + 1u];
    ivec4 p = x[i * 3u + 2u];  // p.x, p.y: packed 4x8 words; p.z: accumulator
    uint k = i * 10u;
    o[k] = dotEXT(a, b);
    o[k + 1u] = int(dotEXT(uvec4(a), uvec4(b)));
    o[k + 2u] = dotAccSatEXT(a, b, p.z);
    o[k + 3u] = int(dotAccSatEXT(uvec4(a), uvec4(b), uint(p.z)));
    o[k + 4u] = dotPacked4x8EXT(p.x, p.y);
    o[k + 5u] = int(dotPacked4x8EXT(uint(p.x), uint(p.y)));
    o[k + 6u] = dotPacked4x8EXT(p.x, uint(p.y));
    o[k + 7u] = dotPacked4x8AccSatEXT(p.x, p.y, p.z);
    o[k + 8u] = int(dotEXT(i8vec4(a), i8vec4(b)));
    o[k + 9u] = int(dotAccSatEXT(i16vec4(a), i16vec4(b), int16_t(p.z)));
}
"""
    case("integer_dot_product", src,
         [buf(0, np.array(rows, np.int64).astype(np.int32).flatten(), dtype=np.int32),
          buf(1, np.zeros(len(expect), np.int32), expect, dtype=np.int32)],
         [1, 1, 1])


integer_dot_product()


def glsl_std450_geometric():
    # FaceForward, Reflect and Refract on vec3 (numpy in float64, compared with a tolerance).
    n = 16
    rng = np.random.default_rng(9)
    v = rng.uniform(-1, 1, (n, 3, 3)).astype(np.float32)
    eta = rng.uniform(0.3, 1.8, n).astype(np.float32)
    out = []
    for k in range(n):
        nn, ii, nref = (v[k, j].astype(np.float64) for j in range(3))
        nn = nn / np.linalg.norm(nn)
        v[k, 0] = nn.astype(np.float32)
        nn = v[k, 0].astype(np.float64)
        ff = nn if np.dot(nref, ii) < 0 else -nn
        rf = ii - 2 * np.dot(nn, ii) * nn
        e = float(eta[k])
        kk = 1 - e * e * (1 - np.dot(nn, ii) ** 2)
        rr = np.zeros(3) if kk < 0 else e * ii - (e * np.dot(nn, ii) + np.sqrt(kk)) * nn
        out += list(ff) + list(rf) + list(rr)
    src = HEADER + """
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer V { float v[]; };
layout(set = 0, binding = 1) readonly buffer E { float eta[]; };
layout(set = 0, binding = 2) writeonly buffer O { float o[]; };
vec3 at(uint i) { return vec3(v[i], v[i + 1u], v[i + 2u]); }
void main() {
    uint k = gl_GlobalInvocationID.x;
    vec3 n = at(k * 9u), i = at(k * 9u + 3u), nref = at(k * 9u + 6u);
    vec3 f = faceforward(n, i, nref), r = reflect(i, n), t = refract(i, n, eta[k]);
    uint b = k * 9u;
    o[b] = f.x; o[b + 1u] = f.y; o[b + 2u] = f.z;
    o[b + 3u] = r.x; o[b + 4u] = r.y; o[b + 5u] = r.z;
    o[b + 6u] = t.x; o[b + 7u] = t.y; o[b + 8u] = t.z;
}
"""
    case("glsl_std450_geometric", src,
         [buf(0, v.flatten(), dtype=np.float32), buf(1, eta, dtype=np.float32),
          buf(2, np.zeros(len(out), np.float32), out, dtype=np.float32, tol=1e-5)],
         [1, 1, 1])


glsl_std450_geometric()

MODF_ASM = """; GLSL.std.450 Modf and Frexp with pointer results, OpQuantizeToF16, and OpFConvert to f16
; decorated FPRoundingMode RTZ / RTE / undecorated (stored straight to a 16-bit buffer, as Vulkan
; requires). Invocation i reads a[i] and writes 5 words and 3 halves.
               OpCapability Shader
               OpCapability Float16
               OpCapability StorageBuffer16BitAccess
          %glsl = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %in %out %hout
               OpExecutionMode %main LocalSize 16 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %rtf ArrayStride 4
               OpMemberDecorate %I 0 Offset 0
               OpDecorate %I Block
               OpDecorate %in DescriptorSet 0
               OpDecorate %in Binding 0
               OpDecorate %rtu ArrayStride 4
               OpMemberDecorate %O 0 Offset 0
               OpDecorate %O Block
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 1
               OpDecorate %rth ArrayStride 2
               OpMemberDecorate %H 0 Offset 0
               OpDecorate %H Block
               OpDecorate %hout DescriptorSet 0
               OpDecorate %hout Binding 2
               OpDecorate %hz FPRoundingMode RTZ
               OpDecorate %hp FPRoundingMode RTE
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
       %half = OpTypeFloat 16
      %uint3 = OpTypeVector %uint 3
       %pin3 = OpTypePointer Input %uint3
        %gid = OpVariable %pin3 Input
        %rtf = OpTypeRuntimeArray %float
          %I = OpTypeStruct %rtf
         %pI = OpTypePointer StorageBuffer %I
         %in = OpVariable %pI StorageBuffer
        %rtu = OpTypeRuntimeArray %uint
          %O = OpTypeStruct %rtu
         %pO = OpTypePointer StorageBuffer %O
        %out = OpVariable %pO StorageBuffer
        %rth = OpTypeRuntimeArray %half
          %H = OpTypeStruct %rth
         %pH = OpTypePointer StorageBuffer %H
       %hout = OpVariable %pH StorageBuffer
      %phalf = OpTypePointer StorageBuffer %half
     %pfloat = OpTypePointer StorageBuffer %float
      %puint = OpTypePointer StorageBuffer %uint
    %pfnfloat = OpTypePointer Function %float
     %pfnint = OpTypePointer Function %int
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u2 = OpConstant %uint 2
         %u3 = OpConstant %uint 3
         %u4 = OpConstant %uint 4
         %u5 = OpConstant %uint 5
       %main = OpFunction %void None %fn
      %entry = OpLabel
      %whole = OpVariable %pfnfloat Function
        %exp = OpVariable %pfnint Function
         %g3 = OpLoad %uint3 %gid
          %i = OpCompositeExtract %uint %g3 0
         %pa = OpAccessChain %pfloat %in %u0 %i
          %a = OpLoad %float %pa
      %fract = OpExtInst %float %glsl Modf %a %whole
         %wh = OpLoad %float %whole
        %sig = OpExtInst %float %glsl Frexp %a %exp
         %ex = OpLoad %int %exp
          %q = OpQuantizeToF16 %float %a
         %hz = OpFConvert %half %a
         %hp = OpFConvert %half %a
         %hn = OpFConvert %half %a
         %b0 = OpBitcast %uint %fract
         %b1 = OpBitcast %uint %wh
         %b2 = OpBitcast %uint %sig
         %b3 = OpBitcast %uint %ex
         %b4 = OpBitcast %uint %q
       %base = OpIMul %uint %i %u5
      %hbase = OpIMul %uint %i %u3
        %h1 = OpIAdd %uint %hbase %u1
        %h2 = OpIAdd %uint %hbase %u2
        %q0 = OpAccessChain %phalf %hout %u0 %hbase
        %q1 = OpAccessChain %phalf %hout %u0 %h1
        %q2 = OpAccessChain %phalf %hout %u0 %h2
         %o1 = OpIAdd %uint %base %u1
         %o2 = OpIAdd %uint %base %u2
         %o3 = OpIAdd %uint %base %u3
         %o4 = OpIAdd %uint %base %u4
         %p0 = OpAccessChain %puint %out %u0 %base
         %p1 = OpAccessChain %puint %out %u0 %o1
         %p2 = OpAccessChain %puint %out %u0 %o2
         %p3 = OpAccessChain %puint %out %u0 %o3
         %p4 = OpAccessChain %puint %out %u0 %o4
               OpStore %p0 %b0
               OpStore %p1 %b1
               OpStore %p2 %b2
               OpStore %p3 %b3
               OpStore %p4 %b4
               OpStore %q0 %hz
               OpStore %q1 %hp
               OpStore %q2 %hn
               OpReturn
               OpFunctionEnd
"""


def modf_frexp_quantize_asm():
    import math
    a = np.array([2.5, -2.5, 0.75, -0.1, 1e-6, -3e-5, 70000.0, 1 / 3, -1 / 3, 123.456, 0.0, -3.0,
                  -1e-8, 65519.0, 65520.0, 2049.5], np.float32)
    words, halves = [], []
    f32 = lambda x: int(np.array([x], np.float32).view(np.uint32)[0])
    for x in a:
        xd = float(x)
        whole = float(np.trunc(np.float32(x)))  # keeps the sign: trunc(-0.1) = -0.0
        # The fraction has x's sign, also when it is zero (modf(-3.0) = -0.0).
        words.append(f32(np.copysign(np.float32(x) - np.float32(whole), np.float32(x))))
        words.append(f32(whole))
        m, e = math.frexp(xd)
        words.append(f32(m))
        words.append(e & 0xFFFFFFFF)
        with np.errstate(over="ignore"):
            h = np.float16(x)
        q = np.float32(h)
        if abs(q) < 2.0 ** -14:
            q = np.float32(math.copysign(0.0, xd))
        words.append(f32(q))
        rtz = h if abs(float(h)) <= abs(xd) else np.nextafter(h, np.float16(0))
        halves += [int(np.array([rtz], np.float16).view(np.uint16)[0]),
                   int(np.array([h], np.float16).view(np.uint16)[0]),
                   int(np.array([h], np.float16).view(np.uint16)[0])]
    case("modf_frexp_quantize_asm", MODF_ASM,
         [buf(0, a, dtype=np.float32),
          buf(1, np.zeros(len(words), np.uint32), words, dtype=np.uint32),
          buf(2, np.zeros(len(halves), np.uint16), halves, dtype=np.uint16)],
         [1, 1, 1], lang="spvasm")


modf_frexp_quantize_asm()


def matrix_array_stride():
    # std140 arrays of matrices: MatrixStride sits on the struct member, the matrices inside the
    # array (mat2 columns 16 bytes apart, matrices 32 bytes apart).
    mats = np.arange(3 * 2 * 2, dtype=np.float32).reshape(3, 2, 2) * 1.5 - 4  # [m][col][row]
    ubo = np.zeros((3, 2, 4), np.float32)  # each column padded to 16 bytes
    ubo[:, :, :2] = mats
    out = [float(mats[i, c, r]) for i in range(3) for c in range(2) for r in range(2)]
    src = HEADER + """
layout(local_size_x = 1) in;
layout(std140, set = 0, binding = 0) uniform U { mat2 m[3]; };
layout(set = 0, binding = 1) writeonly buffer O { float o[]; };
void main() {
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 2; c++)
            for (int r = 0; r < 2; r++)
                o[i * 4 + c * 2 + r] = m[i][c][r];
}
"""
    case("matrix_array_stride", src,
         [buf(0, ubo.flatten(), dtype=np.float32, uniform=True),
          buf(1, np.zeros(12, np.float32), out, dtype=np.float32)],
         [1, 1, 1])


matrix_array_stride()

GROUPS_ASM = """; Decoration groups: the two buffers' Block, set and binding-independent decorations, the array
; strides and the struct member offsets all come through OpGroupDecorate / OpGroupMemberDecorate.
; o[i] = a[i].y * 10 + a[i].x for a struct { uint x; uint y; } with y at offset 8 (stride 16).
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %in %out
               OpExecutionMode %main LocalSize 8 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %in DescriptorSet 0
               OpDecorate %in Binding 0
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 1
               OpDecorate %gblock Block
               OpDecorate %gstride16 ArrayStride 16
               OpDecorate %gstride4 ArrayStride 4
               OpDecorate %goff0 Offset 0
               OpDecorate %goff8 Offset 8
    %gblock = OpDecorationGroup
 %gstride16 = OpDecorationGroup
  %gstride4 = OpDecorationGroup
     %goff0 = OpDecorationGroup
     %goff8 = OpDecorationGroup
               OpGroupDecorate %gblock %I %O
               OpGroupDecorate %gstride16 %rts
               OpGroupDecorate %gstride4 %rtu
               OpGroupMemberDecorate %goff0 %S 0 %I 0 %O 0
               OpGroupMemberDecorate %goff8 %S 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %uint3 = OpTypeVector %uint 3
       %pin3 = OpTypePointer Input %uint3
        %gid = OpVariable %pin3 Input
          %S = OpTypeStruct %uint %uint
        %rts = OpTypeRuntimeArray %S
          %I = OpTypeStruct %rts
         %pI = OpTypePointer StorageBuffer %I
         %in = OpVariable %pI StorageBuffer
        %rtu = OpTypeRuntimeArray %uint
          %O = OpTypeStruct %rtu
         %pO = OpTypePointer StorageBuffer %O
        %out = OpVariable %pO StorageBuffer
      %puint = OpTypePointer StorageBuffer %uint
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
        %u10 = OpConstant %uint 10
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %g3 = OpLoad %uint3 %gid
          %i = OpCompositeExtract %uint %g3 0
         %px = OpAccessChain %puint %in %u0 %i %u0
         %py = OpAccessChain %puint %in %u0 %i %u1
          %x = OpLoad %uint %px
          %y = OpLoad %uint %py
         %y10 = OpIMul %uint %y %u10
          %r = OpIAdd %uint %y10 %x
         %po = OpAccessChain %puint %out %u0 %i
               OpStore %po %r
               OpReturn
               OpFunctionEnd
"""


def decoration_groups_asm():
    n = 8
    words = np.zeros((n, 4), np.uint32)  # struct {x, pad, y, pad} at stride 16
    words[:, 0] = np.arange(n) * 3 + 1
    words[:, 2] = np.arange(n) * 7 + 2
    out = [int(words[i, 2]) * 10 + int(words[i, 0]) for i in range(n)]
    case("decoration_groups_asm", GROUPS_ASM,
         [buf(0, words.flatten()), buf(1, np.zeros(n, np.uint32), out)], [1, 1, 1],
         lang="spvasm")


decoration_groups_asm()


def float_bf16_fp8():
    # VK_KHR_shader_bfloat16 / VK_EXT_shader_float8: conversions from float32 (round to nearest
    # even; float8 overflow gives NaN for E4M3 and infinity for E5M2 unless saturated), a bfloat16
    # dot product (accumulated in float32), and a saturating E4M3 conversion. Reference values
    # come from ml_dtypes (`pip install ml_dtypes`).
    import ml_dtypes as md
    n = 64
    special = [0.0, -0.0, 1.0, -1.5, 1.00390625, 1.01171875, 3.140625, 0.1, -0.3, 1e-3, 2e-5,
               448.0, 464.0, 500.0, -1000.0, 57344.0, 61440.0, 65536.0, -70000.0, 1e5,
               float("inf"), float("-inf"), 240.0, 0.015625, 0.0009765625, 255.9, -17.25, 6.5e-4]
    rng = np.random.default_rng(7)
    rest = (rng.standard_normal(n - len(special)) * 30).astype(np.float32)
    a = np.array(special + list(rest), np.float32)
    b = a.astype(md.bfloat16)
    c = a.astype(md.float8_e4m3fn)
    d = a.astype(md.float8_e5m2)
    o = np.zeros(3 * n, np.float32)
    dout = d.copy()
    dout[63] = md.float8_e5m2(1.5)  # a float8 constant
    with np.errstate(invalid="ignore", over="ignore"):
        o[:n] = b.astype(np.float32) + d.astype(np.float32) * np.float32(1000.0)
        x = b.astype(np.float32)
        sq = (x * x).astype(np.float32) + np.float32(4.0)
        o[n:2 * n] = sq.astype(md.bfloat16).astype(np.float32)
        o[2 * n:] = np.clip(a, -448.0, 448.0).astype(md.float8_e4m3fn).astype(np.float32)
    src = """#version 450
#extension GL_EXT_bfloat16 : require
#extension GL_EXT_float_e4m3 : require
#extension GL_EXT_float_e5m2 : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) writeonly buffer B { bfloat16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer C { floate4m3_t c[]; };
layout(set = 0, binding = 3) writeonly buffer D { floate5m2_t d[]; };
layout(set = 0, binding = 4) writeonly buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    bfloat16_t bv = bfloat16_t(a[i]);
    floate5m2_t dv = floate5m2_t(a[i]);
    b[i] = bv;
    c[i] = floate4m3_t(a[i]);
    d[i] = (i == 63u) ? floate5m2_t(1.5) : dv;
    o[i] = float(bv) + float(dv) * 1000.0;
    bf16vec2 v = bf16vec2(bv, bfloat16_t(2.0));
    o[i + 64u] = float(dot(v, v));
    floate4m3_t s8;
    saturatedConvertEXT(s8, a[i]);
    o[i + 128u] = float(s8);
}
"""
    case("float_bf16_fp8", src,
         [buf(0, a, dtype=np.float32, compare="u32"),
          buf(1, np.zeros(n, np.uint16), b.view(np.uint16), dtype=np.uint16),
          buf(2, np.zeros(n, np.uint8), c.view(np.uint8), dtype=np.uint8),
          buf(3, np.zeros(n, np.uint8), dout.view(np.uint8), dtype=np.uint8),
          buf(4, np.zeros(3 * n, np.uint32), o.view(np.uint32), dtype=np.uint32)],
         [n // 16, 1, 1])


float_bf16_fp8()


def glsl_std450_pack_inverse():
    # Pack/Unpack{Snorm,Unorm}{4x8,2x16}, Pack/UnpackDouble2x32 and MatrixInverse (2x2..4x4).
    # Packing rounds to nearest (the inputs avoid exact halves, which GLSL leaves open).
    n = 16
    rng = np.random.default_rng(11)
    v = (rng.uniform(-1.6, 1.6, (n, 4))).astype(np.float32)
    v[0] = [0.0, 1.0, -1.0, 2.0]
    v[1] = [-0.31, 0.31, 0.999, -3.0]

    def pack(c, bits, signed):
        scale = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        lo = -1.0 if signed else 0.0
        t = np.clip(c, np.float32(lo), np.float32(1.0)) * np.float32(scale)  # float32, as GLSL
        assert not np.any(t - np.floor(t) == 0.5), "a tie: GLSL leaves its rounding open"
        q = np.rint(t).astype(np.int64)
        out = 0
        for k, x in enumerate(q):
            out |= (int(x) & ((1 << bits) - 1)) << (bits * k)
        return out

    def unpack(u, bits, signed):
        scale = np.float32((1 << (bits - 1)) - 1 if signed else (1 << bits) - 1)
        res = []
        for k in range(32 // bits):
            f = (u >> (bits * k)) & ((1 << bits) - 1)
            if signed and f >= 1 << (bits - 1):
                f -= 1 << bits
            x = np.float32(f) / scale
            res.append(max(x, np.float32(-1.0)) if signed else x)
        return res

    words = (rng.integers(0, 2**32, n, dtype=np.uint64)).astype(np.uint32)
    words[0] = 0x80808080
    words[1] = 0x7F7F8000
    packs, unpacks, dbl = [], [], []
    for i in range(n):
        packs += [pack(v[i], 8, True), pack(v[i], 8, False), pack(v[i][:2], 16, True),
                  pack(v[i][2:], 16, False)]
        u = int(words[i])
        unpacks += unpack(u, 8, True) + unpack(u, 8, False) + unpack(u, 16, True) + \
            unpack(u, 16, False)
        d = np.array([u, (u * 2654435761) & 0xFFFFFFFF], np.uint32).view(np.float64)[0]
        back = np.array([d], np.float64).view(np.uint32)
        dbl += [int(back[0]), int(back[1])]
    mats = []
    inv = []
    for k in (2, 3, 4):
        m = rng.uniform(-2, 2, (k, k)) + np.eye(k) * 3
        m = m.astype(np.float32)
        mats.append(m)
        inv.append(np.linalg.inv(m.astype(np.float64)).astype(np.float32))
    # Column-major storage: GLSL mat[c][r]; numpy m[r][c] -> store m.T flattened.
    mat_in = np.concatenate([m.T.flatten() for m in mats]).astype(np.float32)
    inv_out = np.concatenate([x.T.flatten() for x in inv]).astype(np.float32)
    src = HEADER + """
#extension GL_ARB_gpu_shader_fp64 : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer V { vec4 v[]; };
layout(set = 0, binding = 1) readonly buffer W { uint w[]; };
layout(set = 0, binding = 2) writeonly buffer P { uint p[]; };
layout(set = 0, binding = 3) writeonly buffer U { float u[]; };
layout(set = 0, binding = 4) writeonly buffer D { uint d[]; };
layout(set = 0, binding = 5) readonly buffer M { float m[]; };
layout(set = 0, binding = 6) writeonly buffer I { float inv[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = v[i];
    p[i * 4u] = packSnorm4x8(x);
    p[i * 4u + 1u] = packUnorm4x8(x);
    p[i * 4u + 2u] = packSnorm2x16(x.xy);
    p[i * 4u + 3u] = packUnorm2x16(x.zw);
    uint k = w[i];
    vec4 a = unpackSnorm4x8(k);
    vec4 b = unpackUnorm4x8(k);
    vec2 c = unpackSnorm2x16(k);
    vec2 e = unpackUnorm2x16(k);
    uint o = i * 12u;
    u[o] = a.x; u[o + 1u] = a.y; u[o + 2u] = a.z; u[o + 3u] = a.w;
    u[o + 4u] = b.x; u[o + 5u] = b.y; u[o + 6u] = b.z; u[o + 7u] = b.w;
    u[o + 8u] = c.x; u[o + 9u] = c.y; u[o + 10u] = e.x; u[o + 11u] = e.y;
    double dv = packDouble2x32(uvec2(k, k * 2654435761u));
    uvec2 back = unpackDouble2x32(dv);
    d[i * 2u] = back.x; d[i * 2u + 1u] = back.y;
    if (i == 0u) {
        mat2 m2 = mat2(m[0], m[1], m[2], m[3]);
        mat3 m3 = mat3(m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11], m[12]);
        mat4 m4;
        for (int cc = 0; cc < 4; cc++)
            for (int r = 0; r < 4; r++)
                m4[cc][r] = m[13 + cc * 4 + r];
        mat2 i2 = inverse(m2);
        mat3 i3 = inverse(m3);
        mat4 i4 = inverse(m4);
        for (int cc = 0; cc < 2; cc++) for (int r = 0; r < 2; r++) inv[cc * 2 + r] = i2[cc][r];
        for (int cc = 0; cc < 3; cc++) for (int r = 0; r < 3; r++) inv[4 + cc * 3 + r] = i3[cc][r];
        for (int cc = 0; cc < 4; cc++) for (int r = 0; r < 4; r++) inv[13 + cc * 4 + r] = i4[cc][r];
    }
}
"""
    case("glsl_std450_pack_inverse", src,
         [buf(0, v.flatten(), dtype=np.float32),
          buf(1, words, dtype=np.uint32),
          buf(2, np.zeros(4 * n, np.uint32), packs, dtype=np.uint32),
          buf(3, np.zeros(12 * n, np.float32), unpacks, dtype=np.float32),
          buf(4, np.zeros(2 * n, np.uint32), dbl, dtype=np.uint32),
          buf(5, mat_in, dtype=np.float32),
          buf(6, np.zeros(len(inv_out), np.float32), inv_out, dtype=np.float32, tol=1e-5)],
         [1, 1, 1])


glsl_std450_pack_inverse()


def functions():
    n = 32

    def clampadd(a, b):
        s = a + b
        if s > 100:
            return 100
        if s < -100:
            return -100
        return s

    def ref(i):
        x = i * 7 - 100
        q, r = divmod(abs(x), 6)
        f = 1
        for k in range(1, i % 8 + 1):
            f *= k
        p = (x * 2, x + 3)
        s = clampadd(x, x)
        acc = x
        for _ in range(3):
            acc = clampadd(acc, 13)
        return [q, r, f, p[0] & 0xFFFFFFFF, p[1] & 0xFFFFFFFF, s & 0xFFFFFFFF, acc & 0xFFFFFFFF]

    out = []
    for i in range(n):
        out += ref(i)
    src = HEADER + """
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
struct Pair { int a; int b; };
void divmod6(int v, out int q, inout int r) { r = v % 6; q = v / 6; }
uint fact(uint n) { uint f = 1u; for (uint k = 1u; k <= n; k++) f *= k; return f; }
Pair pairOf(int x) { Pair p; p.a = x * 2; p.b = x + 3; return p; }
int clampAdd(int a, int b) {
    int s = a + b;
    if (s > 100) return 100;
    if (s < -100) return -100;
    return s;
}
int thrice(int x) { for (int k = 0; k < 3; k++) x = clampAdd(x, 13); return x; }
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = int(i) * 7 - 100;
    int q, r = 0;
    divmod6(abs(x), q, r);
    Pair p = pairOf(x);
    uint b = i * 7u;
    o[b] = uint(q); o[b + 1u] = uint(r); o[b + 2u] = fact(i % 8u);
    o[b + 3u] = uint(p.a); o[b + 4u] = uint(p.b);
    o[b + 5u] = uint(clampAdd(x, x)); o[b + 6u] = uint(thrice(x));
}
"""
    case("functions", src, [buf(0, np.zeros(n * 7, np.uint32), out)], [n // 8, 1, 1])


functions()

# ---------------------------------------------------------------------------------------------
# Push constants and specialization constants
# ---------------------------------------------------------------------------------------------


def push_constants():
    # layout(push_constant) std430: uint a @0; int b @4; float c @8; vec4 v @16; uint arr[3] @32
    a, b_, c = 1000, -37, 2.5
    v = [1.0, -2.0, 0.5, 8.0]
    arr = [3, 5, 7]
    push = struct.pack("<Iif4x4f3I", a, b_, c, *v, *arr)
    n = 16
    out = []
    for i in range(n):
        f = np.float32
        out += [a + i, wrap(b_ * i, 32, True) & 0xFFFFFFFF,
                f32bits(float(f(c) * f(i))), f32bits(float(f(v[i % 4]) * f(c))), arr[i % 3] * i]
    src = HEADER + """
layout(local_size_x = 16) in;
layout(push_constant) uniform P { uint a; int b; float c; vec4 v; uint arr[3]; } pc;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint k = i * 5u;
    o[k] = pc.a + i;
    o[k + 1u] = uint(pc.b * int(i));
    o[k + 2u] = floatBitsToUint(pc.c * float(i));
    o[k + 3u] = floatBitsToUint(pc.v[i % 4u] * pc.c);
    o[k + 4u] = pc.arr[i % 3u] * i;
}
"""
    case("push_constants", src, [buf(0, np.zeros(n * 5, np.uint32), out)], [1, 1, 1], push=push)


push_constants()


def spec_constants():
    local = 8
    K, FLAG, SCALE, OFF = -5, True, 2.5, 11   # OFF (id 4) keeps its default
    groups = 3
    n = local * groups
    out = []
    for i in range(n):
        k2 = K * 2 + 1
        out += [wrap(i * k2, 32, True) & 0xFFFFFFFF, 1000 if FLAG else 0, local,
                f32bits(float(np.float32(SCALE) * np.float32(i))), OFF, i % local]
    src = HEADER + """
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const int K = 3;
layout(constant_id = 2) const bool FLAG = false;
layout(constant_id = 3) const float SCALE = 1.0;
layout(constant_id = 4) const uint OFF = 11u;
const int K2 = K * 2 + 1;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
shared uint lane[gl_WorkGroupSize.x];
void main() {
    uint i = gl_GlobalInvocationID.x;
    lane[gl_LocalInvocationID.x] = gl_LocalInvocationID.x;
    barrier();
    uint k = i * 6u;
    o[k] = uint(int(i) * K2);
    o[k + 1u] = FLAG ? 1000u : 0u;
    o[k + 2u] = gl_WorkGroupSize.x;
    o[k + 3u] = floatBitsToUint(SCALE * float(i));
    o[k + 4u] = OFF;
    o[k + 5u] = lane[gl_LocalInvocationID.x];
}
"""
    spec = [(0, 4, local), (1, 4, K & 0xFFFFFFFF), (2, 4, 1), (3, 4, f32bits(SCALE))]
    case("spec_constants", src, [buf(0, np.zeros(n * 6, np.uint32), out)], [groups, 1, 1],
         spec=spec)


spec_constants()

# ---------------------------------------------------------------------------------------------
# Shared memory + barriers, atomics
# ---------------------------------------------------------------------------------------------


def shared_reduction():
    wg, groups = 64, 4
    vals = RNG.integers(0, 1000, wg * groups).astype(np.uint32)
    sums = [int(vals[g * wg:(g + 1) * wg].sum()) for g in range(groups)]
    maxs = [int(vals[g * wg:(g + 1) * wg].max()) for g in range(groups)]
    scan = np.concatenate([np.cumsum(vals[g * wg:(g + 1) * wg]) for g in range(groups)]).astype(np.uint32)
    red = []
    for g in range(groups):
        red += [sums[g], maxs[g]]
    src = HEADER + """
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) writeonly buffer Red { uint red[]; };
layout(set = 0, binding = 2) writeonly buffer Scan { uint scan[]; };
shared uint s[64];
shared uint m[64];
shared uint sc[2][64];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint x = v[gl_GlobalInvocationID.x];
    s[l] = x; m[l] = x; sc[0][l] = x;
    barrier();
    for (uint step = 32u; step > 0u; step >>= 1) {
        if (l < step) {
            s[l] += s[l + step];
            m[l] = max(m[l], m[l + step]);
        }
        barrier();
    }
    // Hillis-Steele inclusive scan, ping-ponging between the two rows.
    uint src = 0u;
    for (uint d = 1u; d < 64u; d <<= 1) {
        uint y = sc[src][l];
        if (l >= d) y += sc[src][l - d];
        sc[1u - src][l] = y;
        barrier();
        src = 1u - src;
    }
    scan[gl_GlobalInvocationID.x] = sc[src][l];
    if (l == 0u) {
        red[gl_WorkGroupID.x * 2u] = s[0];
        red[gl_WorkGroupID.x * 2u + 1u] = m[0];
    }
}
"""
    case("shared_reduction", src, [buf(0, vals), buf(1, np.zeros(groups * 2, np.uint32), red),
                                   buf(2, np.zeros(wg * groups, np.uint32), scan)], [groups, 1, 1])


shared_reduction()


def atomics():
    wg, groups, bins = 64, 4, 16
    n = wg * groups
    vals = RNG.integers(0, 100000, n).astype(np.uint32)
    hist = np.bincount(vals % bins, minlength=bins).astype(np.uint32)
    # globals: [counter, min, max, or, xor, and, cas_count, pad]
    g = [n, int(vals.min()), int(vals.max()), int(np.bitwise_or.reduce(vals)),
         int(np.bitwise_xor.reduce(vals)), int(np.bitwise_and.reduce(vals | 0x80000000)), n // 2, 0]
    g_init = [0, 0xFFFFFFFF, 0, 0, 0, 0xFFFFFFFF, 0, 0]
    seen = np.ones(n, np.uint32)
    local = [int(vals[k * wg:(k + 1) * wg].astype(np.uint64).sum() & 0xFFFFFFFF) for k in range(groups)]
    src = HEADER + """
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) buffer Hist { uint hist[]; };
layout(set = 0, binding = 2) buffer G { uint counter; uint mn; uint mx; uint ors; uint xors; uint ands; uint cas; uint pad; } g;
layout(set = 0, binding = 3) buffer Seen { uint seen[]; };
layout(set = 0, binding = 4) buffer Local { uint local_sum[]; };
shared uint wsum;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = v[i];
    if (gl_LocalInvocationID.x == 0u) wsum = 0u;
    barrier();
    atomicAdd(hist[x % 16u], 1u);
    uint ticket = atomicAdd(g.counter, 1u);
    seen[ticket] = 1u;
    atomicMin(g.mn, x);
    atomicMax(g.mx, x);
    atomicOr(g.ors, x);
    atomicXor(g.xors, x);
    atomicAnd(g.ands, x | 0x80000000u);
    if (i % 2u == 0u) {
        uint old = 0u;
        for (;;) {
            uint seen_v = atomicCompSwap(g.cas, old, old + 1u);
            if (seen_v == old) break;
            old = seen_v;
        }
    }
    atomicAdd(wsum, x);
    barrier();
    if (gl_LocalInvocationID.x == 0u) local_sum[gl_WorkGroupID.x] = wsum;
}
"""
    case("atomics", src, [buf(0, vals), buf(1, np.zeros(bins, np.uint32), hist),
                          buf(2, g_init, g), buf(3, np.zeros(n, np.uint32), seen),
                          buf(4, np.zeros(groups, np.uint32), local)], [groups, 1, 1])


atomics()

# ---------------------------------------------------------------------------------------------
# GLSL.std.450 maths (with tolerance)
# ---------------------------------------------------------------------------------------------


def glsl_std450():
    n = 32
    x = RNG.uniform(-3, 3, n).astype(np.float32)
    y = RNG.uniform(0.1, 4, n).astype(np.float32)
    x[:4] = [0.5, -0.5, 2.5, -1.5]   # ties: roundEven() is defined for them, round() is not
    X, Y = x.astype(np.float64), y.astype(np.float64)
    C = np.clip(X / 3, -1, 1)
    t = np.clip((X + 1) / 2, 0, 1)
    x11 = (x * np.float32(1.1)).astype(np.float64)   # never a tie
    cols = [np.sin(X), np.cos(X), np.tan(X / 4), np.arcsin(C), np.arccos(C), np.arctan(X),
            np.arctan2(X, Y), np.sinh(X / 2), np.tanh(X), np.exp(X), np.exp2(X), np.log(Y),
            np.log2(Y), np.power(Y, X), np.sqrt(Y), 1 / np.sqrt(Y), np.rint(X), np.round(x11),
            X * (1 - 0.25) + Y * 0.25, (X >= 0.5).astype(float), t * t * (3 - 2 * t), X * Y + 1,
            np.hypot(X, Y), X / np.hypot(X, Y), np.radians(X * 30), np.degrees(X),
            np.arcsinh(X), np.sqrt(X * X + 1)]
    K = len(cols)
    out = np.stack(cols, axis=1).astype(np.float32).reshape(-1)
    src = HEADER + f"""
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer A {{ float a[]; }};
layout(set = 0, binding = 1) readonly buffer B {{ float b[]; }};
layout(set = 0, binding = 2) writeonly buffer O {{ float o[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    float x = a[i], y = b[i];
    float c = clamp(x / 3.0, -1.0, 1.0);
    float r[{K}] = float[{K}](sin(x), cos(x), tan(x / 4.0), asin(c), acos(c), atan(x),
        atan(x, y), sinh(x / 2.0), tanh(x), exp(x), exp2(x), log(y),
        log2(y), pow(y, x), sqrt(y), inversesqrt(y), roundEven(x), round(x * 1.1),
        mix(x, y, 0.25), step(0.5, x), smoothstep(-1.0, 1.0, x), fma(x, y, 1.0),
        length(vec2(x, y)), normalize(vec2(x, y)).x, radians(x * 30.0), degrees(x),
        asinh(x), distance(vec2(x, 1.0), vec2(0.0)));
    for (int k = 0; k < {K}; k++) o[i * {K}u + uint(k)] = r[k];
}}
"""
    case("glsl_std450", src, [buf(0, x, dtype=np.float32), buf(1, y, dtype=np.float32),
                              buf(2, np.zeros(n * K, np.float32), out, dtype=np.float32, tol=2e-5)],
         [n // 8, 1, 1])

    # Ldexp / Frexp / Modf (exact results: no tolerance).
    mant, ex = np.frexp(x)
    ip = np.trunc(x)
    out2 = []
    for k in range(n):
        out2 += [f32bits(float(x[k]) * 8), f32bits(float(x[k]) / 4), f32bits(float(mant[k])),
                 int(ex[k]) & 0xFFFFFFFF, f32bits(float(x[k] - ip[k])), f32bits(float(ip[k]))]
    src = HEADER + """
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i];
    int e;
    float m = frexp(x, e);
    float ip;
    float fr = modf(x, ip);
    o[i * 6u] = floatBitsToUint(ldexp(x, 3));
    o[i * 6u + 1u] = floatBitsToUint(ldexp(x, -2));
    o[i * 6u + 2u] = floatBitsToUint(m);
    o[i * 6u + 3u] = uint(e);
    o[i * 6u + 4u] = floatBitsToUint(fr);
    o[i * 6u + 5u] = floatBitsToUint(ip);
}
"""
    case("glsl_std450_ldexp_frexp_modf", src,
         [buf(0, x, dtype=np.float32), buf(1, np.zeros(n * 6, np.uint32), out2)], [n // 8, 1, 1])


glsl_std450()

# ---------------------------------------------------------------------------------------------
# Uniform buffer, std140 layout
# ---------------------------------------------------------------------------------------------


def ubo_std140():
    # uniform U { float f; vec2 v2; vec3 v3; float g; float arr[3]; mat3 m; S s[2]; ivec4 iv; }
    # std140: f@0, v2@8, v3@16, g@28, arr@32 (stride 16) → 80, m@80 (3 cols × 16) → 128,
    # S { int i; vec2 p; } size 16 (i@0, p@8), array stride 16: s@128 → 160, iv@160 → 176.
    f, v2, v3, g = 1.25, [2.0, -3.0], [4.0, 5.5, -6.0], 7.0
    arr = [8.0, 9.0, 10.0]
    m = np.arange(9, dtype=np.float32).reshape(3, 3) + 0.5   # m[col][row]
    s = [(11, [12.0, 13.0]), (-14, [15.0, 16.5])]
    iv = [17, -18, 19, -20]
    ub = bytearray(176)
    struct.pack_into("<f", ub, 0, f)
    struct.pack_into("<2f", ub, 8, *v2)
    struct.pack_into("<3f", ub, 16, *v3)
    struct.pack_into("<f", ub, 28, g)
    for k in range(3):
        struct.pack_into("<f", ub, 32 + 16 * k, arr[k])
        struct.pack_into("<3f", ub, 80 + 16 * k, *m[k])
    for k in range(2):
        struct.pack_into("<i2f", ub, 128 + 16 * k, s[k][0], 0.0, 0.0)
        struct.pack_into("<2f", ub, 128 + 16 * k + 8, *s[k][1])
    struct.pack_into("<4i", ub, 160, *iv)
    # Poison the std140 padding: a wrong layout reads these.
    for off in [4, 36, 40, 44, 52, 56, 60, 68, 72, 76, 92, 108, 124, 132, 148]:
        struct.pack_into("<f", ub, off, -999.0)
    outv = [f, *v2, *v3, g, *arr, *m.reshape(-1), float(s[0][0]), *s[0][1], float(s[1][0]), *s[1][1],
            *[float(x) for x in iv]]
    src = HEADER + """
layout(local_size_x = 1) in;
struct S { int i; vec2 p; };
layout(std140, set = 0, binding = 0) uniform U {
    float f; vec2 v2; vec3 v3; float g; float arr[3]; mat3 m; S s[2]; ivec4 iv;
} u;
layout(set = 0, binding = 1) writeonly buffer O { float o[]; };
void main() {
    uint k = 0u;
    o[k++] = u.f; o[k++] = u.v2.x; o[k++] = u.v2.y;
    o[k++] = u.v3.x; o[k++] = u.v3.y; o[k++] = u.v3.z; o[k++] = u.g;
    for (int j = 0; j < 3; j++) o[k++] = u.arr[j];
    for (int c = 0; c < 3; c++) for (int r = 0; r < 3; r++) o[k++] = u.m[c][r];
    for (int j = 0; j < 2; j++) { o[k++] = float(u.s[j].i); o[k++] = u.s[j].p.x; o[k++] = u.s[j].p.y; }
    for (int j = 0; j < 4; j++) o[k++] = float(u.iv[j]);
}
"""
    case("ubo_std140", src, [buf(0, bytes(ub), uniform=True, compare="u32"),
                             buf(1, np.zeros(len(outv), np.float32), outv, dtype=np.float32)],
         [1, 1, 1])


ubo_std140()

# ---------------------------------------------------------------------------------------------
# Tensors
# ---------------------------------------------------------------------------------------------

TFMTS = ["bool", "u8", "i8", "u16", "i16", "f16", "u32", "i32", "f32", "u64", "i64", "f64"]


LOWP = {"bf16": "bfloat16_t", "e4m3": "floate4m3_t", "e5m2": "floate5m2_t"}
LOWP_HEADER = """#extension GL_EXT_bfloat16 : require
#extension GL_EXT_float_e4m3 : require
#extension GL_EXT_float_e5m2 : require
#extension GL_ARM_tensors_bfloat16 : require
#extension GL_ARM_tensors_float_e4m3 : require
#extension GL_ARM_tensors_float_e5m2 : require
"""


def lowp_dtype(fmt):
    import ml_dtypes as md
    return {"bf16": md.bfloat16, "e4m3": md.float8_e4m3fn, "e5m2": md.float8_e5m2}[fmt]


def tensor_rw_lowp(fmt, k):
    # bfloat16 / float8 tensors: only conversions are allowed on these types in GLSL.
    dt = lowp_dtype(fmt)
    glsl_t = LOWP[fmt]
    dims = (3, 4, 5)
    n = int(np.prod(dims))
    a = RNG.uniform(-50, 50, dims).astype(np.float32).astype(dt)
    r = (a.astype(np.float32) * np.float32(2) - np.float32(1)).astype(dt)
    bits = np.uint16 if fmt == "bf16" else np.uint8
    src_str, dst_str = ("padded", "packed") if k % 2 == 0 else ("packed", "padded")
    src = TENSOR_HEADER + LOWP_HEADER + f"""
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform tensorARM<{glsl_t}, 3> src;
layout(set = 0, binding = 1) uniform tensorARM<{glsl_t}, 3> dst;
void main() {{
    uint i = gl_GlobalInvocationID.x;
    uint d1 = tensorSizeARM(src, 1), d2 = tensorSizeARM(src, 2);
    if (i >= tensorSizeARM(src, 0) * d1 * d2) return;
    uint c[3] = uint[3](i / (d1 * d2), (i / d2) % d1, i % d2);
    {glsl_t} x;
    tensorReadARM(src, c, x);
    tensorWriteARM(dst, c, {glsl_t}(float(x) * 2.0 - 1.0));
}}
"""
    case(f"tensor_rw_{fmt}", src,
         [tensor(0, tensor_el(fmt, a.view(bits), a.view(bits), strides=src_str)),
          tensor(1, tensor_el(fmt, np.zeros(dims, bits), r.view(bits), strides=dst_str))],
         [(n + 7) // 8, 1, 1])


for k, fmt in enumerate(LOWP):
    tensor_rw_lowp(fmt, k)


def tensor_rw(fmt, k):
    dtype, glsl_t = FMT[fmt]
    dims = (3, 4, 5)
    n = int(np.prod(dims))
    if fmt == "bool":
        a = RNG.integers(0, 2, dims).astype(np.uint8)
        r = (1 - a).astype(np.uint8)
        op = "!x"
    elif fmt.startswith("f"):
        a = RNG.uniform(-50, 50, dims).astype(dtype)
        r = (a.astype(np.float64) * 2 - 1).astype(dtype)
        op = f"x * {glsl_t}(2) - {glsl_t}(1)"
    else:
        info = np.iinfo(dtype)
        a = RNG.integers(int(info.min), int(info.max), dims, endpoint=True, dtype=dtype)
        a.flat[0], a.flat[1] = info.max, info.min
        bits = np.dtype(dtype).itemsize * 8
        r = np.array([wrap(int(v) * 3 + 1, bits, info.min < 0) for v in a.flat], dtype=dtype).reshape(dims)
        op = f"x * {glsl_t}(3) + {glsl_t}(1)"
    # Alternate which side is padded so both reads and writes see padded strides.
    src_str, dst_str = ("padded", "packed") if k % 2 == 0 else ("packed", "padded")
    src = TENSOR_HEADER + f"""
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform tensorARM<{glsl_t}, 3> src;
layout(set = 0, binding = 1) uniform tensorARM<{glsl_t}, 3> dst;
void main() {{
    uint i = gl_GlobalInvocationID.x;
    uint d1 = tensorSizeARM(src, 1), d2 = tensorSizeARM(src, 2);
    if (i >= tensorSizeARM(src, 0) * d1 * d2) return;
    uint c[3] = uint[3](i / (d1 * d2), (i / d2) % d1, i % d2);
    {glsl_t} x;
    tensorReadARM(src, c, x);
    tensorWriteARM(dst, c, {glsl_t}({op}));
}}
"""
    tol = {"f16": 1e-3, "f32": 1e-6, "f64": 1e-12}.get(fmt, 0.0)
    case(f"tensor_rw_{fmt}", src,
         [tensor(0, tensor_el(fmt, a, a, strides=src_str)),
          tensor(1, tensor_el(fmt, np.zeros(dims, dtype), r, strides=dst_str, tol=tol))],
         [(n + 7) // 8, 1, 1])


for k, fmt in enumerate(TFMTS):
    tensor_rw(fmt, k)


def tensor_ranks():
    DIMS = [3, 2, 5, 1, 2, 3, 2, 4]
    decl, body, binds = [], [], []
    maxn = 0
    for r in range(1, 9):
        dims = tuple(DIMS[:r])
        n = int(np.prod(dims))
        maxn = max(maxn, n)
        a = RNG.integers(-10000, 10000, dims).astype(np.int32)
        out = a * 10 + r
        decl.append(f"layout(set = 0, binding = {2 * r - 2}) uniform tensorARM<int, {r}> src{r};")
        decl.append(f"layout(set = 0, binding = {2 * r - 1}) uniform tensorARM<int, {r}> dst{r};")
        coords = []
        for d in range(r):
            div = " * ".join(f"tensorSizeARM(src{r}, {e})" for e in range(d + 1, r)) or "1u"
            coords.append(f"(i / ({div})) % tensorSizeARM(src{r}, {d})")
        total = " * ".join(f"tensorSizeARM(src{r}, {e})" for e in range(r))
        body.append(f"""    if (i < {total}) {{
        uint c{r}[{r}] = uint[{r}]({", ".join(coords)});
        int x;
        tensorReadARM(src{r}, c{r}, x);
        tensorWriteARM(dst{r}, c{r}, x * 10 + {r});
    }}""")
        binds.append(tensor(2 * r - 2, tensor_el("i32", a, a, strides="padded")))
        binds.append(tensor(2 * r - 1, tensor_el("i32", np.zeros(dims, np.int32), out,
                                                 strides="packed" if r % 2 else "padded")))
    sizes = []
    for r in range(1, 9):
        sizes += DIMS[:r] + [0] * (8 - r)
    decl.append("layout(set = 0, binding = 16) writeonly buffer Sizes { uint sizes[]; };")
    # tensorSizeARM takes a constant dimension: unrolled.
    sz_lines = [f"        sizes[{(r - 1) * 8 + d}u] = tensorSizeARM(src{r}, {d});"
                for r in range(1, 9) for d in range(r)]
    body.append("    if (i == 0u) {\n" + "\n".join(sz_lines) + "\n    }")
    binds.append(buf(16, np.zeros(64, np.uint32), sizes))
    src = TENSOR_HEADER + "layout(local_size_x = 32) in;\n" + "\n".join(decl) + \
        "\nvoid main() {\n    uint i = gl_GlobalInvocationID.x;\n" + "\n".join(body) + "\n}\n"
    case("tensor_ranks_1_to_8", src, binds, [(maxn + 31) // 32, 1, 1])


tensor_ranks()


def tensor_optimal():
    a = RNG.integers(-1000, 1000, (4, 5, 6)).astype(np.int32)
    h = (a.reshape(6, 20).astype(np.float64) * 0.5).astype(np.float16)
    u = (a.reshape(2, 3, 4, 5) & 0xFF).astype(np.uint8)
    lin = a * 3 - 7
    src = TENSOR_HEADER + """
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 3> src;
layout(set = 0, binding = 1) uniform tensorARM<float16_t, 2> half_out;
layout(set = 0, binding = 2) uniform tensorARM<uint8_t, 4> byte_out;
layout(set = 0, binding = 3) uniform tensorARM<int, 3> lin_out;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= 120u) return;
    uint c[3] = uint[3](i / 30u, (i / 6u) % 5u, i % 6u);
    int x;
    tensorReadARM(src, c, x);
    uint h[2] = uint[2](i / 20u, i % 20u);
    tensorWriteARM(half_out, h, float16_t(float(x) * 0.5));
    uint b[4] = uint[4](i / 60u, (i / 20u) % 3u, (i / 5u) % 4u, i % 5u);
    tensorWriteARM(byte_out, b, uint8_t(x & 255));
    tensorWriteARM(lin_out, c, x * 3 - 7);
}
"""
    case("tensor_optimal", src,
         [tensor(0, tensor_el("i32", a, a, tiling="optimal")),
          tensor(1, tensor_el("f16", np.zeros((6, 20), np.float16), h, tiling="optimal")),
          tensor(2, tensor_el("u8", np.zeros((2, 3, 4, 5), np.uint8), u, tiling="optimal")),
          tensor(3, tensor_el("i32", np.zeros((4, 5, 6), np.int32), lin, strides="padded"))],
         [8, 1, 1])


tensor_optimal()


def tensor_array_access():
    # Rows of 10; each invocation reads/writes 4 consecutive elements along the innermost
    # dimension starting at column 4*g: the last group (columns 8..11) straddles the end.
    rows, cols, n = 3, 10, 4
    groups = (cols + n - 1) // n
    a = (np.arange(rows * cols).reshape(rows, cols) * 7 - 50).astype(np.int32)
    b = (np.arange(rows * cols).reshape(rows, cols) * 3 + 1).astype(np.uint8)
    out_i, out_u = [], []
    for r in range(rows):
        for g in range(groups):
            for k in range(n):
                c = g * n + k
                out_i.append(int(a[r, c]) if c < cols else -1)     # with OOB value -1
            for k in range(n):
                c = g * n + k
                out_u.append(int(b[r, c]) if c < cols else 0)      # without: zero
    wi = (a + 1000).astype(np.int32)
    wu = (b.astype(np.int32) ^ 0x5A).astype(np.uint8)
    src = TENSOR_HEADER + """
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 2> a;
layout(set = 0, binding = 1) uniform tensorARM<uint8_t, 2> b;
layout(set = 0, binding = 2) uniform tensorARM<int, 2> wa;
layout(set = 0, binding = 3) uniform tensorARM<uint8_t, 2> wb;
layout(set = 0, binding = 4) writeonly buffer OI { int oi[]; };
layout(set = 0, binding = 5) writeonly buffer OU { uint8_t ou[]; };
void main() {
    uint g = gl_GlobalInvocationID.x, r = gl_GlobalInvocationID.y;
    uint c[2] = uint[2](r, g * 4u);
    int vi[4];
    tensorReadARM(a, c, vi, gl_TensorOperandsOutOfBoundsValueARM, -1);
    uint8_t vu[4];
    tensorReadARM(b, c, vu);
    uint base = (r * gl_NumWorkGroups.x + g) * 4u;
    for (uint k = 0u; k < 4u; k++) {
        oi[base + k] = vi[k];
        ou[base + k] = vu[k];
        vi[k] += 1000;
        vu[k] ^= uint8_t(0x5A);
    }
    tensorWriteARM(wa, c, vi);
    tensorWriteARM(wb, c, vu);
}
"""
    case("tensor_array_access", src,
         [tensor(0, tensor_el("i32", a, a, strides="padded")),
          tensor(1, tensor_el("u8", b, b)),
          tensor(2, tensor_el("i32", np.zeros_like(a), wi, strides="padded")),
          tensor(3, tensor_el("u8", np.zeros_like(b), wu, strides="padded")),
          buf(4, np.zeros(len(out_i), np.int32), out_i, dtype=np.int32),
          buf(5, np.zeros(len(out_u), np.uint8), out_u, dtype=np.uint8)],
         [groups, rows, 1])


tensor_array_access()


def tensor_oob():
    # A 3x5 tensor probed on an 8x4 grid (x = column, y = row) plus huge coordinates.
    rows, cols = 3, 5
    t = (np.arange(rows * cols).reshape(rows, cols) * 11).astype(np.int32)
    f = (np.arange(rows * cols).reshape(rows, cols) * 0.25).astype(np.float32)
    out, outf = [], []
    written = t.copy()
    for y in range(4):
        for x in range(8):
            inb = x < cols and y < rows
            out += [int(t[y, x]) if inb else -7, int(t[y, x]) if inb else 0]
            outf += [float(f[y, x]) if inb else 1.5, float(f[y, x]) if inb else 0.0]
            if inb:
                written[y, x] = 100 + y * 8 + x
    huge = [-7, 0, -7, -7]
    src = TENSOR_HEADER + """
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 2> t;
layout(set = 0, binding = 1) uniform tensorARM<float, 2> f;
layout(set = 0, binding = 2) writeonly buffer O { int o[]; };
layout(set = 0, binding = 3) writeonly buffer OF { float of[]; };
layout(set = 0, binding = 4) writeonly buffer H { int h[]; };
void main() {
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    uint c[2] = uint[2](y, x);
    int v, w;
    tensorReadARM(t, c, v, gl_TensorOperandsOutOfBoundsValueARM, -7);
    tensorReadARM(t, c, w);
    float fv, fw;
    tensorReadARM(f, c, fv, gl_TensorOperandsOutOfBoundsValueARM, 1.5);
    tensorReadARM(f, c, fw);
    uint k = (y * 8u + x) * 2u;
    o[k] = v; o[k + 1u] = w;
    of[k] = fv; of[k + 1u] = fw;
    tensorWriteARM(t, c, int(100u + y * 8u + x));
    if (x == 0u && y == 0u) {
        int a;
        uint big[2] = uint[2](0xFFFFFFFFu, 0u);
        tensorReadARM(t, big, a, gl_TensorOperandsOutOfBoundsValueARM, -7); h[0] = a;
        uint big2[2] = uint[2](0u, 0x80000000u);
        tensorReadARM(t, big2, a); h[1] = a;
        uint edge[2] = uint[2](3u, 0u);
        tensorReadARM(t, edge, a, gl_TensorOperandsOutOfBoundsValueARM, -7); h[2] = a;
        uint edge2[2] = uint[2](0u, 5u);
        tensorReadARM(t, edge2, a, gl_TensorOperandsOutOfBoundsValueARM, -7); h[3] = a;
        tensorWriteARM(t, big, 12345);
        tensorWriteARM(t, big2, 12345);
    }
}
"""
    # Note: the huge-coordinate reads in invocation (0,0) race with nothing: they are OOB.
    case("tensor_oob", src,
         [tensor(0, tensor_el("i32", t, written, strides="padded")),
          tensor(1, tensor_el("f32", f, f, strides="padded")),
          buf(2, np.zeros(len(out), np.int32), out, dtype=np.int32),
          buf(3, np.zeros(len(outf), np.float32), outf, dtype=np.float32),
          buf(4, np.zeros(4, np.int32), huge, dtype=np.int32)],
         [8, 4, 1])


tensor_oob()


def tensor_array_of_tensors():
    shapes = [(2, 3), (3, 4), (4, 2)]
    ts = [(np.arange(int(np.prod(s))).reshape(s) + 100 * (k + 1)).astype(np.int32)
          for k, s in enumerate(shapes)]
    idx = 1                     # push constant: read t[1], write t[2]
    nxt = (idx + 1) % 3
    n = 16
    out = []
    for i in range(n):
        r, c = i // 4, i % 4
        out.append(int(ts[idx][r, c]) if r < shapes[idx][0] and c < shapes[idx][1] else -1)
    sizes = [shapes[idx][0], shapes[idx][1], shapes[nxt][0], shapes[nxt][1]]
    after = [t.copy() for t in ts]
    for i in range(n):
        r, c = i // 4, i % 4
        if r < shapes[nxt][0] and c < shapes[nxt][1]:
            after[nxt][r, c] = out[i] * 2 if out[i] != -1 else -2
    # Non-uniform index: invocation i reads element (0, 1) of tensor i % 2 (tensor 2 is being
    # written, so it is left out to keep the case race-free).
    nonuni = [int(ts[i % 2][0, 1]) for i in range(n)]
    src = TENSOR_HEADER + """#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 16) in;
layout(push_constant) uniform P { uint idx; } pc;
layout(set = 0, binding = 0) uniform tensorARM<int, 2> t[3];
layout(set = 0, binding = 1) writeonly buffer O { int o[]; };
layout(set = 0, binding = 2) writeonly buffer S { uint s[]; };
layout(set = 0, binding = 3) writeonly buffer N { int nu[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint c[2] = uint[2](i / 4u, i % 4u);
    int v;
    tensorReadARM(t[pc.idx], c, v, gl_TensorOperandsOutOfBoundsValueARM, -1);
    o[i] = v;
    uint nx = (pc.idx + 1u) % 3u;
    tensorWriteARM(t[nx], c, v == -1 ? -2 : v * 2);
    if (i == 0u) {
        s[0] = tensorSizeARM(t[pc.idx], 0); s[1] = tensorSizeARM(t[pc.idx], 1);
        s[2] = tensorSizeARM(t[nx], 0); s[3] = tensorSizeARM(t[nx], 1);
    }
    uint e[2] = uint[2](0u, 1u);
    int w;
    tensorReadARM(t[nonuniformEXT(i % 2u)], e, w);
    nu[i] = w;
}
"""
    els = [tensor_el("i32", ts[k], after[k], strides="padded" if k == 1 else "packed")
           for k in range(3)]
    case("tensor_array_of_tensors", src,
         [tensor(0, *els), buf(1, np.zeros(n, np.int32), out, dtype=np.int32),
          buf(2, np.zeros(4, np.uint32), sizes),
          buf(3, np.zeros(n, np.int32), nonuni, dtype=np.int32)],
         [1, 1, 1], push=struct.pack("<I", idx))


tensor_array_of_tensors()

SHAPED_ASM = """; Shaped and unranked OpTypeTensorARM (VUID-RuntimeSpirv-OpTypeTensorARM-09902/-09907 forbid them
; in shader stages; Tessera tolerates them with a warning). Invocation i reads element (i/4, i%4) of
; two 3x4 int tensors through a shaped type [3,4] (matches) and a shaped type [4,3] (does not match:
; reads give the out-of-bounds value, writes are dropped), and queries their sizes. The unranked
; type is only declared: SPV_ARM_tensors accesses need a rank.
               OpCapability Shader
               OpCapability TensorsARM
               OpExtension "SPV_ARM_tensors"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %t0 %t1 %out
               OpExecutionMode %main LocalSize 12 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %t0 DescriptorSet 0
               OpDecorate %t0 Binding 0
               OpDecorate %t1 DescriptorSet 0
               OpDecorate %t1 Binding 1
               OpDecorate %rt ArrayStride 4
               OpMemberDecorate %O 0 Offset 0
               OpDecorate %O Block
               OpDecorate %t2 DescriptorSet 0
               OpDecorate %t2 Binding 7
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 2
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %uint3 = OpTypeVector %uint 3
     %pin3   = OpTypePointer Input %uint3
        %gid = OpVariable %pin3 Input
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u2 = OpConstant %uint 2
         %u3 = OpConstant %uint 3
         %u4 = OpConstant %uint 4
        %u10 = OpConstant %uint 10
      %i_m1  = OpConstant %int -1
      %i1000 = OpConstant %int 1000
      %i5555 = OpConstant %int 5555
     %arr2   = OpTypeArray %uint %u2
    %shape34 = OpConstantComposite %arr2 %u3 %u4
    %shape43 = OpConstantComposite %arr2 %u4 %u3
      %ts34  = OpTypeTensorARM %int %u2 %shape34
      %ts43  = OpTypeTensorARM %int %u2 %shape43
      %tun   = OpTypeTensorARM %int
      %p34   = OpTypePointer UniformConstant %ts34
      %p43   = OpTypePointer UniformConstant %ts43
      %pun   = OpTypePointer UniformConstant %tun
         %t0 = OpVariable %p34 UniformConstant
         %t1 = OpVariable %p43 UniformConstant
         %t2 = OpVariable %pun UniformConstant ; declared, never accessed
         %rt = OpTypeRuntimeArray %int
          %O = OpTypeStruct %rt
       %pO   = OpTypePointer StorageBuffer %O
        %out = OpVariable %pO StorageBuffer
      %pint  = OpTypePointer StorageBuffer %int
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %g3 = OpLoad %uint3 %gid
          %i = OpCompositeExtract %uint %g3 0
          %r = OpUDiv %uint %i %u4
          %c = OpUMod %uint %i %u4
         %rc = OpCompositeConstruct %arr2 %r %c
        %l0  = OpLoad %ts34 %t0
        %l1  = OpLoad %ts43 %t1
        %v0  = OpTensorReadARM %int %l0 %rc OutOfBoundsValueARM %i_m1
        %v1  = OpTensorReadARM %int %l1 %rc OutOfBoundsValueARM %i_m1
        %a0  = OpTensorQuerySizeARM %uint %l0 %u0
        %a1  = OpTensorQuerySizeARM %uint %l0 %u1
        %c0  = OpTensorQuerySizeARM %uint %l1 %u0
        %c1  = OpTensorQuerySizeARM %uint %l1 %u1
       %a10  = OpIMul %uint %a0 %u10
       %c10  = OpIMul %uint %c0 %u10
        %sa  = OpIAdd %uint %a10 %a1
        %sc  = OpIAdd %uint %c10 %c1
        %s0i = OpBitcast %int %sa
        %szi = OpBitcast %int %sc
        %b   = OpIMul %uint %i %u4
        %b1  = OpIAdd %uint %b %u1
        %b2  = OpIAdd %uint %b %u2
        %b3  = OpIAdd %uint %b %u3
        %p0  = OpAccessChain %pint %out %u0 %b
        %p1  = OpAccessChain %pint %out %u0 %b1
        %p2  = OpAccessChain %pint %out %u0 %b2
        %p3  = OpAccessChain %pint %out %u0 %b3
               OpStore %p0 %v0
               OpStore %p1 %v1
               OpStore %p2 %s0i
               OpStore %p3 %szi
        %w0  = OpIAdd %int %v0 %i1000
               OpTensorWriteARM %l0 %rc %w0
               OpTensorWriteARM %l1 %rc %i5555
               OpReturn
               OpFunctionEnd
"""


def tensor_shaped():
    a = (np.arange(12).reshape(3, 4) * 3 - 5).astype(np.int32)
    b = (np.arange(12).reshape(3, 4) * -7 + 2).astype(np.int32)
    out = []
    for i in range(12):
        r, c = divmod(i, 4)
        out += [int(a[r, c]), -1, 34, 34]
    case("tensor_shaped_asm", SHAPED_ASM,
         [tensor(0, tensor_el("i32", a, a + 1000, strides="padded")),
          tensor(1, tensor_el("i32", b, b)),
          buf(2, np.zeros(len(out), np.int32), out, dtype=np.int32)],
         [1, 1, 1], lang="spvasm")


tensor_shaped()

if __name__ == "__main__":
    write_all()
