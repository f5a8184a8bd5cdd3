//! Malformed or unsupported SPIR-V must produce a `SpirvError`, never a panic. The modules are
//! corrupted copies of shaders from the spirv-tests corpus.
#![allow(clippy::needless_range_loop)]
mod common;
use common::*;
use tessera_spirv::{Module, Program, SpirvError};

const ARITH: &str = "cases/arith_i32/shader.spv";

fn compile(words: &[u32]) -> Result<Program, SpirvError> {
    let m = Module::parse(words)?;
    Program::new(&m, "main", &[])
}

/// Word offsets of every instruction with `opcode`.
fn find(words: &[u32], opcode: u32) -> Vec<usize> {
    let mut at = 5;
    let mut out = Vec::new();
    while at < words.len() {
        let wc = (words[at] >> 16) as usize;
        if words[at] & 0xffff == opcode {
            out.push(at);
        }
        at += wc.max(1);
    }
    out
}

#[test]
fn truncated_modules() {
    let w = words(ARITH);
    for cut in [0, 1, 4, 5, 6, 7, w.len() / 3, w.len() / 2, w.len() - 1] {
        let e = compile(&w[..cut]);
        assert!(e.is_err(), "cut at {cut} should fail");
    }
    let at = find(&w, 128)[0];
    let e = Module::parse(&w[..at + 2]).unwrap_err().to_string();
    assert!(e.contains("truncated"), "{e}");
}

#[test]
fn bad_id() {
    let mut w = words(ARITH);
    let at = find(&w, 128)[0]; // OpIAdd: result type, result, a, b
    w[at + 3] = 0xFFFF;
    let e = compile(&w).unwrap_err().to_string();
    assert!(e.contains("%65535"), "{e}");
    assert!(e.contains("OpIAdd"), "{e}");
}

#[test]
fn unknown_opcode() {
    let mut w = words(ARITH);
    let at = find(&w, 128)[0];
    w[at] = (w[at] & 0xffff_0000) | 0x7ff0;
    let e = compile(&w).unwrap_err().to_string();
    assert!(e.to_lowercase().contains("opcode"), "{e}");
}

#[test]
fn unsupported_capability_and_instruction() {
    let mut w = words(ARITH);
    let at = find(&w, 17)[0]; // OpCapability Shader
    w[at + 1] = 2; // Geometry
    let e = compile(&w).unwrap_err().to_string();
    assert!(e.contains("Geometry"), "{e}");

    // A valid opcode we do not implement (OpImageSampleImplicitLod = 87, same word count as
    // OpIAdd) in place of an OpIAdd.
    let mut w = words(ARITH);
    let at = find(&w, 128)[0];
    w[at] = (5 << 16) | 87;
    let e = compile(&w).unwrap_err().to_string();
    assert!(
        e.contains("unsupported") && e.contains("ImageSampleImplicitLod"),
        "{e}"
    );
}

#[test]
fn unranked_tensor_access_is_rejected() {
    // tensor_add with its OpTypeTensorARM (4163) rewritten to drop the Rank operand.
    let mut w = words("shaders/tensor_add.spv");
    let at = find(&w, 4163)[0];
    assert_eq!(w[at] >> 16, 4, "ranked type expected");
    w[at] = (3 << 16) | 4163;
    w.remove(at + 3);
    let e = compile(&w).unwrap_err().to_string();
    assert!(e.contains("need an OpTypeTensorARM with a Rank"), "{e}");
}

#[test]
fn missing_entry_point() {
    let m = Module::parse(&words(ARITH)).unwrap();
    assert_eq!(m.entry_points(), vec![("main".to_string(), true)]);
    assert!(Program::new(&m, "nope", &[]).is_err());
}

#[test]
fn random_mutations_never_panic() {
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    for name in [
        ARITH,
        "cases/control_flow_phi/opt.spv",
        "cases/tensor_read/i32_r3.spv",
        "cases/tensor_array_straddle/u8_n3.spv",
        "cases/shared_reverse_and_sum/shader.spv",
        "cases/spec_workgroup_size/shader.spv",
    ] {
        let base = words(name);
        for _ in 0..400 {
            let mut w = base.clone();
            for _ in 0..1 + rng.next() % 3 {
                let i = 5 + (rng.next() as usize) % (w.len() - 5);
                w[i] = match rng.next() % 4 {
                    0 => rng.next() as u32,
                    1 => w[i] ^ (1 << (rng.next() % 32)),
                    2 => w[i].wrapping_add(1),
                    _ => (rng.next() % 200) as u32,
                };
            }
            if let Err(e) = compile(&w) {
                assert!(!e.to_string().contains("internal error"), "{name}: {e}");
            }
        }
    }
}

