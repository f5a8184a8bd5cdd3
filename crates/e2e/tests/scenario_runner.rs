//! Arm's `scenario-runner` (ML SDK for Vulkan) runs the scenarios of `spirv-tests/scenarios/` on
//! Tessera, through the Khronos loader, with no layer: Tessera implements `VK_ARM_tensors` and
//! `VK_ARM_data_graph`, which scenario-runner always enables, so the TOSA graphs (`tosa_*`
//! scenarios, VGF files made by `model-converter`) run as native data graph pipelines and the
//! shader scenarios on its compute pipelines.
//!
//! The child process gets `VK_DRIVER_FILES` / `VK_ICD_FILENAMES` = the Tessera manifest and
//! `VK_LOADER_LAYERS_DISABLE=*` (no implicit layers) ([`driver_env`]); `VK_ADD_LAYER_PATH`,
//! `VK_ADD_DRIVER_FILES` and `VK_LOADER_DEBUG` are removed.
//!
//! scenario-runner is found through its pip package (`pip install ai-ml-sdk-scenario-runner`)
//! with `python3` (or `$PYTHON`); `SCENARIO_RUNNER` (the binary) overrides the look-up.
//! A missing tool fails the tests with the pip command; it never skips them.
//!
//! Every `dst` of a scenario is written to a fresh temporary `--output` folder and compared with
//! `expected/<same name>.npy` (written by `spirv-tests/scenarios/make.py` with numpy): integers
//! and bools exactly, floats within a small tolerance. scenario-runner stores buffers as flat
//! int8 bytes, so those are reinterpreted with the expected file's element type and shape.
//!
//! The `.npy` files are parsed here (the format is a magic string, a Python-dict header and the
//! raw little-endian elements), so the crate needs no extra dependency.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tessera_e2e::{driver_env, require_icd, workspace_root};

const PIP_HINT: &str = "pip install ai-ml-sdk-scenario-runner";
const TIMEOUT: Duration = Duration::from_secs(180);

/// One test per scenario folder; `every_scenario_folder_has_a_test` keeps the list complete.
macro_rules! scenarios {
    ($($(#[$attr:meta])* $name:ident,)*) => {
        const ALL: &[&str] = &[$(stringify!($name)),*];
        $(
            #[test]
            $(#[$attr])*
            fn $name() {
                run_scenario(stringify!($name));
            }
        )*
    };
}

scenarios! {
    tensor_add_mul_i8_rank4,
    tensor_axpy_f32_push_constants,
    tensor_f16_rank3,
    tensor_bool_select,
    tensor_transpose_i32_sizes,
    buffer_saxpy_spec_constants,
    buffer_two_dispatch_barrier,
    tensor_chain_i16_u16_barriers,
    tensor_rowsum_f32_to_buffer,
    buffer_u8_to_tensor,
    tensor_i64_arith,
    shared_memory_reverse_reduce,
    tosa_add_relu_f32,
    tosa_matmul_transpose_f32,
    tosa_conv2d_i8,
    tosa_pool_reduce_f16,
    tosa_int_ops_i32,
    tosa_activations_f32,
    tosa_int8_cnn_block,
    tosa_attention_f32,
}

fn scenarios_dir() -> PathBuf {
    workspace_root().join("spirv-tests/scenarios")
}

#[test]
fn every_scenario_folder_has_a_test() {
    let dir = scenarios_dir();
    let folders: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|entry| {
            let entry = entry.ok()?;
            entry
                .path()
                .join("scenario.json")
                .is_file()
                .then(|| entry.file_name().to_string_lossy().into_owned())
        })
        .collect();
    let tests: BTreeSet<String> = ALL.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        folders, tests,
        "scenario folders and tests in scenario_runner.rs differ"
    );
    assert!(folders.len() >= 10, "fewer than ten scenarios");
    for name in ALL {
        let expected = dir.join(name).join("expected");
        let count = std::fs::read_dir(&expected).map(|d| d.count()).unwrap_or(0);
        assert!(
            count > 0,
            "{name}: no expected outputs in {}",
            expected.display()
        );
    }
}

// ------------------------------------------------------------------------------- tools

/// Runs `python3 -c <code>` and returns its trimmed stdout, or why it failed.
fn python(code: &str) -> Result<String, String> {
    let python = std::env::var_os("PYTHON").unwrap_or_else(|| OsString::from("python3"));
    let out = Command::new(&python)
        .args(["-c", code])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.to_string_lossy()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
    }
}

