//! The generator's values: expressions over every scalar and vector type, conversions,
//! loads, tensor reads and coordinates (see the parent module).

use super::*;

impl Gen {
    /// A value of type `t`: one in scope, a constant, or a new expression.
    pub(super) fn value(&mut self, t: Ty, depth: u32) -> Word {
        let have: Vec<Word> = self
            .pool
            .iter()
            .filter(|(pt, _)| *pt == t)
            .map(|&(_, v)| v)
            .collect();
        if !have.is_empty() && (depth >= 3 || self.rng.chance(55)) {
            return *self.rng.pick(&have);
        }
        if depth >= 4 || self.rng.chance(8) {
            return self.constant_of(t);
        }
        let v = self.expr(t, depth + 1);
        self.add(t, v)
    }

    /// A scalar value of some type in scope (or a new one).
    pub(super) fn any_value(&mut self, depth: u32) -> (Ty, Word) {
        if !self.pool.is_empty() && self.rng.chance(60) {
            return *self.rng.pick(&self.pool);
        }
        let t = self.random_ty();
        (t, self.value(t, depth))
    }

    pub(super) fn comp(t: Ty, sc: Sc) -> Ty {
        Ty { sc, n: t.n }
    }

    pub(super) fn expr(&mut self, t: Ty, depth: u32) -> Word {
        for _ in 0..8 {
            if let Some(v) = self.try_expr(t, depth) {
                return v;
            }
        }
        self.constant_of(t)
    }

    /// `v` of type `from` as type `to` (same component count), by conversion.
    pub(super) fn convert(&mut self, from: Ty, v: Word, to: Ty) -> Word {
        if from == to {
            return v;
        }
        let tid = self.ty(to);
        let b = &mut self.b;
        match (from.sc, to.sc) {
            (Sc::Bool, _) => {
                let one = self.constant_of_one(to);
                let zero = self.constant_null(to);
                self.b.select(tid, None, v, one, zero).unwrap()
            }
            (_, Sc::Bool) => {
                let zero = self.constant_null(from);
                match from.sc {
                    Sc::Float(_) => self.b.f_unord_not_equal(tid, None, v, zero).unwrap(),
                    _ => self.b.i_not_equal(tid, None, v, zero).unwrap(),
                }
            }
            (Sc::Int(fw, _), Sc::Int(tw, ts)) => {
                if fw == tw {
                    b.bitcast(tid, None, v).unwrap()
                } else if ts {
                    b.s_convert(tid, None, v).unwrap()
                } else if self.rng.chance(50) {
                    self.b.u_convert(tid, None, v).unwrap()
                } else {
                    // SConvert into the unsigned type's signed twin, then bitcast.
                    let st = self.ty(Self::comp(to, Sc::Int(tw, true)));
                    let x = self.b.s_convert(st, None, v).unwrap();
                    self.b.bitcast(tid, None, x).unwrap()
                }
            }
            (Sc::Float(_), Sc::Int(_, true)) => b.convert_f_to_s(tid, None, v).unwrap(),
            (Sc::Float(_), Sc::Int(_, false)) => {
                if self.rng.chance(60) {
                    self.b.convert_f_to_u(tid, None, v).unwrap()
                } else {
                    let (Sc::Int(w, _), Sc::Float(_)) = (to.sc, from.sc) else {
                        unreachable!()
                    };
                    let st = self.ty(Self::comp(to, Sc::Int(w, true)));
                    let x = self.b.convert_f_to_s(st, None, v).unwrap();
                    self.b.bitcast(tid, None, x).unwrap()
                }
            }
            (Sc::Int(_, sg), Sc::Float(_)) => {
                if sg == self.rng.chance(80) {
                    b.convert_s_to_f(tid, None, v).unwrap()
                } else {
                    b.convert_u_to_f(tid, None, v).unwrap()
                }
            }
            (Sc::Float(_), Sc::Float(_)) => b.f_convert(tid, None, v).unwrap(),
        }
    }

