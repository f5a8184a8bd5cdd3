//! The lowering tests' module builder and drivers: scalar types and their edge values, a
//! SPIR-V module with storage buffers (`Mod`), and `binary`/`binary_of`, which run one op over
//! every pair of values and check the JIT against the interpreter.

use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, FPEncoding,
    FunctionControl, MemoryModel, StorageClass, Word,
};

use crate::common::{Binding, Case, Elem, Verdict, check};

/// A scalar type: (bits, float?, signed?, the float encoding when not IEEE's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct T {
    pub(crate) bits: u32,
    pub(crate) float: bool,
    pub(crate) signed: bool,
    pub(crate) encoding: Option<FPEncoding>,
}

pub(crate) const fn int(bits: u32) -> T {
    T {
        bits,
        float: false,
        signed: false,
        encoding: None,
    }
}
pub(crate) const fn sint(bits: u32) -> T {
    T {
        bits,
        float: false,
        signed: true,
        encoding: None,
    }
}
pub(crate) const fn flt(bits: u32) -> T {
    T {
        bits,
        float: true,
        signed: false,
        encoding: None,
    }
}
/// bfloat16 (`SPV_KHR_bfloat16`).
pub(crate) const fn bflt() -> T {
    T {
        bits: 16,
        float: true,
        signed: false,
        encoding: Some(FPEncoding::BFloat16KHR),
    }
}
/// An 8-bit float (`SPV_EXT_float8`): E4M3 or E5M2.
pub(crate) const fn fp8(encoding: FPEncoding) -> T {
    T {
        bits: 8,
        float: true,
        signed: false,
        encoding: Some(encoding),
    }
}

pub(crate) fn edges(t: T) -> Vec<u64> {
    if t.bits == 8 && t.float {
        // Every pattern.
        (0..=0xffu64).collect()
    } else if t.encoding == Some(FPEncoding::BFloat16KHR) {
        // Zeros, subnormals, extreme normals, ±1, ½, 1.5, 2.5, 127.5, 255, infinities, NaNs.
        vec![
            0x0000, 0x8000, 0x0001, 0x807f, 0x0080, 0x7f7f, 0xff7f, 0x3f80, 0xbf80, 0x3f00, 0x3fc0,
            0x4020, 0xc020, 0x42ff, 0x437f, 0xc300, 0x477f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffd5,
        ]
    } else if t.float {
        if t.bits == 16 {
            // Zeros, subnormals, extreme normals, ±1, ½, 1.5, 2.5, infinities, NaNs.
            vec![
                0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x3800,
                0x3e00, 0x4100, 0xc100, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe55,
            ]
        } else if t.bits == 32 {
            [
                0.0f32,
                -0.0,
                1.0,
                -1.0,
                0.5,
                1.5,
                2.5,
                -2.5,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                f32::MIN_POSITIVE,
                1e-45,
                f32::MAX,
                2147483648.0,
                -2147483904.0,
                4294967296.0,
                9.3e18,
                -9.3e18,
                1.9e19,
            ]
            .iter()
            .map(|v| u64::from(v.to_bits()))
            .chain([0xffc0_0001, 0x7f80_0001])
            .collect()
        } else {
            [
                0.0f64,
                -0.0,
                1.0,
                -1.0,
                0.5,
                1.5,
                2.5,
                -2.5,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                f64::MIN_POSITIVE,
                5e-324,
                f64::MAX,
                2147483648.0,
                -2147483649.0,
                4294967296.0,
                9.3e18,
                -9.3e18,
                1.9e19,
                1e300,
            ]
            .iter()
            .map(|v| v.to_bits())
            .chain([0xfff8_0000_0000_0001])
            .collect()
        }
    } else {
        let m = if t.bits == 64 {
            u64::MAX
        } else {
            (1 << t.bits) - 1
        };
        let min = 1u64 << (t.bits - 1);
        let w = u64::from(t.bits);
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
            w - 1,
            w,
            w + 1,
            2 * w,
            0x5a5a_5a5a_5a5a_5a5a & m,
        ]
    }
}

/// `ptr` storage-buffer variable over a runtime array of `elem`.
pub(crate) struct Mod {
    pub(crate) b: Builder,
    pub(crate) iface: Vec<Word>,
    pub(crate) next: u32,
    pub(crate) decorated: Vec<Word>,
}

impl Mod {
    pub(crate) fn new() -> Mod {
        let mut m = Mod {
            b: Builder::new(),
            iface: Vec::new(),
            next: 0,
            decorated: Vec::new(),
        };
        m.b.set_version(1, 5);
        m
    }

