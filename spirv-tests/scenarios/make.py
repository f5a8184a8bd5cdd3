#!/usr/bin/env python3
"""Regenerates the scenario-runner scenarios in this folder.

Run by hand (CI only runs the committed files):

    python3 spirv-tests/scenarios/make.py            # every scenario
    python3 spirv-tests/scenarios/make.py tosa_conv2d_i8 ...   # some of them

For each scenario folder it
  * compiles every `*.comp` to `*.spv` with the GL_ARM_tensors-aware `glslc` shipped in the
    `ai-ml-sdk-scenario-runner` wheel,
  * converts `graph.mlir` (TOSA) to `graph.vgf` with `model-converter`
    (`pip install ai-ml-sdk-model-converter`); the conv2d graph's MLIR is written here first,
    because its constant weights come from the same seeded generator as the expected output,
  * writes the inputs `in_*.npy` (small, seeded), the expected outputs `expected/out_*.npy`
    computed independently with numpy, and `scenario.json`.

Two scenarios take their expected outputs from Arm's TOSA reference model instead of numpy:
`tosa_int8_cnn_block` and `tosa_attention_f32` (see `tosa_reference`). Their `graph.mlir` is
written here (seeded constant weights), serialized to a TOSA flatbuffer with `tosa-opt
--tosa-serialize` and run by `tosa_reference_model` (normal mode, not fp64 precise mode) on the
same inputs. Regenerating them needs tosa-tools (`tosa-opt`, `tosa_reference_model`) on PATH
besides model-converter; `cargo xtask conformance` installs all of them into
`target/tosa-venv`:

    PATH=$PWD/target/tosa-venv/bin:$PATH \
        python3 spirv-tests/scenarios/make.py tosa_int8_cnn_block tosa_attention_f32

Output file names: every `dst` in a scenario is `out_<name>.npy`, written by scenario-runner into
its `--output` folder; `crates/e2e/tests/scenario_runner.rs` compares each with
`expected/out_<name>.npy`. Buffers come back from scenario-runner as raw int8 bytes, so their
expected files carry the real element type and the test reinterprets the bytes.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

FORMATS = {
    np.dtype(np.bool_): "VK_FORMAT_R8_BOOL_ARM",
    np.dtype(np.int8): "VK_FORMAT_R8_SINT",
    np.dtype(np.uint8): "VK_FORMAT_R8_UINT",
    np.dtype(np.int16): "VK_FORMAT_R16_SINT",
    np.dtype(np.uint16): "VK_FORMAT_R16_UINT",
    np.dtype(np.int32): "VK_FORMAT_R32_SINT",
    np.dtype(np.uint32): "VK_FORMAT_R32_UINT",
    np.dtype(np.int64): "VK_FORMAT_R64_SINT",
    np.dtype(np.float16): "VK_FORMAT_R16_SFLOAT",
    np.dtype(np.float32): "VK_FORMAT_R32_SFLOAT",
}


def tool(name):
    """Path of `glslc` (next to scenario-runner in its wheel) or `model-converter`."""
    if name == "glslc":
        import scenario_runner

        return os.path.join(os.path.dirname(scenario_runner.__file__), "binaries", "bin", "glslc")
    path = shutil.which(name)
    if path is None:
        if name in ("tosa-opt", "tosa_reference_model"):
            sys.exit(f"{name} not found: put tosa-tools on PATH (cargo xtask conformance installs "
                     "them into target/tosa-venv)")
        sys.exit(f"{name} not found: pip install ai-ml-sdk-model-converter")
    return path


class Scenario:
    def __init__(self, name, seed):
        self.name = name
        self.dir = os.path.join(HERE, name)
        self.rng = np.random.default_rng(seed)
        self.resources = []
        self.commands = []
        os.makedirs(os.path.join(self.dir, "expected"), exist_ok=True)
        for f in os.listdir(os.path.join(self.dir, "expected")):
            os.remove(os.path.join(self.dir, "expected", f))
        for f in os.listdir(self.dir):
            if f.endswith(".npy"):
                os.remove(os.path.join(self.dir, f))

    # ------------------------------------------------------------------ files
    def save_input(self, name, arr):
        np.save(os.path.join(self.dir, f"in_{name}.npy"), arr)
        return f"in_{name}.npy"

    def expect(self, name, arr):
        np.save(os.path.join(self.dir, "expected", f"out_{name}.npy"), arr)
        return f"out_{name}.npy"

    # -------------------------------------------------------------- resources
    def shader(self, uid, comp, **extra):
        src = os.path.join(self.dir, comp)
        spv = comp[: -len(".comp")] + ".spv"
        subprocess.run(
            [tool("glslc"), "--input", src, "--output", os.path.join(self.dir, spv)], check=True
        )
        self.resources.append({"shader": {"uid": uid, "src": spv, "type": "SPIR-V", **extra}})

    def graph(self, uid="graph"):
        subprocess.run(
            [tool("model-converter"), "--input", os.path.join(self.dir, "graph.mlir"),
             "--output", os.path.join(self.dir, "graph.vgf")],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.resources.append({"graph": {"uid": uid, "src": "graph.vgf"}})

    def tensor_in(self, uid, arr, access="readonly"):
        self.resources.append({"tensor": {
            "uid": uid, "dims": list(arr.shape), "format": FORMATS[arr.dtype],
            "shader_access": access, "src": self.save_input(uid, arr)}})

    def tensor_out(self, uid, expected):
        self.resources.append({"tensor": {
            "uid": uid, "dims": list(expected.shape), "format": FORMATS[expected.dtype],
            "shader_access": "writeonly", "dst": self.expect(uid, expected)}})

    def tensor_tmp(self, uid, shape, dtype):
        self.resources.append({"tensor": {
            "uid": uid, "dims": list(shape), "format": FORMATS[np.dtype(dtype)],
            "shader_access": "readwrite"}})

    def buffer_in(self, uid, arr):
        self.resources.append({"buffer": {
            "uid": uid, "size": arr.nbytes, "shader_access": "readonly",
            "src": self.save_input(uid, arr)}})

    def buffer_out(self, uid, expected):
        self.resources.append({"buffer": {
            "uid": uid, "size": expected.nbytes, "shader_access": "writeonly",
            "dst": self.expect(uid, expected)}})

    def buffer_tmp(self, uid, size):
        self.resources.append({"buffer": {"uid": uid, "size": size, "shader_access": "readwrite"}})

    def raw_data(self, uid, arr):
        self.resources.append({"raw_data": {"uid": uid, "src": self.save_input(uid, arr)}})

    def barrier(self, kind, uid, target_key=None, target=None, **extra):
        body = {"uid": uid, "src_access": "compute_shader_write", "dst_access": "compute_shader_read",
                "src_stage": ["compute"], "dst_stage": ["compute"], **extra}
        if target_key:
            body[target_key] = target
        self.resources.append({kind: body})

    # --------------------------------------------------------------- commands
    def dispatch(self, shader, refs, groups, push=None, implicit_barrier=True):
        """`refs`: list of (set, binding, resource uid)."""
        cmd = {"shader_ref": shader, "rangeND": list(groups),
               "bindings": [{"set": s, "id": b, "resource_ref": r} for s, b, r in refs]}
        if push:
            cmd["push_data_ref"] = push
        if not implicit_barrier:
            cmd["implicit_barrier"] = False
        self.commands.append({"dispatch_compute": cmd})

    def dispatch_graph(self, refs):
        self.commands.append({"dispatch_vgf": {
            "graph_ref": "graph",
            "bindings": [{"set": s, "id": b, "resource_ref": r} for s, b, r in refs]}})

    def pipeline_barrier(self, **refs):
        # scenario-runner 0.11 wants all four lists ("dispatch_barrier" is its deprecated name).
        body = {k: [] for k in ("memory_barrier_refs", "buffer_barrier_refs",
                                "tensor_barrier_refs", "image_barrier_refs")}
        body.update(refs)
        self.commands.append({"pipeline_barrier": body})

    def write(self):
        with open(os.path.join(self.dir, "scenario.json"), "w") as f:
            json.dump({"resources": self.resources, "commands": self.commands}, f, indent=2)
            f.write("\n")


def wrap(arr, dtype):
    """Integer arithmetic modulo 2^bits, as the shaders do it."""
    return arr.astype(np.int64).astype(dtype)


# ---------------------------------------------------------------------- scenarios


def tensor_add_mul_i8_rank4(s):
    a = s.rng.integers(-128, 128, (2, 3, 4, 6), dtype=np.int8)
    b = s.rng.integers(-128, 128, (2, 3, 4, 6), dtype=np.int8)
    s.shader("add_mul", "add_mul.comp")
    s.tensor_in("a", a)
    s.tensor_in("b", b)
    s.tensor_out("sum", wrap(a.astype(np.int64) + b, np.int8))
    s.tensor_out("prod", wrap(a.astype(np.int64) * b, np.int8))
    s.dispatch("add_mul", [(0, 0, "a"), (0, 1, "b"), (0, 2, "sum"), (0, 3, "prod")], [2, 2, 6])


def tensor_axpy_f32_push_constants(s):
    x = s.rng.standard_normal((6, 20)).astype(np.float32)
    y = s.rng.standard_normal(6).astype(np.float32)
    alpha, beta, row_offset = np.float32(1.5), np.float32(-0.75), 2
    push = np.array([alpha, beta], dtype=np.float32).view(np.uint32)
    push = np.concatenate([push, np.array([row_offset], dtype=np.uint32)])
    s.shader("axpy", "axpy.comp", push_constants_size=push.nbytes)
    s.raw_data("params", push)
    s.tensor_in("x", x)
    s.tensor_in("y", y)
    yrow = y[(np.arange(6) + row_offset) % 6][:, None]
    s.tensor_out("o", (alpha * x + beta * yrow).astype(np.float32))
    # 8x4 workgroups over 20 columns x 6 rows: 3 x 2 groups, the last ones partly outside.
    s.dispatch("axpy", [(0, 0, "x"), (0, 1, "y"), (0, 2, "o")], [3, 2, 1], push="params")


def tensor_f16_rank3(s):
    a = (s.rng.uniform(-4, 4, (3, 2, 16))).astype(np.float16)
    b = (s.rng.uniform(-4, 4, (3, 2, 16))).astype(np.float16)
    s.shader("f16", "f16.comp")
    s.tensor_in("a", a)
    s.tensor_in("b", b)
    s.tensor_out("h", ((a * b).astype(np.float16) + a).astype(np.float16))
    s.tensor_out("f", a.astype(np.float32) - b.astype(np.float32))
    s.dispatch("f16", [(0, 0, "a"), (0, 1, "b"), (0, 2, "h"), (0, 3, "f")], [2, 2, 3])


def tensor_bool_select(s):
    a = s.rng.integers(-50, 50, 64, dtype=np.int32)
    b = s.rng.integers(-50, 50, 64, dtype=np.int32)
    b[::7] = a[::7]  # some ties
    mask = s.rng.integers(0, 2, 64).astype(np.bool_)
    s.shader("select", "select.comp")
    s.tensor_in("a", a)
    s.tensor_in("b", b)
    s.tensor_in("mask", mask)
    gt = a > b
    s.tensor_out("gt", gt)
    s.tensor_out("sel", np.where(mask, a, b).astype(np.int32))
    s.tensor_out("differ", gt != mask)
    s.dispatch("select", [(0, 0, "a"), (0, 1, "b"), (0, 2, "mask"), (0, 3, "gt"), (0, 4, "sel"),
                          (0, 5, "differ")], [4, 1, 1])


def tensor_transpose_i32_sizes(s):
    src = s.rng.integers(-(2**28), 2**28, (5, 7), dtype=np.int32)
    s.shader("transpose", "transpose.comp")
    s.tensor_in("src", src)
    rows = np.arange(5, dtype=np.int32)[:, None]
    s.tensor_out("dst", (src * 3 - rows).T.copy())
    s.tensor_out("sizes", np.array([5, 7, 7, 5], dtype=np.uint32))
    s.dispatch("transpose", [(0, 0, "src"), (0, 1, "dst"), (0, 2, "sizes")], [1, 1, 1])


def buffer_saxpy_spec_constants(s):
    n_total, n, a = 80, 70, 2.5
    x = s.rng.standard_normal(n_total).astype(np.float32)
    y = s.rng.standard_normal(n_total).astype(np.float32)
    s.shader("saxpy", "saxpy.comp", specialization_constants=[
        {"id": 0, "value": a}, {"id": 1, "value": n}, {"id": 2, "value": 16}])
    s.buffer_in("x", x)
    s.buffer_in("y", y)
    out = np.full(n_total, -1.0, dtype=np.float32)
    out[:n] = np.float32(a) * x[:n] + y[:n]
    s.buffer_out("o", out)
    s.dispatch("saxpy", [(0, 0, "x"), (0, 1, "y"), (0, 2, "o")], [5, 1, 1])


def buffer_two_dispatch_barrier(s):
    n = 256
    src = s.rng.integers(0, 2**32, n, dtype=np.uint32)
    mid = ((src.astype(np.uint64) * src + np.arange(n, dtype=np.uint64)) % 2**32).astype(np.uint32)
    s.shader("square", "square.comp")
    s.shader("mirror", "mirror.comp")
    s.buffer_in("src", src)
    s.buffer_tmp("mid", mid.nbytes)
    s.buffer_out("out", mid ^ (mid[::-1] >> 1))
    s.barrier("buffer_barrier", "mid_barrier", "buffer_resource", "mid", size=mid.nbytes, offset=0)
    s.dispatch("square", [(0, 0, "src"), (0, 1, "mid")], [n // 16, 1, 1], implicit_barrier=False)
    s.pipeline_barrier(buffer_barrier_refs=["mid_barrier"])
    s.dispatch("mirror", [(0, 0, "mid"), (0, 1, "out")], [n // 16, 1, 1])


def tensor_chain_i16_u16_barriers(s):
    shape = (3, 4, 8)
    a = s.rng.integers(-(2**15), 2**15, shape, dtype=np.int16)
    t = wrap(a.astype(np.int64) + 7, np.int16)
    u = wrap(t[::-1, ::-1, ::-1].view(np.uint16).astype(np.int64) * 3, np.uint16)
    o = wrap(u.view(np.int16).astype(np.int64) - a, np.int16)
    s.shader("step1", "step1_add.comp")
    s.shader("step2", "step2_reverse.comp")
    s.shader("step3", "step3_sub.comp")
    s.tensor_in("a", a)
    s.tensor_tmp("t", shape, np.int16)
    s.tensor_tmp("u", shape, np.uint16)
    s.tensor_out("o", o)
    s.barrier("tensor_barrier", "t_barrier", "tensor_resource", "t")
    s.barrier("memory_barrier", "all_barrier")
    groups = [shape[2] // 4, shape[1] // 4, shape[0]]
    s.dispatch("step1", [(0, 0, "a"), (0, 1, "t")], groups, implicit_barrier=False)
    s.pipeline_barrier(tensor_barrier_refs=["t_barrier"])
    s.dispatch("step2", [(0, 0, "t"), (0, 1, "u")], groups, implicit_barrier=False)
    s.pipeline_barrier(memory_barrier_refs=["all_barrier"])
    s.dispatch("step3", [(0, 0, "u"), (0, 1, "a"), (0, 2, "o")], groups)


def tensor_rowsum_f32_to_buffer(s):
    src = s.rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    s.shader("rowsum", "rowsum.comp")
    s.tensor_in("src", src)
    rows = src.reshape(-1, 5)
    sums = np.zeros(rows.shape[0], dtype=np.float32)
    for k in range(5):  # the shader's order of additions
        sums = (sums + rows[:, k]).astype(np.float32)
    s.buffer_out("sums", sums)
    s.buffer_out("maxes", rows.max(axis=1).astype(np.float32))
    s.dispatch("rowsum", [(0, 0, "src"), (0, 1, "sums"), (1, 0, "maxes")], [3, 1, 1])


def buffer_u8_to_tensor(s):
    data = s.rng.integers(0, 256, 48, dtype=np.uint8)
    s.shader("u8", "u8.comp")
    s.buffer_in("bytes", data)
    s.tensor_out("o", (data ^ 0x5A).reshape(6, 8))
    r, c = np.meshgrid(np.arange(6), np.arange(8), indexing="ij")
    wg = (r // 2) * 2 + (c // 4)
    local = (r % 2) * 4 + (c % 4)
    s.tensor_out("ids", (100 * wg + local).astype(np.int32))
    s.dispatch("u8", [(0, 0, "bytes"), (0, 1, "o"), (0, 2, "ids")], [2, 3, 1])


def tensor_i64_arith(s):
    n = 32
    a = s.rng.integers(-(2**40), 2**40, n, dtype=np.int64)
    b = s.rng.integers(-(2**30), 2**30, n, dtype=np.int64)
    c = s.rng.integers(-(2**62), 2**62, n, dtype=np.int64)
    a[0], b[0] = 2**40 - 1, 2**30 - 1  # the largest product, still in range
    a[1], b[1] = -(2**40), 2**30 - 1
    s.shader("i64", "i64.comp")
    s.tensor_in("a", a)
    s.tensor_in("b", b)
    s.tensor_in("c", c)
    with np.errstate(over="ignore"):
        s.tensor_out("o", a * b + c)  # numpy int64 wraps like the shader
    s.tensor_out("s", (a >> 3) ^ b)
    s.tensor_out("m", np.mod(a, 1000003))  # OpSMod: sign of the divisor, like numpy's %
    trunc = np.where(a >= 0, a // 1000003, -((-a) // 1000003))
    s.tensor_out("q", -trunc)  # OpSDiv by -1000003 truncates toward zero
    s.dispatch("i64", [(0, 0, "a"), (0, 1, "b"), (0, 2, "c"), (0, 3, "o"), (0, 4, "s"),
                       (0, 5, "m"), (0, 6, "q")], [n // 8, 1, 1])


def shared_memory_reverse_reduce(s):
    src = s.rng.integers(0, 2**32, (4, 64), dtype=np.uint32)
    s.shader("shared", "shared.comp")
    s.tensor_in("src", src)
    s.tensor_out("rev", src[:, ::-1].copy())
    s.tensor_out("sums", (src.astype(np.uint64).sum(axis=1) % 2**32).astype(np.uint32))
    s.dispatch("shared", [(0, 0, "src"), (0, 1, "rev"), (0, 2, "sums")], [4, 1, 1])


def tosa_add_relu_f32(s):
    a = s.rng.standard_normal((1, 4, 4, 3)).astype(np.float32)
    b = s.rng.standard_normal((1, 1, 1, 3)).astype(np.float32)
    s.graph()
    s.tensor_in("a", a)
    s.tensor_in("b", b)
    s.tensor_out("o", np.maximum(a + b, np.float32(0)))
    # model-converter numbers the graph's inputs, then its outputs, from binding 0 of set 0.
    s.dispatch_graph([(0, 0, "a"), (0, 1, "b"), (0, 2, "o")])


def tosa_matmul_transpose_f32(s):
    a = s.rng.standard_normal((2, 4, 8)).astype(np.float32)
    b = s.rng.standard_normal((2, 8, 3)).astype(np.float32)
    s.graph()
    s.tensor_in("a", a)
    s.tensor_in("b", b)
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64)).transpose(0, 2, 1)
    s.tensor_out("o", ref.astype(np.float32))
    s.dispatch_graph([(0, 0, "a"), (0, 1, "b"), (0, 2, "o")])


def tosa_pool_reduce_f16(s):
    x = s.rng.uniform(-4, 4, (1, 8, 8, 4)).astype(np.float16)
    s.graph()
    s.tensor_in("x", x)
    pooled = x.reshape(1, 4, 2, 4, 2, 4).max(axis=(2, 4))
    s.tensor_out("pooled", pooled)
    # Summed exactly (float64), rounded once to float16; the test allows two float16 ulps.
    s.tensor_out("sums", x.astype(np.float64).sum(axis=3, keepdims=True).astype(np.float16))
    s.dispatch_graph([(0, 0, "x"), (0, 1, "pooled"), (0, 2, "sums")])


def tosa_int_ops_i32(s):
    shape = (2, 3, 4)
    a = s.rng.integers(-(2**15), 2**15, shape, dtype=np.int32)
    b = s.rng.integers(-(2**15), 2**15, shape, dtype=np.int32)  # |a * b| < 2^30: no overflow
    sh = s.rng.integers(0, 32, shape, dtype=np.int32)
    s.graph()
    s.tensor_in("a", a)
    s.tensor_in("b", b)
    s.tensor_in("s", sh)
    prod_xor = (a * b) ^ a
    s.tensor_out("prod_xor", prod_xor)
    s.tensor_out("col_max", prod_xor.max(axis=1, keepdims=True))
    s.tensor_out("stacked", np.concatenate([a, b[:, :, ::-1]], axis=0))
    a64, sh64 = a.astype(np.int64), sh.astype(np.int64)
    rounding = np.where(sh64 > 0, (a64 >> np.maximum(sh64 - 1, 0)) & 1, 0)
    s.tensor_out("shifted", ((a64 >> sh64) + rounding).astype(np.int32))
    s.dispatch_graph([(0, 0, "a"), (0, 1, "b"), (0, 2, "s"), (0, 3, "prod_xor"), (0, 4, "col_max"),
                      (0, 5, "stacked"), (0, 6, "shifted")])


def tosa_activations_f32(s):
    x = s.rng.uniform(-5, 5, (3, 16)).astype(np.float32)
    s.graph()
    s.tensor_in("x", x)
    x64 = x.astype(np.float64)
    sig = 1.0 / (1.0 + np.exp(-x64))
    th = np.tanh(x64)
    s.tensor_out("sig", sig.astype(np.float32))
    s.tensor_out("th", th.astype(np.float32))
    s.tensor_out("ex", np.exp(x64 * 0.5).astype(np.float32))
    s.tensor_out("rmax", (sig + th).max(axis=1, keepdims=True).astype(np.float32))
    s.dispatch_graph([(0, 0, "x"), (0, 1, "sig"), (0, 2, "th"), (0, 3, "ex"), (0, 4, "rmax")])


CONV_MLIR = """\
// TOSA graph: int8 conv2d with int32 accumulation, 3x3 kernel, stride 1, padding 1 and a
// non-zero input zero point. Written by make.py: the constant weights and bias come from the
// same seeded generator as the expected output.
// x: [1,6,6,2] int8 -> out: [1,6,6,4] int32.
module {{
  func.func @main(%x: tensor<1x6x6x2xi8>) -> tensor<1x6x6x4xi32> {{
    %w = "tosa.const"() <{{values = dense<{w}> : tensor<4x3x3x2xi8>}}> : () -> tensor<4x3x3x2xi8>
    %bias = "tosa.const"() <{{values = dense<{bias}> : tensor<4xi32>}}> : () -> tensor<4xi32>
    %izp = "tosa.const"() <{{values = dense<{izp}> : tensor<1xi8>}}> : () -> tensor<1xi8>
    %wzp = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
    %0 = tosa.conv2d %x, %w, %bias, %izp, %wzp {{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}} : (tensor<1x6x6x2xi8>, tensor<4x3x3x2xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x6x6x4xi32>
    return %0 : tensor<1x6x6x4xi32>
  }}
}}
"""


def tosa_conv2d_i8(s):
    izp = -3
    x = s.rng.integers(-128, 128, (1, 6, 6, 2), dtype=np.int8)
    w = s.rng.integers(-8, 8, (4, 3, 3, 2), dtype=np.int8)  # [OC, KH, KW, IC]
    bias = s.rng.integers(-1000, 1000, 4, dtype=np.int32)
    with open(os.path.join(s.dir, "graph.mlir"), "w") as f:
        f.write(CONV_MLIR.format(w=json.dumps(w.tolist()), bias=json.dumps(bias.tolist()),
                                 izp=izp))
    s.graph()
    s.tensor_in("x", x)
    # TOSA pads with the zero point, so padded taps contribute (zp - zp) = 0.
    xp = np.pad(x.astype(np.int64) - izp, ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.zeros((1, 6, 6, 4), dtype=np.int64)
    for ky in range(3):
        for kx in range(3):
            patch = xp[:, ky:ky + 6, kx:kx + 6, :]  # [1, 6, 6, IC]
            out += np.einsum("nyxi,oi->nyxo", patch, w[:, ky, kx, :].astype(np.int64))
    out += bias
    s.tensor_out("o", out.astype(np.int32))
    s.dispatch_graph([(0, 0, "x"), (0, 1, "o")])


def tosa_reference(s, inputs, count):
    """The outputs of `graph.mlir` on `inputs` (arrays in argument order) from Arm's TOSA
    reference model: `tosa-opt --tosa-serialize` writes the TOSA flatbuffer (its graph inputs are
    `TosaInput_<i>`, its outputs `TosaOutput_<i>`), `tosa_reference_model` runs it in normal
    (not fp64 precise) mode. Returns the `count` outputs in result order."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [tool("tosa-opt"), os.path.join(s.dir, "graph.mlir"),
             f"--tosa-serialize=tosa-flatbuffer-filename={os.path.join(tmp, 'graph.tosa')}",
             "-o", os.devnull],
            check=True,
        )
        for i, arr in enumerate(inputs):
            np.save(os.path.join(tmp, f"input_{i}.npy"), arr)
        desc = {
            "tosa_file": "graph.tosa",
            "ifm_name": [f"TosaInput_{i}" for i in range(len(inputs))],
            "ifm_file": [f"input_{i}.npy" for i in range(len(inputs))],
            "ofm_name": [f"TosaOutput_{i}" for i in range(count)],
            "ofm_file": [f"output_{i}.npy" for i in range(count)],
            "expected_failure": False,
        }
        with open(os.path.join(tmp, "desc.json"), "w") as f:
            json.dump(desc, f)
        r = subprocess.run([tool("tosa_reference_model"), "--test_desc",
                            os.path.join(tmp, "desc.json")], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"{s.name}: tosa_reference_model failed:\n{r.stdout}{r.stderr}")
        return [np.load(os.path.join(tmp, f)) for f in desc["ofm_file"]]