    pub(super) fn constant_null(&mut self, t: Ty) -> Word {
        let tid = self.ty(t);
        self.b.constant_null(tid)
    }

    pub(super) fn constant_of_one(&mut self, t: Ty) -> Word {
        let bits = match t.sc {
            Sc::Float(16) => 0x3c00,
            Sc::Float(32) => 0x3f80_0000,
            Sc::Float(_) => 1.0f64.to_bits(),
            _ => 1,
        };
        let c = self.constant(t.sc, bits);
        if t.n == 1 {
            return c;
        }
        let tid = self.ty(t);
        self.b.constant_composite(tid, vec![c; usize::from(t.n)])
    }

    /// A u32 index for an access to an array of `len` elements: affine in `gidx` or gathered.
    pub(super) fn index(&mut self, len: u32) -> Word {
        let u = self.ty(U32);
        match self.rng.below(8) {
            0..=2 => self.gidx,
            3 => {
                let c = {
                    let v = self.rng.range(0, 24) as u32;
                    self.cu32(v)
                };
                self.b.i_add(u, None, self.gidx, c).unwrap()
            }
            4 => {
                let two = self.cu32(2);
                let c = {
                    let v = self.rng.range(0, 3) as u32;
                    self.cu32(v)
                };
                let x = self.b.i_mul(u, None, self.gidx, two).unwrap();
                self.b.i_add(u, None, x, c).unwrap()
            }
            5 => {
                // Gathered, in range.
                let (t, v) = self.int_scalar(2);
                let x = self.convert(t, v, U32);
                let m = self.cu32(len.max(1));
                self.b.u_mod(u, None, x, m).unwrap()
            }
            6 => {
                // Gathered, anything (mostly out of range).
                let (t, v) = self.int_scalar(2);
                self.convert(t, v, U32)
            }
            _ => {
                let c = {
                    let v = self.rng.below(u64::from(len) + 4) as u32;
                    self.cu32(v)
                };
                if self.rng.chance(50) {
                    c
                } else {
                    self.b.bitwise_xor(u, None, self.gidx, c).unwrap()
                }
            }
        }
    }

    pub(super) fn int_scalar(&mut self, depth: u32) -> (Ty, Word) {
        let ints: Vec<(Ty, Word)> = self
            .pool
            .iter()
            .filter(|(t, _)| t.n == 1 && matches!(t.sc, Sc::Int(..)))
            .copied()
            .collect();
        if !ints.is_empty() && self.rng.chance(80) {
            return *self.rng.pick(&ints);
        }
        let sc = *self.rng.pick(&SCALARS[..8]);
        (s(sc), self.value(s(sc), depth))
    }

    pub(super) fn load(&mut self, sc: Sc) -> Word {
        let var = self.input_buffer(sc);
        let len = self.in_bufs[&sc].len;
        let idx = self.index(len);
        let et = self.ty(s(sc));
        let pt = self.ptr(StorageClass::StorageBuffer, et);
        let zero = self.cu32(0);
        let p = self.b.access_chain(pt, None, var, [zero, idx]).unwrap();
        self.b.load(et, None, p, None, []).unwrap()
    }

