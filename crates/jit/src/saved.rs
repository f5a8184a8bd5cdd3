//! Kernels kept whole in a code store: the machine code, its relocations and what the code
//! generator said about it (`codegen::Output`), keyed by everything the code generator and
//! Cranelift read ([`key`]). A hit skips both: the module is rebuilt from the bytes (the
//! watchdog poll's trampoline compiled again, the shader's code placed and relocated), so a
//! warm pipeline costs what printing its IR costs instead of a code generation.
//!
//! The key is a SHA-256 of a tag naming this kind of entry, the driver's source fingerprint
//! (`build.rs`: the sources of the code generator, the IR and the kernels, and the lock file
//! that pins Cranelift), whether debug assertions are on, the target ISA with all its flags
//! (the register allocator and the CPU's features among them), and the debug form of the
//! program's IR, lane-group shape and register-file layout: all the code generator reads of a
//! program ([`ProgramDigest`]). Entries live beside Cranelift's ([`crate::cache`]) in the same
//! stores, sealed the same way; a damaged one is a miss.
//!
//! The payload ([`Fresh::encode`]) holds integers and bytes only: the ops compiled code hands
//! to Rust are named by their place in the IR, tensor sites by their place among the IR's
//! tensor operands, relocations by kind and target (the poll trampoline, or a library call by
//! name). A kernel that names anything else (an op the code generator made up, another
//! relocation) is not kept. [`decode`] checks every count, index and relocation against the
//! program and the code; anything out of place is a miss.
//!
//! Invariants: the key covers every input of `codegen::build` and of Cranelift's compile; a
//! decoded kernel has the `Output` the code generator gave with the code it holds; compiled
//! code holds no address of this process as a constant (callbacks and tables are read from
//! `Ctx`), since another process runs it. The `kept::` tests of `spirv-tests` run every case
//! from a cache filled by another process.

use cranelift_codegen::binemit::Reloc;
use cranelift_codegen::ir::LibCall;
use cranelift_codegen::isa::TargetIsa;
use cranelift_module::{FuncId, ModuleReloc, ModuleRelocTarget};
use sha2::{Digest, Sha256};
use tessera_spirv::Program;
use tessera_spirv::ir::{Ir, Op, TensorAcc};

use crate::cache::CodeKey;
use crate::codegen::{Output, Sites};

include!(concat!(env!("OUT_DIR"), "/fingerprint.rs"));

/// The layout of a payload; a change makes old entries misses.
const PAYLOAD: u32 = 1;

/// Relocation kinds a payload may name, by index.
const RELOCS: [Reloc; 6] = [
    Reloc::Abs4,
    Reloc::Abs8,
    Reloc::X86PCRel4,
    Reloc::X86CallPCRel4,
    Reloc::X86CallPLTRel4,
    Reloc::X86GOTPCRel4,
];

/// Bytes a relocation of `kind` patches.
fn reloc_bytes(kind: Reloc) -> usize {
    if kind == Reloc::Abs8 { 8 } else { 4 }
}

/// Lengths above this in a payload are damage, not data.
const MAX_COUNT: usize = 1 << 28;

/// SHA-256 of a program's part of the key (see the module docs).
pub(crate) struct ProgramDigest([u8; 32]);

/// `fmt::Write` into a hasher, so a debug form is hashed without being kept.
struct HashWriter<'a>(&'a mut Sha256);

impl std::fmt::Write for HashWriter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.update(s.as_bytes());
        Ok(())
    }
}

impl ProgramDigest {
    pub(crate) fn of(program: &Program) -> ProgramDigest {
        use std::fmt::Write;
        let mut hasher = Sha256::new();
        let mut out = HashWriter(&mut hasher);
        // Writing into a hasher cannot fail.
        let _ = write!(
            out,
            "{:?}\n{:?}\n{:?}",
            program.ir(),
            program.group_shape(),
            program.reg_layout()
        );
        ProgramDigest(hasher.finalize().into())
    }
}

/// The key of `program`'s kernel (its digest) compiled by `isa` (see the module docs).
pub(crate) fn key(program: &ProgramDigest, isa: &dyn TargetIsa) -> CodeKey {
    let mut hasher = Sha256::new();
    hasher.update(b"tessera whole kernel\0");
    hasher.update(SOURCE_FINGERPRINT);
    hasher.update([u8::from(cfg!(debug_assertions))]);
    hasher.update(isa.triple().to_string().as_bytes());
    hasher.update(isa.flags().to_string().as_bytes());
    for flag in isa.isa_flags() {
        hasher.update(flag.to_string().as_bytes());
        hasher.update(b"\n");
    }
    hasher.update(program.0);
    hasher.finalize().into()
}

