//! Property and targeted tests: every kernel (and every SIMD kernel's scalar
//! twin) against [`reference_copy`], on canary-filled destinations so that
//! writes into gaps are caught, with and without thread splitting.

use crate::{CopyPlan, KernelKind, PlanError, PlanOptions, reference_copy};

/// splitmix64: small, deterministic, good enough for test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

fn scalar() -> PlanOptions {
    PlanOptions {
        simd: false,
        ..PlanOptions::default()
    }
}

/// Split every copy across 3 threads, however small.
fn threaded(simd: bool) -> PlanOptions {
    PlanOptions {
        simd,
        max_threads: 3,
        parallel_threshold: 0,
        ..PlanOptions::default()
    }
}

fn avx2() -> bool {
    crate::simd::avx2_available()
}

/// Packed strides, outermost first.
fn packed(elem: usize, dims: &[u64]) -> Vec<u64> {
    padded(elem, dims, 0)
}

/// Packed strides plus `pad` bytes on every outer stride (as the CTS does).
fn padded(elem: usize, dims: &[u64], pad: u64) -> Vec<u64> {
    let mut s = vec![0; dims.len()];
    let mut acc = elem as u64;
    for i in (0..dims.len()).rev() {
        s[i] = acc;
        acc = acc * dims[i] + pad;
    }
    if let Some(last) = s.last_mut() {
        *last = elem as u64;
    }
    s
}

/// Strides of a layout whose memory order (outermost first) is `order`
/// (a permutation of dimension indices), padded by `pad` per outer level.
fn permuted(elem: usize, dims: &[u64], order: &[usize], pad: u64) -> Vec<u64> {
    let mut s = vec![0; dims.len()];
    let mut acc = elem as u64;
    for (k, &i) in order.iter().enumerate().rev() {
        s[i] = acc;
        acc = acc * dims[i] + if k > 0 { pad } else { 0 };
    }
    s
}

fn extent(elem: usize, dims: &[u64], strides: &[u64]) -> u64 {
    dims.iter()
        .zip(strides)
        .map(|(d, s)| (d - 1) * s)
        .sum::<u64>()
        + elem as u64
}

/// Plans and executes a copy on canary-filled, misaligned buffers and
/// compares the whole destination (gaps and slack included) with
/// [`reference_copy`]. Returns the plan for kernel assertions.
fn check(
    elem: usize,
    dims: &[u64],
    ss: &[u64],
    ds: &[u64],
    opts: &PlanOptions,
    rng: &mut Rng,
) -> CopyPlan {
    let plan = CopyPlan::with_options(elem, dims, ss, ds, opts)
        .unwrap_or_else(|e| panic!("plan {elem} {dims:?} {ss:?} {ds:?}: {e}"));
    let se = extent(elem, dims, ss);
    let de = extent(elem, dims, ds);
    assert_eq!(plan.src_extent(), se);
    assert_eq!(plan.dst_extent(), de);
    assert_eq!(plan.bytes(), elem as u64 * dims.iter().product::<u64>());
    let soff = rng.below(8) as usize;
    let doff = rng.below(8) as usize;
    let mut src = vec![0u8; soff + se as usize];
    rng.fill(&mut src);
    let canary: Vec<u8> = (0..doff + de as usize + 16)
        .map(|i| (i as u8).wrapping_mul(37) ^ 0xA5)
        .collect();
    let mut want = canary.clone();
    reference_copy(elem, dims, ss, ds, &src[soff..], &mut want[doff..]);
    let mut got = canary;
    plan.execute(&src[soff..], &mut got[doff..]).unwrap();
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "mismatch at dst byte {} (kernel {:?}, threads {}): got {:#x} want {:#x}; \
             elem {elem} dims {dims:?} src {ss:?} dst {ds:?}",
            i as isize - doff as isize,
            plan.kernel(),
            plan.threads(),
            got[i],
            want[i]
        );
    }
    plan
}

/// Runs `check` with default options, the scalar switch, and forced
/// threading (SIMD on and off); returns the default-options plan.
fn check_all(elem: usize, dims: &[u64], ss: &[u64], ds: &[u64], rng: &mut Rng) -> CopyPlan {
    let plan = check(elem, dims, ss, ds, &PlanOptions::default(), rng);
    let s = check(elem, dims, ss, ds, &scalar(), rng);
    assert!(
        !matches!(
            s.kernel(),
            KernelKind::GatherAvx2 | KernelKind::StreamRows | KernelKind::MemcpyStream
        ),
        "scalar switch ignored"
    );
    check(elem, dims, ss, ds, &threaded(true), rng);
    check(elem, dims, ss, ds, &threaded(false), rng);
    plan
}

