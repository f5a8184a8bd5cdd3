//! # tessera-spirv-tests
//!
//! The `spirv-tests` case suite. Each `cases/<name>/` folder holds a compute shader
//! (`shader.comp` or `shader.spvasm`), its committed `shader.spv`, a `case.json` describing the
//! dispatch and every binding, and raw little-endian `.bin` files with each binding's initial and
//! expected contents. `make_cases.py` (numpy) writes the sources, inputs and expected outputs;
//! `regen.sh` rebuilds the `.spv` files. CI runs neither.
//!
//! This crate loads and checks the cases; `tests/interpreter.rs` runs them on `tessera-spirv`
//! directly and `tests/loader.rs` through `libvulkan.so.1` with the Tessera manifest.
//!
//! `case.json`:
//!
//! ```json
//! {
//!  "entry": "main", "shader": "shader.spv", "dispatch": [2, 1, 1],
//!  "push": "push.bin",                        // or null
//!  "spec": [{"id": 0, "size": 4, "value": 8}], // value: the little-endian bit pattern
//!  "bindings": [
//!   {"set": 0, "binding": 0, "kind": "storage_buffer",   // | uniform_buffer | tensor
//!    "elements": [                                       // one per descriptor (array of tensors)
//!     {"init": "s0b0.init.bin", "expect": "s0b0.expect.bin", // expect may be null
//!      "compare": "u32", "tolerance": 0.0,
//!      // tensors only:
//!      "format": "i32", "dims": [3, 4], "strides": [64, 4], // strides null = packed
//!      "tiling": "linear"}]}]                               // | optimal (init/expect packed)
//! }
//! ```
//!
//! Comparison: integers and bools bit-exact; floats equal bits, both NaN, or
//! `|got - expected| <= tolerance * max(1, |expected|)`. Set `TESSERA_CASE=<substring>` to run
//! only matching cases.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The `spirv-tests/cases` folder.
pub fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cases")
}

/// What a binding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    StorageBuffer,
    UniformBuffer,
    Tensor,
}

/// Tensor tiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Tiling {
    #[default]
    Linear,
    Optimal,
}

/// Element types: tensor formats and comparison types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Elem {
    Bool,
    U8,
    I8,
    U16,
    I16,
    F16,
    U32,
    I32,
    F32,
    U64,
    I64,
    F64,
    /// bfloat16 (`VK_FORMAT_R16_SFLOAT_FPENCODING_BFLOAT16_ARM`).
    Bf16,
    /// float8 E4M3 (`VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM`).
    E4m3,
    /// float8 E5M2 (`VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM`).
    E5m2,
}

impl Elem {
    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            Elem::Bool | Elem::U8 | Elem::I8 | Elem::E4m3 | Elem::E5m2 => 1,
            Elem::U16 | Elem::I16 | Elem::F16 | Elem::Bf16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 | Elem::I64 | Elem::F64 => 8,
        }
    }

    fn is_float(self) -> bool {
        matches!(
            self,
            Elem::F16 | Elem::F32 | Elem::F64 | Elem::Bf16 | Elem::E4m3 | Elem::E5m2
        )
    }

    /// The value of the little-endian element in `b` as text.
    pub fn show(self, b: &[u8]) -> String {
        let mut x = [0u8; 8];
        x[..b.len()].copy_from_slice(b);
        let u = u64::from_le_bytes(x);
        match self {
            Elem::Bool | Elem::U8 | Elem::U16 | Elem::U32 | Elem::U64 => format!("{u} ({u:#x})"),
            Elem::I8 => format!("{}", u as u8 as i8),
            Elem::I16 => format!("{}", u as u16 as i16),
            Elem::I32 => format!("{}", u as u32 as i32),
            Elem::I64 => format!("{}", u as i64),
            Elem::F16 | Elem::F32 | Elem::F64 | Elem::Bf16 | Elem::E4m3 | Elem::E5m2 => {
                format!("{:e} ({u:#x})", self.float(b))
            }
        }
    }

    fn float(self, b: &[u8]) -> f64 {
        match self {
            Elem::F16 => f64::from(half::f16::from_le_bytes([b[0], b[1]])),
            Elem::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            Elem::F64 => f64::from_le_bytes(b.try_into().expect("8 bytes")),
            Elem::Bf16 => f64::from(half::bf16::from_le_bytes([b[0], b[1]])),
            Elem::E4m3 => float8(b[0], 3, 7, false),
            Elem::E5m2 => float8(b[0], 2, 15, true),
            _ => unreachable!("not a float type"),
        }
    }
}

