//! Parser for deqp's test log (`.qpa`, log format 0.3.x).
//!
//! A log is a sequence of lines. Control lines start with `#`:
//!
//! ```text
//! #sessionInfo releaseName git-5c8aae22…
//! #beginSession
//! #beginTestCaseResult dEQP-VK.tensor.copies.x
//! <?xml version="1.0" encoding="UTF-8"?>
//! <TestCaseResult Version="0.3.4" CasePath="dEQP-VK.tensor.copies.x" CaseType="SelfValidate">
//! <Number Name="TestDuration" Description="…" Tag="Time" Unit="us">1234</Number>
//! <Result StatusCode="Pass">Pass</Result>
//! </TestCaseResult>
//!
//! #endTestCaseResult
//! #beginTestCaseResult dEQP-VK.tensor.copies.y
//! …
//! #terminateTestCaseResult Crash
//! #endSession
//! ```
//!
//! Between `#beginTestCaseResult` and `#endTestCaseResult` is one XML document whose `<Result>`
//! element carries the status. `#terminateTestCaseResult <status>` closes a case deqp itself gave
//! up on (its crash handler or watchdog). A case that was begun but neither ended nor terminated
//! (the log stops: the process died or was killed) is reported with `status: None`; the caller
//! decides whether that is a `Crash` or a `Timeout`.
//!
//! The parser is deliberately forgiving: it only looks for the few things it needs, never fails,
//! and ignores a torn last line.

use crate::status::Status;

/// One case found in a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QpaCase {
    /// Full case name, e.g. `dEQP-VK.tensor.copies.r8_uint_to_r8_uint`.
    pub name: String,
    /// The logged status, or `None` if the case began but the log ends before its result.
    pub status: Option<Status>,
    /// The text of the `<Result>` element (deqp's short message), or the termination reason.
    pub details: String,
    /// `TestDuration` in microseconds, when logged.
    pub duration_us: Option<u64>,
}

/// Parses a whole (possibly truncated) log.
pub fn parse(text: &str) -> Vec<QpaCase> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None; // (name, XML body)
    let complete_len = if text.ends_with('\n') {
        text.len()
    } else {
        // Ignore a torn last line (the writer was interrupted mid-line), but keep its bytes for
        // the XML body of an open case: it cannot be a complete control line.
        text.rfind('\n').map_or(0, |i| i + 1)
    };
    for line in text[..complete_len].lines() {
        let line = line.trim_end_matches('\r');
        if let Some(rest) = line.strip_prefix('#') {
            let (keyword, arg) = rest.split_once(' ').unwrap_or((rest, ""));
            let arg = arg.trim();
            match keyword {
                "beginTestCaseResult" => {
                    if let Some((name, _)) = current.take() {
                        // A new case began without the previous one ending: the log is
                        // inconsistent; report the earlier case as unfinished.
                        out.push(unfinished(name));
                    }
                    current = Some((arg.to_string(), String::new()));
                }
                "endTestCaseResult" => {
                    if let Some((name, body)) = current.take() {
                        out.push(finished(name, &body));
                    }
                }
                "terminateTestCaseResult" => {
                    if let Some((name, _)) = current.take() {
                        let reason = arg.split_whitespace().next().unwrap_or("");
                        out.push(QpaCase {
                            name,
                            status: Some(Status::parse(reason).unwrap_or(Status::Crash)),
                            details: format!("terminated by deqp-vk: {arg}"),
                            duration_us: None,
                        });
                    }
                }
                // #sessionInfo, #beginSession, #endSession and anything unknown.
                _ => {}
            }
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    if let Some((name, _)) = current.take() {
        out.push(unfinished(name));
    }
    out
}

/// True if the log ends its session (`#endSession` on a line of its own): deqp went through its
/// whole test tree, so a case it was given but never began is not in that tree.
pub fn session_ended(text: &str) -> bool {
    text.lines()
        .any(|l| l.trim_end_matches('\r') == "#endSession")
}

fn unfinished(name: String) -> QpaCase {
    QpaCase {
        name,
        status: None,
        details: String::new(),
        duration_us: None,
    }
}

fn finished(name: String, body: &str) -> QpaCase {
    let (status, details) = match find_result(body) {
        Some((code, text)) => match Status::parse(code) {
            Some(st) => (st, unescape(text.trim())),
            None => (
                Status::InternalError,
                format!("unknown StatusCode \"{code}\": {}", unescape(text.trim())),
            ),
        },
        None => (
            Status::InternalError,
            "the case ended without a <Result> element".to_string(),
        ),
    };
    QpaCase {
        name,
        status: Some(status),
        details,
        duration_us: find_duration(body),
    }
}

/// Finds `<Result StatusCode="X" …>text</Result>` and returns `(X, text)`.
fn find_result(body: &str) -> Option<(&str, &str)> {
    let start = body.rfind("<Result ")?;
    let elem = &body[start..];
    let code = attribute(elem, "StatusCode")?;
    let open_end = elem.find('>')?;
    if elem[..open_end].ends_with('/') {
        return Some((code, ""));
    }
    let content = &elem[open_end + 1..];
    let text = content.find("</Result>").map_or(content, |e| &content[..e]);
    Some((code, text))
}

/// The value of `name="…"` in the start tag at the beginning of `elem`.
fn attribute<'a>(elem: &'a str, name: &str) -> Option<&'a str> {
    let tag_end = elem.find('>')?;
    let tag = &elem[..tag_end];
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    let len = tag[at..].find('"')?;
    Some(&tag[at..at + len])
}