def dense(arr):
    """An MLIR `dense<...>` literal's value list."""
    return json.dumps(arr.tolist())


def quant_scale(scales):
    """TOSA rescale parameters (int32 multipliers in [2^30, 2^31), int8 shifts) of float scales."""
    mult, shift = [], []
    for scale in scales:
        m, e = np.frexp(scale)  # scale = m * 2^e, 0.5 <= m < 1
        mul, sh = int(round(m * 2**31)), 31 - int(e)
        if mul == 2**31:
            mul, sh = mul // 2, sh - 1
        assert 2 <= sh <= 62, scale
        mult.append(mul)
        shift.append(sh)
    return np.array(mult, dtype=np.int32), np.array(shift, dtype=np.int8)


def taps(x, k, pad):
    """The k x k neighbourhoods of every position of `x` [N,H,W,C] (stride 1, `pad` zeros on each
    side): [N,H,W,k,k,C]."""
    h, w = x.shape[1:3]
    xp = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    return np.stack([np.stack([xp[:, i:i + h, j:j + w] for j in range(k)], 3) for i in range(k)], 3)


INT8_CNN_MLIR = """\
// TOSA graph: an int8 CNN block. Written by make.py: the weights, biases, rescale parameters and
// the table are seeded constants; the expected outputs come from Arm's TOSA reference model.
//   conv2d 3x3 pad 1 (input zp -128, int32 bias and accumulator) -> rescale (per channel,
//   DOUBLE_ROUND, output zp -128) -> clamp [-110, 100] -> depthwise_conv2d 3x3 pad 1, multiplier
//   2 (input zp -128, weight zp 2) -> rescale (per channel, output zp 5) -> avg_pool2d 3x3
//   stride 2, pad top/left 1 (input zp 5, output zp -3) = pooled -> reshape to [1,1,1,256] ->
//   conv2d 1x1 as a fully-connected layer (input zp -3) -> rescale (per channel, output zp 3) ->
//   table (256 entries) = o.
// x: [1,8,8,4] int8 -> pooled: [1,4,4,16] int8, o: [1,1,1,16] int8.
module {{
  func.func @main(%x: tensor<1x8x8x4xi8>) -> (tensor<1x4x4x16xi8>, tensor<1x1x1x16xi8>) {{
    %w1 = "tosa.const"() <{{values = dense<{w1}> : tensor<8x3x3x4xi8>}}> : () -> tensor<8x3x3x4xi8>
    %b1 = "tosa.const"() <{{values = dense<{b1}> : tensor<8xi32>}}> : () -> tensor<8xi32>
    %m1 = "tosa.const"() <{{values = dense<{m1}> : tensor<8xi32>}}> : () -> tensor<8xi32>
    %s1 = "tosa.const"() <{{values = dense<{s1}> : tensor<8xi8>}}> : () -> tensor<8xi8>
    %w2 = "tosa.const"() <{{values = dense<{w2}> : tensor<3x3x8x2xi8>}}> : () -> tensor<3x3x8x2xi8>
    %b2 = "tosa.const"() <{{values = dense<{b2}> : tensor<16xi32>}}> : () -> tensor<16xi32>
    %m2 = "tosa.const"() <{{values = dense<{m2}> : tensor<16xi32>}}> : () -> tensor<16xi32>
    %s2 = "tosa.const"() <{{values = dense<{s2}> : tensor<16xi8>}}> : () -> tensor<16xi8>
    %w3 = "tosa.const"() <{{values = dense<{w3}> : tensor<16x1x1x256xi8>}}> : () -> tensor<16x1x1x256xi8>
    %b3 = "tosa.const"() <{{values = dense<{b3}> : tensor<16xi32>}}> : () -> tensor<16xi32>
    %m3 = "tosa.const"() <{{values = dense<{m3}> : tensor<16xi32>}}> : () -> tensor<16xi32>
    %s3 = "tosa.const"() <{{values = dense<{s3}> : tensor<16xi8>}}> : () -> tensor<16xi8>
    %table = "tosa.const"() <{{values = dense<{table}> : tensor<256xi8>}}> : () -> tensor<256xi8>
    %zp_m128 = "tosa.const"() <{{values = dense<-128> : tensor<1xi8>}}> : () -> tensor<1xi8>
    %zp_0 = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
    %zp_2 = "tosa.const"() <{{values = dense<2> : tensor<1xi8>}}> : () -> tensor<1xi8>
    %zp_5 = "tosa.const"() <{{values = dense<5> : tensor<1xi8>}}> : () -> tensor<1xi8>
    %zp_m3 = "tosa.const"() <{{values = dense<-3> : tensor<1xi8>}}> : () -> tensor<1xi8>
    %zp_3 = "tosa.const"() <{{values = dense<3> : tensor<1xi8>}}> : () -> tensor<1xi8>
    %zp_acc = "tosa.const"() <{{values = dense<0> : tensor<1xi32>}}> : () -> tensor<1xi32>
    %shape = tosa.const_shape {{values = dense<[1, 1, 1, 256]> : tensor<4xindex>}} : () -> !tosa.shape<4>
    %0 = tosa.conv2d %x, %w1, %b1, %zp_m128, %zp_0 {{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}} : (tensor<1x8x8x4xi8>, tensor<8x3x3x4xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi32>
    %1 = tosa.rescale %0, %m1, %s1, %zp_acc, %zp_m128 {{scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = true, input_unsigned = false, output_unsigned = false}} : (tensor<1x8x8x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x8xi8>
    %2 = tosa.clamp %1 {{min_val = -110 : i8, max_val = 100 : i8}} : (tensor<1x8x8x8xi8>) -> tensor<1x8x8x8xi8>
    %3 = tosa.depthwise_conv2d %2, %w2, %b2, %zp_m128, %zp_2 {{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}} : (tensor<1x8x8x8xi8>, tensor<3x3x8x2xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
    %4 = tosa.rescale %3, %m2, %s2, %zp_acc, %zp_5 {{scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = true, input_unsigned = false, output_unsigned = false}} : (tensor<1x8x8x16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
    %5 = tosa.avg_pool2d %4, %zp_5, %zp_m3 {{acc_type = i32, kernel = array<i64: 3, 3>, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>}} : (tensor<1x8x8x16xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x16xi8>
    %6 = tosa.reshape %5, %shape : (tensor<1x4x4x16xi8>, !tosa.shape<4>) -> tensor<1x1x1x256xi8>
    %7 = tosa.conv2d %6, %w3, %b3, %zp_m3, %zp_0 {{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : (tensor<1x1x1x256xi8>, tensor<16x1x1x256xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x16xi32>
    %8 = tosa.rescale %7, %m3, %s3, %zp_acc, %zp_3 {{scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = true, input_unsigned = false, output_unsigned = false}} : (tensor<1x1x1x16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x1x1x16xi8>
    %9 = tosa.table %8, %table : (tensor<1x1x1x16xi8>, tensor<256xi8>) -> tensor<1x1x1x16xi8>
    return %5, %9 : tensor<1x4x4x16xi8>, tensor<1x1x1x16xi8>
  }}
}}
"""


