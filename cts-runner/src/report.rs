//! Reports: `results.csv`, `junit.xml` and the human-readable summary (`summary.txt`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::baseline::Verdict;
use crate::caselist::subgroup;
use crate::exec::{AMBER_NOT_IN_TREE, CaseResult};
use crate::status::Status;

/// One case's final record: its result, how it compares with the baseline and, when it was
/// re-run, the statuses of the re-runs.
#[derive(Debug, Clone)]
pub struct Record {
    /// The (first) result.
    pub result: CaseResult,
    /// Comparison with the baseline.
    pub verdict: Verdict,
    /// The status `fails.txt` expects, if listed.
    pub expected: Option<Status>,
    /// The case runs through Amber (listed in `amber.txt`).
    pub amber: bool,
    /// Statuses of re-runs (flake detection), in order.
    pub reruns: Vec<Status>,
}

/// Escapes text for XML attribute values and character data. Control characters that XML 1.0
/// cannot carry are replaced by `?`.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' => {
                let _ = write!(out, "&#{};", c as u32);
            }
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

/// Quotes a CSV field when it contains a comma, a quote or a line break (RFC 4180).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `results.csv`: a `case,status,duration_ms` header, then one line per case, sorted by name.
pub fn csv(records: &[Record]) -> String {
    let mut out = String::from("case,status,duration_ms\n");
    for r in records {
        let _ = writeln!(
            out,
            "{},{},{}",
            csv_field(&r.result.name),
            r.result.status,
            r.result.duration_ms
        );
    }
    out
}

fn by_subgroup(records: &[Record]) -> BTreeMap<&str, Vec<&Record>> {
    let mut groups: BTreeMap<&str, Vec<&Record>> = BTreeMap::new();
    for r in records {
        groups.entry(subgroup(&r.result.name)).or_default().push(r);
    }
    groups
}

/// `junit.xml`: one `<testsuite>` per subgroup. Regressions are `<failure>`s; skipped,
/// unsupported and expected-failure cases are `<skipped>`; flakes and fixed cases pass with a
/// note in `<system-out>`.
pub fn junit(records: &[Record]) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let is_skipped = |r: &Record| {
        matches!(r.verdict, Verdict::Skipped | Verdict::ExpectedFail)
            || matches!(r.result.status, Status::NotSupported | Status::Waiver)
    };
    let secs = |rs: &[&Record]| rs.iter().map(|r| r.result.duration_ms).sum::<u64>() as f64 / 1e3;
    let all: Vec<&Record> = records.iter().collect();
    let failures = |rs: &[&Record]| {
        rs.iter()
            .filter(|r| r.verdict == Verdict::Regression)
            .count()
    };
    let skipped = |rs: &[&Record]| rs.iter().filter(|r| is_skipped(r)).count();
    let _ = writeln!(
        out,
        "<testsuites name=\"dEQP-VK\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3}\">",
        all.len(),
        failures(&all),
        skipped(&all),
        secs(&all)
    );
    for (group, rs) in by_subgroup(records) {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3}\">",
            xml_escape(group),
            rs.len(),
            failures(&rs),
            skipped(&rs),
            secs(&rs)
        );
        for r in rs {
            let name = r
                .result
                .name
                .strip_prefix(group)
                .and_then(|s| s.strip_prefix('.'))
                .unwrap_or(&r.result.name);
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                xml_escape(group),
                xml_escape(name),
                r.result.duration_ms as f64 / 1e3
            );
            let status = r.result.status;
            let details = &r.result.details;
            let body = match r.verdict {
                Verdict::Regression => {
                    let expected = r.expected.map_or("Pass".to_string(), |s| s.to_string());
                    let message = format!("{status} (expected {expected}): {details}");
                    Some(format!(
                        "<failure type=\"{status}\" message=\"{}\">{}</failure>",
                        xml_escape(&message),
                        xml_escape(&format!("{details}{}", rerun_text(r)))
                    ))
                }
                Verdict::Skipped => Some("<skipped message=\"listed in skips.txt\"/>".to_string()),
                Verdict::ExpectedFail => Some(format!(
                    "<skipped message=\"{}\"/>",
                    xml_escape(&format!(
                        "expected failure (fails.txt): {status}: {details}"
                    ))
                )),
                Verdict::Pass if is_skipped(r) => {
                    let amber = if r.amber && status == Status::NotSupported {
                        " (Amber-based case, amber.txt)"
                    } else {
                        ""
                    };
                    Some(format!(
                        "<skipped message=\"{}\"/>",
                        xml_escape(&format!("{status}{amber}: {details}"))
                    ))
                }
                Verdict::Flake => Some(format!(
                    "<system-out>{}</system-out>",
                    xml_escape(&format!("flake: {status}: {details}{}", rerun_text(r)))
                )),
                Verdict::Fixed => Some(format!(
                    "<system-out>{}</system-out>",
                    xml_escape(&format!(
                        "fixed: fails.txt expects {}, got {status}",
                        r.expected.map_or("?".to_string(), |s| s.to_string())
                    ))
                )),
                Verdict::Pass => None,
            };
            match body {
                Some(b) => {
                    let _ = writeln!(out, ">\n      {b}\n    </testcase>");
                }
                None => out.push_str("/>\n"),
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn rerun_text(r: &Record) -> String {
    if r.reruns.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = r.reruns.iter().map(|s| s.to_string()).collect();
        format!(" (re-run: {})", list.join(", "))
    }
}