/// A compile's machine code as it came from Cranelift, ready to be kept.
pub(crate) struct Fresh {
    pub(crate) code: Vec<u8>,
    pub(crate) alignment: u64,
    pub(crate) relocs: Vec<ModuleReloc>,
    /// The frame below the frame pointer, in bytes.
    pub(crate) frame: u64,
    /// The poll trampoline's function in the module the code was made in.
    pub(crate) poll: FuncId,
}

/// A kernel read back from a payload.
pub(crate) struct Decoded {
    pub(crate) code: Vec<u8>,
    pub(crate) alignment: u64,
    /// Relocations, their poll-trampoline targets pointing at `poll` as [`decode`] was told.
    pub(crate) relocs: Vec<ModuleReloc>,
    pub(crate) frame: u64,
    pub(crate) improvable: bool,
    pub(crate) out: Output,
}

/// Little-endian bytes, written in order.
#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn count(&mut self, n: usize) -> Option<()> {
        self.u32(u32::try_from(n).ok()?);
        Some(())
    }
    fn bytes(&mut self, b: &[u8]) -> Option<()> {
        self.count(b.len())?;
        self.0.extend_from_slice(b);
        Some(())
    }
}

/// Little-endian bytes, read in order; `None` past the end.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.bytes.split_at_checked(n)?;
        self.bytes = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn bool(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn count(&mut self) -> Option<usize> {
        let n = self.u32()? as usize;
        (n <= MAX_COUNT).then_some(n)
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.count()?;
        self.take(n)
    }
}

/// Where `op` sits in `ir`: (block, index) of the first op equal to it.
fn op_place(ir: &Ir, op: &Op) -> Option<(u32, u32)> {
    ir.blocks.iter().enumerate().find_map(|(b, block)| {
        let i = block.ops.iter().position(|o| o == op)?;
        Some((u32::try_from(b).ok()?, u32::try_from(i).ok()?))
    })
}

/// Every tensor operand of `ir`'s ops, in program order.
fn tensor_operands(ir: &Ir) -> Vec<TensorAcc> {
    let mut all = Vec::new();
    for block in &ir.blocks {
        for op in &block.ops {
            op.for_each_tensor(&mut |t| all.push(*t));
        }
    }
    all
}

fn write_ops(w: &mut Writer, ir: &Ir, ops: &[Op]) -> Option<()> {
    w.count(ops.len())?;
    for op in ops {
        let (block, index) = op_place(ir, op)?;
        w.u32(block);
        w.u32(index);
    }
    Some(())
}

fn read_ops(r: &mut Reader<'_>, ir: &Ir) -> Option<Vec<Op>> {
    let n = r.count()?;
    (0..n)
        .map(|_| {
            let (block, index) = (r.u32()?, r.u32()?);
            ir.blocks
                .get(block as usize)?
                .ops
                .get(index as usize)
                .cloned()
        })
        .collect()
}

fn write_tensors(w: &mut Writer, all: &[TensorAcc], sites: &[TensorAcc]) -> Option<()> {
    w.count(sites.len())?;
    for t in sites {
        w.u32(u32::try_from(all.iter().position(|a| a == t)?).ok()?);
    }
    Some(())
}

fn read_tensors(r: &mut Reader<'_>, all: &[TensorAcc]) -> Option<Vec<TensorAcc>> {
    let n = r.count()?;
    (0..n)
        .map(|_| all.get(r.u32()? as usize).copied())
        .collect()
}

