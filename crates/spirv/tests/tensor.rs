//! SPV_ARM_tensors: reads, writes and size queries on packed and padded strides, ranks 1..8,
//! element types, out-of-bounds behaviour, array accesses, bool tensors, mismatched views and
//! a CTS-sized dispatch of 96 577 one-invocation workgroups.
#![allow(clippy::needless_range_loop)]
mod common;
use common::*;
use tessera_spirv::{BoundResource, ResourceKind, ScalarType, TensorElement as TE};

fn fmt_of(t: &str) -> (TE, usize) {
    match t {
        "i8" => (TE::I8, 1),
        "u8" => (TE::U8, 1),
        "i16" => (TE::I16, 2),
        "u16" => (TE::U16, 2),
        "i32" => (TE::I32, 4),
        "u32" => (TE::U32, 4),
        "i64" => (TE::I64, 8),
        "u64" => (TE::U64, 8),
        "f16" => (TE::F16, 2),
        "f32" => (TE::F32, 4),
        _ => unreachable!(),
    }
}

fn value(i: u64, size: usize) -> u64 {
    let v = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5555;
    if size == 8 {
        v
    } else {
        v & ((1u64 << (size * 8)) - 1)
    }
}

fn read_case(spv: &str, ty: &str, dims: &[u64], pad: bool, threads: usize) {
    let p = program(spv, &[]);
    let (fmt, es) = fmt_of(ty);
    let strides = if pad {
        padded(dims, es as u64)
    } else {
        packed(dims, es as u64)
    };
    let n: u64 = dims.iter().product();
    let mut tb = vec![0xA5u8; span(dims, &strides, es as u64)];
    for i in 0..n {
        put_le(&mut tb, offset_of(i, dims, &strides), es, value(i, es));
    }
    let mut ob = vec![0u8; n as usize * es];
    let mut r = Res::default();
    r.tensor(0, &mut tb, fmt, dims, &strides).buf(1, &mut ob);
    run(&p, &r, &dims_push(dims), [n as u32, 1, 1], threads);
    for i in 0..n {
        assert_eq!(
            get_le(&ob, i as usize * es, es),
            value(i, es),
            "{spv} dims {dims:?} pad {pad} element {i}"
        );
    }
}

fn write_case(spv: &str, ty: &str, dims: &[u64], pad: bool) {
    let p = program(spv, &[]);
    let (fmt, es) = fmt_of(ty);
    let strides = if pad {
        padded(dims, es as u64)
    } else {
        packed(dims, es as u64)
    };
    let n: u64 = dims.iter().product();
    let mut tb = vec![0xA5u8; span(dims, &strides, es as u64)];
    let mut ib = vec![0u8; n as usize * es];
    for i in 0..n {
        put_le(&mut ib, i as usize * es, es, value(i, es));
    }
    let mut r = Res::default();
    r.tensor(0, &mut tb, fmt, dims, &strides).buf(1, &mut ib);
    run(&p, &r, &dims_push(dims), [n as u32, 1, 1], 2);
    let mut expect = vec![0xA5u8; tb.len()];
    for i in 0..n {
        put_le(&mut expect, offset_of(i, dims, &strides), es, value(i, es));
    }
    assert!(tb == expect, "{spv} dims {dims:?} pad {pad}");
}

const TYPES: [&str; 10] = [
    "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "f32",
];
const DIMS: [u64; 8] = [3, 2, 5, 1, 2, 3, 2, 4];

#[test]
fn read_all_types_rank3_packed_and_padded() {
    for ty in TYPES {
        for pad in [false, true] {
            read_case(&format!("tensor_read_{ty}_r3"), ty, &[5, 7, 9], pad, 2);
        }
    }
}

#[test]
fn write_all_types_rank3_packed_and_padded() {
    for ty in TYPES {
        for pad in [false, true] {
            write_case(&format!("tensor_write_{ty}_r3"), ty, &[5, 7, 9], pad);
        }
    }
}

#[test]
fn read_write_ranks_1_to_8() {
    for rank in 1..=8usize {
        let dims = &DIMS[..rank];
        for pad in [false, true] {
            read_case(&format!("tensor_read_i32_r{rank}"), "i32", dims, pad, 1);
            write_case(&format!("tensor_write_i32_r{rank}"), "i32", dims, pad);
        }
    }
    // Optimised (SSA, phi-heavy) variant of the same shader.
    read_case("tensor_read_i32_r4_opt", "i32", &[13, 17, 19, 23], true, 2);
    // The same as a SPIR-V 1.0 module (what the CTS feeds the driver).
    read_case(
        "tensor_read_i32_r4_spv10",
        "i32",
        &[13, 17, 19, 23],
        false,
        2,
    );
}

