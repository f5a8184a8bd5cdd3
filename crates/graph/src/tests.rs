//! End-to-end tests of the graph pipeline: assembled modules (see `testing`) read, decoded,
//! printed and run, with results worked out by hand from TOSA's pseudocode.

use crate::decode::Inputs;
use crate::dtype::{DType, Values};
use crate::exec::{Tensor, run};
use crate::testing::*;

fn compile(words: &[u32], inputs: &Inputs) -> crate::error::Result<crate::Graph> {
    crate::compile(words, "main", inputs)
}

fn t(dtype: DType, shape: &[usize], values: Values) -> Tensor {
    Tensor::new(dtype, shape.to_vec(), values).unwrap()
}

#[test]
fn add_f32_runs_and_prints() {
    let g = compile(&add_module(), &Inputs::default()).unwrap();
    let a = t(
        DType::F32,
        &[2, 4],
        Values::Float((0..8).map(f64::from).collect()),
    );
    let b = t(DType::F32, &[2, 4], Values::Float(vec![0.5; 8]));
    let out = run(&g, &[a, b]).unwrap();
    assert_eq!(out[0].floats(), &[0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5]);
    assert_eq!(
        g.text(),
        "input 0 (set 0, binding 0): f32[2,4]\n\
         input 1 (set 0, binding 1): f32[2,4]\n\
         %0: f32[2,4] = input 0\n\
         %1: f32[2,4] = input 1\n\
         %2: f32[2,4] = ADD input1=%0, input2=%1\n\
         output 0 (set 0, binding 2) = %2: f32[2,4]\n"
    );
    // Wrong input types are errors, not panics.
    let bad = t(DType::F32, &[4, 2], Values::Float(vec![0.0; 8]));
    assert!(run(&g, &[bad.clone(), bad]).is_err());
}

#[test]
fn sub_broadcasts_size_one_dimensions() {
    let mut a = Asm::new();
    let i32t = a.int(32);
    let big = a.tensor(i32t, &[2, 3]);
    let row = a.tensor(i32t, &[1, 3]);
    let x = a.input(big, 0);
    let y = a.input(row, 1);
    let s = a.op(big, SUB, &[x, y]);
    a.output(s, big, 2);
    let g = compile(&a.finish(), &Inputs::default()).unwrap();
    let out = run(
        &g,
        &[
            t(
                DType::I32,
                &[2, 3],
                Values::Int(vec![10, 20, 30, 40, 50, i64::from(i32::MIN)]),
            ),
            t(DType::I32, &[1, 3], Values::Int(vec![1, 2, 3])),
        ],
    )
    .unwrap();
    // i32 overflow wraps (TOSA: unpredictable).
    assert_eq!(out[0].ints(), &[9, 18, 27, 39, 48, i64::from(i32::MAX) - 2]);
}

#[test]
fn max_pool2d_i8_skips_padding() {
    let mut a = Asm::new();
    let i8t = a.int(8);
    let i32t = a.int(32);
    let tin = a.tensor(i8t, &[1, 3, 3, 1]);
    let tout = a.tensor(i8t, &[1, 2, 2, 1]);
    let x = a.input(tin, 0);
    let kernel = a.i32s(&[2, 2]);
    let stride = a.i32s(&[2, 2]);
    let pad = a.i32s(&[0, 1, 0, 1]);
    let nan = a.scalar(i32t, 1);
    let p = a.op(tout, MAX_POOL2D, &[kernel, stride, pad, nan, x]);
    a.output(p, tout, 1);
    let g = compile(&a.finish(), &Inputs::default()).unwrap();
    let input = t(
        DType::I8,
        &[1, 3, 3, 1],
        Values::Int(vec![-5, -3, -9, -7, -128, -100, -2, -4, -1]),
    );
    let out = run(&g, &[input]).unwrap();
    // Windows: {-5,-3,-7,-128} {-9,-100} {-2,-4} {-1}: padding never wins, even over -128.
    assert_eq!(out[0].ints(), &[-3, -9, -2, -1]);
    assert_eq!(out[0].to_bytes(), [0xfd, 0xf7, 0xfe, 0xff]);
}

#[test]
fn conv2d_i8_with_zero_points_constants_and_padding() {
    let mut a = Asm::new();
    let i8t = a.int(8);
    let i32t = a.int(32);
    let tin = a.tensor(i8t, &[1, 2, 2, 1]);
    let tw = a.tensor(i8t, &[1, 2, 2, 1]);
    let tb = a.tensor(i32t, &[1]);
    let tout = a.tensor(i32t, &[1, 2, 2, 1]);
    let x = a.input(tin, 0);
    // Weights from the application (GraphConstantID 3), bias inline.
    let w = a.graph_constant(tw, 3);
    let b100 = a.scalar(i32t, 100);
    let bias = a.tensor_const(tb, &[b100]);
    let pad = a.i32s(&[0, 1, 0, 1]);
    let stride = a.i32s(&[1, 1]);
    let dil = a.i32s(&[1, 1]);
    let acc = a.scalar(i32t, 1);
    let lb = a.boolc(false);
    let izp = a.one(i8t, 0x80); // -128, written unsigned as model-converter does
    let wzp = a.one(i8t, 1);
    let c = a.op(
        tout,
        CONV2D,
        &[pad, stride, dil, acc, lb, x, w, bias, izp, wzp],
    );
    a.output(c, tout, 1);
    let words = a.finish();
    // The weight constant is missing: a clear error.
    let e = compile(&words, &Inputs::default()).unwrap_err();
    assert!(e.rule.contains("pConstants"), "{e}");
    let mut inputs = Inputs::default();
    inputs.graph_constants.insert(3, vec![2, 3, 4, 5]);
    let g = compile(&words, &inputs).unwrap();
    let input = t(
        DType::I8,
        &[1, 2, 2, 1],
        Values::Int(vec![-128, -127, -126, -125]),
    );
    let out = run(&g, &[input]).unwrap();
    // x − zp = [0 1; 2 3], w − zp = [1 2; 3 4], padded taps add 0:
    // (0,0): 0·1 + 1·2 + 2·3 + 3·4 = 20; (0,1): 1·1 + 3·3 = 10; (1,0): 2·1 + 3·2 = 8; (1,1): 3.
    assert_eq!(out[0].ints(), &[120, 110, 108, 103]);
}

