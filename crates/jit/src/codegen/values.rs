//! How compiled code holds register values, by class (see `classes`):
//! - `Const`: nothing (the value is known);
//! - `Uniform`: one scalar — an integer of the register's width (`I8`…`I64`; bools are `I8` 0/1,
//!   floats their bits);
//! - `Affine`: one scalar, the value of lane 0 (lane `i` is `base + i·stride`);
//! - `Varying`: `bytes` vectors of 16 bytes (16 lanes: `I8X16` for 1-byte lanes, `I16X8`×2,
//!   `I32X4`×4, `I64X2`×8), bools as `I8X16` lanes of 0/1.
//!
//! [`JVal`] is a value in one of those forms; `Gen::get`/`Gen::set` move values in and out of
//! the Cranelift variables of a register, converting to the register's class on the way in
//! (a `resident` register has no variables: `get`/`set` load and store its row).
//! Register-file rows are read and written here too (`spill`, `reload_lanes`): chunk `c`'s lanes of a
//! row start at `row offset + 16·c·bytes`.

use crate::error::{JitError, JitResult};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{Endianness, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::Variable;
use tessera_spirv::ir::Reg;
use tessera_spirv::ir::liveness::RegSet;

use super::Gen;
use crate::classes::{Class, LANES, wrap};

/// A value in one of the representations of the module docs.
#[derive(Debug, Clone)]
pub(crate) enum JVal {
    Const(u64),
    Uniform(Value),
    /// Lane 0's value and the stride.
    Affine(Value, u64),
    Varying(Vec<Value>),
}

impl JVal {
    pub(crate) fn is_scalar(&self) -> bool {
        matches!(self, JVal::Const(_) | JVal::Uniform(_))
    }
}

/// A register's Cranelift variables.
#[derive(Debug, Clone)]
pub(crate) enum Vars {
    None,
    Scalar(Variable),
    Vectors(Vec<Variable>),
}

/// The scalar integer type of `bytes`-byte lanes.
pub(crate) fn scalar_ty(bytes: usize) -> Type {
    match bytes {
        1 => I8,
        2 => I16,
        4 => I32,
        _ => I64,
    }
}

/// The vector type of `bytes`-byte lanes.
pub(crate) fn vec_ty(bytes: usize) -> Type {
    match bytes {
        1 => I8X16,
        2 => I16X8,
        4 => I32X4,
        _ => I64X2,
    }
}

/// Lanes per 16-byte vector.
pub(crate) fn per_vec(bytes: usize) -> usize {
    16 / bytes
}

/// Memory flags for application memory (in bounds by construction, any alignment).
pub(crate) fn app_flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// Memory flags for the register file and the context (in bounds and aligned).
pub(crate) fn own_flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

pub(crate) fn lane_flags() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// The lanes a checked reload looks at (`Gen::reload_lanes`): an `I8X16` of 0/1 and the lowest
/// lane set in it (an `I64`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ActiveLanes {
    pub(crate) lanes: Value,
    pub(crate) first: Value,
}