    /// An `OpTensorReadARM` of `t` (the tensor's element type) or `None`.
    pub(super) fn tensor_read(&mut self, sc: Sc) -> Option<Word> {
        let which: Vec<usize> = (0..self.in_tensors.len())
            .filter(|&i| self.in_tensors[i].sc == sc)
            .collect();
        if which.is_empty() {
            return None;
        }
        let i = *self.rng.pick(&which);
        let (var, tty, rank, dims) = {
            let t = &self.in_tensors[i];
            (t.var, t.ty, t.rank, t.dims.clone())
        };
        let coords = self.coords(rank, &dims);
        let tensor = self.b.load(tty, None, var, None, []).unwrap();
        let et = self.ty(s(sc));
        let count = if self.rng.chance(25) {
            self.rng.range(1, 4) as u32
        } else {
            0
        };
        let rt = if count > 0 {
            let n = self.cu32(count);
            self.b.type_array(et, n)
        } else {
            et
        };
        let (ops, extra) = if self.rng.chance(50) {
            let bits = random_bits(&mut self.rng, sc);
            let c = self.constant(sc, bits);
            (
                Some(TensorOperands::OUT_OF_BOUNDS_VALUE_ARM),
                vec![Operand::IdRef(c)],
            )
        } else if self.rng.chance(20) {
            (Some(TensorOperands::NONTEMPORAL_ARM), vec![])
        } else {
            (None, vec![])
        };
        let r = self
            .b
            .tensor_read_arm(rt, None, tensor, coords, ops, extra)
            .unwrap();
        if count == 0 {
            return Some(r);
        }
        let k = self.rng.below(u64::from(count)) as u32;
        // The other elements go to the pool too.
        for j in 0..count {
            if j != k {
                let e = self.b.composite_extract(et, None, r, [j]).unwrap();
                self.add(s(sc), e);
            }
        }
        Some(self.b.composite_extract(et, None, r, [k]).unwrap())
    }

    /// Coordinates (an array of `rank` u32 or i32) near the invocation's element, or from data.
    pub(super) fn coords(&mut self, rank: usize, dims: &[u64]) -> Word {
        let signed = self.rng.chance(40);
        // Sometimes 8- or 16-bit coordinates, whose lanes wrap within a chunk (an affine
        // coordinate `gidx + k` near 255 or 65535).
        let width = match self.rng.below(10) {
            0 => 8,
            1 => 16,
            _ => 32,
        };
        let ct = s(Sc::Int(width, signed));
        let ctid = self.ty(ct);
        let u = self.ty(U32);
        let mut parts = Vec::new();
        let mut rest = self.gidx;
        for i in (0..rank).rev() {
            let c = match self.rng.below(6) {
                0..=2 => {
                    // The invocation's coordinate in dimension i (innermost takes the rest).
                    if i == 0 {
                        rest
                    } else {
                        let d = self.cu32(dims[i] as u32);
                        let c = self.b.u_mod(u, None, rest, d).unwrap();
                        rest = self.b.u_div(u, None, rest, d).unwrap();
                        c
                    }
                }
                3 => {
                    let k = {
                        let v = self.rng.below(dims[i] + 2) as u32;
                        self.cu32(v)
                    };
                    if self.rng.chance(50) {
                        k
                    } else {
                        self.b.i_add(u, None, self.gidx, k).unwrap()
                    }
                }
                4 => {
                    let (t, v) = self.int_scalar(2);
                    self.convert(t, v, U32)
                }
                _ => {
                    // -1 (huge when unsigned).
                    {
                        let v = u32::MAX - self.rng.below(2) as u32;
                        self.cu32(v)
                    }
                }
            };
            let c = if width < 32 {
                self.convert(U32, c, ct)
            } else if signed {
                self.b.bitcast(ctid, None, c).unwrap()
            } else {
                c
            };
            parts.push(c);
        }
        parts.reverse();
        let n = self.cu32(rank as u32);
        let at = self.b.type_array(ctid, n);
        self.b.composite_construct(at, None, parts).unwrap()
    }

