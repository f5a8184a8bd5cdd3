//! The TOSA graphs of `spirv-tests/scenarios/tosa_*` (made by Arm's model-converter from the
//! `graph.mlir` beside them), decoded and run in-process; each output is compared with the
//! scenario's numpy-computed `expected/` file: integers exactly, floats within 4 ulps.
//!
//! The SPIR-V is taken from `graph.vgf`: the VGF module table holds the module's words
//! verbatim, so the module is found by its magic number and ends with its `OpGraphEndARM`
//! (converter modules have one graph, last). `tosa_conv2d_i8` is left out: its weights live in
//! the VGF constant section, which this test does not read.

use std::path::{Path, PathBuf};

use tessera_graph::dtype::Values;
use tessera_graph::{Inputs, compile, npy, run};

fn scenarios() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spirv-tests/scenarios")
}

/// The first SPIR-V module in `vgf`, up to and including its first `OpGraphEndARM`.
fn graph_module(vgf: &[u8]) -> Vec<u32> {
    let magic = 0x0723_0203u32.to_le_bytes();
    let start = (0..vgf.len().saturating_sub(4))
        .step_by(4)
        .find(|&i| vgf[i..i + 4] == magic)
        .expect("no SPIR-V module in the VGF file");
    let words: Vec<u32> = vgf[start..]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut at = 5;
    while at < words.len() {
        let (count, opcode) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        assert!(count > 0, "a zero word count inside the module");
        at += count;
        if opcode == 4186 {
            return words[..at].to_vec();
        }
    }
    panic!("the module has no OpGraphEndARM");
}

/// How many ulps (of `max(|b|, 1)`: relative above 1, absolute below, so that a dot product that
/// cancels to near zero in another summation order than numpy's is not over-judged) `a` is from `b`.
fn ulps_apart(a: f64, b: f64, ulp: f64) -> f64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        0.0
    } else {
        (a - b).abs() / (ulp * b.abs().max(1.0))
    }
}

fn check(name: &str, inputs: &[&str], outputs: &[&str]) {
    let dir = scenarios().join(name);
    let words = graph_module(&std::fs::read(dir.join("graph.vgf")).unwrap());
    let graph = compile(&words, "graph_partition_0", &Inputs::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(graph.inputs.len(), inputs.len(), "{name}");
    let tensors: Vec<_> = inputs
        .iter()
        .zip(&graph.inputs)
        .map(|(f, want)| npy::read(&std::fs::read(dir.join(f)).unwrap(), &want.info).unwrap())
        .collect();
    let results = run(&graph, &tensors).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(results.len(), outputs.len(), "{name}");
    for (got, file) in results.iter().zip(outputs) {
        let bytes = std::fs::read(dir.join("expected").join(file)).unwrap();
        let want = npy::read(&bytes, &got.info()).unwrap_or_else(|e| panic!("{name}/{file}: {e}"));
        match (&got.values, &want.values) {
            (Values::Float(g), Values::Float(w)) => {
                // One ulp of the output type, relative: f16 2^-10, f32 2^-23.
                let ulp = if got.dtype == tessera_graph::DType::F16 {
                    2f64.powi(-10)
                } else {
                    2f64.powi(-23)
                };
                let worst = g
                    .iter()
                    .zip(w)
                    .map(|(&a, &b)| ulps_apart(a, b, ulp))
                    .fold(0.0, f64::max);
                assert!(worst <= 4.0, "{name}/{file}: {worst} ulps apart");
            }
            _ => assert_eq!(got.values, want.values, "{name}/{file}"),
        }
    }
}

#[test]
fn add_relu_f32() {
    check(
        "tosa_add_relu_f32",
        &["in_a.npy", "in_b.npy"],
        &["out_o.npy"],
    );
}

#[test]
fn matmul_transpose_f32() {
    check(
        "tosa_matmul_transpose_f32",
        &["in_a.npy", "in_b.npy"],
        &["out_o.npy"],
    );
}

#[test]
fn activations_f32() {
    check(
        "tosa_activations_f32",
        &["in_x.npy"],
        &["out_sig.npy", "out_th.npy", "out_ex.npy", "out_rmax.npy"],
    );
}

#[test]
fn int_ops_i32() {
    check(
        "tosa_int_ops_i32",
        &["in_a.npy", "in_b.npy", "in_s.npy"],
        &[
            "out_prod_xor.npy",
            "out_col_max.npy",
            "out_stacked.npy",
            "out_shifted.npy",
        ],
    );
}

#[test]
fn pool_reduce_f16() {
    check(
        "tosa_pool_reduce_f16",
        &["in_x.npy"],
        &["out_pooled.npy", "out_sums.npy"],
    );
}
