//! Integration tests: the real `tessera-cts-runner` binary against the fake `deqp-vk`
//! (`tests/fake/deqp_vk.rs`), whose cases behave as their names say (`pass`, `fail`, `crash`,
//! `hang`, `flaky`, …).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const RUNNER: &str = env!("CARGO_BIN_EXE_tessera-cts-runner");
const FAKE: &str = env!("CARGO_BIN_EXE_fake-deqp-vk");

/// A scratch directory laid out like the usual install of a CTS build: `build/deqp-vk` (the
/// fake) next to its `build/vulkan/` data, and `bin/deqp-vk`, a symbolic link to it on the
/// "PATH", which is what the runner is given. Also a dummy ICD manifest, an expectations
/// directory, the fake's invocation log and state, and `cwd/`, the runner's working directory.
struct Fixture {
    dir: PathBuf,
    cases: Vec<String>,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Fixture {
    fn new(test: &str, cases: &[&str]) -> Fixture {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("cts-runner-tests")
            .join(test);
        let _ = fs::remove_dir_all(&dir);
        for sub in ["bin", "build/vulkan", "expectations", "state", "cwd"] {
            fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let exe = dir.join("build/deqp-vk");
        if fs::hard_link(FAKE, &exe).is_err() {
            fs::copy(FAKE, &exe).unwrap();
        }
        fs::write(dir.join("build/vulkan/fake-data.txt"), "data\n").unwrap();
        std::os::unix::fs::symlink(&exe, dir.join("bin/deqp-vk")).unwrap();
        fs::write(dir.join("tessera_icd.json"), "{}\n").unwrap();
        Fixture {
            dir,
            cases: cases.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn expect(&self, file: &str, text: &str) {
        fs::write(self.dir.join("expectations").join(file), text).unwrap();
    }

    fn out(&self) -> PathBuf {
        self.dir.join("out")
    }

    /// The folder of the fake `deqp-vk` build, as the runner sees it (links resolved).
    fn build(&self) -> PathBuf {
        self.dir.join("build").canonicalize().unwrap()
    }

    /// Every path under the folders that must not change during a run (the build, the link's
    /// folder, the runner's working directory), with file sizes.
    fn outside_output(&self) -> BTreeSet<(PathBuf, u64)> {
        ["build", "bin", "cwd"]
            .iter()
            .flat_map(|d| tree(&self.dir.join(d)))
            .collect()
    }

    fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, &[])
    }

    fn run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let start = Instant::now();
        let out = Command::new(RUNNER)
            .current_dir(self.dir.join("cwd"))
            .arg("--deqp")
            .arg(self.dir.join("bin/deqp-vk"))
            .arg("--manifest")
            .arg(self.dir.join("tessera_icd.json"))
            .arg("--output")
            .arg(self.out())
            .arg("--expectations")
            .arg(self.dir.join("expectations"))
            .args(if args.contains(&"--group") {
                &[][..]
            } else {
                &["--group", "dEQP-VK.fake.*"][..]
            })
            .args(args)
            .env("FAKE_DEQP_CASES", self.cases.join(" "))
            .env("FAKE_DEQP_LOG", self.dir.join("invocations.log"))
            .env("FAKE_DEQP_STATE_DIR", self.dir.join("state"))
            .env("VK_ADD_DRIVER_FILES", "/should/be/removed.json")
            .envs(env.iter().copied())
            .output()
            .unwrap();
        let run = Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            elapsed: start.elapsed(),
        };
        eprintln!(
            "--- exit {} after {:?}\n--- stdout\n{}\n--- stderr\n{}",
            run.code, run.elapsed, run.stdout, run.stderr
        );
        run
    }