#[test]
fn conv2d_f32_matches_a_direct_sum() {
    let mut a = Asm::new();
    let f32t = a.float(32);
    let tin = a.tensor(f32t, &[1, 3, 3, 2]);
    let tw = a.tensor(f32t, &[2, 2, 2, 2]);
    // IH 3, KH 2, stride 2 would not divide exactly (an ERROR_IF); pad bottom/right by 1.
    let tb = a.tensor(f32t, &[2]);
    let tout = a.tensor(f32t, &[1, 2, 2, 2]);
    let x = a.input(tin, 0);
    let w = a.graph_constant(tw, 0);
    let bias = a.null(tb);
    let pad = a.i32s(&[0, 1, 0, 1]);
    let stride = a.i32s(&[2, 2]);
    let dil = a.i32s(&[1, 1]);
    let i32t = a.int(32);
    let acc = a.scalar(i32t, 3);
    let lb = a.boolc(false);
    let zp_t = a.tensor(f32t, &[1]);
    let zp = a.null(zp_t);
    let c = a.op(
        tout,
        CONV2D,
        &[pad, stride, dil, acc, lb, x, w, bias, zp, zp],
    );
    a.output(c, tout, 1);
    let mut inputs = Inputs::default();
    let wv: Vec<f32> = (0..16).map(|i| i as f32 * 0.25).collect();
    inputs
        .graph_constants
        .insert(0, wv.iter().flat_map(|v| v.to_le_bytes()).collect());
    let g = compile(&a.finish(), &inputs).unwrap();
    let xv: Vec<f64> = (0..18).map(|i| f64::from(i) - 4.0).collect();
    let out = run(
        &g,
        &[t(DType::F32, &[1, 3, 3, 2], Values::Float(xv.clone()))],
    )
    .unwrap();
    // Output (oy, ox) reads input rows 2·oy.., columns 2·ox..; taps past row/column 2 are
    // padding and add nothing.
    let mut want = [0f64; 8];
    for oy in 0..2 {
        for ox in 0..2 {
            for oc in 0..2 {
                let mut acc = 0.0;
                for ky in 0..2 {
                    for kx in 0..2 {
                        let (y, x) = (2 * oy + ky, 2 * ox + kx);
                        if y >= 3 || x >= 3 {
                            continue;
                        }
                        for ic in 0..2 {
                            acc += xv[(y * 3 + x) * 2 + ic]
                                * f64::from(wv[((oc * 2 + ky) * 2 + kx) * 2 + ic]);
                        }
                    }
                }
                want[(oy * 2 + ox) * 2 + oc] = f64::from(acc as f32);
            }
        }
    }
    assert_eq!(out[0].floats(), &want);
}

#[test]
fn rescale_per_channel_double_round_clips_to_i8() {
    let mut a = Asm::new();
    let i32t = a.int(32);
    let i8t = a.int(8);
    let tin = a.tensor(i32t, &[1, 2]);
    let tout = a.tensor(i8t, &[1, 2]);
    let x = a.input(tin, 0);
    let t_ = a.boolc(true);
    let f_ = a.boolc(false);
    let mode = a.scalar(i32t, 3); // DOUBLE_ROUND
    let mult = a.i32s(&[1 << 30, 3 << 28]);
    let shift_t = a.tensor(i8t, &[2]);
    let s33 = a.scalar(i8t, 33);
    let s31 = a.scalar(i8t, 31);
    let shift = a.tensor_const(shift_t, &[s33, s31]);
    let izp = a.one(i32t, 0);
    let ozp = a.one(i8t, 0xfb); // -5
    let r = a.op(
        tout,
        RESCALE,
        &[t_, mode, t_, f_, f_, x, mult, shift, izp, ozp],
    );
    a.output(r, tout, 1);
    let g = compile(&a.finish(), &Inputs::default()).unwrap();
    let out = run(&g, &[t(DType::I32, &[1, 2], Values::Int(vec![100, -1000]))]).unwrap();
    // Channel 0: 100/8 = 12.5: (100·2^30 + 2^32 + 2^30) >> 33 = 13 (a tie rounds up; the
    // double-rounding bias 2^30 only adds), + output_zp −5 = 8.
    // Channel 1: (−1000·3·2^28 + 2^30) >> 31 = −375, − 5 = −380 → clipped to −128.
    assert_eq!(out[0].ints(), &[8, -128]);
}

