//! Mesa-style baselines (`expectations/`) and the comparison of a run against them.
//!
//! - `fails.txt`: one `case,Status` per line, for every case whose expected result is not a pass
//!   (e.g. `dEQP-VK.tensor.copies.x,Fail`). A case that ends with exactly that status is an
//!   expected failure; any other non-pass status is a regression; a pass is a fix.
//! - `flakes.txt`: one regular expression per line, matched against the whole case name (a plain
//!   case name matches itself). Whatever such a case returns is not a regression.
//! - `skips.txt`: one glob per line (`*` and `?`); matching cases are never run and get `Skip`.
//! - `amber.txt`: globs of the CTS cases that run through Amber (`.amber` scripts). A `deqp-vk`
//!   built without Amber reports them NotSupported, or does not have them at all; the runner then
//!   records them NotSupported (see `exec::AMBER_NOT_IN_TREE`) and reports them apart from the
//!   cases Tessera itself does not support. Any other result counts as usual, so with a `deqp-vk`
//!   that has Amber these cases are compared with `fails.txt` like every other case.
//!
//! In all of them, blank lines and lines starting with `#` are ignored. Missing files count as
//! empty.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use regex::Regex;

use crate::glob;
use crate::status::Status;

/// The expectation lists.
#[derive(Debug, Default)]
pub struct Baseline {
    /// Expected non-pass status per case, from `fails.txt`.
    pub fails: BTreeMap<String, Status>,
    /// Flake patterns from `flakes.txt`, compiled and anchored at both ends.
    pub flakes: Vec<Regex>,
    /// Skip globs from `skips.txt`.
    pub skips: Vec<String>,
    /// Globs of the Amber-based cases, from `amber.txt`.
    pub amber: Vec<String>,
}

/// How one result compares with the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// Pass, NotSupported or Waiver, and not listed in `fails.txt`.
    Pass,
    /// Listed in `skips.txt`; not run.
    Skipped,
    /// Non-pass status exactly as listed in `fails.txt`.
    ExpectedFail,
    /// Listed in `fails.txt`, but now Pass/NotSupported/Waiver: the baseline entry is stale.
    Fixed,
    /// Non-pass, but the case is listed in `flakes.txt` or changed result when re-run.
    Flake,
    /// Non-pass and not expected: the run fails.
    Regression,
}

impl Verdict {
    /// The label used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Skipped => "skipped",
            Verdict::ExpectedFail => "expected failure",
            Verdict::Fixed => "fixed",
            Verdict::Flake => "flake",
            Verdict::Regression => "REGRESSION",
        }
    }
}