impl Gen<'_> {
    pub(crate) fn bytes(&self, r: Reg) -> usize {
        self.ir.reg_types[r as usize].bytes()
    }

    /// The current value of register `r`.
    pub(crate) fn get(&mut self, r: Reg) -> JVal {
        if self.resident[r as usize] {
            let bytes = self.bytes(r);
            let addr = self.row_addr(r);
            let vt = vec_ty(bytes);
            return JVal::Varying(
                (0..bytes)
                    .map(|j| self.b.ins().load(vt, own_flags(), addr, (16 * j) as i32))
                    .collect(),
            );
        }
        match (self.classes[r as usize], self.vars[r as usize].clone()) {
            (Class::Const(v), _) => JVal::Const(v),
            (Class::Affine(s), Vars::Scalar(v)) => JVal::Affine(self.b.use_var(v), s),
            (_, Vars::Scalar(v)) => JVal::Uniform(self.b.use_var(v)),
            (_, Vars::Vectors(vs)) => {
                JVal::Varying(vs.iter().map(|&v| self.b.use_var(v)).collect())
            }
            // A register that never has a value (undefined and unread): zero.
            (_, Vars::None) => JVal::Const(0),
        }
    }

    /// The values of `regs` to put back after a side or a check pass has run, read where
    /// `live` holds: a register not in `live` is written before it is read on every path from
    /// here, so it gets a stand-in of its class instead of its current value. (Reading a
    /// register's variable keeps its old value alive: in a region over the whole rest of a
    /// program, every register it writes would become a value carried around the chunk loop,
    /// computed and spilled on the fast path.)
    pub(crate) fn values_to_restore(&mut self, regs: &[Reg], live: &RegSet) -> Vec<JVal> {
        regs.iter()
            .map(|&r| {
                if live.contains(r) || self.resident[r as usize] {
                    return self.get(r);
                }
                match self.classes[r as usize] {
                    Class::Const(c) => JVal::Const(c),
                    Class::Affine(stride) => {
                        let ty = scalar_ty(self.bytes(r));
                        JVal::Affine(self.iconst(ty, 0), stride)
                    }
                    _ => JVal::Const(0),
                }
            })
            .collect()
    }

    /// Sets register `r` to `v`, converted to `r`'s class. Fails when `v` cannot be (the
    /// analysis and the code generator disagree: a bug, which makes compilation fail).
    pub(crate) fn set(&mut self, r: Reg, v: JVal) -> JitResult<()> {
        let bytes = self.bytes(r);
        if self.resident[r as usize] {
            // Under a mask (a side of a divergent branch) only the active lanes' elements of
            // the row change: the row holds both sides' writes when the paths meet.
            let v = match self.mask.as_ref().map(|m| m.lanes) {
                Some(lanes) => {
                    let old = self.get(r);
                    self.blend(lanes, &v, &old, bytes)
                }
                None => v,
            };
            let vs = self.vectors(&v, bytes);
            let addr = self.row_addr(r);
            for (j, x) in vs.into_iter().enumerate() {
                self.b.ins().store(own_flags(), x, addr, (16 * j) as i32);
            }
            return Ok(());
        }
        match (self.classes[r as usize], self.vars[r as usize].clone()) {
            (Class::Const(c), _) => match v {
                JVal::Const(x) if wrap(x, (bytes * 8) as u32) == wrap(c, (bytes * 8) as u32) => {
                    Ok(())
                }
                _ => Err(JitError::Class {
                    reg: r,
                    what: "a constant register gets another value".into(),
                }),
            },
            (Class::Affine(s), Vars::Scalar(var)) => match v {
                JVal::Affine(base, t) if t == s => {
                    self.b.def_var(var, base);
                    Ok(())
                }
                other => Err(JitError::Class {
                    reg: r,
                    what: format!("affine register (stride {s}) gets {other:?}"),
                }),
            },
            (_, Vars::Scalar(var)) => {
                let x = self.scalar(&v, bytes).ok_or_else(|| JitError::Class {
                    reg: r,
                    what: "uniform register gets a varying value".into(),
                })?;
                self.b.def_var(var, x);
                Ok(())
            }
            (_, Vars::Vectors(vars)) => {
                let vs = self.vectors(&v, bytes);
                if let Some((all, any)) = self.lane_flags[r as usize] {
                    // (Pure values: computed only where a branch reads the flags.)
                    let (a, n) = match (&v, vs.as_slice()) {
                        (JVal::Const(c), _) => {
                            let x = self.iconst(I8, u64::from(*c != 0));
                            (x, x)
                        }
                        (JVal::Uniform(x), _) => {
                            let x = self.fit(*x, I8);
                            (x, x)
                        }
                        (_, [m]) => match self.decided.get(m) {
                            Some(&known) => known,
                            None => (self.b.ins().vall_true(*m), self.b.ins().vany_true(*m)),
                        },
                        _ => {
                            return Err(JitError::Class {
                                reg: r,
                                what: "a bool register of several vectors".into(),
                            });
                        }
                    };
                    self.b.def_var(all, a);
                    self.b.def_var(any, n);
                }
                for (var, x) in vars.iter().zip(vs) {
                    self.b.def_var(*var, x);
                }
                Ok(())
            }
            (_, Vars::None) => Ok(()),
        }
    }

    /// Two operands as scalars of `bytes` (both uniform: a binary op's scalar path).
    pub(crate) fn scalar_pair(
        &mut self,
        a: &JVal,
        b: &JVal,
        bytes: usize,
    ) -> JitResult<(Value, Value)> {
        let x = self
            .scalar(a, bytes)
            .ok_or(JitError::NotUniform("scalar"))?;
        let y = self
            .scalar(b, bytes)
            .ok_or(JitError::NotUniform("scalar"))?;
        Ok((x, y))
    }

    /// `v` as a scalar of `bytes`, if it is uniform.
    pub(crate) fn scalar(&mut self, v: &JVal, bytes: usize) -> Option<Value> {
        let ty = scalar_ty(bytes);
        match v {
            JVal::Const(c) => Some(self.iconst(ty, *c)),
            JVal::Uniform(x) => Some(self.fit(*x, ty)),
            _ => None,
        }
    }

    /// An integer constant of type `ty` (the low bits of `c`).
    pub(crate) fn iconst(&mut self, ty: Type, c: u64) -> Value {
        let bits = ty.bits();
        let v = wrap(c, bits) as i64;
        self.b.ins().iconst(ty, v)
    }

    /// `x` (an integer scalar) at type `ty`: truncated or zero-extended.
    pub(crate) fn fit(&mut self, x: Value, ty: Type) -> Value {
        let have = self.b.func.dfg.value_type(x);
        if have == ty {
            x
        } else if have.bits() > ty.bits() {
            self.b.ins().ireduce(ty, x)
        } else {
            self.b.ins().uextend(ty, x)
        }
    }

    /// Lane `i`'s value of `v` as a scalar of `bytes`.
    pub(crate) fn lane(&mut self, v: &JVal, bytes: usize, i: usize) -> Value {
        let ty = scalar_ty(bytes);
        match v {
            JVal::Const(c) => self.iconst(ty, *c),
            JVal::Uniform(x) => self.fit(*x, ty),
            JVal::Affine(base, s) => {
                let base = self.fit(*base, ty);
                if i == 0 {
                    base
                } else {
                    let k = self.iconst(ty, s.wrapping_mul(i as u64));
                    self.b.ins().iadd(base, k)
                }
            }
            JVal::Varying(vs) => {
                let pv = per_vec(bytes);
                self.b.ins().extractlane(vs[i / pv], (i % pv) as u8)
            }
        }
    }

    /// A constant vector of `bytes`-byte lanes with lane `i` = `f(i)` (of all 16 lanes, vector
    /// `j` holds lanes `j·per_vec..`).
    pub(crate) fn const_vec(&mut self, bytes: usize, j: usize, f: impl Fn(usize) -> u64) -> Value {
        let pv = per_vec(bytes);
        let mut data = Vec::with_capacity(16);
        for k in 0..pv {
            let v = f(j * pv + k);
            data.extend_from_slice(&v.to_le_bytes()[..bytes]);
        }
        let c = self.b.func.dfg.constants.insert(data.into());
        self.b.ins().vconst(vec_ty(bytes), c)
    }

    /// `v` as the 16-lane vectors of `bytes`-byte lanes.
    pub(crate) fn vectors(&mut self, v: &JVal, bytes: usize) -> Vec<Value> {
        let n = bytes; // vectors per 16 lanes
        let vt = vec_ty(bytes);
        match v {
            JVal::Const(c) => {
                let c = *c;
                (0..n).map(|j| self.const_vec(bytes, j, |_| c)).collect()
            }
            JVal::Uniform(x) => {
                let x = self.fit(*x, scalar_ty(bytes));
                let s = self.b.ins().splat(vt, x);
                vec![s; n]
            }
            JVal::Affine(base, stride) => {
                let base = self.fit(*base, scalar_ty(bytes));
                let b = self.b.ins().splat(vt, base);
                let stride = *stride;
                (0..n)
                    .map(|j| {
                        let iota = self.const_vec(bytes, j, |i| stride.wrapping_mul(i as u64));
                        self.b.ins().iadd(b, iota)
                    })
                    .collect()
            }
            JVal::Varying(vs) => vs.clone(),
        }
    }

    /// The address of chunk lane 0 of register `r`'s row (`regfile + offset + 16·chunk·bytes`).
    pub(crate) fn row_addr(&mut self, r: Reg) -> Value {
        let bytes = self.bytes(r);
        let base = self.chunk_base(bytes);
        let off = self.layout.offsets[r as usize] as i64;
        self.b.ins().iadd_imm_s(base, off)
    }

    /// Writes `v` (register `r`'s value) into `r`'s row for the current chunk.
    ///
    /// A `cold` spill (on the way to the interpreter) writes a constant, uniform or affine
    /// register lane by lane as scalars: its vectors (splats of call-invariant scalars, lane
    /// number constants) would be call-invariant too, and Cranelift would hoist them out of
    /// every loop, to stay live in vector registers (or spilled and moved about) all through
    /// the hot path for a store that runs once.
    pub(crate) fn spill(&mut self, r: Reg, cold: bool) {
        if self.ir_const[r as usize] || self.resident[r as usize] {
            // The IR's constant rows are written once per dispatch and never change; a
            // resident register's row is its home.
            return;
        }
        let v = self.get(r);
        self.spill_value(r, &v, cold);
    }

    /// [`Self::spill`] of value `v` (register `r`'s, of its class) instead of `r`'s current one.
    pub(crate) fn spill_value(&mut self, r: Reg, v: &JVal, cold: bool) {
        if self.ir_const[r as usize] || self.resident[r as usize] {
            return;
        }
        let bytes = self.bytes(r);
        if cold && !matches!(v, JVal::Varying(_)) {
            let addr = self.row_addr(r);
            for i in 0..LANES {
                let x = self.lane(v, bytes, i);
                self.b.ins().store(own_flags(), x, addr, (bytes * i) as i32);
            }
            return;
        }
        let vs = self.vectors(v, bytes);
        let addr = self.row_addr(r);
        for (j, x) in vs.into_iter().enumerate() {
            self.b.ins().store(own_flags(), x, addr, (16 * j) as i32);
        }
    }

    /// Reads register `r` from its row for the current chunk. For a uniform or affine register,
    /// `bad` becomes true (an `I8`) when the lanes of `active` (every lane when `None`) do not
    /// have that shape; its value comes from the first of those lanes.
    pub(crate) fn reload_lanes(
        &mut self,
        r: Reg,
        active: Option<ActiveLanes>,
        bad: Option<Value>,
    ) -> JitResult<Option<Value>> {
        let class = self.classes[r as usize];
        if matches!(class, Class::Const(_)) || self.resident[r as usize] {
            return Ok(bad);
        }
        let bytes = self.bytes(r);
        let addr = self.row_addr(r);
        let vt = vec_ty(bytes);
        let vs: Vec<Value> = (0..bytes)
            .map(|j| self.b.ins().load(vt, own_flags(), addr, (16 * j) as i32))
            .collect();
        let stride = match class {
            Class::Uniform => 0,
            Class::Affine(s) => s,
            _ => {
                self.set(r, JVal::Varying(vs))?;
                return Ok(bad);
            }
        };
        let ty = scalar_ty(bytes);
        let x = match active {
            None => self.b.ins().load(ty, own_flags(), addr, 0),
            Some(a) => {
                // Lane 0's value: the first active lane's less its lane number times the stride.
                let at = self.b.ins().imul_imm_s(a.first, bytes as i64);
                let at = self.b.ins().iadd(addr, at);
                let x = self.b.ins().load(ty, own_flags(), at, 0);
                if stride == 0 {
                    x
                } else {
                    let lane = self.fit(a.first, ty);
                    let back = self.b.ins().imul_imm_s(lane, stride as i64);
                    self.b.ins().isub(x, back)
                }
            }
        };
        let want = if stride == 0 {
            JVal::Uniform(x)
        } else {
            JVal::Affine(x, stride)
        };
        let want_vs = self.vectors(&want, bytes);
        let masks = active.map(|a| self.masks_from_bools(a.lanes, bytes));
        let mut ok = None;
        for (j, (&a, w)) in vs.iter().zip(want_vs).enumerate() {
            let mut eq = self.b.ins().icmp(IntCC::Equal, a, w);
            if let Some(masks) = &masks {
                let inactive = self.b.ins().bnot(masks[j]);
                eq = self.b.ins().bor(eq, inactive);
            }
            let all = self.b.ins().vall_true(eq);
            ok = Some(match ok {
                None => all,
                Some(o) => self.b.ins().band(o, all),
            });
        }
        self.set(r, want)?;
        let not_ok = match ok {
            Some(o) => self.b.ins().bxor_imm_s(o, 1),
            None => self.b.ins().iconst(I8, 0),
        };
        Ok(Some(match bad {
            None => not_ok,
            Some(b) => self.b.ins().bor(b, not_ok),
        }))
    }

    /// The lanes of `lanes` (an `I8X16` of 0/1) as the low 16 bits of an `I32`, lane `i` bit `i`.
    pub(crate) fn lane_bits(&mut self, lanes: Value) -> Value {
        // 0/1 per lane → 0/0xff, whose high bits are the mask.
        let on = self.b.ins().ineg(lanes);
        self.b.ins().vhigh_bits(I32, on)
    }

    /// The lowest lane of `lanes` (an `I8X16` of 0/1, some lane set), as an `I64`.
    pub(crate) fn first_lane(&mut self, lanes: Value) -> Value {
        let bits = self.lane_bits(lanes);
        let lane = self.b.ins().ctz(bits);
        self.b.ins().uextend(I64, lane)
    }

    /// Reads register `r` from its row for the current chunk, trusting the row to have its
    /// class's shape (compiled code wrote it): a uniform or affine register reads lane 0 only.
    pub(crate) fn reload_unchecked(&mut self, r: Reg) -> JitResult<()> {
        if self.resident[r as usize] {
            return Ok(());
        }
        let class = self.classes[r as usize];
        let bytes = self.bytes(r);
        let addr = self.row_addr(r);
        match class {
            Class::Const(_) => Ok(()),
            Class::Uniform | Class::Affine(_) => {
                let x = self.b.ins().load(scalar_ty(bytes), own_flags(), addr, 0);
                match class {
                    Class::Affine(s) => self.set(r, JVal::Affine(x, s)),
                    _ => self.set(r, JVal::Uniform(x)),
                }
            }
            Class::Varying | Class::Undefined => {
                // (As `reload_lanes` does for both.)
                let vt = vec_ty(bytes);
                let vs: Vec<Value> = (0..bytes)
                    .map(|j| self.b.ins().load(vt, own_flags(), addr, (16 * j) as i32))
                    .collect();
                self.set(r, JVal::Varying(vs))
            }
        }
    }

    /// A varying bool (`I8X16` of 0/1) from lane masks of `bytes`-byte lanes (all-ones/zero).
    pub(crate) fn bools_from_masks(&mut self, masks: &[Value], bytes: usize) -> Value {
        let one = self.b.ins().iconst(I8, 1);
        let ones = self.b.ins().splat(I8X16, one);
        let narrowed = self.narrow_masks(masks, bytes);
        let bools = self.b.ins().band(narrowed, ones);
        self.bool_masks.insert((bools, bytes), masks.to_vec());
        bools
    }

    /// Narrows lane masks of `bytes`-byte lanes (16 lanes in `bytes` vectors) to one `I8X16`
    /// of masks.
    pub(crate) fn narrow_masks(&mut self, masks: &[Value], bytes: usize) -> Value {
        let mut cur: Vec<Value> = masks.to_vec();
        let mut b = bytes;
        while b > 1 {
            if b == 8 {
                // i64x2 → i32x4: keep the low halves (masks are all-ones or zero).
                cur = cur
                    .chunks(2)
                    .map(|p| {
                        let lo = self.b.ins().bitcast(I32X4, lane_flags(), p[0]);
                        let hi = self.b.ins().bitcast(I32X4, lane_flags(), p[1]);
                        self.shuffle_even_i32(lo, hi)
                    })
                    .collect();
            } else {
                cur = cur
                    .chunks(2)
                    .map(|p| self.b.ins().snarrow(p[0], p[1]))
                    .collect();
            }
            b /= 2;
        }
        cur[0]
    }

    /// Lanes 0 and 2 of `a` then of `b` (as `I32X4`).
    fn shuffle_even_i32(&mut self, a: Value, b: Value) -> Value {
        let a8 = self.b.ins().bitcast(I8X16, lane_flags(), a);
        let b8 = self.b.ins().bitcast(I8X16, lane_flags(), b);
        let mask: Vec<u8> = [0u8, 8, 16, 24]
            .iter()
            .flat_map(|&start| (0..4).map(move |k| start + k))
            .collect();
        let s = self.shuffle(a8, b8, &mask);
        self.b.ins().bitcast(I32X4, lane_flags(), s)
    }

    /// `shuffle` of two `I8X16` with byte indices `mask` (0..16 from `a`, 16..32 from `b`).
    pub(crate) fn shuffle(&mut self, a: Value, b: Value, mask: &[u8]) -> Value {
        let imm = self
            .b
            .func
            .dfg
            .immediates
            .push(cranelift_codegen::ir::ConstantData::from(mask.to_vec()));
        self.b.ins().shuffle(a, b, imm)
    }

    /// Lane 0 of `v` (a scalar of `bytes`) and, when `v` varies by class, whether every lane
    /// of the chunk holds that same value at run time (an `I8` 0/1); `None` for a uniform `v`.
    pub(crate) fn first_lane_agreed(&mut self, v: &JVal, bytes: usize) -> (Value, Option<Value>) {
        if let Some(x) = self.scalar(v, bytes) {
            return (x, None);
        }
        let first = self.lane(v, bytes, 0);
        let mut same: Option<Value> = None;
        for lanes in self.vectors(v, bytes) {
            let ty = self.b.func.dfg.value_type(lanes);
            let all = self.b.ins().splat(ty, first);
            let eq = self.b.ins().icmp(IntCC::Equal, lanes, all);
            same = Some(match same {
                None => eq,
                Some(s) => self.b.ins().band(s, eq),
            });
        }
        let agreed = match same {
            Some(s) => self.b.ins().vall_true(s),
            None => self.iconst(I8, 1),
        };
        (first, Some(agreed))
    }

    /// Lane by lane `mask ? on_true : on_false`, for a `mask` whose lanes are all ones or all
    /// zeros (as `masks_from_bools` makes them): one `blendv` where SSE4.1 has it (three
    /// instructions as a `bitselect`, which Cranelift blends only for a mask it sees come from
    /// a compare).
    pub(crate) fn lane_select(&mut self, mask: Value, on_true: Value, on_false: Value) -> Value {
        if !has_sse41() {
            return self.b.ins().bitselect(mask, on_true, on_false);
        }
        let ty = self.b.func.dfg.value_type(mask);
        if ty == I8X16 || ty == I32X4 || ty == I64X2 {
            return self.b.ins().blendv(mask, on_true, on_false);
        }
        // 16-bit lanes: every byte of a lane agrees, so bytes blend the same.
        let bytes = |g: &mut Self, v: Value| g.b.ins().bitcast(I8X16, lane_flags(), v);
        let (m, t, f) = (
            bytes(self, mask),
            bytes(self, on_true),
            bytes(self, on_false),
        );
        let r = self.b.ins().blendv(m, t, f);
        self.b.ins().bitcast(ty, lane_flags(), r)
    }

    /// Lane masks of `bytes`-byte lanes (all-ones/zero, `bytes` vectors) from a varying bool.
    pub(crate) fn masks_from_bools(&mut self, bools: Value, bytes: usize) -> Vec<Value> {
        if let Some(masks) = self.bool_masks.get(&(bools, bytes)) {
            return masks.clone();
        }
        // 0/1 → 0/-1 in 8-bit lanes, then sign-extend step by step.
        let zero = self.b.ins().iconst(I8, 0);
        let zeros = self.b.ins().splat(I8X16, zero);
        let m8 = self.b.ins().isub(zeros, bools);
        let mut cur = vec![m8];
        let mut b = 1;
        while b < bytes {
            cur = cur
                .iter()
                .flat_map(|&v| {
                    let lo = self.b.ins().swiden_low(v);
                    let hi = self.b.ins().swiden_high(v);
                    [lo, hi]
                })
                .collect();
            b *= 2;
        }
        cur
    }
}

/// Whether the host has SSE4.1 (`blendv`); Cranelift's native ISA uses what the host has.
fn has_sse41() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("sse4.1")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