def tosa_int8_cnn_block(s):
    x = s.rng.integers(-128, 128, (1, 8, 8, 4), dtype=np.int8)
    w1 = s.rng.integers(-127, 128, (8, 3, 3, 4), dtype=np.int8)  # [OC, KH, KW, IC]
    w2 = s.rng.integers(-127, 128, (3, 3, 8, 2), dtype=np.int8)  # [KH, KW, C, M]
    w3 = s.rng.integers(-127, 128, (16, 1, 1, 256), dtype=np.int8)
    b3 = s.rng.integers(-3000, 3000, 16, dtype=np.int32)
    # The biases and rescale scales come from a float calibration pass (numpy, only to choose
    # them, as a quantizer would): each channel's accumulator is centred near its output zero
    # point and spread over most of the int8 range, some of it saturating.
    acc1 = np.einsum("nyxijc,oijc->nyxo", taps(x + 128.0, 3, 1), w1.astype(np.float64))
    scale1 = 70.0 / acc1.std(axis=(0, 1, 2))
    b1 = np.round(128.0 / scale1 - acc1.mean(axis=(0, 1, 2))).astype(np.int32)
    y1 = np.clip(np.round((acc1 + b1) * scale1) - 128, -110, 100)  # rescale, clamp
    acc2 = np.einsum("nyxijc,ijcm->nyxcm", taps(y1 + 128.0, 3, 1), w2 - 2.0).reshape(1, 8, 8, 16)
    scale2 = 60.0 / acc2.std(axis=(0, 1, 2))
    b2 = np.round(-acc2.mean(axis=(0, 1, 2))).astype(np.int32)
    y2 = np.clip(np.round((acc2 + b2) * scale2) + 5, -128, 127)
    # avg_pool2d 3x3, stride 2, pad top/left 1 (padding is not counted), less its zero point.
    win = taps(np.pad(y2 - 5, ((0, 0), (0, 1), (0, 1), (0, 0))), 3, 1)[:, 0:8:2, 0:8:2]
    pooled = win.sum(axis=(3, 4)) / taps(np.ones((1, 9, 9, 1)), 3, 1)[:, 0:8:2, 0:8:2].sum(axis=(3, 4))
    acc3 = np.einsum("i,oi->o", np.round(pooled).ravel(), w3.reshape(16, -1).astype(np.float64))
    scale3 = 60.0 / np.abs(acc3).mean()
    m1, s1 = quant_scale(scale1)
    m2, s2 = quant_scale(scale2)
    m3, s3 = quant_scale(np.full(16, scale3) * s.rng.uniform(0.7, 1.3, 16))
    # A quantized tanh, offset so that the table is not odd-symmetric.
    table = np.clip(np.round(127 * np.tanh((np.arange(256) - 128 - 10) / 40.0)), -128, 127)
    table = table.astype(np.int8)
    with open(os.path.join(s.dir, "graph.mlir"), "w") as f:
        f.write(INT8_CNN_MLIR.format(
            w1=dense(w1), b1=dense(b1), m1=dense(m1), s1=dense(s1), w2=dense(w2), b2=dense(b2),
            m2=dense(m2), s2=dense(s2), w3=dense(w3), b3=dense(b3), m3=dense(m3), s3=dense(s3),
            table=dense(table)))
    s.graph()
    s.tensor_in("x", x)
    pooled, o = tosa_reference(s, [x], 2)
    s.tensor_out("pooled", pooled)
    s.tensor_out("o", o)
    s.dispatch_graph([(0, 0, "x"), (0, 1, "pooled"), (0, 2, "o")])