#[test]
fn query_ranks_1_to_8() {
    for rank in 1..=8usize {
        let p = program(&format!("tensor_query_r{rank}"), &[]);
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
fn out_of_bounds_reads_and_writes() {
    let p = program("tensor_oob", &[]);
    let dims = [3u64, 5];
    let strides = padded(&dims, 4);
    let mut tb = vec![0xA5u8; span(&dims, &strides, 4)];
    for i in 0..15 {
        put_le(&mut tb, offset_of(i, &dims, &strides), 4, i * 11);
    }
    let before = tb.clone();
    let mut ob = vec![0u8; 8 * 4 * 2 * 4];
    let mut r = Res::default();
    r.tensor(0, &mut tb, TE::I32, &dims, &strides)
        .buf(1, &mut ob);
    // 8 x 4 invocations over a 5-wide, 3-high tensor.
    run(&p, &r, &[], [8, 4, 1], 1);
    let o = to_i32(&ob);
    for y in 0..4u64 {
        for x in 0..8u64 {
            let k = ((y * 8 + x) * 2) as usize;
            let inb = x < 5 && y < 3;
            let v = (y * 5 + x) as i32 * 11;
            assert_eq!(o[k], if inb { v } else { -7 }, "oob value at {x},{y}");
            assert_eq!(o[k + 1], if inb { v } else { 0 }, "zero at {x},{y}");
        }
    }
    let mut expect = before;
    for y in 0..3u64 {
        for x in 0..5u64 {
            put_le(
                &mut expect,
                offset_of(y * 5 + x, &dims, &strides),
                4,
                100 + y * 8 + x,
            );
        }
    }
    assert!(
        tb == expect,
        "in-bounds writes land, out-of-bounds writes are dropped, padding untouched"
    );
}

#[test]
fn array_reads_and_writes_straddle_the_end() {
    for (ty, es, fmt) in [("i32", 4usize, TE::I32), ("u8", 1, TE::U8)] {
        for n in [2u64, 3, 4] {
            let p = program(&format!("tensor_array_{ty}_n{n}"), &[]);
            let dims = [4u64, 10];
            let strides = padded(&dims, es as u64);
            let mut src = vec![0u8; span(&dims, &strides, es as u64)];
            for i in 0..40 {
                put_le(&mut src, offset_of(i, &dims, &strides), es, i + 1);
            }
            let mut dst = vec![0xA5u8; src.len()];
            let groups_x = 10u64.div_ceil(n);
            let mut ob = vec![0u8; (4 * groups_x * n) as usize * es];
            let mut r = Res::default();
            r.tensor(0, &mut src, fmt, &dims, &strides)
                .tensor(1, &mut dst, fmt, &dims, &strides)
                .buf(2, &mut ob);
            run(&p, &r, &[], [groups_x as u32, 4, 1], 2);
            for row in 0..4u64 {
                for g in 0..groups_x {
                    for k in 0..n {
                        let col = g * n + k;
                        let want = if col < 10 { row * 10 + col + 1 } else { 0 };
                        let at = ((row * groups_x + g) * n + k) as usize * es;
                        assert_eq!(get_le(&ob, at, es), want, "{ty} n={n} row {row} col {col}");
                    }
                }
            }
            let mut expect = vec![0xA5u8; src.len()];
            for i in 0..40 {
                put_le(&mut expect, offset_of(i, &dims, &strides), es, i + 1);
            }
            assert!(dst == expect, "{ty} n={n}: array write");
        }
    }
}

#[test]
fn bool_tensors() {
    let p = program("tensor_bool", &[]);
    let n = 37u64;
    let mut a: Vec<u8> = (0..n)
        .map(|i| [0u8, 1, 2, 255, 0][(i % 5) as usize])
        .collect();
    let mut b = vec![0x77u8; n as usize];
    let mut r = Res::default();
    r.tensor(0, &mut a, TE::Bool8, &[n], &[1])
        .tensor(1, &mut b, TE::Bool8, &[n], &[1]);
    run(&p, &r, &[], [n as u32, 1, 1], 1);
    for i in 0..n as usize {
        assert_eq!(b[i], u8::from(a[i] == 0), "element {i}");
    }
}

#[test]
fn mismatched_views_and_null_descriptors_read_zero_and_drop_writes() {
    let p = program("tensor_read_i32_r3", &[]);
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
fn cts_sized_dispatch_of_96577_workgroups() {
    let p = program("tensor_fused", &[]);
    let n = 96_577u32;
    let vals: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let mut tb = u32s(&vals);
    let mut ob = vec![0u8; n as usize * 4];
    let mut r = Res::default();
    r.tensor(0, &mut tb, TE::U32, &[u64::from(n)], &[4])
        .buf(1, &mut ob);
    let t = std::time::Instant::now();
    run(&p, &r, &[], [n, 1, 1], 2);
    eprintln!("96 577 workgroups: {:?}", t.elapsed());
    let o = to_u32(&ob);
    for i in 0..n as usize {
        assert_eq!(
            o[i],
            vals[i].wrapping_mul(3).wrapping_add(i as u32),
            "invocation {i}"
        );
    }
}

#[test]
fn arrays_of_tensors_with_nonuniform_index() {
    let p = program("tensor_array_index", &[]);
    assert_eq!(
        p.resources()
            .iter()
            .find(|d| d.binding == 0)
            .map(|d| d.array_len),
        Some(Some(3))
    );
    let mut t: Vec<Vec<u8>> = (0..3)
        .map(|k| i32s(&[k * 10, k * 10 + 1, k * 10 + 2, k * 10 + 3]))
        .collect();
    let mut ob = vec![0u8; 12 * 4];
    let mut r = Res::default();
    for (k, tb) in t.iter_mut().enumerate() {
        r.0.insert(
            (0, 0, k as u32),
            BoundResource::Tensor {
                ptr: tb.as_mut_ptr(),
                len: tb.len(),
                format: TE::I32,
                dims: vec![4],
                strides: vec![4],
            },
        );
    }
    r.buf(1, &mut ob);
    run(&p, &r, &[], [3, 1, 1], 1);
    let o = to_i32(&ob);
    for i in 0..12i32 {
        assert_eq!(o[i as usize], (i % 3) * 10 + i / 3 + 4000, "invocation {i}");
    }
}

fn fp8_ref(b: u8, e5m2: bool) -> f32 {
    let (mbits, bias) = if e5m2 { (2, 15) } else { (3, 7) };
    let sign = if b & 0x80 != 0 { -1.0f32 } else { 1.0 };
    let exp = i32::from((b & 0x7f) >> mbits);
    let mant = f32::from(b & ((1 << mbits) - 1));
    if e5m2 && exp == 31 {
        return if mant == 0.0 {
            sign * f32::INFINITY
        } else {
            f32::NAN
        };
    }
    if !e5m2 && exp == 15 && mant == 7.0 {
        return f32::NAN;
    }
    let scale = (1 << mbits) as f32;
    if exp == 0 {
        sign * mant / scale * 2f32.powi(1 - bias)
    } else {
        sign * (1.0 + mant / scale) * 2f32.powi(exp - bias)
    }
}

#[test]
fn bfloat16_and_float8_tensors() {
    let p = program("tensor_bf16_fp8", &[]);
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
    let n = 256usize;
    let mut rng = Rng(42);
    let bf: Vec<u16> = (0..n)
        .map(|i| {
            if i < 8 {
                [0, 0x3f80, 0xc040, 0x7f80, 0x0001, 0x8000, 0x4049, 0x7fc0][i]
            } else {
                rng.next() as u16
            }
        })
        .collect();
    let mut ab: Vec<u8> = bf.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut bb: Vec<u8> = (0..n).map(|i| i as u8).collect();
    let mut cb: Vec<u8> = (0..n).map(|i| i as u8).collect();
    let mut ob = vec![0u8; n * 3 * 4];
    let mut r = Res::default();
    r.tensor(0, &mut ab, TE::BF16, &[n as u64], &[2])
        .tensor(1, &mut bb, TE::F8E4M3, &[n as u64], &[1])
        .tensor(2, &mut cb, TE::F8E5M2, &[n as u64], &[1])
        .buf(3, &mut ob);
    run(&p, &r, &[], [n as u32, 1, 1], 2);
    let o: Vec<f32> = ob
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    for i in 0..n {
        let x = half::bf16::from_bits(bf[i]).to_f32();
        let y = fp8_ref(i as u8, false);
        let z = fp8_ref(i as u8, true);
        assert!(same(o[i * 3], x), "bf16 {i}: {} vs {x}", o[i * 3]);
        assert!(same(o[i * 3 + 1], y), "e4m3 {i}: {} vs {y}", o[i * 3 + 1]);
        assert!(same(o[i * 3 + 2], z), "e5m2 {i}: {} vs {z}", o[i * 3 + 2]);
        let wa = half::bf16::from_bits(u16::from_le_bytes([ab[i * 2], ab[i * 2 + 1]])).to_f32();
        assert!(
            same(wa, half::bf16::from_f32(x * 2.0).to_f32()),
            "bf16 write {i}"
        );
        let wy = if (y * 2.0).abs() > 448.0 {
            f32::NAN
        } else {
            y * 2.0
        };
        assert!(
            same(fp8_ref(bb[i], false), wy),
            "e4m3 write {i}: {} vs {wy}",
            fp8_ref(bb[i], false)
        );
        let wz = if (z * 2.0).abs() > 57344.0 {
            z.signum() * f32::INFINITY
        } else {
            z * 2.0
        };
        assert!(
            same(fp8_ref(cb[i], true), wz),
            "e5m2 write {i}: {} vs {wz}",
            fp8_ref(cb[i], true)
        );
    }
}