fn check_default(elem: usize, dims: &[u64], ss: &[u64], ds: &[u64], rng: &mut Rng) -> CopyPlan {
    check(elem, dims, ss, ds, &PlanOptions::default(), rng)
}

#[test]
fn reference_transposes() {
    // 2×3 u8, src row-major, dst column-major.
    let src = [0u8, 1, 2, 3, 4, 5];
    let mut dst = [0xFFu8; 6];
    reference_copy(1, &[2, 3], &[3, 1], &[1, 2], &src, &mut dst);
    assert_eq!(dst, [0, 3, 1, 4, 2, 5]);
}

#[test]
fn random_layouts() {
    let mut rng = Rng(0x5EED);
    let (cases, cap) = if cfg!(debug_assertions) {
        (250, 1 << 12)
    } else {
        (3000, 1 << 15)
    };
    let mut seen = std::collections::HashSet::new();
    for case in 0..cases {
        let elem = [1usize, 2, 4, 8][rng.below(4) as usize];
        let rank = 1 + rng.below(8) as usize;
        let mut dims = Vec::with_capacity(rank);
        let mut total = 1u64;
        for _ in 0..rank {
            let d = match rng.below(6) {
                0 => 1,
                1 => 2,
                2 => [3, 5, 7, 13, 17, 19, 23][rng.below(7) as usize],
                _ => 1 + rng.below(12),
            };
            let d = d.min(cap / total).max(1);
            total *= d;
            dims.push(d);
        }
        let mut order: Vec<usize> = (0..rank).collect();
        let layout = |rng: &mut Rng, order: &mut Vec<usize>| -> Vec<u64> {
            let pad = [0, 13 * elem as u64, elem as u64, 3][rng.below(4) as usize];
            match rng.below(3) {
                0 => packed(elem, &dims),
                1 => padded(elem, &dims, pad),
                _ => {
                    for i in (1..order.len()).rev() {
                        order.swap(i, rng.below(i as u64 + 1) as usize);
                    }
                    permuted(elem, &dims, order, pad)
                }
            }
        };
        let mut ss = layout(&mut rng, &mut order);
        let ds = layout(&mut rng, &mut order);
        if rng.below(5) == 0 {
            // Broadcast some source dimensions.
            for s in ss.iter_mut() {
                if rng.below(2) == 0 {
                    *s = 0;
                }
            }
        }
        let plan = check_all(elem, &dims, &ss, &ds, &mut rng);
        seen.insert(plan.kernel());
        assert!(case < cases);
    }
    for k in [
        KernelKind::Memcpy,
        KernelKind::LongRows,
        KernelKind::ShortRows,
        KernelKind::Elements,
    ] {
        assert!(
            seen.contains(&k) || avx2() && k == KernelKind::Elements,
            "{k:?} never chosen"
        );
    }
}

#[test]
fn prime_shapes() {
    let mut rng = Rng(7);
    let shapes: &[&[u64]] = &[
        &[13, 17, 19, 23],
        &[263, 269],
        &[37, 43, 47],
        &[71693],
        &[1, 13, 1, 17, 1],
    ];
    for dims in shapes {
        for elem in [1usize, 2, 4, 8] {
            let p = packed(elem, dims);
            let q = padded(elem, dims, 13 * elem as u64);
            // Full option matrix for one element size, default options for
            // the rest (keeps debug-build test time down).
            let run = if elem == 4 { check_all } else { check_default };
            run(elem, dims, &p, &p, &mut rng);
            run(elem, dims, &p, &q, &mut rng);
            run(elem, dims, &q, &p, &mut rng);
        }
    }
}

#[test]
fn huge_single_dim() {
    let mut rng = Rng(8);
    let n = 1u64 << 20;
    let p = check_all(1, &[n], &[1], &[1], &mut rng);
    assert_eq!(p.kernel(), KernelKind::Memcpy);
    // Strided on one side: element kernels over one long dimension.
    let p = check(1, &[n - 3], &[1], &[3], &threaded(true), &mut rng);
    assert_eq!(p.kernel(), KernelKind::Elements);
    assert_eq!(p.threads(), 3);
}