#[test]
fn bad_graphs_are_clear_errors() {
    // A declared result shape that the operands do not make.
    let mut a = Asm::new();
    let f32t = a.float(32);
    let t24 = a.tensor(f32t, &[2, 4]);
    let t42 = a.tensor(f32t, &[4, 2]);
    let x = a.input(t24, 0);
    let s = a.op(t42, ADD, &[x, x]);
    a.output(s, t42, 1);
    let e = compile(&a.finish(), &Inputs::default()).unwrap_err();
    assert!(
        e.rule.contains("TOSA ADD") && e.message.contains("f32[4,2]"),
        "{e}"
    );

    // A non-constant attribute.
    let mut a = Asm::new();
    let i8t = a.int(8);
    let i32t = a.int(32);
    let t4 = a.tensor(i8t, &[1, 2, 2, 1]);
    let t1 = a.tensor(i8t, &[1, 1, 1, 1]);
    let k = a.tensor(i32t, &[2]);
    let x = a.input(t4, 0);
    let kernel_in = a.input(k, 1);
    let nan = a.scalar(i32t, 1);
    let pad = a.i32s(&[0, 0, 0, 0]);
    let p = a.op(t1, MAX_POOL2D, &[kernel_in, kernel_in, pad, nan, x]);
    a.output(p, t1, 2);
    let e = compile(&a.finish(), &Inputs::default()).unwrap_err();
    assert!(e.message.contains("must be a constant"), "{e}");

    // An unknown entry point.
    let e = crate::compile(&add_module(), "nope", &Inputs::default()).unwrap_err();
    assert!(e.message.contains("\"main\""), "{e}");

    // A pooling window that does not divide.
    let mut a = Asm::new();
    let i8t = a.int(8);
    let i32t = a.int(32);
    let tin = a.tensor(i8t, &[1, 3, 3, 1]);
    let tout = a.tensor(i8t, &[1, 1, 1, 1]);
    let x = a.input(tin, 0);
    let kernel = a.i32s(&[2, 2]);
    let stride = a.i32s(&[2, 2]);
    let pad = a.i32s(&[0, 0, 0, 0]);
    let nan = a.scalar(i32t, 1);
    let p = a.op(tout, MAX_POOL2D, &[kernel, stride, pad, nan, x]);
    a.output(p, tout, 1);
    let e = compile(&a.finish(), &Inputs::default()).unwrap_err();
    assert!(
        e.rule.contains("ERROR_IF") && e.message.contains("divide"),
        "{e}"
    );
}

#[test]
fn cast_and_matmul_chain() {
    // MATMUL i8 [1,2,3]×[1,3,1] → i32, then CAST to f32.
    let mut a = Asm::new();
    let i8t = a.int(8);
    let i32t = a.int(32);
    let f32t = a.float(32);
    let ta = a.tensor(i8t, &[1, 2, 3]);
    let tb = a.tensor(i8t, &[1, 3, 1]);
    let tm = a.tensor(i32t, &[1, 2, 1]);
    let tf = a.tensor(f32t, &[1, 2, 1]);
    let x = a.input(ta, 0);
    let y = a.input(tb, 1);
    let azp = a.one(i8t, 1);
    let bzp = a.one(i8t, 0);
    let m = a.op(tm, MATMUL, &[x, y, azp, bzp]);
    let c = a.op(tf, CAST, &[m]);
    a.output(c, tf, 2);
    let g = compile(&a.finish(), &Inputs::default()).unwrap();
    let out = run(
        &g,
        &[
            t(
                DType::I8,
                &[1, 2, 3],
                Values::Int(vec![1, 2, 3, -4, 5, 127]),
            ),
            t(DType::I8, &[1, 3, 1], Values::Int(vec![10, -1, 2])),
        ],
    )
    .unwrap();
    // Rows minus zp 1: [0 1 2]·[10 −1 2] = 3; [−5 4 126]·… = −50 − 4 + 252 = 198.
    assert_eq!(out[0].floats(), &[3.0, 198.0]);
    assert!(
        g.text()
            .contains("= MATMUL a=%0, b=%1, a_zp=i8[1][1], b_zp=i8[1][0]"),
        "{}",
        g.text()
    );
}

#[test]
fn matmul_has_the_i16_by_i16_variant_and_no_i16_by_i8() {
    // EXT-INT16: MATMUL i16 × i16 → i48 (TOSA's 16×16 variant; the convolutions' is i16 × i8).
    for (b_width, ok) in [(16, true), (8, false)] {
        let mut a = Asm::new();
        let i16t = a.int(16);
        let bt = a.int(b_width);
        let i48t = a.int(64);
        let ta = a.tensor(i16t, &[1, 1, 2]);
        let tb = a.tensor(bt, &[1, 2, 1]);
        let tm = a.tensor(i48t, &[1, 1, 1]);
        let x = a.input(ta, 0);
        let y = a.input(tb, 1);
        let azp = a.one(i16t, 0);
        let bzp = a.one(bt, 0);
        let m = a.op(tm, MATMUL, &[x, y, azp, bzp]);
        a.output(m, tm, 2);
        let g = compile(&a.finish(), &Inputs::default());
        if !ok {
            let e = g.unwrap_err().to_string();
            assert!(e.contains("no i16 × i8 variant"), "{e}");
            continue;
        }
        let g = g.unwrap();
        let out = run(
            &g,
            &[
                t(DType::I16, &[1, 1, 2], Values::Int(vec![-32768, 32767])),
                t(DType::I16, &[1, 2, 1], Values::Int(vec![-32768, -32768])),
            ],
        )
        .unwrap();
        // 2^30 − 32767·2^15: exact in the 48-bit accumulator.
        assert_eq!(out[0].ints(), &[(1i64 << 30) - 32767 * 32768]);
    }
}

