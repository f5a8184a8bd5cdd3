"""numpy references for the shader workloads of benches/shaders.rs and the data graphs of
benches/graphs.rs, at the same sizes.

Each workload is the same work on host arrays, written the way a numpy user would, into
preallocated outputs (out=) so that the steady state is timed, not allocation. Each result is
checked once against a plain-Python/numpy definition before timing. Every workload runs once to
warm up, then repeatedly for at least --min-time seconds (at least 5, at most 100 times); the
median and the best time are reported.

Threads: the shader workloads (and the cooperative ones, unless OPENBLAS_NUM_THREADS is set:
`cargo xtask bench-compare` sets it to 1 and to every CPU in turn) run numpy on one thread, as the plain-Rust references do: its
elementwise loops are single-threaded anyway, and its BLAS (the dense layer's matmul) is
limited to one thread unless OPENBLAS_NUM_THREADS is set (with two threads on a busy 2-core
machine, OpenBLAS's gemv took 0.04 or 12 ms from one run to the next). The data graph workloads
(graph_*) run with numpy's default threads instead (OpenBLAS: one per CPU, unless
OPENBLAS_NUM_THREADS is set in the environment), as a numpy user's matmul would, and as
Tessera's graph kernels use every CPU: the matmul and the convolution's GEMM are multi-threaded,
graph_add (an elementwise loop) is single-threaded either way. OpenBLAS reads its thread count
when numpy is imported, so a selection with both kinds runs the graph workloads in a second
process (with the same arguments). The JSON gives each workload's "blas_threads".

Usage: python reference.py [--only name,name] [--json out.json] [--min-time seconds]

`cargo xtask bench-compare` runs this in the xtask virtual environment (target/python, numpy as
pinned in crates/xtask/requirements.txt) and reads the JSON:
{"numpy": version, "workloads": {name: {"median_ms": m, "best_ms": b, "runs": n,
"blas_threads": t}}}.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

# The workloads that run with numpy's default threads (see above).
DEFAULT_THREADS = ("graph_add", "graph_matmul", "graph_conv2d", "graph_conv2d_i8")


def _selected_names(argv):
    """The --only list of argv (before argparse, which runs after numpy's import)."""
    for i, a in enumerate(argv):
        if a == "--only" and i + 1 < len(argv):
            return [n for n in argv[i + 1].split(",") if n]
        if a.startswith("--only="):
            return [n for n in a[len("--only="):].split(",") if n]
    return []


# This process's thread mode: default threads when every selected workload wants them.
_names = _selected_names(sys.argv[1:])
THREADED = bool(_names) and all(n in DEFAULT_THREADS for n in _names)
# The environment as given, for a child process of the other mode.
_GIVEN_ENV = dict(os.environ)
if not THREADED:
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402 (after the thread settings)

# The side of the square tensors of the shader workloads (benches/shaders.rs).
N = 4096


def blas_threads():
    """OpenBLAS's thread count, asked from the OpenBLAS numpy loaded (else the environment's)."""
    try:
        import ctypes

        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
        for path in sorted(paths):
            lib = ctypes.CDLL(path)
            for sym in (
                "scipy_openblas_get_num_threads64_",
                "scipy_openblas_get_num_threads",
                "openblas_get_num_threads64_",
                "openblas_get_num_threads",
            ):
                if hasattr(lib, sym):
                    return str(getattr(lib, sym)())
    except (OSError, ValueError):
        pass
    return os.environ.get("OPENBLAS_NUM_THREADS", "default")


def tensor_add():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 16, (N, N)).astype(np.float32)
    b = rng.integers(0, 16, (N, N)).astype(np.float32)
    c = np.empty_like(a)

    def run():
        np.add(a, b, out=c)

    def check():
        assert c[17, 4000] == a[17, 4000] + b[17, 4000]

    return run, check


def row_sum():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 16, (N, N)).astype(np.float32)
    s = np.empty(N, np.float32)

    def run():
        np.sum(a, axis=1, out=s)

    def check():
        assert s[5] == float(a[5].astype(np.float64).sum())

    return run, check


def row_sum_subgroup():
    # The same sums (the shader reduces through subgroups instead of shared memory).
    return row_sum()


