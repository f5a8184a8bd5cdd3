//! Case lists: reading deqp's `--deqp-runmode=txt-caselist` output (or a plain list such as a
//! mustpass file), selecting cases, and splitting them into batches.

use crate::glob;

/// Extracts case names from a case list.
///
/// Accepts deqp's `txt-caselist` format (`GROUP: dEQP-VK.x` lines, ignored, and
/// `TEST: dEQP-VK.x.y` lines) as well as plain lists with one case name per line (mustpass
/// files). Blank lines and `#` comments are skipped.
pub fn parse(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("GROUP:"))
        .map(|l| l.strip_prefix("TEST:").unwrap_or(l).trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Which cases of the full list to run.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// A case must match one of these globs (an empty list selects everything).
    pub groups: Vec<String>,
    /// If non-empty, a case must also match one of these globs.
    pub include: Vec<String>,
    /// Cases matching any of these globs are dropped.
    pub exclude: Vec<String>,
    /// Keep every Nth of the remaining cases (1 keeps all).
    pub fraction: usize,
}

impl Selection {
    /// Applies the selection, keeping the order of `cases` and dropping duplicates.
    pub fn apply(&self, cases: &[String]) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        cases
            .iter()
            .filter(|c| self.groups.is_empty() || glob::matches_any(&self.groups, c))
            .filter(|c| self.include.is_empty() || glob::matches_any(&self.include, c))
            .filter(|c| !glob::matches_any(&self.exclude, c))
            .filter(|c| seen.insert(c.as_str()))
            .enumerate()
            .filter(|(i, _)| i % self.fraction.max(1) == 0)
            .map(|(_, c)| c.clone())
            .collect()
    }
}

/// The second-level group of a case (`dEQP-VK.tensor.copies` for
/// `dEQP-VK.tensor.copies.r8_uint_to_r8_uint`); names with fewer components use their parent.
pub fn subgroup(case: &str) -> &str {
    let mut dots = case.match_indices('.').map(|(i, _)| i);
    match (dots.next(), dots.next(), dots.next()) {
        (_, _, Some(third)) => &case[..third],
        (_, Some(second), None) => &case[..second],
        _ => case,
    }
}

/// The number of cases per batch: at most `max_batch`, and small enough that each of the `jobs`
/// workers gets at least one batch.
pub fn batch_size(n: usize, jobs: usize, max_batch: usize) -> usize {
    n.div_ceil(jobs.max(1)).clamp(1, max_batch.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parse_txt_caselist() {
        let text = "GROUP: dEQP-VK\nGROUP: dEQP-VK.tensor\nTEST: dEQP-VK.tensor.a\r\nTEST: dEQP-VK.tensor.b\n\n";
        assert_eq!(
            parse(text),
            names(&["dEQP-VK.tensor.a", "dEQP-VK.tensor.b"])
        );
        // Plain (mustpass) lists too.
        assert_eq!(
            parse("# x\ndEQP-VK.a.b\ndEQP-VK.a.c\n"),
            names(&["dEQP-VK.a.b", "dEQP-VK.a.c"])
        );
    }

    #[test]
    fn selection() {
        let all = names(&[
            "dEQP-VK.api.x",
            "dEQP-VK.tensor.copies.a",
            "dEQP-VK.tensor.copies.b",
            "dEQP-VK.tensor.boolean.a",
            "dEQP-VK.tensor.boolean.b",
            "dEQP-VK.tensor.boolean.b",
        ]);
        let sel = Selection {
            groups: vec!["dEQP-VK.tensor.*".into()],
            fraction: 1,
            ..Selection::default()
        };
        assert_eq!(sel.apply(&all).len(), 4);
        let sel = Selection {
            groups: vec!["dEQP-VK.tensor.*".into()],
            exclude: vec!["*.boolean.*".into()],
            fraction: 1,
            ..Selection::default()
        };
        assert_eq!(
            sel.apply(&all),
            names(&["dEQP-VK.tensor.copies.a", "dEQP-VK.tensor.copies.b"])
        );
        let sel = Selection {
            groups: vec!["dEQP-VK.tensor.*".into()],
            include: vec!["*.b".into()],
            fraction: 1,
            ..Selection::default()
        };
        assert_eq!(
            sel.apply(&all),
            names(&["dEQP-VK.tensor.copies.b", "dEQP-VK.tensor.boolean.b"])
        );
        let sel = Selection {
            fraction: 2,
            ..Selection::default()
        };
        assert_eq!(
            sel.apply(&all),
            names(&[
                "dEQP-VK.api.x",
                "dEQP-VK.tensor.copies.b",
                "dEQP-VK.tensor.boolean.b"
            ])
        );
    }

    #[test]
    fn subgroups() {
        assert_eq!(
            subgroup("dEQP-VK.tensor.copies.r8_uint_to_r8_uint"),
            "dEQP-VK.tensor.copies"
        );
        assert_eq!(subgroup("dEQP-VK.a.b.c.d"), "dEQP-VK.a.b");
        assert_eq!(subgroup("dEQP-VK.info.build"), "dEQP-VK.info");
        assert_eq!(subgroup("dEQP-VK.x"), "dEQP-VK.x");
    }

    #[test]
    fn batch_sizes() {
        assert_eq!(batch_size(844, 2, 100), 100);
        assert_eq!(batch_size(844, 16, 100), 53);
        assert_eq!(batch_size(5, 2, 100), 3);
        assert_eq!(batch_size(3, 1, 100), 3);
        assert_eq!(batch_size(0, 2, 100), 1);
        assert_eq!(batch_size(40, 1, 5), 5);
    }
}