// ---------------------------------------------------------------- kernels, one node at a time

use crate::ir::{Node, ValueInfo};
use crate::tosa::TosaOp;

fn ints_t(dtype: DType, shape: &[usize], v: &[i64]) -> Tensor {
    t(dtype, shape, Values::Int(v.to_vec()))
}

fn floats_t(dtype: DType, shape: &[usize], v: &[f64]) -> Tensor {
    t(dtype, shape, Values::Float(v.to_vec()))
}

fn scalar_i32(v: i64) -> Tensor {
    ints_t(DType::I32, &[], &[v])
}

/// Validates and runs one `op` node with attributes `attrs` (by operand name) on `ins`,
/// declaring result `out`.
fn apply(
    op: TosaOp,
    attrs: &[(&str, Tensor)],
    ins: &[&Tensor],
    out: (DType, &[usize]),
) -> crate::error::Result<Tensor> {
    let attrs = op
        .operands()
        .iter()
        .map(|(n, _)| attrs.iter().find(|(a, _)| a == n).map(|(_, t)| t.clone()))
        .collect();
    let node = Node {
        op,
        attrs,
        inputs: Vec::new(),
        outputs: Vec::new(),
        out: vec![ValueInfo {
            dtype: out.0,
            shape: out.1.to_vec(),
        }],
        result: 0,
    };
    let infos: Vec<ValueInfo> = ins.iter().map(|t| t.info()).collect();
    let refs: Vec<&ValueInfo> = infos.iter().collect();
    crate::kernels::validate(&node, &refs)?;
    let mut r = op.kernel().unwrap()(&node, ins)?;
    Ok(r.remove(0))
}

#[test]
fn data_movement() {
    let a = ints_t(DType::I8, &[2, 3], &[1, 2, 3, 4, 5, 6]);
    let perms = ints_t(DType::I32, &[2], &[1, 0]);
    let r = apply(
        TosaOp::Transpose,
        &[("perms", perms)],
        &[&a],
        (DType::I8, &[3, 2]),
    )
    .unwrap();
    assert_eq!(r.ints(), &[1, 4, 2, 5, 3, 6]);

    let padding = ints_t(DType::I32, &[4], &[1, 0, 0, 2]);
    let pc = ints_t(DType::I8, &[1], &[-9]);
    let r = apply(
        TosaOp::Pad,
        &[("padding", padding), ("pad_const", pc)],
        &[&a],
        (DType::I8, &[3, 5]),
    )
    .unwrap();
    assert_eq!(
        r.ints(),
        &[-9, -9, -9, -9, -9, 1, 2, 3, -9, -9, 4, 5, 6, -9, -9]
    );

    let start = ints_t(DType::I32, &[2], &[1, 1]);
    let size = ints_t(DType::I32, &[2], &[1, 2]);
    let r = apply(
        TosaOp::Slice,
        &[("start", start.clone()), ("size", size)],
        &[&a],
        (DType::I8, &[1, 2]),
    )
    .unwrap();
    assert_eq!(r.ints(), &[5, 6]);
    let too_far = ints_t(DType::I32, &[2], &[1, 3]);
    assert!(
        apply(
            TosaOp::Slice,
            &[("start", start), ("size", too_far)],
            &[&a],
            (DType::I8, &[1, 3])
        )
        .is_err()
    );

    let r = apply(
        TosaOp::Concat,
        &[("axis", scalar_i32(1))],
        &[&a, &a],
        (DType::I8, &[2, 6]),
    )
    .unwrap();
    assert_eq!(r.ints(), &[1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6]);

    let mult = ints_t(DType::I32, &[2], &[2, 1]);
    let r = apply(
        TosaOp::Tile,
        &[("multiples", mult)],
        &[&a],
        (DType::I8, &[4, 3]),
    )
    .unwrap();
    assert_eq!(&r.ints()[6..], &[1, 2, 3, 4, 5, 6]);

    let r = apply(
        TosaOp::Reverse,
        &[("axis", scalar_i32(1))],
        &[&a],
        (DType::I8, &[2, 3]),
    )
    .unwrap();
    assert_eq!(r.ints(), &[3, 2, 1, 6, 5, 4]);

    let shape = ints_t(DType::I32, &[1], &[6]);
    let r = apply(
        TosaOp::Reshape,
        &[("shape", shape)],
        &[&a],
        (DType::I8, &[6]),
    )
    .unwrap();
    assert_eq!(r.ints(), a.ints());

    // GATHER / SCATTER: an index outside K reads 0 and drops the write.
    let values = floats_t(DType::F32, &[1, 3, 2], &[0.0, 1.0, 10.0, 11.0, 20.0, 21.0]);
    let idx = ints_t(DType::I32, &[1, 3], &[2, 7, 0]);
    let r = apply(
        TosaOp::Gather,
        &[],
        &[&values, &idx],
        (DType::F32, &[1, 3, 2]),
    )
    .unwrap();
    assert_eq!(r.floats(), &[20.0, 21.0, 0.0, 0.0, 0.0, 1.0]);
    let upd = floats_t(
        DType::F32,
        &[1, 3, 2],
        &[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0],
    );
    let r = apply(
        TosaOp::Scatter,
        &[],
        &[&values, &idx, &upd],
        (DType::F32, &[1, 3, 2]),
    )
    .unwrap();
    assert_eq!(r.floats(), &[-5.0, -6.0, 10.0, 11.0, -1.0, -2.0]);
}

