//! The run itself: build the ICD, get the case list, run the batches in parallel with a live
//! progress line, re-run regressions, compare with the baseline and write the reports.

use std::collections::{BTreeMap, VecDeque};
use std::fs;
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use crate::baseline::{self, Baseline, Verdict};
use crate::caselist::{self, Selection};
use crate::cli::Args;
use crate::exec::{self, Batch, CaseResult, Deqp};
use crate::report::{self, Record, RunInfo};
use crate::status::Status;

/// Exit status for a run without regressions.
pub const EXIT_OK: i32 = 0;
/// Exit status when there are regressions.
pub const EXIT_REGRESSIONS: i32 = 1;
/// Exit status for usage and setup errors.
pub const EXIT_ERROR: i32 = 2;

/// The package directory (`cts-runner/`), baked in at build time.
fn package_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace root (the parent of `cts-runner/`).
fn workspace_root() -> PathBuf {
    package_dir()
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

fn absolute(p: &Path) -> Result<PathBuf, String> {
    std::path::absolute(p).map_err(|e| format!("{}: {e}", p.display()))
}

/// Reads `cts-revision.txt`: the first two non-comment lines are the tag and its commit.
pub fn cts_revision() -> String {
    let text = fs::read_to_string(package_dir().join("cts-revision.txt")).unwrap_or_default();
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    match (lines.next(), lines.next()) {
        (Some(tag), Some(commit)) => format!("{tag} ({commit})"),
        (Some(tag), None) => tag.to_string(),
        _ => "unknown (cts-revision.txt missing)".to_string(),
    }
}

/// Builds the release ICD and returns the workspace manifest, or checks the given manifest.
fn manifest(args: &Args) -> Result<PathBuf, String> {
    if let Some(m) = &args.manifest {
        let m = absolute(m)?;
        if !m.is_file() {
            return Err(format!("ICD manifest {} does not exist", m.display()));
        }
        return Ok(m);
    }
    let root = workspace_root();
    if !args.no_build {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        eprintln!("tessera-cts-runner: cargo build --release -p tessera-icd");
        let status = Command::new(cargo)
            .args(["build", "--release", "-p", "tessera-icd"])
            .current_dir(&root)
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !status.success() {
            return Err(format!("building the ICD failed ({status})"));
        }
    }
    let m = root.join("icd-manifest/tessera_icd.json");
    if !m.is_file() {
        return Err(format!("ICD manifest {} does not exist", m.display()));
    }
    let lib = root.join("target/release/libtessera_icd.so");
    if !lib.is_file() {
        eprintln!(
            "tessera-cts-runner: warning: {} is missing (CARGO_TARGET_DIR set?); the manifest \
             points there, pass --manifest otherwise",
            lib.display()
        );
    }
    Ok(m)
}

/// Asks `deqp-vk` for its case list (`--deqp-runmode=txt-caselist`). deqp writes the list where
/// `--deqp-caselist-export-file` says (by default into its working directory) and opens its test
/// log even in this mode, so both are named here, in the output folder. The exported list can be
/// huge (hundreds of MB for `dEQP-VK.cooperative_vector.*`); it is removed once read, as
/// `caselist.txt` keeps the selected cases.
fn deqp_caselist(deqp: &Deqp, groups: &[String], output: &Path) -> Result<Vec<String>, String> {
    let file = output.join("dEQP-VK-cases.txt");
    let _ = fs::remove_file(&file);
    let log_path = output.join("caselist.log");
    let log = fs::File::create(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
    let mut cmd = deqp.command();
    cmd.arg("--deqp-runmode=txt-caselist")
        .arg(format!("--deqp-caselist-export-file={}", file.display()))
        .arg(format!(
            "--deqp-log-filename={}",
            output.join("caselist.qpa").display()
        ))
        .arg(format!("--deqp-archive-dir={}", deqp.archive_dir.display()))
        .arg("--deqp-shadercache=disable");
    if let [group] = groups {
        // Lets deqp skip the rest of its (huge) tree; the list is filtered again below.
        cmd.arg(format!("--deqp-case={group}"));
    }
    eprintln!("tessera-cts-runner: asking deqp-vk for its case list");
    let status = cmd
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log)
        .status()
        .map_err(|e| format!("cannot start {}: {e}", deqp.exe.display()))?;
    if !status.success() {
        return Err(format!(
            "{} --deqp-runmode=txt-caselist failed ({}); see {}",
            deqp.exe.display(),
            exec::describe_exit(status),
            log_path.display()
        ));
    }
    let text = fs::read_to_string(&file).map_err(|e| {
        format!(
            "deqp-vk wrote no case list at {}: {e}; see {}",
            file.display(),
            log_path.display()
        )
    })?;
    let _ = fs::remove_file(&file);
    Ok(caselist::parse(&text))
}

/// Where `deqp-vk` runs and finds its data.
///
/// deqp loads its data (`vulkan/…`) from `--deqp-archive-dir`, whose default is the working
/// directory; a build keeps that data next to the executable. `--deqp` is often a symbolic link
/// on the PATH, so the link is resolved to find the build folder, which becomes the archive
/// directory unless `--deqp-archive-dir` says otherwise. The working directory is the output
/// folder unless `--deqp-workdir` says otherwise: every file deqp writes is named on its command
/// line, and anything else it might write stays with the run, never next to the binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeqpDirs {
    /// `--deqp` as given, made absolute (the link, if it is one).
    pub exe: PathBuf,
    /// The executable with every symbolic link resolved.
    pub real_exe: PathBuf,
    /// The working directory.
    pub workdir: PathBuf,
    /// `--deqp-archive-dir`.
    pub archive_dir: PathBuf,
}

