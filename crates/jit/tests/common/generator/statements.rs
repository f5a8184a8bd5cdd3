//! The generator's outputs and statements: stores of results to buffers and tensors,
//! branches, loops, switches, early returns, shared-memory phases, shared-memory atomics,
//! subgroup operations and local arrays (see the parent module).

use super::*;

impl Gen {
    pub(super) fn out_buffer(&mut self, sc: Sc) -> (Word, Word) {
        let sc = if sc == Sc::Bool {
            Sc::Int(8, false)
        } else {
            sc
        };
        if let Some(o) = self.outs.get(&sc) {
            return (o.var, o.k_id);
        }
        let (var, binding) = self.buffer_var(sc, &format!("out_{}", sc.name()));
        let k_id = self.b.id();
        self.outs.insert(
            sc,
            Out {
                var,
                k_id,
                k: 0,
                binding,
            },
        );
        self.late_out.push(sc);
        (var, k_id)
    }

    /// Stores scalar `v` of `sc` to the invocation's next slot of the output of `sc`.
    pub(super) fn store_scalar(&mut self, sc: Sc, v: Word) {
        if self.rng.chance(15) && sc != Sc::Bool {
            self.tensor_store(sc, v);
            return;
        }
        let (v, sc) = if sc == Sc::Bool {
            let u8t = Sc::Int(8, false);
            (self.convert(BOOL, v, s(u8t)), u8t)
        } else {
            (v, sc)
        };
        let (var, k_id) = self.out_buffer(sc);
        let slot = {
            let o = self.outs.get_mut(&sc).unwrap();
            o.k += 1;
            o.k - 1
        };
        let u = self.ty(U32);
        let base = self.b.i_mul(u, None, self.gidx, k_id).unwrap();
        let c = self.cu32(slot);
        let idx = self.b.i_add(u, None, base, c).unwrap();
        let et = self.ty(s(sc));
        let pt = self.ptr(StorageClass::StorageBuffer, et);
        let zero = self.cu32(0);
        let p = self.b.access_chain(pt, None, var, [zero, idx]).unwrap();
        self.b.store(p, v, None, []).unwrap();
    }

    /// An `OpTensorWriteARM` of `v` to `[gidx, slot]` of the output tensor of `sc` (sometimes
    /// out of bounds: dropped).
    pub(super) fn tensor_store(&mut self, sc: Sc, v: Word) {
        if !self.out_tensors.contains_key(&sc) {
            let ty = self.tensor_type(sc, 2);
            let (var, binding) = self.tensor_var(ty, &format!("tout_{}", sc.name()));
            self.out_tensors.insert(
                sc,
                OutTensor {
                    var,
                    ty,
                    k: 0,
                    binding,
                },
            );
        }
        let (var, ty, slot) = {
            let o = self.out_tensors.get_mut(&sc).unwrap();
            o.k += 1;
            (o.var, o.ty, o.k - 1)
        };
        let u = self.ty(U32);
        let col = if self.rng.chance(10) {
            self.cu32(slot + 1000)
        } else {
            self.cu32(slot)
        };
        let row = if self.rng.chance(10) {
            let big = {
                let v = self.n;
                self.cu32(v)
            };
            self.b.i_add(u, None, self.gidx, big).unwrap()
        } else {
            self.gidx
        };
        let two = self.cu32(2);
        let at = self.b.type_array(u, two);
        let coords = self.b.composite_construct(at, None, [row, col]).unwrap();
        let t = self.b.load(ty, None, var, None, []).unwrap();
        self.b.tensor_write_arm(t, coords, v, None, []).unwrap();
    }

    pub(super) fn store_value(&mut self, t: Ty, v: Word) {
        if t.n == 1 {
            self.store_scalar(t.sc, v);
            return;
        }
        let ct = self.ty(s(t.sc));
        for k in 0..u32::from(t.n) {
            let e = self.b.composite_extract(ct, None, v, [k]).unwrap();
            self.store_scalar(t.sc, e);
        }
    }

    /// A pointer to element `k` (a constant index) of local array `var`.
    pub(super) fn local_element(&mut self, var: Word, k: u32) -> Word {
        let u = self.ty(U32);
        let pt = self.ptr(StorageClass::Function, u);
        let c = self.cu32(k);
        self.b.access_chain(pt, None, var, [c]).unwrap()
    }