#[test]
fn reductions_and_nan_modes() {
    let a = floats_t(DType::F32, &[2, 3], &[1.0, f64::NAN, 3.0, -1.0, -2.0, -0.5]);
    let prop = scalar_i32(1);
    let ign = scalar_i32(2);
    let r = apply(
        TosaOp::ReduceMax,
        &[("axis", scalar_i32(1)), ("nan_mode", prop.clone())],
        &[&a],
        (DType::F32, &[2, 1]),
    )
    .unwrap();
    assert!(r.floats()[0].is_nan());
    assert_eq!(r.floats()[1], -0.5);
    let r = apply(
        TosaOp::ReduceMax,
        &[("axis", scalar_i32(1)), ("nan_mode", ign.clone())],
        &[&a],
        (DType::F32, &[2, 1]),
    )
    .unwrap();
    assert_eq!(r.floats(), &[3.0, -0.5]);
    let r = apply(
        TosaOp::ArgMax,
        &[("axis", scalar_i32(1)), ("nan_mode", prop)],
        &[&a],
        (DType::I32, &[2]),
    )
    .unwrap();
    assert_eq!(r.ints(), &[1, 2]);
    let r = apply(
        TosaOp::ArgMax,
        &[("axis", scalar_i32(1)), ("nan_mode", ign)],
        &[&a],
        (DType::I32, &[2]),
    )
    .unwrap();
    assert_eq!(r.ints(), &[2, 2]);
    // EXT-FP8E4M3 / EXT-FP8E5M2: ARGMAX takes fp8 inputs (fp8 → i32).
    for t in [DType::Fp8E4m3, DType::Fp8E5m2] {
        let f = floats_t(t, &[4], &[0.5, -2.0, 3.0, 1.0]);
        let r = apply(
            TosaOp::ArgMax,
            &[("axis", scalar_i32(0)), ("nan_mode", scalar_i32(1))],
            &[&f],
            (DType::I32, &[1]),
        )
        .unwrap();
        assert_eq!(r.ints(), &[2], "{t:?}");
    }
    let b = ints_t(DType::I32, &[2, 2], &[1, 2, 3, i64::from(i32::MAX)]);
    let r = apply(
        TosaOp::ReduceSum,
        &[("axis", scalar_i32(0))],
        &[&b],
        (DType::I32, &[1, 2]),
    )
    .unwrap();
    assert_eq!(r.ints(), &[4, i64::from(i32::MIN) + 1]);
    // Float sums round once (f16: 2048 + 1 + 1 is 2050, not 2048 + 1 → 2048 twice).
    let h = floats_t(DType::F16, &[3], &[2048.0, 1.0, 1.0]);
    let r = apply(
        TosaOp::ReduceSum,
        &[("axis", scalar_i32(0))],
        &[&h],
        (DType::F16, &[1]),
    )
    .unwrap();
    assert_eq!(r.floats(), &[2050.0]);
    // The axis must exist.
    assert!(
        apply(
            TosaOp::ReduceSum,
            &[("axis", scalar_i32(2))],
            &[&b],
            (DType::I32, &[1, 2])
        )
        .is_err()
    );
}