ATTENTION_MLIR = """\
// TOSA graph: float32 scaled dot-product attention over two batches (heads). The expected outputs
// come from Arm's TOSA reference model.
//   scores = matmul(q, transpose(k)) * 0.25 (1 / sqrt(16))
//   p      = exp(scores - reduce_max(scores, axis 2)) * reciprocal(reduce_sum(..., axis 2))
//   o      = matmul(p, v)
// q, k, v: [2,8,16] float32 -> o: [2,8,16] float32, p (the softmax): [2,8,8] float32.
module {
  func.func @main(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x8xf32>) {
    %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x8x16xf32>) -> tensor<2x16x8xf32>
    %0 = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x8xf32>
    %1 = tosa.mul %0, %scale, %shift : (tensor<2x8x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x8xf32>
    %2 = tosa.reduce_max %1 {axis = 2 : i32, nan_mode = PROPAGATE} : (tensor<2x8x8xf32>) -> tensor<2x8x1xf32>
    %3 = tosa.sub %1, %2 : (tensor<2x8x8xf32>, tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
    %4 = tosa.exp %3 : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %5 = tosa.reduce_sum %4 {axis = 2 : i32} : (tensor<2x8x8xf32>) -> tensor<2x8x1xf32>
    %6 = tosa.reciprocal %5 : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
    %7 = tosa.mul %4, %6, %shift : (tensor<2x8x8xf32>, tensor<2x8x1xf32>, tensor<1xi8>) -> tensor<2x8x8xf32>
    %8 = tosa.matmul %7, %v, %zp, %zp : (tensor<2x8x8xf32>, tensor<2x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x16xf32>
    return %8, %7 : tensor<2x8x16xf32>, tensor<2x8x8xf32>
  }
}
"""


