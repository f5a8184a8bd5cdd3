"""TOSA 1.0.2 conformance for Tessera's graph pipeline, through the same SPIR-V a Vulkan
application would give the driver.

For every requested operator: Arm's conformance generator (tosa-tools) writes positive tests
(test.tosa + inputs + desc.json); the TOSA reference model computes the expected outputs (in
precise fp64 mode for float tests); Arm's model-converter turns test.tosa into a VGF; vgf_dump
extracts its SPIR-V graph module and its constants; Tessera's graph-run runs the graph on the
inputs; tosa_verify checks each output against the reference with the test's compliance rule
(EXACT, ULP, dot-product statistics, ...). A test that Tessera rejects at decode counts as
"rejected" (with the first line of the reason), one whose outputs fail tosa_verify as "fail".
Negative tests (`--test-type negative`: graphs that break an ERROR_IF rule) pass when Tessera
rejects the graph, fail when it runs it, and are skipped when model-converter refuses them or
rebuilds the broken operand list (WrongInputList/WrongOutputList) into a valid module.

Usage: run.py --graph-run PATH --work DIR [--ops add,mul,...] [--profile tosa-pro-int ...]
              [--extension ...] [--test-type positive|negative|both] [--per-op N]
              [--json report.json] [--jobs N]
              [--scenario-runner PATH --icd-manifest FILE]   (also through the loader and the ICD)
Needs tosa_verif_conformance_generator, tosa_reference_model, model-converter, vgf_dump and
tosa_verify on PATH (`cargo xtask conformance` installs them into target/tosa-venv).
"""

import argparse
import ast
import concurrent.futures
import json
import os

import numpy
import shutil
import subprocess
import sys
from collections import Counter, defaultdict