#[test]
fn elementwise_integer_rules() {
    let a = ints_t(DType::I32, &[4], &[7, -7, i64::from(i32::MIN), 5]);
    let b = ints_t(DType::I32, &[4], &[2, 2, -1, 0]);
    // INTDIV truncates toward zero; MIN / −1 wraps; a zero divisor gives 0 (unpredictable).
    let r = apply(TosaOp::Intdiv, &[], &[&a, &b], (DType::I32, &[4])).unwrap();
    assert_eq!(r.ints(), &[3, -3, i64::from(i32::MIN), 0]);
    // MUL with shift rounds: 7·2 = 14 >> 2 → 3.5 → 4; −7·2 = −14 → −3.5 → −3.
    let shift = ints_t(DType::I8, &[1], &[2]);
    let r = apply(
        TosaOp::Mul,
        &[("shift", shift)],
        &[&a, &b],
        (DType::I32, &[4]),
    )
    .unwrap();
    assert_eq!(&r.ints()[..2], &[4, -3]);
    // ARITHMETIC_RIGHT_SHIFT with round adds the last bit shifted out.
    let x = ints_t(DType::I8, &[3], &[7, -7, -128]);
    let s = ints_t(DType::I8, &[3], &[1, 1, 7]);
    let r = apply(
        TosaOp::ArithmeticRightShift,
        &[("round", t(DType::Bool, &[], Values::Bool(vec![true])))],
        &[&x, &s],
        (DType::I8, &[3]),
    )
    .unwrap();
    assert_eq!(r.ints(), &[4, -3, -1]);
    // LOGICAL_RIGHT_SHIFT shifts the type's bits unsigned; LEFT wraps in the type.
    let r = apply(TosaOp::LogicalRightShift, &[], &[&x, &s], (DType::I8, &[3])).unwrap();
    assert_eq!(r.ints(), &[3, 124, 1]);
    let r = apply(TosaOp::LogicalLeftShift, &[], &[&x, &s], (DType::I8, &[3])).unwrap();
    assert_eq!(r.ints(), &[14, -14, 0]);
    // NEGATE i8 with zero points clips to the type.
    let izp = ints_t(DType::I8, &[1], &[-128]);
    let ozp = ints_t(DType::I8, &[1], &[0]);
    let r = apply(
        TosaOp::Negate,
        &[("input1_zp", izp), ("output_zp", ozp)],
        &[&x],
        (DType::I8, &[3]),
    )
    .unwrap();
    // −(7 + 128) = −135 → −128; −(−7 + 128) = −121; −(0) = 0.
    assert_eq!(r.ints(), &[-128, -121, 0]);
    // CLZ.
    let c = ints_t(DType::I32, &[3], &[0, 1, -1]);
    let r = apply(TosaOp::Clz, &[], &[&c], (DType::I32, &[3])).unwrap();
    assert_eq!(r.ints(), &[32, 31, 0]);
    // Types outside the operator's table are rejected.
    assert!(apply(TosaOp::Intdiv, &[], &[&x, &x], (DType::I8, &[3])).is_err());
}

#[test]
fn clamp_cast_and_table() {
    let f = floats_t(DType::F32, &[4], &[-3.0, f64::NAN, 0.5, 9.0]);
    let lo = floats_t(DType::F32, &[], &[-1.0]);
    let hi = floats_t(DType::F32, &[], &[1.0]);
    let r = apply(
        TosaOp::Clamp,
        &[
            ("min_val", lo.clone()),
            ("max_val", hi.clone()),
            ("nan_mode", scalar_i32(2)),
        ],
        &[&f],
        (DType::F32, &[4]),
    )
    .unwrap();
    assert_eq!(r.floats(), &[-1.0, -1.0, 0.5, 1.0]);
    let r = apply(
        TosaOp::Clamp,
        &[
            ("min_val", lo.clone()),
            ("max_val", hi.clone()),
            ("nan_mode", scalar_i32(1)),
        ],
        &[&f],
        (DType::F32, &[4]),
    )
    .unwrap();
    assert!(r.floats()[1].is_nan());
    assert!(
        apply(
            TosaOp::Clamp,
            &[
                ("min_val", hi),
                ("max_val", lo),
                ("nan_mode", scalar_i32(1))
            ],
            &[&f],
            (DType::F32, &[4])
        )
        .is_err()
    );

    // CAST float → int rounds ties to even and saturates; int → int truncates.
    let g = floats_t(DType::F32, &[5], &[2.5, 3.5, -2.5, 1e10, -1e10]);
    let r = apply(TosaOp::Cast, &[], &[&g], (DType::I8, &[5])).unwrap();
    assert_eq!(r.ints(), &[2, 4, -2, 127, -128]);
    let i = ints_t(DType::I32, &[2], &[300, -1]);
    let r = apply(TosaOp::Cast, &[], &[&i], (DType::I8, &[2])).unwrap();
    assert_eq!(r.ints(), &[44, -1]);
    let r = apply(TosaOp::Cast, &[], &[&i], (DType::Bool, &[2])).unwrap();
    assert_eq!(r.bools(), &[true, true]);
    // NEGATE f32: its zero points are f32 zeros.
    let zp = floats_t(DType::F32, &[1], &[0.0]);
    let r = apply(
        TosaOp::Negate,
        &[("input1_zp", zp.clone()), ("output_zp", zp)],
        &[&f],
        (DType::F32, &[4]),
    )
    .unwrap();
    assert_eq!((r.floats()[0], r.floats()[3]), (3.0, -9.0));
    // f32 → f16 rounds to nearest even.
    let h = floats_t(DType::F32, &[1], &[1.0 + 1.0 / 2048.0]);
    let r = apply(TosaOp::Cast, &[], &[&h], (DType::F16, &[1])).unwrap();
    assert_eq!(r.floats(), &[1.0]);

    // TABLE i16: 513 entries, interpolated; out i32.
    let table: Vec<i64> = (0..513).map(|k| k * 2).collect();
    let tt = ints_t(DType::I16, &[513], &table);
    let x = ints_t(DType::I16, &[3], &[-32768, 0, 32767]);
    let r = apply(TosaOp::Table, &[("table", tt)], &[&x], (DType::I32, &[3])).unwrap();
    // value = x + 32768; index = value >> 7, fraction = value & 127:
    // −32768 → 0; 0 → index 256: 512 << 7 = 65536; 32767 → index 511, fraction 127:
    // (1022 << 7) + 2·127 = 131070.
    assert_eq!(r.ints(), &[0, 65536, 131070]);
    let short = ints_t(DType::I8, &[10], &[0; 10]);
    let x8 = ints_t(DType::I8, &[1], &[0]);
    assert!(
        apply(
            TosaOp::Table,
            &[("table", short)],
            &[&x8],
            (DType::I8, &[1])
        )
        .is_err()
    );
}

