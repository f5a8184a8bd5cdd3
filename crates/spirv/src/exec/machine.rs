//! One worker's lane-group machine: the register file, per-lane block indices and the active
//! mask, and the scheduler that runs an [`Ir`]'s blocks over them.
//!
//! Scheduling: every lane has a block index (`pcs`); the machine always runs the lowest block any
//! live lane waits at, over exactly the lanes waiting there. Because blocks are in structured
//! topological order (see `ir`), lanes that diverge reconverge at merge blocks, barriers in
//! uniform control flow see every lane, and each lane follows its own path exactly.
//!
//! Invariants: registers of inactive lanes are never written; the register file's constant rows
//! are written once per dispatch and never again; built-in rows are written per lane group.

use super::regfile::{RegFile, RegLayout, Rows};
use super::{Env, Scratch};
use crate::ir::{Edge, Ir, Reg, Term, dispatch};
use std::sync::atomic::Ordering;

/// Block index of a finished lane.
pub(crate) const DONE: u32 = u32::MAX;
/// Blocks a worker runs between two calls of the dispatch's `stop` check.
const WATCH_EVERY: u32 = 4096;

/// One worker's state for one dispatch.
pub(crate) struct Machine<'e> {
    pub(crate) env: &'e Env<'e>,
    pub(crate) ir: &'e Ir,
    pub(crate) layout: &'e RegLayout,
    pub(crate) file: &'e mut RegFile,
    pub(crate) scratch: &'e mut Scratch,
    /// Lanes of the current lane group (the rest of each row is padding).
    pub(crate) lanes: usize,
    /// The lanes the scheduler and the op handlers work on: `lo..hi` (all of the group, or one
    /// chunk a compiled backend handed back). Lanes outside are never touched.
    pub(crate) lo: usize,
    pub(crate) hi: usize,
    pub(crate) pcs: Vec<u32>,
    pub(crate) mask: Vec<bool>,
    /// Every lane of the group is active.
    pub(crate) full: bool,
    pub(crate) shared: Vec<u8>,
    sub: Vec<bool>,
    tgt: Vec<u32>,
    /// Blocks left until the next watchdog check; counts across groups.
    watch: u32,
    /// For a window run `until_sync`: lanes also stop at a guarded latch (`guarded`, see
    /// `ir::sched`) at or above this block (`DONE`: never).
    pub(crate) floor: u32,
    pub(crate) guarded: Vec<bool>,
    /// The current lane group, and whether its built-in rows are written.
    group: u64,
    builtins_written: bool,
}

impl<'e> Machine<'e> {
    pub(crate) fn new(env: &'e Env<'e>, file: &'e mut RegFile, scratch: &'e mut Scratch) -> Self {
        let ir = env.ir;
        let layout = &env.layout;
        file.fit(layout);
        scratch.fit(layout.lanes);
        let lanes = env.shape.lanes as usize;
        let mut m = Machine {
            env,
            ir,
            layout,
            file,
            scratch,
            lanes,
            lo: 0,
            hi: lanes,
            pcs: vec![DONE; layout.lanes],
            mask: vec![false; layout.lanes],
            full: false,
            shared: vec![0; ir.shared_size as usize],
            sub: vec![false; layout.lanes],
            tgt: vec![0; layout.lanes],
            watch: WATCH_EVERY,
            floor: DONE,
            guarded: Vec::new(),
            group: 0,
            builtins_written: false,
        };
        for &(r, v) in &ir.consts {
            for lane in 0..layout.lanes {
                m.set(r, lane, v);
            }
        }
        m
    }

    /// The register rows, the scratch rows and the active mask, borrowed apart.
    #[inline(always)]
    pub(crate) fn parts(&mut self) -> (Rows<'_>, &mut Scratch, &[bool]) {
        (
            Rows {
                layout: self.layout,
                file: self.file,
            },
            self.scratch,
            &self.mask,
        )
    }

    /// Lane `lane` of register `r`, zero-extended.
    #[inline(always)]
    pub(crate) fn get(&self, r: Reg, lane: usize) -> u64 {
        let at = self.layout.offsets[r as usize];
        let bytes = self.file.bytes();
        let n = usize::from(self.layout.bytes[r as usize]);
        let at = at + n * lane;
        // One fixed-size read per width (a copy of a run-time length is a `memmove` call).
        match n {
            4 => u64::from(u32::from_le_bytes(fixed(&bytes[at..at + 4]))),
            8 => u64::from_le_bytes(fixed(&bytes[at..at + 8])),
            2 => u64::from(u16::from_le_bytes(fixed(&bytes[at..at + 2]))),
            1 => u64::from(bytes[at]),
            _ => {
                let mut b = [0u8; 8];
                b[..n].copy_from_slice(&bytes[at..at + n]);
                u64::from_le_bytes(b)
            }
        }
    }

