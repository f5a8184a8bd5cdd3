//! # tessera-spirv-tests
//!
//! The `spirv-tests` case corpus. Each `cases/<name>/` folder holds a hand-written compute shader
//! (`shader.comp` or `shader.spvasm`), the committed SPIR-V built from it, an `oracle.py` that
//! computes the inputs and expected outputs with numpy, and what the oracle wrote: `case.json`
//! (the description: shaders, runs, bindings) and raw little-endian `.bin` files.
//! `cargo xtask regen` rebuilds the SPIR-V and reruns the oracles; `--check` verifies that what
//! is committed is what they produce. See `spirv-tests/README.md`.
//!
//! This crate loads and checks the cases; `tests/cases/main.rs` runs every run of every case on
//! each backend (the interpreter directly, and the Vulkan loader with the Tessera ICD), one test
//! each.
//!
//! `case.json`:
//!
//! ```json
//! {
//!  "description": "one line",
//!  "shaders": [{"spv": "shader.spv", "source": "shader.comp"}],   // how regen builds them
//!  "runs": [{
//!   "name": "wgs32",                     // absent when the case has a single run
//!   "shader": "shader.spv", "entry": "main", "dispatch": [2, 1, 1],
//!   "base": [0, 0, 0],                   // optional: vkCmdDispatchBase's first workgroup
//!   "push": "push.bin",                  // optional: raw push-constant bytes
//!   "spec": [{"id": 0, "size": 4, "value": 8}], // value: the little-endian bit pattern
//!   "bindings": [
//!    {"set": 0, "binding": 0, "kind": "storage_buffer",   // | uniform_buffer | tensor
//!     "elements": [                                       // one per descriptor (array of tensors)
//!      {"init": "s0b0.init.bin",         // or "size": N (+ "fill": byte): uniform contents
//!       "expect": "s0b0.expect.bin",     // optional
//!       "mask": "s0b0.mask.bin",         // optional: one byte per element, 0 = not compared
//!       "unordered": [3, 67],            // optional: elements 3..67 compared as a multiset
//!       "range": 32,                     // optional: buffer descriptor range in bytes
//!       "compare": "u32", "tolerance": 1e-5,
//!       // tensors only:
//!       "format": "i32", "dims": [3, 4], "strides": [64, 4], // strides absent = packed
//!       "tiling": "linear"}]}]                               // | optimal (init/expect packed)
//!  }]
//! }
//! ```
//!
//! Comparison: integers and bools bit-exact; floats equal bits, both NaN, or
//! `|got - expected| <= tolerance * max(1, |expected|)`.

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
#[serde(deny_unknown_fields)]
struct RawCase {
    description: String,
    shaders: Vec<RawShader>,
    runs: Vec<RawRun>,
}

/// One SPIR-V file of the case; `cargo xtask regen` reads (and checks) how it is built.
#[derive(Debug, Deserialize)]
struct RawShader {
    spv: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRun {
    #[serde(default)]
    name: Option<String>,
    shader: String,
    entry: String,
    dispatch: [u32; 3],
    #[serde(default)]
    base: Option<[u32; 3]>,
    #[serde(default)]
    push: Option<String>,
    #[serde(default)]
    spec: Vec<Spec>,
    bindings: Vec<RawBinding>,
    #[serde(default)]
    addresses: Vec<AddressPatch>,
    #[serde(default)]
    matrices: Vec<MatrixConversion>,
}

/// A cooperative-vector matrix the backend converts before the dispatch, as an application does
/// with `vkConvertCooperativeVectorMatrixNV`: the row-major `rows × cols` matrix of component
/// type `component` (`VkComponentTypeKHR`) at byte `src_at` of buffer binding `binding` (first
/// element), `src_stride` bytes per row, becomes a matrix of the same type in `layout`
/// (`VkCooperativeVectorMatrixLayoutNV`; `dst_stride` for row- and column-major) at byte
/// `dst_at`, which has room for `capacity` bytes (the oracle cannot know an optimal layout's
/// size: the backend checks that the driver's fits).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatrixConversion {
    pub binding: [u32; 2],
    pub src_at: usize,
    pub src_stride: usize,
    pub rows: u32,
    pub cols: u32,
    pub component: u32,
    pub layout: u32,
    #[serde(default)]
    pub dst_stride: usize,
    pub dst_at: usize,
    pub capacity: usize,
}