#[test]
fn memcpy_kernel() {
    let mut rng = Rng(9);
    for dims in [&[1u64][..], &[5], &[3, 1, 7], &[64, 64]] {
        for elem in [1, 2, 4, 8, 16] {
            let s = packed(elem, dims);
            let p = check_all(elem, dims, &s, &s, &mut rng);
            assert_eq!(p.kernel(), KernelKind::Memcpy, "{dims:?} {elem}");
        }
    }
    // The streaming twin, single- and multi-threaded, odd sizes included.
    let stream = PlanOptions {
        stream_threshold: 0,
        ..PlanOptions::default()
    };
    let stream_mt = PlanOptions {
        stream_threshold: 0,
        ..threaded(true)
    };
    for dims in [
        &[1u64][..],
        &[63],
        &[65],
        &[64, 64],
        &[3, 1001],
        &[13, 17, 19],
    ] {
        for elem in [1, 4, 16] {
            let s = packed(elem, dims);
            let p = check(elem, dims, &s, &s, &stream, &mut rng);
            if avx2() {
                assert_eq!(p.kernel(), KernelKind::MemcpyStream);
            }
            check(elem, dims, &s, &s, &stream_mt, &mut rng);
            let p = check(elem, dims, &s, &s, &scalar(), &mut rng);
            assert_eq!(p.kernel(), KernelKind::Memcpy);
        }
    }
    // A permuted but identical layout on both sides is still one block.
    let s = permuted(4, &[5, 6, 7], &[2, 0, 1], 0);
    let p = check_all(4, &[5, 6, 7], &s, &s, &mut rng);
    assert_eq!(p.kernel(), KernelKind::Memcpy);
}

#[test]
fn short_rows_every_length() {
    let mut rng = Rng(10);
    for row in 1..=64u64 {
        for elem in [1usize, 2, 4, 8, 16] {
            if row % elem as u64 != 0 || row == elem as u64 {
                continue;
            }
            let dims = [7, 5, row / elem as u64];
            let p = packed(elem, &dims);
            let q = padded(elem, &dims, 13);
            let plan = check_all(elem, &dims, &p, &q, &mut rng);
            assert_eq!(
                plan.kernel(),
                KernelKind::ShortRows,
                "row {row} elem {elem}"
            );
            let plan = check_all(elem, &dims, &q, &p, &mut rng);
            assert_eq!(
                plan.kernel(),
                KernelKind::ShortRows,
                "row {row} elem {elem}"
            );
        }
        // Rows of one element (1, 2, 4, 8, 16 bytes) come out as elements
        // because size-1 dims are dropped; a rank-2 u8 with inner dim 1 is
        // an element scatter.
    }
}

#[test]
fn long_rows_and_streaming_twin() {
    let mut rng = Rng(11);
    let stream = PlanOptions {
        stream_rows_threshold: 0,
        ..PlanOptions::default()
    };
    let stream_mt = PlanOptions {
        stream_rows_threshold: 0,
        ..threaded(true)
    };
    let no_stream = PlanOptions {
        stream_rows_threshold: 0,
        ..scalar()
    };
    for (elem, dims) in [
        (1usize, [9u64, 65]),
        (4, [13, 17]),
        (4, [3, 263]),
        (8, [5, 100]),
        (2, [31, 257]),
        (4, [7, 32]),
        (8, [3, 64]),
        (1, [5, 511]),
    ] {
        for pad in [0u64, 1, 13 * elem as u64] {
            let p = packed(elem, &dims);
            let q = padded(elem, &dims, pad);
            for (a, b) in [(&p, &q), (&q, &p), (&q, &q)] {
                if a == b && pad == 0 {
                    continue;
                }
                let plan = check(elem, &dims, a, b, &no_stream, &mut rng);
                assert_eq!(plan.kernel(), KernelKind::LongRows);
                let plan = check(elem, &dims, a, b, &stream, &mut rng);
                if avx2() {
                    assert_eq!(plan.kernel(), KernelKind::StreamRows);
                }
                check(elem, &dims, a, b, &stream_mt, &mut rng);
                let plan = check_all(elem, &dims, a, b, &mut rng);
                assert_eq!(plan.kernel(), KernelKind::LongRows);
            }
        }
    }
}