/// The directory of an installed Python package, or a panic with the pip hint.
fn package_dir(package: &str) -> PathBuf {
    match python(&format!(
        "import {package}, os; print(os.path.dirname({package}.__file__))"
    )) {
        Ok(dir) => PathBuf::from(dir),
        Err(why) => panic!(
            "the Python package `{package}` is not installed ({why}); install the tools with \
             `{PIP_HINT}`"
        ),
    }
}

fn scenario_runner_binary() -> PathBuf {
    let bin = match std::env::var_os("SCENARIO_RUNNER") {
        Some(path) => PathBuf::from(path),
        None => package_dir("scenario_runner").join("binaries/bin/scenario-runner"),
    };
    assert!(
        bin.is_file(),
        "scenario-runner not found at {}; install it with `{PIP_HINT}`",
        bin.display()
    );
    bin
}

/// Environment for scenario-runner: Tessera alone, no layer (Tessera implements both
/// `VK_ARM_tensors` and `VK_ARM_data_graph`).
fn runner_env() -> Vec<(&'static str, OsString)> {
    driver_env()
}

// ------------------------------------------------------------------------------- running

/// A fresh, empty output folder for one scenario; removed again when the scenario passes.
fn output_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tessera-scenario-runner-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

fn run_scenario(name: &str) {
    require_icd();
    let runner = scenario_runner_binary();
    let env = runner_env();
    let scenario = scenarios_dir().join(name).join("scenario.json");
    assert!(scenario.is_file(), "{} is missing", scenario.display());
    let out_dir = output_dir(name);

    let mut command = Command::new(&runner);
    command
        .arg("--scenario")
        .arg(&scenario)
        .arg("--output")
        .arg(&out_dir)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env_remove("VK_ADD_LAYER_PATH")
        .env_remove("VK_ADD_DRIVER_FILES")
        .env_remove("VK_LOADER_DEBUG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let env_text: String = env
        .iter()
        .map(|(k, v)| format!("{k}='{}' ", v.to_string_lossy()))
        .collect();
    let command_text = format!(
        "{env_text}{} --scenario {} --output {}",
        runner.display(),
        scenario.display(),
        out_dir.display()
    );
    let (status, log) = run_with_timeout(command, TIMEOUT)
        .unwrap_or_else(|e| panic!("[{name}] cannot run scenario-runner: {e}\n{command_text}"));
    assert!(
        status.is_some_and(|s| s.success()),
        "[{name}] scenario-runner {}\ncommand: {command_text}\noutput:\n{log}",
        match status {
            Some(s) => format!("exited with {s}"),
            None => format!("timed out after {TIMEOUT:?}"),
        }
    );

    let expected_dir = scenarios_dir().join(name).join("expected");
    let mut report = String::new();
    let mut expected_files: Vec<PathBuf> = std::fs::read_dir(&expected_dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", expected_dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "npy"))
        .collect();
    expected_files.sort();
    assert!(!expected_files.is_empty(), "[{name}] no expected outputs");
    let mut failed = false;
    for expected_path in &expected_files {
        let file = expected_path.file_name().expect("file name");
        let actual_path = out_dir.join(file);
        let verdict = compare_files(expected_path, &actual_path);
        let _ = writeln!(
            report,
            "  {}: {}",
            file.to_string_lossy(),
            match &verdict {
                Ok(summary) => format!("ok ({summary})"),
                Err(why) => format!("FAILED: {why}"),
            }
        );
        failed |= verdict.is_err();
    }
    eprintln!("[{name}]\n{report}");
    assert!(
        !failed,
        "[{name}] outputs differ from expected (outputs kept in {}):\n{report}\ncommand: \
         {command_text}\nscenario-runner output:\n{log}",
        out_dir.display()
    );
    let _ = std::fs::remove_dir_all(&out_dir);
}

/// Runs `command`, returning its exit status (None on timeout, after killing it) and its
/// stdout and stderr.
fn run_with_timeout(
    mut command: Command,
    timeout: Duration,
) -> std::io::Result<(Option<std::process::ExitStatus>, String)> {
    let mut child = command.spawn()?;
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let read = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = pipe.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let out_thread = read(Box::new(stdout));
    let err_thread = read(Box::new(stderr));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = out_thread.join().unwrap_or_default();
    let err = err_thread.join().unwrap_or_default();
    Ok((status, format!("{out}{err}")))
}

// ------------------------------------------------------------------------------- .npy

/// An element type of a `.npy` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dtype {
    Bool,
    I8,
    U8,
    I16,
    U16,
    F16,
    I32,
    U32,
    F32,
    I64,
    U64,
    F64,
}

impl Dtype {
    fn parse(descr: &str) -> Result<Self, String> {
        // One-byte types use '|'; wider ones must be little-endian ('<'; '=' on x86/ARM64 too).
        let (order, code) = descr.split_at(1.min(descr.len()));
        let little = matches!(order, "<" | "|" | "=");
        if !little {
            return Err(format!("unsupported byte order in descr '{descr}'"));
        }
        Ok(match code {
            "b1" => Self::Bool,
            "i1" => Self::I8,
            "u1" => Self::U8,
            "i2" => Self::I16,
            "u2" => Self::U16,
            "f2" => Self::F16,
            "i4" => Self::I32,
            "u4" => Self::U32,
            "f4" => Self::F32,
            "i8" => Self::I64,
            "u8" => Self::U64,
            "f8" => Self::F64,
            _ => return Err(format!("unsupported descr '{descr}'")),
        })
    }

    fn size(self) -> usize {
        match self {
            Self::Bool | Self::I8 | Self::U8 => 1,
            Self::I16 | Self::U16 | Self::F16 => 2,
            Self::I32 | Self::U32 | Self::F32 => 4,
            Self::I64 | Self::U64 | Self::F64 => 8,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Self::F16 | Self::F32 | Self::F64)
    }

    /// Allowed |actual - expected| relative to max(1, |expected|).
    fn tolerance(self) -> f64 {
        match self {
            // Two float16 ulps at 1.0.
            Self::F16 => 2.0 * f64::powi(2.0, -10),
            Self::F32 => 1e-5,
            _ => 1e-12,
        }
    }

    /// Element `i` of `data` as an f64 (floats) or an exact integer printed as text.
    fn show(self, data: &[u8], i: usize) -> String {
        let b = &data[i * self.size()..(i + 1) * self.size()];
        match self {
            Self::Bool => format!("{}", b[0] != 0),
            Self::I8 => format!("{}", b[0] as i8),
            Self::U8 => format!("{}", b[0]),
            Self::I16 => format!("{}", i16::from_le_bytes([b[0], b[1]])),
            Self::U16 => format!("{}", u16::from_le_bytes([b[0], b[1]])),
            Self::I32 => format!("{}", i32::from_le_bytes(b.try_into().expect("4 bytes"))),
            Self::U32 => format!("{}", u32::from_le_bytes(b.try_into().expect("4 bytes"))),
            Self::I64 => format!("{}", i64::from_le_bytes(b.try_into().expect("8 bytes"))),
            Self::U64 => format!("{}", u64::from_le_bytes(b.try_into().expect("8 bytes"))),
            Self::F16 | Self::F32 | Self::F64 => format!("{:?}", self.float(data, i)),
        }
    }

    fn float(self, data: &[u8], i: usize) -> f64 {
        let b = &data[i * self.size()..(i + 1) * self.size()];
        match self {
            Self::F16 => f16_to_f64(u16::from_le_bytes([b[0], b[1]])),
            Self::F32 => f64::from(f32::from_le_bytes(b.try_into().expect("4 bytes"))),
            Self::F64 => f64::from_le_bytes(b.try_into().expect("8 bytes")),
            _ => unreachable!("not a float type"),
        }
    }
}

fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let mant = f64::from(bits & 0x3ff);
    sign * match exp {
        0 => mant * f64::powi(2.0, -24),
        31 if mant == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + mant / 1024.0) * f64::powi(2.0, exp - 15),
    }
}