/// A device address the backend writes before the dispatch: the buffer device address of
/// binding `of` (`[set, binding]`, its first element) plus `add`, as a little-endian `u64` at
/// byte `at` of the push constants (`into` absent) or of binding `into`'s first element.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddressPatch {
    #[serde(default)]
    pub into: Option<[u32; 2]>,
    pub at: usize,
    pub of: [u32; 2],
    #[serde(default)]
    pub add: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBinding {
    set: u32,
    binding: u32,
    kind: Kind,
    elements: Vec<RawElement>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawElement {
    #[serde(default)]
    init: Option<String>,
    #[serde(default)]
    size: Option<usize>,
    #[serde(default)]
    fill: u8,
    #[serde(default)]
    expect: Option<String>,
    #[serde(default)]
    mask: Option<String>,
    #[serde(default)]
    unordered: Option<[usize; 2]>,
    #[serde(default)]
    range: Option<u64>,
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
#[serde(deny_unknown_fields)]
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
    /// One byte per element of `compare`'s type: 0 = not compared.
    pub mask: Option<Vec<u8>>,
    /// Elements `first..end` compared as a multiset (their order is unspecified).
    pub unordered: Option<[usize; 2]>,
    /// Buffers: the descriptor's range in bytes, when it covers only the start of the memory.
    pub range: Option<u64>,
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
            Some(e) => compare(
                self.compare,
                self.tolerance,
                got,
                e,
                self.mask.as_deref(),
                self.unordered,
            ),
        }
    }

    /// The bytes a buffer descriptor covers.
    pub fn buffer_range(&self) -> usize {
        self.range.map_or(self.init.len(), |r| r as usize)
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

/// One dispatch of a case, with its resources.
#[derive(Debug, Clone)]
pub struct Run {
    /// `case` or `case::run` (the case has several runs).
    pub name: String,
    pub entry: String,
    /// The SPIR-V file's name in the case folder.
    pub shader: String,
    pub spirv: Vec<u32>,
    pub dispatch: [u32; 3],
    pub base: [u32; 3],
    pub push: Vec<u8>,
    pub spec: Vec<Spec>,
    pub bindings: Vec<Binding>,
    /// Device addresses to write before the dispatch (buffers only).
    pub addresses: Vec<AddressPatch>,
    /// Matrices to convert before the dispatch (after the address patches).
    pub matrices: Vec<MatrixConversion>,
}

impl Run {
    /// Applies the address patches: `address_of(set, binding)` is the device address of the
    /// binding's first element; `write(target, at, bytes)` writes into binding `target`'s first
    /// element. Returns the patched push-constant bytes.
    pub fn patch_addresses(
        &self,
        address_of: &dyn Fn(u32, u32) -> u64,
        write: &mut dyn FnMut([u32; 2], usize, [u8; 8]),
    ) -> Vec<u8> {
        let mut push = self.push.clone();
        for p in &self.addresses {
            let a = address_of(p.of[0], p.of[1]).wrapping_add_signed(p.add);
            match p.into {
                None => push[p.at..p.at + 8].copy_from_slice(&a.to_le_bytes()),
                Some(t) => write(t, p.at, a.to_le_bytes()),
            }
        }
        push
    }

    /// The binding `[set, binding]`.
    pub fn binding(&self, sb: [u32; 2]) -> Option<&Binding> {
        self.bindings
            .iter()
            .find(|b| b.set == sb[0] && b.binding == sb[1])
    }

    /// Specialization constants as (SpecId, bytes) pairs.
    pub fn spec_pairs(&self) -> Vec<(u32, Vec<u8>)> {
        self.spec.iter().map(|s| (s.id, s.bytes())).collect()
    }
}

/// A loaded case.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub dir: PathBuf,
    pub description: String,
    pub runs: Vec<Run>,
}