/// Resolves `--deqp`, `--deqp-workdir` and `--deqp-archive-dir` (see [`DeqpDirs`]).
///
/// # Errors
/// `--deqp` does not name an existing file.
pub fn deqp_dirs(args: &Args, output: &Path) -> Result<DeqpDirs, String> {
    let exe = absolute(&args.deqp)?;
    let real_exe = fs::canonicalize(&exe)
        .ok()
        .filter(|p| p.is_file())
        .ok_or_else(|| format!("deqp-vk not found at {}", exe.display()))?;
    let workdir = match &args.workdir {
        Some(w) => absolute(w)?,
        None => output.to_path_buf(),
    };
    let archive_dir = match &args.archive_dir {
        Some(a) => absolute(a)?,
        None => real_exe
            .parent()
            .map(Path::to_path_buf)
            .ok_or("deqp-vk has no parent directory")?,
    };
    Ok(DeqpDirs {
        exe,
        real_exe,
        workdir,
        archive_dir,
    })
}

/// The live progress display on stderr.
struct Progress {
    total: usize,
    done: usize,
    counts: BTreeMap<Status, usize>,
    batches_total: usize,
    batches_done: usize,
    start: Instant,
    tty: bool,
    label: &'static str,
}

impl Progress {
    fn line(&self) -> String {
        let width = self.total.to_string().len();
        let mut s = format!("{}[{:>width$}/{}]", self.label, self.done, self.total);
        for (st, n) in &self.counts {
            s.push_str(&format!(" {st} {n}"));
        }
        s.push_str(&format!(
            " | batches {}/{} | {:.1} s",
            self.batches_done,
            self.batches_total,
            self.start.elapsed().as_secs_f64()
        ));
        s
    }

    fn add(&mut self, results: &[CaseResult]) {
        self.done += results.len();
        for r in results {
            *self.counts.entry(r.status).or_insert(0) += 1;
        }
        if self.tty {
            eprint!("\r\x1b[K{}", self.line());
            let _ = std::io::stderr().flush();
        }
    }

    fn batch_done(&mut self) {
        self.batches_done += 1;
        if self.tty {
            eprint!("\r\x1b[K{}", self.line());
            let _ = std::io::stderr().flush();
        } else {
            eprintln!("{}", self.line());
        }
    }

    fn finish(&self) {
        if self.tty {
            eprintln!();
        }
    }
}

enum Msg {
    Results(Vec<CaseResult>),
    Note(String),
    BatchDone,
    Error(String),
}

/// Runs `batches` on `jobs` worker threads, each driving one `deqp-vk` process at a time.
fn run_batches(
    deqp: &Deqp,
    dir: &Path,
    batches: Vec<Batch>,
    jobs: usize,
    label: &'static str,
) -> Result<(Vec<CaseResult>, Vec<String>), String> {
    let total = batches.iter().map(|b| b.cases.len()).sum();
    let mut progress = Progress {
        total,
        done: 0,
        counts: BTreeMap::new(),
        batches_total: batches.len(),
        batches_done: 0,
        start: Instant::now(),
        tty: std::io::stderr().is_terminal(),
        label,
    };
    let queue = Mutex::new(VecDeque::from(batches));
    let (tx, rx) = mpsc::channel::<Msg>();
    let mut results = Vec::new();
    let mut notes = Vec::new();
    let mut errors = Vec::new();
    thread::scope(|s| {
        for slot in 0..jobs {
            let tx = tx.clone();
            let queue = &queue;
            s.spawn(move || {
                // (A function, so that the queue's lock is released before the batch runs.)
                while let Some(batch) = pop(queue) {
                    let tx_results = tx.clone();
                    let tx_notes = tx.clone();
                    let outcome = exec::run_batch(
                        deqp,
                        dir,
                        slot,
                        &batch,
                        &mut |r| {
                            let _ = tx_results.send(Msg::Results(r));
                        },
                        &mut |n| {
                            let _ = tx_notes.send(Msg::Note(n));
                        },
                    );
                    match outcome {
                        Ok(()) => {
                            let _ = tx.send(Msg::BatchDone);
                        }
                        Err(e) => {
                            let _ = tx.send(Msg::Error(format!("batch {}: {e}", batch.id)));
                            // Without a working deqp-vk the other batches would fail alike.
                            if let Ok(mut q) = queue.lock() {
                                q.clear();
                            }
                            break;
                        }
                    }
                }
            });
        }
        drop(tx);
        for msg in rx {
            match msg {
                Msg::Results(r) => {
                    progress.add(&r);
                    results.extend(r);
                }
                Msg::Note(n) => notes.push(n),
                Msg::BatchDone => progress.batch_done(),
                Msg::Error(e) => errors.push(e),
            }
        }
    });
    progress.finish();
    if let Some(e) = errors.into_iter().next() {
        return Err(e);
    }
    Ok((results, notes))
}

