//! Window kernels of the execution plan: DEPTHWISE_CONV2D (float32 with a float32
//! accumulator, int8 with int32 ones and an optional fused RESCALE), MAX_POOL2D and AVG_POOL2D
//! (float32, int8). One driver ([`Windows::run`]) walks each output pixel's taps in the reference
//! kernels' (ky, kx) order, skipping taps outside the input, with the pixel's channels as one
//! vector; each kernel does the reference's arithmetic in the same order, so results are
//! bit-exact with it. Output rows are split over the worker pool.
//!
//! Invariants: every kernel reads only inside its operands (offsets come from the checked
//! geometry) and writes only its result.

use super::{f32s, for_row_blocks};
use crate::dtype::DType;
use crate::error::{GraphError, Result};
use crate::ir::{Graph, Node};
use crate::kernels;
use crate::kernels::quant::{Requant, apply_scale_32, reciprocal_scale};

/// [`Windows::run`]'s per-tap step: `(accumulators, input offset, weight offset)`.
type Tap<'a, A> = dyn Fn(&mut [A], usize, usize) + Sync + 'a;
/// [`Windows::run`]'s per-pixel step: `(accumulators, taps inside, results)`.
type Finish<'a, A, T> = dyn Fn(&[A], usize, &mut [T]) + Sync + 'a;

/// Windows over an NHWC input `[N, IH, IW, IC]`: the taps a DEPTHWISE_CONV2D (weights
/// `[KH, KW, IC, M]`, result `[N, OH, OW, IC·M]`) or a pooling (`M` = 1) reads for each output
/// pixel, with the reference kernels' geometry.
pub(super) struct Windows {
    ih: usize,
    iw: usize,
    ic: usize,
    m: usize,
    kh: usize,
    kw: usize,
    geo: kernels::conv::Geometry,
}

impl Windows {
    fn depthwise(g: &Graph, node: &Node) -> Result<Windows> {
        let (x, w) = (&g.values[node.inputs[0]], &g.values[node.inputs[1]]);
        let (kh, kw, ic, m) = (w.shape[0], w.shape[1], w.shape[2], w.shape[3]);
        let geo = kernels::conv::geometry(node, x, kh, kw, ic * m)?;
        Ok(Windows {
            ih: x.shape[1],
            iw: x.shape[2],
            ic,
            m,
            kh,
            kw,
            geo,
        })
    }

    /// MAX_POOL2D's or AVG_POOL2D's windows (their attributes were checked when the graph was).
    fn pool(g: &Graph, node: &Node) -> Result<Windows> {
        let x = &g.values[node.inputs[0]];
        let (k, s, p) = (
            kernels::ints(node, "kernel")?,
            kernels::ints(node, "stride")?,
            kernels::ints(node, "pad")?,
        );
        let out = &node.out[0].shape;
        if k.len() != 2 || s.len() != 2 || p.len() != 4 || x.shape.len() != 4 || out.len() != 4 {
            return Err(GraphError::new(
                "Tessera",
                "internal error: pooling attributes",
            ));
        }
        let u = |v: i64| usize::try_from(v).unwrap_or(0);
        Ok(Windows {
            ih: x.shape[1],
            iw: x.shape[2],
            ic: x.shape[3],
            m: 1,
            kh: u(k[0]),
            kw: u(k[1]),
            geo: kernels::conv::Geometry {
                pad: [u(p[0]), u(p[1]), u(p[2]), u(p[3])],
                stride: [u(s[0]).max(1), u(s[1]).max(1)],
                dilation: [1, 1],
                out: [out[0], out[1], out[2], out[3]],
            },
        })
    }

    fn oc(&self) -> usize {
        self.ic * self.m
    }