    /// A pointer to a local array's element at a run-time index (a value modulo the length).
    pub(super) fn local_pointer(&mut self) -> Option<Word> {
        if self.locals.is_empty() {
            return None;
        }
        let locals = self.locals.clone();
        let &(var, len) = self.rng.pick(&locals);
        let u = self.ty(U32);
        let raw = self.value(U32, 1);
        let lc = self.cu32(len);
        let idx = self.b.u_mod(u, None, raw, lc).unwrap();
        let pt = self.ptr(StorageClass::Function, u);
        Some(self.b.access_chain(pt, None, var, [idx]).unwrap())
    }

    /// A read or a write (sometimes a read-modify-write) of a local array at run-time indices.
    pub(super) fn local_access(&mut self) {
        let u = self.ty(U32);
        let Some(p) = self.local_pointer() else {
            return;
        };
        if self.rng.chance(40) {
            let v = self.b.load(u, None, p, None, []).unwrap();
            self.add(U32, v);
            self.store_scalar(Sc::Int(32, false), v);
            return;
        }
        let mut v = self.value(U32, 1);
        if self.rng.chance(50)
            && let Some(q) = self.local_pointer()
        {
            let old = self.b.load(u, None, q, None, []).unwrap();
            v = self.b.i_add(u, None, old, v).unwrap();
        }
        self.b.store(p, v, None, []).unwrap();
    }

    // ---------------------------------------------------------------- statements

    pub(super) fn label(&mut self) -> Word {
        self.cur
    }

    /// Generates statements into the current block; returns false if the block was terminated
    /// (an early return or break).
    pub(super) fn stmts(&mut self, depth: u32) -> bool {
        let count = self.rng.range(1, 5);
        for _ in 0..count {
            if self.budget <= 0 {
                break;
            }
            self.budget -= 1;
            let r = self.rng.below(100);
            match r {
                0..=39 => {
                    let (t, v) = self.any_value(0);
                    self.store_value(t, v);
                }
                40..=54 if depth < 3 => self.if_else(depth),
                55..=63 if depth < 3 => self.do_loop(depth),
                64..=69 if depth < 3 => self.switch(depth),
                70..=72 if depth > 0 || self.rng.chance(30) => {
                    // Early return (or break inside a loop).
                    let c = self.value(BOOL, 1);
                    let t = self.b.id();
                    let m = self.b.id();
                    self.b.selection_merge(m, SelectionControl::NONE).unwrap();
                    self.b.branch_conditional(c, t, m, []).unwrap();
                    self.begin(t);
                    self.scoped(|g| {
                        let (ty, v) = g.any_value(1);
                        g.store_value(ty, v);
                    });
                    match self.loop_merge.last() {
                        Some(&lm) if self.rng.chance(50) => self.b.branch(lm).unwrap(),
                        _ => {
                            self.uniform = false;
                            self.returned = true;
                            self.b.ret().unwrap()
                        }
                    }
                    self.begin(m);
                }
                73..=80 if self.uniform && depth == 0 && self.shared.is_some() => {
                    self.shared_phase()
                }
                81..=88 if depth == 0 || self.rng.chance(20) => self.subgroup(),
                89..=96 if !self.locals.is_empty() => self.local_access(),
                _ => {
                    let (t, v) = self.any_value(0);
                    self.store_value(t, v);
                }
            }
        }
        true
    }