/// Lines of a list file without comments and blanks: `(1-based line number, trimmed text)`.
fn entries(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

/// Parses one `case,Status` line of `fails.txt`.
fn parse_fail_line(line: &str) -> Result<(String, Status), String> {
    let (case, status) = line
        .split_once(',')
        .ok_or_else(|| format!("expected `case,Status`, got `{line}`"))?;
    let case = case.trim();
    let status = status.trim();
    if case.is_empty() || case.contains(char::is_whitespace) {
        return Err(format!("bad case name `{case}`"));
    }
    let status =
        Status::parse(status).ok_or_else(|| format!("unknown status `{status}` for {case}"))?;
    if status.is_ok() {
        return Err(format!(
            "{case}: `{status}` is not a failure status; remove the line instead"
        ));
    }
    Ok((case.to_string(), status))
}

/// Parses the text of `fails.txt`.
///
/// # Errors
/// A malformed line or an unknown status, with its line number.
pub fn parse_fails(text: &str) -> Result<BTreeMap<String, Status>, String> {
    let mut out = BTreeMap::new();
    for (no, line) in entries(text) {
        let (case, status) = parse_fail_line(line).map_err(|e| format!("line {no}: {e}"))?;
        if out.insert(case.clone(), status).is_some() {
            return Err(format!("line {no}: {case} is listed twice"));
        }
    }
    Ok(out)
}

/// Parses the text of `flakes.txt` into anchored regexes.
///
/// # Errors
/// An invalid regular expression, with its line number.
pub fn parse_flakes(text: &str) -> Result<Vec<Regex>, String> {
    entries(text)
        .map(|(no, line)| {
            Regex::new(&format!("^(?:{line})$")).map_err(|e| format!("line {no}: {e}"))
        })
        .collect()
}

/// Parses the text of a glob list (`skips.txt`, `amber.txt`).
pub fn parse_globs(text: &str) -> Vec<String> {
    entries(text).map(|(_, l)| l.to_string()).collect()
}

fn read_optional(path: &Path) -> Result<String, String> {
    match fs::read_to_string(path) {
        Ok(s) => Ok(s),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

impl Baseline {
    /// Loads `fails.txt`, `flakes.txt`, `skips.txt` and `amber.txt` from `dir` (missing files
    /// are empty).
    ///
    /// # Errors
    /// An unreadable or malformed file.
    pub fn load(dir: &Path) -> Result<Baseline, String> {
        let file = |name: &str| -> Result<String, String> { read_optional(&dir.join(name)) };
        let with_name = |name: &str, e: String| format!("{}: {e}", dir.join(name).display());
        Ok(Baseline {
            fails: parse_fails(&file("fails.txt")?).map_err(|e| with_name("fails.txt", e))?,
            flakes: parse_flakes(&file("flakes.txt")?).map_err(|e| with_name("flakes.txt", e))?,
            skips: parse_globs(&file("skips.txt")?),
            amber: parse_globs(&file("amber.txt")?),
        })
    }

    /// True if the case is listed in `skips.txt`.
    pub fn is_skipped(&self, case: &str) -> bool {
        glob::matches_any(&self.skips, case)
    }

    /// True if the case runs through Amber (listed in `amber.txt`).
    pub fn is_amber(&self, case: &str) -> bool {
        glob::matches_any(&self.amber, case)
    }

    /// True if the case matches a pattern of `flakes.txt`.
    pub fn is_flake(&self, case: &str) -> bool {
        self.flakes.iter().any(|r| r.is_match(case))
    }

    /// Compares one result with the baseline (ignoring re-runs; see [`Verdict::Flake`]).
    pub fn verdict(&self, case: &str, status: Status) -> Verdict {
        let expected = self.fails.get(case).copied();
        if status == Status::Skip {
            Verdict::Skipped
        } else if status.is_ok() {
            // An Amber-based case expected to fail (with Amber) is NotSupported in a deqp-vk
            // built without it: that is not a fix.
            let amberless = status == Status::NotSupported && self.is_amber(case);
            if expected.is_some() && !amberless {
                Verdict::Fixed
            } else {
                Verdict::Pass
            }
        } else if expected == Some(status) {
            Verdict::ExpectedFail
        } else if self.is_flake(case) {
            Verdict::Flake
        } else {
            Verdict::Regression
        }
    }
}

/// Rewrites the text of `fails.txt` for the results of a run.
///
/// Comment and blank lines stay where they are. An entry for a case that ran is replaced by its
/// new status if that is still a failure (not Pass/NotSupported/Waiver/Skip, not a flake), or
/// dropped. Entries for cases that did not run stay as they are. New failures are appended,
/// sorted, after a marker comment.
pub fn updated_fails(
    original: &str,
    results: &BTreeMap<String, Status>,
    is_flake: impl Fn(&str) -> bool,
) -> String {
    let failing = |case: &str| {
        results
            .get(case)
            .copied()
            .filter(|s| !s.is_ok() && !is_flake(case))
    };
    let mut out = String::new();
    let mut listed = BTreeSet::new();
    for line in original.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let Ok((case, _)) = parse_fail_line(trimmed) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        listed.insert(case.clone());
        if !results.contains_key(&case) {
            out.push_str(line);
            out.push('\n');
        } else if let Some(status) = failing(&case) {
            out.push_str(&format!("{case},{status}\n"));
        }
    }
    let new: Vec<_> = results
        .keys()
        .filter(|c| !listed.contains(*c))
        .filter_map(|c| failing(c).map(|s| format!("{c},{s}\n")))
        .collect();
    if !new.is_empty() {
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str("# Added by tessera-cts-runner --update-baseline\n");
        for line in new {
            out.push_str(&line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fails_parsing() {
        let text = "# comment\n\ndEQP-VK.a.b,Fail\n  dEQP-VK.a.c , Crash  \n#dEQP-VK.a.d,Fail\n";
        let fails = parse_fails(text).unwrap();
        assert_eq!(fails.len(), 2);
        assert_eq!(fails["dEQP-VK.a.b"], Status::Fail);
        assert_eq!(fails["dEQP-VK.a.c"], Status::Crash);
        assert!(parse_fails("# only comments\n").unwrap().is_empty());
    }

    #[test]
    fn fails_errors() {
        let e = parse_fails("dEQP-VK.a.b\n").unwrap_err();
        assert!(e.contains("line 1"), "{e}");
        let e = parse_fails("#\ndEQP-VK.a.b,Broken\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("Broken"), "{e}");
        let e = parse_fails("dEQP-VK.a.b,Pass\n").unwrap_err();
        assert!(e.contains("not a failure"), "{e}");
        let e = parse_fails("dEQP-VK.a.b,Fail\ndEQP-VK.a.b,Crash\n").unwrap_err();
        assert!(e.contains("twice"), "{e}");
    }

    #[test]
    fn flakes_and_skips() {
        let flakes = parse_flakes("# x\ndEQP-VK\\.tensor\\.copies\\..*\ndEQP-VK.a.b\n").unwrap();
        let base = Baseline {
            flakes,
            skips: parse_globs("# s\ndEQP-VK.tensor.graphics_pipeline.*\n"),
            ..Baseline::default()
        };
        assert!(base.is_flake("dEQP-VK.tensor.copies.r8"));
        assert!(!base.is_flake("dEQP-VK.tensor.boolean.r8"));
        assert!(base.is_flake("dEQP-VK.a.b"));
        // Anchored: a prefix is not enough.
        assert!(!base.is_flake("dEQP-VK.a.bc"));
        assert!(base.is_skipped("dEQP-VK.tensor.graphics_pipeline.600x600"));
        assert!(!base.is_skipped("dEQP-VK.tensor.copies.x"));
        assert!(parse_flakes("dEQP-VK.(\n").is_err());
    }

    #[test]
    fn verdicts() {
        let base = Baseline {
            fails: parse_fails("dEQP-VK.x.fail,Fail\ndEQP-VK.x.fixed,Fail\n").unwrap(),
            flakes: parse_flakes("dEQP-VK.x.flaky").unwrap(),
            ..Baseline::default()
        };
        assert_eq!(base.verdict("dEQP-VK.x.p", Status::Pass), Verdict::Pass);
        assert_eq!(
            base.verdict("dEQP-VK.x.p", Status::NotSupported),
            Verdict::Pass
        );
        assert_eq!(base.verdict("dEQP-VK.x.p", Status::Skip), Verdict::Skipped);
        assert_eq!(
            base.verdict("dEQP-VK.x.p", Status::Fail),
            Verdict::Regression
        );
        assert_eq!(
            base.verdict("dEQP-VK.x.fail", Status::Fail),
            Verdict::ExpectedFail
        );
        assert_eq!(
            base.verdict("dEQP-VK.x.fail", Status::Crash),
            Verdict::Regression
        );
        assert_eq!(
            base.verdict("dEQP-VK.x.fixed", Status::Pass),
            Verdict::Fixed
        );
        assert_eq!(
            base.verdict("dEQP-VK.x.flaky", Status::Fail),
            Verdict::Flake
        );
        assert_eq!(base.verdict("dEQP-VK.x.flaky", Status::Pass), Verdict::Pass);
    }

    #[test]
    fn amber_failures_are_not_fixed_by_an_amberless_build() {
        let base = Baseline {
            amber: parse_globs("dEQP-VK.x.amber_group.*\n"),
            fails: [("dEQP-VK.x.amber_group.a".to_string(), Status::Fail)]
                .into_iter()
                .collect(),
            ..Default::default()
        };
        assert_eq!(
            base.verdict("dEQP-VK.x.amber_group.a", Status::NotSupported),
            Verdict::Pass
        );
        assert_eq!(
            base.verdict("dEQP-VK.x.amber_group.a", Status::Fail),
            Verdict::ExpectedFail
        );
        assert_eq!(
            base.verdict("dEQP-VK.x.amber_group.a", Status::Pass),
            Verdict::Fixed
        );
    }

    #[test]
    fn amber_cases_are_not_supported_without_a_baseline_entry() {
        let base = Baseline {
            amber: parse_globs("# amber\ndEQP-VK.x.amber_group.*\ndEQP-VK.x.mixed.amber_case\n"),
            ..Baseline::default()
        };
        assert!(base.is_amber("dEQP-VK.x.amber_group.a"));
        assert!(base.is_amber("dEQP-VK.x.mixed.amber_case"));
        assert!(!base.is_amber("dEQP-VK.x.mixed.other_case"));
        assert!(!base.is_amber("dEQP-VK.x.amber_group_2.a"));
        // NotSupported (what a deqp-vk without Amber reports) needs no fails.txt entry; any other
        // result of an Amber-based case counts as for every case.
        assert_eq!(
            base.verdict("dEQP-VK.x.amber_group.a", Status::NotSupported),
            Verdict::Pass
        );
        assert_eq!(
            base.verdict("dEQP-VK.x.amber_group.a", Status::Fail),
            Verdict::Regression
        );
    }

    /// The committed `expectations/amber.txt` covers Amber-based cases of the pinned CTS
    /// (VK-GL-CTS vulkan-cts-1.4.6.1) and not the cases next to them in the same groups.
    #[test]
    fn committed_amber_list() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("expectations");
        let base = Baseline::load(&dir).unwrap();
        for case in [
            "dEQP-VK.compute.pipeline.basic.write_ssbo_array",
            "dEQP-VK.compute.pipeline.basic.pkadd_immediate",
            "dEQP-VK.compute.pipeline.zero_initialize_workgroup_memory.shared_memory_blocks.workgroup_size_128",
            "dEQP-VK.compute.pipeline.workgroup_memory_explicit_layout.copy_memory.basic",
            "dEQP-VK.spirv_assembly.instruction.compute.signed_op.uint_sdiv",
            "dEQP-VK.spirv_assembly.instruction.compute.opundef.undefined_constant_composite",
            "dEQP-VK.spirv_assembly.instruction.compute.float32.comparison_1.modfstruct",
            "dEQP-VK.spirv_assembly.instruction.spirv1p4.opcopylogical.ssbo_to_ubo",
            "dEQP-VK.subgroups.subgroup_uniform_control_flow.large_full.subgroup_reconverge00",
            "dEQP-VK.api.descriptor_set.descriptor_set_layout_binding.layout_binding_order",
            "dEQP-VK.glsl.builtin.precision.inverse.highp.mat3",
            "dEQP-VK.graphicsfuzz.always-discarding-function",
        ] {
            assert!(base.is_amber(case), "{case} is Amber-based");
        }
        for case in [
            "dEQP-VK.compute.pipeline.basic.empty_shader",
            "dEQP-VK.compute.shader_object_spirv.basic.write_ssbo_array",
            "dEQP-VK.compute.pipeline.zero_initialize_workgroup_memory.max_workgroup_memory.1",
            "dEQP-VK.spirv_assembly.instruction.compute.opundef.bool",
            "dEQP-VK.spirv_assembly.instruction.compute.opunreachable.all",
            "dEQP-VK.glsl.builtin.precision.inverse.highp.mat2",
            "dEQP-VK.texture.conversion.snorm_clamp_linear.r8_snorm",
            "dEQP-VK.tensor.copies.r8_uint_to_r8_uint",
        ] {
            assert!(!base.is_amber(case), "{case} is not Amber-based");
        }
    }

    #[test]
    fn update_keeps_comments_and_unrun_entries() {
        let original = "# Header\n\ndEQP-VK.x.fixed,Fail\ndEQP-VK.x.changed,Fail\n# keep\ndEQP-VK.y.notrun,Crash\n";
        let results: BTreeMap<String, Status> = [
            ("dEQP-VK.x.fixed", Status::Pass),
            ("dEQP-VK.x.changed", Status::Timeout),
            ("dEQP-VK.x.new", Status::Fail),
            ("dEQP-VK.x.flaky", Status::Fail),
            ("dEQP-VK.x.ok", Status::NotSupported),
        ]
        .into_iter()
        .map(|(c, s)| (c.to_string(), s))
        .collect();
        let out = updated_fails(original, &results, |c| c.ends_with("flaky"));
        assert_eq!(
            out,
            "# Header\n\ndEQP-VK.x.changed,Timeout\n# keep\ndEQP-VK.y.notrun,Crash\n\n\
             # Added by tessera-cts-runner --update-baseline\ndEQP-VK.x.new,Fail\n"
        );
        // The result parses back.
        assert_eq!(parse_fails(&out).unwrap().len(), 3);
        // Nothing to add, nothing to change.
        assert_eq!(
            updated_fails("# only\n", &BTreeMap::new(), |_| false),
            "# only\n"
        );
    }
}