    /// Runs the windows into `d` (`N·OH` rows of `OW·OC` results) on the worker pool: for each
    /// output pixel, `acc` (one per output channel) is set to `init`, `tap(acc, pixel, tap)`
    /// adds each tap that reads inside the input (input element offset of the pixel's first
    /// channel, weight offset of the tap's first channel) in the reference's (ky, kx) order,
    /// and `finish(acc, taps, out)` writes the pixel's results (`taps`: how many were inside).
    fn run<T: Copy + Send, A: Copy + Sync>(
        &self,
        d: &mut [T],
        init: A,
        tap: &Tap<'_, A>,
        finish: &Finish<'_, A, T>,
    ) -> Result<()> {
        let [batches, oh, ow, oc] = self.geo.out;
        let rows = batches * oh;
        let work = d.len().saturating_mul(self.kh * self.kw);
        let tasks = if work >= 1 << 18 {
            tessera_workers::global().threads().min(rows).max(1)
        } else {
            1
        };
        for_row_blocks(d, ow * oc, rows, tasks, &|r0, nr, block| {
            let mut acc = vec![init; oc];
            for r in 0..nr {
                let (b, oy) = ((r0 + r) / oh, (r0 + r) % oh);
                for ox in 0..ow {
                    acc.fill(init);
                    let mut taps = 0;
                    let (input, kernel) = ((self.ih, self.iw), (self.kh, self.kw));
                    self.geo.each_tap(input, kernel, oy, ox, |ky, kx, y, x| {
                        let pixel = ((b * self.ih + y) * self.iw + x) * self.ic;
                        tap(&mut acc, pixel, (ky * self.kw + kx) * oc);
                        taps += 1;
                    });
                    let at = (r * ow + ox) * oc;
                    finish(&acc, taps, &mut block[at..at + oc]);
                }
            }
            Ok(())
        })
    }
}

/// Bias per output channel (a `[1]` bias broadcast).
fn per_channel<T: Copy + Default>(bias: &[T], oc: usize) -> Vec<T> {
    (0..oc)
        .map(|o| {
            bias.get(if bias.len() == 1 { 0 } else { o })
                .copied()
                .unwrap_or_default()
        })
        .collect()
}

