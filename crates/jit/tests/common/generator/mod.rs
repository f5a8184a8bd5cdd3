//! Random well-typed SPIR-V compute modules (built with `rspirv`'s `dr::Builder`) and their
//! inputs, for the differential fuzzer.
//!
//! A program reads storage buffers (one per scalar type, 8–64-bit integers, f16/f32/f64) and
//! tensors (ranks 1–3, packed or padded strides, reads in and out of bounds, with and without
//! `OutOfBoundsValueARM`, scalar and array results) at indices derived from the invocation id
//! (affine: `gidx`, `2·gidx + c`, `gidx + c`; gathered: from data, some far out of range), and
//! computes random expression DAGs over scalar and vector ints, floats and bools (arithmetic
//! including division by zero and `MIN / -1`, shifts by the width or more, conversions including
//! out-of-range and NaN float→int, comparisons, selects, bit ops, GLSL.std.450). Control flow:
//! if/else on per-lane data with phis at the merge, loops with per-lane trip counts (and
//! breaks), switches (8–64-bit selectors, negative case literals), early returns; in uniform
//! control flow, shared memory phases between barriers and subgroup operations, and at the end
//! atomics on shared words (from an RNG stream of their own: adding them changed no earlier
//! seed's statements). Local arrays
//! (3 to 72 u32 elements) are read and written at run-time indices anywhere in that control
//! flow, and every element is stored to the outputs at the end. Every result is
//! stored to a slot of its own in an output buffer (`out_<type>[gidx·K + slot]`) or output
//! tensor (`[gidx, slot]`), so no two invocations write the same element and the outputs are a
//! pure function of the program and inputs whatever the thread count or backend.
//!
//! Float results are never bitcast to integers: NaN payloads may then differ between the
//! backends without the outputs' float comparison (NaN-ness only) hiding a real difference.

mod statements;
mod values;

use std::collections::HashMap;

use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Instruction, Operand};
use rspirv::spirv::{
    self, AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel,
    FunctionControl, GroupOperation, LoopControl, MemoryModel, Op, SelectionControl, StorageClass,
    TensorOperands, Word,
};
use tessera_spirv::TensorElement;

use super::rng::Rng;
use super::{Binding, Case, Elem, TensorView};

/// A scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sc {
    Bool,
    Int(u8, bool),
    Float(u8),
}

impl Sc {
    fn bytes(self) -> usize {
        match self {
            Sc::Bool => 1,
            Sc::Int(w, _) | Sc::Float(w) => usize::from(w / 8),
        }
    }

    fn name(self) -> String {
        match self {
            Sc::Bool => "bool".into(),
            Sc::Int(w, true) => format!("i{w}"),
            Sc::Int(w, false) => format!("u{w}"),
            Sc::Float(w) => format!("f{w}"),
        }
    }

    fn elem(self) -> Elem {
        match self {
            Sc::Float(w) => Elem::Float(usize::from(w / 8)),
            s => Elem::Int(s.bytes()),
        }
    }

    fn tensor_format(self) -> TensorElement {
        match self {
            Sc::Bool => TensorElement::Bool8,
            Sc::Int(8, false) => TensorElement::U8,
            Sc::Int(8, true) => TensorElement::I8,
            Sc::Int(16, false) => TensorElement::U16,
            Sc::Int(16, true) => TensorElement::I16,
            Sc::Int(32, false) => TensorElement::U32,
            Sc::Int(32, true) => TensorElement::I32,
            Sc::Int(64, false) => TensorElement::U64,
            Sc::Int(_, _) => TensorElement::I64,
            Sc::Float(16) => TensorElement::F16,
            Sc::Float(32) => TensorElement::F32,
            Sc::Float(_) => TensorElement::F64,
        }
    }
}

/// A scalar or vector type (`n` = 1 for scalars).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ty {
    pub sc: Sc,
    pub n: u8,
}