#[test]
fn avg_pool_and_depthwise() {
    // AVG_POOL2D i8 3×3 window with padding 1: the corner averages 4 real taps.
    let x = ints_t(DType::I8, &[1, 2, 2, 1], &[10, 20, 30, 41]);
    let attrs = [
        ("kernel", ints_t(DType::I32, &[2], &[3, 3])),
        ("stride", ints_t(DType::I32, &[2], &[1, 1])),
        ("pad", ints_t(DType::I32, &[4], &[1, 1, 1, 1])),
        ("acc_type", scalar_i32(1)),
        ("input_zp", ints_t(DType::I8, &[1], &[0])),
        ("output_zp", ints_t(DType::I8, &[1], &[-1])),
    ];
    let r = apply(TosaOp::AvgPool2d, &attrs, &[&x], (DType::I8, &[1, 2, 2, 1])).unwrap();
    // (10 + 20 + 30 + 41) / 4 = 25.25 → 25 by reciprocal_scale, − 1.
    assert_eq!(r.ints(), &[24, 24, 24, 24]);

    // DEPTHWISE_CONV2D f32: C = 2, M = 2, 1×1 kernel: each output channel c·M + m scales
    // input channel c by w[c][m].
    let x = floats_t(DType::F32, &[1, 1, 1, 2], &[3.0, 5.0]);
    let w = floats_t(DType::F32, &[1, 1, 2, 2], &[1.0, 2.0, 10.0, 20.0]);
    let b = floats_t(DType::F32, &[4], &[0.5, 0.0, 0.0, 0.0]);
    let zp = floats_t(DType::F32, &[1], &[0.0]);
    let attrs = [
        ("pad", ints_t(DType::I32, &[4], &[0, 0, 0, 0])),
        ("stride", ints_t(DType::I32, &[2], &[1, 1])),
        ("dilation", ints_t(DType::I32, &[2], &[1, 1])),
        ("acc_type", scalar_i32(3)),
        (
            "local_bound",
            t(DType::Bool, &[], Values::Bool(vec![false])),
        ),
        ("input_zp", zp.clone()),
        ("weight_zp", zp),
    ];
    let r = apply(
        TosaOp::DepthwiseConv2d,
        &attrs,
        &[&x, &w, &b],
        (DType::F32, &[1, 1, 1, 4]),
    )
    .unwrap();
    assert_eq!(r.floats(), &[3.5, 6.0, 50.0, 100.0]);
}

#[test]
fn transpose_conv_resize_conv3d() {
    let zero = floats_t(DType::F32, &[1], &[0.0]);
    let no = t(DType::Bool, &[], Values::Bool(vec![false]));
    // TRANSPOSE_CONV2D: each input pixel scatters its weight window; overlaps add.
    let x = floats_t(DType::F32, &[1, 1, 2, 1], &[1.0, 2.0]);
    let w = floats_t(DType::F32, &[1, 2, 2, 1], &[1.0, 2.0, 3.0, 4.0]);
    let b = floats_t(DType::F32, &[1], &[0.5]);
    let attrs = [
        ("out_pad", ints_t(DType::I32, &[4], &[0, 0, 0, 0])),
        ("stride", ints_t(DType::I32, &[2], &[1, 1])),
        ("acc_type", scalar_i32(3)),
        ("local_bound", no.clone()),
        ("input_zp", zero.clone()),
        ("weight_zp", zero.clone()),
    ];
    let r = apply(
        TosaOp::TransposeConv2d,
        &attrs,
        &[&x, &w, &b],
        (DType::F32, &[1, 2, 3, 1]),
    )
    .unwrap();
    assert_eq!(r.floats(), &[1.5, 4.5, 4.5, 3.5, 10.5, 8.5]);
    assert!(
        apply(
            TosaOp::TransposeConv2d,
            &attrs,
            &[&x, &w, &b],
            (DType::F32, &[1, 2, 2, 1])
        )
        .is_err()
    );

    // RESIZE ×2 with border 1: nearest picks rows/columns [0, 1, 1, 1]; integer bilinear is
    // scaled by scale_y_n·scale_x_n = 4.
    let x = ints_t(DType::I8, &[1, 2, 2, 1], &[1, 2, 3, 4]);
    let attrs = |mode: i64| {
        [
            ("mode", scalar_i32(mode)),
            ("scale", ints_t(DType::I32, &[4], &[2, 1, 2, 1])),
            ("offset", ints_t(DType::I32, &[2], &[0, 0])),
            ("border", ints_t(DType::I32, &[2], &[1, 1])),
        ]
    };
    let r = apply(TosaOp::Resize, &attrs(1), &[&x], (DType::I8, &[1, 4, 4, 1])).unwrap();
    assert_eq!(r.ints(), &[1, 2, 2, 2, 3, 4, 4, 4, 3, 4, 4, 4, 3, 4, 4, 4]);
    let r = apply(
        TosaOp::Resize,
        &attrs(2),
        &[&x],
        (DType::I32, &[1, 4, 4, 1]),
    )
    .unwrap();
    assert_eq!((r.ints()[0], r.ints()[5]), (4, 10));
    assert!(apply(TosaOp::Resize, &attrs(2), &[&x], (DType::I8, &[1, 4, 4, 1])).is_err());

    // CONV3D with a 1×1×1 kernel: a scale and a bias.
    let x = floats_t(DType::F32, &[1, 1, 1, 2, 1], &[3.0, 5.0]);
    let w = floats_t(DType::F32, &[1, 1, 1, 1, 1], &[2.0]);
    let b = floats_t(DType::F32, &[1], &[1.0]);
    let attrs = [
        ("pad", ints_t(DType::I32, &[6], &[0; 6])),
        ("stride", ints_t(DType::I32, &[3], &[1, 1, 1])),
        ("dilation", ints_t(DType::I32, &[3], &[1, 1, 1])),
        ("acc_type", scalar_i32(3)),
        ("local_bound", no),
        ("input_zp", zero.clone()),
        ("weight_zp", zero),
    ];
    let r = apply(
        TosaOp::Conv3d,
        &attrs,
        &[&x, &w, &b],
        (DType::F32, &[1, 1, 1, 2, 1]),
    )
    .unwrap();
    assert_eq!(r.floats(), &[7.0, 11.0]);
}

