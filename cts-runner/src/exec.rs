//! Running batches of cases in `deqp-vk` subprocesses, with crash recovery and a watchdog.
//!
//! A batch is a list of cases run by one `deqp-vk` process (`--deqp-caselist-file`). Its results
//! come from the `.qpa` log the process writes. When the process dies or hangs mid-batch, the
//! case it was running (begun in the log, never ended) is recorded as `Crash` or `Timeout`, and a
//! new process is started for the cases of the batch that have no result yet. Every attempt
//! resolves at least one case, so a batch always finishes.
//!
//! Every file of a batch (case list, `.qpa` log, stdout/stderr, shader cache) is written where
//! [`Deqp`] and the batch folder say, never next to `deqp-vk`.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::status::Status;
use crate::{glob, qpa};

/// Details of an Amber-based case that `deqp-vk` does not have (see [`Deqp::amber`]).
pub const AMBER_NOT_IN_TREE: &str = "Amber-based case (amber.txt) that is not in this deqp-vk's \
                                     test tree: it was built without Amber";

/// How to start `deqp-vk`.
#[derive(Debug, Clone)]
pub struct Deqp {
    /// The `deqp-vk` executable.
    pub exe: PathBuf,
    /// Working directory. deqp writes files whose options name none (or a relative path) here;
    /// the runner names every file, so this only catches what deqp might add.
    pub workdir: PathBuf,
    /// `--deqp-archive-dir`: where deqp loads its data from (`vulkan/…`); deqp's default is the
    /// working directory.
    pub archive_dir: PathBuf,
    /// Environment variables to set (the ICD manifest, layer switches).
    pub env: Vec<(String, String)>,
    /// Environment variables to remove (other drivers the loader could add).
    pub env_remove: Vec<String>,
    /// Add `--deqp-compute-only=enable`.
    pub compute_only: bool,
    /// Extra arguments, passed last.
    pub extra_args: Vec<String>,
    /// Per-case timeout, measured from the last growth of the `.qpa` log.
    pub timeout: Duration,
    /// Where each worker keeps its shader cache (`shadercache-w<slot>.bin`), kept across runs.
    pub cache_dir: PathBuf,
    /// Globs of the Amber-based cases (`amber.txt`). When `deqp-vk` ends its session without
    /// beginning such a case, its test tree does not have it (a build without Amber): the case is
    /// NotSupported ([`AMBER_NOT_IN_TREE`]) instead of costing a process of its own.
    pub amber: Vec<String>,
}

impl Deqp {
    /// A `deqp-vk` command with the working directory and environment set.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(&self.exe);
        cmd.current_dir(&self.workdir);
        for k in &self.env_remove {
            cmd.env_remove(k);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }
}

/// The final result of one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseResult {
    /// Full case name.
    pub name: String,
    /// Its status.
    pub status: Status,
    /// deqp's message, or what the runner observed (signal, timeout).
    pub details: String,
    /// Run time in milliseconds (deqp's `TestDuration` when logged).
    pub duration_ms: u64,
}

/// A batch to run: its id (used for file names) and its cases.
#[derive(Debug, Clone)]
pub struct Batch {
    /// File-name stem, e.g. `b0007`.
    pub id: String,
    /// Case names, in run order.
    pub cases: Vec<String>,
}

/// Describes how a process ended, for messages.
pub fn describe_exit(status: ExitStatus) -> String {
    if let Some(sig) = status.signal() {
        let name = match sig {
            4 => " (SIGILL)",
            6 => " (SIGABRT)",
            7 => " (SIGBUS)",
            8 => " (SIGFPE)",
            9 => " (SIGKILL)",
            11 => " (SIGSEGV)",
            15 => " (SIGTERM)",
            _ => "",
        };
        format!("killed by signal {sig}{name}")
    } else {
        match status.code() {
            Some(c) => format!("exit code {c}"),
            None => "unknown exit status".to_string(),
        }
    }
}