/// `<Number Name="TestDuration" …>1234</Number>`, in microseconds.
fn find_duration(body: &str) -> Option<u64> {
    let start = body.find("<Number Name=\"TestDuration\"")?;
    let elem = &body[start..];
    let open_end = elem.find('>')?;
    let content = &elem[open_end + 1..];
    let end = content.find('<')?;
    let value = content[..end].trim();
    value
        .parse::<u64>()
        .ok()
        .or_else(|| value.parse::<f64>().ok().map(|f| f as u64))
}

/// Undoes XML's character escapes (the five named entities and numeric references).
pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp..];
        let Some(semi) = after.find(';').filter(|&i| i <= 10) else {
            out.push('&');
            rest = &after[1..];
            continue;
        };
        let entity = &after[1..semi];
        let decoded = match entity {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &after[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = r#"#sessionInfo releaseName git-5c8aae22885448d70a2873e94a93b24b49505c32
#sessionInfo commandLineParameters "--deqp-log-images=disable"
#beginSession

#beginTestCaseResult dEQP-VK.tensor.copies.a
<?xml version="1.0" encoding="UTF-8"?>
<TestCaseResult Version="0.3.4" CasePath="dEQP-VK.tensor.copies.a" CaseType="SelfValidate" LogVersion="0.3.4">
<Number Name="TestDuration" Description="Test case duration in microseconds" Tag="Time" Unit="us">1234</Number>
<Result StatusCode="Pass">Pass</Result>
</TestCaseResult>

#endTestCaseResult

#beginTestCaseResult dEQP-VK.tensor.copies.b
<?xml version="1.0" encoding="UTF-8"?>
<TestCaseResult Version="0.3.4" CasePath="dEQP-VK.tensor.copies.b" CaseType="SelfValidate">
<Text>Comparing &lt;dst&gt; with &quot;src&quot;</Text>
<Result StatusCode="Fail">Mismatch at element 7 &amp; more &#x41;&#66;</Result>
</TestCaseResult>

#endTestCaseResult

#beginTestCaseResult dEQP-VK.tensor.copies.c
<?xml version="1.0" encoding="UTF-8"?>
<TestCaseResult Version="0.3.4" CasePath="dEQP-VK.tensor.copies.c" CaseType="SelfValidate">
<Result StatusCode="NotSupported">VK_ARM_tensors is not supported</Result>
</TestCaseResult>

#endTestCaseResult

#beginTestCaseResult dEQP-VK.tensor.copies.d
<?xml version="1.0" encoding="UTF-8"?>
#terminateTestCaseResult Timeout

#beginTestCaseResult dEQP-VK.tensor.copies.e
<?xml version="1.0" encoding="UTF-8"?>
<TestCaseResult Version="0.3.4" CasePath="dEQP-VK.tensor.copies.e" CaseType="SelfValidate">
<Text>Running</Text>
"#;

    #[test]
    fn full_log() {
        let cases = parse(LOG);
        let names: Vec<_> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "dEQP-VK.tensor.copies.a",
                "dEQP-VK.tensor.copies.b",
                "dEQP-VK.tensor.copies.c",
                "dEQP-VK.tensor.copies.d",
                "dEQP-VK.tensor.copies.e"
            ]
        );
        assert_eq!(cases[0].status, Some(Status::Pass));
        assert_eq!(cases[0].duration_us, Some(1234));
        assert_eq!(cases[1].status, Some(Status::Fail));
        assert_eq!(cases[1].details, "Mismatch at element 7 & more AB");
        assert_eq!(cases[1].duration_us, None);
        assert_eq!(cases[2].status, Some(Status::NotSupported));
        assert_eq!(cases[3].status, Some(Status::Timeout));
        assert!(cases[3].details.contains("Timeout"));
        assert_eq!(cases[4].status, None, "begun, never ended");
    }

    #[test]
    fn session_end() {
        assert!(session_ended("#beginSession\n\n#endSession\n"));
        assert!(session_ended("#beginSession\r\n#endSession\r\n"));
        assert!(!session_ended("#beginSession\n#beginTestCaseResult x\n"));
        assert!(!session_ended(""));
        // Only as a control line, not inside a case's XML.
        assert!(!session_ended("<Text>#endSession is written last</Text>\n"));
    }

    #[test]
    fn empty_and_headers_only() {
        assert!(parse("").is_empty());
        assert!(parse("#sessionInfo x y\n#beginSession\n#endSession\n").is_empty());
    }

    #[test]
    fn torn_last_line_is_ignored() {
        // The begin line itself is torn: the case has not (visibly) started.
        assert!(parse("#beginSession\n#beginTestCaseRes").is_empty());
        let cases = parse("#beginTestCaseResult dEQP-VK.x.y\n<TestCaseResult");
        assert_eq!(cases.len(), 1);
        assert_eq!(cases[0].status, None);
    }

    #[test]
    fn terminate_with_unknown_reason_is_crash() {
        let cases = parse("#beginTestCaseResult dEQP-VK.x.y\n#terminateTestCaseResult Weird\n");
        assert_eq!(cases[0].status, Some(Status::Crash));
        let cases = parse("#beginTestCaseResult dEQP-VK.x.y\n#terminateTestCaseResult Crash\n");
        assert_eq!(cases[0].status, Some(Status::Crash));
    }

    #[test]
    fn missing_or_unknown_result_is_internal_error() {
        let cases =
            parse("#beginTestCaseResult dEQP-VK.x.y\n<TestCaseResult>\n#endTestCaseResult\n");
        assert_eq!(cases[0].status, Some(Status::InternalError));
        let cases = parse(
            "#beginTestCaseResult dEQP-VK.x.y\n<Result StatusCode=\"Pending\">p</Result>\n#endTestCaseResult\n",
        );
        assert_eq!(cases[0].status, Some(Status::InternalError));
        assert!(cases[0].details.contains("Pending"));
    }

    #[test]
    fn begin_without_end_then_begin() {
        let cases = parse(
            "#beginTestCaseResult dEQP-VK.x.a\n#beginTestCaseResult dEQP-VK.x.b\n<Result StatusCode=\"Pass\">Pass</Result>\n#endTestCaseResult\n",
        );
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].status, None);
        assert_eq!(cases[1].status, Some(Status::Pass));
    }

    #[test]
    fn quality_warning_and_self_closing_result() {
        let cases = parse(
            "#beginTestCaseResult dEQP-VK.x.a\n<Result StatusCode=\"QualityWarning\"/>\n#endTestCaseResult\n",
        );
        assert_eq!(cases[0].status, Some(Status::QualityWarning));
        assert_eq!(cases[0].details, "");
    }

    #[test]
    fn unescape_entities() {
        assert_eq!(unescape("a &lt;b&gt; &amp;&apos;&quot;"), "a <b> &'\"");
        assert_eq!(unescape("&#65;&#x42;"), "AB");
        assert_eq!(unescape("fish & chips"), "fish & chips");
        assert_eq!(unescape("&bogus;"), "&bogus;");
    }
}