    /// `results.csv` as case → (status, duration_ms).
    fn csv(&self) -> BTreeMap<String, (String, u64)> {
        let text = fs::read_to_string(self.out().join("results.csv")).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("case,status,duration_ms"));
        lines
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                assert_eq!(f.len(), 3, "{l}");
                (f[0].to_string(), (f[1].to_string(), f[2].parse().unwrap()))
            })
            .collect()
    }

    fn status(&self, case: &str) -> String {
        self.csv()
            .get(case)
            .unwrap_or_else(|| panic!("{case} missing from results.csv"))
            .0
            .clone()
    }

    /// The fake's invocation log, one entry per process, split into fields.
    fn invocations(&self) -> Vec<BTreeMap<String, String>> {
        fs::read_to_string(self.dir.join("invocations.log"))
            .unwrap_or_default()
            .lines()
            .map(|l| {
                l.split('\t')
                    .filter_map(|f| f.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            })
            .collect()
    }

    /// Invocations that ran cases (not the case-list query).
    fn batch_runs(&self) -> Vec<BTreeMap<String, String>> {
        self.invocations()
            .into_iter()
            .filter(|i| i["args"].contains("--deqp-caselist-file="))
            .collect()
    }
}

/// Every path under `dir` (itself included), with the size of each file.
fn tree(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut out = vec![(dir.to_path_buf(), 0)];
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for e in entries {
        let path = e.unwrap().path();
        let meta = fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            out.extend(tree(&path));
        } else {
            out.push((path, meta.len()));
        }
    }
    out
}

/// The value of `--deqp-<name>=` in an invocation's arguments.
fn arg<'a>(invocation: &'a BTreeMap<String, String>, name: &str) -> Option<&'a str> {
    let key = format!("--deqp-{name}=");
    invocation["args"]
        .split(' ')
        .find_map(|a| a.strip_prefix(key.as_str()))
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("dEQP-VK.fake.{prefix}.{i}"))
        .collect()
}

