"""The IREE workloads of `cargo xtask bench-compare --only iree`: MLIR functions `@main`, their
inputs and how their results are checked.

    iree.py list                      the workload names, one per line
    iree.py mlir NAME OUT.mlir        writes the workload's MLIR
    iree.py target NAME               the `--iree-vulkan-target` the Vulkan modules use (empty:
                                      the stock target)
    iree.py inputs NAME DIR           writes DIR/in<k>.npy (seeded), prints one path per line
    iree.py check NAME GOT.npy WANT.npy
                                      exit 0 when GOT matches WANT (llvm-cpu's result) within
                                      the workload's tolerance, else prints the error and exits 1
"""

import sys

import numpy as np


def matmul(ty, acc):
    zero = "0" if acc.startswith("i") else "0.0"
    return f"""
func.func @main(%a: tensor<512x512x{ty}>, %b: tensor<512x512x{ty}>) -> tensor<512x512x{acc}> {{
  %z = arith.constant {zero} : {acc}
  %e = tensor.empty() : tensor<512x512x{acc}>
  %f = linalg.fill ins(%z : {acc}) outs(%e : tensor<512x512x{acc}>) -> tensor<512x512x{acc}>
  %r = linalg.matmul ins(%a, %b : tensor<512x512x{ty}>, tensor<512x512x{ty}>)
                     outs(%f : tensor<512x512x{acc}>) -> tensor<512x512x{acc}>
  return %r : tensor<512x512x{acc}>
}}
"""


def mlp():
    layers = []
    args = ["%x: tensor<256x512xf32>"]
    cur = "%x"
    for k in range(4):
        args += [f"%w{k}: tensor<512x512xf32>", f"%b{k}: tensor<512xf32>"]
        layers.append(f"""
  %m{k} = linalg.matmul ins({cur}, %w{k} : tensor<256x512xf32>, tensor<512x512xf32>)
                        outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
  %bb{k} = linalg.broadcast ins(%b{k} : tensor<512xf32>) outs(%e : tensor<256x512xf32>)
                           dimensions = [0]
  %s{k} = arith.addf %m{k}, %bb{k} : tensor<256x512xf32>
  %h{k} = arith.maximumf %s{k}, %f : tensor<256x512xf32>""")
        cur = f"%h{k}"
    return f"""
func.func @main({", ".join(args)}) -> tensor<256x512xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>{"".join(layers)}
  return {cur} : tensor<256x512xf32>
}}
"""


SOFTMAX = """
func.func @main(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %e = tensor.empty() : tensor<1024x1024xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<1024x1024xf32>)
                                   outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
"""

ATTENTION = """
func.func @main(%q: tensor<512x64xf32>, %k: tensor<512x64xf32>, %v: tensor<512x64xf32>)
    -> tensor<512x64xf32> {
  %z = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<64x512xf32>
  %kt = linalg.transpose ins(%k : tensor<512x64xf32>) outs(%et : tensor<64x512xf32>)
                         permutation = [1, 0]
  %es = tensor.empty() : tensor<512x512xf32>
  %fs = linalg.fill ins(%z : f32) outs(%es : tensor<512x512xf32>) -> tensor<512x512xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<512x64xf32>, tensor<64x512xf32>)
                     outs(%fs : tensor<512x512xf32>) -> tensor<512x512xf32>
  %c = arith.constant dense<0.125> : tensor<512x512xf32>
  %ss = arith.mulf %s, %c : tensor<512x512xf32>
  %p = linalg.softmax dimension(1) ins(%ss : tensor<512x512xf32>)
                                   outs(%es : tensor<512x512xf32>) -> tensor<512x512xf32>
  %eo = tensor.empty() : tensor<512x64xf32>
  %fo = linalg.fill ins(%z : f32) outs(%eo : tensor<512x64xf32>) -> tensor<512x64xf32>
  %o = linalg.matmul ins(%p, %v : tensor<512x512xf32>, tensor<512x64xf32>)
                     outs(%fo : tensor<512x64xf32>) -> tensor<512x64xf32>
  return %o : tensor<512x64xf32>
}
"""