def histogram():
    # 16 MiB of bytes into 256 bins (the shader's bytes differ; the count is the work).
    rng = np.random.default_rng(7)
    data = rng.integers(0, 256, N * N, dtype=np.uint8)
    bins = np.empty(256, np.int64)

    def run():
        bins[:] = np.bincount(data, minlength=256)

    def check():
        assert bins.sum() == N * N

    return run, check


def transpose():
    src = np.arange(N * N, dtype=np.float32).reshape(N, N)
    dst = np.empty_like(src)

    def run():
        np.copyto(dst, src.T)

    def check():
        assert dst[3, 7] == src[7, 3]

    return run, check


def tiny_groups():
    n = 100_000
    idx = np.arange(n, dtype=np.uint32)
    out = np.empty(n, np.uint32)

    def run():
        np.multiply(idx, 3, out=out)
        np.add(out, 1, out=out)

    def check():
        assert out[99_999] == 99_999 * 3 + 1

    return run, check


def nd_add():
    shape = (16, 24, 96, 100)
    rng = np.random.default_rng(6)
    a = rng.integers(0, 16, shape).astype(np.float32)
    b = rng.integers(0, 16, shape).astype(np.float32)
    c = np.empty_like(a)

    def run():
        np.add(a, b, out=c)

    def check():
        assert c[3, 5, 7, 99] == a[3, 5, 7, 99] + b[3, 5, 7, 99]

    return run, check


def i8_mul():
    shape = (16, 16, 256, 256)
    rng = np.random.default_rng(4)
    a = rng.integers(-128, 128, shape, dtype=np.int8)
    b = rng.integers(-128, 128, shape, dtype=np.int8)
    c = np.empty_like(a)

    def run():
        np.multiply(a, b, out=c)  # wraps, like the shader's 8-bit OpIMul

    def check():
        x, y = int(a[1, 2, 3, 4]), int(b[1, 2, 3, 4])
        assert int(c[1, 2, 3, 4]) == ((x * y + 128) % 256) - 128

    return run, check


def rgba_swizzle():
    rng = np.random.default_rng(6)
    src = rng.integers(0, 256, (N, N, 4), dtype=np.uint8)
    dst = np.empty_like(src)

    def run():
        # Four strided channel copies: the fastest of the plain numpy ways here (np.take with
        # out= and fancy indexing are slower).
        dst[..., 0] = src[..., 2]
        dst[..., 1] = src[..., 1]
        dst[..., 2] = src[..., 0]
        dst[..., 3] = src[..., 3]

    def check():
        assert list(dst[9, 11]) == [src[9, 11, 2], src[9, 11, 1], src[9, 11, 0], src[9, 11, 3]]

    return run, check


def f16_add():
    rng = np.random.default_rng(7)
    a = (rng.integers(-64, 64, (N, N)) / 8).astype(np.float16)
    b = (rng.integers(-64, 64, (N, N)) / 8).astype(np.float16)
    c = np.empty_like(a)

    def run():
        np.add(a, b, out=c)

    def check():
        assert c[100, 200] == np.float16(float(a[100, 200]) + float(b[100, 200]))

    return run, check


def dense():
    rows, cols = 512, 1024
    rng = np.random.default_rng(1)
    w = rng.uniform(-1, 1, (rows, cols)).astype(np.float32)
    x = rng.uniform(-1, 1, cols).astype(np.float32)
    b = rng.uniform(-1, 1, rows).astype(np.float32)
    y = np.empty(rows, np.float32)

    def run():
        np.matmul(w, x, out=y)
        np.add(y, b, out=y)
        np.maximum(y, 0, out=y)

    def check():
        want = max(float(w[7].astype(np.float64) @ x.astype(np.float64)) + float(b[7]), 0.0)
        assert abs(float(y[7]) - want) <= 1e-4 * max(1.0, abs(want))

    return run, check