/// `acc[c·m + j] = mac(acc[c·m + j], x[c], w[c·m + j])` for a pixel's channels `c` and their
/// `m` multipliers, with AVX2 when the CPU has it (the loops vectorise over the channels).
fn multiply_add<A: Copy, X: Copy, W: Copy>(
    avx2: bool,
    acc: &mut [A],
    x: &[X],
    w: &[W],
    m: usize,
    mac: impl Fn(A, X, W) -> A + Copy,
) {
    #[inline(always)]
    fn body<A: Copy, X: Copy, W: Copy>(
        acc: &mut [A],
        x: &[X],
        w: &[W],
        m: usize,
        mac: impl Fn(A, X, W) -> A,
    ) {
        if m == 1 {
            for ((a, &x), &w) in acc.iter_mut().zip(x).zip(w) {
                *a = mac(*a, x, w);
            }
        } else {
            for ((a, w), &x) in acc.chunks_exact_mut(m).zip(w.chunks_exact(m)).zip(x) {
                for (a, &w) in a.iter_mut().zip(w) {
                    *a = mac(*a, x, w);
                }
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn with_avx2<A: Copy, X: Copy, W: Copy>(
        acc: &mut [A],
        x: &[X],
        w: &[W],
        m: usize,
        mac: impl Fn(A, X, W) -> A,
    ) {
        body(acc, x, w, m, mac)
    }
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` says the CPU has AVX2.
        unsafe { with_avx2(acc, x, w, m, mac) };
        return;
    }
    let _ = avx2;
    body(acc, x, w, m, mac)
}

fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Float32 DEPTHWISE_CONV2D: the reference's arithmetic (taps in (ky, kx) order, padded taps
/// skipped, the bias added to the float32 sum), the channels in SIMD lanes.
pub(super) fn depthwise_f32(g: &Graph, node: &Node, args: &[&[u8]], dest: &mut [u8]) -> Result<()> {
    let dw = Windows::depthwise(g, node)?;
    let (x, w, bias) = (f32s(args[0]), f32s(args[1]), f32s(args[2]));
    let (oc, ic, m) = (dw.oc(), dw.ic, dw.m);
    let bias = per_channel(&bias, oc);
    let d: &mut [f32] = bytemuck::try_cast_slice_mut(dest)
        .map_err(|_| GraphError::new("Tessera", "internal error: misaligned result buffer"))?;
    let avx2 = has_avx2();
    let (x, w) = (&x[..], &w[..]);
    dw.run(
        d,
        0.0,
        &|acc: &mut [f32], pixel, tap| {
            // Product and sum each rounded to float32, as the reference's accumulator does.
            multiply_add(
                avx2,
                acc,
                &x[pixel..pixel + ic],
                &w[tap..tap + oc],
                m,
                |a, x, w| a + x * w,
            )
        },
        &|acc, _, out| {
            for ((o, &a), &b) in out.iter_mut().zip(acc).zip(&bias) {
                *o = a + b;
            }
        },
    )
}

/// int8 DEPTHWISE_CONV2D (int32 accumulators, wrapping like the reference), each result plus
/// the bias stored as i32 or, with `requant`, rescaled to int8.
pub(super) fn depthwise_i8(
    g: &Graph,
    node: &Node,
    requant: Option<&Requant>,
    args: &[&[u8]],
    dest: &mut [u8],
) -> Result<()> {
    let dw = Windows::depthwise(g, node)?;
    let izp = kernels::zero_point(node, "input_zp")? as i32;
    let wzp = kernels::zero_point(node, "weight_zp")? as i32;
    let (oc, ic, m) = (dw.oc(), dw.ic, dw.m);
    let x: &[i8] = bytemuck::cast_slice(args[0]);
    let w: Vec<i32> = bytemuck::cast_slice::<u8, i8>(args[1])
        .iter()
        .map(|&v| i32::from(v) - wzp)
        .collect();
    let bias: Vec<i32> = args[2]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let bias = per_channel(&bias, oc);
    let avx2 = has_avx2();
    let w = &w[..];
    let tap = |acc: &mut [i32], pixel: usize, tap: usize| {
        // Wrapping i32, `w` already less its zero point.
        multiply_add(
            avx2,
            acc,
            &x[pixel..pixel + ic],
            &w[tap..tap + oc],
            m,
            |a: i32, x: i8, w: i32| a.wrapping_add((i32::from(x) - izp).wrapping_mul(w)),
        )
    };
    match requant {
        Some(q) => {
            let d: &mut [i8] = bytemuck::cast_slice_mut(dest);
            dw.run(d, 0, &tap, &|acc, _, out| {
                for (o, (d, (&a, &b))) in out.iter_mut().zip(acc.iter().zip(&bias)).enumerate() {
                    *d = q.apply(a.wrapping_add(b), o);
                }
            })
        }
        None => {
            let d: &mut [i32] = bytemuck::try_cast_slice_mut(dest).map_err(|_| {
                GraphError::new("Tessera", "internal error: misaligned result buffer")
            })?;
            dw.run(d, 0, &tap, &|acc, _, out| {
                for ((o, &a), &b) in out.iter_mut().zip(acc).zip(&bias) {
                    *o = a.wrapping_add(b);
                }
            })
        }
    }
}

/// Float32 MAX_POOL2D: the reference's `apply_max_s` fold from −∞ over the taps in its order
/// (NaN mode PROPAGATE or IGNORE), a NaN result quieted as the reference's float64 round trip
/// quiets it.
pub(super) fn max_pool_f32(
    g: &Graph,
    node: &Node,
    nan_ignore: bool,
    args: &[&[u8]],
    dest: &mut [u8],
) -> Result<()> {
    let win = Windows::pool(g, node)?;
    let x = f32s(args[0]);
    let c = win.ic;
    let d: &mut [f32] = bytemuck::try_cast_slice_mut(dest)
        .map_err(|_| GraphError::new("Tessera", "internal error: misaligned result buffer"))?;
    let x = &x[..];
    win.run(
        d,
        f32::NEG_INFINITY,
        &|acc: &mut [f32], pixel, _| {
            for (a, &v) in acc.iter_mut().zip(&x[pixel..pixel + c]) {
                *a = match (a.is_nan(), v.is_nan()) {
                    (false, false) => {
                        if *a >= v {
                            *a
                        } else {
                            v
                        }
                    }
                    (true, false) if nan_ignore => v,
                    (false, true) if !nan_ignore => v,
                    _ => *a,
                };
            }
        },
        &|acc, _, out| {
            for (o, &a) in out.iter_mut().zip(acc) {
                *o = if a.is_nan() {
                    f32::from_bits(a.to_bits() | 0x0040_0000)
                } else {
                    a
                };
            }
        },
    )
}

/// int8 MAX_POOL2D.
pub(super) fn max_pool_i8(g: &Graph, node: &Node, args: &[&[u8]], dest: &mut [u8]) -> Result<()> {
    let win = Windows::pool(g, node)?;
    let x: &[i8] = bytemuck::cast_slice(args[0]);
    let c = win.ic;
    let d: &mut [i8] = bytemuck::cast_slice_mut(dest);
    win.run(
        d,
        i8::MIN,
        &|acc: &mut [i8], pixel, _| {
            for (a, &v) in acc.iter_mut().zip(&x[pixel..pixel + c]) {
                *a = (*a).max(v);
            }
        },
        &|acc, _, out| out.copy_from_slice(acc),
    )
}

/// Float32 AVG_POOL2D (float32 accumulator): the reference's float64 sum of the taps inside the
/// input, in its order from `Sum`'s own start, divided by their count and rounded once.
pub(super) fn avg_pool_f32(g: &Graph, node: &Node, args: &[&[u8]], dest: &mut [u8]) -> Result<()> {
    let win = Windows::pool(g, node)?;
    let x = f32s(args[0]);
    let c = win.ic;
    let d: &mut [f32] = bytemuck::try_cast_slice_mut(dest)
        .map_err(|_| GraphError::new("Tessera", "internal error: misaligned result buffer"))?;
    let x = &x[..];
    let zero: f64 = std::iter::empty::<f64>().sum();
    win.run(
        d,
        zero,
        &|acc: &mut [f64], pixel, _| {
            for (a, &v) in acc.iter_mut().zip(&x[pixel..pixel + c]) {
                *a += f64::from(v);
            }
        },
        &|acc, taps, out| {
            let n = taps.max(1) as f64;
            for (o, &a) in out.iter_mut().zip(acc) {
                *o = (a / n) as f32;
            }
        },
    )
}

/// int8 AVG_POOL2D: the sum of `x − input_zp` over the taps inside the input (i32: the plan
/// takes this kernel only for windows of at most 2^23 taps), scaled by TOSA's
/// `reciprocal_scale` of their count, plus `output_zp`, clipped to int8.
pub(super) fn avg_pool_i8(g: &Graph, node: &Node, args: &[&[u8]], dest: &mut [u8]) -> Result<()> {
    let win = Windows::pool(g, node)?;
    let izp = kernels::zero_point(node, "input_zp")? as i32;
    let ozp = kernels::zero_point(node, "output_zp")?;
    let x: &[i8] = bytemuck::cast_slice(args[0]);
    let c = win.ic;
    let d: &mut [i8] = bytemuck::cast_slice_mut(dest);
    win.run(
        d,
        0i32,
        &|acc: &mut [i32], pixel, _| {
            for (a, &v) in acc.iter_mut().zip(&x[pixel..pixel + c]) {
                *a += i32::from(v) - izp;
            }
        },
        &|acc, taps, out| {
            let (mult, shift) = reciprocal_scale(taps.max(1) as i64);
            for (o, &a) in out.iter_mut().zip(acc) {
                let scaled = apply_scale_32(i64::from(a), mult, shift, false);
                *o = DType::I8.clip_int(scaled + ozp) as i8;
            }
        },
    )
}