/// A float8 value: `mbits` mantissa bits, exponent `bias`; `ieee` = E5M2 (infinities, NaNs with
/// the top exponent) rather than E4M3 (only S.1111.111 is NaN).
fn float8(b: u8, mbits: u32, bias: i32, ieee: bool) -> f64 {
    let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((b & 0x7f) >> mbits);
    let mant = f64::from(b & ((1 << mbits) - 1));
    let top = (1 << (7 - mbits)) - 1;
    if exp == top && (ieee || mant == f64::from((1u32 << mbits) - 1)) {
        return if ieee && mant == 0.0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    let scale = f64::from(1u32 << mbits);
    if exp == 0 {
        sign * mant / scale * 2f64.powi(1 - bias)
    } else {
        sign * (1.0 + mant / scale) * 2f64.powi(exp - bias)
    }
}

#[derive(Debug, Deserialize)]
struct RawCase {
    entry: String,
    #[serde(default = "default_shader")]
    shader: String,
    dispatch: [u32; 3],
    #[serde(default)]
    push: Option<String>,
    #[serde(default)]
    spec: Vec<Spec>,
    bindings: Vec<RawBinding>,
}

fn default_shader() -> String {
    "shader.spv".to_owned()
}

#[derive(Debug, Deserialize)]
struct RawBinding {
    set: u32,
    binding: u32,
    kind: Kind,
    elements: Vec<RawElement>,
}

#[derive(Debug, Deserialize)]
struct RawElement {
    init: String,
    #[serde(default)]
    expect: Option<String>,
    compare: Elem,
    #[serde(default)]
    tolerance: f64,
    #[serde(default)]
    format: Option<Elem>,
    #[serde(default)]
    dims: Option<Vec<u64>>,
    #[serde(default)]
    strides: Option<Vec<u64>>,
    #[serde(default)]
    tiling: Tiling,
}

/// A specialization constant.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Spec {
    pub id: u32,
    pub size: u32,
    pub value: u64,
}

impl Spec {
    /// The constant's little-endian bytes.
    pub fn bytes(&self) -> Vec<u8> {
        self.value.to_le_bytes()[..self.size as usize].to_vec()
    }
}

/// A tensor's shape and layout.
#[derive(Debug, Clone)]
pub struct TensorDesc {
    pub format: Elem,
    /// Outermost first.
    pub dims: Vec<u64>,
    /// Explicit byte strides (outermost first), or `None` = packed.
    pub strides: Option<Vec<u64>>,
    pub tiling: Tiling,
}

impl TensorDesc {
    /// Packed row-major byte strides.
    pub fn packed_strides(&self) -> Vec<u64> {
        let mut s = vec![0; self.dims.len()];
        let mut acc = self.format.size() as u64;
        for i in (0..self.dims.len()).rev() {
            s[i] = acc;
            acc *= self.dims[i];
        }
        s
    }

    /// The strides the tensor's memory (as in `init`/`expect`) uses.
    pub fn effective_strides(&self) -> Vec<u64> {
        self.strides
            .clone()
            .unwrap_or_else(|| self.packed_strides())
    }

    /// Bytes of memory: `strides[0] * dims[0]`.
    pub fn footprint(&self) -> u64 {
        self.effective_strides()[0] * self.dims[0]
    }
}