    /// Sets lane `lane` of register `r` to the low bits of `v`.
    #[inline(always)]
    pub(crate) fn set(&mut self, r: Reg, lane: usize, v: u64) {
        let at = self.layout.offsets[r as usize];
        let n = usize::from(self.layout.bytes[r as usize]);
        let at = at + n * lane;
        let bytes = self.file.bytes_mut();
        match n {
            4 => bytes[at..at + 4].copy_from_slice(&(v as u32).to_le_bytes()),
            8 => bytes[at..at + 8].copy_from_slice(&v.to_le_bytes()),
            2 => bytes[at..at + 2].copy_from_slice(&(v as u16).to_le_bytes()),
            1 => bytes[at] = v as u8,
            _ => bytes[at..at + n].copy_from_slice(&v.to_le_bytes()[..n]),
        }
    }

    /// Starts lane group `group`: every real lane at block 0, built-ins written, shared memory
    /// zeroed.
    pub(crate) fn start_group(&mut self, group: u64) {
        self.begin_group(group);
        self.write_builtins();
    }

    /// Starts lane group `group` without writing its built-in rows (`write_builtins` does, for
    /// a backend that computes built-ins itself and needs the rows only for the interpreter).
    pub(crate) fn begin_group(&mut self, group: u64) {
        let env = self.env;
        let shape = &env.shape;
        let first_wg = group * u64::from(shape.fuse);
        let nwg = (env.total_wg - first_wg).min(u64::from(shape.fuse)) as usize;
        let wgs = shape.wg_size as usize;
        let n = nwg * wgs;
        self.group = group;
        self.builtins_written = false;
        self.lanes = n;
        self.lo = 0;
        self.hi = n;
        self.pcs[..n].fill(0);
        self.pcs[n..].fill(DONE);
        if !self.shared.is_empty() {
            self.shared.fill(0);
        }
    }

    /// Writes the built-in rows of the current lane group, once.
    pub(crate) fn write_builtins(&mut self) {
        if self.builtins_written {
            return;
        }
        self.builtins_written = true;
        let env = self.env;
        let shape = &env.shape;
        let first_wg = self.group * u64::from(shape.fuse);
        let nwg = (env.total_wg - first_wg).min(u64::from(shape.fuse)) as usize;
        let wgs = shape.wg_size as usize;
        let b = &self.ir.builtins;
        let mut rows = Rows {
            layout: self.layout,
            file: &mut *self.file,
        };
        let local = &env.local_ids;
        // One row at a time, every workgroup of the group along it.
        for c in 0..3usize {
            let ids = &local[c * wgs..(c + 1) * wgs];
            if let Some(r) = b.local_id {
                let row = rows.row_mut::<u32>(r + c as u32);
                for lanes in row[..nwg * wgs].chunks_exact_mut(wgs) {
                    lanes.copy_from_slice(ids);
                }
            }
            if let Some(r) = b.workgroup_id {
                let row = rows.row_mut::<u32>(r + c as u32);
                let wgids = env.workgroup_ids(first_wg, nwg);
                if wgs == 1 {
                    for (lane, wgid) in row[..nwg].iter_mut().zip(wgids) {
                        *lane = wgid[c];
                    }
                } else {
                    for (lanes, wgid) in row[..nwg * wgs].chunks_exact_mut(wgs).zip(wgids) {
                        lanes.fill(wgid[c]);
                    }
                }
            }
            if let Some(r) = b.num_workgroups {
                rows.row_mut::<u32>(r + c as u32)[..nwg * wgs].fill(env.count[c]);
            }
            if let Some(r) = b.global_id {
                let row = rows.row_mut::<u32>(r + c as u32);
                let wgids = env.workgroup_ids(first_wg, nwg);
                for (lanes, wgid) in row[..nwg * wgs].chunks_exact_mut(wgs).zip(wgids) {
                    let base = wgid[c].wrapping_mul(shape.local[c]);
                    for (d, &x) in lanes.iter_mut().zip(ids) {
                        *d = base.wrapping_add(x);
                    }
                }
            }
        }
        if let Some(r) = b.local_index {
            let row = rows.row_mut::<u32>(r);
            for lanes in row[..nwg * wgs].chunks_exact_mut(wgs) {
                for (i, d) in lanes.iter_mut().enumerate() {
                    *d = i as u32;
                }
            }
        }
    }