/// Runs `batch` to completion (re-launching after crashes and timeouts), writing its files into
/// `dir`. `slot` names the worker's shader cache. `report` is called after every process with
/// the results it produced; notes about abnormal process ends go to `note`.
///
/// # Errors
/// Only if `deqp-vk` cannot be started or the batch files cannot be written.
pub fn run_batch(
    deqp: &Deqp,
    dir: &Path,
    slot: usize,
    batch: &Batch,
    report: &mut dyn FnMut(Vec<CaseResult>),
    note: &mut dyn FnMut(String),
) -> io::Result<()> {
    let mut remaining: Vec<String> = batch.cases.clone();
    let mut attempt = 0usize;
    while !remaining.is_empty() {
        let stem = if attempt == 0 {
            batch.id.clone()
        } else {
            format!("{}.r{attempt}", batch.id)
        };
        let list = dir.join(format!("{stem}.txt"));
        let qpa_path = dir.join(format!("{stem}.qpa"));
        let log = dir.join(format!("{stem}.log"));
        fs::write(&list, remaining.join("\n") + "\n")?;
        let _ = fs::remove_file(&qpa_path);

        let mut cmd = deqp.command();
        cmd.arg(format!("--deqp-caselist-file={}", list.display()))
            .arg(format!("--deqp-log-filename={}", qpa_path.display()))
            .arg(format!("--deqp-archive-dir={}", deqp.archive_dir.display()))
            .arg("--deqp-log-images=disable")
            .arg("--deqp-log-shader-sources=disable")
            .arg(format!(
                "--deqp-shadercache-filename={}",
                deqp.cache_dir
                    .join(format!("shadercache-w{slot}.bin"))
                    .display()
            ))
            .arg("--deqp-shadercache-truncate=disable");
        if deqp.compute_only {
            cmd.arg("--deqp-compute-only=enable");
        }
        cmd.args(&deqp.extra_args);
        let out = File::create(&log)?;
        cmd.stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out);
        let child = cmd.spawn().map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot start {}: {e}", deqp.exe.display()),
            )
        })?;
        let ended = watch(child, &qpa_path, deqp.timeout)?;

        let bytes = fs::read(&qpa_path).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let logged = qpa::parse(&text);
        let pending: HashSet<&str> = remaining.iter().map(String::as_str).collect();
        let mut results = Vec::new();
        let mut seen = HashSet::new();
        for case in logged {
            if !pending.contains(case.name.as_str()) || !seen.insert(case.name.clone()) {
                continue;
            }
            let (status, details, duration_ms) = match case.status {
                Some(st) => (st, case.details, case.duration_us.map_or(0, |us| us / 1000)),
                None if ended.timed_out => (
                    Status::Timeout,
                    format!(
                        "no progress for {:.1} s; deqp-vk killed",
                        deqp.timeout.as_secs_f64()
                    ),
                    ended.since_progress.as_millis() as u64,
                ),
                None => (
                    Status::Crash,
                    format!("deqp-vk {} during the case", describe_exit(ended.status)),
                    ended.since_progress.as_millis() as u64,
                ),
            };
            results.push(CaseResult {
                name: case.name,
                status,
                details,
                duration_ms,
            });
        }

        if qpa::session_ended(&text) {
            for case in &remaining {
                if !seen.contains(case) && glob::matches_any(&deqp.amber, case) {
                    results.push(CaseResult {
                        name: case.clone(),
                        status: Status::NotSupported,
                        details: AMBER_NOT_IN_TREE.to_string(),
                        duration_ms: 0,
                    });
                }
            }
        }

        if results.is_empty() {
            // The process produced no result at all: blame the first case so the batch moves on.
            let first = remaining[0].clone();
            let (status, details) = if ended.timed_out {
                (
                    Status::Timeout,
                    "no progress before the case started; deqp-vk killed".to_string(),
                )
            } else if !ended.status.success() {
                (
                    Status::Crash,
                    format!(
                        "deqp-vk {} before the case started (see {})",
                        describe_exit(ended.status),
                        log.display()
                    ),
                )
            } else {
                (
                    Status::Crash,
                    format!(
                        "deqp-vk exited normally without running the case (unknown to this \
                         deqp-vk?); see {}",
                        log.display()
                    ),
                )
            };
            note(format!("{stem}: {first}: {details}"));
            results.push(CaseResult {
                name: first,
                status,
                details,
                duration_ms: 0,
            });
        } else if !ended.status.success() && !ended.timed_out {
            let explained = results
                .iter()
                .any(|r| matches!(r.status, Status::Crash | Status::Timeout));
            if !explained {
                note(format!(
                    "{stem}: deqp-vk {} outside a test case (see {})",
                    describe_exit(ended.status),
                    log.display()
                ));
            }
        }

        let done: HashSet<String> = results.iter().map(|r| r.name.clone()).collect();
        remaining.retain(|c| !done.contains(c));
        report(results);
        attempt += 1;
    }
    Ok(())
}

/// How a watched process ended.
struct Ended {
    status: ExitStatus,
    timed_out: bool,
    since_progress: Duration,
}

/// Waits for `child`, killing it when `qpa` has not grown for `timeout`.
fn watch(mut child: Child, qpa: &Path, timeout: Duration) -> io::Result<Ended> {
    let mut last_len: Option<u64> = None;
    let mut last_progress = Instant::now();
    let mut poll = Duration::from_millis(5);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Ended {
                status,
                timed_out: false,
                since_progress: last_progress.elapsed(),
            });
        }
        let len = fs::metadata(qpa).ok().map(|m| m.len());
        if len != last_len {
            last_len = len;
            last_progress = Instant::now();
        } else if last_progress.elapsed() > timeout {
            let since_progress = last_progress.elapsed();
            // The process may exit on its own in between; kill errors are harmless then.
            let _ = child.kill();
            let status = child.wait()?;
            return Ok(Ended {
                status,
                timed_out: true,
                since_progress,
            });
        }
        thread::sleep(poll);
        poll = (poll * 2).min(Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_descriptions() {
        assert_eq!(describe_exit(ExitStatus::from_raw(0)), "exit code 0");
        assert_eq!(describe_exit(ExitStatus::from_raw(3 << 8)), "exit code 3");
        assert_eq!(
            describe_exit(ExitStatus::from_raw(6)),
            "killed by signal 6 (SIGABRT)"
        );
    }
}
