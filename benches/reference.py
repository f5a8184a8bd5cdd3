"""numpy references for the shader workloads of benches/shaders.rs, at the same sizes.

Each workload is the same work on host arrays, written the way a numpy user would, into
preallocated outputs (out=) so that the steady state is timed, not allocation. Each result is
checked once against a plain-Python/numpy definition before timing. Every workload runs once to
warm up, then repeatedly for at least --min-time seconds (at least 5, at most 100 times); the
median and the best time are reported. numpy runs on one thread, as the plain-Rust references do:
its elementwise loops are single-threaded anyway, and its BLAS (the dense layer's matmul) is
limited to one thread unless OPENBLAS_NUM_THREADS is set (with two threads on a busy 2-core
machine, OpenBLAS's gemv took 0.04 or 12 ms from one run to the next).

Usage: python reference.py [--only name,name] [--json out.json] [--min-time seconds]

`cargo xtask bench-compare` runs this in the xtask virtual environment (target/python, numpy as
pinned in crates/xtask/requirements.txt) and reads the JSON:
{"numpy": version, "workloads": {name: {"median_ms": m, "best_ms": b, "runs": n}}}.
"""

import argparse
import json
import os
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402 (after the thread settings)

N = 4096


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


WORKLOADS = {
    f.__name__: f
    for f in (tensor_add, row_sum, transpose, tiny_groups, i8_mul, rgba_swizzle, f16_add, dense)
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
    for name in names:
        run, check = WORKLOADS[name]()
        run()
        check()
        results[name] = measure(run, args.min_time)
        r = results[name]
        print(
            f"numpy {name}: median {r['median_ms']:.3f} ms, best {r['best_ms']:.3f} ms "
            f"({r['runs']} runs)",
            file=sys.stderr,
        )
    out = {
        "numpy": np.__version__,
        "blas_threads": os.environ["OPENBLAS_NUM_THREADS"],
        "workloads": results,
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    else:
        json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
