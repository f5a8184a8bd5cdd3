//! Glob matching for case names: `*` matches any run of characters (dots included), `?` matches
//! exactly one character, everything else matches itself. Patterns are matched against the whole
//! name, so `dEQP-VK.tensor.*` selects the tensor group and `*copies*` any name containing
//! `copies`.

/// True if `name` matches the glob `pattern` as a whole.
///
/// Greedy matching with a single backtrack point (the last `*`), linear in practice and never
/// exponential.
pub fn matches(pattern: &str, name: &str) -> bool {
    let p = pattern.as_bytes();
    let n = name.as_bytes();
    let (mut pi, mut ni) = (0usize, 0usize);
    // Position of the last `*` seen in the pattern, and the name position it is trying to absorb.
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && (p[pi] == b'?' || (p[pi] != b'*' && p[pi] == n[ni])) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ni));
            pi += 1;
        } else if let Some((sp, sn)) = star {
            // Let the last star absorb one more character and retry.
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// True if `name` matches any of `patterns`.
pub fn matches_any<S: AsRef<str>>(patterns: &[S], name: &str) -> bool {
    patterns.iter().any(|p| matches(p.as_ref(), name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal() {
        assert!(matches(
            "dEQP-VK.tensor.copies.a",
            "dEQP-VK.tensor.copies.a"
        ));
        assert!(!matches(
            "dEQP-VK.tensor.copies.a",
            "dEQP-VK.tensor.copies.ab"
        ));
        assert!(!matches(
            "dEQP-VK.tensor.copies.ab",
            "dEQP-VK.tensor.copies.a"
        ));
        assert!(matches("", ""));
        assert!(!matches("", "x"));
    }

    #[test]
    fn star() {
        assert!(matches("dEQP-VK.tensor.*", "dEQP-VK.tensor.copies.x"));
        assert!(!matches("dEQP-VK.tensor.*", "dEQP-VK.tensors"));
        assert!(!matches("dEQP-VK.tensor.*", "dEQP-VK.api.tensor.x"));
        assert!(matches("*", ""));
        assert!(matches("*", "anything.at.all"));
        assert!(matches("*copies*", "dEQP-VK.tensor.copies.r8"));
        assert!(matches(
            "*.r8_*_to_*",
            "dEQP-VK.tensor.copies.r8_uint_to_r8_sint"
        ));
        assert!(matches("a*b*c", "aXXbYYbZZc"));
        assert!(!matches("a*b*c", "aXXbYYbZZ"));
        assert!(matches("a**b", "ab"));
        // Backtracking past a partial match.
        assert!(matches("*aab", "aaab"));
        assert!(matches("*.linear_*_optimal", "x.linear_a.linear_b_optimal"));
    }

    #[test]
    fn question_mark() {
        assert!(matches("a?c", "abc"));
        assert!(!matches("a?c", "ac"));
        assert!(matches("dEQP-VK.fake.pass.?", "dEQP-VK.fake.pass.7"));
        assert!(!matches("dEQP-VK.fake.pass.?", "dEQP-VK.fake.pass.17"));
    }

    #[test]
    fn any() {
        let pats = ["dEQP-VK.a.*", "dEQP-VK.b.x"];
        assert!(matches_any(&pats, "dEQP-VK.a.y"));
        assert!(matches_any(&pats, "dEQP-VK.b.x"));
        assert!(!matches_any(&pats, "dEQP-VK.b.y"));
        assert!(!matches_any::<&str>(&[], "dEQP-VK.b.y"));
    }
}