#[test]
fn elements_every_size_and_gather_twin() {
    let mut rng = Rng(12);
    for elem in [1usize, 2, 4, 8, 16] {
        for dims in [[3u64, 17, 5], [2, 1, 29], [1, 1, 7], [6, 40, 3]] {
            // Transposes (dst-contiguous gathers) and their inverses
            // (scatters), padded and not.
            for pad in [0u64, 13 * elem as u64] {
                let p = padded(elem, &dims, pad);
                let t = permuted(elem, &dims, &[2, 1, 0], pad);
                let t2 = permuted(elem, &dims, &[0, 2, 1], 0);
                for (a, b) in [(&p, &t), (&t, &p), (&t2, &p), (&p, &t2)] {
                    let plan = check_all(elem, &dims, a, b, &mut rng);
                    let s = check(elem, &dims, a, b, &scalar(), &mut rng);
                    if plan.kernel() == KernelKind::GatherAvx2 {
                        assert!(elem == 4 || elem == 8);
                        assert_eq!(s.kernel(), KernelKind::Elements);
                    }
                }
            }
        }
        // Explicit gather: dst contiguous, src stride 3 elements.
        let n = 1000u64;
        let plan = check_all(elem, &[n], &[3 * elem as u64], &[elem as u64], &mut rng);
        let expect = if avx2() && (elem == 4 || elem == 8) {
            KernelKind::GatherAvx2
        } else {
            KernelKind::Elements
        };
        assert_eq!(plan.kernel(), expect, "elem {elem}");
        let s = check(
            elem,
            &[n],
            &[3 * elem as u64],
            &[elem as u64],
            &scalar(),
            &mut rng,
        );
        assert_eq!(s.kernel(), KernelKind::Elements);
        // Gather counts around the vector width.
        for n in 1..=19u64 {
            check_all(
                elem,
                &[2, n],
                &[5 * elem as u64 * n, 5 * elem as u64],
                &[elem as u64 * n, elem as u64],
                &mut rng,
            );
        }
    }
}

#[test]
fn broadcast_source() {
    let mut rng = Rng(13);
    for elem in [1usize, 2, 4, 8] {
        let dims = [7u64, 9, 11];
        let d = padded(elem, &dims, 13 * elem as u64);
        for ss in [
            vec![0, 0, 0],
            vec![0, 11 * elem as u64, elem as u64],
            vec![11 * elem as u64, elem as u64, 0],
            vec![elem as u64, 0, 0],
        ] {
            check_all(elem, &dims, &ss, &d, &mut rng);
        }
    }
}

#[test]
fn canary_survives_in_gaps() {
    let dims = [4u64, 3];
    let ds = padded(2, &dims, 5);
    let plan = CopyPlan::new(2, &dims, &[6, 2], &ds).unwrap();
    let src: Vec<u8> = (0..24).collect();
    let mut dst = vec![0xEEu8; plan.dst_extent() as usize + 4];
    plan.execute(&src, &mut dst).unwrap();
    for r in 0..4 {
        let row = r * 11;
        assert_eq!(&dst[row..row + 6], &src[r * 6..r * 6 + 6]);
        if r < 3 {
            assert_eq!(&dst[row + 6..row + 11], &[0xEE; 5]);
        }
    }
    assert_eq!(&dst[plan.dst_extent() as usize..], &[0xEE; 4]);
}

#[test]
fn multithreaded_above_threshold() {
    let mut rng = Rng(14);
    let dims = [3u64, 100, 1031];
    let elem = 4;
    let p = packed(elem, &dims);
    let q = padded(elem, &dims, 13 * elem as u64);
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (a, b) in [(&p, &p), (&p, &q), (&q, &p)] {
        let plan = check(elem, &dims, a, b, &PlanOptions::default(), &mut rng);
        assert!(plan.bytes() >= 1 << 20);
        assert_eq!(plan.threads(), n);
    }
    // Many threads relative to units: uneven chunks, empty tails.
    let many = PlanOptions {
        max_threads: 7,
        parallel_threshold: 0,
        ..PlanOptions::default()
    };
    for dims in [[2u64, 3, 5], [1, 1, 3], [9, 1, 1]] {
        let s = padded(4, &dims, 4);
        check(4, &dims, &s, &packed(4, &dims), &many, &mut rng);
        check(
            4,
            &dims,
            &packed(4, &dims),
            &packed(4, &dims),
            &many,
            &mut rng,
        );
    }
}

