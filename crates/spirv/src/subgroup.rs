//! Subgroup (`OpGroupNonUniform*`) operations over one subgroup's lanes.
//!
//! A subgroup is [`SUBGROUP_SIZE`] consecutive invocations of one workgroup by
//! `LocalInvocationIndex`; the last subgroup of a workgroup may be partial. The interpreter cuts
//! each lane group into subgroups per workgroup (so fused workgroups never mix) and calls
//! [`segment`] once per subgroup with that subgroup's active mask and operand rows.
//!
//! Invariants: only active lanes participate and only active lanes' results are written; a value
//! read from an inactive or nonexistent lane (a shuffle or broadcast source) is 0, so results are
//! deterministic; reductions and scans fold in increasing lane order (deterministic for floats).
//! Every function is total: no shader value can make it panic.

use crate::alu::{self, FBin, IBin, trunc};

/// Invocations per subgroup (the device's fixed `subgroupSize`).
pub const SUBGROUP_SIZE: usize = 32;

/// How a subgroup reduction combines lanes (`OpGroupNonUniform*` `GroupOperation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    /// Every active lane gets the combination of the active lanes of its cluster of `n`
    /// consecutive subgroup lanes (`Reduce` is `Clustered(32)`).
    Clustered(u32),
    Inclusive,
    Exclusive,
}

/// Combining operation of a reduction or scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    I(IBin),
    F(FBin),
}

/// One subgroup operation. `a` is the value operand, `b` the lane/mask/delta operand (unused
/// operands name any register). Ballots are 32-bit masks: the `x` component of a `uvec4` ballot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubOp {
    /// True in the lowest active lane only.
    Elect,
    All,
    Any,
    /// Every active lane's `a` is equal: bitwise for integers, `==` for floats (`float` set).
    AllEqual {
        float: bool,
    },
    /// Mask of active lanes whose `a` is true.
    Ballot,
    /// Bit `SubgroupLocalInvocationId` of `a`.
    InverseBallot,
    /// Set bits of `a` among all lanes (`Clustered(_)`), lanes `<=` this one or `<` this one.
    BitCount(Scan),
    /// `a` of lane `b` (also `OpGroupNonUniformShuffle`).
    Broadcast,
    /// `a` of the lowest active lane.
    BroadcastFirst,
    /// `a` of lane `self ^ b`.
    ShuffleXor,
    /// `a` of lane `self - b`.
    ShuffleUp,
    /// `a` of lane `self + b`.
    ShuffleDown,
    /// `a` of lane `(self & !3) + b` (`OpGroupNonUniformQuadBroadcast`).
    QuadBroadcast,
    /// `a` of lane `self ^ (b + 1)` for direction `b` in 0..=2 (`OpGroupNonUniformQuadSwap`).
    QuadSwap,
    Reduce(Arith, Scan),
}

impl SubOp {
    /// Whether the op reads its second operand `b` (a lane index, offset or direction):
    /// `segment` reads `b` for these ops only.
    pub(crate) fn reads_operand(self) -> bool {
        matches!(
            self,
            SubOp::Broadcast
                | SubOp::ShuffleXor
                | SubOp::ShuffleUp
                | SubOp::ShuffleDown
                | SubOp::QuadBroadcast
                | SubOp::QuadSwap
        )
    }
}

/// Identity element of `op` at width `w` (float width codes as in `alu`): what an exclusive
/// scan gives its first lane.
pub fn identity(op: Arith, w: u8) -> u64 {
    match op {
        Arith::I(IBin::Mul) => 1,
        Arith::I(IBin::UMin | IBin::And) => trunc(u64::MAX, w),
        Arith::I(IBin::SMin) => trunc(u64::MAX, w) >> 1,
        Arith::I(IBin::SMax) => trunc(1u64 << (w.clamp(1, 64) - 1), w),
        Arith::I(_) => 0,
        Arith::F(FBin::Mul) => alu::f_put(w, 1.0),
        Arith::F(FBin::Min) => alu::f_put(w, f64::INFINITY),
        Arith::F(FBin::Max) => alu::f_put(w, f64::NEG_INFINITY),
        Arith::F(_) => alu::f_put(w, 0.0),
    }
}

#[inline(always)]
fn combine(op: Arith, w: u8, x: u64, y: u64) -> u64 {
    match op {
        Arith::I(o) => alu::ibin(o, w, x, y),
        Arith::F(o) => alu::fbin(o, w, x, y),
    }
}