/// Little-endian SPIR-V words of a file.
pub fn read_spirv(path: &Path) -> Result<Vec<u32>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() % 4 != 0 {
        return Err(format!("{}: not a whole number of words", path.display()));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
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
        if raw.runs.is_empty() {
            return Err(format!("{name}/case.json: no runs"));
        }
        let single = raw.runs.len() == 1;
        let mut runs = Vec::new();
        for r in raw.runs {
            let run_name = match (&r.name, single) {
                (None, true) => name.clone(),
                (Some(n), false) => format!("{name}::{n}"),
                _ => {
                    return Err(format!(
                        "{name}/case.json: a run has a name exactly when there are several"
                    ));
                }
            };
            if !raw.shaders.iter().any(|s| s.spv == r.shader) {
                return Err(format!(
                    "{run_name}: shader {} is not among the case's shaders",
                    r.shader
                ));
            }
            let spirv = read_spirv(&dir.join(&r.shader))?;
            let push = match &r.push {
                Some(f) => read(f)?,
                None => Vec::new(),
            };
            let mut bindings = Vec::new();
            for b in r.bindings {
                bindings.push(load_binding(&run_name, b, &read)?);
            }
            check_addresses(&run_name, &r.addresses, &bindings, push.len())?;
            check_matrices(&run_name, &r.matrices, &bindings)?;
            runs.push(Run {
                name: run_name,
                entry: r.entry,
                shader: r.shader,
                spirv,
                dispatch: r.dispatch,
                base: r.base.unwrap_or_default(),
                push,
                spec: r.spec,
                bindings,
                addresses: r.addresses,
                matrices: r.matrices,
            });
        }
        Ok(Case {
            name,
            dir: dir.to_path_buf(),
            description: raw.description,
            runs,
        })
    }
}

/// Every matrix conversion names a buffer binding of the run and fits in it.
fn check_matrices(
    run: &str,
    conversions: &[MatrixConversion],
    bindings: &[Binding],
) -> Result<(), String> {
    for c in conversions {
        let Some(len) = bindings
            .iter()
            .find(|b| b.set == c.binding[0] && b.binding == c.binding[1] && b.kind != Kind::Tensor)
            .map(|b| b.elements[0].init.len())
        else {
            return Err(format!(
                "{run}: matrix conversion in {:?}, which is not a buffer binding",
                c.binding
            ));
        };
        let src_end = c.src_at + c.rows as usize * c.src_stride;
        if src_end > len || c.dst_at.checked_add(c.capacity).is_none_or(|end| end > len) {
            return Err(format!(
                "{run}: matrix conversion outside its {len}-byte buffer"
            ));
        }
    }
    Ok(())
}

/// Every address patch names buffer bindings of the run and fits in its target.
fn check_addresses(
    run: &str,
    patches: &[AddressPatch],
    bindings: &[Binding],
    push_len: usize,
) -> Result<(), String> {
    let buffer = |sb: [u32; 2]| {
        bindings
            .iter()
            .find(|b| b.set == sb[0] && b.binding == sb[1] && b.kind != Kind::Tensor)
            .map(|b| b.elements[0].init.len())
    };
    for p in patches {
        if buffer(p.of).is_none() {
            return Err(format!(
                "{run}: address of {:?}, which is not a buffer binding",
                p.of
            ));
        }
        let len = match p.into {
            None => push_len,
            Some(t) => buffer(t).ok_or_else(|| {
                format!("{run}: address written into {t:?}, which is not a buffer binding")
            })?,
        };
        if p.at.checked_add(8).is_none_or(|end| end > len) {
            return Err(format!(
                "{run}: address at byte {} does not fit in {len} bytes",
                p.at
            ));
        }
    }
    Ok(())
}

