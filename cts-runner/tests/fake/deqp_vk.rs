//! A fake `deqp-vk` for the runner's integration tests. It accepts deqp's command-line options
//! (`--deqp-…=…`; anything else is an error, so the runner cannot pass typos) and, like the real
//! one (VK-GL-CTS `framework/common/tcuCommandLine.cpp`, `tcuTestHierarchyUtil.cpp`), writes its
//! files where its options say, relative to its working directory when they are relative:
//!
//! - the test log (`--deqp-log-filename`, default `TestResults.qpa`), in every run mode;
//! - with `--deqp-runmode=txt-caselist`, the case list (`--deqp-caselist-export-file`, default
//!   `${packageName}-cases.${typeExtension}` = `dEQP-VK-cases.txt`), `GROUP:` / `TEST:` lines
//!   listing the cases named in `FAKE_DEQP_CASES` (whitespace separated) or in the file
//!   `FAKE_DEQP_CASES_FILE`, filtered by `--deqp-case` if given;
//! - otherwise it runs the cases of `--deqp-caselist-file`, writing the `.qpa` log in deqp's
//!   format and, unless `--deqp-shadercache=disable`, appending to the shader cache
//!   (`--deqp-shadercache-filename`, default `shadercache.bin`) once per case.
//!
//! Each case behaves as the first matching component of its name says:
//! `pass`, `fail`, `notsupported`, `qualitywarning`, `internalerror`, `resourceerror` → that
//! status; `crash` → begins the case, then aborts the process; `hang` → begins the case, then
//! sleeps forever; `deqpcrash` → writes `#terminateTestCaseResult Crash` (as deqp's own crash
//! handler does), then aborts; `flaky` → Fail on its 1st, 3rd, … run and Pass on its 2nd,
//! 4th, … (counted in files under `FAKE_DEQP_STATE_DIR`); `slow` → sleeps 300 ms, then
//! passes; `data` → passes if `vulkan/fake-data.txt` exists in the archive directory
//! (`--deqp-archive-dir`, default `.`), fails otherwise, as cases that load data do. Anything else
//! passes. Names not in the case spec are skipped, as deqp does.
//!
//! A case with an `amber` component is Amber-based. `FAKE_DEQP_AMBER` says how this deqp-vk was
//! built: unset, it runs them (by the rules above); `stub`, it lists them and reports them
//! NotSupported; `absent`, they are not in its test tree at all (not listed, skipped when asked
//! for).
//!
//! If `FAKE_DEQP_LOG` is set, each invocation appends one line to that file:
//! `cwd=…<TAB>icd=…<TAB>drivers=…<TAB>add=…<TAB>layers=…<TAB>args=…`.
//! `FAKE_DEQP_CRASH_AT_START=1` makes a case-running invocation abort before its first case.

