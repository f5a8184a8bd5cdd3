"""Helpers shared by the case oracles (`cases/<name>/oracle.py`).

An oracle builds a module-level `case = Case("one-line description")`, adds one or more runs
(`case.run(...)`) whose bindings carry numpy arrays (or raw bytes) for the initial and expected
contents, and stops. `run.py` then writes the case: `case.json` and the `.bin` files it names.
Expected values are computed here in numpy / plain Python from the definitions, never by running
Tessera. See spirv-tests/README.md for the case.json format.
"""

import json
import os
import struct
import sys

import numpy as np

# Element formats: numpy storage type of the bit patterns. bfloat16 and float8 are stored as
# their bit patterns (ml_dtypes computes them).
FMT = {
    "bool": np.uint8,
    "u8": np.uint8,
    "i8": np.int8,
    "u16": np.uint16,
    "i16": np.int16,
    "f16": np.float16,
    "u32": np.uint32,
    "i32": np.int32,
    "f32": np.float32,
    "u64": np.uint64,
    "i64": np.int64,
    "f64": np.float64,
    "bf16": np.uint16,
    "e4m3": np.uint8,
    "e5m2": np.uint8,
}

_COMPARE_OF = {
    np.dtype(np.uint8): "u8",
    np.dtype(np.int8): "i8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.int16): "i16",
    np.dtype(np.float16): "f16",
    np.dtype(np.uint32): "u32",
    np.dtype(np.int32): "i32",
    np.dtype(np.float32): "f32",
    np.dtype(np.uint64): "u64",
    np.dtype(np.int64): "i64",
    np.dtype(np.float64): "f64",
}

_SIZE = {"bool": 1, "u8": 1, "i8": 1, "e4m3": 1, "e5m2": 1, "u16": 2, "i16": 2, "f16": 2,
         "bf16": 2, "u32": 4, "i32": 4, "f32": 4, "u64": 8, "i64": 8, "f64": 8}


# ---------------------------------------------------------------------------------------------
# Bindings
# ---------------------------------------------------------------------------------------------

def le(arr, dtype):
    """Little-endian bytes of `arr` converted to `dtype`."""
    return np.asarray(arr, dtype=dtype).astype(np.dtype(dtype).newbyteorder("<")).tobytes()


def _mask_bytes(mask, n):
    if mask is None:
        return None
    m = np.asarray(mask, dtype=bool).reshape(-1)
    assert m.size == n, (m.size, n)
    return None if m.all() else m.astype(np.uint8).tobytes()


# VkComponentTypeKHR and VkCooperativeVectorMatrixLayoutNV values
COMPONENT = {"f16": 0, "f32": 1, "f64": 2, "i8": 3, "i16": 4, "i32": 5, "i64": 6, "u8": 7,
             "u16": 8, "u32": 9, "u64": 10, "e4m3": 1000491002, "e5m2": 1000491003}
LAYOUT = {"row": 0, "col": 1, "inferencing": 2, "training": 3}


def matrix(binding, src_at, rows, cols, component, src_stride, layout, dst_at, capacity,
           dst_stride=0, set=0):
    """A cooperative-vector matrix the backend converts before the dispatch (with
    vkConvertCooperativeVectorMatrixNV through the loader): the row-major matrix at byte `src_at`
    of buffer binding `binding` becomes `layout` ("row", "col", "inferencing", "training") at
    byte `dst_at`, which has `capacity` bytes of room."""
    d = {"binding": [set, binding], "src_at": src_at, "src_stride": src_stride, "rows": rows,
         "cols": cols, "component": COMPONENT[component], "layout": LAYOUT[layout],
         "dst_at": dst_at, "capacity": capacity}
    if dst_stride:
        d["dst_stride"] = dst_stride
    return d