/// One descriptor's resource.
#[derive(Debug, Clone)]
pub struct Element {
    pub init: Vec<u8>,
    pub expect: Option<Vec<u8>>,
    pub compare: Elem,
    pub tolerance: f64,
    /// `Some` for tensors.
    pub tensor: Option<TensorDesc>,
}

impl Element {
    /// Compares memory read back after the dispatch with `expect` (`Ok` when there is none).
    pub fn check(&self, got: &[u8]) -> Result<(), String> {
        match &self.expect {
            None => Ok(()),
            Some(e) => compare(self.compare, self.tolerance, got, e),
        }
    }
}

/// A descriptor binding (several elements: an array of descriptors).
#[derive(Debug, Clone)]
pub struct Binding {
    pub set: u32,
    pub binding: u32,
    pub kind: Kind,
    pub elements: Vec<Element>,
}

impl Binding {
    /// `set S binding B[k]` for messages.
    pub fn label(&self, k: usize) -> String {
        if self.elements.len() > 1 {
            format!("set {} binding {}[{k}]", self.set, self.binding)
        } else {
            format!("set {} binding {}", self.set, self.binding)
        }
    }
}

/// A loaded case.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub dir: PathBuf,
    pub entry: String,
    pub spirv: Vec<u32>,
    pub dispatch: [u32; 3],
    pub push: Vec<u8>,
    pub spec: Vec<Spec>,
    pub bindings: Vec<Binding>,
}

impl Case {
    /// Loads `dir/case.json` and the files it names.
    pub fn load(dir: &Path) -> Result<Case, String> {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let read = |f: &str| {
            std::fs::read(dir.join(f)).map_err(|e| format!("{}: {e}", dir.join(f).display()))
        };
        let text = read("case.json")?;
        let raw: RawCase =
            serde_json::from_slice(&text).map_err(|e| format!("{name}/case.json: {e}"))?;
        let spv = read(&raw.shader)?;
        if spv.len() % 4 != 0 {
            return Err(format!(
                "{name}/{}: not a whole number of words",
                raw.shader
            ));
        }
        let spirv = spv
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let push = match &raw.push {
            Some(f) => read(f)?,
            None => Vec::new(),
        };
        let mut bindings = Vec::new();
        for b in raw.bindings {
            if b.elements.is_empty() {
                return Err(format!(
                    "{name}: set {} binding {} has no elements",
                    b.set, b.binding
                ));
            }
            let mut elements = Vec::new();
            for e in b.elements {
                let tensor = if b.kind == Kind::Tensor {
                    let (Some(format), Some(dims)) = (e.format, e.dims) else {
                        return Err(format!(
                            "{name}: tensor binding {} needs format and dims",
                            b.binding
                        ));
                    };
                    if e.tiling == Tiling::Optimal && e.strides.is_some() {
                        return Err(format!("{name}: optimal tensors take no strides"));
                    }
                    Some(TensorDesc {
                        format,
                        dims,
                        strides: e.strides,
                        tiling: e.tiling,
                    })
                } else {
                    None
                };
                let init = read(&e.init)?;
                let expect = e.expect.as_deref().map(read).transpose()?;
                if let Some(t) = &tensor {
                    if init.len() as u64 != t.footprint() {
                        return Err(format!(
                            "{name}: {} is {} bytes; the tensor spans {}",
                            e.init,
                            init.len(),
                            t.footprint()
                        ));
                    }
                }
                if expect.as_ref().is_some_and(|x| x.len() != init.len()) {
                    return Err(format!(
                        "{name}: binding {}: expect and init sizes differ",
                        b.binding
                    ));
                }
                elements.push(Element {
                    init,
                    expect,
                    compare: e.compare,
                    tolerance: e.tolerance,
                    tensor,
                });
            }
            bindings.push(Binding {
                set: b.set,
                binding: b.binding,
                kind: b.kind,
                elements,
            });
        }
        Ok(Case {
            name,
            dir: dir.to_path_buf(),
            entry: raw.entry,
            spirv,
            dispatch: raw.dispatch,
            push,
            spec: raw.spec,
            bindings,
        })
    }