#[test]
fn statuses_are_parsed_and_reported() {
    let f = Fixture::new(
        "statuses",
        &[
            "dEQP-VK.fake.pass.0",
            "dEQP-VK.fake.pass.1",
            "dEQP-VK.fake.fail.0",
            "dEQP-VK.fake.notsupported.0",
            "dEQP-VK.fake.qualitywarning.0",
            "dEQP-VK.fake.resourceerror.0",
            "dEQP-VK.fake.slow.0",
        ],
    );
    f.expect(
        "fails.txt",
        "# expected\ndEQP-VK.fake.fail.0,Fail\ndEQP-VK.fake.qualitywarning.0,QualityWarning\n\
         dEQP-VK.fake.resourceerror.0,ResourceError\n",
    );
    let r = f.run(&["--jobs", "2"]);
    assert_eq!(r.code, 0, "all non-passes are expected");
    let csv = f.csv();
    assert_eq!(csv.len(), 7);
    assert_eq!(csv["dEQP-VK.fake.pass.0"].0, "Pass");
    assert_eq!(csv["dEQP-VK.fake.fail.0"].0, "Fail");
    assert_eq!(csv["dEQP-VK.fake.notsupported.0"].0, "NotSupported");
    assert_eq!(csv["dEQP-VK.fake.qualitywarning.0"].0, "QualityWarning");
    assert_eq!(csv["dEQP-VK.fake.resourceerror.0"].0, "ResourceError");
    // Duration comes from the log's TestDuration (the slow case sleeps 300 ms).
    assert!(
        csv["dEQP-VK.fake.slow.0"].1 >= 290,
        "{:?}",
        csv["dEQP-VK.fake.slow.0"]
    );

    // Per-subgroup summary table, also in summary.txt.
    let summary = fs::read_to_string(f.out().join("summary.txt")).unwrap();
    assert!(r.stdout.contains(&summary));
    let pass_row = summary
        .lines()
        .find(|l| l.starts_with("dEQP-VK.fake.pass "))
        .unwrap();
    assert_eq!(pass_row.split_whitespace().nth(1), Some("2"));
    assert!(summary.lines().any(|l| l.starts_with("total ")));
    assert!(summary.contains("Expected failures (fails.txt): 3"));
    assert!(summary.contains("vulkan-cts-1.4.6.1 (5c8aae22885448d70a2873e94a93b24b49505c32)"));
    assert!(summary.contains("Result: OK"));

    // JUnit: one suite per subgroup; expected failures and NotSupported are skipped.
    let junit = fs::read_to_string(f.out().join("junit.xml")).unwrap();
    assert!(junit.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
    assert!(junit.contains("tests=\"7\" failures=\"0\" errors=\"0\" skipped=\"4\""));
    assert_eq!(junit.matches("<testsuite ").count(), 6);
    assert!(junit.contains("<testsuite name=\"dEQP-VK.fake.pass\" tests=\"2\" failures=\"0\""));
    assert!(junit.contains("<testcase classname=\"dEQP-VK.fake.pass\" name=\"0\""));
    assert!(junit.contains(
        "expected failure (fails.txt): Fail: Mismatch at element 3: got 7 &lt; expected 9"
    ));
    assert!(junit.trim_end().ends_with("</testsuites>"));
}

#[test]
fn runs_in_batches_across_processes_with_the_right_environment() {
    let cases = names("pass", 40);
    let refs: Vec<&str> = cases.iter().map(String::as_str).collect();
    let f = Fixture::new("batching", &refs);
    let r = f.run(&["--jobs", "2", "--batch-size", "5"]);
    assert_eq!(r.code, 0);
    assert_eq!(f.csv().len(), 40);
    assert!(f.csv().values().all(|(s, _)| s == "Pass"));

    let all = f.invocations();
    let list_query: Vec<_> = all
        .iter()
        .filter(|i| i["args"].contains("--deqp-runmode=txt-caselist"))
        .collect();
    assert_eq!(
        list_query.len(),
        1,
        "the case list comes from deqp-vk itself"
    );
    let batches = f.batch_runs();
    assert_eq!(batches.len(), 8, "40 cases in batches of 5");
    let manifest = f.dir.join("tessera_icd.json").display().to_string();
    let build = f.build().display().to_string();
    let out = f.out().display().to_string();
    for b in &all {
        assert_eq!(b["icd"], manifest);
        assert_eq!(b["drivers"], manifest);
        assert_eq!(
            b["add"], "",
            "VK_ADD_DRIVER_FILES must not add other drivers"
        );
        assert_eq!(b["layers"], "~implicit~");
        assert_eq!(b["cwd"], out, "deqp-vk runs in the output folder");
        assert_eq!(arg(b, "archive-dir"), Some(build.as_str()));
    }
    for b in &batches {
        let args = &b["args"];
        for expected in [
            "--deqp-log-images=disable",
            "--deqp-log-shader-sources=disable",
            "--deqp-compute-only=enable",
            &format!("--deqp-log-filename={out}/batches/b"),
            &format!("--deqp-shadercache-filename={out}/shadercache-w"),
            &format!("--deqp-caselist-file={out}/batches/b"),
        ] {
            assert!(args.contains(expected), "{expected} missing from {args}");
        }
    }
    // Both workers ran batches (each has its own shader cache).
    assert!(
        batches
            .iter()
            .any(|b| b["args"].contains("shadercache-w0.bin"))
    );
    assert!(
        batches
            .iter()
            .any(|b| b["args"].contains("shadercache-w1.bin"))
    );
    // Non-TTY progress: one line per batch on stderr.
    assert_eq!(r.stderr.matches("| batches ").count(), 8);
    assert!(r.stderr.contains("[40/40] Pass 40 | batches 8/8"));
}

#[test]
fn with_graphics_and_extra_args_and_workdir() {
    let f = Fixture::new("options", &["dEQP-VK.fake.pass.0"]);
    let work = f.dir.join("work");
    fs::create_dir_all(&work).unwrap();
    let r = f.run(&[
        "--with-graphics",
        "--deqp-workdir",
        work.to_str().unwrap(),
        "--",
        "--deqp-log-flush=enable",
    ]);
    assert_eq!(r.code, 0);
    let batches = f.batch_runs();
    assert_eq!(batches.len(), 1);
    assert!(!batches[0]["args"].contains("--deqp-compute-only"));
    assert!(batches[0]["args"].ends_with("--deqp-log-flush=enable"));
    assert_eq!(batches[0]["cwd"], work.display().to_string());
    // Every file is named on the command line, so nothing lands in the working directory.
    assert_eq!(fs::read_dir(&work).unwrap().count(), 0);
}

#[test]
fn every_file_of_a_run_is_in_the_output_folder_when_deqp_is_a_link() {
    let f = Fixture::new(
        "files",
        &[
            "dEQP-VK.fake.pass.0",
            "dEQP-VK.fake.data.0",
            "dEQP-VK.fake.pass.1",
            "dEQP-VK.fake.crash.0",
        ],
    );
    let before = f.outside_output();
    let r = f.run(&["--jobs", "2", "--retries", "0"]);
    assert_eq!(r.code, 1, "the crash is a regression");
    assert_eq!(
        f.outside_output(),
        before,
        "nothing is written next to deqp-vk, next to the link or in the runner's directory"
    );
    // deqp-vk found its data: the link was resolved to the build folder.
    assert_eq!(f.status("dEQP-VK.fake.data.0"), "Pass");
    assert!(r.stdout.contains(&format!(
        "deqp-vk      : {} -> {}",
        f.dir.join("bin/deqp-vk").display(),
        f.build().join("deqp-vk").display()
    )));

    let out = f.out();
    for file in [
        "caselist.log",
        "caselist.qpa",
        "caselist.txt",
        "results.csv",
        "junit.xml",
        "summary.txt",
        "batches/b0000.txt",
        "batches/b0000.qpa",
        "batches/b0000.log",
        "batches/b0001.qpa",
    ] {
        assert!(
            out.join(file).is_file(),
            "{file} missing from the output folder"
        );
    }
    let caches: Vec<_> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("shadercache-w"))
        .collect();
    assert!(
        !caches.is_empty(),
        "the workers' shader caches are in the output folder"
    );
    // deqp's default file names would mean an option the runner forgot to pass.
    let all = tree(&out);
    for default in ["TestResults.qpa", "shadercache.bin", "dEQP-VK-cases.txt"] {
        assert!(
            !all.iter().any(|(p, _)| p.ends_with(default)),
            "{default} written (or, for the case list, left behind)"
        );
    }
    // Every invocation ran in the output folder and was told where each file goes.
    for i in f.invocations() {
        assert_eq!(i["cwd"], out.display().to_string());
        assert_eq!(arg(&i, "archive-dir"), Some(f.build().to_str().unwrap()));
        assert!(
            arg(&i, "log-filename")
                .unwrap()
                .starts_with(out.to_str().unwrap())
        );
        if arg(&i, "runmode") == Some("txt-caselist") {
            assert_eq!(
                arg(&i, "caselist-export-file"),
                Some(out.join("dEQP-VK-cases.txt").to_str().unwrap())
            );
            assert_eq!(arg(&i, "shadercache"), Some("disable"));
        } else {
            assert!(
                arg(&i, "shadercache-filename")
                    .unwrap()
                    .starts_with(out.to_str().unwrap())
            );
        }
    }

    // --deqp-archive-dir still overrides the resolved folder.
    let elsewhere = f.dir.join("no-data");
    fs::create_dir_all(&elsewhere).unwrap();
    let r = f.run(&[
        "--retries",
        "0",
        "--deqp-archive-dir",
        elsewhere.to_str().unwrap(),
        "--exclude",
        "*.crash.*",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(f.status("dEQP-VK.fake.data.0"), "Fail");
    assert!(
        r.stderr.contains("has no vulkan/ data folder"),
        "{}",
        r.stderr
    );
    assert_eq!(f.outside_output(), before);
}

#[test]
fn amber_cases_are_not_supported_when_deqp_vk_has_no_amber() {
    let cases = [
        "dEQP-VK.fake.pass.0",
        "dEQP-VK.fake.amber.pass.0",
        "dEQP-VK.fake.amber.fail.0",
        "dEQP-VK.fake.amber.pass.1",
    ];
    let f = Fixture::new("amber", &cases);
    f.expect("amber.txt", "# Amber-based\ndEQP-VK.fake.amber.*\n");

    // Built without Amber, listing the cases: deqp-vk reports them NotSupported.
    let r = f.run_with(&["--retries", "0"], &[("FAKE_DEQP_AMBER", "stub")]);
    assert_eq!(r.code, 0);
    for c in &cases[1..] {
        assert_eq!(f.status(c), "NotSupported", "{c}");
    }
    assert!(
        r.stdout
            .contains("Amber-based cases (amber.txt): 3 (3 NotSupported)"),
        "{}",
        r.stdout
    );
    let junit = fs::read_to_string(f.out().join("junit.xml")).unwrap();
    assert!(junit.contains("NotSupported (Amber-based case, amber.txt): Amber is not built"));

    // Built without the cases at all, given a case list that has them (a mustpass list):
    // deqp-vk ends its session without them, so they are NotSupported in the same process. A
    // case that is not Amber-based and missing from deqp-vk stays a crash, as before.
    let list = f.dir.join("mustpass.txt");
    fs::write(&list, cases.join("\n") + "\ndEQP-VK.fake.gone.0\n").unwrap();
    fs::remove_file(f.dir.join("invocations.log")).unwrap();
    let r = f.run_with(
        &[
            "--retries",
            "0",
            "--jobs",
            "1",
            "--caselist",
            list.to_str().unwrap(),
        ],
        &[("FAKE_DEQP_AMBER", "absent")],
    );
    assert_eq!(r.code, 1, "gone.0 is a regression");
    assert_eq!(f.status("dEQP-VK.fake.pass.0"), "Pass");
    for c in &cases[1..] {
        assert_eq!(f.status(c), "NotSupported", "{c}");
    }
    assert_eq!(f.status("dEQP-VK.fake.gone.0"), "Crash");
    assert_eq!(
        f.batch_runs().len(),
        2,
        "one process for the batch, one for the unknown case"
    );
    assert!(
        r.stdout
            .contains("3 of them are not in this deqp-vk's test tree")
    );
    let junit = fs::read_to_string(f.out().join("junit.xml")).unwrap();
    assert!(junit.contains("not in this deqp-vk&apos;s test tree: it was built without Amber"));

    // With Amber, they are ordinary cases: a failure is a regression.
    let r = f.run(&["--retries", "0"]);
    assert_eq!(r.code, 1);
    assert_eq!(f.status("dEQP-VK.fake.amber.fail.0"), "Fail");
    assert_eq!(f.status("dEQP-VK.fake.amber.pass.0"), "Pass");
    assert!(
        r.stdout
            .contains("Regressions (1):\n  dEQP-VK.fake.amber.fail.0 Fail")
    );
    assert!(
        r.stdout
            .contains("Amber-based cases (amber.txt): 3 (2 Pass, 1 Fail)")
    );
}

#[test]
fn crash_is_recorded_and_the_rest_of_the_batch_still_runs() {
    let f = Fixture::new(
        "crash",
        &[
            "dEQP-VK.fake.pass.0",
            "dEQP-VK.fake.pass.1",
            "dEQP-VK.fake.crash.0",
            "dEQP-VK.fake.pass.2",
            "dEQP-VK.fake.deqpcrash.0",
            "dEQP-VK.fake.pass.3",
        ],
    );
    let r = f.run(&["--jobs", "1", "--retries", "0"]);
    assert_eq!(r.code, 1, "crashes are regressions");
    let csv = f.csv();
    assert_eq!(csv.len(), 6);
    assert_eq!(csv["dEQP-VK.fake.crash.0"].0, "Crash");
    assert_eq!(csv["dEQP-VK.fake.deqpcrash.0"].0, "Crash");
    for p in 0..4 {
        assert_eq!(csv[&format!("dEQP-VK.fake.pass.{p}")].0, "Pass");
    }
    // One batch, three processes: the first crashes at crash.0, the second at deqpcrash.0.
    let batches = f.batch_runs();
    assert_eq!(batches.len(), 3);
    let list = fs::read_to_string(f.out().join("batches/b0000.r1.txt")).unwrap();
    assert_eq!(
        list,
        "dEQP-VK.fake.pass.2\ndEQP-VK.fake.deqpcrash.0\ndEQP-VK.fake.pass.3\n"
    );
    assert!(
        r.stdout
            .contains("dEQP-VK.fake.crash.0 Crash: deqp-vk killed by signal 6 (SIGABRT)")
    );
    assert!(
        r.stdout
            .contains("dEQP-VK.fake.deqpcrash.0 Crash: terminated by deqp-vk: Crash")
    );
    let junit = fs::read_to_string(f.out().join("junit.xml")).unwrap();
    assert!(junit.contains("<failure type=\"Crash\""));
}

#[test]
fn crash_before_the_first_case_blames_one_case_at_a_time() {
    let f = Fixture::new(
        "startup_crash",
        &["dEQP-VK.fake.pass.0", "dEQP-VK.fake.pass.1"],
    );
    let out = Command::new(RUNNER)
        .arg("--deqp")
        .arg(f.dir.join("bin/deqp-vk"))
        .arg("--manifest")
        .arg(f.dir.join("tessera_icd.json"))
        .arg("--output")
        .arg(f.out())
        .arg("--expectations")
        .arg(f.dir.join("expectations"))
        .args(["--group", "dEQP-VK.fake.*", "--retries", "0", "--jobs", "1"])
        .env("FAKE_DEQP_CASES", f.cases.join(" "))
        .env("FAKE_DEQP_CRASH_AT_START", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let csv = f.csv();
    assert_eq!(csv["dEQP-VK.fake.pass.0"].0, "Crash");
    assert_eq!(csv["dEQP-VK.fake.pass.1"].0, "Crash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("before the case started"), "{stdout}");
}

#[test]
fn hang_times_out_and_the_batch_resumes() {
    let f = Fixture::new(
        "hang",
        &[
            "dEQP-VK.fake.pass.0",
            "dEQP-VK.fake.hang.0",
            "dEQP-VK.fake.pass.1",
        ],
    );
    let r = f.run(&["--jobs", "1", "--timeout", "0.5", "--retries", "0"]);
    assert_eq!(r.code, 1);
    let csv = f.csv();
    assert_eq!(csv["dEQP-VK.fake.hang.0"].0, "Timeout");
    assert!(csv["dEQP-VK.fake.hang.0"].1 >= 500);
    assert_eq!(csv["dEQP-VK.fake.pass.0"].0, "Pass");
    assert_eq!(csv["dEQP-VK.fake.pass.1"].0, "Pass");
    assert_eq!(f.batch_runs().len(), 2);
    assert!(r.stdout.contains("no progress for 0.5 s"));
    assert!(r.elapsed < Duration::from_secs(10), "{:?}", r.elapsed);
}

#[test]
fn baseline_comparison_regressions_fixed_and_update() {
    let f = Fixture::new(
        "baseline",
        &[
            "dEQP-VK.fake.pass.0",
            "dEQP-VK.fake.pass.1",
            "dEQP-VK.fake.fail.0",
            "dEQP-VK.fake.fail.1",
            "dEQP-VK.fake.notsupported.0",
        ],
    );
    let fails = "# Baseline header\n\
                 dEQP-VK.fake.pass.0,Fail\n\
                 dEQP-VK.fake.fail.0,Fail\n\
                 # not run here\n\
                 dEQP-VK.other.x,Crash\n";
    f.expect("fails.txt", fails);
    let r = f.run(&["--retries", "0"]);
    assert_eq!(r.code, 1, "fail.1 is a new failure");
    assert!(
        r.stdout
            .contains("Regressions (1):\n  dEQP-VK.fake.fail.1 Fail")
    );
    assert!(r.stdout.contains("Fixed (remove from fails.txt"));
    assert!(
        r.stdout
            .contains("  dEQP-VK.fake.pass.0 Pass, fails.txt expects Fail")
    );
    assert!(r.stdout.contains("Result: FAILED, 1 regression(s)"));
    let junit = fs::read_to_string(f.out().join("junit.xml")).unwrap();
    assert!(junit.contains("failures=\"1\""));
    assert!(junit.contains("fixed: fails.txt expects Fail, got Pass"));

    // A different failure status than the baseline's is a regression too.
    f.expect(
        "fails.txt",
        "dEQP-VK.fake.fail.0,Crash\ndEQP-VK.fake.fail.1,Fail\n",
    );
    let r = f.run(&["--retries", "0"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("dEQP-VK.fake.fail.0 Fail, fails.txt expects Crash")
    );

    // --update-baseline rewrites fails.txt: fixed entries go, new failures come, comments and
    // entries for cases that did not run stay.
    f.expect("fails.txt", fails);
    let r = f.run(&["--retries", "0", "--update-baseline"]);
    assert_eq!(r.code, 0);
    let updated = fs::read_to_string(f.dir.join("expectations/fails.txt")).unwrap();
    assert_eq!(
        updated,
        "# Baseline header\n\
         dEQP-VK.fake.fail.0,Fail\n\
         # not run here\n\
         dEQP-VK.other.x,Crash\n\
         \n\
         # Added by tessera-cts-runner --update-baseline\n\
         dEQP-VK.fake.fail.1,Fail\n"
    );
    // And the next run is clean.
    let r = f.run(&["--retries", "0"]);
    assert_eq!(r.code, 0);
    assert!(!r.stdout.contains("Fixed"));
}

#[test]
fn skips_are_not_run() {
    let f = Fixture::new(
        "skips",
        &[
            "dEQP-VK.fake.pass.0",
            "dEQP-VK.fake.hang.0",
            "dEQP-VK.fake.crash.0",
            "dEQP-VK.fake.pass.1",
        ],
    );
    f.expect("skips.txt", "# never run\ndEQP-VK.fake.hang.*\n*.crash.?\n");
    let r = f.run(&["--timeout", "30"]);
    assert_eq!(r.code, 0);
    let csv = f.csv();
    assert_eq!(csv["dEQP-VK.fake.hang.0"].0, "Skip");
    assert_eq!(csv["dEQP-VK.fake.crash.0"].0, "Skip");
    assert_eq!(csv["dEQP-VK.fake.pass.1"].0, "Pass");
    for b in f.batch_runs() {
        let list_file = b["args"]
            .split(' ')
            .find_map(|a| a.strip_prefix("--deqp-caselist-file="))
            .unwrap()
            .to_string();
        let list = fs::read_to_string(list_file).unwrap();
        assert!(!list.contains("hang") && !list.contains("crash"), "{list}");
    }
    let junit = fs::read_to_string(f.out().join("junit.xml")).unwrap();
    assert_eq!(
        junit
            .matches("<skipped message=\"listed in skips.txt\"/>")
            .count(),
        2
    );
    assert!(r.elapsed < Duration::from_secs(10));
}

#[test]
fn flakes_listed_or_detected_by_rerun_are_not_regressions() {
    // Listed in flakes.txt: its failure is tolerated without re-running.
    let f = Fixture::new(
        "flakes_listed",
        &["dEQP-VK.fake.flaky.0", "dEQP-VK.fake.pass.0"],
    );
    f.expect(
        "flakes.txt",
        "# known flakes\ndEQP-VK\\.fake\\.flaky\\..*\n",
    );
    let r = f.run(&["--retries", "0"]);
    assert_eq!(r.code, 0);
    assert_eq!(f.status("dEQP-VK.fake.flaky.0"), "Fail");
    assert!(
        r.stdout
            .contains("Flakes (1):\n  dEQP-VK.fake.flaky.0 Fail")
    );

    // Not listed, no re-run: a regression.
    let f = Fixture::new(
        "flakes_unlisted",
        &["dEQP-VK.fake.flaky.0", "dEQP-VK.fake.pass.0"],
    );
    let r = f.run(&["--retries", "0"]);
    assert_eq!(r.code, 1);

    // Not listed, re-run once: it passes the second time, so it is a flake.
    let f = Fixture::new(
        "flakes_rerun",
        &["dEQP-VK.fake.flaky.0", "dEQP-VK.fake.fail.0"],
    );
    let r = f.run(&["--retries", "1"]);
    assert_eq!(r.code, 1, "fail.0 fails again and stays a regression");
    assert!(
        r.stdout
            .contains("dEQP-VK.fake.flaky.0 Fail (re-run: Pass)")
    );
    assert!(
        r.stdout
            .contains("consider listing them in flakes.txt:\n  dEQP\\-VK\\.fake\\.flaky\\.0")
    );
    assert!(
        r.stdout
            .contains("Regressions (1):\n  dEQP-VK.fake.fail.0 Fail (re-run: Fail)")
    );
    assert_eq!(
        f.status("dEQP-VK.fake.flaky.0"),
        "Fail",
        "the CSV keeps the first result"
    );
}

#[test]
fn fraction_include_exclude_and_group() {
    let mut cases = names("pass", 20);
    cases.extend(names("fail", 3));
    cases.push("dEQP-VK.other.pass.0".to_string());
    let refs: Vec<&str> = cases.iter().map(String::as_str).collect();
    let f = Fixture::new("fraction", &refs);

    let r = f.run(&["--group", "dEQP-VK.fake.pass.*", "--fraction", "4"]);
    assert_eq!(r.code, 0);
    let got: Vec<String> = f.csv().into_keys().collect();
    let want: Vec<String> = [0, 12, 16, 4, 8]
        .iter()
        .map(|i| format!("dEQP-VK.fake.pass.{i}"))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(got, want);
    // A single --group is passed on to the case-list query as --deqp-case.
    assert!(f.invocations()[0]["args"].contains("--deqp-case=dEQP-VK.fake.pass.*"));

    let r = f.run(&[
        "--group",
        "dEQP-VK.fake.fail.*",
        "--group",
        "dEQP-VK.other.*",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(f.csv().len(), 4);
    assert!(f.csv().contains_key("dEQP-VK.other.pass.0"));

    let r = f.run(&["--include", "*.1?", "--exclude", "*.fake.pass.1"]);
    assert_eq!(r.code, 0);
    assert_eq!(f.csv().len(), 10, "pass.10 … pass.19");
    assert!(!f.csv().contains_key("dEQP-VK.other.pass.0"));

    let r = f.run(&["--include", "*.nothing"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no case matches"));
}

#[test]
fn caselist_file_and_list_mode() {
    let f = Fixture::new("caselist", &["dEQP-VK.fake.pass.0", "dEQP-VK.fake.pass.1"]);
    let list = f.dir.join("mustpass.txt");
    fs::write(&list, "dEQP-VK.fake.pass.1\n").unwrap();
    let r = f.run(&["--caselist", list.to_str().unwrap(), "--list"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "dEQP-VK.fake.pass.1\n");
    assert!(
        f.invocations().is_empty(),
        "no deqp-vk process for --caselist --list"
    );
}

#[test]
fn setup_errors_exit_with_2() {
    let f = Fixture::new("errors", &["dEQP-VK.fake.pass.0"]);
    let out = Command::new(RUNNER)
        .args(["--deqp", "/nonexistent/deqp-vk", "--no-build"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("deqp-vk not found"));

    f.expect("fails.txt", "dEQP-VK.fake.pass.0,Bogus\n");
    let r = f.run(&[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("fails.txt") && r.stderr.contains("Bogus"));

    let out = Command::new(RUNNER).arg("--frobnicate").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(RUNNER).arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("--deqp PATH"));
}