def coopvec_mlp():
    # benches/cooperative.rs's MLP: 1 048 576 vectors of 64, 4 layers 64→64 with bias, relu
    # between. In float32: numpy has no float16 GEMM (np.matmul on float16 is a loop ~100×
    # slower), so a numpy user keeps float32 and gets OpenBLAS's sgemm.
    n, width, layers = 1 << 20, 64, 4
    rng = np.random.default_rng(5)
    x = (rng.integers(0, 17, (n, width)) / 16 - 0.5).astype(np.float32)
    wt = [(rng.integers(0, 17, (width, width)) / 64 - 0.125).astype(np.float32).T.copy()
          for _ in range(layers)]
    bias = [(rng.integers(0, 17, width) / 16 - 0.5).astype(np.float32) for _ in range(layers)]
    bufs = [np.empty((n, width), np.float32), np.empty((n, width), np.float32)]

    def run():
        h = x
        for layer in range(layers):
            out = bufs[layer % 2]
            np.matmul(h, wt[layer], out=out)
            np.add(out, bias[layer], out=out)
            if layer + 1 < layers:
                np.maximum(out, 0, out=out)
            h = out

    def check():
        v = x[12345].astype(np.float64)
        for layer in range(layers):
            v = v @ wt[layer].astype(np.float64) + bias[layer]
            if layer + 1 < layers:
                v = np.maximum(v, 0)
        assert np.abs(bufs[(layers - 1) % 2][12345] - v).max() <= 1e-4

    return run, check


def _sgemm():
    # C = A·B, 1024³ in float32: OpenBLAS's sgemm, what both cooperative-matrix GEMMs of
    # benches/cooperative.rs (float16 and int8 inputs) are compared with.
    n = 1024
    rng = np.random.default_rng(6)
    a = (rng.integers(0, 17, (n, n)) / 16 - 0.5).astype(np.float32)
    b = (rng.integers(0, 17, (n, n)) / 16 - 0.5).astype(np.float32)
    c = np.empty((n, n), np.float32)

    def run():
        np.matmul(a, b, out=c)

    def check():
        assert abs(float(c[3, 5]) - float(a[3].astype(np.float64) @ b[:, 5])) <= 1e-3

    return run, check


def coopmat_gemm_f16():
    return _sgemm()


def coopmat_gemm_s8():
    return _sgemm()


def coopmat_gemm_f16_opt():
    return _sgemm()


def coopmat_gemm_s8_opt():
    return _sgemm()


def graph_add():
    shape = (1, 4096, 4096)
    rng = np.random.default_rng(1)
    a = rng.integers(0, 16, shape).astype(np.float32)
    b = rng.integers(0, 16, shape).astype(np.float32)
    c = np.empty_like(a)

    def run():
        np.add(a, b, out=c)

    def check():
        assert c[0, 17, 4000] == a[0, 17, 4000] + b[0, 17, 4000]

    return run, check


def graph_matmul():
    n = 512
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    c = np.empty((n, n), np.float32)

    def run():
        np.matmul(a, b, out=c)

    def check():
        want = a[7].astype(np.float64) @ b.astype(np.float64)
        scale = float(np.abs(a.astype(np.float64) @ b.astype(np.float64)).max())
        assert np.abs(c[7] - want).max() <= 1e-4 * scale

    return run, check


def graph_conv2d():
    # NHWC input [1,128,128,32], OHWI weights [32,3,3,32], bias [32], pad 1, stride 1.
    h, w, ic, oc, k = 128, 128, 32, 32, 3
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (1, h, w, ic)).astype(np.float32)
    wt = rng.uniform(-1, 1, (oc, k, k, ic)).astype(np.float32)
    bias = rng.uniform(-1, 1, oc).astype(np.float32)
    # The weights as the [288, 32] matrix of the patches' (ic, kh, kw) order: prepared once, as
    # Tessera prepares its constants at pipeline creation.
    wm = np.ascontiguousarray(wt.transpose(0, 3, 1, 2).reshape(oc, ic * k * k).T)
    padded = np.zeros((1, h + 2, w + 2, ic), np.float32)
    out = np.empty((h * w, oc), np.float32)

    def run():
        padded[:, 1:-1, 1:-1, :] = x
        # [1, 128, 128, ic, 3, 3] windows → the [128·128, 288] im2col matrix (a copy).
        cols = np.lib.stride_tricks.sliding_window_view(padded, (k, k), axis=(1, 2))
        np.matmul(cols.reshape(h * w, ic * k * k), wm, out=out)
        np.add(out, bias, out=out)

    def check():
        xp = np.pad(x[0].astype(np.float64), ((1, 1), (1, 1), (0, 0)))
        w64 = wt.astype(np.float64)
        scale = 0.0
        for y, xx in ((0, 0), (5, 77), (127, 127), (64, 0)):
            patch = xp[y : y + k, xx : xx + k, :]
            want = np.einsum("hwc,ohwc->o", patch, w64) + bias
            got = out[y * w + xx]
            scale = max(scale, float(np.abs(want).max()))
            assert np.abs(got - want).max() <= 1e-4 * max(scale, 1.0), (y, xx)

    return run, check