/// Runs `op` over one subgroup: `mask`, `a`, `b` and `out` are that subgroup's lanes (at most
/// [`SUBGROUP_SIZE`] each, all the same length); only active lanes of `out` are written.
pub(crate) fn segment(op: SubOp, w: u8, mask: &[bool], a: &[u64], b: &[u64], out: &mut [u64]) {
    let n = mask
        .len()
        .min(a.len())
        .min(b.len())
        .min(out.len())
        .min(SUBGROUP_SIZE);
    let active = mask[..n]
        .iter()
        .enumerate()
        .fold(0u64, |m, (i, &on)| m | (u64::from(on) << i));
    if active == 0 {
        return;
    }
    let first = active.trailing_zeros() as usize;
    // Value of lane `src` if it exists and is active, else 0.
    let read = |src: u64| -> u64 {
        match usize::try_from(src) {
            Ok(s) if s < n && mask[s] => a[s],
            _ => 0,
        }
    };
    let lanes = (0..n).filter(|&i| mask[i]);
    match op {
        SubOp::Elect => lanes.for_each(|i| out[i] = u64::from(i == first)),
        SubOp::All | SubOp::Any => {
            let mut all = true;
            let mut any = false;
            for i in lanes.clone() {
                all &= a[i] != 0;
                any |= a[i] != 0;
            }
            let r = u64::from(if op == SubOp::All { all } else { any });
            lanes.for_each(|i| out[i] = r);
        }
        SubOp::AllEqual { float } => {
            let v = a[first];
            let r = lanes.clone().all(|i| {
                if float {
                    alu::f_get(w, a[i]) == alu::f_get(w, v)
                } else {
                    a[i] == v
                }
            });
            lanes.for_each(|i| out[i] = u64::from(r));
        }
        SubOp::Ballot => {
            let bits = lanes
                .clone()
                .filter(|&i| a[i] != 0)
                .fold(0u64, |m, i| m | (1 << i));
            lanes.for_each(|i| out[i] = bits);
        }
        SubOp::InverseBallot => lanes.for_each(|i| out[i] = (a[i] >> i) & 1),
        SubOp::BitCount(scan) => {
            for i in lanes {
                let keep = match scan {
                    Scan::Clustered(_) => u64::from(u32::MAX),
                    Scan::Inclusive => (2u64 << i) - 1,
                    Scan::Exclusive => (1u64 << i) - 1,
                };
                out[i] = u64::from((a[i] & keep).count_ones());
            }
        }
        SubOp::Broadcast => lanes.for_each(|i| out[i] = read(b[i])),
        SubOp::BroadcastFirst => {
            let v = a[first];
            lanes.for_each(|i| out[i] = v);
        }
        SubOp::ShuffleXor => lanes.for_each(|i| out[i] = read(b[i] ^ i as u64)),
        SubOp::ShuffleUp => lanes.for_each(|i| {
            out[i] = (i as u64).checked_sub(b[i]).map(read).unwrap_or(0);
        }),
        SubOp::ShuffleDown => lanes.for_each(|i| out[i] = read((i as u64).saturating_add(b[i]))),
        SubOp::QuadBroadcast => lanes.for_each(|i| {
            out[i] = if b[i] < 4 {
                read((i as u64 & !3) + b[i])
            } else {
                0
            };
        }),
        SubOp::QuadSwap => lanes.for_each(|i| {
            out[i] = if b[i] < 3 {
                read(i as u64 ^ (b[i] + 1))
            } else {
                0
            };
        }),
        SubOp::Reduce(ar, Scan::Clustered(size)) => {
            let size = (size as usize).clamp(1, SUBGROUP_SIZE);
            for c in (0..n).step_by(size) {
                let end = (c + size).min(n);
                let mut acc: Option<u64> = None;
                for i in (c..end).filter(|&i| mask[i]) {
                    acc = Some(match acc {
                        None => a[i],
                        Some(x) => combine(ar, w, x, a[i]),
                    });
                }
                if let Some(v) = acc {
                    for i in (c..end).filter(|&i| mask[i]) {
                        out[i] = v;
                    }
                }
            }
        }
        SubOp::Reduce(ar, scan) => {
            let mut acc: Option<u64> = None;
            for i in lanes {
                let next = match acc {
                    None => a[i],
                    Some(x) => combine(ar, w, x, a[i]),
                };
                out[i] = if scan == Scan::Inclusive {
                    next
                } else {
                    acc.unwrap_or_else(|| identity(ar, w))
                };
                acc = Some(next);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_and_partial_segments() {
        assert_eq!(identity(Arith::I(IBin::SMin), 32), 0x7fff_ffff);
        assert_eq!(identity(Arith::I(IBin::SMax), 16), 0x8000);
        assert_eq!(identity(Arith::I(IBin::SMax), 64), 1 << 63);
        assert_eq!(identity(Arith::I(IBin::And), 1), 1);
        let mask = [true, false, true, true, false];
        let a = [5, 100, 7, 1, 100];
        let b = [0u64; 5];
        let mut out = [0u64; 5];
        segment(
            SubOp::Reduce(Arith::I(IBin::Add), Scan::Exclusive),
            32,
            &mask,
            &a,
            &b,
            &mut out,
        );
        assert_eq!(out, [0, 0, 5, 12, 0]);
        segment(SubOp::ShuffleDown, 32, &mask, &a, &[u64::MAX; 5], &mut out);
        assert_eq!(out, [0, 0, 0, 0, 0]);
        segment(SubOp::Broadcast, 32, &mask, &a, &[3, 0, 1, 2, 0], &mut out);
        assert_eq!(out, [1, 0, 0, 7, 0]);
        // Empty and over-long inputs do not panic.
        segment(SubOp::Elect, 32, &[], &[], &[], &mut []);
        segment(
            SubOp::BitCount(Scan::Inclusive),
            32,
            &[true; 40],
            &[u64::MAX; 40],
            &[0; 40],
            &mut [0; 40],
        );
    }
}