const fn s(sc: Sc) -> Ty {
    Ty { sc, n: 1 }
}

const U32: Ty = s(Sc::Int(32, false));
const I32: Ty = s(Sc::Int(32, true));
const BOOL: Ty = s(Sc::Bool);

/// Every scalar type programs compute in.
const SCALARS: [Sc; 11] = [
    Sc::Int(8, false),
    Sc::Int(8, true),
    Sc::Int(16, false),
    Sc::Int(16, true),
    Sc::Int(32, false),
    Sc::Int(32, true),
    Sc::Int(64, false),
    Sc::Int(64, true),
    Sc::Float(16),
    Sc::Float(32),
    Sc::Float(64),
];

/// Special values (raw bits) of a scalar type, mixed into constants and inputs.
fn specials(sc: Sc) -> Vec<u64> {
    match sc {
        Sc::Bool => vec![0, 1],
        Sc::Int(w, _) => {
            let m = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let min = 1u64 << (w - 1);
            vec![
                0,
                1,
                2,
                3,
                7,
                m,
                m - 1,
                min,
                min - 1,
                min + 1,
                u64::from(w),
                u64::from(w) + 1,
                u64::from(w) - 1,
                31,
                32,
                33,
                63,
                64,
                0x55 & m,
                0x1234_5678_9abc_def0 & m,
            ]
        }
        Sc::Float(16) => vec![
            0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe00, 0x0001, 0x03ff,
            0x0400, 0x7bff, 0x3800, 0x3e00, 0x4900, 0xc900, 0x5640,
        ],
        Sc::Float(32) => vec![
            0x0000_0000,
            0x8000_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0001,
            0x7f80_0001,
            0x0000_0001,
            0x007f_ffff,
            0x0080_0000,
            0x7f7f_ffff,
            0x3f00_0000,
            0x3fc0_0000,
            0x4f00_0000, // 2^31
            0xcf00_0000, // -2^31
            0x4f80_0000, // 2^32
            0x5f00_0000, // 2^63
            0xdf00_0001,
            0x4b00_0001,
            0x3f7f_ffff,
            0x4049_0fdb,
            0xc2f6_e979,
            0x447a_0000,
        ],
        Sc::Float(_) => vec![
            0,
            1 << 63,
            1.0f64.to_bits(),
            (-1.0f64).to_bits(),
            f64::INFINITY.to_bits(),
            f64::NEG_INFINITY.to_bits(),
            0x7ff8_0000_0000_0000,
            0xfff8_0000_0000_0001,
            0x7ff0_0000_0000_0001,
            1,
            0x000f_ffff_ffff_ffff,
            f64::MAX.to_bits(),
            0.5f64.to_bits(),
            1.5f64.to_bits(),
            2147483648.0f64.to_bits(),
            (-2147483649.0f64).to_bits(),
            4294967296.0f64.to_bits(),
            9.223_372_036_854_776e18f64.to_bits(),
            1.8446744073709552e19f64.to_bits(),
            (-9.3e18f64).to_bits(),
            std::f64::consts::PI.to_bits(),
            1e300f64.to_bits(),
            1e-310f64.to_bits(),
        ],
    }
}

fn mask(w: u8) -> u64 {
    if w >= 64 { u64::MAX } else { (1u64 << w) - 1 }
}