impl Fresh {
    /// The payload of the kernel `out` describes, compiled from `program` to this code, or
    /// `None` when it names something a payload cannot (see the module docs).
    pub(crate) fn encode(
        &self,
        program: &Program,
        out: &Output,
        improvable: bool,
    ) -> Option<Vec<u8>> {
        let ir = program.ir();
        let mut w = Writer::default();
        w.u32(PAYLOAD);
        w.u8(u8::from(improvable));
        w.u64(self.frame);
        w.u64(self.alignment);
        w.bytes(&self.code)?;
        w.count(self.relocs.len())?;
        for reloc in &self.relocs {
            let kind = RELOCS.iter().position(|&k| k == reloc.kind)?;
            w.u32(reloc.offset);
            w.u8(kind as u8);
            w.u64(reloc.addend as u64);
            match &reloc.name {
                ModuleRelocTarget::User {
                    namespace: 0,
                    index,
                } if *index == self.poll.as_u32() => {
                    w.u8(0);
                }
                ModuleRelocTarget::LibCall(call) => {
                    w.u8(1);
                    w.bytes(call.to_string().as_bytes())?;
                }
                _ => return None,
            }
        }
        // Every field, so that a new one cannot be forgotten here.
        let Output {
            sites:
                Sites {
                    buffers,
                    tensors,
                    dynamic,
                },
            callouts,
            natives,
            has_sync,
            guarded,
            has_guard,
            wg_size,
            builtin_rows,
            native_ops,
            barrier_jumps,
            batched,
            matrix_fusions,
        } = out;
        w.count(buffers.len())?;
        for &(slot, desc) in buffers {
            w.u32(slot);
            w.u32(desc);
        }
        let all = tensor_operands(ir);
        write_tensors(&mut w, &all, tensors)?;
        write_tensors(&mut w, &all, dynamic)?;
        write_ops(&mut w, ir, callouts)?;
        write_ops(&mut w, ir, natives)?;
        w.u8(u8::from(*has_sync));
        w.count(guarded.len())?;
        guarded.iter().for_each(|&g| w.u8(u8::from(g)));
        w.u8(u8::from(*has_guard));
        w.u32(*wg_size);
        w.u8(u8::from(*builtin_rows));
        w.u64(*native_ops as u64);
        w.count(barrier_jumps.len())?;
        for jump in barrier_jumps {
            w.u8(u8::from(jump.is_some()));
            w.u32(jump.unwrap_or(0));
        }
        w.u8(u8::from(*batched));
        matrix_fusions.iter().for_each(|&n| w.u32(n));
        Some(w.0)
    }
}

