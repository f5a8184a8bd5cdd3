//! `bench-compare`'s report: the Markdown tables (shader workloads, data graphs, pipeline
//! creation, tensor copies, cooperative and IREE workloads) with their ratios, printed and
//! written to `target/bench-compare.md`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{COPIES, DENSE_FLOPS, Run, Selection, cooperative, graph_flops, iree};

pub(super) fn ms(ns: Option<f64>) -> String {
    ns.map_or_else(|| "n/a".into(), |v| format!("{:.2}", v / 1e6))
}

/// `a / b` with three significant digits when it is below 1 (a data graph's ratios span
/// 0.001–100), at least two decimals.
pub(super) fn ratio3(a: Option<f64>, b: Option<f64>) -> String {
    a.zip(b).map_or_else(
        || "n/a".into(),
        |(a, b)| {
            let v = a / b;
            let decimals = if v > 0.0 && v.is_finite() {
                (2 - v.log10().floor() as i32).clamp(2, 6) as usize
            } else {
                2
            };
            format!("{v:.decimals$}")
        },
    )
}

pub(super) fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    a.zip(b)
        .map_or_else(|| "n/a".into(), |(a, b)| format!("{:.2}", a / b))
}

pub(super) struct Report<'a> {
    pub(super) sel: &'a Selection,
    pub(super) jit: &'a Run,
    /// The JIT on one worker thread (the per-core column).
    pub(super) one_core: &'a Run,
    pub(super) interp: &'a Run,
    pub(super) lavapipe: &'a Run,
    /// Tessera's data graphs.
    pub(super) graphs: &'a Run,
    pub(super) numpy: &'a BTreeMap<String, f64>,
    /// Plain Rust: workload → ns.
    pub(super) rust: &'a BTreeMap<&'static str, f64>,
    pub(super) coop: &'a cooperative::CoopRun,
    pub(super) iree: &'a iree::IreeRun,
    pub(super) header: Vec<String>,
    pub(super) notes: Vec<String>,
}