    pub(super) fn try_expr(&mut self, t: Ty, depth: u32) -> Option<Word> {
        let tid = self.ty(t);
        let d = depth;
        let r = self.rng.below(100);
        // Leaves and generic forms first.
        if r < 12 && t.n == 1 && t.sc != Sc::Bool {
            if !self.in_tensors.is_empty() && self.rng.chance(35) {
                return self.tensor_read(t.sc);
            }
            return Some(self.load(t.sc));
        }
        if r < 16 && t.n == 1 && t.sc == Sc::Bool && !self.in_tensors.is_empty() {
            return self.tensor_read(Sc::Bool);
        }
        if r < 22 {
            let c = if self.rng.chance(50) || t.n == 1 {
                self.value(BOOL, d)
            } else {
                self.value(Self::comp(t, Sc::Bool), d)
            };
            let x = self.value(t, d);
            let y = self.value(t, d);
            return Some(self.b.select(tid, None, c, x, y).unwrap());
        }
        if r < 30 {
            // A conversion from another type with the same component count.
            let from = Ty {
                sc: if self.rng.chance(10) {
                    Sc::Bool
                } else {
                    *self.rng.pick(&SCALARS)
                },
                n: t.n,
            };
            if from == t {
                return None;
            }
            let v = self.value(from, d);
            return Some(self.convert(from, v, t));
        }
        if r < 36 {
            // Vector plumbing.
            if t.n == 1 {
                let n = self.rng.range(2, 4) as u8;
                let v = self.value(Ty { sc: t.sc, n }, d);
                let k = self.rng.below(u64::from(n)) as u32;
                return Some(self.b.composite_extract(tid, None, v, [k]).unwrap());
            }
            return Some(match self.rng.below(3) {
                0 => {
                    let parts: Vec<Word> = (0..t.n).map(|_| self.value(s(t.sc), d)).collect();
                    self.b.composite_construct(tid, None, parts).unwrap()
                }
                1 => {
                    let n2 = self.rng.range(2, 4) as u8;
                    let x = self.value(t, d);
                    let y = self.value(Ty { sc: t.sc, n: n2 }, d);
                    let comps: Vec<u32> = (0..t.n)
                        .map(|_| self.rng.below(u64::from(t.n + n2)) as u32)
                        .collect();
                    self.b.vector_shuffle(tid, None, x, y, comps).unwrap()
                }
                _ => {
                    let x = self.value(t, d);
                    let e = self.value(s(t.sc), d);
                    let k = self.rng.below(u64::from(t.n)) as u32;
                    self.b.composite_insert(tid, None, e, x, [k]).unwrap()
                }
            });
        }
        match t.sc {
            Sc::Bool => self.bool_expr(t, tid, d),
            Sc::Int(w, sg) => self.int_expr(t, tid, w, sg, d),
            Sc::Float(w) => self.float_expr(t, tid, w, d),
        }
    }

    pub(super) fn bool_expr(&mut self, t: Ty, tid: Word, d: u32) -> Option<Word> {
        let b = self.rng.below(10);
        Some(match b {
            0..=3 => {
                let sc = *self.rng.pick(&SCALARS[..8]);
                let ot = Self::comp(t, sc);
                let x = self.value(ot, d);
                let y = if self.rng.chance(70) {
                    self.value(ot, d)
                } else {
                    self.constant_of(ot)
                };
                let bb = &mut self.b;
                match self.rng.below(10) {
                    0 => bb.i_equal(tid, None, x, y),
                    1 => bb.i_not_equal(tid, None, x, y),
                    2 => bb.u_less_than(tid, None, x, y),
                    3 => bb.u_less_than_equal(tid, None, x, y),
                    4 => bb.u_greater_than(tid, None, x, y),
                    5 => bb.u_greater_than_equal(tid, None, x, y),
                    6 => bb.s_less_than(tid, None, x, y),
                    7 => bb.s_less_than_equal(tid, None, x, y),
                    8 => bb.s_greater_than(tid, None, x, y),
                    _ => bb.s_greater_than_equal(tid, None, x, y),
                }
                .unwrap()
            }
            4..=6 => {
                let sc = *self.rng.pick(&SCALARS[8..]);
                let ot = Self::comp(t, sc);
                let x = self.value(ot, d);
                let y = self.value(ot, d);
                let bb = &mut self.b;
                match self.rng.below(14) {
                    0 => bb.f_ord_equal(tid, None, x, y),
                    1 => bb.f_ord_not_equal(tid, None, x, y),
                    2 => bb.f_ord_less_than(tid, None, x, y),
                    3 => bb.f_ord_less_than_equal(tid, None, x, y),
                    4 => bb.f_ord_greater_than(tid, None, x, y),
                    5 => bb.f_ord_greater_than_equal(tid, None, x, y),
                    6 => bb.f_unord_equal(tid, None, x, y),
                    7 => bb.f_unord_not_equal(tid, None, x, y),
                    8 => bb.f_unord_less_than(tid, None, x, y),
                    9 => bb.f_unord_less_than_equal(tid, None, x, y),
                    10 => bb.f_unord_greater_than(tid, None, x, y),
                    11 => bb.f_unord_greater_than_equal(tid, None, x, y),
                    12 => bb.is_nan(tid, None, x),
                    _ => bb.is_inf(tid, None, x),
                }
                .unwrap()
            }
            7 if t.n == 1 => {
                let n = self.rng.range(2, 4) as u8;
                let v = self.value(Ty { sc: Sc::Bool, n }, d);
                if self.rng.chance(50) {
                    self.b.any(tid, None, v).unwrap()
                } else {
                    self.b.all(tid, None, v).unwrap()
                }
            }
            _ => {
                let x = self.value(t, d);
                let y = self.value(t, d);
                let bb = &mut self.b;
                match self.rng.below(5) {
                    0 => bb.logical_and(tid, None, x, y),
                    1 => bb.logical_or(tid, None, x, y),
                    2 => bb.logical_not(tid, None, x),
                    3 => bb.logical_equal(tid, None, x, y),
                    _ => bb.logical_not_equal(tid, None, x, y),
                }
                .unwrap()
            }
        })
    }