    /// Runs the lanes of the window (`lo..hi`) until every one is done (or the watchdog stops
    /// the dispatch); with `until_sync`, stops instead when the lowest block any of them waits
    /// at begins with a `sync` op, and returns that block.
    pub(crate) fn run_group(&mut self, until_sync: bool) -> Option<u32> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { self.run_group_avx2(until_sync) };
        }
        self.run_group_any(until_sync)
    }

    /// `run_group_any` compiled with AVX2 (the lane loops it reaches are `inline(always)`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn run_group_avx2(&mut self, until_sync: bool) -> Option<u32> {
        self.run_group_any(until_sync)
    }

    #[inline(always)]
    fn run_group_any(&mut self, until_sync: bool) -> Option<u32> {
        let env = self.env;
        let blocks = &self.ir.blocks;
        // `Some(pc)`: the previous block ran on every lane and sent them all to `pc`, so the mask
        // is still all-true and the scan over `pcs` can be skipped.
        let mut uniform: Option<u32> = None;
        loop {
            self.watch -= 1;
            if self.watch == 0 {
                self.watch = WATCH_EVERY;
                if env.should_stop() {
                    return None;
                }
            }
            let min = match uniform {
                Some(pc) => pc,
                None => self.pcs[self.lo..self.hi]
                    .iter()
                    .copied()
                    .min()
                    .unwrap_or(DONE),
            };
            if min == DONE {
                return None;
            }
            if uniform.is_none() {
                let (lo, hi) = (self.lo, self.hi);
                let mut count = 0usize;
                for (m, &p) in self.mask[lo..hi].iter_mut().zip(&self.pcs[lo..hi]) {
                    *m = p == min;
                    count += usize::from(p == min);
                }
                self.full = count == hi - lo;
            }
            let Some(block) = blocks.get(min as usize) else {
                // Cannot happen for a verified IR; retire the lanes rather than loop forever.
                for i in self.lo..self.hi {
                    if self.mask[i] {
                        self.pcs[i] = DONE;
                    }
                }
                uniform = None;
                continue;
            };
            if until_sync
                && (block.ops.first().is_some_and(|op| op.is_sync())
                    || (min >= self.floor
                        && self.guarded.get(min as usize).copied().unwrap_or(false)))
            {
                return Some(min);
            }
            for op in &block.ops {
                dispatch(self, op);
            }
            uniform = self.term(&block.term);
        }
    }

    /// Runs block `pc` once for the lanes of the window waiting at it (ops and terminator).
    pub(crate) fn run_block(&mut self, pc: u32) {
        let (lo, hi) = (self.lo, self.hi);
        let mut count = 0usize;
        for (m, &p) in self.mask[lo..hi].iter_mut().zip(&self.pcs[lo..hi]) {
            *m = p == pc;
            count += usize::from(p == pc);
        }
        if count == 0 {
            return;
        }
        self.full = count == hi - lo;
        let Some(block) = self.ir.blocks.get(pc as usize) else {
            return;
        };
        for op in &block.ops {
            dispatch(self, op);
        }
        self.term(&block.term);
    }

    /// Continues the window's lanes, all active and at block `pc`, from op `op_index` of it:
    /// the rest of its ops and its terminator (for a compiled backend that stopped there).
    pub(crate) fn resume_at(&mut self, pc: u32, op_index: usize) {
        let (lo, hi) = (self.lo, self.hi);
        self.mask[lo..hi].fill(true);
        self.full = true;
        let Some(block) = self.ir.blocks.get(pc as usize) else {
            return;
        };
        for op in block.ops.iter().skip(op_index) {
            dispatch(self, op);
        }
        self.term(&block.term);
    }

    /// Runs `op` over the lanes `lo..hi`, all active (for a compiled backend's calls back).
    pub(crate) fn run_op(&mut self, op: &crate::ir::Op, lo: usize, hi: usize) {
        let (save_lo, save_hi, save_full) = (self.lo, self.hi, self.full);
        (self.lo, self.hi) = (lo.min(self.lanes), hi.min(self.lanes));
        self.mask[self.lo..self.hi].fill(true);
        self.full = true;
        dispatch(self, op);
        (self.lo, self.hi, self.full) = (save_lo, save_hi, save_full);
    }

    // ------------------------------------------------------------------ control flow

    /// Moves every active lane to block `t`.
    fn set_pcs(&mut self, t: u32) {
        let (lo, hi) = (self.lo, self.hi);
        if self.full {
            self.pcs[lo..hi].fill(t);
        } else {
            for (p, &m) in self.pcs[lo..hi].iter_mut().zip(&self.mask[lo..hi]) {
                *p = if m { t } else { *p };
            }
        }
    }

    /// Takes edge `e` for the active lanes (or, with `use_sub`, for the lanes in `sub`).
    fn take_edge(&mut self, e: &Edge, use_sub: bool) {
        if use_sub {
            std::mem::swap(&mut self.mask, &mut self.sub);
        }
        let full_saved = self.full;
        if use_sub {
            self.full = false;
        }
        self.edge_moves(&e.moves);
        self.set_pcs(e.target);
        if use_sub {
            std::mem::swap(&mut self.mask, &mut self.sub);
        }
        self.full = full_saved;
    }

    /// The parallel copies of an edge, for the active lanes.
    fn edge_moves(&mut self, moves: &[(Reg, Reg)]) {
        use crate::ir::OpHandlers;
        let sequential = moves
            .iter()
            .enumerate()
            .all(|(i, &(d, _))| moves[i + 1..].iter().all(|&(_, s)| s != d));
        if sequential {
            // No later copy reads an earlier one's destination: plain copies in order.
            for &(d, s) in moves {
                self.mov(d, s);
            }
            return;
        }
        let (lo, hi) = (self.lo, self.hi);
        let n = hi - lo;
        let mut saved = vec![0u64; moves.len() * n];
        for (k, &(_, s)) in moves.iter().enumerate() {
            for lane in lo..hi {
                saved[k * n + lane - lo] = self.get(s, lane);
            }
        }
        for (k, &(d, _)) in moves.iter().enumerate() {
            for lane in lo..hi {
                if self.mask[lane] {
                    self.set(d, lane, saved[k * n + lane - lo]);
                }
            }
        }
    }

    /// Runs a terminator. Returns `Some(block)` when the mask was full and every lane moved to
    /// `block` (then every `pcs` entry is `block` and the mask is unchanged).
    pub(crate) fn term(&mut self, t: &Term) -> Option<u32> {
        let full = self.full;
        let (lo, n) = (self.lo, self.hi);
        match t {
            Term::Exit => {
                self.set_pcs(DONE);
                full.then_some(DONE)
            }
            Term::Jump(e) => {
                self.take_edge(e, false);
                full.then_some(e.target)
            }
            Term::Branch {
                cond,
                if_true,
                if_false,
            } => {
                let (mut any_t, mut any_f) = (false, false);
                let row = &self.file.bytes()[self.layout.row(*cond)];
                for ((g, &m), &v) in self.tgt[lo..n]
                    .iter_mut()
                    .zip(&self.mask[lo..n])
                    .zip(&row[lo..n])
                {
                    let v = v != 0;
                    *g = u32::from(v);
                    any_t |= m & v;
                    any_f |= m & !v;
                }
                if !any_f {
                    self.take_edge(if_true, false);
                    full.then_some(if_true.target)
                } else if !any_t {
                    self.take_edge(if_false, false);
                    full.then_some(if_false.target)
                } else {
                    for (want, e) in [(1, if_true), (0, if_false)] {
                        for ((s, &m), &g) in self.sub[lo..n]
                            .iter_mut()
                            .zip(&self.mask[lo..n])
                            .zip(&self.tgt[lo..n])
                        {
                            *s = m & (g == want);
                        }
                        self.take_edge(e, true);
                    }
                    None
                }
            }
            Term::Switch {
                selector,
                cases,
                edges,
            } => {
                let mut first = None;
                let mut uniform = true;
                for i in lo..n {
                    if self.mask[i] {
                        let v = self.get(*selector, i);
                        let k = cases.iter().find(|(c, _)| *c == v).map_or(0, |(_, e)| *e);
                        self.tgt[i] = k as u32;
                        match first {
                            None => first = Some(k),
                            Some(f) if f != k => uniform = false,
                            _ => {}
                        }
                    }
                }
                if uniform {
                    let e = first.and_then(|k| edges.get(k))?;
                    self.take_edge(e, false);
                    full.then_some(e.target)
                } else {
                    for (k, e) in edges.iter().enumerate() {
                        let mut any = false;
                        for ((s, &m), &g) in self.sub[lo..n]
                            .iter_mut()
                            .zip(&self.mask[lo..n])
                            .zip(&self.tgt[lo..n])
                        {
                            let on = m & (g == k as u32);
                            *s = on;
                            any |= on;
                        }
                        if any {
                            self.take_edge(e, true);
                        }
                    }
                    None
                }
            }
        }
    }
}

/// `bytes` (of length `N`, as the caller slices them) as an array.
#[inline(always)]
fn fixed<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(bytes);
    out
}

impl Env<'_> {
    /// Polls the watchdog; true when the dispatch must stop (and records why, once).
    pub(crate) fn should_stop(&self) -> bool {
        if self.aborted.load(Ordering::Relaxed) {
            return true;
        }
        if let Some(why) = (self.stop)() {
            if let Ok(mut a) = self.abort.lock() {
                a.get_or_insert(why);
            }
            self.aborted.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }
}