/// Facts about the run shown at the top of the summary.
#[derive(Debug, Clone, Default)]
pub struct RunInfo {
    /// Pinned CTS revision, e.g. `vulkan-cts-1.4.6.1 (5c8aae2…)`.
    pub cts_revision: String,
    /// Path of `deqp-vk`.
    pub deqp: String,
    /// The group globs.
    pub groups: Vec<String>,
    /// Number of worker processes.
    pub jobs: usize,
    /// Number of batches started (first run, without re-launches).
    pub batches: usize,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Notes about processes that ended abnormally outside a case.
    pub notes: Vec<String>,
    /// The expectations directory.
    pub expectations: String,
}

/// Counts per status.
pub fn counts<'a>(records: impl IntoIterator<Item = &'a Record>) -> BTreeMap<Status, usize> {
    let mut m = BTreeMap::new();
    for r in records {
        *m.entry(r.result.status).or_insert(0) += 1;
    }
    m
}

/// The summary: per-subgroup table, then regressions, flakes, fixed cases and notes.
pub fn summary(records: &[Record], info: &RunInfo) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "CTS revision : {}", info.cts_revision);
    let _ = writeln!(out, "deqp-vk      : {}", info.deqp);
    let _ = writeln!(out, "groups       : {}", info.groups.join(" "));
    let _ = writeln!(out, "expectations : {}", info.expectations);
    let _ = writeln!(
        out,
        "run          : {} cases, {} batches on {} jobs, {:.1} s",
        records.len(),
        info.batches,
        info.jobs,
        info.seconds
    );
    out.push('\n');

    let total = counts(records);
    let columns: Vec<Status> = Status::ALL
        .into_iter()
        .filter(|s| total.contains_key(s))
        .collect();
    let groups = by_subgroup(records);
    let width = groups
        .keys()
        .map(|g| g.len())
        .max()
        .unwrap_or(0)
        .max("subgroup".len());
    let mut header = format!("{:<width$}  {:>6}", "subgroup", "total");
    for s in &columns {
        let _ = write!(header, "  {:>w$}", s.as_str(), w = s.as_str().len().max(4));
    }
    header.push_str("  regressions");
    let _ = writeln!(out, "{header}");
    let _ = writeln!(out, "{}", "-".repeat(header.len()));
    let row = |out: &mut String, name: &str, rs: &[&Record]| {
        let c = counts(rs.iter().copied());
        let _ = write!(out, "{:<width$}  {:>6}", name, rs.len());
        for s in &columns {
            let _ = write!(
                out,
                "  {:>w$}",
                c.get(s).copied().unwrap_or(0),
                w = s.as_str().len().max(4)
            );
        }
        let regressions = rs
            .iter()
            .filter(|r| r.verdict == Verdict::Regression)
            .count();
        let _ = writeln!(out, "  {regressions:>11}");
    };
    for (group, rs) in &groups {
        row(&mut out, group, rs);
    }
    let _ = writeln!(out, "{}", "-".repeat(header.len()));
    let all: Vec<&Record> = records.iter().collect();
    row(&mut out, "total", &all);
    let amber: Vec<&Record> = records.iter().filter(|r| r.amber).collect();
    if !amber.is_empty() {
        let by_status: Vec<String> = counts(amber.iter().copied())
            .iter()
            .map(|(s, n)| format!("{n} {s}"))
            .collect();
        let _ = writeln!(
            out,
            "\nAmber-based cases (amber.txt): {} ({})",
            amber.len(),
            by_status.join(", ")
        );
        let absent = amber
            .iter()
            .filter(|r| r.result.details == AMBER_NOT_IN_TREE)
            .count();
        if absent > 0 {
            let _ = writeln!(
                out,
                "  {absent} of them are not in this deqp-vk's test tree (built without Amber) and \
                 count as NotSupported"
            );
        }
    }

    let list = |out: &mut String, verdict: Verdict, title: &str| {
        let rs: Vec<&Record> = records.iter().filter(|r| r.verdict == verdict).collect();
        if rs.is_empty() {
            return;
        }
        let _ = writeln!(out, "\n{title} ({}):", rs.len());
        for r in rs {
            let expected = r
                .expected
                .map_or(String::new(), |s| format!(", fails.txt expects {s}"));
            let details = if r.result.details.is_empty() {
                String::new()
            } else {
                format!(": {}", one_line(&r.result.details))
            };
            let _ = writeln!(
                out,
                "  {} {}{expected}{}{details}",
                r.result.name,
                r.result.status,
                rerun_text(r)
            );
        }
    };
    list(&mut out, Verdict::Regression, "Regressions");
    list(&mut out, Verdict::Flake, "Flakes");
    list(
        &mut out,
        Verdict::Fixed,
        "Fixed (remove from fails.txt, or re-run with --update-baseline)",
    );
    let expected = records
        .iter()
        .filter(|r| r.verdict == Verdict::ExpectedFail)
        .count();
    if expected > 0 {
        let _ = writeln!(out, "\nExpected failures (fails.txt): {expected}");
    }
    let unlisted_flakes: Vec<&Record> = records
        .iter()
        .filter(|r| r.verdict == Verdict::Flake && !r.reruns.is_empty())
        .collect();
    if !unlisted_flakes.is_empty() {
        let _ = writeln!(
            out,
            "\nThese cases changed result when re-run; consider listing them in flakes.txt:"
        );
        for r in unlisted_flakes {
            let _ = writeln!(out, "  {}", regex_quote(&r.result.name));
        }
    }
    if !info.notes.is_empty() {
        let _ = writeln!(out, "\nProcess notes:");
        for n in &info.notes {
            let _ = writeln!(out, "  {n}");
        }
    }
    let regressions = records
        .iter()
        .filter(|r| r.verdict == Verdict::Regression)
        .count();
    if regressions == 0 {
        let _ = writeln!(out, "\nResult: OK, no regressions against the baseline");
    } else {
        let _ = writeln!(
            out,
            "\nResult: FAILED, {regressions} regression(s) against the baseline"
        );
    }
    out
}