impl Report<'_> {
    /// The data graph tables: dispatch times, ratios and GFLOP/s; pipeline creation.
    fn graph_tables(&self, md: &mut String) {
        let _ = writeln!(
            md,
            "\n| data graph | Tessera (ms) | lavapipe 25 + Arm layers (ms) | numpy (ms) | Tessera / numpy | Tessera / lavapipe | GFLOP/s: Tessera / lavapipe / numpy |\n|---|---:|---:|---:|---:|---:|---:|"
        );
        for &g in &self.sel.graphs {
            let t = self.graphs.graph_ns.get(g).copied();
            let l = self.lavapipe.graph_ns.get(g).copied();
            let np = self.numpy.get(g).map(|v| v * 1e6);
            let gflops = graph_flops(g).map_or_else(
                || "—".to_string(),
                |flops| {
                    let f = |ns: Option<f64>| {
                        ns.map_or_else(|| "n/a".into(), |v| format!("{:.1}", flops / v))
                    };
                    format!("{} / {} / {}", f(t), f(l), f(np))
                },
            );
            let _ = writeln!(
                md,
                "| {g} | {} | {} | {} | {} | {} | {gflops} |",
                ms(t),
                ms(l),
                ms(np),
                ratio3(t, np),
                ratio3(t, l)
            );
        }
        let _ = writeln!(
            md,
            "\n| data graph pipeline creation (vkCreateDataGraphPipelinesARM, no cache) | Tessera (ms) | lavapipe 25 + Arm layers (ms) | Tessera / lavapipe |\n|---|---:|---:|---:|"
        );
        for &g in &self.sel.graphs {
            let t = self.graphs.graph_create_ns.get(g).copied();
            let l = self.lavapipe.graph_create_ns.get(g).copied();
            let fine =
                |ns: Option<f64>| ns.map_or_else(|| "n/a".into(), |v| format!("{:.3}", v / 1e6));
            let _ = writeln!(md, "| {g} | {} | {} | {} |", fine(t), fine(l), ratio3(t, l));
        }
    }

    pub(super) fn markdown(&self) -> String {
        let mut md = String::new();
        for h in &self.header {
            let _ = writeln!(md, "{h}  ");
        }
        if !self.sel.shaders.is_empty() {
            let _ = writeln!(
                md,
                "\n| workload | Tessera JIT (ms) | JIT, 1 core (ms) | Tessera interp (ms) | lavapipe 25 + Arm layers (ms) | numpy (ms) | plain Rust (ms) | JIT / numpy | JIT / lavapipe | 1 core / plain Rust |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            );
            for w in &self.sel.shaders {
                let jit = self.jit.shader_ns.get(w).copied();
                let one = self.one_core.shader_ns.get(w).copied();
                let interp = self.interp.shader_ns.get(w).copied();
                let lvp = self.lavapipe.shader_ns.get(w).copied();
                let np = self.numpy.get(*w).map(|v| v * 1e6);
                let rust = self.rust.get(w).copied();
                let _ = writeln!(
                    md,
                    "| {w} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    ms(jit),
                    ms(one),
                    ms(interp),
                    ms(lvp),
                    ms(np),
                    ms(rust),
                    ratio(jit, np),
                    ratio(jit, lvp),
                    ratio(one, rust)
                );
            }
            if self.sel.shaders.contains(&"dense") {
                let gflops = |ns: Option<f64>| {
                    ns.map_or_else(|| "n/a".into(), |v| format!("{:.2}", DENSE_FLOPS / v))
                };
                let _ = writeln!(
                    md,
                    "\ndense layer (2·512·1024 FLOPs), GFLOP/s: Tessera JIT {}, Tessera interp {}, lavapipe 25 {}, numpy {}, plain Rust {}",
                    gflops(self.jit.shader_ns.get("dense").copied()),
                    gflops(self.interp.shader_ns.get("dense").copied()),
                    gflops(self.lavapipe.shader_ns.get("dense").copied()),
                    gflops(self.numpy.get("dense").map(|v| v * 1e6)),
                    gflops(self.rust.get("dense").copied()),
                );
            }
        }
        if !self.sel.graphs.is_empty() {
            self.graph_tables(&mut md);
        }
        if self.sel.pipelines {
            let _ = writeln!(
                md,
                "\n| pipeline creation (spirv-tests corpus) | pipelines | median per shader (ms) | max per shader (ms) | slowest | first creation: median / max (ms) | all, once each (ms) |\n|---|---:|---:|---:|---|---:|---:|"
            );
            for (name, r) in [
                ("Tessera JIT", self.jit),
                ("Tessera interp", self.interp),
                ("lavapipe 25 + Arm layers", self.lavapipe),
            ] {
                let f = |k: &str| {
                    r.pipelines
                        .as_ref()
                        .and_then(|p| p[k].as_f64())
                        .map_or_else(|| "n/a".into(), |v| format!("{v:.3}"))
                };
                let count = r.pipelines.as_ref().map_or_else(
                    || "n/a".into(),
                    |p| {
                        let rejected = p["rejected"].as_array().map_or(0, Vec::len);
                        let n = p["pipelines"].as_u64().unwrap_or(0);
                        if rejected > 0 {
                            format!("{n} ({rejected} rejected)")
                        } else {
                            n.to_string()
                        }
                    },
                );
                let slowest = r
                    .pipelines
                    .as_ref()
                    .and_then(|p| p["slowest"].as_str())
                    .unwrap_or("n/a");
                let _ = writeln!(
                    md,
                    "| {name} | {count} | {} | {} | {slowest} | {} / {} | {} |",
                    f("median_ms"),
                    f("max_ms"),
                    f("first_median_ms"),
                    f("first_max_ms"),
                    ms(r.pipelines_all_ns)
                );
            }
        }
        if self.sel.copies {
            let _ = writeln!(
                md,
                "\n| tensor copy | Tessera (× memcpy) | lavapipe 25 + Arm layers (× memcpy) | Tessera speed / lavapipe speed |\n|---|---:|---:|---:|"
            );
            for g in COPIES {
                let (t, l) = (
                    self.jit.copy_vs_memcpy.get(g).copied(),
                    self.lavapipe.copy_vs_memcpy.get(g).copied(),
                );
                let x = |v: Option<f64>| v.map_or_else(|| "n/a".into(), |v| format!("{v:.3}"));
                let _ = writeln!(md, "| {g} | {} | {} | {} |", x(t), x(l), ratio(t, l));
            }
        }
        if self.sel.iree {
            iree::markdown(self.iree, &mut md);
        }
        if !self.sel.coop.is_empty() {
            cooperative::markdown(self.coop, &mut md);
        }
        let notes: Vec<&String> = self
            .notes
            .iter()
            .chain(&self.coop.notes)
            .chain(&self.iree.notes)
            .chain(&self.jit.notes)
            .chain(&self.interp.notes)
            .chain(&self.graphs.notes)
            .chain(&self.lavapipe.notes)
            .collect();
        if !notes.is_empty() {
            let _ = writeln!(md);
            for n in notes {
                let _ = writeln!(md, "- {}", n.replace('\n', " / "));
            }
        }
        md
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_ratios_keep_three_digits() {
        assert_eq!(ratio3(Some(1.4449), Some(1.0)), "1.44");
        assert_eq!(ratio3(Some(0.013), Some(6.568)), "0.00198");
        assert_eq!(ratio3(Some(0.0541), Some(1.0)), "0.0541");
        assert_eq!(ratio3(None, Some(1.0)), "n/a");
    }
}