/// A parsed `.npy` file (C order only).
#[derive(Debug)]
struct Npy {
    dtype: Dtype,
    shape: Vec<usize>,
    data: Vec<u8>,
}

impl Npy {
    fn read(path: &Path) -> Result<Self, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Self::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    fn parse(bytes: &[u8]) -> Result<Self, String> {
        // The header (magic, version, descr, C order, shape) is the graph crate's reader's.
        let (descr, shape, data) =
            tessera_graph::npy::parse(bytes).map_err(|e| e.message.clone())?;
        let dtype = Dtype::parse(&descr)?;
        let data = data.to_vec();
        let count: usize = shape.iter().product();
        if data.len() != count * dtype.size() {
            return Err(format!(
                "{} data bytes for shape {shape:?} of {descr}",
                data.len()
            ));
        }
        Ok(Self { dtype, shape, data })
    }

    fn len(&self) -> usize {
        self.data.len() / self.dtype.size()
    }
}

/// Compares an output with its expected file; Ok carries a one-line summary.
fn compare_files(expected_path: &Path, actual_path: &Path) -> Result<String, String> {
    let expected = Npy::read(expected_path)?;
    if !actual_path.is_file() {
        return Err(format!(
            "scenario-runner wrote no {}",
            actual_path.display()
        ));
    }
    let mut actual = Npy::read(actual_path)?;
    // Buffers come back as flat int8 bytes: view them as the expected type and shape.
    if actual.dtype == Dtype::I8 && expected.dtype != Dtype::I8 && actual.shape.len() == 1 {
        if actual.data.len() != expected.data.len() {
            return Err(format!(
                "buffer holds {} bytes, expected {} ({:?} x {:?})",
                actual.data.len(),
                expected.data.len(),
                expected.shape,
                expected.dtype
            ));
        }
        actual.dtype = expected.dtype;
        actual.shape = expected.shape.clone();
    }
    if actual.dtype != expected.dtype || actual.shape != expected.shape {
        return Err(format!(
            "got {:?} {:?}, expected {:?} {:?}",
            actual.dtype, actual.shape, expected.dtype, expected.shape
        ));
    }
    compare(&expected, &actual)
}