def address(of, at, into=None, add=0, set=0):
    """A device address the backend writes before the dispatch: that of buffer binding `of`
    (in `set`) plus `add`, as a little-endian u64 at byte `at` of the push constants, or of
    buffer binding `into` (in `set`) when given. The buffer's initial contents hold zeros there."""
    d = {"at": at, "of": [set, of]}
    if into is not None:
        d["into"] = [set, into]
    if add:
        d["add"] = add
    return d


def buf(binding, init, expect=None, dtype=np.uint32, tol=0.0, set=0, uniform=False,
        compare=None, mask=None, unordered=None, range=None):
    """A buffer binding. `init` / `expect`: arrays (converted to `dtype`) or raw bytes.

    mask       one flag per element of `expect` (in `compare` units): False = not compared
    unordered  (first, end): elements first..end-1 are compared as a multiset
    range      the descriptor's range in bytes, when it covers only the start of the memory
    """
    ib = bytes(init) if isinstance(init, (bytes, bytearray)) else le(init, dtype)
    eb = None
    if expect is not None:
        eb = bytes(expect) if isinstance(expect, (bytes, bytearray)) else le(expect, dtype)
        assert len(eb) == len(ib), (len(eb), len(ib))
    compare = compare or _COMPARE_OF[np.dtype(dtype)]
    el = {"init": ib, "expect": eb, "compare": compare, "tolerance": tol,
          "mask": _mask_bytes(mask, len(ib) // _SIZE[compare]) if mask is not None else None}
    if unordered is not None:
        el["unordered"] = list(unordered)
    if range is not None:
        el["range"] = range
    return {"set": set, "binding": binding,
            "kind": "uniform_buffer" if uniform else "storage_buffer", "elements": [el]}


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
    """The strided footprint `strides[0] * dims[0]` of `arr`, padding bytes set to `fill`."""
    arr = np.asarray(arr)
    es = arr.dtype.itemsize
    dims = arr.shape
    out = np.full(strides[0] * dims[0], fill, np.uint8)
    offsets = np.zeros(dims, np.int64)
    for k, (d, st) in enumerate(zip(dims, strides)):
        shape = [1] * len(dims)
        shape[k] = d
        offsets = offsets + (np.arange(d, dtype=np.int64) * st).reshape(shape)
    assert sys.byteorder == "little"
    data = np.ascontiguousarray(arr).view(np.uint8).reshape(*dims, es)
    for b in range(es):
        out[offsets + b] = data[..., b]
    return out.tobytes()


def tensor_el(fmt, init, expect=None, strides="packed", tiling="linear", tol=0.0, fill=0xA5,
              compare=None, pad=3):
    """One tensor descriptor. `strides`: "packed", "padded" (`pad` elements of padding on every
    outer stride) or explicit byte strides. `compare` defaults to the format."""
    dtype = FMT[fmt]
    init = np.asarray(init, dtype=dtype)
    dims = list(init.shape)
    es = np.dtype(dtype).itemsize
    if tiling == "optimal":
        assert strides == "packed"
    if strides == "packed":
        st = packed_strides(dims, es)
    elif strides == "padded":
        st = padded_strides(dims, es, pad)
    else:
        st = list(strides)
    return {
        "format": fmt, "dims": dims, "strides": None if strides == "packed" else st,
        "tiling": tiling, "init": tensor_mem(init, st, fill),
        "expect": None if expect is None else tensor_mem(np.asarray(expect, dtype=dtype), st, fill),
        "compare": compare or fmt, "tolerance": tol, "mask": None,
    }


def tensor(binding, *elements, set=0):
    """A tensor binding: one element per descriptor (an array of tensors has several)."""
    return {"set": set, "binding": binding, "kind": "tensor", "elements": list(elements)}


# ---------------------------------------------------------------------------------------------
# The case
# ---------------------------------------------------------------------------------------------

CASE_DIR = None  # set by run.py to the case folder being generated


class Case:
    def __init__(self, description, shaders=None):
        """`shaders`: list of `shader(...)` builds; by default `shader.spv` from the case's
        `shader.comp` (glslc) or `shader.spvasm` (spirv-as)."""
        assert "\n" not in description
        self.description = description
        if shaders is None:
            shaders = [shader("shader.spv", _default_source())]
        self.shaders = shaders
        self.runs = []

    def run(self, dispatch, bindings, name=None, shader="shader.spv", entry="main", push=None,
            spec=(), base=None, addresses=(), matrices=()):
        """One dispatch: `dispatch` workgroup counts (from workgroup `base`, default 0), push
        constant bytes, specialization constants as (id, size, little-endian value) triples,
        device addresses the backend writes before the dispatch (see `address`)."""
        assert shader in [s["spv"] for s in self.shaders], shader
        self.runs.append(dict(name=name, shader=shader, entry=entry, dispatch=list(dispatch),
                              base=None if base is None else list(base), push=push,
                              spec=list(spec), bindings=bindings, addresses=list(addresses),
                              matrices=list(matrices)))

    def write(self, out):
        """Writes case.json and the .bin files into the folder `out`."""
        assert self.runs, "a case needs at least one run"
        names = [r["name"] for r in self.runs]
        if len(self.runs) > 1:
            assert all(names) and len(set(names)) == len(names), names
        os.makedirs(out, exist_ok=True)
        desc = {"description": self.description, "shaders": self.shaders, "runs": []}
        for r in self.runs:
            prefix = f"{r['name']}/" if len(self.runs) > 1 else ""
            files = {}  # contents -> file name, so identical contents share a file

            def put(name, data):
                if data in files:
                    return files[data]
                path = os.path.join(out, prefix + name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(data)
                files[data] = prefix + name
                return prefix + name

            jr = {}
            if r["name"]:
                jr["name"] = r["name"]
            jr["shader"] = r["shader"]
            jr["entry"] = r["entry"]
            jr["dispatch"] = r["dispatch"]
            if r["base"] is not None:
                jr["base"] = r["base"]
            if r["push"] is not None:
                jr["push"] = put("push.bin", bytes(r["push"]))
            if r["spec"]:
                jr["spec"] = [{"id": i, "size": s, "value": v} for i, s, v in r["spec"]]
            if r["addresses"]:
                jr["addresses"] = r["addresses"]
            if r["matrices"]:
                jr["matrices"] = r["matrices"]
            jr["bindings"] = []
            for b in r["bindings"]:
                jb = {"set": b["set"], "binding": b["binding"], "kind": b["kind"], "elements": []}
                for k, el in enumerate(b["elements"]):
                    stem = f"s{b['set']}b{b['binding']}"
                    if len(b["elements"]) > 1:
                        stem += f"_{k}"
                    je = {}
                    init = el["init"]
                    if len(set(init)) == 1:
                        # Uniform contents need no file.
                        je["size"] = len(init)
                        if init[0] != 0:
                            je["fill"] = init[0]
                    else:
                        je["init"] = put(stem + ".init.bin", init)
                    if el["expect"] is not None:
                        je["expect"] = put(stem + ".expect.bin", el["expect"])
                    if el.get("mask") is not None:
                        je["mask"] = put(stem + ".mask.bin", el["mask"])
                    for key in ("unordered", "range"):
                        if el.get(key) is not None:
                            je[key] = el[key]
                    je["compare"] = el["compare"]
                    if el["tolerance"]:
                        je["tolerance"] = el["tolerance"]
                    for key in ("format", "dims", "strides"):
                        if el.get(key) is not None:
                            je[key] = el[key]
                    if el.get("tiling", "linear") != "linear":
                        je["tiling"] = el["tiling"]
                    jb["elements"].append(je)
                jr["bindings"].append(jb)
            desc["runs"].append(jr)
        with open(os.path.join(out, "case.json"), "w") as f:
            f.write(_dumps(desc) + "\n")


def _dumps(v, indent=""):
    """JSON with one key per line and lists of numbers or strings on one line."""
    inner = indent + " "
    if isinstance(v, dict):
        items = [f"{inner}{json.dumps(k)}: {_dumps(x, inner)}" for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}" if items else "{}"
    if isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v):
        return "[\n" + ",\n".join(inner + _dumps(x, inner) for x in v) + "\n" + indent + "]"
    return json.dumps(v)


def shader(spv, source=None, defines=None, optimize=None, target_env=None):
    """A SPIR-V build: `spv` from `source` (`.comp`: glslc with `defines` prepended after the
    `#version` line; `.spvasm`: spirv-as), or from the case's SPIR-V file `optimize` through
    `spirv-opt -O`. `target_env` (spirv-as / spirv-val) defaults to vulkan1.3."""
    s = {"spv": spv}
    assert (source is None) != (optimize is None)
    if source is not None:
        s["source"] = source
    if defines:
        s["defines"] = dict(defines)
    if optimize is not None:
        s["optimize"] = optimize
    if target_env is not None:
        s["target_env"] = target_env
    return s


def _default_source():
    found = [f for f in ("shader.comp", "shader.spvasm")
             if os.path.exists(os.path.join(CASE_DIR, f))]
    assert len(found) == 1, f"{CASE_DIR}: need exactly one of shader.comp, shader.spvasm"
    return found[0]


# ---------------------------------------------------------------------------------------------
# Arithmetic helpers
# ---------------------------------------------------------------------------------------------

def wrap(v, bits, signed):
    """`v` wrapped to a `bits`-wide (un)signed integer."""
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def tdiv(a, b):
    """Truncating division (OpSDiv)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def srem(a, b):
    """OpSRem: the sign of the dividend."""
    return a - b * tdiv(a, b)


def smod(a, b):
    """OpSMod: the sign of the divisor."""
    r = srem(a, b)
    return r + b if r != 0 and (r < 0) != (b < 0) else r


def f32bits(v):
    """The bit pattern of `v` rounded to float32."""
    return struct.unpack("<I", struct.pack("<f", v))[0]


def f32(v):
    """The float32 with bit pattern `v`."""
    return np.array([v], np.uint32).view(np.float32)[0]


def int_to_f32(v):
    """The integer `v` correctly rounded (to nearest, ties to even) to float32, as Rust's
    `v as f32` and OpConvert[SU]ToF do (going through float64 would round twice)."""
    m = abs(v)
    e = max(m.bit_length() - 24, 0)
    q, r = divmod(m, 1 << e)
    if e and (r > 1 << (e - 1) or (r == 1 << (e - 1) and q & 1)):
        q += 1
    return np.float32(np.copysign(float(q << e), v))


class Rng:
    """The xorshift64 generator of the old Rust tests (`Rng(seed).next()`)."""

    def __init__(self, seed):
        self.s = seed

    def next(self):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFFFFFFFFFF
        s ^= s >> 7
        s ^= (s << 17) & 0xFFFFFFFFFFFFFFFF
        self.s = s
        return s


# ---------------------------------------------------------------------------------------------
# Subgroups: Tessera's subgroup is 32 consecutive invocations of one workgroup
# ---------------------------------------------------------------------------------------------

SUBGROUP_SIZE = 32


def subgroups(wgs, nwg):
    """The subgroups (lists of global invocation indices) of `nwg` workgroups of `wgs`."""
    return [list(range(w * wgs + s, w * wgs + min(s + SUBGROUP_SIZE, wgs)))
            for w in range(nwg) for s in range(0, wgs, SUBGROUP_SIZE)]


def ballot(sg, pred):
    """The ballot (bit k = subgroup position k) of the invocations of `sg` for which `pred`."""
    return sum(1 << k for k, g in enumerate(sg) if pred(g))


def spec_size(x, y=1):
    """Specialization constants 0 and 1: the workgroup size (local_size_x_id, local_size_y_id)."""
    return [(0, 4, x), (1, 4, y)]