/// A random value of `sc` as raw bits: a special value or random bits (small ints often).
fn random_bits(rng: &mut Rng, sc: Sc) -> u64 {
    match sc {
        Sc::Bool => rng.below(2),
        Sc::Int(w, _) => match rng.below(4) {
            0 => *rng.pick(&specials(sc)),
            1 => rng.below(40) & mask(w),
            2 => (rng.below(40) as i64).wrapping_neg() as u64 & mask(w),
            _ => rng.next() & mask(w),
        },
        Sc::Float(w) => match rng.below(4) {
            0 => *rng.pick(&specials(sc)),
            1 => {
                // Small "nice" values: ±k/4 for k < 64.
                let v = (rng.below(64) as f64 / 4.0) * if rng.chance(50) { -1.0 } else { 1.0 };
                match w {
                    16 => u64::from(half::f16::from_f64(v).to_bits()),
                    32 => u64::from((v as f32).to_bits()),
                    _ => v.to_bits(),
                }
            }
            2 => {
                // Anything up to ±2^40.
                let v = (rng.next() as i64 >> 23) as f64 / 1000.0;
                match w {
                    16 => u64::from(half::f16::from_f64(v).to_bits()),
                    32 => u64::from((v as f32).to_bits()),
                    _ => v.to_bits(),
                }
            }
            _ => rng.next() & mask(w),
        },
    }
}

/// An input buffer of one scalar type.
struct InBuf {
    var: Word,
    len: u32,
}

/// An input tensor.
struct InTensor {
    var: Word,
    ty: Word,
    sc: Sc,
    rank: usize,
    dims: Vec<u64>,
}

/// An output buffer or tensor of one scalar type; `k` slots per invocation, patched in at the
/// end through the constant `k_id`.
struct Out {
    var: Word,
    k_id: Word,
    k: u32,
    binding: u32,
}

struct OutTensor {
    var: Word,
    ty: Word,
    k: u32,
    binding: u32,
}

/// Generation state.
pub struct Gen {
    pub rng: Rng,
    b: Builder,
    glsl: Word,
    types: HashMap<Ty, Word>,
    ptrs: HashMap<(StorageClass, Word), Word>,
    /// Values in scope, by type.
    pool: Vec<(Ty, Word)>,
    next_binding: u32,
    in_bufs: HashMap<Sc, InBuf>,
    in_tensors: Vec<InTensor>,
    outs: HashMap<Sc, Out>,
    out_tensors: HashMap<Sc, OutTensor>,
    bindings: Vec<Binding>,
    interface: Vec<Word>,
    /// The invocation's linear index (u32) and local index.
    gidx: Word,
    lidx: Word,
    /// Total invocations and workgroup size.
    n: u32,
    ls: u32,
    /// The shared array (u32 × ls), if any.
    shared: Option<Word>,
    /// Whether control flow here is uniform (barriers and shared memory allowed).
    uniform: bool,
    /// Whether some lane may have returned early.
    returned: bool,
    /// The block being built.
    cur: Word,
    /// Buffer struct types already decorated.
    decorated: std::collections::HashSet<Word>,
    /// Loop nesting (breaks and continues target the innermost).
    loop_merge: Vec<Word>,
    /// Statements left to generate.
    budget: i32,
    /// Function-scope u32 arrays: (variable, length).
    locals: Vec<(Word, u32)>,
    pub summary: Vec<String>,
    /// Bindings that get patched: (binding index in `bindings`, out type) for buffers.
    late_out: Vec<Sc>,
}

impl Gen {
    fn ty(&mut self, t: Ty) -> Word {
        if let Some(&id) = self.types.get(&t) {
            return id;
        }
        let id = if t.n > 1 {
            let c = self.ty(s(t.sc));
            self.b.type_vector(c, u32::from(t.n))
        } else {
            match t.sc {
                Sc::Bool => self.b.type_bool(),
                Sc::Int(w, sg) => self.b.type_int(u32::from(w), u32::from(sg)),
                Sc::Float(w) => self.b.type_float(u32::from(w), None),
            }
        };
        self.types.insert(t, id);
        id
    }

    /// A module-scope `OpVariable` (even while a block is being built).
    fn global_var(&mut self, ptr: Word, class: StorageClass) -> Word {
        let id = self.b.id();
        self.b
            .module_mut()
            .types_global_values
            .push(Instruction::new(
                Op::Variable,
                Some(ptr),
                Some(id),
                vec![Operand::StorageClass(class)],
            ));
        id
    }