def graph_conv2d_i8():
    # graph_conv2d's shape in int8: x - zp (zp -3) times symmetric int8 weights, int32 sums.
    # numpy has no int8 GEMM: the im2col matrix and the weights go to int32 (np.matmul's integer
    # path, no BLAS), which is what a numpy user would write.
    h, w, ic, oc, k, zp = 128, 128, 32, 32, 3, -3
    rng = np.random.default_rng(4)
    x = rng.integers(-128, 128, (1, h, w, ic), dtype=np.int8)
    wt = rng.integers(-128, 128, (oc, k, k, ic), dtype=np.int8)
    bias = rng.integers(-15000, 15000, oc, dtype=np.int32)
    wm = np.ascontiguousarray(wt.transpose(0, 3, 1, 2).reshape(oc, ic * k * k).T.astype(np.int32))
    padded = np.full((1, h + 2, w + 2, ic), zp, np.int32)
    out = np.empty((h * w, oc), np.int32)

    def run():
        padded[:, 1:-1, 1:-1, :] = x
        cols = np.lib.stride_tricks.sliding_window_view(padded, (k, k), axis=(1, 2))
        np.matmul(cols.reshape(h * w, ic * k * k) - zp, wm, out=out)
        np.add(out, bias, out=out)

    def check():
        xp = np.pad(x[0].astype(np.int64) - zp, ((1, 1), (1, 1), (0, 0)))
        for y, xx in ((0, 0), (5, 77), (127, 127), (64, 0)):
            want = np.einsum("hwc,ohwc->o", xp[y : y + k, xx : xx + k, :], wt.astype(np.int64)) + bias
            assert (out[y * w + xx] == want).all(), (y, xx)

    return run, check


WORKLOADS = {
    f.__name__: f
    for f in (
        tensor_add,
        row_sum,
        row_sum_subgroup,
        transpose,
        tiny_groups,
        i8_mul,
        nd_add,
        rgba_swizzle,
        f16_add,
        histogram,
        dense,
        coopvec_mlp,
        coopmat_gemm_f16,
        coopmat_gemm_s8,
        coopmat_gemm_f16_opt,
        coopmat_gemm_s8_opt,
        graph_add,
        graph_matmul,
        graph_conv2d,
        graph_conv2d_i8,
    )
}


def measure(run, min_time):
    run()
    times = []
    start = time.perf_counter()
    while len(times) < 5 or (time.perf_counter() - start < min_time and len(times) < 100):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    times.sort()
    return {
        "median_ms": times[len(times) // 2] * 1e3,
        "best_ms": times[0] * 1e3,
        "runs": len(times),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default="", help="comma-separated workload names (default: all)")
    p.add_argument("--json", help="write the results here")
    p.add_argument("--min-time", type=float, default=1.0, help="seconds per workload")
    args = p.parse_args()
    names = [n for n in args.only.split(",") if n] or list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        sys.exit(f"reference.py: unknown workload(s) {unknown}; known: {list(WORKLOADS)}")
    results = {}
    # Workloads of the other thread mode run in a child process (this one's BLAS is set up).
    others = [n for n in names if (n in DEFAULT_THREADS) != THREADED]
    names = [n for n in names if n not in others]
    threads = blas_threads()
    for name in names:
        run, check = WORKLOADS[name]()
        run()
        check()
        results[name] = measure(run, args.min_time)
        r = results[name]
        r["blas_threads"] = threads
        print(
            f"numpy {name}: median {r['median_ms']:.3f} ms, best {r['best_ms']:.3f} ms "
            f"({r['runs']} runs, BLAS threads {threads})",
            file=sys.stderr,
        )
    if others:
        with tempfile.TemporaryDirectory() as tmp:
            child_json = os.path.join(tmp, "child.json")
            subprocess.run(
                [sys.executable, "-B", os.path.abspath(__file__), "--only", ",".join(others)]
                + ["--json", child_json, "--min-time", str(args.min_time)],
                check=True,
                env=_GIVEN_ENV,
            )
            with open(child_json) as f:
                results.update(json.load(f)["workloads"])
    out = {
        "numpy": np.__version__,
        "workloads": results,
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    else:
        json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
