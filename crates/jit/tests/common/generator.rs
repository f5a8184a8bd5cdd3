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
//! control flow, shared memory phases between barriers and subgroup operations. Local arrays
//! (3 to 72 u32 elements) are read and written at run-time indices anywhere in that control
//! flow, and every element is stored to the outputs at the end. Every result is
//! stored to a slot of its own in an output buffer (`out_<type>[gidx·K + slot]`) or output
//! tensor (`[gidx, slot]`), so no two invocations write the same element and the outputs are a
//! pure function of the program and inputs whatever the thread count or backend.
//!
//! Float results are never bitcast to integers: NaN payloads may then differ between the
//! backends without the outputs' float comparison (NaN-ness only) hiding a real difference.

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

    // ---------------------------------------------------------------- values

    /// A value of type `t`: one in scope, a constant, or a new expression.
    fn value(&mut self, t: Ty, depth: u32) -> Word {
        let have: Vec<Word> = self
            .pool
            .iter()
            .filter(|(pt, _)| *pt == t)
            .map(|&(_, v)| v)
            .collect();
        if !have.is_empty() && (depth >= 3 || self.rng.chance(55)) {
            return *self.rng.pick(&have);
        }
        if depth >= 4 || self.rng.chance(8) {
            return self.constant_of(t);
        }
        let v = self.expr(t, depth + 1);
        self.add(t, v)
    }

    /// A scalar value of some type in scope (or a new one).
    fn any_value(&mut self, depth: u32) -> (Ty, Word) {
        if !self.pool.is_empty() && self.rng.chance(60) {
            return *self.rng.pick(&self.pool);
        }
        let t = self.random_ty();
        (t, self.value(t, depth))
    }

    fn comp(t: Ty, sc: Sc) -> Ty {
        Ty { sc, n: t.n }
    }

    fn expr(&mut self, t: Ty, depth: u32) -> Word {
        for _ in 0..8 {
            if let Some(v) = self.try_expr(t, depth) {
                return v;
            }
        }
        self.constant_of(t)
    }

    /// `v` of type `from` as type `to` (same component count), by conversion.
    fn convert(&mut self, from: Ty, v: Word, to: Ty) -> Word {
        if from == to {
            return v;
        }
        let tid = self.ty(to);
        let b = &mut self.b;
        match (from.sc, to.sc) {
            (Sc::Bool, _) => {
                let one = self.constant_of_one(to);
                let zero = self.constant_null(to);
                self.b.select(tid, None, v, one, zero).unwrap()
            }
            (_, Sc::Bool) => {
                let zero = self.constant_null(from);
                match from.sc {
                    Sc::Float(_) => self.b.f_unord_not_equal(tid, None, v, zero).unwrap(),
                    _ => self.b.i_not_equal(tid, None, v, zero).unwrap(),
                }
            }
            (Sc::Int(fw, _), Sc::Int(tw, ts)) => {
                if fw == tw {
                    b.bitcast(tid, None, v).unwrap()
                } else if ts {
                    b.s_convert(tid, None, v).unwrap()
                } else if self.rng.chance(50) {
                    self.b.u_convert(tid, None, v).unwrap()
                } else {
                    // SConvert into the unsigned type's signed twin, then bitcast.
                    let st = self.ty(Self::comp(to, Sc::Int(tw, true)));
                    let x = self.b.s_convert(st, None, v).unwrap();
                    self.b.bitcast(tid, None, x).unwrap()
                }
            }
            (Sc::Float(_), Sc::Int(_, true)) => b.convert_f_to_s(tid, None, v).unwrap(),
            (Sc::Float(_), Sc::Int(_, false)) => {
                if self.rng.chance(60) {
                    self.b.convert_f_to_u(tid, None, v).unwrap()
                } else {
                    let (Sc::Int(w, _), Sc::Float(_)) = (to.sc, from.sc) else {
                        unreachable!()
                    };
                    let st = self.ty(Self::comp(to, Sc::Int(w, true)));
                    let x = self.b.convert_f_to_s(st, None, v).unwrap();
                    self.b.bitcast(tid, None, x).unwrap()
                }
            }
            (Sc::Int(_, sg), Sc::Float(_)) => {
                if sg == self.rng.chance(80) {
                    b.convert_s_to_f(tid, None, v).unwrap()
                } else {
                    b.convert_u_to_f(tid, None, v).unwrap()
                }
            }
            (Sc::Float(_), Sc::Float(_)) => b.f_convert(tid, None, v).unwrap(),
        }
    }

    fn constant_null(&mut self, t: Ty) -> Word {
        let tid = self.ty(t);
        self.b.constant_null(tid)
    }

    fn constant_of_one(&mut self, t: Ty) -> Word {
        let bits = match t.sc {
            Sc::Float(16) => 0x3c00,
            Sc::Float(32) => 0x3f80_0000,
            Sc::Float(_) => 1.0f64.to_bits(),
            _ => 1,
        };
        let c = self.constant(t.sc, bits);
        if t.n == 1 {
            return c;
        }
        let tid = self.ty(t);
        self.b.constant_composite(tid, vec![c; usize::from(t.n)])
    }

    /// A u32 index for an access to an array of `len` elements: affine in `gidx` or gathered.
    fn index(&mut self, len: u32) -> Word {
        let u = self.ty(U32);
        match self.rng.below(8) {
            0..=2 => self.gidx,
            3 => {
                let c = {
                    let v = self.rng.range(0, 24) as u32;
                    self.cu32(v)
                };
                self.b.i_add(u, None, self.gidx, c).unwrap()
            }
            4 => {
                let two = self.cu32(2);
                let c = {
                    let v = self.rng.range(0, 3) as u32;
                    self.cu32(v)
                };
                let x = self.b.i_mul(u, None, self.gidx, two).unwrap();
                self.b.i_add(u, None, x, c).unwrap()
            }
            5 => {
                // Gathered, in range.
                let (t, v) = self.int_scalar(2);
                let x = self.convert(t, v, U32);
                let m = self.cu32(len.max(1));
                self.b.u_mod(u, None, x, m).unwrap()
            }
            6 => {
                // Gathered, anything (mostly out of range).
                let (t, v) = self.int_scalar(2);
                self.convert(t, v, U32)
            }
            _ => {
                let c = {
                    let v = self.rng.below(u64::from(len) + 4) as u32;
                    self.cu32(v)
                };
                if self.rng.chance(50) {
                    c
                } else {
                    self.b.bitwise_xor(u, None, self.gidx, c).unwrap()
                }
            }
        }
    }

    fn int_scalar(&mut self, depth: u32) -> (Ty, Word) {
        let ints: Vec<(Ty, Word)> = self
            .pool
            .iter()
            .filter(|(t, _)| t.n == 1 && matches!(t.sc, Sc::Int(..)))
            .copied()
            .collect();
        if !ints.is_empty() && self.rng.chance(80) {
            return *self.rng.pick(&ints);
        }
        let sc = *self.rng.pick(&SCALARS[..8]);
        (s(sc), self.value(s(sc), depth))
    }

    fn load(&mut self, sc: Sc) -> Word {
        let var = self.input_buffer(sc);
        let len = self.in_bufs[&sc].len;
        let idx = self.index(len);
        let et = self.ty(s(sc));
        let pt = self.ptr(StorageClass::StorageBuffer, et);
        let zero = self.cu32(0);
        let p = self.b.access_chain(pt, None, var, [zero, idx]).unwrap();
        self.b.load(et, None, p, None, []).unwrap()
    }

    /// An `OpTensorReadARM` of `t` (the tensor's element type) or `None`.
    fn tensor_read(&mut self, sc: Sc) -> Option<Word> {
        let which: Vec<usize> = (0..self.in_tensors.len())
            .filter(|&i| self.in_tensors[i].sc == sc)
            .collect();
        if which.is_empty() {
            return None;
        }
        let i = *self.rng.pick(&which);
        let (var, tty, rank, dims) = {
            let t = &self.in_tensors[i];
            (t.var, t.ty, t.rank, t.dims.clone())
        };
        let coords = self.coords(rank, &dims);
        let tensor = self.b.load(tty, None, var, None, []).unwrap();
        let et = self.ty(s(sc));
        let count = if self.rng.chance(25) {
            self.rng.range(1, 4) as u32
        } else {
            0
        };
        let rt = if count > 0 {
            let n = self.cu32(count);
            self.b.type_array(et, n)
        } else {
            et
        };
        let (ops, extra) = if self.rng.chance(50) {
            let bits = random_bits(&mut self.rng, sc);
            let c = self.constant(sc, bits);
            (
                Some(TensorOperands::OUT_OF_BOUNDS_VALUE_ARM),
                vec![Operand::IdRef(c)],
            )
        } else if self.rng.chance(20) {
            (Some(TensorOperands::NONTEMPORAL_ARM), vec![])
        } else {
            (None, vec![])
        };
        let r = self
            .b
            .tensor_read_arm(rt, None, tensor, coords, ops, extra)
            .unwrap();
        if count == 0 {
            return Some(r);
        }
        let k = self.rng.below(u64::from(count)) as u32;
        // The other elements go to the pool too.
        for j in 0..count {
            if j != k {
                let e = self.b.composite_extract(et, None, r, [j]).unwrap();
                self.add(s(sc), e);
            }
        }
        Some(self.b.composite_extract(et, None, r, [k]).unwrap())
    }

    /// Coordinates (an array of `rank` u32 or i32) near the invocation's element, or from data.
    fn coords(&mut self, rank: usize, dims: &[u64]) -> Word {
        let signed = self.rng.chance(40);
        // Sometimes 8- or 16-bit coordinates, whose lanes wrap within a chunk (an affine
        // coordinate `gidx + k` near 255 or 65535).
        let width = match self.rng.below(10) {
            0 => 8,
            1 => 16,
            _ => 32,
        };
        let ct = s(Sc::Int(width, signed));
        let ctid = self.ty(ct);
        let u = self.ty(U32);
        let mut parts = Vec::new();
        let mut rest = self.gidx;
        for i in (0..rank).rev() {
            let c = match self.rng.below(6) {
                0..=2 => {
                    // The invocation's coordinate in dimension i (innermost takes the rest).
                    if i == 0 {
                        rest
                    } else {
                        let d = self.cu32(dims[i] as u32);
                        let c = self.b.u_mod(u, None, rest, d).unwrap();
                        rest = self.b.u_div(u, None, rest, d).unwrap();
                        c
                    }
                }
                3 => {
                    let k = {
                        let v = self.rng.below(dims[i] + 2) as u32;
                        self.cu32(v)
                    };
                    if self.rng.chance(50) {
                        k
                    } else {
                        self.b.i_add(u, None, self.gidx, k).unwrap()
                    }
                }
                4 => {
                    let (t, v) = self.int_scalar(2);
                    self.convert(t, v, U32)
                }
                _ => {
                    // -1 (huge when unsigned).
                    {
                        let v = u32::MAX - self.rng.below(2) as u32;
                        self.cu32(v)
                    }
                }
            };
            let c = if width < 32 {
                self.convert(U32, c, ct)
            } else if signed {
                self.b.bitcast(ctid, None, c).unwrap()
            } else {
                c
            };
            parts.push(c);
        }
        parts.reverse();
        let n = self.cu32(rank as u32);
        let at = self.b.type_array(ctid, n);
        self.b.composite_construct(at, None, parts).unwrap()
    }

    fn try_expr(&mut self, t: Ty, depth: u32) -> Option<Word> {
        let tid = self.ty(t);
        let d = depth;
        let r = self.rng.below(100);
        // Leaves and generic forms first.
        if r < 12 && t.n == 1 && t.sc != Sc::Bool {
            if !self.in_tensors.is_empty() && self.rng.chance(35) {
                return self.tensor_read(t.sc);
            }
            return Some(self.load(t.sc));
        }
        if r < 16 && t.n == 1 && t.sc == Sc::Bool && !self.in_tensors.is_empty() {
            return self.tensor_read(Sc::Bool);
        }
        if r < 22 {
            let c = if self.rng.chance(50) || t.n == 1 {
                self.value(BOOL, d)
            } else {
                self.value(Self::comp(t, Sc::Bool), d)
            };
            let x = self.value(t, d);
            let y = self.value(t, d);
            return Some(self.b.select(tid, None, c, x, y).unwrap());
        }
        if r < 30 {
            // A conversion from another type with the same component count.
            let from = Ty {
                sc: if self.rng.chance(10) {
                    Sc::Bool
                } else {
                    *self.rng.pick(&SCALARS)
                },
                n: t.n,
            };
            if from == t {
                return None;
            }
            let v = self.value(from, d);
            return Some(self.convert(from, v, t));
        }
        if r < 36 {
            // Vector plumbing.
            if t.n == 1 {
                let n = self.rng.range(2, 4) as u8;
                let v = self.value(Ty { sc: t.sc, n }, d);
                let k = self.rng.below(u64::from(n)) as u32;
                return Some(self.b.composite_extract(tid, None, v, [k]).unwrap());
            }
            return Some(match self.rng.below(3) {
                0 => {
                    let parts: Vec<Word> = (0..t.n).map(|_| self.value(s(t.sc), d)).collect();
                    self.b.composite_construct(tid, None, parts).unwrap()
                }
                1 => {
                    let n2 = self.rng.range(2, 4) as u8;
                    let x = self.value(t, d);
                    let y = self.value(Ty { sc: t.sc, n: n2 }, d);
                    let comps: Vec<u32> = (0..t.n)
                        .map(|_| self.rng.below(u64::from(t.n + n2)) as u32)
                        .collect();
                    self.b.vector_shuffle(tid, None, x, y, comps).unwrap()
                }
                _ => {
                    let x = self.value(t, d);
                    let e = self.value(s(t.sc), d);
                    let k = self.rng.below(u64::from(t.n)) as u32;
                    self.b.composite_insert(tid, None, e, x, [k]).unwrap()
                }
            });
        }
        match t.sc {
            Sc::Bool => self.bool_expr(t, tid, d),
            Sc::Int(w, sg) => self.int_expr(t, tid, w, sg, d),
            Sc::Float(w) => self.float_expr(t, tid, w, d),
        }
    }

    fn bool_expr(&mut self, t: Ty, tid: Word, d: u32) -> Option<Word> {
        let b = self.rng.below(10);
        Some(match b {
            0..=3 => {
                let sc = *self.rng.pick(&SCALARS[..8]);
                let ot = Self::comp(t, sc);
                let x = self.value(ot, d);
                let y = if self.rng.chance(70) {
                    self.value(ot, d)
                } else {
                    self.constant_of(ot)
                };
                let bb = &mut self.b;
                match self.rng.below(10) {
                    0 => bb.i_equal(tid, None, x, y),
                    1 => bb.i_not_equal(tid, None, x, y),
                    2 => bb.u_less_than(tid, None, x, y),
                    3 => bb.u_less_than_equal(tid, None, x, y),
                    4 => bb.u_greater_than(tid, None, x, y),
                    5 => bb.u_greater_than_equal(tid, None, x, y),
                    6 => bb.s_less_than(tid, None, x, y),
                    7 => bb.s_less_than_equal(tid, None, x, y),
                    8 => bb.s_greater_than(tid, None, x, y),
                    _ => bb.s_greater_than_equal(tid, None, x, y),
                }
                .unwrap()
            }
            4..=6 => {
                let sc = *self.rng.pick(&SCALARS[8..]);
                let ot = Self::comp(t, sc);
                let x = self.value(ot, d);
                let y = self.value(ot, d);
                let bb = &mut self.b;
                match self.rng.below(14) {
                    0 => bb.f_ord_equal(tid, None, x, y),
                    1 => bb.f_ord_not_equal(tid, None, x, y),
                    2 => bb.f_ord_less_than(tid, None, x, y),
                    3 => bb.f_ord_less_than_equal(tid, None, x, y),
                    4 => bb.f_ord_greater_than(tid, None, x, y),
                    5 => bb.f_ord_greater_than_equal(tid, None, x, y),
                    6 => bb.f_unord_equal(tid, None, x, y),
                    7 => bb.f_unord_not_equal(tid, None, x, y),
                    8 => bb.f_unord_less_than(tid, None, x, y),
                    9 => bb.f_unord_less_than_equal(tid, None, x, y),
                    10 => bb.f_unord_greater_than(tid, None, x, y),
                    11 => bb.f_unord_greater_than_equal(tid, None, x, y),
                    12 => bb.is_nan(tid, None, x),
                    _ => bb.is_inf(tid, None, x),
                }
                .unwrap()
            }
            7 if t.n == 1 => {
                let n = self.rng.range(2, 4) as u8;
                let v = self.value(Ty { sc: Sc::Bool, n }, d);
                if self.rng.chance(50) {
                    self.b.any(tid, None, v).unwrap()
                } else {
                    self.b.all(tid, None, v).unwrap()
                }
            }
            _ => {
                let x = self.value(t, d);
                let y = self.value(t, d);
                let bb = &mut self.b;
                match self.rng.below(5) {
                    0 => bb.logical_and(tid, None, x, y),
                    1 => bb.logical_or(tid, None, x, y),
                    2 => bb.logical_not(tid, None, x),
                    3 => bb.logical_equal(tid, None, x, y),
                    _ => bb.logical_not_equal(tid, None, x, y),
                }
                .unwrap()
            }
        })
    }

    fn int_expr(&mut self, t: Ty, tid: Word, w: u8, sg: bool, d: u32) -> Option<Word> {
        let x = self.value(t, d);
        let k = self.rng.below(30);
        let y = if k < 16 {
            if self.rng.chance(25) {
                self.constant_of(t)
            } else {
                self.value(t, d)
            }
        } else {
            x
        };
        let g = self.glsl;
        let bb = &mut self.b;
        Some(match k {
            0 => bb.i_add(tid, None, x, y).ok()?,
            1 => bb.i_sub(tid, None, x, y).ok()?,
            2 => bb.i_mul(tid, None, x, y).ok()?,
            3 | 5 if sg => {
                // UDiv/UMod need an unsigned result type: compute on the unsigned twin.
                let ut = self.ty(Self::comp(t, Sc::Int(w, false)));
                let (xu, yu) = (
                    self.b.bitcast(ut, None, x).ok()?,
                    self.b.bitcast(ut, None, y).ok()?,
                );
                let r = if k == 3 {
                    self.b.u_div(ut, None, xu, yu).ok()?
                } else {
                    self.b.u_mod(ut, None, xu, yu).ok()?
                };
                self.b.bitcast(tid, None, r).ok()?
            }
            3 => bb.u_div(tid, None, x, y).ok()?,
            4 => bb.s_div(tid, None, x, y).ok()?,
            5 => bb.u_mod(tid, None, x, y).ok()?,
            6 => bb.s_rem(tid, None, x, y).ok()?,
            7 => bb.s_mod(tid, None, x, y).ok()?,
            8..=10 => {
                // Shift amounts of any int type, often ≥ the width.
                let at = Self::comp(t, *self.rng.pick(&SCALARS[..8]));
                let a = if self.rng.chance(40) {
                    let c = self.rng.below(u64::from(w) + 8);
                    let (Sc::Int(aw, _), 1) = (at.sc, t.n) else {
                        return None;
                    };
                    self.constant(at.sc, c & mask(aw))
                } else {
                    self.value(at, d)
                };
                let bb = &mut self.b;
                match k {
                    8 => bb.shift_left_logical(tid, None, x, a),
                    9 => bb.shift_right_logical(tid, None, x, a),
                    _ => bb.shift_right_arithmetic(tid, None, x, a),
                }
                .ok()?
            }
            11 => bb.bitwise_and(tid, None, x, y).ok()?,
            12 => bb.bitwise_or(tid, None, x, y).ok()?,
            13 => bb.bitwise_xor(tid, None, x, y).ok()?,
            14 | 15 => {
                let op = *self.rng.pick(&[38u32, 39, 41, 42]); // UMin SMin UMax SMax
                self.b
                    .ext_inst(tid, None, g, op, [Operand::IdRef(x), Operand::IdRef(y)])
                    .ok()?
            }
            16 => bb.s_negate(tid, None, x).ok()?,
            17 => bb.not(tid, None, x).ok()?,
            18 => {
                let z = self.value(t, d);
                let y = self.value(t, d);
                let op = if self.rng.chance(50) { 44 } else { 45 }; // UClamp SClamp
                self.b
                    .ext_inst(
                        tid,
                        None,
                        g,
                        op,
                        [Operand::IdRef(x), Operand::IdRef(y), Operand::IdRef(z)],
                    )
                    .ok()?
            }
            19 if sg || self.rng.chance(50) => {
                let op = *self.rng.pick(&[5u32, 7]); // SAbs SSign
                bb.ext_inst(tid, None, g, op, [Operand::IdRef(x)]).ok()?
            }
            20 if w == 32 => {
                let op = *self.rng.pick(&[73u32, 74, 75]); // FindILsb FindSMsb FindUMsb
                bb.ext_inst(tid, None, g, op, [Operand::IdRef(x)]).ok()?
            }
            21 if w == 32 => match self.rng.below(2) {
                0 => bb.bit_count(tid, None, x).ok()?,
                _ => bb.bit_reverse(tid, None, x).ok()?,
            },
            22 if w == 32 => {
                let off = {
                    let v = self.rng.below(36) as u32;
                    self.cu32(v)
                };
                let cnt = {
                    let v = self.rng.below(36) as u32;
                    self.cu32(v)
                };
                let ins = self.value(t, d);
                let bb = &mut self.b;
                match self.rng.below(3) {
                    0 => bb.bit_field_insert(tid, None, x, ins, off, cnt),
                    1 => bb.bit_field_s_extract(tid, None, x, off, cnt),
                    _ => bb.bit_field_u_extract(tid, None, x, off, cnt),
                }
                .ok()?
            }
            23 if !sg => {
                // The second member of OpIAddCarry / OpISubBorrow / OpUMulExtended.
                let y = self.value(t, d);
                let st = self.b.type_struct([tid, tid]);
                let r = match self.rng.below(4) {
                    0 => self.b.i_add_carry(st, None, x, y),
                    1 => self.b.i_sub_borrow(st, None, x, y),
                    2 => self.b.u_mul_extended(st, None, x, y),
                    _ => self.b.s_mul_extended(st, None, x, y),
                }
                .ok()?;
                let m = self.rng.below(2) as u32;
                self.b.composite_extract(tid, None, r, [m]).ok()?
            }
            24 if t.n == 1 => {
                // A tensor size query, converted.
                if self.in_tensors.is_empty() {
                    return None;
                }
                let i = self.rng.below(self.in_tensors.len() as u64) as usize;
                let (var, tty, rank) = {
                    let t = &self.in_tensors[i];
                    (t.var, t.ty, t.rank)
                };
                let tensor = self.b.load(tty, None, var, None, []).ok()?;
                let dim = {
                    let v = self.rng.below(rank as u64) as u32;
                    self.cu32(v)
                };
                let u = self.ty(U32);
                let q = self.b.tensor_query_size_arm(u, None, tensor, dim).ok()?;
                self.convert(U32, q, t)
            }
            25 if t.n == 1 && t.sc == Sc::Int(32, false) => {
                // OpArrayLength of an input buffer.
                let sc = *self.rng.pick(&SCALARS);
                let var = self.input_buffer(sc);
                self.b.array_length(tid, None, var, 0).ok()?
            }
            _ => return None,
        })
    }

    fn float_expr(&mut self, t: Ty, tid: Word, w: u8, d: u32) -> Option<Word> {
        let x = self.value(t, d);
        let g = self.glsl;
        let k = self.rng.below(24);
        let bin = |this: &mut Self| this.value(t, d);
        Some(match k {
            0..=5 => {
                let y = bin(self);
                let bb = &mut self.b;
                match k {
                    0 => bb.f_add(tid, None, x, y),
                    1 => bb.f_sub(tid, None, x, y),
                    2 => bb.f_mul(tid, None, x, y),
                    3 => bb.f_div(tid, None, x, y),
                    4 => bb.f_rem(tid, None, x, y),
                    _ => bb.f_mod(tid, None, x, y),
                }
                .ok()?
            }
            6 => self.b.f_negate(tid, None, x).ok()?,
            7..=10 => {
                // GLSL unary: Round RoundEven Trunc FAbs FSign Floor Ceil Fract Radians Degrees
                // Sin Cos Exp Log Exp2 Log2 Sqrt InverseSqrt Tanh.
                // (Trigonometry, exponentials and logarithms only for 16/32-bit floats.)
                let ops: &[u32] = if w == 64 {
                    &[1, 2, 3, 4, 6, 8, 9, 10, 31, 32]
                } else {
                    &[
                        1, 2, 3, 4, 6, 8, 9, 10, 11, 12, 13, 14, 27, 28, 29, 30, 31, 32, 21,
                    ]
                };
                let op = *self.rng.pick(ops);
                self.b
                    .ext_inst(tid, None, g, op, [Operand::IdRef(x)])
                    .ok()?
            }
            11..=13 => {
                // FMin FMax NMin NMax Step Pow Atan2
                let ops: &[u32] = if w == 64 {
                    &[37, 40, 79, 80, 48]
                } else {
                    &[37, 40, 79, 80, 48, 26, 25]
                };
                let op = *self.rng.pick(ops);
                let y = bin(self);
                self.b
                    .ext_inst(tid, None, g, op, [Operand::IdRef(x), Operand::IdRef(y)])
                    .ok()?
            }
            14 | 15 => {
                // FClamp NClamp FMix Fma SmoothStep
                let op = *self.rng.pick(&[43u32, 81, 46, 50, 49]);
                let y = bin(self);
                let z = bin(self);
                self.b
                    .ext_inst(
                        tid,
                        None,
                        g,
                        op,
                        [Operand::IdRef(x), Operand::IdRef(y), Operand::IdRef(z)],
                    )
                    .ok()?
            }
            16 => {
                // Ldexp with an i32 exponent (often large).
                let et = Self::comp(t, Sc::Int(32, true));
                let e = if self.rng.chance(50) {
                    self.value(et, d)
                } else {
                    let c = *self
                        .rng
                        .pick(&[0i32, 1, -1, 10, 100, 1000, 1100, -1100, 2000, -2000, 127]);
                    let c = self.constant(Sc::Int(32, true), c as u32 as u64);
                    if t.n == 1 {
                        c
                    } else {
                        let etid = self.ty(et);
                        self.b.constant_composite(etid, vec![c; usize::from(t.n)])
                    }
                };
                self.b
                    .ext_inst(tid, None, g, 53, [Operand::IdRef(x), Operand::IdRef(e)])
                    .ok()?
            }
            17 if t.n == 1 => {
                // Dot of two vectors.
                let n = self.rng.range(2, 4) as u8;
                let vt = Ty { sc: t.sc, n };
                let a = self.value(vt, d);
                let b2 = self.value(vt, d);
                self.b.dot(tid, None, a, b2).ok()?
            }
            18 if t.n > 1 => {
                let sv = self.value(s(t.sc), d);
                self.b.vector_times_scalar(tid, None, x, sv).ok()?
            }
            19 if w == 32 => {
                // OpQuantizeToF16
                self.b.quantize_to_f16(tid, None, x).ok()?
            }
            _ => return None,
        })
    }

    // ---------------------------------------------------------------- outputs

    fn out_buffer(&mut self, sc: Sc) -> (Word, Word) {
        let sc = if sc == Sc::Bool {
            Sc::Int(8, false)
        } else {
            sc
        };
        if let Some(o) = self.outs.get(&sc) {
            return (o.var, o.k_id);
        }
        let (var, binding) = self.buffer_var(sc, &format!("out_{}", sc.name()));
        let k_id = self.b.id();
        self.outs.insert(
            sc,
            Out {
                var,
                k_id,
                k: 0,
                binding,
            },
        );
        self.late_out.push(sc);
        (var, k_id)
    }

    /// Stores scalar `v` of `sc` to the invocation's next slot of the output of `sc`.
    fn store_scalar(&mut self, sc: Sc, v: Word) {
        if self.rng.chance(15) && sc != Sc::Bool {
            self.tensor_store(sc, v);
            return;
        }
        let (v, sc) = if sc == Sc::Bool {
            let u8t = Sc::Int(8, false);
            (self.convert(BOOL, v, s(u8t)), u8t)
        } else {
            (v, sc)
        };
        let (var, k_id) = self.out_buffer(sc);
        let slot = {
            let o = self.outs.get_mut(&sc).unwrap();
            o.k += 1;
            o.k - 1
        };
        let u = self.ty(U32);
        let base = self.b.i_mul(u, None, self.gidx, k_id).unwrap();
        let c = self.cu32(slot);
        let idx = self.b.i_add(u, None, base, c).unwrap();
        let et = self.ty(s(sc));
        let pt = self.ptr(StorageClass::StorageBuffer, et);
        let zero = self.cu32(0);
        let p = self.b.access_chain(pt, None, var, [zero, idx]).unwrap();
        self.b.store(p, v, None, []).unwrap();
    }

    /// An `OpTensorWriteARM` of `v` to `[gidx, slot]` of the output tensor of `sc` (sometimes
    /// out of bounds: dropped).
    fn tensor_store(&mut self, sc: Sc, v: Word) {
        if !self.out_tensors.contains_key(&sc) {
            let ty = self.tensor_type(sc, 2);
            let (var, binding) = self.tensor_var(ty, &format!("tout_{}", sc.name()));
            self.out_tensors.insert(
                sc,
                OutTensor {
                    var,
                    ty,
                    k: 0,
                    binding,
                },
            );
        }
        let (var, ty, slot) = {
            let o = self.out_tensors.get_mut(&sc).unwrap();
            o.k += 1;
            (o.var, o.ty, o.k - 1)
        };
        let u = self.ty(U32);
        let col = if self.rng.chance(10) {
            self.cu32(slot + 1000)
        } else {
            self.cu32(slot)
        };
        let row = if self.rng.chance(10) {
            let big = {
                let v = self.n;
                self.cu32(v)
            };
            self.b.i_add(u, None, self.gidx, big).unwrap()
        } else {
            self.gidx
        };
        let two = self.cu32(2);
        let at = self.b.type_array(u, two);
        let coords = self.b.composite_construct(at, None, [row, col]).unwrap();
        let t = self.b.load(ty, None, var, None, []).unwrap();
        self.b.tensor_write_arm(t, coords, v, None, []).unwrap();
    }

    fn store_value(&mut self, t: Ty, v: Word) {
        if t.n == 1 {
            self.store_scalar(t.sc, v);
            return;
        }
        let ct = self.ty(s(t.sc));
        for k in 0..u32::from(t.n) {
            let e = self.b.composite_extract(ct, None, v, [k]).unwrap();
            self.store_scalar(t.sc, e);
        }
    }

    /// A pointer to element `k` (a constant index) of local array `var`.
    fn local_element(&mut self, var: Word, k: u32) -> Word {
        let u = self.ty(U32);
        let pt = self.ptr(StorageClass::Function, u);
        let c = self.cu32(k);
        self.b.access_chain(pt, None, var, [c]).unwrap()
    }

    /// A pointer to a local array's element at a run-time index (a value modulo the length).
    fn local_pointer(&mut self) -> Option<Word> {
        if self.locals.is_empty() {
            return None;
        }
        let locals = self.locals.clone();
        let &(var, len) = self.rng.pick(&locals);
        let u = self.ty(U32);
        let raw = self.value(U32, 1);
        let lc = self.cu32(len);
        let idx = self.b.u_mod(u, None, raw, lc).unwrap();
        let pt = self.ptr(StorageClass::Function, u);
        Some(self.b.access_chain(pt, None, var, [idx]).unwrap())
    }

    /// A read or a write (sometimes a read-modify-write) of a local array at run-time indices.
    fn local_access(&mut self) {
        let u = self.ty(U32);
        let Some(p) = self.local_pointer() else {
            return;
        };
        if self.rng.chance(40) {
            let v = self.b.load(u, None, p, None, []).unwrap();
            self.add(U32, v);
            self.store_scalar(Sc::Int(32, false), v);
            return;
        }
        let mut v = self.value(U32, 1);
        if self.rng.chance(50)
            && let Some(q) = self.local_pointer()
        {
            let old = self.b.load(u, None, q, None, []).unwrap();
            v = self.b.i_add(u, None, old, v).unwrap();
        }
        self.b.store(p, v, None, []).unwrap();
    }

    // ---------------------------------------------------------------- statements

    fn label(&mut self) -> Word {
        self.cur
    }

    /// Generates statements into the current block; returns false if the block was terminated
    /// (an early return or break).
    fn stmts(&mut self, depth: u32) -> bool {
        let count = self.rng.range(1, 5);
        for _ in 0..count {
            if self.budget <= 0 {
                break;
            }
            self.budget -= 1;
            let r = self.rng.below(100);
            match r {
                0..=39 => {
                    let (t, v) = self.any_value(0);
                    self.store_value(t, v);
                }
                40..=54 if depth < 3 => self.if_else(depth),
                55..=63 if depth < 3 => self.do_loop(depth),
                64..=69 if depth < 3 => self.switch(depth),
                70..=72 if depth > 0 || self.rng.chance(30) => {
                    // Early return (or break inside a loop).
                    let c = self.value(BOOL, 1);
                    let t = self.b.id();
                    let m = self.b.id();
                    self.b.selection_merge(m, SelectionControl::NONE).unwrap();
                    self.b.branch_conditional(c, t, m, []).unwrap();
                    self.begin(t);
                    self.scoped(|g| {
                        let (ty, v) = g.any_value(1);
                        g.store_value(ty, v);
                    });
                    match self.loop_merge.last() {
                        Some(&lm) if self.rng.chance(50) => self.b.branch(lm).unwrap(),
                        _ => {
                            self.uniform = false;
                            self.returned = true;
                            self.b.ret().unwrap()
                        }
                    }
                    self.begin(m);
                }
                73..=80 if self.uniform && depth == 0 && self.shared.is_some() => {
                    self.shared_phase()
                }
                81..=88 if depth == 0 || self.rng.chance(20) => self.subgroup(),
                89..=96 if !self.locals.is_empty() => self.local_access(),
                _ => {
                    let (t, v) = self.any_value(0);
                    self.store_value(t, v);
                }
            }
        }
        true
    }

    /// Runs `f` in a nested scope: values it defines are dropped from the pool afterwards.
    fn scoped<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let mark = self.pool.len();
        let uniform = self.uniform;
        let r = f(self);
        self.pool.truncate(mark);
        self.uniform = uniform && self.uniform;
        r
    }

    fn if_else(&mut self, depth: u32) {
        let c = self.value(BOOL, 1);
        let phi_t = self.random_ty();
        let (t, e, m) = (self.b.id(), self.b.id(), self.b.id());
        self.b.selection_merge(m, SelectionControl::NONE).unwrap();
        self.b.branch_conditional(c, t, e, []).unwrap();
        let was_uniform = self.uniform;
        self.uniform = false;
        let mut incoming = Vec::new();
        for l in [t, e] {
            self.begin(l);
            let v = self.scoped(|g| {
                g.stmts(depth + 1);
                g.value(phi_t, 1)
            });
            incoming.push((v, self.label()));
            self.b.branch(m).unwrap();
        }
        self.uniform = was_uniform && self.uniform_after_branch();
        self.begin(m);
        let tid = self.ty(phi_t);
        let p = self.b.phi(tid, None, incoming).unwrap();
        self.add(phi_t, p);
    }

    /// Control flow is uniform again after a divergent construct unless a lane returned.
    fn uniform_after_branch(&self) -> bool {
        !self.returned
    }

    fn do_loop(&mut self, depth: u32) {
        let u = self.ty(U32);
        let trip = match self.rng.below(4) {
            0 => {
                let v = self.rng.range(0, 6) as u32;
                self.cu32(v)
            }
            1 => {
                let x = self.load(Sc::Int(32, false));
                let m = self.cu32(7);
                self.b.bitwise_and(u, None, x, m).unwrap()
            }
            2 => {
                let m = self.cu32(5);
                self.b.u_mod(u, None, self.gidx, m).unwrap()
            }
            _ => {
                let (t, v) = self.int_scalar(2);
                let x = self.convert(t, v, U32);
                let m = self.cu32(9);
                self.b.u_mod(u, None, x, m).unwrap()
            }
        };
        let acc_t = self.random_ty();
        let acc0 = self.value(acc_t, 1);
        let pre = self.label();
        let (h, cnd, body, cont, m) = (
            self.b.id(),
            self.b.id(),
            self.b.id(),
            self.b.id(),
            self.b.id(),
        );
        let (i_next, acc_next) = (self.b.id(), self.b.id());
        self.b.branch(h).unwrap();
        self.begin(h);
        let zero = self.cu32(0);
        let i = self.b.phi(u, None, [(zero, pre), (i_next, cont)]).unwrap();
        let acc_tid = self.ty(acc_t);
        let acc = self
            .b
            .phi(acc_tid, None, [(acc0, pre), (acc_next, cont)])
            .unwrap();
        self.b.loop_merge(m, cont, LoopControl::NONE, []).unwrap();
        self.b.branch(cnd).unwrap();
        self.begin(cnd);
        let bt = self.ty(BOOL);
        let go = self.b.u_less_than(bt, None, i, trip).unwrap();
        self.b.branch_conditional(go, body, m, []).unwrap();
        self.begin(body);
        let was_uniform = self.uniform;
        self.uniform = false;
        self.loop_merge.push(m);
        let upd = self.scoped(|g| {
            g.add(U32, i);
            g.add(acc_t, acc);
            g.stmts(depth + 1);
            g.value(acc_t, 1)
        });
        self.loop_merge.pop();
        self.b.branch(cont).unwrap();
        self.begin(cont);
        let one = self.cu32(1);
        self.b.i_add(u, Some(i_next), i, one).unwrap();
        self.b.copy_object(acc_tid, Some(acc_next), upd).unwrap();
        self.b.branch(h).unwrap();
        self.begin(m);
        self.uniform = was_uniform && self.uniform_after_branch();
        self.add(acc_t, acc);
        self.add(U32, i);
    }

    fn switch(&mut self, depth: u32) {
        let sc = *self.rng.pick(&SCALARS[..8]);
        let Sc::Int(w, signed) = sc else {
            unreachable!()
        };
        let sel = self.value(s(sc), 1);
        // Case values (distinct at the selector's width), often small or negative.
        let mut vals: Vec<u64> = Vec::new();
        for _ in 0..self.rng.range(1, 4) {
            let v = match self.rng.below(3) {
                0 => self.rng.below(8),
                1 => (self.rng.below(8) as i64 + 1).wrapping_neg() as u64,
                _ => random_bits(&mut self.rng, sc),
            } & mask(w);
            if !vals.contains(&v) {
                vals.push(v);
            }
        }
        let phi_t = self.random_ty();
        let m = self.b.id();
        let default = self.b.id();
        let labels: Vec<Word> = vals.iter().map(|_| self.b.id()).collect();
        let targets: Vec<(Operand, Word)> = vals
            .iter()
            .zip(&labels)
            .map(|(&v, &l)| {
                let lit = match (w, signed) {
                    (64, _) => Operand::LiteralBit64(v),
                    (32, _) => Operand::LiteralBit32(v as u32),
                    (_, true) => Operand::LiteralBit32(((v << (64 - w)) as i64 >> (64 - w)) as u32),
                    _ => Operand::LiteralBit32(v as u32),
                };
                (lit, l)
            })
            .collect();
        self.summary.push(format!(
            "switch on {} cases {:?}",
            sc.name(),
            vals.iter()
                .map(|&v| if signed {
                    format!("{}", ((v << (64 - w)) as i64) >> (64 - w))
                } else {
                    format!("{v}")
                })
                .collect::<Vec<_>>()
        ));
        self.b.selection_merge(m, SelectionControl::NONE).unwrap();
        self.b.switch(sel, default, targets).unwrap();
        let was_uniform = self.uniform;
        self.uniform = false;
        let mut incoming = Vec::new();
        for l in labels.into_iter().chain([default]) {
            self.begin(l);
            let v = self.scoped(|g| {
                g.stmts(depth + 1);
                g.value(phi_t, 1)
            });
            incoming.push((v, self.label()));
            self.b.branch(m).unwrap();
        }
        self.uniform = was_uniform && self.uniform_after_branch();
        self.begin(m);
        let tid = self.ty(phi_t);
        let p = self.b.phi(tid, None, incoming).unwrap();
        self.add(phi_t, p);
    }

    fn barrier(&mut self) {
        let wg = self.cu32(spirv::Scope::Workgroup as u32);
        let sem = self.cu32(
            (spirv::MemorySemantics::ACQUIRE_RELEASE | spirv::MemorySemantics::WORKGROUP_MEMORY)
                .bits(),
        );
        self.b.control_barrier(wg, wg, sem).unwrap();
    }

    /// `s[lidx] = v; barrier; r = s[f(lidx)]; barrier` (uniform control flow only).
    fn shared_phase(&mut self) {
        let Some(sh) = self.shared else { return };
        let u = self.ty(U32);
        let (t, v) = self.int_scalar(1);
        let v = self.convert(t, v, U32);
        let pt = self.ptr(StorageClass::Workgroup, u);
        let p = self.b.access_chain(pt, None, sh, [self.lidx]).unwrap();
        self.b.store(p, v, None, []).unwrap();
        self.barrier();
        let ls = {
            let v = self.ls;
            self.cu32(v)
        };
        let idx = match self.rng.below(4) {
            0 => {
                let k = {
                    let v = self.rng.range(1, 40) as u32;
                    self.cu32(v)
                };
                let x = self.b.i_add(u, None, self.lidx, k).unwrap();
                self.b.u_mod(u, None, x, ls).unwrap()
            }
            1 => {
                let k = {
                    let v = self.ls - 1;
                    self.cu32(v)
                };
                self.b.i_sub(u, None, k, self.lidx).unwrap()
            }
            2 => {
                let (t, v) = self.int_scalar(2);
                let x = self.convert(t, v, U32);
                self.b.u_mod(u, None, x, ls).unwrap()
            }
            _ => {
                // Out of range of the array and of all workgroup memory.
                let k = self.cu32(100_000);
                self.b.i_add(u, None, self.lidx, k).unwrap()
            }
        };
        let q = self.b.access_chain(pt, None, sh, [idx]).unwrap();
        let r = self.b.load(u, None, q, None, []).unwrap();
        self.barrier();
        self.add(U32, r);
        self.store_scalar(Sc::Int(32, false), r);
        self.summary.push("shared phase".into());
    }

    fn subgroup(&mut self) {
        let scope = self.cu32(spirv::Scope::Subgroup as u32);
        let u = self.ty(U32);
        let (t, v) = self.int_scalar(1);
        let x = self.convert(t, v, U32);
        let r = match self.rng.below(7) {
            0 => self
                .b
                .group_non_uniform_i_add(u, None, scope, GroupOperation::Reduce, x, None)
                .unwrap(),
            1 => self
                .b
                .group_non_uniform_i_add(u, None, scope, GroupOperation::InclusiveScan, x, None)
                .unwrap(),
            2 => self
                .b
                .group_non_uniform_broadcast_first(u, None, scope, x)
                .unwrap(),
            3 => {
                let lane = {
                    let v = self.rng.below(20) as u32;
                    self.cu32(v)
                };
                self.b
                    .group_non_uniform_broadcast(u, None, scope, x, lane)
                    .unwrap()
            }
            4 => {
                let (t2, v2) = self.int_scalar(2);
                let lane = self.convert(t2, v2, U32);
                let m = self.cu32(64);
                let lane = self.b.u_mod(u, None, lane, m).unwrap();
                self.b
                    .group_non_uniform_shuffle(u, None, scope, x, lane)
                    .unwrap()
            }
            5 => {
                let bt = self.ty(BOOL);
                let c = self.value(BOOL, 1);
                let u4 = self.ty(Ty {
                    sc: Sc::Int(32, false),
                    n: 4,
                });
                let bal = self.b.group_non_uniform_ballot(u4, None, scope, c).unwrap();
                let _ = bt;
                self.b.composite_extract(u, None, bal, [0]).unwrap()
            }
            _ => {
                let bt = self.ty(BOOL);
                let e = self.b.group_non_uniform_elect(bt, None, scope).unwrap();
                self.convert(BOOL, e, U32)
            }
        };
        self.add(U32, r);
        self.store_scalar(Sc::Int(32, false), r);
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