fn pop(queue: &Mutex<VecDeque<Batch>>) -> Option<Batch> {
    queue.lock().ok()?.pop_front()
}

fn make_batches(prefix: &str, cases: &[String], jobs: usize, max_batch: usize) -> Vec<Batch> {
    let size = caselist::batch_size(cases.len(), jobs, max_batch);
    cases
        .chunks(size)
        .enumerate()
        .map(|(i, c)| Batch {
            id: format!("{prefix}{i:04}"),
            cases: c.to_vec(),
        })
        .collect()
}

/// Runs everything the arguments ask for and returns the exit status.
///
/// # Errors
/// Setup problems: missing files, a `deqp-vk` that cannot start, unwritable output.
pub fn run(args: &Args) -> Result<i32, String> {
    let output = absolute(
        &args
            .output
            .clone()
            .unwrap_or_else(|| workspace_root().join("target/cts-results")),
    )?;
    if output.to_string_lossy().contains("${") {
        // deqp expands `${…}` in --deqp-caselist-export-file.
        return Err(format!(
            "--output {}: a folder name with `${{` cannot be passed to deqp-vk",
            output.display()
        ));
    }
    let dirs = deqp_dirs(args, &output)?;
    if !dirs.archive_dir.join("vulkan").is_dir() {
        eprintln!(
            "tessera-cts-runner: warning: {} has no vulkan/ data folder; cases that load data will \
             fail (pass --deqp-archive-dir, the folder of the deqp-vk build)",
            dirs.archive_dir.display()
        );
    }
    let expectations = absolute(
        &args
            .expectations
            .clone()
            .unwrap_or_else(|| package_dir().join("expectations")),
    )?;
    let baseline = Baseline::load(&expectations)?;

    let batch_dir = output.join("batches");
    if batch_dir.exists() {
        fs::remove_dir_all(&batch_dir).map_err(|e| format!("{}: {e}", batch_dir.display()))?;
    }
    fs::create_dir_all(&batch_dir).map_err(|e| format!("{}: {e}", batch_dir.display()))?;
    if !dirs.workdir.is_dir() {
        return Err(format!(
            "--deqp-workdir {} is not a directory",
            dirs.workdir.display()
        ));
    }

    let manifest = if args.list_only && args.caselist.is_some() {
        PathBuf::new()
    } else {
        manifest(args)?
    };
    let manifest_str = manifest.display().to_string();
    let deqp = Deqp {
        exe: dirs.real_exe.clone(),
        workdir: dirs.workdir.clone(),
        archive_dir: dirs.archive_dir.clone(),
        env: vec![
            ("VK_ICD_FILENAMES".into(), manifest_str.clone()),
            ("VK_DRIVER_FILES".into(), manifest_str),
            ("VK_LOADER_LAYERS_DISABLE".into(), "~implicit~".into()),
        ],
        env_remove: [
            "VK_ADD_DRIVER_FILES",
            "VK_LOADER_DRIVERS_SELECT",
            "VK_LOADER_DRIVERS_DISABLE",
            "VK_INSTANCE_LAYERS",
            "VK_LOADER_LAYERS_ENABLE",
            "VK_ADD_LAYER_PATH",
        ]
        .map(String::from)
        .to_vec(),
        compute_only: !args.with_graphics,
        extra_args: args.extra.clone(),
        timeout: Duration::from_secs_f64(args.timeout),
        cache_dir: output.clone(),
        amber: baseline.amber.clone(),
    };

    let all = match &args.caselist {
        Some(f) => {
            caselist::parse(&fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?)
        }
        None => deqp_caselist(&deqp, &args.groups, &output)?,
    };
    let selection = Selection {
        groups: args.groups.clone(),
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        fraction: args.fraction,
    };
    let selected = selection.apply(&all);
    if args.list_only {
        for c in &selected {
            println!("{c}");
        }
        return Ok(EXIT_OK);
    }
    if selected.is_empty() {
        return Err(format!(
            "no case matches {} (deqp-vk listed {} cases)",
            args.groups.join(" "),
            all.len()
        ));
    }
    let (skipped, to_run): (Vec<String>, Vec<String>) = selected
        .iter()
        .cloned()
        .partition(|c| baseline.is_skipped(c));
    fs::write(output.join("caselist.txt"), selected.join("\n") + "\n")
        .map_err(|e| format!("{}: {e}", output.display()))?;

    // Wall time of the run proper (after the ICD build and the case-list query).
    let start = Instant::now();
    let batches = make_batches("b", &to_run, args.jobs, args.batch_size);
    let batch_count = batches.len();
    eprintln!(
        "tessera-cts-runner: {} cases ({} skipped by skips.txt) in {} batches on {} jobs, CTS {}",
        selected.len(),
        skipped.len(),
        batch_count,
        args.jobs,
        cts_revision()
    );
    let (results, mut notes) = run_batches(&deqp, &batch_dir, batches, args.jobs, "")?;

    let mut records: BTreeMap<String, Record> = BTreeMap::new();
    for r in results {
        let verdict = baseline.verdict(&r.name, r.status);
        records.insert(
            r.name.clone(),
            Record {
                expected: baseline.fails.get(&r.name).copied(),
                verdict,
                amber: baseline.is_amber(&r.name),
                result: r,
                reruns: vec![],
            },
        );
    }
    for c in skipped {
        records.insert(
            c.clone(),
            Record {
                amber: baseline.is_amber(&c),
                result: CaseResult {
                    name: c,
                    status: Status::Skip,
                    details: "listed in skips.txt".into(),
                    duration_ms: 0,
                },
                verdict: Verdict::Skipped,
                expected: None,
                reruns: vec![],
            },
        );
    }

    // Re-run regressions: a case that gives an expected result on a re-run is a flake.
    for attempt in 1..=args.retries {
        let again: Vec<String> = records
            .values()
            .filter(|r| r.verdict == Verdict::Regression)
            .map(|r| r.result.name.clone())
            .collect();
        if again.is_empty() {
            break;
        }
        eprintln!(
            "tessera-cts-runner: re-running {} regression(s) (attempt {attempt} of {})",
            again.len(),
            args.retries
        );
        let batches = make_batches(
            &format!("retry{attempt}-b"),
            &again,
            args.jobs,
            args.batch_size,
        );
        let (rerun, rerun_notes) = run_batches(&deqp, &batch_dir, batches, args.jobs, "re-run ")?;
        notes.extend(rerun_notes);
        for r in rerun {
            if let Some(rec) = records.get_mut(&r.name) {
                rec.reruns.push(r.status);
                if baseline.verdict(&r.name, r.status) != Verdict::Regression {
                    rec.verdict = Verdict::Flake;
                }
            }
        }
    }

    let records: Vec<Record> = records.into_values().collect();
    let info = RunInfo {
        cts_revision: cts_revision(),
        deqp: if dirs.exe == dirs.real_exe {
            dirs.exe.display().to_string()
        } else {
            format!("{} -> {}", dirs.exe.display(), dirs.real_exe.display())
        },
        groups: args.groups.clone(),
        jobs: args.jobs,
        batches: batch_count,
        seconds: start.elapsed().as_secs_f64(),
        notes,
        expectations: expectations.display().to_string(),
    };
    let summary = report::summary(&records, &info);
    let write = |name: &str, text: &str| {
        let p = output.join(name);
        fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))
    };
    write("results.csv", &report::csv(&records))?;
    write("junit.xml", &report::junit(&records))?;
    write("summary.txt", &summary)?;
    println!("{summary}");
    println!(
        "Reports: {} (results.csv, junit.xml, summary.txt, batches/)",
        output.display()
    );

    let regressions = records
        .iter()
        .filter(|r| r.verdict == Verdict::Regression)
        .count();
    if args.update_baseline {
        let path = expectations.join("fails.txt");
        let original = fs::read_to_string(&path).unwrap_or_default();
        let statuses: BTreeMap<String, Status> = records
            .iter()
            .map(|r| (r.result.name.clone(), r.result.status))
            .collect();
        let flaky = |c: &str| {
            baseline.is_flake(c)
                || records
                    .iter()
                    .any(|r| r.result.name == c && r.verdict == Verdict::Flake)
        };
        let updated = baseline::updated_fails(&original, &statuses, flaky);
        fs::create_dir_all(&expectations)
            .map_err(|e| format!("{}: {e}", expectations.display()))?;
        fs::write(&path, &updated).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("Updated {}", path.display());
        return Ok(EXIT_OK);
    }
    Ok(if regressions > 0 {
        EXIT_REGRESSIONS
    } else {
        EXIT_OK
    })
}