def tosa_attention_f32(s):
    q = s.rng.standard_normal((2, 8, 16)).astype(np.float32)
    k = s.rng.standard_normal((2, 8, 16)).astype(np.float32)
    v = s.rng.standard_normal((2, 8, 16)).astype(np.float32)
    with open(os.path.join(s.dir, "graph.mlir"), "w") as f:
        f.write(ATTENTION_MLIR)
    s.graph()
    s.tensor_in("q", q)
    s.tensor_in("k", k)
    s.tensor_in("v", v)
    o, p = tosa_reference(s, [q, k, v], 2)
    s.tensor_out("o", o)
    s.tensor_out("p", p)
    s.dispatch_graph([(0, 0, "q"), (0, 1, "k"), (0, 2, "v"), (0, 3, "o"), (0, 4, "p")])


SCENARIOS = [
    (tensor_add_mul_i8_rank4, 1),
    (tensor_axpy_f32_push_constants, 2),
    (tensor_f16_rank3, 3),
    (tensor_bool_select, 4),
    (tensor_transpose_i32_sizes, 5),
    (buffer_saxpy_spec_constants, 6),
    (buffer_two_dispatch_barrier, 7),
    (tensor_chain_i16_u16_barriers, 8),
    (tensor_rowsum_f32_to_buffer, 9),
    (buffer_u8_to_tensor, 10),
    (tensor_i64_arith, 11),
    (shared_memory_reverse_reduce, 12),
    (tosa_add_relu_f32, 13),
    (tosa_matmul_transpose_f32, 14),
    (tosa_conv2d_i8, 15),
    (tosa_pool_reduce_f16, 16),
    (tosa_int_ops_i32, 17),
    (tosa_activations_f32, 18),
    (tosa_int8_cnn_block, 19),
    (tosa_attention_f32, 20),
]


def main():
    wanted = set(sys.argv[1:])
    known = {f.__name__ for f, _ in SCENARIOS}
    unknown = wanted - known
    if unknown:
        sys.exit(f"unknown scenarios: {sorted(unknown)}")
    for func, seed in SCENARIOS:
        if wanted and func.__name__ not in wanted:
            continue
        s = Scenario(func.__name__, seed)
        func(s)
        s.write()
        print(f"{func.__name__}: ok")


if __name__ == "__main__":
    main()