CONV2D = """
func.func @main(%x: tensor<1x66x66x32xf32>, %w: tensor<3x3x32x64xf32>) -> tensor<1x64x64x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64x64x64xf32>) -> tensor<1x64x64x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x66x66x32xf32>, tensor<3x3x32x64xf32>)
                                outs(%f : tensor<1x64x64x64xf32>) -> tensor<1x64x64x64xf32>
  return %r : tensor<1x64x64x64xf32>
}
"""

ADD = """
func.func @main(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %r = arith.addf %a, %b : tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}
"""


def int8_pair(rng):
    return [rng.integers(-128, 128, (512, 512), dtype=np.int8),
            rng.integers(-128, 128, (512, 512), dtype=np.int8)]


# The Vulkan target of the workloads that do not use the stock one: IREE 3.13's stock target
# cannot compile an f16 matmul (`vector.bitcast` fails to legalise) and reads i8 tensors as if
# each element were 32 bits wide (every driver gets the same wrong result), so those use the
# target of a GPU with 8-bit storage: `valhall4` (integer dot products, OpSDotAccSat) and `rdna3`
# (cooperative matrices: f16 16x16x16, i8 16x16x16).
TARGETS = {"matmul_f16": "rdna3", "matmul_i8": "valhall4", "matmul_i8_coopmat": "rdna3"}


def normal(rng, shape, dtype=np.float32, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


# name: (MLIR, inputs(rng) -> list of arrays, tolerance relative to the largest |result|)
WORKLOADS = {
    "matmul_f32": (matmul("f32", "f32"),
                   lambda r: [normal(r, (512, 512)), normal(r, (512, 512))], 1e-5),
    "matmul_f16": (matmul("f16", "f32"),
                   lambda r: [normal(r, (512, 512), np.float16),
                              normal(r, (512, 512), np.float16)], 1e-3),
    "matmul_i8": (matmul("i8", "i32"), lambda r: int8_pair(r), 0.0),
    "matmul_i8_coopmat": (matmul("i8", "i32"), lambda r: int8_pair(r), 0.0),
    "mlp": (mlp(),
            lambda r: [normal(r, (256, 512))]
            + [a for _ in range(4) for a in (normal(r, (512, 512), scale=0.05),
                                              normal(r, (512,), scale=0.1))], 1e-5),
    "softmax": (SOFTMAX, lambda r: [normal(r, (1024, 1024), scale=4.0)], 1e-5),
    "attention": (ATTENTION, lambda r: [normal(r, (512, 64)) for _ in range(3)], 1e-5),
    "conv2d": (CONV2D, lambda r: [normal(r, (1, 66, 66, 32)),
                                  normal(r, (3, 3, 32, 64), scale=0.1)], 1e-5),
    "add": (ADD, lambda r: [normal(r, (4096, 4096)), normal(r, (4096, 4096))], 0.0),
}


def main(argv):
    cmd = argv[1]
    if cmd == "list":
        print("\n".join(WORKLOADS))
        return 0
    name = argv[2]
    mlir, inputs, tolerance = WORKLOADS[name]
    if cmd == "target":
        print(TARGETS.get(name, ""))
        return 0
    if cmd == "mlir":
        with open(argv[3], "w") as f:
            f.write(mlir)
        return 0
    if cmd == "inputs":
        rng = np.random.default_rng(20261204)
        for k, a in enumerate(inputs(rng)):
            path = f"{argv[3]}/in{k}.npy"
            np.save(path, a)
            print(path)
        return 0
    if cmd == "check":
        got, want = np.load(argv[3]), np.load(argv[4])
        if got.shape != want.shape or got.dtype != want.dtype:
            print(f"{got.dtype}{list(got.shape)} where llvm-cpu gives {want.dtype}{list(want.shape)}",
                  file=sys.stderr)
            return 1
        g, w = got.astype(np.float64), want.astype(np.float64)
        err = float(np.max(np.abs(g - w))) if g.size else 0.0
        limit = tolerance * float(np.max(np.abs(w)) or 1.0)
        if not err <= limit:
            print(f"max |difference| {err:.3g} above {limit:.3g}", file=sys.stderr)
            return 1
        return 0
    raise SystemExit(f"unknown command {cmd}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