    /// Runs `f` in a nested scope: values it defines are dropped from the pool afterwards.
    pub(super) fn scoped<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let mark = self.pool.len();
        let uniform = self.uniform;
        let r = f(self);
        self.pool.truncate(mark);
        self.uniform = uniform && self.uniform;
        r
    }

    pub(super) fn if_else(&mut self, depth: u32) {
        let c = self.value(BOOL, 1);
        let phi_t = self.random_ty();
        let (t, e, m) = (self.b.id(), self.b.id(), self.b.id());
        self.b.selection_merge(m, SelectionControl::NONE).unwrap();
        self.b.branch_conditional(c, t, e, []).unwrap();
        let was_uniform = self.uniform;
        self.uniform = false;
        let mut incoming = Vec::new();
        for l in [t, e] {
            self.begin(l);
            let v = self.scoped(|g| {
                g.stmts(depth + 1);
                g.value(phi_t, 1)
            });
            incoming.push((v, self.label()));
            self.b.branch(m).unwrap();
        }
        self.uniform = was_uniform && self.uniform_after_branch();
        self.begin(m);
        let tid = self.ty(phi_t);
        let p = self.b.phi(tid, None, incoming).unwrap();
        self.add(phi_t, p);
    }

    /// Control flow is uniform again after a divergent construct unless a lane returned.
    pub(super) fn uniform_after_branch(&self) -> bool {
        !self.returned
    }

    pub(super) fn do_loop(&mut self, depth: u32) {
        let u = self.ty(U32);
        let trip = match self.rng.below(4) {
            0 => {
                let v = self.rng.range(0, 6) as u32;
                self.cu32(v)
            }
            1 => {
                let x = self.load(Sc::Int(32, false));
                let m = self.cu32(7);
                self.b.bitwise_and(u, None, x, m).unwrap()
            }
            2 => {
                let m = self.cu32(5);
                self.b.u_mod(u, None, self.gidx, m).unwrap()
            }
            _ => {
                let (t, v) = self.int_scalar(2);
                let x = self.convert(t, v, U32);
                let m = self.cu32(9);
                self.b.u_mod(u, None, x, m).unwrap()
            }
        };
        let acc_t = self.random_ty();
        let acc0 = self.value(acc_t, 1);
        let pre = self.label();
        let (h, cnd, body, cont, m) = (
            self.b.id(),
            self.b.id(),
            self.b.id(),
            self.b.id(),
            self.b.id(),
        );
        let (i_next, acc_next) = (self.b.id(), self.b.id());
        self.b.branch(h).unwrap();
        self.begin(h);
        let zero = self.cu32(0);
        let i = self.b.phi(u, None, [(zero, pre), (i_next, cont)]).unwrap();
        let acc_tid = self.ty(acc_t);
        let acc = self
            .b
            .phi(acc_tid, None, [(acc0, pre), (acc_next, cont)])
            .unwrap();
        self.b.loop_merge(m, cont, LoopControl::NONE, []).unwrap();
        self.b.branch(cnd).unwrap();
        self.begin(cnd);
        let bt = self.ty(BOOL);
        let go = self.b.u_less_than(bt, None, i, trip).unwrap();
        self.b.branch_conditional(go, body, m, []).unwrap();
        self.begin(body);
        let was_uniform = self.uniform;
        self.uniform = false;
        self.loop_merge.push(m);
        let upd = self.scoped(|g| {
            g.add(U32, i);
            g.add(acc_t, acc);
            g.stmts(depth + 1);
            g.value(acc_t, 1)
        });
        self.loop_merge.pop();
        self.b.branch(cont).unwrap();
        self.begin(cont);
        let one = self.cu32(1);
        self.b.i_add(u, Some(i_next), i, one).unwrap();
        self.b.copy_object(acc_tid, Some(acc_next), upd).unwrap();
        self.b.branch(h).unwrap();
        self.begin(m);
        self.uniform = was_uniform && self.uniform_after_branch();
        self.add(acc_t, acc);
        self.add(U32, i);
    }

    pub(super) fn switch(&mut self, depth: u32) {
        let sc = *self.rng.pick(&SCALARS[..8]);
        let Sc::Int(w, signed) = sc else {
            unreachable!()
        };
        let sel = self.value(s(sc), 1);
        // Case values (distinct at the selector's width), often small or negative.
        let mut vals: Vec<u64> = Vec::new();
        for _ in 0..self.rng.range(1, 4) {
            let v = match self.rng.below(3) {
                0 => self.rng.below(8),
                1 => (self.rng.below(8) as i64 + 1).wrapping_neg() as u64,
                _ => random_bits(&mut self.rng, sc),
            } & mask(w);
            if !vals.contains(&v) {
                vals.push(v);
            }
        }
        let phi_t = self.random_ty();
        let m = self.b.id();
        let default = self.b.id();
        let labels: Vec<Word> = vals.iter().map(|_| self.b.id()).collect();
        let targets: Vec<(Operand, Word)> = vals
            .iter()
            .zip(&labels)
            .map(|(&v, &l)| {
                let lit = match (w, signed) {
                    (64, _) => Operand::LiteralBit64(v),
                    (32, _) => Operand::LiteralBit32(v as u32),
                    (_, true) => Operand::LiteralBit32(((v << (64 - w)) as i64 >> (64 - w)) as u32),
                    _ => Operand::LiteralBit32(v as u32),
                };
                (lit, l)
            })
            .collect();
        self.summary.push(format!(
            "switch on {} cases {:?}",
            sc.name(),
            vals.iter()
                .map(|&v| if signed {
                    format!("{}", ((v << (64 - w)) as i64) >> (64 - w))
                } else {
                    format!("{v}")
                })
                .collect::<Vec<_>>()
        ));
        self.b.selection_merge(m, SelectionControl::NONE).unwrap();
        self.b.switch(sel, default, targets).unwrap();
        let was_uniform = self.uniform;
        self.uniform = false;
        let mut incoming = Vec::new();
        for l in labels.into_iter().chain([default]) {
            self.begin(l);
            let v = self.scoped(|g| {
                g.stmts(depth + 1);
                g.value(phi_t, 1)
            });
            incoming.push((v, self.label()));
            self.b.branch(m).unwrap();
        }
        self.uniform = was_uniform && self.uniform_after_branch();
        self.begin(m);
        let tid = self.ty(phi_t);
        let p = self.b.phi(tid, None, incoming).unwrap();
        self.add(phi_t, p);
    }

    pub(super) fn barrier(&mut self) {
        let wg = self.cu32(spirv::Scope::Workgroup as u32);
        let sem = self.cu32(
            (spirv::MemorySemantics::ACQUIRE_RELEASE | spirv::MemorySemantics::WORKGROUP_MEMORY)
                .bits(),
        );
        self.b.control_barrier(wg, wg, sem).unwrap();
    }

    /// The start of a shared-memory phase: `s[lidx] = v; barrier`. Gives the shared array, the
    /// workgroup `u32` pointer type, the pointer to `s[lidx]` and the workgroup size as a
    /// constant (`None` without shared memory).
    fn shared_start(&mut self) -> Option<(Word, Word, Word, Word)> {
        let sh = self.shared?;
        let u = self.ty(U32);
        let (t, v) = self.int_scalar(1);
        let v = self.convert(t, v, U32);
        let pt = self.ptr(StorageClass::Workgroup, u);
        let own = self.b.access_chain(pt, None, sh, [self.lidx]).unwrap();
        self.b.store(own, v, None, []).unwrap();
        self.barrier();
        let ls = {
            let v = self.ls;
            self.cu32(v)
        };
        Some((sh, pt, own, ls))
    }

    /// `s[lidx] = v; barrier; r = s[f(lidx)]; barrier` (uniform control flow only).
    pub(super) fn shared_phase(&mut self) {
        let Some((sh, pt, _, ls)) = self.shared_start() else {
            return;
        };
        let u = self.ty(U32);
        let idx = match self.rng.below(4) {
            0 => {
                let k = {
                    let v = self.rng.range(1, 40) as u32;
                    self.cu32(v)
                };
                let x = self.b.i_add(u, None, self.lidx, k).unwrap();
                self.b.u_mod(u, None, x, ls).unwrap()
            }
            1 => {
                let k = {
                    let v = self.ls - 1;
                    self.cu32(v)
                };
                self.b.i_sub(u, None, k, self.lidx).unwrap()
            }
            2 => {
                let (t, v) = self.int_scalar(2);
                let x = self.convert(t, v, U32);
                self.b.u_mod(u, None, x, ls).unwrap()
            }
            _ => {
                // Out of range of the array and of all workgroup memory.
                let k = self.cu32(100_000);
                self.b.i_add(u, None, self.lidx, k).unwrap()
            }
        };
        let q = self.b.access_chain(pt, None, sh, [idx]).unwrap();
        let r = self.b.load(u, None, q, None, []).unwrap();
        self.barrier();
        self.add(U32, r);
        self.store_scalar(Sc::Int(32, false), r);
        self.summary.push("shared phase".into());
    }

    /// `s[lidx] = v; barrier; r = atomicOp(s[f(lidx)], w); barrier; out r, s[lidx]` (uniform
    /// control flow only): add, min, max, bitwise, exchange or compare-and-swap on shared
    /// words, every lane in lane order on both backends (the JIT's atomic rounds), some
    /// indices out of range.
    pub(super) fn atomic_phase(&mut self) {
        let Some((sh, pt, own, ls)) = self.shared_start() else {
            return;
        };
        let u = self.ty(U32);
        let idx = match self.rng.below(4) {
            0 => self.lidx,
            1 => {
                let (t, v) = self.int_scalar(2);
                let x = self.convert(t, v, U32);
                self.b.u_mod(u, None, x, ls).unwrap()
            }
            2 => {
                let k = {
                    let v = self.rng.range(1, 8) as u32;
                    self.cu32(v)
                };
                self.b.u_mod(u, None, self.lidx, k).unwrap()
            }
            _ => {
                // Out of range of the array and of all workgroup memory.
                let k = self.cu32(100_000);
                self.b.i_add(u, None, self.lidx, k).unwrap()
            }
        };
        let q = self.b.access_chain(pt, None, sh, [idx]).unwrap();
        let (t, w) = self.int_scalar(3);
        let w = self.convert(t, w, U32);
        let scope = self.cu32(spirv::Scope::Workgroup as u32);
        let none = self.cu32(0);
        let kind = self.rng.below(8);
        let r = match kind {
            0 => self.b.atomic_i_add(u, None, q, scope, none, w),
            1 => self.b.atomic_u_min(u, None, q, scope, none, w),
            2 => self.b.atomic_s_max(u, None, q, scope, none, w),
            3 => self.b.atomic_and(u, None, q, scope, none, w),
            4 => self.b.atomic_or(u, None, q, scope, none, w),
            5 => self.b.atomic_xor(u, None, q, scope, none, w),
            6 => self.b.atomic_exchange(u, None, q, scope, none, w),
            _ => {
                let (t, c) = self.int_scalar(4);
                let c = self.convert(t, c, U32);
                self.b
                    .atomic_compare_exchange(u, None, q, scope, none, none, w, c)
            }
        }
        .unwrap();
        self.barrier();
        let after = self.b.load(u, None, own, None, []).unwrap();
        self.barrier();
        self.add(U32, r);
        self.store_scalar(Sc::Int(32, false), r);
        self.store_scalar(Sc::Int(32, false), after);
        self.summary.push(format!("atomic phase (op {kind})"));
    }

    pub(super) fn subgroup(&mut self) {
        let scope = self.cu32(spirv::Scope::Subgroup as u32);
        let u = self.ty(U32);
        let (t, v) = self.int_scalar(1);
        let x = self.convert(t, v, U32);
        let r = match self.rng.below(11) {
            0 => self
                .b
                .group_non_uniform_i_add(u, None, scope, GroupOperation::Reduce, x, None)
                .unwrap(),
            1 => self
                .b
                .group_non_uniform_i_add(u, None, scope, GroupOperation::InclusiveScan, x, None)
                .unwrap(),
            2 => self
                .b
                .group_non_uniform_broadcast_first(u, None, scope, x)
                .unwrap(),
            3 => {
                let lane = {
                    let v = self.rng.below(20) as u32;
                    self.cu32(v)
                };
                self.b
                    .group_non_uniform_broadcast(u, None, scope, x, lane)
                    .unwrap()
            }
            4 => {
                let (t2, v2) = self.int_scalar(2);
                let lane = self.convert(t2, v2, U32);
                let m = self.cu32(64);
                let lane = self.b.u_mod(u, None, lane, m).unwrap();
                self.b
                    .group_non_uniform_shuffle(u, None, scope, x, lane)
                    .unwrap()
            }
            7 => {
                let mask = {
                    let v = 1u32 << self.rng.below(5);
                    self.cu32(v)
                };
                self.b
                    .group_non_uniform_shuffle_xor(u, None, scope, x, mask)
                    .unwrap()
            }
            8 => {
                let delta = {
                    let v = self.rng.below(6) as u32;
                    self.cu32(v)
                };
                self.b
                    .group_non_uniform_shuffle_down(u, None, scope, x, delta)
                    .unwrap()
            }
            9 => {
                let size = {
                    let v = 1u32 << self.rng.below(6);
                    self.cu32(v)
                };
                self.b
                    .group_non_uniform_u_max(
                        u,
                        None,
                        scope,
                        GroupOperation::ClusteredReduce,
                        x,
                        Some(size),
                    )
                    .unwrap()
            }
            10 => self
                .b
                .group_non_uniform_u_min(u, None, scope, GroupOperation::ExclusiveScan, x, None)
                .unwrap(),
            5 => {
                let bt = self.ty(BOOL);
                let c = self.value(BOOL, 1);
                let u4 = self.ty(Ty {
                    sc: Sc::Int(32, false),
                    n: 4,
                });
                let bal = self.b.group_non_uniform_ballot(u4, None, scope, c).unwrap();
                let _ = bt;
                self.b.composite_extract(u, None, bal, [0]).unwrap()
            }
            _ => {
                let bt = self.ty(BOOL);
                let e = self.b.group_non_uniform_elect(bt, None, scope).unwrap();
                self.convert(BOOL, e, U32)
            }
        };
        self.add(U32, r);
        self.store_scalar(Sc::Int(32, false), r);
    }
}