fn one_line(s: &str) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > 200 {
        s.chars().take(200).collect::<String>() + "…"
    } else {
        s
    }
}

/// Escapes the regex metacharacters of a case name, for `flakes.txt`.
pub fn regex_quote(name: &str) -> String {
    regex::escape(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(name: &str, status: Status, verdict: Verdict) -> Record {
        Record {
            result: CaseResult {
                name: name.to_string(),
                status,
                details: "d <&>".to_string(),
                duration_ms: 1500,
            },
            verdict,
            expected: None,
            amber: false,
            reruns: vec![],
        }
    }

    #[test]
    fn escaping() {
        assert_eq!(xml_escape("a<b>&\"'\n"), "a&lt;b&gt;&amp;&quot;&apos;&#10;");
        assert_eq!(xml_escape("\u{1}x"), "?x");
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn csv_and_junit() {
        let records = vec![
            rec("dEQP-VK.t.a.x", Status::Pass, Verdict::Pass),
            rec("dEQP-VK.t.a.y", Status::Fail, Verdict::Regression),
            rec("dEQP-VK.t.b.z", Status::NotSupported, Verdict::Pass),
            rec("dEQP-VK.t.b.w", Status::Skip, Verdict::Skipped),
        ];
        let c = csv(&records);
        assert!(c.starts_with("case,status,duration_ms\n"));
        assert!(c.contains("dEQP-VK.t.a.y,Fail,1500\n"));
        let j = junit(&records);
        assert!(j.contains(
            "<testsuites name=\"dEQP-VK\" tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"2\""
        ));
        assert!(j.contains("<testsuite name=\"dEQP-VK.t.a\" tests=\"2\" failures=\"1\""));
        assert!(j.contains("<testcase classname=\"dEQP-VK.t.a\" name=\"x\" time=\"1.500\"/>"));
        assert!(
            j.contains("<failure type=\"Fail\" message=\"Fail (expected Pass): d &lt;&amp;&gt;\">")
        );
        assert!(j.contains("<skipped message=\"listed in skips.txt\"/>"));
        let s = summary(&records, &RunInfo::default());
        assert!(s.contains("dEQP-VK.t.a"));
        assert!(s.contains("Regressions (1):"));
        assert!(s.contains("Result: FAILED"));
        assert!(!s.contains("Amber"));
    }

    #[test]
    fn amber_cases_are_counted_apart() {
        let mut absent = rec("dEQP-VK.t.amber.x", Status::NotSupported, Verdict::Pass);
        absent.amber = true;
        absent.result.details = AMBER_NOT_IN_TREE.to_string();
        let mut stub = rec("dEQP-VK.t.amber.y", Status::NotSupported, Verdict::Pass);
        stub.amber = true;
        let mut ran = rec("dEQP-VK.t.amber.z", Status::Pass, Verdict::Pass);
        ran.amber = true;
        let other = rec("dEQP-VK.t.b.w", Status::NotSupported, Verdict::Pass);
        let records = vec![absent, stub, ran, other];
        let s = summary(&records, &RunInfo::default());
        assert!(
            s.contains("Amber-based cases (amber.txt): 3 (1 Pass, 2 NotSupported)"),
            "{s}"
        );
        assert!(
            s.contains("  1 of them are not in this deqp-vk's test tree"),
            "{s}"
        );
        let j = junit(&records);
        assert!(j.contains("<skipped message=\"NotSupported (Amber-based case, amber.txt): d"));
        assert!(j.contains("<skipped message=\"NotSupported: d &lt;&amp;&gt;\"/>"));
        assert!(j.contains("skipped=\"3\""));
    }
}