    /// Declares the `GlobalInvocationId` and `WorkgroupId` inputs, begins `main` and its first
    /// block and loads their x components: (function, global x, workgroup x). Buffers are
    /// declared before.
    pub(crate) fn begin_main(&mut self) -> (Word, Word, Word) {
        let u = self.b.type_int(32, 0);
        let u3 = self.b.type_vector(u, 3);
        let pin = self.b.type_pointer(None, StorageClass::Input, u3);
        let input = |m: &mut Mod, built_in| {
            let v = m.b.variable(pin, None, StorageClass::Input, None);
            m.b.decorate(v, Decoration::BuiltIn, [Operand::BuiltIn(built_in)]);
            m.iface.push(v);
            v
        };
        let gid = input(self, BuiltIn::GlobalInvocationId);
        let wid = input(self, BuiltIn::WorkgroupId);
        let void = self.b.type_void();
        let fty = self.b.type_function(void, vec![]);
        let f = self
            .b
            .begin_function(void, None, FunctionControl::NONE, fty)
            .unwrap();
        self.b.begin_block(None).unwrap();
        let x = |m: &mut Mod, var| {
            let v3 = m.b.load(u3, None, var, None, []).unwrap();
            m.b.composite_extract(u, None, v3, [0]).unwrap()
        };
        let i = x(self, gid);
        let w = x(self, wid);
        (f, i, w)
    }

    /// Ends `main` (begun by `begin_main`) and assembles the module, 16 invocations a group.
    pub(crate) fn finish(mut self, f: Word) -> Vec<u32> {
        self.b.ret().unwrap();
        self.b.end_function().unwrap();
        self.b
            .entry_point(ExecutionModel::GLCompute, f, "main", self.iface.clone());
        self.b
            .execution_mode(f, ExecutionMode::LocalSize, [16, 1, 1]);
        self.b.module().assemble()
    }

    pub(crate) fn ty(&mut self, t: T) -> Word {
        if t.float {
            self.b.type_float(t.bits, t.encoding)
        } else {
            self.b.type_int(t.bits, u32::from(t.signed))
        }
    }

