//! Command-line parsing (by hand: a dozen options do not justify a dependency).

use std::path::PathBuf;

/// Default per-case timeout in seconds. Tessera runs shaders in an interpreter and the tensor
/// tests dispatch up to ~97 000 workgroups, so this is generous.
pub const DEFAULT_TIMEOUT: f64 = 300.0;
/// Default upper bound on cases per `deqp-vk` process.
pub const DEFAULT_BATCH_SIZE: usize = 100;
/// Default group.
pub const DEFAULT_GROUP: &str = "dEQP-VK.tensor.*";

/// The usage text.
pub const USAGE: &str = "\
usage: tessera-cts-runner --deqp PATH/deqp-vk [options] [-- extra deqp-vk arguments]

Runs Vulkan CTS cases from an external deqp-vk against Tessera, in parallel batches, and compares
the results with the baseline in cts-runner/expectations/.

Selection:
  --group GLOB          cases to run ('*' and '?' wildcards; repeatable) [dEQP-VK.tensor.*]
  --include GLOB        keep only cases that also match one of these (repeatable)
  --exclude GLOB        drop cases matching (repeatable)
  --fraction N          run every Nth selected case
  --caselist FILE       take the case list from FILE (plain names, or deqp's TEST:/GROUP: format)
                        instead of asking deqp-vk (--deqp-runmode=txt-caselist)
  --list                print the selected cases and exit
Driver:
  --manifest FILE       ICD manifest to use (default: icd-manifest/tessera_icd.json, after
                        building the release ICD with cargo)
  --no-build            do not run `cargo build --release -p tessera-icd` first
  --with-graphics       do not pass --deqp-compute-only=enable
deqp-vk:
  --deqp PATH           the deqp-vk executable (required; may be a symbolic link)
  --deqp-workdir DIR    its working directory [the --output folder]
  --deqp-archive-dir DIR  where deqp-vk loads its data (vulkan/) from [the folder of deqp-vk,
                        symbolic links resolved]
Execution:
  --jobs N              parallel deqp-vk processes [number of CPUs]
  --batch-size N        at most N cases per process [100]
  --timeout SECS        kill a process whose log made no progress for SECS [300]
  --retries N           re-run regressions N times; a changed result makes them flakes [1]
Results:
  --output DIR          results.csv, junit.xml, summary.txt, batches/ and every file deqp-vk
                        writes (case lists, logs, shader caches) [target/cts-results]
  --expectations DIR    fails.txt, flakes.txt, skips.txt, amber.txt [cts-runner/expectations]
  --update-baseline     rewrite fails.txt from this run's results (exit 0 unless an error)

Exit status: 0 no regressions, 1 regressions, 2 usage or setup error.";

/// Parsed command line.
#[derive(Debug, Clone)]
pub struct Args {
    /// `--deqp`.
    pub deqp: PathBuf,
    /// `--group` (defaults to [`DEFAULT_GROUP`]).
    pub groups: Vec<String>,
    /// `--include`.
    pub include: Vec<String>,
    /// `--exclude`.
    pub exclude: Vec<String>,
    /// `--fraction`.
    pub fraction: usize,
    /// `--caselist`.
    pub caselist: Option<PathBuf>,
    /// `--list`.
    pub list_only: bool,
    /// `--manifest`.
    pub manifest: Option<PathBuf>,
    /// `--no-build`.
    pub no_build: bool,
    /// `--with-graphics`.
    pub with_graphics: bool,
    /// `--deqp-workdir`.
    pub workdir: Option<PathBuf>,
    /// `--deqp-archive-dir`.
    pub archive_dir: Option<PathBuf>,
    /// `--jobs`.
    pub jobs: usize,
    /// `--batch-size`.
    pub batch_size: usize,
    /// `--timeout`, in seconds.
    pub timeout: f64,
    /// `--retries`.
    pub retries: usize,
    /// `--output`.
    pub output: Option<PathBuf>,
    /// `--expectations`.
    pub expectations: Option<PathBuf>,
    /// `--update-baseline`.
    pub update_baseline: bool,
    /// Arguments after `--`.
    pub extra: Vec<String>,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Parsed {
    /// Run with these arguments.
    Run(Box<Args>),
    /// `--help`.
    Help,
}

fn number<T: std::str::FromStr>(opt: &str, v: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("{opt}: `{v}` is not a valid number"))
}

/// Parses the arguments (without the program name).
///
/// # Errors
/// Unknown options, missing values, bad numbers, or no `--deqp`.
pub fn parse(args: &[String]) -> Result<Parsed, String> {
    let mut deqp = None;
    let mut a = Args {
        deqp: PathBuf::new(),
        groups: vec![],
        include: vec![],
        exclude: vec![],
        fraction: 1,
        caselist: None,
        list_only: false,
        manifest: None,
        no_build: false,
        with_graphics: false,
        workdir: None,
        archive_dir: None,
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        batch_size: DEFAULT_BATCH_SIZE,
        timeout: DEFAULT_TIMEOUT,
        retries: 1,
        output: None,
        expectations: None,
        update_baseline: false,
        extra: vec![],
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "--" {
            a.extra = it.by_ref().cloned().collect();
            break;
        }
        let (opt, inline) = match arg.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let flag = |a: &mut bool| -> Result<(), String> {
            if inline.is_some() {
                return Err(format!("{opt} takes no value"));
            }
            *a = true;
            Ok(())
        };
        match opt {
            "-h" | "--help" => return Ok(Parsed::Help),
            "--list" => flag(&mut a.list_only)?,
            "--no-build" => flag(&mut a.no_build)?,
            "--with-graphics" => flag(&mut a.with_graphics)?,
            "--update-baseline" => flag(&mut a.update_baseline)?,
            _ => {
                let value = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .cloned()
                        .ok_or_else(|| format!("{opt} needs a value"))?,
                };
                match opt {
                    "--deqp" => deqp = Some(PathBuf::from(value)),
                    "--group" => a.groups.push(value),
                    "--include" => a.include.push(value),
                    "--exclude" => a.exclude.push(value),
                    "--fraction" => a.fraction = number(opt, &value)?,
                    "--caselist" => a.caselist = Some(value.into()),
                    "--manifest" => a.manifest = Some(value.into()),
                    "--deqp-workdir" => a.workdir = Some(value.into()),
                    "--deqp-archive-dir" => a.archive_dir = Some(value.into()),
                    "--jobs" | "-j" => a.jobs = number(opt, &value)?,
                    "--batch-size" => a.batch_size = number(opt, &value)?,
                    "--timeout" => a.timeout = number(opt, &value)?,
                    "--retries" => a.retries = number(opt, &value)?,
                    "--output" => a.output = Some(value.into()),
                    "--expectations" => a.expectations = Some(value.into()),
                    _ => return Err(format!("unknown option `{arg}`")),
                }
            }
        }
    }
    a.deqp = deqp.ok_or("--deqp PATH/deqp-vk is required")?;
    if a.groups.is_empty() {
        a.groups.push(DEFAULT_GROUP.to_string());
    }
    if a.fraction == 0 || a.jobs == 0 || a.batch_size == 0 {
        return Err("--fraction, --jobs and --batch-size must be at least 1".to_string());
    }
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        return Err("--timeout must be a positive number of seconds".to_string());
    }
    Ok(Parsed::Run(Box::new(a)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(v: &[&str]) -> Result<Args, String> {
        let v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
        match parse(&v)? {
            Parsed::Run(a) => Ok(*a),
            Parsed::Help => Err("help".into()),
        }
    }

    #[test]
    fn defaults_and_values() {
        let a = run(&["--deqp", "/x/deqp-vk"]).unwrap();
        assert_eq!(a.groups, [DEFAULT_GROUP]);
        assert_eq!(a.fraction, 1);
        assert_eq!(a.retries, 1);
        let a = run(&[
            "--deqp=/x/deqp-vk",
            "--group",
            "a.*",
            "--group=b.*",
            "--timeout=0.5",
            "--jobs",
            "3",
            "--no-build",
            "--",
            "--deqp-foo=1",
        ])
        .unwrap();
        assert_eq!(a.groups, ["a.*", "b.*"]);
        assert_eq!(a.timeout, 0.5);
        assert_eq!(a.jobs, 3);
        assert!(a.no_build);
        assert_eq!(a.extra, ["--deqp-foo=1"]);
    }

    #[test]
    fn errors() {
        assert!(run(&[]).unwrap_err().contains("--deqp"));
        assert!(
            run(&["--deqp", "x", "--bogus"])
                .unwrap_err()
                .contains("--bogus")
        );
        assert!(
            run(&["--deqp", "x", "--jobs"])
                .unwrap_err()
                .contains("needs a value")
        );
        assert!(run(&["--deqp", "x", "--jobs", "two"]).is_err());
        assert!(run(&["--deqp", "x", "--fraction", "0"]).is_err());
        assert!(run(&["--deqp", "x", "--timeout", "-1"]).is_err());
        assert!(run(&["--deqp", "x", "--no-build=yes"]).is_err());
        assert_eq!(run(&["--help"]).unwrap_err(), "help");
    }
}