    /// Starts block `l` (and remembers it as the current one, for phis).
    fn begin(&mut self, l: Word) {
        self.b.begin_block(Some(l)).unwrap();
        self.cur = l;
    }

    fn ptr(&mut self, sc: StorageClass, pointee: Word) -> Word {
        if let Some(&p) = self.ptrs.get(&(sc, pointee)) {
            return p;
        }
        let p = self.b.type_pointer(None, sc, pointee);
        self.ptrs.insert((sc, pointee), p);
        p
    }

    fn cu32(&mut self, v: u32) -> Word {
        let t = self.ty(U32);
        self.b.constant_bit32(t, v)
    }

    /// A constant of scalar type `sc` with raw bits `bits` (narrow signed literals sign-extended,
    /// as SPIR-V requires).
    fn constant(&mut self, sc: Sc, bits: u64) -> Word {
        let t = self.ty(s(sc));
        match sc {
            Sc::Bool => {
                if bits & 1 != 0 {
                    self.b.constant_true(t)
                } else {
                    self.b.constant_false(t)
                }
            }
            Sc::Int(64, _) | Sc::Float(64) => self.b.constant_bit64(t, bits),
            Sc::Int(w, true) if w < 32 => {
                let v = ((bits << (64 - w)) as i64 >> (64 - w)) as u32;
                self.b.constant_bit32(t, v)
            }
            _ => self.b.constant_bit32(t, bits as u32),
        }
    }

    fn constant_of(&mut self, t: Ty) -> Word {
        if t.n == 1 {
            let bits = random_bits(&mut self.rng, t.sc);
            return self.constant(t.sc, bits);
        }
        let parts: Vec<Word> = (0..t.n)
            .map(|_| {
                let bits = random_bits(&mut self.rng, t.sc);
                self.constant(t.sc, bits)
            })
            .collect();
        let tid = self.ty(t);
        self.b.constant_composite(tid, parts)
    }

    fn random_ty(&mut self) -> Ty {
        let sc = if self.rng.chance(12) {
            Sc::Bool
        } else {
            *self.rng.pick(&SCALARS)
        };
        let n = if self.rng.chance(25) {
            self.rng.range(2, 4) as u8
        } else {
            1
        };
        Ty { sc, n }
    }

    fn add(&mut self, t: Ty, v: Word) -> Word {
        self.pool.push((t, v));
        v
    }

    // ---------------------------------------------------------------- module skeleton

    fn buffer_var(&mut self, sc: Sc, name: &str) -> (Word, u32) {
        let et = self.ty(s(sc));
        let rt = self.b.type_runtime_array(et);
        let stride = sc.bytes() as u32;
        let st = self.b.type_struct([rt]);
        if self.decorated.insert(st) {
            self.b
                .decorate(rt, Decoration::ArrayStride, [Operand::LiteralBit32(stride)]);
            self.b.decorate(st, Decoration::Block, []);
            self.b
                .member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        }
        let pt = self.ptr(StorageClass::StorageBuffer, st);
        let var = self.global_var(pt, StorageClass::StorageBuffer);
        let binding = self.next_binding;
        self.next_binding += 1;
        self.b
            .decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        self.b
            .decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
        self.b.name(var, name);
        self.interface.push(var);
        (var, binding)
    }

    fn tensor_type(&mut self, sc: Sc, rank: usize) -> Word {
        let et = self.ty(s(sc));
        let r = self.cu32(rank as u32);
        self.b.type_tensor_arm(et, Some(r), None)
    }

    fn tensor_var(&mut self, ty: Word, name: &str) -> (Word, u32) {
        let pt = self.ptr(StorageClass::UniformConstant, ty);
        let var = self.global_var(pt, StorageClass::UniformConstant);
        let binding = self.next_binding;
        self.next_binding += 1;
        self.b
            .decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        self.b
            .decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
        self.b.name(var, name);
        self.interface.push(var);
        (var, binding)
    }