    pub(crate) fn buffer(&mut self, t: T) -> (Word, u32) {
        let et = self.ty(t);
        let rt = self.b.type_runtime_array(et);
        let st = self.b.type_struct([rt]);
        if !self.decorated.contains(&st) {
            self.decorated.push(st);
            self.b.decorate(
                rt,
                Decoration::ArrayStride,
                [Operand::LiteralBit32(t.bits / 8)],
            );
            self.b.decorate(st, Decoration::Block, []);
            self.b
                .member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        }
        let pt = self.b.type_pointer(None, StorageClass::StorageBuffer, st);
        let v = self.b.variable(pt, None, StorageClass::StorageBuffer, None);
        let binding = self.next;
        self.next += 1;
        self.b
            .decorate(v, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        self.b
            .decorate(v, Decoration::Binding, [Operand::LiteralBit32(binding)]);
        self.iface.push(v);
        (v, binding)
    }

    pub(crate) fn elem_ptr(&mut self, t: T, var: Word, idx: Word) -> Word {
        let et = self.ty(t);
        let pt = self.b.type_pointer(None, StorageClass::StorageBuffer, et);
        let u = self.b.type_int(32, 0);
        let z = self.b.constant_bit32(u, 0);
        self.b.access_chain(pt, None, var, [z, idx]).unwrap()
    }
}

pub(crate) fn bytes_of(vals: &[u64], t: T) -> Vec<u8> {
    vals.iter()
        .flat_map(|v| v.to_le_bytes()[..(t.bits / 8) as usize].to_vec())
        .collect()
}

pub(crate) fn elem(t: T) -> Elem {
    if t.float {
        Elem::Float((t.bits / 8) as usize)
    } else {
        Elem::Int((t.bits / 8) as usize)
    }
}

/// A storage-buffer binding of `t` elements.
pub(crate) fn buffer(t: T, binding: u32, init: Vec<u8>, name: &str) -> Binding {
    Binding {
        binding,
        init,
        elem: elem(t),
        tensor: None,
        name: name.into(),
    }
}

/// Runs `r = op(a, b)` for every pair of edge values of `ta` × `tb` and checks the JIT.
/// `op` emits the instruction(s) given the result type id and the two operands.
pub(crate) fn binary(
    name: &str,
    ta: T,
    tb: T,
    tr: T,
    op: impl Fn(&mut Builder, Word, Word, Word) -> Word,
) {
    binary_of(name, ta, tb, tr, &edges(ta), &edges(tb), op);
}

/// [`binary`] for every pair of `ea` × `eb`.
pub(crate) fn binary_of(
    name: &str,
    ta: T,
    tb: T,
    tr: T,
    ea: &[u64],
    eb: &[u64],
    op: impl Fn(&mut Builder, Word, Word, Word) -> Word,
) {
    let pairs = ea.len() * eb.len();
    let n = pairs.div_ceil(16) * 16;
    let groups = (n / 16) as u32;
    let a: Vec<u64> = (0..n).map(|i| ea[(i / eb.len()) % ea.len()]).collect();
    let bv: Vec<u64> = (0..n).map(|i| eb[i % eb.len()]).collect();
    let mut m = Mod::new();
    for c in [
        Capability::Shader,
        Capability::Int8,
        Capability::Int16,
        Capability::Int64,
        Capability::Float16,
        Capability::Float64,
        Capability::DotProduct,
        Capability::DotProductInputAll,
        Capability::StorageBuffer8BitAccess,
        Capability::StorageBuffer16BitAccess,
        Capability::BFloat16TypeKHR,
        Capability::Float8EXT,
    ] {
        m.b.capability(c);
    }
    m.b.extension("SPV_KHR_integer_dot_product");
    m.b.extension("SPV_KHR_bfloat16");
    m.b.extension("SPV_EXT_float8");
    m.b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let g = m.b.ext_inst_import("GLSL.std.450");
    GLSL.with(|c| c.set(g));
    let (va, ba) = m.buffer(ta);
    let (vb, bb) = m.buffer(tb);
    let (vr, br) = m.buffer(tr);
    let (vu, bu) = m.buffer(tr);
    let (vm, bm) = m.buffer(tr);
    let (f, i, w) = m.begin_main();
    let (ta_id, tb_id, tr_id) = (m.ty(ta), m.ty(tb), m.ty(tr));
    // Both operands varying, both uniform, and a varying `a` with a uniform `b` (the
    // workgroup's: every edge value of `b` is some workgroup's).
    for (ia, ib, out) in [(i, i, vr), (w, w, vu), (i, w, vm)] {
        let pa = m.elem_ptr(ta, va, ia);
        let x = m.b.load(ta_id, None, pa, None, []).unwrap();
        let pb = m.elem_ptr(tb, vb, ib);
        let y = m.b.load(tb_id, None, pb, None, []).unwrap();
        let r = op(&mut m.b, tr_id, x, y);
        let pr = m.elem_ptr(tr, out, i);
        m.b.store(pr, r, None, []).unwrap();
    }
    let words = m.finish(f);
    let rb = t_bytes(tr) * n;
    let case = Case {
        words,
        bindings: vec![
            buffer(ta, ba, bytes_of(&a, ta), "a"),
            buffer(tb, bb, bytes_of(&bv, tb), "b"),
            buffer(tr, br, vec![0xcd; rb], "r (varying)"),
            buffer(tr, bu, vec![0xcd; rb], "u (uniform)"),
            buffer(tr, bm, vec![0xcd; rb], "m (varying by uniform)"),
        ],
        dispatch: [groups, 1, 1],
        summary: name.into(),
    };
    let (verdict, kernel) = check(&case);
    match verdict {
        Verdict::Agree => {}
        v => panic!("{name} {ta:?} {tb:?} -> {tr:?}: {v:?}"),
    }
    let k = kernel.unwrap();
    let (_, callouts) = k.op_counts();
    assert_eq!(
        callouts, 0,
        "{name} {ta:?}: compiled with interpreter callouts"
    );
    let st = k.run_stats();
    assert_eq!(
        (st.callouts, st.hand_backs),
        (0, 0),
        "{name} {ta:?}: ran partly on the interpreter"
    );
}

thread_local! {
    /// The `GLSL.std.450` import of the module being built (for the `op` closures).
    static GLSL: std::cell::Cell<Word> = const { std::cell::Cell::new(0) };
}

pub(crate) fn glsl() -> Word {
    GLSL.with(|c| c.get())
}

pub(crate) fn t_bytes(t: T) -> usize {
    (t.bits / 8) as usize
}

/// A committed SPIR-V file's words (little-endian).
pub(crate) fn spirv_words(spv: &[u8]) -> Vec<u32> {
    spv.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