    pub(super) fn int_expr(&mut self, t: Ty, tid: Word, w: u8, sg: bool, d: u32) -> Option<Word> {
        let x = self.value(t, d);
        let k = self.rng.below(30);
        let y = if k < 16 {
            if self.rng.chance(25) {
                self.constant_of(t)
            } else {
                self.value(t, d)
            }
        } else {
            x
        };
        let g = self.glsl;
        let bb = &mut self.b;
        Some(match k {
            0 => bb.i_add(tid, None, x, y).ok()?,
            1 => bb.i_sub(tid, None, x, y).ok()?,
            2 => bb.i_mul(tid, None, x, y).ok()?,
            3 | 5 if sg => {
                // UDiv/UMod need an unsigned result type: compute on the unsigned twin.
                let ut = self.ty(Self::comp(t, Sc::Int(w, false)));
                let (xu, yu) = (
                    self.b.bitcast(ut, None, x).ok()?,
                    self.b.bitcast(ut, None, y).ok()?,
                );
                let r = if k == 3 {
                    self.b.u_div(ut, None, xu, yu).ok()?
                } else {
                    self.b.u_mod(ut, None, xu, yu).ok()?
                };
                self.b.bitcast(tid, None, r).ok()?
            }
            3 => bb.u_div(tid, None, x, y).ok()?,
            4 => bb.s_div(tid, None, x, y).ok()?,
            5 => bb.u_mod(tid, None, x, y).ok()?,
            6 => bb.s_rem(tid, None, x, y).ok()?,
            7 => bb.s_mod(tid, None, x, y).ok()?,
            8..=10 => {
                // Shift amounts of any int type, often ≥ the width.
                let at = Self::comp(t, *self.rng.pick(&SCALARS[..8]));
                let a = if self.rng.chance(40) {
                    let c = self.rng.below(u64::from(w) + 8);
                    let (Sc::Int(aw, _), 1) = (at.sc, t.n) else {
                        return None;
                    };
                    self.constant(at.sc, c & mask(aw))
                } else {
                    self.value(at, d)
                };
                let bb = &mut self.b;
                match k {
                    8 => bb.shift_left_logical(tid, None, x, a),
                    9 => bb.shift_right_logical(tid, None, x, a),
                    _ => bb.shift_right_arithmetic(tid, None, x, a),
                }
                .ok()?
            }
            11 => bb.bitwise_and(tid, None, x, y).ok()?,
            12 => bb.bitwise_or(tid, None, x, y).ok()?,
            13 => bb.bitwise_xor(tid, None, x, y).ok()?,
            14 | 15 => {
                let op = *self.rng.pick(&[38u32, 39, 41, 42]); // UMin SMin UMax SMax
                self.b
                    .ext_inst(tid, None, g, op, [Operand::IdRef(x), Operand::IdRef(y)])
                    .ok()?
            }
            16 => bb.s_negate(tid, None, x).ok()?,
            17 => bb.not(tid, None, x).ok()?,
            18 => {
                let z = self.value(t, d);
                let y = self.value(t, d);
                let op = if self.rng.chance(50) { 44 } else { 45 }; // UClamp SClamp
                self.b
                    .ext_inst(
                        tid,
                        None,
                        g,
                        op,
                        [Operand::IdRef(x), Operand::IdRef(y), Operand::IdRef(z)],
                    )
                    .ok()?
            }
            19 if sg || self.rng.chance(50) => {
                let op = *self.rng.pick(&[5u32, 7]); // SAbs SSign
                bb.ext_inst(tid, None, g, op, [Operand::IdRef(x)]).ok()?
            }
            20 if w == 32 => {
                let op = *self.rng.pick(&[73u32, 74, 75]); // FindILsb FindSMsb FindUMsb
                bb.ext_inst(tid, None, g, op, [Operand::IdRef(x)]).ok()?
            }
            21 if w == 32 => match self.rng.below(2) {
                0 => bb.bit_count(tid, None, x).ok()?,
                _ => bb.bit_reverse(tid, None, x).ok()?,
            },
            22 if w == 32 => {
                let off = {
                    let v = self.rng.below(36) as u32;
                    self.cu32(v)
                };
                let cnt = {
                    let v = self.rng.below(36) as u32;
                    self.cu32(v)
                };
                let ins = self.value(t, d);
                let bb = &mut self.b;
                match self.rng.below(3) {
                    0 => bb.bit_field_insert(tid, None, x, ins, off, cnt),
                    1 => bb.bit_field_s_extract(tid, None, x, off, cnt),
                    _ => bb.bit_field_u_extract(tid, None, x, off, cnt),
                }
                .ok()?
            }
            23 if !sg => {
                // The second member of OpIAddCarry / OpISubBorrow / OpUMulExtended.
                let y = self.value(t, d);
                let st = self.b.type_struct([tid, tid]);
                let r = match self.rng.below(4) {
                    0 => self.b.i_add_carry(st, None, x, y),
                    1 => self.b.i_sub_borrow(st, None, x, y),
                    2 => self.b.u_mul_extended(st, None, x, y),
                    _ => self.b.s_mul_extended(st, None, x, y),
                }
                .ok()?;
                let m = self.rng.below(2) as u32;
                self.b.composite_extract(tid, None, r, [m]).ok()?
            }
            24 if t.n == 1 => {
                // A tensor size query, converted.
                if self.in_tensors.is_empty() {
                    return None;
                }
                let i = self.rng.below(self.in_tensors.len() as u64) as usize;
                let (var, tty, rank) = {
                    let t = &self.in_tensors[i];
                    (t.var, t.ty, t.rank)
                };
                let tensor = self.b.load(tty, None, var, None, []).ok()?;
                let dim = {
                    let v = self.rng.below(rank as u64) as u32;
                    self.cu32(v)
                };
                let u = self.ty(U32);
                let q = self.b.tensor_query_size_arm(u, None, tensor, dim).ok()?;
                self.convert(U32, q, t)
            }
            25 if t.n == 1 && t.sc == Sc::Int(32, false) => {
                // OpArrayLength of an input buffer.
                let sc = *self.rng.pick(&SCALARS);
                let var = self.input_buffer(sc);
                self.b.array_length(tid, None, var, 0).ok()?
            }
            _ => return None,
        })
    }

