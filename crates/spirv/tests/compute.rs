//! Compute-shader behaviour a corpus case cannot express: what a program reports about itself
//! (resources, workgroup size with and without specialization, push-constant size), the API
//! types' thread safety, and the dispatch watchdog. The value checks of these shaders are cases in
//! `spirv-tests/cases` (`spec_workgroup_size`, `push_block`, `shared_reverse_and_sum`,
//! `builtins_dispatch_base`, `ubo_std140_glsl_ops`, …).
mod common;
use common::*;
use tessera_spirv::{ResourceDecl, ResourceKind};

#[test]
fn spec_constants_set_the_workgroup_size() {
    let p = program("cases/spec_workgroup_size/shader.spv", &[]);
    assert_eq!(p.local_size(), [1, 1, 1]);
    let spec = vec![
        (0, 4u32.to_le_bytes().to_vec()),
        (1, 10i32.to_le_bytes().to_vec()),
        (2, 1u32.to_le_bytes().to_vec()),
    ];
    let p = program("cases/spec_workgroup_size/shader.spv", &spec);
    assert_eq!(p.local_size(), [4, 1, 1]);
}

#[test]
fn push_constant_size_is_reported() {
    let p = program("cases/push_block/shader.spv", &[]);
    assert_eq!(p.push_constant_size(), 16);
}

#[test]
fn resources_are_reported() {
    let p = program("cases/shared_reverse_and_sum/shader.spv", &[]);
    let mut res = p.resources().to_vec();
    res.sort_by_key(|r| r.binding);
    let sb = |binding| ResourceDecl {
        set: 0,
        binding,
        kind: ResourceKind::StorageBuffer,
        array_len: None,
    };
    assert_eq!(res, vec![sb(0), sb(1), sb(2)]);
    assert_eq!(p.local_size(), [64, 1, 1]);
    assert_eq!(p.push_constant_size(), 0);
}

#[test]
fn builtins_workgroup_size_is_reported() {
    let p = program("cases/builtins_dispatch_base/shader.spv", &[]);
    assert_eq!(p.local_size(), [2, 3, 2]);
}

#[test]
fn uniform_buffers_are_reported() {
    let p = program("cases/ubo_std140_glsl_ops/shader.spv", &[]);
    let kinds: Vec<_> = p
        .resources()
        .iter()
        .map(|r| (r.binding, r.kind.clone()))
        .collect();
    assert!(
        kinds.contains(&(0, ResourceKind::UniformBuffer)),
        "{kinds:?}"
    );
}

#[test]
fn api_types_are_send_and_sync() {
    fn check<T: Send + Sync + std::fmt::Debug>() {}
    check::<tessera_spirv::Module>();
    check::<tessera_spirv::Program>();
    check::<tessera_spirv::BoundResource>();
    check::<tessera_spirv::SpirvError>();
}

/// A shader that never terminates is stopped by the dispatch's watchdog, on one thread and on
/// several, and the watchdog's reason comes back as the error; the same shader with its exit
/// condition met finishes normally under the same watchdog.
#[test]
fn watchdog_stops_a_shader_that_never_terminates() {
    use std::sync::atomic::{AtomicU32, Ordering};
    let p = program("shaders/forever.spv", &[]);
    for threads in [1, 2] {
        let mut v = u32s(&[0; 1 + 16]);
        let mut res = Res::default();
        res.buf(0, &mut v);
        let calls = AtomicU32::new(0);
        let stop =
            || (calls.fetch_add(1, Ordering::Relaxed) >= 3).then(|| "took too long".to_string());
        // SAFETY: `v` outlives the call and nothing else touches it.
        let e = unsafe { p.dispatch_watched(&res, &[], [0; 3], [4, 1, 1], threads, &stop) }
            .expect_err("an endless loop must be stopped");
        assert!(e.to_string().contains("took too long"), "{e}");
        assert!(to_u32(&v)[1..].iter().any(|&n| n > 0), "the loop ran");
    }
    let mut v = u32s(&[12345; 1 + 16]);
    let mut res = Res::default();
    res.buf(0, &mut v);
    let stop = || Some("stopped".to_string());
    // SAFETY: as above.
    unsafe { p.dispatch_watched(&res, &[], [0; 3], [4, 1, 1], 1, &stop) }
        .expect("a short dispatch never reaches a watchdog check");
    // Many short workgroups: the check counts blocks across groups, so the dispatch is stopped.
    // SAFETY: as above.
    let e = unsafe { p.dispatch_watched(&res, &[], [0; 3], [100_000, 1, 1], 1, &stop) }
        .expect_err("a long dispatch of short groups is watched too");
    assert!(e.to_string().contains("stopped"), "{e}");
}