use std::collections::{BTreeMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::process::exit;
use std::time::{Duration, Instant};

/// Aborts the process (SIGABRT) like a crashing driver, without leaving a core dump behind.
fn crash() -> ! {
    let off = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: setrlimit only reads the struct we pass; lowering our own limit is always allowed.
    unsafe {
        libc::setrlimit(libc::RLIMIT_CORE, &off);
    }
    std::process::abort()
}

fn die(msg: &str) -> ! {
    eprintln!("fake-deqp-vk: {msg}");
    exit(2)
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut opts = BTreeMap::new();
    for a in &argv {
        let Some(rest) = a.strip_prefix("--deqp-") else {
            die(&format!("unexpected argument `{a}`"));
        };
        let Some((k, v)) = rest.split_once('=') else {
            die(&format!("option without value `{a}`"));
        };
        opts.insert(k.to_string(), v.to_string());
    }
    for (k, v) in &opts {
        let bool_opt = matches!(
            k.as_str(),
            "log-images"
                | "log-shader-sources"
                | "shadercache"
                | "shadercache-truncate"
                | "compute-only"
        );
        if bool_opt && v != "enable" && v != "disable" {
            die(&format!("--deqp-{k} must be enable or disable, got {v}"));
        }
    }
    let cwd = std::env::current_dir().unwrap_or_default();

    if let Ok(log) = std::env::var("FAKE_DEQP_LOG") {
        let var = |k: &str| std::env::var(k).unwrap_or_default();
        let line = format!(
            "cwd={}\ticd={}\tdrivers={}\tadd={}\tlayers={}\targs={}\n",
            cwd.display(),
            var("VK_ICD_FILENAMES"),
            var("VK_DRIVER_FILES"),
            var("VK_ADD_DRIVER_FILES"),
            var("VK_LOADER_LAYERS_DISABLE"),
            argv.join(" ")
        );
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .unwrap_or_else(|e| die(&format!("FAKE_DEQP_LOG: {e}")));
        f.write_all(line.as_bytes()).unwrap();
    }

    // deqp opens its test log in every run mode (tcuMain.cpp), in the working directory unless
    // told otherwise.
    let qpa = opts
        .get("log-filename")
        .map_or("TestResults.qpa", String::as_str);
    let mut log = File::create(qpa).unwrap_or_else(|e| die(&format!("{qpa}: {e}")));
    log.write_all(b"#sessionInfo releaseName fake\n#sessionInfo targetName fake-deqp-vk\n")
        .unwrap();
    match opts.get("runmode").map(String::as_str) {
        Some("txt-caselist") => write_caselist(&opts),
        None | Some("execute") => run_cases(&opts, log),
        Some(m) => die(&format!("unsupported runmode {m}")),
    }
}

/// How this deqp-vk treats Amber-based cases (`FAKE_DEQP_AMBER`).
fn amber_build() -> String {
    std::env::var("FAKE_DEQP_AMBER").unwrap_or_default()
}

fn is_amber(case: &str) -> bool {
    case.split('.').any(|part| part == "amber")
}

fn all_cases() -> Vec<String> {
    let text = match (
        std::env::var("FAKE_DEQP_CASES"),
        std::env::var("FAKE_DEQP_CASES_FILE"),
    ) {
        (Ok(inline), _) => inline,
        (_, Ok(file)) => fs::read_to_string(file).unwrap_or_else(|e| die(&e.to_string())),
        _ => die("set FAKE_DEQP_CASES or FAKE_DEQP_CASES_FILE"),
    };
    let absent = amber_build() == "absent";
    text.split_whitespace()
        .filter(|c| !(absent && is_amber(c)))
        .map(String::from)
        .collect()
}

/// deqp's `--deqp-case` filter: `*` matches anything (a minimal glob).
fn glob(p: &str, s: &str) -> bool {
    match p.split_once('*') {
        None => p == s,
        Some((head, tail)) => {
            let Some(rest) = s.strip_prefix(head) else {
                return false;
            };
            (0..=rest.len()).any(|i| rest.is_char_boundary(i) && glob(tail, &rest[i..]))
        }
    }
}

fn write_caselist(opts: &BTreeMap<String, String>) {
    let filter = opts.get("case");
    let mut out = String::new();
    let mut groups = HashSet::new();
    for case in all_cases() {
        if filter.is_some_and(|f| !glob(f, &case)) {
            continue;
        }
        let parts: Vec<&str> = case.split('.').collect();
        for n in 1..parts.len() {
            let g = parts[..n].join(".");
            if groups.insert(g.clone()) {
                out.push_str(&format!("GROUP: {g}\n"));
            }
        }
        out.push_str(&format!("TEST: {case}\n"));
    }
    let file = opts
        .get("caselist-export-file")
        .map_or("${packageName}-cases.${typeExtension}", String::as_str)
        .replace("${packageName}", "dEQP-VK")
        .replace("${typeExtension}", "txt");
    fs::write(&file, out).unwrap_or_else(|e| die(&format!("{file}: {e}")));
}

fn behaviour(case: &str) -> &'static str {
    const KINDS: [&str; 12] = [
        "pass",
        "fail",
        "notsupported",
        "qualitywarning",
        "internalerror",
        "resourceerror",
        "crash",
        "hang",
        "deqpcrash",
        "flaky",
        "slow",
        "data",
    ];
    case.split('.')
        .find_map(|part| KINDS.iter().find(|k| **k == part).copied())
        .unwrap_or("pass")
}