#[test]
fn rejects_non_subgroup_scope() {
    const OP_CONSTANT: u32 = 43;
    const OP_GROUP_NON_UNIFORM_IADD: u32 = 349;
    let mut w = words("cases/sg_tiny/shader.spv");
    let iadd = find(&w, OP_GROUP_NON_UNIFORM_IADD)[0];
    let scope = w[iadd + 3];
    let consts = find(&w, OP_CONSTANT);
    let ty = consts
        .iter()
        .find(|&&c| w[c + 2] == scope)
        .map(|&c| w[c + 1]);
    // The `2u` constant of the scope's type: Workgroup scope.
    let two = consts
        .iter()
        .find(|&&c| Some(w[c + 1]) == ty && w[c + 3] == 2)
        .map(|&c| w[c + 2])
        .expect("a 2u constant");
    w[iadd + 3] = two;
    let m = Module::parse(&w).unwrap();
    let e = Program::new(&m, "main", &[]).unwrap_err();
    assert!(e.message().contains("Subgroup scope"), "{e}");
}

const PSB: &str = "cases/psb_ptr_access_chain_asm/shader.spv";

#[test]
fn physical_pointer_rules() {
    let w = words(PSB);
    assert!(compile(&w).is_ok());
    // OpPtrAccessChain needs an ArrayStride on its base's pointer type: turn every ArrayStride
    // (decoration 6) into an Alignment (44), which takes one literal too.
    let mut no_stride = w.clone();
    for at in find(&w, 71) {
        if no_stride[at + 2] == 6 {
            no_stride[at + 2] = 44;
        }
    }
    let e = compile(&no_stride).unwrap_err().to_string();
    assert!(e.contains("ArrayStride"), "{e}");
    // Only PhysicalStorageBuffer pointers can be forward-declared (StorageBuffer = 12).
    let mut fwd = w.clone();
    let at = find(&w, 39)[0];
    fwd[at + 2] = 12;
    let e = compile(&fwd).unwrap_err().to_string();
    assert!(e.contains("OpTypeForwardPointer"), "{e}");
    // Physical64 addressing (2) is not PhysicalStorageBuffer64.
    let mut model = w.clone();
    let at = find(&w, 14)[0];
    model[at + 1] = 2;
    let e = compile(&model).unwrap_err().to_string();
    assert!(e.contains("addressing model"), "{e}");
}

#[test]
fn directed_roundings_other_than_rtz() {
    const OP_DECORATE: u32 = 71;
    const FP_ROUNDING_MODE: u32 = 39;
    let w = words("shaders/f32_to_f16_rounding.spv");
    assert!(compile(&w).is_ok());
    let at = find(&w, OP_DECORATE)
        .into_iter()
        .find(|&at| w[at + 2] == FP_ROUNDING_MODE && w[at + 3] == 1)
        .expect("an FPRoundingMode RTZ decoration");
    for (mode, name) in [(2, "RTP"), (3, "RTN")] {
        let mut bad = w.clone();
        bad[at + 3] = mode;
        let e = compile(&bad).unwrap_err().to_string();
        assert!(e.contains(name), "{e}");
        assert!(
            e.contains("VUID-StandaloneSpirv-FPRoundingMode-04675"),
            "{e}"
        );
    }
}

#[test]
fn variable_pointers_need_their_capability() {
    const OP_CAPABILITY: u32 = 17;
    const VARIABLE_POINTERS: u32 = 4442;
    const VARIABLE_POINTERS_STORAGE_BUFFER: u32 = 4441;
    const SHADER: u32 = 1;
    let w = words("cases/variable_pointers_asm/shader.spv");
    assert!(compile(&w).is_ok());
    let at = find(&w, OP_CAPABILITY)
        .into_iter()
        .find(|&at| w[at + 1] == VARIABLE_POINTERS)
        .expect("OpCapability VariablePointers");
    // Without any: a storage-buffer pointer is no value to select.
    let mut none = w.clone();
    none[at + 1] = SHADER;
    let e = compile(&none).unwrap_err().to_string();
    assert!(e.contains("OpPhi") && e.contains("VariablePointers"), "{e}");
    // Storage buffers only: the workgroup pointers are not values either.
    let mut buffers = w.clone();
    buffers[at + 1] = VARIABLE_POINTERS_STORAGE_BUFFER;
    let e = compile(&buffers).unwrap_err().to_string();
    assert!(e.contains("OpSelect") && e.contains("Workgroup"), "{e}");
}