    fn input_buffer(&mut self, sc: Sc) -> Word {
        if let Some(b) = self.in_bufs.get(&sc) {
            return b.var;
        }
        let (var, binding) = self.buffer_var(sc, &format!("in_{}", sc.name()));
        let len = self.n + self.rng.range(0, 20) as u32;
        let mut init = Vec::new();
        for _ in 0..len {
            let v = random_bits(&mut self.rng, sc);
            init.extend_from_slice(&v.to_le_bytes()[..sc.bytes()]);
        }
        self.bindings.push(Binding {
            binding,
            init,
            elem: sc.elem(),
            tensor: None,
            name: format!("in_{}", sc.name()),
        });
        self.in_bufs.insert(sc, InBuf { var, len });
        var
    }

    fn input_tensor(&mut self) {
        let sc = if self.rng.chance(10) {
            Sc::Bool
        } else {
            *self.rng.pick(&SCALARS)
        };
        let rank = self.rng.range(1, 3) as usize;
        // Dimensions around the invocation count: innermost ≈ n / other dims.
        let mut dims = vec![0u64; rank];
        let mut left = u64::from(self.n);
        for d in dims.iter_mut().take(rank - 1) {
            *d = self.rng.range(1, 4);
            left = left.div_ceil(*d);
        }
        dims[rank - 1] = (left as i64 + self.rng.range(0, 8) as i64 - 4).max(1) as u64;
        let size = sc.bytes() as u64;
        let mut strides = vec![0u64; rank];
        let mut acc = size;
        for i in (0..rank).rev() {
            strides[i] = acc;
            let pad = if i > 0 && self.rng.chance(30) {
                self.rng.range(1, 3) * size
            } else {
                0
            };
            acc = acc * dims[i] + pad;
        }
        let bytes = (strides[0] * dims[0]) as usize;
        let mut init = Vec::with_capacity(bytes);
        while init.len() < bytes {
            let v = random_bits(&mut self.rng, sc);
            let v = if sc == Sc::Bool && self.rng.chance(30) {
                self.rng.below(256)
            } else {
                v
            };
            init.extend_from_slice(&v.to_le_bytes()[..sc.bytes()]);
        }
        init.truncate(bytes);
        let ty = self.tensor_type(sc, rank);
        let name = format!("tin{}_{}", self.in_tensors.len(), sc.name());
        let (var, binding) = self.tensor_var(ty, &name);
        self.summary
            .push(format!("{name}: dims {dims:?} strides {strides:?}"));
        self.bindings.push(Binding {
            binding,
            init,
            elem: sc.elem(),
            tensor: Some(TensorView {
                format: sc.tensor_format(),
                dims: dims.clone(),
                strides,
            }),
            name,
        });
        self.in_tensors.push(InTensor {
            var,
            ty,
            sc,
            rank,
            dims,
        });
    }
}

/// Workgroup sizes (product 1, 3, 16, 17, 64 or 256).
const LOCAL_SIZES: [[u32; 3]; 9] = [
    [1, 1, 1],
    [3, 1, 1],
    [16, 1, 1],
    [4, 4, 1],
    [17, 1, 1],
    [64, 1, 1],
    [8, 4, 2],
    [256, 1, 1],
    [16, 16, 1],
];