/// The kernel in `payload`, for `program`, its poll-trampoline relocations aimed at `poll`;
/// `None` for anything that does not check out (see the module docs).
pub(crate) fn decode(program: &Program, payload: &[u8], poll: FuncId) -> Option<Decoded> {
    let ir = program.ir();
    let mut r = Reader { bytes: payload };
    if r.u32()? != PAYLOAD {
        return None;
    }
    let improvable = r.bool()?;
    let frame = r.u64()?;
    let alignment = r.u64()?;
    if !alignment.is_power_of_two() {
        return None;
    }
    let code = r.bytes()?.to_vec();
    let relocs = (0..r.count()?)
        .map(|_| {
            let offset = r.u32()?;
            let kind = *RELOCS.get(r.u8()? as usize)?;
            let addend = r.u64()? as i64;
            let name = match r.u8()? {
                0 => ModuleRelocTarget::user(0, poll.as_u32()),
                1 => {
                    let name = std::str::from_utf8(r.bytes()?).ok()?;
                    ModuleRelocTarget::LibCall(name.parse::<LibCall>().ok()?)
                }
                _ => return None,
            };
            let end = (offset as usize).checked_add(reloc_bytes(kind))?;
            (end <= code.len()).then_some(ModuleReloc {
                offset,
                kind,
                name,
                addend,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let buffers = (0..r.count()?)
        .map(|_| Some((r.u32()?, r.u32()?)))
        .collect::<Option<Vec<_>>>()?;
    let all = tensor_operands(ir);
    let tensors = read_tensors(&mut r, &all)?;
    let dynamic = read_tensors(&mut r, &all)?;
    let callouts = read_ops(&mut r, ir)?;
    let natives = read_ops(&mut r, ir)?;
    let has_sync = r.bool()?;
    let guarded = (0..r.count()?)
        .map(|_| r.bool())
        .collect::<Option<Vec<_>>>()?;
    let has_guard = r.bool()?;
    let wg_size = r.u32()?;
    let builtin_rows = r.bool()?;
    let native_ops = usize::try_from(r.u64()?).ok()?;
    let barrier_jumps = (0..r.count()?)
        .map(|_| {
            let some = r.bool()?;
            let target = r.u32()?;
            Some(some.then_some(target))
        })
        .collect::<Option<Vec<_>>>()?;
    let batched = r.bool()?;
    let matrix_fusions = [r.u32()?, r.u32()?];
    // The block tables index by block; the whole payload is read.
    if guarded.len() != ir.blocks.len() || barrier_jumps.len() != ir.blocks.len() {
        return None;
    }
    if !r.bytes.is_empty() {
        return None;
    }
    Some(Decoded {
        code,
        alignment,
        relocs,
        frame,
        improvable,
        out: Output {
            sites: Sites {
                buffers,
                tensors,
                dynamic,
            },
            callouts,
            natives,
            has_sync,
            guarded,
            has_guard,
            wg_size,
            builtin_rows,
            native_ops,
            barrier_jumps,
            batched,
            matrix_fusions,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_spirv::Module;

    fn program() -> Program {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../spirv-tests/cases/coopmat_muladd/f16_f32_16x16x16.spv"
        );
        let module = Module::parse_bytes(&std::fs::read(path).unwrap()).unwrap();
        Program::new(&module, "main", &[]).unwrap()
    }

    fn fresh() -> Fresh {
        let poll = FuncId::from_u32(0);
        Fresh {
            code: vec![0x90; 64],
            alignment: 16,
            relocs: vec![
                ModuleReloc {
                    offset: 8,
                    kind: Reloc::Abs8,
                    name: ModuleRelocTarget::LibCall(LibCall::FloorF32),
                    addend: 0,
                },
                ModuleReloc {
                    offset: 60,
                    kind: Reloc::X86CallPCRel4,
                    name: ModuleRelocTarget::user(0, poll.as_u32()),
                    addend: -4,
                },
            ],
            frame: 128,
            poll,
        }
    }

    #[test]
    fn a_payload_reads_back_as_it_was_written() {
        let program = program();
        let kernel = crate::compile(&program).unwrap();
        assert!(
            !kernel.out.natives.is_empty(),
            "a program with native calls"
        );
        let fresh = fresh();
        let payload = fresh.encode(&program, &kernel.out, true).unwrap();
        let poll = FuncId::from_u32(3);
        let back = decode(&program, &payload, poll).unwrap();
        assert_eq!(back.code, fresh.code);
        assert_eq!(
            (back.alignment, back.frame, back.improvable),
            (16, 128, true)
        );
        assert_eq!(format!("{:?}", back.out), format!("{:?}", kernel.out));
        let shown = |r: &ModuleReloc| (r.offset, r.kind, r.name.to_string(), r.addend);
        assert_eq!(shown(&back.relocs[0]), shown(&fresh.relocs[0]));
        assert_eq!(
            back.relocs[1].name.to_string(),
            ModuleRelocTarget::user(0, 3).to_string(),
            "aimed at the new module's trampoline"
        );
    }

    #[test]
    fn damaged_payloads_do_not_decode() {
        let program = program();
        let kernel = crate::compile(&program).unwrap();
        let payload = fresh().encode(&program, &kernel.out, false).unwrap();
        let poll = FuncId::from_u32(0);
        for len in 0..payload.len() {
            assert!(
                decode(&program, &payload[..len], poll).is_none(),
                "cut at {len}"
            );
        }
        let mut longer = payload.clone();
        longer.push(0);
        assert!(decode(&program, &longer, poll).is_none(), "a byte too many");
        // A relocation past the end of the code.
        let mut past = fresh();
        past.relocs[0].offset = 60;
        let payload = past.encode(&program, &kernel.out, false).unwrap();
        assert!(decode(&program, &payload, poll).is_none());
    }

    #[test]
    fn what_a_payload_cannot_name_is_not_kept() {
        let program = program();
        let mut kernel = crate::compile(&program).unwrap();
        // A relocation to another function.
        let mut other = fresh();
        other.relocs[1].name = ModuleRelocTarget::user(0, 7);
        assert!(other.encode(&program, &kernel.out, false).is_none());
        // An op that is nowhere in the IR.
        kernel.out.callouts.push(Op::Barrier {});
        assert!(fresh().encode(&program, &kernel.out, false).is_none());
    }

    #[test]
    fn keys_differ_by_program_and_allocator() {
        let program = program();
        let digest = ProgramDigest::of(&program);
        let single = crate::target_isa(crate::RegisterAllocator::SinglePass).unwrap();
        let backtracking = crate::target_isa(crate::RegisterAllocator::Backtracking).unwrap();
        assert_eq!(
            key(&digest, &*single),
            key(&ProgramDigest::of(&program), &*single)
        );
        assert_ne!(key(&digest, &*single), key(&digest, &*backtracking));
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../spirv-tests/cases/coopmat_muladd/f16_f16_16x16x16.spv"
        );
        let module = Module::parse_bytes(&std::fs::read(path).unwrap()).unwrap();
        let other = Program::new(&module, "main", &[]).unwrap();
        assert_ne!(
            key(&digest, &*single),
            key(&ProgramDigest::of(&other), &*single)
        );
    }
}