#[test]
fn rfft2d_returns_a_struct_unpacked_by_composite_extract() {
    let mut a = Asm::new();
    let f32t = a.float(32);
    let tin = a.tensor(f32t, &[1, 2, 4]);
    let tout = a.tensor(f32t, &[1, 2, 3]);
    let pair = a.struct_of(&[tout, tout]);
    let x = a.input(tin, 0);
    let lb = a.boolc(false);
    let r = a.op(pair, RFFT2D, &[lb, x]);
    let re = a.extract(tout, r, 0);
    let im = a.extract(tout, r, 1);
    a.output(re, tout, 1);
    a.output(im, tout, 2);
    let g = compile(&a.finish(), &Inputs::default()).unwrap();
    let x = floats_t(
        DType::F32,
        &[1, 2, 4],
        &[1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0],
    );
    let out = run(&g, &[x]).unwrap();
    // Row 1 is zero, so every output row is the 4-point DFT of [1 2 3 4]: 10, −2 + 2i, −2.
    let close = |got: &[f64], want: &[f64]| got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-6);
    assert!(
        close(out[0].floats(), &[10.0, -2.0, -2.0, 10.0, -2.0, -2.0]),
        "{:?}",
        out[0].floats()
    );
    assert!(
        close(out[1].floats(), &[0.0, 2.0, 0.0, 0.0, 2.0, 0.0]),
        "{:?}",
        out[1].floats()
    );
    // The first and Nyquist columns of a real input's transform are exactly real.
    for k in [0, 2, 3, 5] {
        assert_eq!(out[1].floats()[k], 0.0, "imaginary part {k}");
    }
    // W must be a power of two.
    let mut a = Asm::new();
    let f32t = a.float(32);
    let tin = a.tensor(f32t, &[1, 2, 3]);
    let tout = a.tensor(f32t, &[1, 2, 2]);
    let pair = a.struct_of(&[tout, tout]);
    let x = a.input(tin, 0);
    let lb = a.boolc(false);
    let r = a.op(pair, RFFT2D, &[lb, x]);
    let re = a.extract(tout, r, 0);
    a.output(re, tout, 1);
    assert!(compile(&a.finish(), &Inputs::default()).is_err());
}

#[test]
fn specialization_constants_reach_attributes() {
    // MUL i32 with a shift tensor built from a spec constant (SpecId 4, default 0).
    let mut a = Asm::new();
    let i32t = a.int(32);
    let i8t = a.int(8);
    let t = a.tensor(i32t, &[2]);
    let x = a.input(t, 0);
    let shift_t = a.tensor(i8t, &[1]);
    let s = a.spec(i8t, 0, 4);
    let shift = a.tensor_const(shift_t, &[s]);
    let m = a.op(t, crate::testing::MUL, &[x, x, shift]);
    a.output(m, t, 1);
    let words = a.finish();
    let input = ints_t(DType::I32, &[2], &[3, 5]);
    let g = compile(&words, &Inputs::default()).unwrap();
    assert_eq!(
        run(&g, std::slice::from_ref(&input)).unwrap()[0].ints(),
        &[9, 25]
    );
    let mut inputs = Inputs::default();
    inputs.specialization.insert(4, vec![1]);
    let g = compile(&words, &inputs).unwrap();
    // (9 + 1) >> 1 = 5, (25 + 1) >> 1 = 13.
    assert_eq!(run(&g, &[input]).unwrap()[0].ints(), &[5, 13]);
}

#[test]
fn a_huge_null_constant_is_refused_not_allocated() {
    // 2^25 elements from a one-word OpConstantNull.
    let mut a = Asm::new();
    let f32t = a.float(32);
    let t = a.tensor(f32t, &[8192, 4096]);
    let x = a.input(t, 0);
    let zero = a.null(t);
    let s = a.op(t, ADD, &[x, zero]);
    a.output(s, t, 1);
    let e = compile(&a.finish(), &Inputs::default()).unwrap_err();
    assert!(e.message.contains("more than"), "{e}");
}