    /// Specialization constants as (SpecId, bytes) pairs.
    pub fn spec_pairs(&self) -> Vec<(u32, Vec<u8>)> {
        self.spec.iter().map(|s| (s.id, s.bytes())).collect()
    }
}

/// Every case folder (sorted), filtered by `TESSERA_CASE` if set: (name, loaded case or error).
pub fn load_all() -> Vec<(String, Result<Case, String>)> {
    let dir = cases_dir();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file())
        .collect();
    dirs.sort();
    let filter = std::env::var("TESSERA_CASE").ok();
    dirs.iter()
        .filter(|d| {
            filter
                .as_deref()
                .is_none_or(|f| d.to_string_lossy().contains(f))
        })
        .map(|d| {
            let name = d
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, Case::load(d))
        })
        .collect()
}

/// Compares `got` with `expect` element by element; the error names the first mismatch and how
/// many elements differ.
pub fn compare(elem: Elem, tolerance: f64, got: &[u8], expect: &[u8]) -> Result<(), String> {
    if got.len() != expect.len() {
        return Err(format!(
            "size: got {} bytes, expected {}",
            got.len(),
            expect.len()
        ));
    }
    let es = elem.size();
    let mut first = None;
    let mut count = 0usize;
    for (k, (g, e)) in got.chunks(es).zip(expect.chunks(es)).enumerate() {
        if g == e {
            continue;
        }
        let ok = g.len() == es && elem.is_float() && {
            let (gv, ev) = (elem.float(g), elem.float(e));
            (gv.is_nan() && ev.is_nan())
                || (tolerance > 0.0 && (gv - ev).abs() <= tolerance * ev.abs().max(1.0))
        };
        if !ok {
            count += 1;
            first.get_or_insert_with(|| {
                format!(
                    "element {k} (byte {}): got {}, expected {}",
                    k * es,
                    elem.show(g),
                    elem.show(e)
                )
            });
        }
    }
    match first {
        None => Ok(()),
        Some(m) => Err(format!(
            "{m} ({count} of {} elements differ)",
            got.len() / es
        )),
    }
}

/// One case's result on one path.
#[derive(Debug)]
pub struct Outcome {
    pub name: String,
    pub result: Result<(), String>,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.result {
            Ok(()) => write!(f, "pass  {}", self.name),
            Err(e) => write!(f, "FAIL  {}: {e}", self.name),
        }
    }
}

/// Prints every outcome and panics if a case failed that is not in `expected_failures`
/// ((name, reason) pairs), or if an expected failure passed (so the list stays current).
pub fn report(path: &str, outcomes: &[Outcome], expected_failures: &[(&str, &str)]) {
    let mut unexpected = Vec::new();
    for o in outcomes {
        let known = expected_failures.iter().find(|(n, _)| *n == o.name);
        match (&o.result, known) {
            (Ok(()), None) => eprintln!("[{path}] {o}"),
            (Err(_), Some((_, why))) => {
                eprintln!("[{path}] {o}\n        (expected failure: {why})")
            }
            (Err(_), None) => {
                eprintln!("[{path}] {o}");
                unexpected.push(o.name.clone());
            }
            (Ok(()), Some(_)) => {
                eprintln!(
                    "[{path}] XPASS {}: listed as an expected failure but passes",
                    o.name
                );
                unexpected.push(format!("{} (unexpected pass)", o.name));
            }
        }
    }
    let passed = outcomes.iter().filter(|o| o.result.is_ok()).count();
    eprintln!(
        "[{path}] {passed} of {} cases passed, {} unexpected",
        outcomes.len(),
        unexpected.len()
    );
    assert!(
        !outcomes.is_empty(),
        "no cases found in {}",
        cases_dir().display()
    );
    assert!(
        unexpected.is_empty(),
        "[{path}] unexpected results: {unexpected:?}"
    );
}

/// Runs `f`, turning a panic into an error message.
pub fn catch<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(format!(
            "panicked: {}",
            p.downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("(non-string payload)")
        )),
    }
}