fn load_binding(
    run: &str,
    b: RawBinding,
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Binding, String> {
    let at = format!("{run}: set {} binding {}", b.set, b.binding);
    if b.elements.is_empty() {
        return Err(format!("{at} has no elements"));
    }
    let mut elements = Vec::new();
    for e in b.elements {
        let tensor = if b.kind == Kind::Tensor {
            let (Some(format), Some(dims)) = (e.format, e.dims) else {
                return Err(format!("{at}: a tensor needs format and dims"));
            };
            if e.tiling == Tiling::Optimal && e.strides.is_some() {
                return Err(format!("{at}: optimal tensors take no strides"));
            }
            if e.range.is_some() {
                return Err(format!("{at}: tensors take no range"));
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
        let init = match (&e.init, e.size) {
            (Some(f), None) => read(f)?,
            (None, Some(n)) => vec![e.fill; n],
            _ => return Err(format!("{at}: give either init or size")),
        };
        let expect = e.expect.as_deref().map(read).transpose()?;
        if let Some(t) = &tensor
            && init.len() as u64 != t.footprint()
        {
            return Err(format!(
                "{at}: the contents are {} bytes; the tensor spans {}",
                init.len(),
                t.footprint()
            ));
        }
        if expect.as_ref().is_some_and(|x| x.len() != init.len()) {
            return Err(format!("{at}: expect and init sizes differ"));
        }
        if init.len() % e.compare.size() != 0 {
            return Err(format!(
                "{at}: {} bytes are not whole {:?} elements",
                init.len(),
                e.compare
            ));
        }
        let count = init.len() / e.compare.size();
        let mask = e.mask.as_deref().map(read).transpose()?;
        if mask.as_ref().is_some_and(|m| m.len() != count) {
            return Err(format!("{at}: the mask needs one byte per element"));
        }
        if let Some([first, end]) = e.unordered
            && (first > end || end > count || e.compare.is_float())
        {
            return Err(format!(
                "{at}: unordered needs an integer range within the {count} elements"
            ));
        }
        if e.range.is_some_and(|r| r as usize > init.len()) {
            return Err(format!("{at}: the range is larger than the buffer"));
        }
        elements.push(Element {
            init,
            expect,
            mask,
            unordered: e.unordered,
            range: e.range,
            compare: e.compare,
            tolerance: e.tolerance,
            tensor,
        });
    }
    Ok(Binding {
        set: b.set,
        binding: b.binding,
        kind: b.kind,
        elements,
    })
}

/// Every case folder (sorted): (name, loaded case or error).
pub fn load_all() -> Vec<(String, Result<Case, String>)> {
    let dir = cases_dir();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.iter()
        .map(|d| {
            let name = d
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, Case::load(d))
        })
        .collect()
}

/// Compares `got` with `expect` element by element, skipping elements whose `mask` byte is 0
/// and comparing the elements in `unordered` as a multiset; the error names the first mismatch
/// and how many elements differ.
pub fn compare(
    elem: Elem,
    tolerance: f64,
    got: &[u8],
    expect: &[u8],
    mask: Option<&[u8]>,
    unordered: Option<[usize; 2]>,
) -> Result<(), String> {
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
    let (lo, hi) = unordered.map_or((0, 0), |[a, b]| (a, b));
    for (k, (g, e)) in got.chunks(es).zip(expect.chunks(es)).enumerate() {
        if g == e || (lo..hi).contains(&k) || mask.is_some_and(|m| m[k] == 0) {
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
    if lo < hi {
        fn sorted(b: &[u8], es: usize) -> Vec<&[u8]> {
            let mut v: Vec<&[u8]> = b.chunks(es).collect();
            v.sort();
            v
        }
        let (g, e) = (
            sorted(&got[lo * es..hi * es], es),
            sorted(&expect[lo * es..hi * es], es),
        );
        if let Some(j) = (0..g.len()).find(|&j| g[j] != e[j]) {
            count += 1;
            first.get_or_insert_with(|| {
                format!(
                    "elements {lo}..{hi} (any order): sorted, element {j} is {}, expected {}",
                    elem.show(g[j]),
                    elem.show(e[j])
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_and_unordered_elements() {
        let e = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let want = e(&[1, 2, 3, 4, 5]);
        assert!(compare(Elem::U32, 0.0, &want, &want, None, None).is_ok());
        let got = e(&[1, 9, 3, 4, 5]);
        assert!(compare(Elem::U32, 0.0, &got, &want, None, None).is_err());
        let mask = [1, 0, 1, 1, 1];
        assert!(compare(Elem::U32, 0.0, &got, &want, Some(&mask), None).is_ok());
        let shuffled = e(&[1, 2, 5, 3, 4]);
        assert!(compare(Elem::U32, 0.0, &shuffled, &want, None, None).is_err());
        assert!(compare(Elem::U32, 0.0, &shuffled, &want, None, Some([2, 5])).is_ok());
        let wrong = e(&[1, 2, 5, 3, 3]);
        let err = compare(Elem::U32, 0.0, &wrong, &want, None, Some([2, 5])).unwrap_err();
        assert!(err.contains("any order"), "{err}");
        assert!(compare(Elem::U32, 0.0, &wrong, &want, None, Some([1, 5])).is_err());
    }

    #[test]
    fn float_tolerance_and_nan() {
        let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let want = f(&[1.0, f32::NAN, 100.0]);
        let got = f(&[1.0 + 1e-6, f32::from_bits(0x7fc0_0001), 100.0 + 1e-4]);
        assert!(compare(Elem::F32, 1e-5, &got, &want, None, None).is_ok());
        assert!(compare(Elem::F32, 0.0, &got, &want, None, None).is_err());
    }
}
