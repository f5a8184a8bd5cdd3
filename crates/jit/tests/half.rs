//! The JIT's binary16 arithmetic (`codegen/half.rs`: f32 on vectors with integer-SIMD
//! conversions) against the interpreter's (`tessera_spirv::alu`), bit for bit, NaN payloads
//! included: + − × ÷ min max of every binary16 bit pattern with partners chosen so that each
//! pattern meets zeros, subnormals, normals, infinities and NaNs of both signs.

use tessera_spirv::{BoundResource, Module, Program, Resources};

struct Res(Vec<BoundResource>);

impl Resources for Res {
    fn get(&self, set: u32, binding: u32, index: u32) -> Option<&BoundResource> {
        (set == 0 && index == 0)
            .then(|| self.0.get(binding as usize))
            .flatten()
    }
}

/// Runs the shader over `a`, `b` on the interpreter or the JIT; the six results per element.
fn run(
    program: &Program,
    kernel: Option<&tessera_jit::JitKernel>,
    a: &[u16],
    b: &[u16],
) -> Vec<u16> {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    let mut out = vec![0u16; 6 * a.len()];
    let res = Res(vec![
        BoundResource::Buffer {
            ptr: a.as_mut_ptr().cast(),
            len: 2 * a.len(),
        },
        BoundResource::Buffer {
            ptr: b.as_mut_ptr().cast(),
            len: 2 * b.len(),
        },
        BoundResource::Buffer {
            ptr: out.as_mut_ptr().cast(),
            len: 2 * out.len(),
        },
    ]);
    let groups = [(a.len() / 64) as u32, 1, 1];
    // SAFETY: the three records point at live vectors of the given byte lengths, not otherwise
    // used until the dispatch returns.
    let done = unsafe {
        match kernel {
            Some(k) => program.dispatch_kernel(k, &res, &[], [0; 3], groups, 2, &|| None),
            None => program.dispatch(&res, &[], [0; 3], groups, 2),
        }
    };
    done.unwrap();
    out
}

#[test]
fn binary16_arithmetic_matches_the_interpreter_on_every_pattern() {
    let spv = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../spirv-tests/shaders/f16_binary_ops.spv"
    ))
    .unwrap();
    let module = Module::parse_bytes(&spv).unwrap();
    let program = Program::new(&module, "main", &[]).unwrap();
    let kernel = tessera_jit::compile(&program).unwrap();
    let (native, interpreted) = kernel.op_counts();
    assert_eq!(
        interpreted, 0,
        "binary16 + - * / min max must all be native ({native} native)"
    );
    // Every pattern, against four partner sequences: a fixed odd multiple (a permutation), and
    // every pattern of the special classes in turn.
    let a: Vec<u16> = (0..=u16::MAX).collect();
    let specials: [u16; 16] = [
        0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0x7c00, 0xfc00, 0x7c01,
        0x7e00, 0xfe55, 0x7fff, 0x3555, 0x0200,
    ];
    let partners: [Box<dyn Fn(u16) -> u16>; 4] = [
        Box::new(|i: u16| i.wrapping_mul(40503).wrapping_add(7)),
        Box::new(|i: u16| specials[usize::from(i) % specials.len()]),
        Box::new(|i: u16| i.rotate_left(5) ^ 0x8000),
        Box::new(|i: u16| i ^ 0x0001),
    ];
    for (k, partner) in partners.iter().enumerate() {
        let b: Vec<u16> = a.iter().map(|&i| partner(i)).collect();
        let want = run(&program, None, &a, &b);
        let got = run(&program, Some(&kernel), &a, &b);
        if let Some(i) = (0..want.len()).find(|&i| want[i] != got[i]) {
            let e = i / 6;
            panic!(
                "partner set {k}: op {} of {:#06x}, {:#06x}: JIT {:#06x}, interpreter {:#06x}",
                i % 6,
                a[e],
                b[e],
                got[i],
                want[i]
            );
        }
    }
}