    pub(super) fn float_expr(&mut self, t: Ty, tid: Word, w: u8, d: u32) -> Option<Word> {
        let x = self.value(t, d);
        let g = self.glsl;
        let k = self.rng.below(24);
        let bin = |this: &mut Self| this.value(t, d);
        Some(match k {
            0..=5 => {
                let y = bin(self);
                let bb = &mut self.b;
                match k {
                    0 => bb.f_add(tid, None, x, y),
                    1 => bb.f_sub(tid, None, x, y),
                    2 => bb.f_mul(tid, None, x, y),
                    3 => bb.f_div(tid, None, x, y),
                    4 => bb.f_rem(tid, None, x, y),
                    _ => bb.f_mod(tid, None, x, y),
                }
                .ok()?
            }
            6 => self.b.f_negate(tid, None, x).ok()?,
            7..=10 => {
                // GLSL unary: Round RoundEven Trunc FAbs FSign Floor Ceil Fract Radians Degrees
                // Sin Cos Exp Log Exp2 Log2 Sqrt InverseSqrt Tanh.
                // (Trigonometry, exponentials and logarithms only for 16/32-bit floats.)
                let ops: &[u32] = if w == 64 {
                    &[1, 2, 3, 4, 6, 8, 9, 10, 31, 32]
                } else {
                    &[
                        1, 2, 3, 4, 6, 8, 9, 10, 11, 12, 13, 14, 27, 28, 29, 30, 31, 32, 21,
                    ]
                };
                let op = *self.rng.pick(ops);
                self.b
                    .ext_inst(tid, None, g, op, [Operand::IdRef(x)])
                    .ok()?
            }
            11..=13 => {
                // FMin FMax NMin NMax Step Pow Atan2
                let ops: &[u32] = if w == 64 {
                    &[37, 40, 79, 80, 48]
                } else {
                    &[37, 40, 79, 80, 48, 26, 25]
                };
                let op = *self.rng.pick(ops);
                let y = bin(self);
                self.b
                    .ext_inst(tid, None, g, op, [Operand::IdRef(x), Operand::IdRef(y)])
                    .ok()?
            }
            14 | 15 => {
                // FClamp NClamp FMix Fma SmoothStep
                let op = *self.rng.pick(&[43u32, 81, 46, 50, 49]);
                let y = bin(self);
                let z = bin(self);
                self.b
                    .ext_inst(
                        tid,
                        None,
                        g,
                        op,
                        [Operand::IdRef(x), Operand::IdRef(y), Operand::IdRef(z)],
                    )
                    .ok()?
            }
            16 => {
                // Ldexp with an i32 exponent (often large).
                let et = Self::comp(t, Sc::Int(32, true));
                let e = if self.rng.chance(50) {
                    self.value(et, d)
                } else {
                    let c = *self
                        .rng
                        .pick(&[0i32, 1, -1, 10, 100, 1000, 1100, -1100, 2000, -2000, 127]);
                    let c = self.constant(Sc::Int(32, true), c as u32 as u64);
                    if t.n == 1 {
                        c
                    } else {
                        let etid = self.ty(et);
                        self.b.constant_composite(etid, vec![c; usize::from(t.n)])
                    }
                };
                self.b
                    .ext_inst(tid, None, g, 53, [Operand::IdRef(x), Operand::IdRef(e)])
                    .ok()?
            }
            17 if t.n == 1 => {
                // Dot of two vectors.
                let n = self.rng.range(2, 4) as u8;
                let vt = Ty { sc: t.sc, n };
                let a = self.value(vt, d);
                let b2 = self.value(vt, d);
                self.b.dot(tid, None, a, b2).ok()?
            }
            18 if t.n > 1 => {
                let sv = self.value(s(t.sc), d);
                self.b.vector_times_scalar(tid, None, x, sv).ok()?
            }
            19 if w == 32 => {
                // OpQuantizeToF16
                self.b.quantize_to_f16(tid, None, x).ok()?
            }
            _ => return None,
        })
    }
}