/// How many times this case ran before (and counts this run), for `flaky` cases.
fn run_count(case: &str) -> u64 {
    let Ok(dir) = std::env::var("FAKE_DEQP_STATE_DIR") else {
        return 0;
    };
    let path = PathBuf::from(dir).join(format!("{case}.count"));
    let n: u64 = fs::read_to_string(&path)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    fs::write(&path, (n + 1).to_string()).unwrap_or_else(|e| die(&e.to_string()));
    n
}

fn run_cases(opts: &BTreeMap<String, String>, mut log: File) {
    let list = opts
        .get("caselist-file")
        .unwrap_or_else(|| die("--deqp-caselist-file is required"));
    let archive = PathBuf::from(opts.get("archive-dir").map_or(".", String::as_str));
    let shader_cache =
        (opts.get("shadercache").map(String::as_str) != Some("disable")).then(|| {
            opts.get("shadercache-filename")
                .map_or("shadercache.bin", String::as_str)
        });
    let cases: Vec<String> = fs::read_to_string(list)
        .unwrap_or_else(|e| die(&format!("{list}: {e}")))
        .split_whitespace()
        .map(String::from)
        .collect();
    let known: HashSet<String> = all_cases().into_iter().collect();
    let mut put = |s: &str| {
        log.write_all(s.as_bytes()).unwrap();
        log.flush().unwrap();
    };
    put("#beginSession\n");
    if std::env::var("FAKE_DEQP_CRASH_AT_START").is_ok_and(|v| v == "1") {
        crash();
    }
    for case in cases {
        if !known.contains(&case) {
            // deqp skips names that are not in its test tree.
            continue;
        }
        println!("Test case '{case}'..");
        if let Some(cache) = shader_cache {
            let mut f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(cache)
                .unwrap_or_else(|e| die(&format!("{cache}: {e}")));
            writeln!(f, "{case}").unwrap();
        }
        let start = Instant::now();
        put(&format!(
            "\n#beginTestCaseResult {case}\n<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <TestCaseResult Version=\"0.3.4\" CasePath=\"{case}\" CaseType=\"SelfValidate\" \
             LogVersion=\"0.3.4\">\n"
        ));
        let kind = if is_amber(&case) && amber_build() == "stub" {
            "amberstub"
        } else {
            behaviour(&case)
        };
        let (status, message) = match kind {
            "amberstub" => ("NotSupported", "Amber is not built into this deqp-vk"),
            "data" if archive.join("vulkan/fake-data.txt").is_file() => ("Pass", "Pass"),
            "data" => ("Fail", "cannot open resource vulkan/fake-data.txt"),
            "crash" => {
                put("<Text>about to crash</Text>\n");
                crash();
            }
            "hang" => loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
            "deqpcrash" => {
                put("#terminateTestCaseResult Crash\n");
                crash();
            }
            "flaky" => {
                const ALTERNATE: [(&str, &str); 2] =
                    [("Fail", "flaky case failed this time"), ("Pass", "Pass")];
                ALTERNATE[(run_count(&case) % 2) as usize]
            }
            "slow" => {
                std::thread::sleep(Duration::from_millis(300));
                ("Pass", "Pass")
            }
            "fail" => ("Fail", "Mismatch at element 3: got 7 &lt; expected 9"),
            "notsupported" => ("NotSupported", "VK_ARM_tensors is not supported"),
            "qualitywarning" => ("QualityWarning", "Precision is low"),
            "internalerror" => ("InternalError", "Internal error"),
            "resourceerror" => ("ResourceError", "Out of memory"),
            _ => ("Pass", "Pass"),
        };
        println!("  {status} ({message})");
        put(&format!(
            "<Number Name=\"TestDuration\" Description=\"Test case duration in microseconds\" \
             Tag=\"Time\" Unit=\"us\">{}</Number>\n<Result StatusCode=\"{status}\">{message}</Result>\n\
             </TestCaseResult>\n\n#endTestCaseResult\n",
            start.elapsed().as_micros()
        ));
    }
    put("\n#endSession\n");
}
