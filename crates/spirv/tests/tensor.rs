//! SPV_ARM_tensors behaviour a corpus case cannot express: mismatched views and null
//! descriptors, a tensor whose strides point past its memory, size queries on tensors too large
//! to keep as case data, the optimiser variant of a CTS-sized read, and what programs report
//! about tensor resources. The value checks of these shaders are cases in `spirv-tests/cases`
//! (`tensor_read`, `tensor_write`, `tensor_query`, `tensor_array_nonuniform`,
//! `tensor_bf16_fp8_rw`, …).
#![allow(clippy::needless_range_loop)]
mod common;
use common::*;
use tessera_spirv::{BoundResource, ResourceKind, ScalarType, TensorElement as TE};

fn value(i: u64) -> u64 {
    (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5555) & 0xFFFF_FFFF
}

/// `spirv-opt -O` of `tensor_read` at rank 4 (SSA, phi-heavy) on a padded CTS-sized tensor (its
/// data, 1 MB, is not kept as a case).
#[test]
fn optimised_read_rank4_cts_sized() {
    let p = program("cases/tensor_read/i32_r4_opt.spv", &[]);
    let dims = [13u64, 17, 19, 23];
    let strides = padded(&dims, 4);
    let n: u64 = dims.iter().product();
    let mut tb = vec![0xA5u8; span(&dims, &strides, 4)];
    for i in 0..n {
        put_le(&mut tb, offset_of(i, &dims, &strides), 4, value(i));
    }
    let mut ob = vec![0u8; n as usize * 4];
    let mut r = Res::default();
    r.tensor(0, &mut tb, TE::I32, &dims, &strides)
        .buf(1, &mut ob);
    run(&p, &r, &dims_push(&dims), [n as u32, 1, 1], 2);
    for i in 0..n {
        assert_eq!(get_le(&ob, i as usize * 4, 4), value(i), "element {i}");
    }
}

/// Dims `i * 3 + 2` (the rank-8 tensor spans 385 MB, never touched: too large for a case, which
/// queries dims `i + 2`).
#[test]
fn query_ranks_1_to_8() {
    for rank in 1..=8usize {
        let p = program(&format!("cases/tensor_query/r{rank}.spv"), &[]);
        let dims: Vec<u64> = (0..rank as u64).map(|i| i * 3 + 2).collect();
        let strides = packed(&dims, 4);
        let mut tb = vec![0u8; span(&dims, &strides, 4)];
        let mut ob = vec![0u8; 32];
        let mut r = Res::default();
        r.tensor(0, &mut tb, TE::I32, &dims, &strides)
            .buf(1, &mut ob);
        run(&p, &r, &[], [1, 1, 1], 1);
        let o = to_u32(&ob);
        for i in 0..rank {
            assert_eq!(u64::from(o[i]), dims[i], "rank {rank} dim {i}");
        }
        assert_eq!(
            p.resources()
                .iter()
                .find(|d| d.binding == 0)
                .map(|d| d.kind.clone()),
            Some(ResourceKind::Tensor {
                rank: Some(rank as u32),
                element: ScalarType::I32
            })
        );
    }
}

#[test]
fn mismatched_views_and_null_descriptors_read_zero_and_drop_writes() {
    let p = program("cases/tensor_read/i32_r3.spv", &[]);
    let dims = [2u64, 3, 4];
    let n = 24u32;
    // Wrong format (u8 view for an int tensor), wrong rank, null descriptor.
    let mut tb = vec![9u8; 4 * 24];
    let cases: Vec<BoundResource> = vec![
        BoundResource::Tensor {
            ptr: tb.as_mut_ptr(),
            len: tb.len(),
            format: TE::U8,
            dims: dims.to_vec(),
            strides: packed(&dims, 1),
        },
        BoundResource::Tensor {
            ptr: tb.as_mut_ptr(),
            len: tb.len(),
            format: TE::I32,
            dims: vec![24],
            strides: vec![4],
        },
        BoundResource::Tensor {
            ptr: tb.as_mut_ptr(),
            len: tb.len(),
            format: TE::I32,
            dims: dims.to_vec(),
            strides: vec![4],
        },
        BoundResource::Null,
    ];
    for (k, t) in cases.into_iter().enumerate() {
        let mut ob = vec![0xFFu8; n as usize * 4];
        let mut r = Res::default();
        r.0.insert((0, 0, 0), t);
        r.buf(1, &mut ob);
        run(&p, &r, &dims_push(&dims), [n, 1, 1], 1);
        assert!(ob.iter().all(|&b| b == 0), "case {k}");
    }
    // A tensor whose strides point past `len` reads zero instead of faulting.
    let mut small = vec![1u8; 16];
    let mut ob = vec![0xFFu8; n as usize * 4];
    let mut r = Res::default();
    r.tensor(0, &mut small, TE::I32, &dims, &packed(&dims, 4))
        .buf(1, &mut ob);
    run(&p, &r, &dims_push(&dims), [n, 1, 1], 1);
    let o = to_u32(&ob);
    assert_eq!(&o[..4], &[0x01010101; 4]);
    assert!(o[4..].iter().all(|&x| x == 0));
}

#[test]
fn arrays_of_tensors_are_reported() {
    let p = program("cases/tensor_array_nonuniform/shader.spv", &[]);
    assert_eq!(
        p.resources()
            .iter()
            .find(|d| d.binding == 0)
            .map(|d| d.array_len),
        Some(Some(3))
    );
}

#[test]
fn float8_tensors_are_reported() {
    let p = program("cases/tensor_bf16_fp8_rw/shader.spv", &[]);
    let kinds: Vec<_> = p
        .resources()
        .iter()
        .map(|r| (r.binding, r.kind.clone()))
        .collect();
    assert!(
        kinds.contains(&(
            1,
            ResourceKind::Tensor {
                rank: Some(1),
                element: ScalarType::F8E4M3
            }
        )),
        "{kinds:?}"
    );
}