#[test]
fn execute_raw_unaligned() {
    let dims = [5u64, 7];
    let ss = padded(8, &dims, 3);
    let ds = permuted(8, &dims, &[1, 0], 0);
    let plan = CopyPlan::new(8, &dims, &ss, &ds).unwrap();
    let mut src = vec![0u8; plan.src_extent() as usize + 1];
    Rng(15).fill(&mut src);
    let mut want = vec![0u8; plan.dst_extent() as usize + 3];
    reference_copy(8, &dims, &ss, &ds, &src[1..], &mut want[3..]);
    let mut got = vec![0u8; want.len()];
    // SAFETY: the buffers hold the extents past the misaligning offsets and
    // are distinct allocations.
    unsafe { plan.execute_raw(src.as_ptr().add(1), got.as_mut_ptr().add(3)) };
    assert_eq!(got, want);
}

#[test]
fn plan_errors() {
    use PlanError::*;
    assert_eq!(CopyPlan::new(4, &[], &[], &[]).unwrap_err(), RankZero);
    assert!(matches!(
        CopyPlan::new(4, &[2, 2], &[8], &[8, 4]).unwrap_err(),
        LengthMismatch { .. }
    ));
    assert!(matches!(
        CopyPlan::new(4, &[2; 17], &[4; 17], &[4; 17]).unwrap_err(),
        RankTooLarge { rank: 17 }
    ));
    for e in [0, 3, 6, 32] {
        assert_eq!(
            CopyPlan::new(e, &[2], &[8], &[8]).unwrap_err(),
            BadElemSize(e)
        );
    }
    assert_eq!(
        CopyPlan::new(4, &[2, 0], &[8, 4], &[8, 4]).unwrap_err(),
        ZeroDim { index: 1 }
    );
    assert_eq!(
        CopyPlan::new(8, &[1 << 32, 1 << 32], &[8, 8], &[8, 8]).unwrap_err(),
        Overflow
    );
    assert_eq!(
        CopyPlan::new(1, &[1 << 62, 4], &[1, 1 << 62], &[4, 1]).unwrap_err(),
        Overflow
    );
    // Destination overlaps: stride 0, stride below the element size, and two
    // dimensions aliasing each other.
    assert_eq!(CopyPlan::new(4, &[3], &[4], &[0]).unwrap_err(), DstOverlap);
    assert_eq!(CopyPlan::new(4, &[3], &[4], &[2]).unwrap_err(), DstOverlap);
    assert_eq!(
        CopyPlan::new(4, &[3, 4], &[16, 4], &[8, 4]).unwrap_err(),
        DstOverlap
    );
    assert_eq!(
        CopyPlan::new(1, &[1 << 21, 2], &[2, 1], &[1, 1 << 20]).unwrap_err(),
        DstOverlap
    );
    // A source stride of 0 (broadcast) is fine; so is an interleaved but
    // injective destination.
    assert!(CopyPlan::new(4, &[3], &[0], &[4]).is_ok());
    assert!(CopyPlan::new(1, &[3, 2], &[2, 1], &[2, 3]).is_ok());
    // Size-1 dimensions never overlap, whatever their stride.
    assert!(CopyPlan::new(4, &[1, 3], &[0, 4], &[0, 4]).is_ok());

    let plan = CopyPlan::new(4, &[4], &[4], &[8]).unwrap();
    assert_eq!(
        plan.execute(&[0; 15], &mut [0; 28]).unwrap_err(),
        SrcTooSmall {
            needed: 16,
            len: 15
        }
    );
    assert_eq!(
        plan.execute(&[0; 16], &mut [0; 27]).unwrap_err(),
        DstTooSmall {
            needed: 28,
            len: 27
        }
    );
    assert!(plan.execute(&[0; 16], &mut [0; 28]).is_ok());
    // Errors display and are `std::error::Error`.
    let e: Box<dyn std::error::Error> = Box::new(DstOverlap);
    assert!(!e.to_string().is_empty());
}

#[test]
fn plan_is_send_sync_clone() {
    fn assert_traits<T: Send + Sync + Clone + std::fmt::Debug>() {}
    assert_traits::<CopyPlan>();
}
