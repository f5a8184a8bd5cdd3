//! The watchdog stops compiled code that never ends: a loop (polled on its back edge) and a loop
//! of barriers (barrier rounds, polled once a round), on one worker and on two; the same shaders
//! with their exit condition met finish under the same watchdog.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::{Binding, Case, Elem, dispatch_watched};
use tessera_spirv::{Module, Program};

fn words(spv: &[u8]) -> Vec<u32> {
    spv.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn stops(name: &str, spv: &[u8], groups: u32, lanes: usize) {
    let module = Module::parse(&words(spv)).expect("parse");
    let program = Program::new(&module, "main", &[]).expect("lower");
    let kernel = tessera_jit::compile(&program).expect("compile");
    let case = |first: u32| Case {
        words: Vec::new(),
        bindings: vec![Binding {
            binding: 0,
            init: std::iter::once(first)
                .chain(std::iter::repeat_n(0, lanes))
                .flat_map(u32::to_le_bytes)
                .collect(),
            elem: Elem::Int(4),
            tensor: None,
            name: "v".into(),
        }],
        dispatch: [groups, 1, 1],
        summary: name.into(),
    };
    for threads in [1, 2] {
        let calls = AtomicU32::new(0);
        let stop =
            || (calls.fetch_add(1, Ordering::Relaxed) >= 3).then(|| "took too long".to_string());
        let e = dispatch_watched(&case(0), &program, Some(&kernel), threads, &stop)
            .expect_err("an endless loop must be stopped");
        assert!(e.contains("took too long"), "{name}: {e}");
    }
    let done = dispatch_watched(&case(12345), &program, Some(&kernel), 1, &|| {
        Some("stopped".to_string())
    });
    assert!(done.is_ok(), "{name}: {done:?}");
}

#[test]
fn endless_loop_is_stopped() {
    stops(
        "forever",
        include_bytes!("../../../spirv-tests/shaders/forever.spv"),
        4,
        16,
    );
}

#[test]
fn endless_barrier_rounds_are_stopped() {
    stops(
        "forever_barrier",
        include_bytes!("../../../spirv-tests/shaders/forever_barrier.spv"),
        2,
        128,
    );
}