fn compare(expected: &Npy, actual: &Npy) -> Result<String, String> {
    let dtype = expected.dtype;
    let mut bad = Vec::new();
    let mut max_err = 0.0f64;
    for i in 0..expected.len() {
        let ok = if dtype.is_float() {
            let (e, a) = (dtype.float(&expected.data, i), dtype.float(&actual.data, i));
            let err = (a - e).abs();
            if err.is_finite() {
                max_err = max_err.max(err / e.abs().max(1.0));
            }
            (e.is_nan() && a.is_nan()) || e == a || err <= dtype.tolerance() * e.abs().max(1.0)
        } else if dtype == Dtype::Bool {
            (expected.data[i] != 0) == (actual.data[i] != 0)
        } else {
            let n = dtype.size();
            expected.data[i * n..(i + 1) * n] == actual.data[i * n..(i + 1) * n]
        };
        if !ok {
            bad.push(i);
        }
    }
    let summary = format!(
        "{} x {:?} {:?}{}",
        expected.len(),
        dtype,
        expected.shape,
        if dtype.is_float() {
            format!(", max rel err {max_err:.1e}")
        } else {
            ", exact".to_owned()
        }
    );
    if bad.is_empty() {
        return Ok(summary);
    }
    let mut why = format!(
        "{} of {} elements differ ({summary}):",
        bad.len(),
        expected.len()
    );
    for &i in bad.iter().take(8) {
        let _ = write!(
            why,
            " [{}] got {} want {};",
            index_text(&expected.shape, i),
            dtype.show(&actual.data, i),
            dtype.show(&expected.data, i)
        );
    }
    Err(why)
}

/// A flat C-order index as a multi-index.
fn index_text(shape: &[usize], mut flat: usize) -> String {
    let mut idx = vec![0; shape.len()];
    for (d, &extent) in shape.iter().enumerate().rev() {
        idx[d] = flat % extent.max(1);
        flat /= extent.max(1);
    }
    idx.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn npy_parser_reads_numpy_headers() {
    // np.save of np.array([[1, -2, 3]], dtype=np.int16), version 1.0.
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    let mut header = "{'descr': '<i2', 'fortran_order': False, 'shape': (1, 3), }".to_owned();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    file.extend((header.len() as u16).to_le_bytes());
    file.extend(header.as_bytes());
    for v in [1i16, -2, 3] {
        file.extend(v.to_le_bytes());
    }
    let npy = Npy::parse(&file).expect("parses");
    assert_eq!(npy.dtype, Dtype::I16);
    assert_eq!(npy.shape, vec![1, 3]);
    assert_eq!(npy.dtype.show(&npy.data, 1), "-2");
    assert_eq!(index_text(&npy.shape, 2), "0,2");
    assert_eq!(f16_to_f64(0x3c00), 1.0);
    assert_eq!(f16_to_f64(0xc100), -2.5);
    assert_eq!(f16_to_f64(0x0001), f64::powi(2.0, -24));
    // Every committed input and expected file parses.
    for name in ALL {
        let dir = scenarios_dir().join(name);
        for sub in [dir.clone(), dir.join("expected")] {
            for entry in std::fs::read_dir(&sub).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|x| x == "npy") {
                    Npy::read(&path).unwrap_or_else(|e| panic!("{e}"));
                }
            }
        }
    }
}