/// Generates the case of `seed`.
pub fn generate(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let ls3 = *rng.pick(&LOCAL_SIZES);
    let ls = ls3[0] * ls3[1] * ls3[2];
    // Workgroup counts: up to ~1200 invocations in all.
    let max_groups = (1200 / ls).max(1);
    let cx = rng.range(1, u64::from(max_groups.min(8))) as u32;
    let cy = rng.range(1, u64::from((max_groups / cx).clamp(1, 3))) as u32;
    let cz = if ls3[2] > 1 || rng.chance(70) {
        1
    } else {
        rng.range(1, 2) as u32
    };
    let dispatch = [cx, cy, cz];
    let n = ls * cx * cy * cz;
    let mut b = Builder::new();
    b.set_version(1, 5);
    for c in [
        Capability::Shader,
        Capability::Int8,
        Capability::Int16,
        Capability::Int64,
        Capability::Float16,
        Capability::Float64,
        Capability::StorageBuffer8BitAccess,
        Capability::StorageBuffer16BitAccess,
        Capability::TensorsARM,
        Capability::GroupNonUniform,
        Capability::GroupNonUniformArithmetic,
        Capability::GroupNonUniformBallot,
        Capability::GroupNonUniformShuffle,
        Capability::GroupNonUniformShuffleRelative,
        Capability::GroupNonUniformClustered,
    ] {
        b.capability(c);
    }
    b.extension("SPV_ARM_tensors");
    let glsl = b.ext_inst_import("GLSL.std.450");
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let mut g = Gen {
        rng,
        b,
        glsl,
        types: HashMap::new(),
        ptrs: HashMap::new(),
        pool: Vec::new(),
        next_binding: 0,
        in_bufs: HashMap::new(),
        in_tensors: Vec::new(),
        outs: HashMap::new(),
        out_tensors: HashMap::new(),
        bindings: Vec::new(),
        interface: Vec::new(),
        gidx: 0,
        lidx: 0,
        n,
        ls,
        shared: None,
        uniform: true,
        returned: false,
        cur: 0,
        decorated: Default::default(),
        loop_merge: Vec::new(),
        budget: 0,
        locals: Vec::new(),
        summary: vec![format!(
            "workgroup {ls3:?} x {dispatch:?} = {n} invocations"
        )],
        late_out: Vec::new(),
    };
    g.budget = g.rng.range(6, 28) as i32;
    // Globals: builtins, tensors, shared memory.
    let u3 = g.ty(Ty {
        sc: Sc::Int(32, false),
        n: 3,
    });
    let u = g.ty(U32);
    let pin = g.ptr(StorageClass::Input, u3);
    let pin1 = g.ptr(StorageClass::Input, u);
    let gid_var = g.global_var(pin, StorageClass::Input);
    g.b.decorate(
        gid_var,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::GlobalInvocationId)],
    );
    let lidx_var = g.global_var(pin1, StorageClass::Input);
    g.b.decorate(
        lidx_var,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::LocalInvocationIndex)],
    );
    g.interface.extend([gid_var, lidx_var]);
    for _ in 0..g.rng.below(3) {
        g.input_tensor();
    }
    if g.rng.chance(40) {
        let lsc = g.cu32(ls);
        let at = g.b.type_array(u, lsc);
        let pt = g.ptr(StorageClass::Workgroup, at);
        let sh = g.global_var(pt, StorageClass::Workgroup);
        g.interface.push(sh);
        g.shared = Some(sh);
    }
    let void = g.b.type_void();
    let fnty = g.b.type_function(void, vec![]);
    let f =
        g.b.begin_function(void, None, FunctionControl::NONE, fnty)
            .unwrap();
    let entry = g.b.id();
    g.begin(entry);
    // Function variables open the first block.
    if g.rng.chance(60) {
        for _ in 0..g.rng.range(1, 2) {
            let len = *g.rng.pick(&[3u32, 4, 8, 72]);
            let lc = g.cu32(len);
            let at = g.b.type_array(u, lc);
            let pt = g.ptr(StorageClass::Function, at);
            let var = g.b.variable(pt, None, StorageClass::Function, None);
            g.locals.push((var, len));
            g.summary.push(format!("local u32[{len}]"));
        }
    }
    let gid = g.b.load(u3, None, gid_var, None, []).unwrap();
    let gx = g.b.composite_extract(u, None, gid, [0]).unwrap();
    let gy = g.b.composite_extract(u, None, gid, [1]).unwrap();
    let gz = g.b.composite_extract(u, None, gid, [2]).unwrap();
    let sx = g.cu32(ls3[0] * cx);
    let sxy = g.cu32(ls3[0] * cx * ls3[1] * cy);
    let y = g.b.i_mul(u, None, gy, sx).unwrap();
    let z = g.b.i_mul(u, None, gz, sxy).unwrap();
    let yz = g.b.i_add(u, None, y, z).unwrap();
    g.gidx = g.b.i_add(u, None, gx, yz).unwrap();
    g.lidx = g.b.load(u, None, lidx_var, None, []).unwrap();
    g.add(U32, g.gidx);
    g.add(U32, g.lidx);
    for (var, len) in g.locals.clone() {
        for k in 0..len {
            let c = g.cu32(k.wrapping_mul(2_654_435_761));
            let v = g.b.bitwise_xor(u, None, g.gidx, c).unwrap();
            let p = g.local_element(var, k);
            g.b.store(p, v, None, []).unwrap();
        }
    }
    while g.budget > 0 {
        g.stmts(0);
    }
    // Atomics on shared memory, from a stream of their own so that the statements above are
    // what they were before the phase existed (the regression seeds keep their programs).
    if !g.returned && g.uniform && g.shared.is_some() {
        let mut own = Rng::new(seed ^ 0x5eed_a70c);
        if own.chance(60) {
            std::mem::swap(&mut g.rng, &mut own);
            for _ in 0..g.rng.range(1, 3) {
                g.atomic_phase();
            }
            std::mem::swap(&mut g.rng, &mut own);
        }
    }
    for (var, len) in g.locals.clone() {
        for k in 0..len {
            let p = g.local_element(var, k);
            let v = g.b.load(u, None, p, None, []).unwrap();
            g.store_scalar(Sc::Int(32, false), v);
        }
    }
    g.b.ret().unwrap();
    g.b.end_function().unwrap();
    g.b.entry_point(ExecutionModel::GLCompute, f, "main", g.interface.clone());
    g.b.execution_mode(f, ExecutionMode::LocalSize, ls3);
    // Patch in the slot counts and create the outputs.
    let late = std::mem::take(&mut g.late_out);
    for sc in late {
        let (k_id, k, binding) = {
            let o = &g.outs[&sc];
            (o.k_id, o.k.max(1), o.binding)
        };
        let ut = g.ty(U32);
        g.b.module_mut().types_global_values.push(Instruction::new(
            Op::Constant,
            Some(ut),
            Some(k_id),
            vec![Operand::LiteralBit32(k)],
        ));
        let bytes = n as usize * k as usize * sc.bytes();
        g.bindings.push(Binding {
            binding,
            init: (0..bytes).map(|i| 0xa5 ^ (i as u8)).collect(),
            elem: sc.elem(),
            tensor: None,
            name: format!("out_{}", sc.name()),
        });
    }
    let mut touts: Vec<(Sc, u32, u32)> = g
        .out_tensors
        .iter()
        .map(|(&sc, o)| (sc, o.k, o.binding))
        .collect();
    touts.sort_by_key(|t| t.2);
    for (sc, k, binding) in touts {
        let dims = vec![u64::from(n), u64::from(k)];
        let size = sc.bytes() as u64;
        let strides = vec![u64::from(k) * size, size];
        let bytes = (u64::from(n) * u64::from(k) * size) as usize;
        g.bindings.push(Binding {
            binding,
            init: (0..bytes).map(|i| 0x5a ^ (i as u8)).collect(),
            elem: sc.elem(),
            tensor: Some(TensorView {
                format: sc.tensor_format(),
                dims,
                strides,
            }),
            name: format!("tout_{}", sc.name()),
        });
    }
    let words = g.b.module().assemble();
    Case {
        words,
        bindings: g.bindings,
        dispatch,
        summary: g.summary.join("; "),
    }
}