def sh(cmd, cwd=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return r.returncode, (r.stdout + r.stderr).strip()


def constants(vgf_json):
    """(constant index, graph constant id) of the VGF's first segment."""
    seg = vgf_json["model_sequence"]["segments"][0]
    return [(b["constant_table_index"], b["graph_constant_id"]) for b in seg.get("constant_bindings", [])]


def spirv_and_constants(test_dir, desc, work):
    """model-converter + vgf_dump: (SPIR-V path, [(constant id, file)]) or (None, reason)."""
    vgf = os.path.join(work, "t.vgf")
    rc, out = sh(["model-converter", "-i", os.path.join(test_dir, desc["tosa_file"]), "-o", vgf])
    if rc != 0:
        return None, "model-converter: " + (out.splitlines()[-1] if out else "failed")
    rc, out = sh(["vgf_dump", "-i", vgf, "-o", "-"])
    if rc != 0:
        return None, "vgf_dump failed"
    info = json.loads(out[out.index("{"):])
    spv = os.path.join(work, "t.spv")
    sh(["vgf_dump", "-i", vgf, "-o", spv, "--dump-spirv", "0"])
    consts = []
    for index, gid in constants(info):
        path = os.path.join(work, f"c{index}.bin")
        sh(["vgf_dump", "-i", vgf, "-o", path, "--dump-constant", str(index)])
        consts.append((gid, path))
    return spv, consts


# ERROR_IF kinds that live only in the TOSA flatbuffer's operator lists: model-converter builds each
# SPIR-V instruction's operands from the operator's definition, so the module Tessera gets is valid.
OPERAND_LIST_ERRORS = ("_ERRORIF_WrongInputList_", "_ERRORIF_WrongOutputList_")


def scenario(vgf, info, inputs, work):
    """A scenario-runner scenario that dispatches the VGF's graph on `inputs` (.npy files, in the
    order of the graph's inputs) and writes each output to `work/icd/output_<i>.npy`; None when
    a resource has no Vulkan tensor format (int48 results) or is rank 0 (scenario-runner's
    tensors have a rank of 1 or more)."""
    seq = info["model_sequence"]
    resources = {r["index"]: r for r in info["resources"]}
    entries, bindings = [{"graph": {"uid": "graph", "src": vgf}}], []
    for kind, items, files in (("in", seq["inputs"], inputs), ("out", seq["outputs"], None)):
        for i, item in enumerate(sorted(items, key=lambda x: x["index"])):
            res = resources[item["mrt_index"]]
            if not res.get("vk_format", "").startswith("VK_FORMAT_") or not res["shape"]:
                return None
            tensor = {"uid": f"{kind}{i}", "dims": res["shape"], "format": res["vk_format"]}
            if kind == "in":
                tensor.update(shader_access="readonly", src=files[i])
            else:
                tensor.update(shader_access="writeonly", dst=os.path.join(work, "icd", f"output_{i}.npy"))
            entries.append({"tensor": tensor})
            bindings.append({"set": 0, "id": item["binding"], "resource_ref": f"{kind}{i}"})
    return {"resources": entries, "commands": [{"dispatch_vgf": {"graph_ref": "graph", "bindings": bindings}}]}


def run_icd(test_dir, desc, work, icd):
    """Runs the test's VGF through the Vulkan loader and Tessera's ICD with scenario-runner (no
    layer): None when it ran (outputs in `work/icd`), else the reason it did not."""
    runner, manifest = icd
    rc, out = sh(["vgf_dump", "-i", os.path.join(work, "t.vgf"), "-o", "-"])
    if rc != 0:
        return "vgf_dump failed"
    info = json.loads(out[out.index("{"):])
    os.makedirs(os.path.join(work, "icd"), exist_ok=True)
    inputs = [os.path.join(test_dir, f) for f in desc["ifm_file"]]
    sc = scenario(os.path.join(work, "t.vgf"), info, inputs, work)
    if sc is None:
        return "skip"
    path = os.path.join(work, "scenario.json")
    json.dump(sc, open(path, "w"), indent=1)
    env = dict(os.environ, VK_DRIVER_FILES=manifest, VK_ICD_FILENAMES=manifest, VK_LOADER_LAYERS_DISABLE="*")
    for k in ("VK_ADD_LAYER_PATH", "VK_ADD_DRIVER_FILES", "VK_INSTANCE_LAYERS", "VK_LAYER_PATH"):
        env.pop(k, None)
    r = subprocess.run([runner, "--scenario", path, "--output", os.path.join(work, "icd")],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        lines = (r.stdout + r.stderr).strip().splitlines()
        return "scenario-runner: " + (lines[-1] if lines else f"exit {r.returncode}")
    return None


def reshape_to_rank0(path):
    """Rewrites a one-element `.npy` file as shape `()`, keeping its `descr` as written (numpy
    would write TOSA's bf16/fp8 `<V2`/`<V1` as `|V2`/`|V1`, which tosa_verify refuses)."""
    with open(path, "rb") as fp:
        raw = fp.read()
    # graph-run writes version 1.0: magic, version, a 2-byte header length, the header.
    length = int.from_bytes(raw[8:10], "little")
    header = ast.literal_eval(raw[10:10 + length].decode("latin1"))
    header["shape"] = ()
    with open(path, "wb") as fp:
        numpy.lib.format.write_array_header_1_0(fp, header)
        fp.write(raw[10 + length:])


def verify(desc, test_dir, ref, got_dir, prefix=""):
    """tosa_verify of every output in `got_dir` against the reference: None, or the failure."""
    for i, (name, f) in enumerate(zip(desc["ofm_name"], desc["ofm_file"])):
        got = os.path.join(got_dir, f"output_{i}.npy")
        if not os.path.exists(got):
            return f"{prefix}{name}: no output"
        # TOSA's rank-0 tensors are [1] in SPIR-V (and so in our output); give the verifier
        # the reference's shape.
        want = numpy.load(os.path.join(ref, f), mmap_mode="r")
        have = numpy.load(got)
        if want.shape == () and have.shape == (1,):
            reshape_to_rank0(got)
        cmd = ["tosa_verify", "--test_desc", os.path.join(test_dir, "desc.json"), "--ofm_name", name,
               "--imp_result_file", got, "--ref_result_file", os.path.join(ref, f)]
        # Dot-product and absolute-error rules also need the bounds the precise reference run
        # writes beside its result.
        bounds = os.path.join(ref, "bounds_" + f)
        if os.path.exists(bounds):
            cmd += ["--bnd_result_file", bounds]
        rc, out = sh(cmd)
        if rc != 0:
            return f"{prefix}{name}: " + (out.splitlines()[-1] if out else "tosa_verify failed")
    return None


def run_negative(test_dir, desc, graph_run):
    """An ERROR_IF test: Tessera must reject the graph (model-converter may refuse it first)."""
    work = os.path.join(test_dir, "tessera")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    spv, consts = spirv_and_constants(test_dir, desc, work)
    if spv is None:
        return "skipped", consts
    cmd = [graph_run, spv, "--entry", "graph_partition_0", "--out", os.path.join(work, "imp")]
    for gid, path in consts:
        cmd += ["--constant", f"{gid}={path}"]
    cmd += [os.path.join(test_dir, f) for f in desc["ifm_file"]]
    rc, out = sh(cmd)
    if rc != 0 and "graph-run: wrote" not in out:
        return "pass", ""
    if any(k in os.path.basename(test_dir) for k in OPERAND_LIST_ERRORS):
        return "skipped", "model-converter rebuilt the operand lists: the SPIR-V has no error"
    return "fail", "an ERROR_IF graph was accepted"


def run_test(test_dir, graph_run, icd=None):
    desc = json.load(open(os.path.join(test_dir, "desc.json")))
    if desc.get("expected_failure"):
        return run_negative(test_dir, desc, graph_run)
    work = os.path.join(test_dir, "tessera")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    ref = os.path.join(work, "ref")
    imp = os.path.join(work, "imp")
    os.makedirs(ref)
    rules = list(desc.get("meta", {}).get("compliance", {}).get("tensors", {}).values())
    # Float results, and RESCALE's INEXACT_ROUND results, are checked against the bounds that the
    # reference model writes in precise (fp64) mode.
    precise = any(r.get("data_type", "").startswith(("FP", "BF")) or r.get("mode") == "RESCALE_INEXACT"
                  for r in rules)
    cmd = ["tosa_reference_model", "--test_desc", os.path.join(test_dir, "desc.json"), "--output_dir", ref]
    if precise:
        cmd += ["--precise_mode", "1"]
    rc, out = sh(cmd)
    if rc != 0:
        return "skipped", "reference model failed: " + (out.splitlines()[-1] if out else "no output")
    spv, consts = spirv_and_constants(test_dir, desc, work)
    if spv is None:
        return "skipped", consts
    cmd = [graph_run, spv, "--entry", "graph_partition_0", "--out", imp]
    for gid, path in consts:
        cmd += ["--constant", f"{gid}={path}"]
    cmd += [os.path.join(test_dir, f) for f in desc["ifm_file"]]
    rc, out = sh(cmd)
    if rc != 0:
        reason = out.splitlines()[-1] if out else "graph-run failed"
        return "rejected", reason
    why = verify(desc, test_dir, ref, imp)
    if why:
        return "fail", why
    if icd:
        why = run_icd(test_dir, desc, work, icd)
        if why == "skip":
            return "pass", "graph-run only (a rank-0 tensor, or a result with no Vulkan tensor format)"
        if why:
            return "rejected", "icd: " + why
        why = verify(desc, test_dir, ref, os.path.join(work, "icd"), "icd: ")
        if why:
            return "fail", why
        return "pass", "icd"
    return "pass", ""


def generate(a, gen):
    """Arm's conformance generator: positive tests of the requested operators into `gen`."""
    shutil.rmtree(gen, ignore_errors=True)
    cmd = ["tosa_verif_conformance_generator", "--tosa-version", "1.0.2", "--test-type", a.test_type,
           "--output-type", "binary", "--output-directory", gen, "-j", str(a.jobs), "--profile", *a.profile]
    if a.extension:
        cmd += ["--extension", *a.extension]
    if a.ops:
        cmd += ["--operators", *a.ops.split(",")]
    # The generator builds in `conformance_build/` under its working directory: keep it in --work.
    os.makedirs(a.work, exist_ok=True)
    rc, out = sh(cmd, cwd=a.work)
    if rc != 0:
        print(out[-3000:], file=sys.stderr)
        sys.exit("the conformance generator failed")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graph-run", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--ops", default="")
    ap.add_argument("--profile", nargs="*", default=["tosa-pro-int", "tosa-pro-fp"])
    ap.add_argument("--extension", nargs="*", default=[])
    ap.add_argument("--json")
    ap.add_argument("--test-type", default="positive", choices=["positive", "negative", "both"],
                    help="positive tests, negative (ERROR_IF) tests that must be rejected, or both")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--reuse", action="store_true",
                    help="run the tests already generated under --work instead of generating them")
    ap.add_argument("--scenario-runner",
                    help="also run each positive test through the Vulkan loader and Tessera's ICD "
                         "with this scenario-runner (Arm's ML SDK), and verify those outputs too")
    ap.add_argument("--icd-manifest", help="the ICD manifest for --scenario-runner")
    ap.add_argument("--per-op", type=int, default=0,
                    help="run only the first N tests (by name) of each operator (0: all)")
    a = ap.parse_args()
    a.work = os.path.abspath(a.work)
    gen = os.path.join(a.work, "tests")
    if not a.reuse:
        generate(a, gen)
    tests = sorted(os.path.dirname(os.path.join(d, f)) for d, _, fs in os.walk(gen) for f in fs if f == "desc.json")
    if a.reuse and a.ops:
        wanted = a.ops.split(",")
        tests = [t for t in tests
                 if any(os.path.basename(os.path.dirname(t)).startswith(w) for w in wanted)]
    if a.per_op:
        taken = Counter()
        kept = []
        for t in tests:
            op = os.path.basename(os.path.dirname(t))
            if taken[op] < a.per_op:
                taken[op] += 1
                kept.append(t)
        tests = kept
    results = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        icd = (os.path.abspath(a.scenario_runner), os.path.abspath(a.icd_manifest)) if a.scenario_runner else None
        for t, r in zip(tests, pool.map(lambda t: run_test(t, a.graph_run, icd), tests)):
            results[os.path.relpath(t, gen)] = r
    per_op = defaultdict(Counter)
    reasons = defaultdict(Counter)
    for name, (status, why) in results.items():
        op = name.split(os.sep)[-2] if os.sep in name else name
        per_op[op][status] += 1
        if status in ("fail", "rejected"):
            reasons[op][why[:160]] += 1
    print(f"| operator | pass | fail | rejected | skipped |\n|---|---:|---:|---:|---:|")
    for op in sorted(per_op):
        c = per_op[op]
        print(f"| {op} | {c['pass']} | {c['fail']} | {c['rejected']} | {c['skipped']} |")
    total = Counter()
    for c in per_op.values():
        total.update(c)
    print(f"| **all** | {total['pass']} | {total['fail']} | {total['rejected']} | {total['skipped']} |")
    for op in sorted(reasons):
        for why, n in reasons[op].most_common(3):
            print(f"  {op}: {n}× {why}")
    if a.scenario_runner:
        through = sum(1 for status, why in results.values() if status == "pass" and why == "icd")
        print(f"{through} of the passing tests also passed through the loader and Tessera's ICD "
              "(scenario-runner); the others have rank-0 tensors or results with no Vulkan tensor format")
    if a.json:
        json.dump({k: list(v) for k, v in results.items()}, open(a.json, "w"), indent=1)
    sys.exit(1 if total["fail"] else 0)


if __name__ == "__main__":
    main()
