//! The lane-group interpreter: runs an [`Ir`] over one workgroup (or several fused tiny
//! workgroups) at a time, with an active mask.
//!
//! Scheduling: every lane has a block index (`pc`); the interpreter always runs the lowest block
//! any live lane waits at, over exactly the lanes waiting there. Because blocks are in structured
//! topological order (see `ir`), lanes that diverge reconverge at merge blocks, barriers in uniform
//! control flow see every lane, and each lane follows its own path exactly.
//!
//! Subgroup operations run over each workgroup's 32-lane chunks of the lane group under the
//! active mask (see `subgroup`); since the chunks never cross a workgroup, fusion stays legal for
//! shaders using them (a subgroup-scope barrier does not disable fusion either).
//!
//! Invariants: registers of inactive lanes are never written; memory is touched only through
//! `mem` (checked), so a wrong shader cannot access memory outside what was bound.

use crate::alu::{self, trunc};
use crate::ir::{DescIdx, Edge, Ir, Op, Reg, Space, TensorAcc, Term};
use crate::mem::{self, Raw, Trusted};
use crate::subgroup::{self, SUBGROUP_SIZE, SubOp};
use crate::{BoundResource, Program, Resources, ScalarType, SpirvError, TensorElement};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

const DONE: u32 = u32::MAX;
/// Target lane count when fusing tiny workgroups.
const FUSE_LANES: u32 = 64;
/// Maximum register-file size per worker, in 8-byte values (256 MiB).
const REG_BUDGET: u64 = 1 << 25;

#[derive(Debug, Clone)]
enum Bound {
    Buf(Raw),
    Tensor {
        raw: Raw,
        fmt: TensorElement,
        dims: Vec<u64>,
        strides: Vec<u64>,
    },
    Null,
}

fn resolve(t: &Trusted<'_>, b: Option<&BoundResource>) -> Bound {
    match b {
        Some(BoundResource::Buffer { ptr, len }) => Bound::Buf(t.raw(*ptr, *len)),
        Some(BoundResource::Tensor {
            ptr,
            len,
            format,
            dims,
            strides,
        }) => {
            if dims.len() != strides.len() {
                Bound::Null
            } else {
                Bound::Tensor {
                    raw: t.raw(*ptr, *len),
                    fmt: *format,
                    dims: dims.clone(),
                    strides: strides.clone(),
                }
            }
        }
        _ => Bound::Null,
    }
}

/// Element byte size if SPIR-V element type `e` may access a view of format `f`.
fn compat(e: ScalarType, f: TensorElement) -> Option<usize> {
    use ScalarType as S;
    use TensorElement as T;
    Some(match (e, f) {
        (S::Bool, T::Bool8) => 1,
        (S::U8, T::U8 | T::I8) | (S::I8, T::I8) => 1,
        (S::U16, T::U16 | T::I16) | (S::I16, T::I16) | (S::F16, T::F16) | (S::BF16, T::BF16) => 2,
        (S::F8E4M3, T::F8E4M3) | (S::F8E5M2, T::F8E5M2) => 1,
        (S::U32, T::U32 | T::I32) | (S::I32, T::I32) | (S::F32, T::F32) => 4,
        (S::U64, T::U64 | T::I64) | (S::I64, T::I64) | (S::F64, T::F64) => 8,
        _ => return None,
    })
}

struct Env<'a> {
    ir: &'a Ir,
    bind: Vec<Vec<Bound>>,
    push: &'a [u8],
    local: [u32; 3],
    base: [u32; 3],
    count: [u32; 3],
    fuse: u32,
    wg_size: u32,
    total_wg: u64,
    /// The watchdog check (see `Program::dispatch_watched`).
    stop: &'a (dyn Fn() -> Option<String> + Sync),
    /// The first reason a worker got from `stop`.
    abort: std::sync::Mutex<Option<String>>,
    /// Set with `abort`: every worker leaves its current group and takes no new one.
    aborted: AtomicBool,
}

/// Runs a dispatch. See [`Program::dispatch`].
///
/// # Safety
/// Same contract as [`Program::dispatch`].
pub(crate) unsafe fn dispatch(
    p: &Program,
    res: &dyn Resources,
    push: &[u8],
    base: [u32; 3],
    count: [u32; 3],
    threads: usize,
    stop: &(dyn Fn() -> Option<String> + Sync),
) -> Result<(), SpirvError> {
    // SAFETY: our caller guarantees every bound record is valid for this call.
    let trusted = unsafe { Trusted::new() };
    let mut bind = Vec::with_capacity(p.resources.len());
    for r in &p.resources {
        let items = match r.array_len {
            None => vec![resolve(&trusted, res.get(r.set, r.binding, 0))],
            Some(0) => {
                // Runtime array: resolve the bound prefix (capped).
                let mut v = Vec::new();
                while v.len() < 4096 {
                    match res.get(r.set, r.binding, v.len() as u32) {
                        Some(b) => v.push(resolve(&trusted, Some(b))),
                        None => break,
                    }
                }
                v
            }
            Some(n) => (0..n.min(1 << 16))
                .map(|i| resolve(&trusted, res.get(r.set, r.binding, i)))
                .collect(),
        };
        bind.push(items);
    }
    let ir = &p.ir;
    let ls = p.local_size;
    let wg_size = ls[0] * ls[1] * ls[2];
    // Register file: nregs × lanes u64s per worker; keep it within REG_BUDGET values.
    let per_wg = u64::from(ir.nregs.max(1)) * u64::from(wg_size);
    if per_wg > REG_BUDGET {
        return Err(SpirvError::new(format!(
            "shader needs {} registers per invocation; too many for a {wg_size}-invocation workgroup",
            ir.nregs
        )));
    }
    let fuse_cap = u32::try_from(REG_BUDGET / per_wg)
        .unwrap_or(u32::MAX)
        .max(1);
    let fuse = if ir.needs_whole_group {
        1
    } else {
        (FUSE_LANES / wg_size).clamp(1, fuse_cap)
    };
    let total_wg = u64::from(count[0]) * u64::from(count[1]) * u64::from(count[2]);
    if total_wg == 0 {
        return Ok(());
    }
    let groups = total_wg.div_ceil(u64::from(fuse));
    let env = Env {
        ir,
        bind,
        push,
        local: ls,
        base,
        count,
        fuse,
        wg_size,
        total_wg,
        stop,
        abort: std::sync::Mutex::new(None),
        aborted: AtomicBool::new(false),
    };
    let next = AtomicU64::new(0);
    let lanes = (wg_size * fuse) as usize;
    let work = |env: &Env<'_>| {
        let mut m = Machine::new(env, lanes);
        loop {
            let g = next.fetch_add(1, Ordering::Relaxed);
            if g >= groups || env.aborted.load(Ordering::Relaxed) {
                break;
            }
            m.run_group(g);
        }
    };
    let threads = threads
        .max(1)
        .min(usize::try_from(groups).unwrap_or(usize::MAX));
    if threads <= 1 {
        work(&env);
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| work(&env));
            }
        });
    }
    match env.abort.into_inner() {
        Ok(None) => Ok(()),
        Ok(Some(why)) => Err(SpirvError::new(why)),
        Err(_) => Err(SpirvError::new("dispatch aborted")),
    }
}

/// Blocks a worker runs between two calls of the dispatch's `stop` check.
const WATCH_EVERY: u32 = 4096;

struct Machine<'e, 'a> {
    env: &'e Env<'a>,
    l: usize,
    regs: Vec<u64>,
    pcs: Vec<u32>,
    mask: Vec<bool>,
    full: bool,
    shared: Vec<u8>,
    tmp: Vec<u64>,
    /// LocalInvocationId rows (x, y, z) of one workgroup, `wg_size` lanes each.
    local_tmpl: Vec<u64>,
    ta: Vec<u64>,
    tb: Vec<u64>,
    tc: Vec<u64>,
    sub: Vec<bool>,
    tgt: Vec<u32>,
    /// Blocks left until the next watchdog check; counts across groups, so a dispatch of many
    /// short workgroups is watched too.
    watch: u32,
}

impl<'e, 'a> Machine<'e, 'a> {
    fn new(env: &'e Env<'a>, l: usize) -> Self {
        let ir = env.ir;
        let mut regs = vec![0u64; ir.nregs as usize * l];
        for &(r, v) in &ir.consts {
            regs[r as usize * l..(r as usize + 1) * l].fill(v);
        }
        let [lx, ly, lz] = env.local;
        let wgs = env.wg_size as usize;
        let mut local_tmpl = vec![0u64; 3 * wgs];
        let mut li = 0;
        for z in 0..lz {
            for y in 0..ly {
                for x in 0..lx {
                    local_tmpl[li] = u64::from(x);
                    local_tmpl[wgs + li] = u64::from(y);
                    local_tmpl[2 * wgs + li] = u64::from(z);
                    li += 1;
                }
            }
        }
        Machine {
            env,
            l,
            regs,
            pcs: vec![DONE; l],
            mask: vec![false; l],
            full: false,
            shared: vec![0; ir.shared_size as usize],
            tmp: Vec::new(),
            local_tmpl,
            ta: vec![0; l],
            tb: vec![0; l],
            tc: vec![0; l],
            sub: vec![false; l],
            tgt: vec![0; l],
            watch: WATCH_EVERY,
        }
    }

    /// Runs lane group `g`, with the lane loops compiled for AVX2 when the CPU has it.
    fn run_group(&mut self, g: u64) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { self.run_group_avx2(g) };
            return;
        }
        self.run_group_any(g);
    }

    /// `run_group_any` compiled with AVX2 (everything it calls is `inline(always)`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn run_group_avx2(&mut self, g: u64) {
        self.run_group_any(g);
    }

    #[inline(always)]
    fn run_group_any(&mut self, g: u64) {
        let env = self.env;
        let first_wg = g * u64::from(env.fuse);
        let nwg = (env.total_wg - first_wg).min(u64::from(env.fuse)) as usize;
        let n = nwg * env.wg_size as usize;
        let [cx, cy, _] = env.count;
        let b = &env.ir.builtins;
        let l = self.l;
        self.pcs[..n].fill(0);
        self.pcs[n..].fill(DONE);
        let wgs = env.wg_size as usize;
        for k in 0..nwg {
            // Divisions once per workgroup; rows are filled slice by slice.
            let wg = first_wg + k as u64;
            let wgid = [
                (wg % u64::from(cx)) as u32 + env.base[0],
                ((wg / u64::from(cx)) % u64::from(cy)) as u32 + env.base[1],
                (wg / (u64::from(cx) * u64::from(cy))) as u32 + env.base[2],
            ];
            let lanes = k * wgs..(k + 1) * wgs;
            for (c, &wid) in wgid.iter().enumerate() {
                let row = |r: Reg| (r as usize + c) * l;
                if let Some(r) = b.local_id {
                    let o = row(r);
                    self.regs[o + lanes.start..o + lanes.end]
                        .copy_from_slice(&self.local_tmpl[c * wgs..(c + 1) * wgs]);
                }
                if let Some(r) = b.workgroup_id {
                    let o = row(r);
                    self.regs[o + lanes.start..o + lanes.end].fill(u64::from(wid));
                }
                if let Some(r) = b.num_workgroups {
                    let o = row(r);
                    self.regs[o + lanes.start..o + lanes.end].fill(u64::from(env.count[c]));
                }
                if let Some(r) = b.global_id {
                    let o = row(r);
                    let base = wid.wrapping_mul(env.local[c]);
                    let dst = &mut self.regs[o + lanes.start..o + lanes.end];
                    for (d, &x) in dst.iter_mut().zip(&self.local_tmpl[c * wgs..(c + 1) * wgs]) {
                        *d = u64::from(base.wrapping_add(x as u32));
                    }
                }
            }
            if let Some(r) = b.local_index {
                let o = r as usize * l;
                for (i, d) in self.regs[o + lanes.start..o + lanes.end]
                    .iter_mut()
                    .enumerate()
                {
                    *d = i as u64;
                }
            }
        }
        if !self.shared.is_empty() {
            self.shared.fill(0);
        }
        let blocks = &env.ir.blocks;
        // `Some(pc)`: the previous block ran on every lane and sent them all to `pc`, so the mask
        // is still all-true and the scan over `pcs` can be skipped.
        let mut uniform: Option<u32> = None;
        loop {
            self.watch -= 1;
            if self.watch == 0 {
                self.watch = WATCH_EVERY;
                if env.aborted.load(Ordering::Relaxed) {
                    return;
                }
                if let Some(why) = (env.stop)() {
                    if let Ok(mut a) = env.abort.lock() {
                        a.get_or_insert(why);
                    }
                    env.aborted.store(true, Ordering::Relaxed);
                    return;
                }
            }
            let min = match uniform {
                Some(pc) => pc,
                None => self.pcs.iter().copied().min().unwrap_or(DONE),
            };
            if min == DONE {
                break;
            }
            if uniform.is_none() {
                let mut cnt = 0usize;
                for (m, &p) in self.mask.iter_mut().zip(&self.pcs) {
                    *m = p == min;
                    cnt += usize::from(p == min);
                }
                self.full = cnt == self.l;
            }
            let Some(blk) = blocks.get(min as usize) else {
                // Cannot happen for a verified IR; retire the lanes rather than loop forever.
                for i in 0..self.l {
                    if self.mask[i] {
                        self.pcs[i] = DONE;
                    }
                }
                uniform = None;
                continue;
            };
            for op in &blk.ops {
                self.op(op);
            }
            uniform = self.term(&blk.term);
        }
    }

    // ------------------------------------------------------------------ lane loops
    //
    // When the destination row differs from the source rows they are borrowed in place (see
    // `rows`); otherwise the sources are copied into scratch rows first. Either way the loops are
    // plain zips that LLVM vectorises. Every `alu` function is total, so a partial mask computes
    // all lanes and selects what is kept.

    #[inline(always)]
    fn un(&mut self, d: Reg, a: Reg, f: impl Fn(u64) -> u64) {
        let l = self.l;
        let full = self.full;
        let (dst, x) = if d != a {
            let (dst, [x, _, _]) = rows(&mut self.regs, l, d, [a, a, a]);
            (dst, x)
        } else {
            let a = a as usize * l;
            self.ta.copy_from_slice(&self.regs[a..a + l]);
            let d = d as usize * l;
            (&mut self.regs[d..d + l], &self.ta[..])
        };
        if full {
            for (o, &x) in dst.iter_mut().zip(x) {
                *o = f(x);
            }
        } else {
            for ((o, &x), &m) in dst.iter_mut().zip(x).zip(&self.mask) {
                let v = f(x);
                *o = if m { v } else { *o };
            }
        }
    }

    #[inline(always)]
    fn bin(&mut self, d: Reg, a: Reg, b: Reg, f: impl Fn(u64, u64) -> u64) {
        let l = self.l;
        let full = self.full;
        let (dst, x, y) = if d != a && d != b {
            let (dst, [x, y, _]) = rows(&mut self.regs, l, d, [a, b, b]);
            (dst, x, y)
        } else {
            let (a, b) = (a as usize * l, b as usize * l);
            self.ta.copy_from_slice(&self.regs[a..a + l]);
            self.tb.copy_from_slice(&self.regs[b..b + l]);
            let d = d as usize * l;
            (&mut self.regs[d..d + l], &self.ta[..], &self.tb[..])
        };
        if full {
            for ((o, &x), &y) in dst.iter_mut().zip(x).zip(y) {
                *o = f(x, y);
            }
        } else {
            for (((o, &x), &y), &m) in dst.iter_mut().zip(x).zip(y).zip(&self.mask) {
                let v = f(x, y);
                *o = if m { v } else { *o };
            }
        }
    }

    #[inline(always)]
    fn tri(&mut self, d: Reg, a: Reg, b: Reg, c: Reg, f: impl Fn(u64, u64, u64) -> u64) {
        let l = self.l;
        let (dst, x, y, z) = if d != a && d != b && d != c {
            let (dst, [x, y, z]) = rows(&mut self.regs, l, d, [a, b, c]);
            (dst, x, y, z)
        } else {
            let (a, b, c) = (a as usize * l, b as usize * l, c as usize * l);
            self.ta.copy_from_slice(&self.regs[a..a + l]);
            self.tb.copy_from_slice(&self.regs[b..b + l]);
            self.tc.copy_from_slice(&self.regs[c..c + l]);
            let d = d as usize * l;
            (
                &mut self.regs[d..d + l],
                &self.ta[..],
                &self.tb[..],
                &self.tc[..],
            )
        };
        for ((((o, &x), &y), &z), &m) in dst.iter_mut().zip(x).zip(y).zip(z).zip(&self.mask) {
            let v = f(x, y, z);
            *o = if m { v } else { *o };
        }
    }

    /// A subgroup operation: the lane group is cut into workgroups, each workgroup into subgroups
    /// of `SUBGROUP_SIZE` lanes (the last one possibly partial), so fused workgroups never mix.
    fn subgroup(&mut self, op: SubOp, w: u8, d: Reg, a: Reg, b: Reg) {
        let l = self.l;
        let (d, a, b) = (d as usize * l, a as usize * l, b as usize * l);
        self.ta.copy_from_slice(&self.regs[a..a + l]);
        self.tb.copy_from_slice(&self.regs[b..b + l]);
        let dst = &mut self.regs[d..d + l];
        let wgs = (self.env.wg_size as usize).max(1);
        for wg in (0..l).step_by(wgs) {
            let wg_end = (wg + wgs).min(l);
            for s in (wg..wg_end).step_by(SUBGROUP_SIZE) {
                let e = (s + SUBGROUP_SIZE).min(wg_end);
                if self.mask[s..e].iter().any(|&m| m) {
                    subgroup::segment(
                        op,
                        w,
                        &self.mask[s..e],
                        &self.ta[s..e],
                        &self.tb[s..e],
                        &mut dst[s..e],
                    );
                }
            }
        }
    }

    /// Per-lane byte addresses of a memory op into `ta`.
    #[inline(always)]
    fn addrs(&mut self, addr: Option<Reg>, off: u64) {
        match addr {
            Some(r) => {
                let l = self.l;
                let r = r as usize * l;
                for (t, &x) in self.ta.iter_mut().zip(&self.regs[r..r + l]) {
                    *t = x.wrapping_add(off);
                }
            }
            None => self.ta.fill(off),
        }
    }

    /// Loads of `N` bytes from a buffer window known for the whole op.
    #[inline(always)]
    fn load_raw<const N: usize>(&mut self, raw: Raw, d: Reg) {
        let l = self.l;
        let d = d as usize * l;
        let dst = &mut self.regs[d..d + l];
        for ((o, &a), &m) in dst.iter_mut().zip(&self.ta).zip(&self.mask) {
            if m {
                *o = raw.load(a, N).unwrap_or(0);
            }
        }
    }

    #[inline(always)]
    fn store_raw<const N: usize>(&mut self, raw: Raw, v: Reg) {
        let l = self.l;
        let v = v as usize * l;
        for ((&x, &a), &m) in self.regs[v..v + l].iter().zip(&self.ta).zip(&self.mask) {
            if m {
                raw.store(a, N, x);
            }
        }
    }

    #[inline(always)]
    fn r(&self, r: Reg, lane: usize) -> u64 {
        self.regs[r as usize * self.l + lane]
    }

    fn buf(&self, slot: u32, desc: DescIdx, lane: usize) -> Raw {
        let idx = match desc {
            DescIdx::Const(c) => u64::from(c),
            DescIdx::Dyn(r) => self.r(r, lane),
        };
        match self
            .env
            .bind
            .get(slot as usize)
            .and_then(|v| v.get(usize::try_from(idx).ok()?))
        {
            Some(Bound::Buf(raw)) => *raw,
            _ => Raw::EMPTY,
        }
    }

    fn tensor_of(&self, t: &TensorAcc, lane: usize) -> Option<&'e Bound> {
        let idx = match t.desc {
            DescIdx::Const(c) => u64::from(c),
            DescIdx::Dyn(r) => self.r(r, lane),
        };
        self.env
            .bind
            .get(t.slot as usize)?
            .get(usize::try_from(idx).ok()?)
    }

    fn addr(&self, addr: Option<Reg>, off: u64, lane: usize) -> u64 {
        match addr {
            Some(r) => self.r(r, lane).wrapping_add(off),
            None => off,
        }
    }

    #[inline(always)]
    fn op(&mut self, op: &Op) {
        match *op {
            Op::Mov { d, a } => {
                let l = self.l;
                let (d, a) = (d as usize * l, a as usize * l);
                if self.full {
                    self.regs.copy_within(a..a + l, d);
                } else {
                    self.un(d as Reg / l as Reg, a as Reg / l as Reg, |x| x);
                }
            }
            Op::IBin { op, w, d, a, b } => {
                use alu::IBin as I;
                // Each arm passes a literal op so `alu::ibin` folds to one operation per loop.
                macro_rules! arms {
                    ($($v:ident),*) => {
                        match op { $(I::$v => self.bin(d, a, b, |x, y| alu::ibin(I::$v, w, x, y)),)* }
                    };
                }
                arms!(
                    Add, Sub, Mul, UDiv, SDiv, UMod, SRem, SMod, Shl, ShrL, ShrA, And, Or, Xor,
                    UMin, SMin, UMax, SMax, UMulHi, SMulHi, AddCarry, SubBorrow
                )
            }
            Op::IUn { op, w, d, a } => self.un(d, a, |x| alu::iun(op, w, x)),
            Op::ICmp { op, w, d, a, b } => {
                use alu::ICmp as C;
                macro_rules! arms {
                    ($($v:ident),*) => {
                        match op { $(C::$v => self.bin(d, a, b, |x, y| alu::icmp(C::$v, w, x, y)),)* }
                    };
                }
                arms!(Eq, Ne, ULt, ULe, UGt, UGe, SLt, SLe, SGt, SGe)
            }
            Op::FBin { op, w, d, a, b } => {
                use alu::FBin as F;
                macro_rules! arms {
                    ($($v:ident),*) => {
                        match (op, w) {
                            $((F::$v, 32) => self.bin(d, a, b, |x, y| alu::fbin(F::$v, 32, x, y)),)*
                            _ => self.bin(d, a, b, |x, y| alu::fbin(op, w, x, y)),
                        }
                    };
                }
                arms!(Add, Sub, Mul, Div, Min, Max)
            }
            Op::FUn { op, w, d, a } => self.un(d, a, |x| alu::fun(op, w, x)),
            Op::FCmp { op, w, d, a, b } => self.bin(d, a, b, |x, y| alu::fcmp(op, w, x, y)),
            Op::Tern { op, w, d, a, b, c } => {
                self.tri(d, a, b, c, |x, y, z| alu::tern(op, w, x, y, z))
            }
            Op::Conv { op, from, to, d, a } => self.un(d, a, |x| alu::conv(op, from, to, x)),
            Op::Sub { op, w, d, a, b } => self.subgroup(op, w, d, a, b),
            Op::IDot {
                w_in,
                w_out,
                a_signed,
                b_signed,
                sat_signed,
                d,
                ref a,
                ref b,
                acc,
            } => {
                let l = self.l;
                for i in 0..l {
                    if self.mask[i] {
                        let v = alu::idot(
                            w_in,
                            w_out,
                            a_signed,
                            b_signed,
                            sat_signed,
                            a.iter().map(|&r| self.regs[r as usize * l + i]),
                            b.iter().map(|&r| self.regs[r as usize * l + i]),
                            acc.map(|r| self.regs[r as usize * l + i]),
                        );
                        self.regs[d as usize * l + i] = v;
                    }
                }
            }
            Op::Select { d, c, a, b } => self.tri(d, c, a, b, |c, x, y| if c != 0 { x } else { y }),
            Op::Pick { d, idx, ref srcs } => {
                for i in 0..self.l {
                    if self.mask[i] {
                        let k = self.r(idx, i);
                        let v = usize::try_from(k)
                            .ok()
                            .and_then(|k| srcs.get(k))
                            .map(|&s| self.r(s, i))
                            .unwrap_or(0);
                        self.regs[d as usize * self.l + i] = v;
                    }
                }
            }
            Op::LoadVar {
                d,
                base,
                len,
                off,
                idx,
            } => {
                for i in 0..self.l {
                    if self.mask[i] {
                        let k = self.r(idx, i).wrapping_add(u64::from(off));
                        let v = if k < u64::from(len) {
                            self.r(base + k as u32, i)
                        } else {
                            0
                        };
                        self.regs[d as usize * self.l + i] = v;
                    }
                }
            }
            Op::StoreVar {
                base,
                len,
                off,
                idx,
                v,
            } => {
                for i in 0..self.l {
                    if self.mask[i] {
                        let k = self.r(idx, i).wrapping_add(u64::from(off));
                        if k < u64::from(len) {
                            let x = self.r(v, i);
                            self.regs[(base + k as u32) as usize * self.l + i] = x;
                        }
                    }
                }
            }
            Op::Load {
                sp:
                    Space::Buffer {
                        slot,
                        desc: DescIdx::Const(c),
                    },
                size,
                d,
                addr,
                off,
            } => {
                let raw = self.buf(slot, DescIdx::Const(c), 0);
                self.addrs(addr, off);
                match size {
                    1 => self.load_raw::<1>(raw, d),
                    2 => self.load_raw::<2>(raw, d),
                    4 => self.load_raw::<4>(raw, d),
                    _ => self.load_raw::<8>(raw, d),
                }
            }
            Op::Store {
                sp:
                    Space::Buffer {
                        slot,
                        desc: DescIdx::Const(c),
                    },
                size,
                v,
                addr,
                off,
            } => {
                let raw = self.buf(slot, DescIdx::Const(c), 0);
                self.addrs(addr, off);
                match size {
                    1 => self.store_raw::<1>(raw, v),
                    2 => self.store_raw::<2>(raw, v),
                    4 => self.store_raw::<4>(raw, v),
                    _ => self.store_raw::<8>(raw, v),
                }
            }
            Op::Load {
                sp,
                size,
                d,
                addr,
                off,
            } => {
                let size = usize::from(size);
                for i in 0..self.l {
                    if self.mask[i] {
                        let a = self.addr(addr, off, i);
                        let v = match sp {
                            Space::Buffer { slot, desc } => self.buf(slot, desc, i).load(a, size),
                            Space::Push => mem::slice_load(self.env.push, a, size),
                            Space::Shared => mem::slice_load(&self.shared, a, size),
                        };
                        self.regs[d as usize * self.l + i] = v.unwrap_or(0);
                    }
                }
            }
            Op::Store {
                sp,
                size,
                v,
                addr,
                off,
            } => {
                let size = usize::from(size);
                for i in 0..self.l {
                    if self.mask[i] {
                        let a = self.addr(addr, off, i);
                        let x = self.r(v, i);
                        match sp {
                            Space::Buffer { slot, desc } => {
                                self.buf(slot, desc, i).store(a, size, x)
                            }
                            Space::Push => {}
                            Space::Shared => mem::slice_store(&mut self.shared, a, size, x),
                        }
                    }
                }
            }
            Op::Atomic {
                op,
                sp,
                size,
                d,
                addr,
                off,
                v,
                cmp,
            } => {
                let size = usize::from(size);
                for i in 0..self.l {
                    if self.mask[i] {
                        let a = self.addr(addr, off, i);
                        let (x, c) = (self.r(v, i), self.r(cmp, i));
                        let old = match sp {
                            Space::Buffer { slot, desc } => {
                                self.buf(slot, desc, i).atomic(a, size, op, x, c)
                            }
                            Space::Push => None,
                            Space::Shared => mem::slice_atomic(&mut self.shared, a, size, op, x, c),
                        };
                        self.regs[d as usize * self.l + i] = old.unwrap_or(0);
                    }
                }
            }
            Op::ArrayLength {
                slot,
                desc,
                off,
                stride,
                d,
            } => {
                for i in 0..self.l {
                    if self.mask[i] {
                        let len = self.buf(slot, desc, i).len() as u64;
                        let n = len.saturating_sub(off).checked_div(stride).unwrap_or(0);
                        self.regs[d as usize * self.l + i] = trunc(n, 32);
                    }
                }
            }
            Op::TensorRead {
                ref t,
                ref coords,
                signed,
                cw,
                ref d,
                oob,
            } => {
                if !self.tensor_group(t, coords, signed, cw, TAccess::Read { d, oob }) {
                    for i in 0..self.l {
                        if self.mask[i] {
                            self.tensor_access(t, coords, signed, cw, i, TAccess::Read { d, oob });
                        }
                    }
                }
            }
            Op::TensorWrite {
                ref t,
                ref coords,
                signed,
                cw,
                ref v,
            } => {
                if !self.tensor_group(t, coords, signed, cw, TAccess::Write { v }) {
                    for i in 0..self.l {
                        if self.mask[i] {
                            self.tensor_access(t, coords, signed, cw, i, TAccess::Write { v });
                        }
                    }
                }
            }
            Op::TensorQuery { ref t, dim, w, d } if matches!(t.desc, DescIdx::Const(_)) => {
                // One descriptor for every lane: look the dimensions up once.
                let dims: &[u64] = match self.tensor_of(t, 0) {
                    Some(Bound::Tensor { dims, .. }) => dims,
                    _ => &[],
                };
                let l = self.l;
                let (d, k) = (d as usize * l, dim as usize * l);
                self.ta.copy_from_slice(&self.regs[k..k + l]);
                let dst = &mut self.regs[d..d + l];
                for ((o, &k), &m) in dst.iter_mut().zip(&self.ta).zip(&self.mask) {
                    if m {
                        let v = usize::try_from(k)
                            .ok()
                            .and_then(|k| dims.get(k))
                            .copied()
                            .unwrap_or(0);
                        *o = trunc(v, w);
                    }
                }
            }
            Op::TensorQuery { ref t, dim, w, d } => {
                for i in 0..self.l {
                    if self.mask[i] {
                        let k = self.r(dim, i);
                        let v = match self.tensor_of(t, i) {
                            Some(Bound::Tensor { dims, .. }) => usize::try_from(k)
                                .ok()
                                .and_then(|k| dims.get(k))
                                .copied()
                                .unwrap_or(0),
                            _ => 0,
                        };
                        self.regs[d as usize * self.l + i] = trunc(v, w);
                    }
                }
            }
        }
    }

    /// Whether a bound view has the rank (and, for a shaped type, the shape) the access declares.
    /// A mismatch makes reads poison (we give the out-of-bounds value) and drops writes.
    fn view_matches(&self, t: &TensorAcc, dims: &[u64]) -> bool {
        !dims.is_empty()
            && dims.len() == t.rank as usize
            && t.shape
                .is_none_or(|s| self.env.ir.shapes.get(usize::from(s)).map(|s| &**s) == Some(dims))
    }

    /// Tensor read/write over the whole lane group when the descriptor is the same for every lane
    /// (the usual case): the view is validated once, then offsets are computed coordinate by
    /// coordinate over all lanes. Returns `false` if the per-lane path must be used.
    #[inline(always)]
    fn tensor_group(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        acc: TAccess<'_>,
    ) -> bool {
        let DescIdx::Const(c) = t.desc else {
            return false;
        };
        let l = self.l;
        let bound = self
            .env
            .bind
            .get(t.slot as usize)
            .and_then(|v| v.get(c as usize));
        let view = match bound {
            Some(Bound::Tensor {
                raw,
                fmt,
                dims,
                strides,
            }) => compat(t.elem, *fmt)
                .filter(|_| self.view_matches(t, dims) && coords.len() == dims.len())
                .map(|size| (*raw, size, dims, strides)),
            _ => None,
        };
        let Some((raw, size, dims, strides)) = view else {
            // Incompatible view, wrong rank or null descriptor: fully out of bounds.
            if let TAccess::Read { d, oob } = acc {
                for &dr in d {
                    let dr = dr as usize * l;
                    for i in 0..l {
                        if self.mask[i] {
                            self.regs[dr + i] =
                                oob.map(|r| self.regs[r as usize * l + i]).unwrap_or(0);
                        }
                    }
                }
            }
            return true;
        };
        // ta = byte offset of the outer coordinates, tb = innermost coordinate, sub = in bounds.
        // Branch-free lane loops (they vectorise): `ta` wraps instead of saturating, which only
        // matters for lanes that `sub` already marks out of bounds (every in-bounds offset is below
        // the tensor's footprint), and every access is still checked against `raw`.
        self.ta.fill(0);
        self.sub.copy_from_slice(&self.mask);
        let last = dims.len() - 1;
        for (k, &cr) in coords.iter().enumerate() {
            let row = &self.regs[cr as usize * l..(cr as usize + 1) * l];
            let lanes = self.sub.iter_mut().zip(row);
            if k == last {
                self.tb.copy_from_slice(row);
                if signed {
                    for (s, &c) in lanes {
                        *s &= alu::sext(c, cw) >= 0;
                    }
                }
            } else {
                let (dim, stride) = (dims[k], strides[k]);
                for ((s, &c), t) in lanes.zip(self.ta.iter_mut()) {
                    let neg = signed && alu::sext(c, cw) < 0;
                    *s &= !neg & (c < dim);
                    *t = t.wrapping_add(c.wrapping_mul(stride));
                }
            }
        }
        let (dim, stride) = (dims[last], strides[last]);
        let is_bool = t.elem == ScalarType::Bool;
        // Fast path: one element per lane (not an array), no bool conversion.
        match acc {
            TAccess::Read { d: &[dr], oob } if !is_bool => {
                match size {
                    1 => self.tensor_read1::<1>(raw, dim, stride, dr, oob),
                    2 => self.tensor_read1::<2>(raw, dim, stride, dr, oob),
                    4 => self.tensor_read1::<4>(raw, dim, stride, dr, oob),
                    _ => self.tensor_read1::<8>(raw, dim, stride, dr, oob),
                }
                return true;
            }
            TAccess::Write { v: &[vr] } if !is_bool => {
                match size {
                    1 => self.tensor_write1::<1>(raw, dim, stride, vr),
                    2 => self.tensor_write1::<2>(raw, dim, stride, vr),
                    4 => self.tensor_write1::<4>(raw, dim, stride, vr),
                    _ => self.tensor_write1::<8>(raw, dim, stride, vr),
                }
                return true;
            }
            _ => {}
        }
        let off = |base: u64, inner: u64, j: u64| -> Option<u64> {
            let e = inner.checked_add(j)?;
            (e < dim).then(|| base.saturating_add(e.saturating_mul(stride)))
        };
        match acc {
            TAccess::Read { d, oob } => {
                for (j, &dr) in d.iter().enumerate() {
                    let dr = dr as usize * l;
                    for i in 0..l {
                        if !self.mask[i] {
                            continue;
                        }
                        let v = if self.sub[i] {
                            off(self.ta[i], self.tb[i], j as u64).and_then(|o| raw.load(o, size))
                        } else {
                            None
                        };
                        self.regs[dr + i] = match v {
                            Some(v) if is_bool => u64::from(v != 0),
                            Some(v) => v,
                            None => oob.map(|r| self.regs[r as usize * l + i]).unwrap_or(0),
                        };
                    }
                }
            }
            TAccess::Write { v } => {
                for (j, &vr) in v.iter().enumerate() {
                    let vr = vr as usize * l;
                    for i in 0..l {
                        if self.sub[i] {
                            if let Some(o) = off(self.ta[i], self.tb[i], j as u64) {
                                let x = self.regs[vr + i];
                                raw.store(o, size, if is_bool { u64::from(x != 0) } else { x });
                            }
                        }
                    }
                }
            }
        }
        true
    }

    /// [`Self::tensor_group`]'s read of one `N`-byte element per lane: `ta` holds the outer byte
    /// offset, `tb` the innermost coordinate, `sub` the active lanes whose other coordinates are in
    /// bounds. Out-of-bounds lanes get the `oob` value or zero.
    #[inline(always)]
    fn tensor_read1<const N: usize>(
        &mut self,
        raw: Raw,
        dim: u64,
        stride: u64,
        d: Reg,
        oob: Option<Reg>,
    ) {
        let l = self.l;
        match oob {
            Some(r) => self
                .tc
                .copy_from_slice(&self.regs[r as usize * l..(r as usize + 1) * l]),
            None => self.tc.fill(0),
        }
        let d = d as usize * l;
        let dst = &mut self.regs[d..d + l];
        for ((((o, &m), &s), (&base, &inner)), &fallback) in dst
            .iter_mut()
            .zip(&self.mask)
            .zip(&self.sub)
            .zip(self.ta.iter().zip(&self.tb))
            .zip(&self.tc)
        {
            let v = if s && inner < dim {
                raw.load(base.wrapping_add(inner.wrapping_mul(stride)), N)
            } else {
                None
            };
            if m {
                *o = v.unwrap_or(fallback);
            }
        }
    }

    /// [`Self::tensor_group`]'s write of one `N`-byte element per lane (see `tensor_read1`).
    #[inline(always)]
    fn tensor_write1<const N: usize>(&mut self, raw: Raw, dim: u64, stride: u64, v: Reg) {
        let l = self.l;
        let v = v as usize * l;
        for ((&x, &s), (&base, &inner)) in self.regs[v..v + l]
            .iter()
            .zip(&self.sub)
            .zip(self.ta.iter().zip(&self.tb))
        {
            if s && inner < dim {
                raw.store(base.wrapping_add(inner.wrapping_mul(stride)), N, x);
            }
        }
    }

    /// One lane's tensor read or write (each element checked on its own).
    fn tensor_access(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        lane: usize,
        acc: TAccess<'_>,
    ) {
        // Location of element 0 of the run (None = whole access out of bounds / incompatible).
        let mut loc: Option<(Raw, usize, u64, u64, u64, u64)> = None; // raw, size, base, inner, dim, stride
        if let Some(Bound::Tensor {
            raw,
            fmt,
            dims,
            strides,
        }) = self.tensor_of(t, lane)
        {
            if let (Some(size), true) = (compat(t.elem, *fmt), self.view_matches(t, dims)) {
                let mut base = 0u64;
                let mut ok = true;
                let mut inner = 0;
                for (k, &c) in coords.iter().enumerate() {
                    let raw_c = self.r(c, lane);
                    let c = if signed {
                        let s = alu::sext(raw_c, cw);
                        if s < 0 {
                            ok = false;
                            break;
                        }
                        s as u64
                    } else {
                        raw_c
                    };
                    if k + 1 == coords.len() {
                        inner = c;
                    } else {
                        if c >= dims[k] {
                            ok = false;
                            break;
                        }
                        match c.checked_mul(strides[k]).and_then(|x| x.checked_add(base)) {
                            Some(b) => base = b,
                            None => {
                                ok = false;
                                break;
                            }
                        }
                    }
                }
                if ok {
                    let last = dims.len() - 1;
                    loc = Some((*raw, size, base, inner, dims[last], strides[last]));
                }
            }
        }
        let elem_off = |j: u64| -> Option<(Raw, usize, u64)> {
            let (raw, size, base, inner, dim, stride) = loc?;
            let c = inner.checked_add(j)?;
            if c >= dim {
                return None;
            }
            Some((raw, size, c.checked_mul(stride)?.checked_add(base)?))
        };
        let is_bool = t.elem == ScalarType::Bool;
        match acc {
            TAccess::Read { d, oob } => {
                let fallback = oob.map(|r| self.r(r, lane)).unwrap_or(0);
                for (j, &dr) in d.iter().enumerate() {
                    let v = elem_off(j as u64)
                        .and_then(|(raw, size, off)| raw.load(off, size))
                        .map(|v| if is_bool { u64::from(v != 0) } else { v })
                        .unwrap_or(fallback);
                    self.regs[dr as usize * self.l + lane] = v;
                }
            }
            TAccess::Write { v } => {
                for (j, &r) in v.iter().enumerate() {
                    if let Some((raw, size, off)) = elem_off(j as u64) {
                        let x = self.r(r, lane);
                        raw.store(off, size, if is_bool { u64::from(x != 0) } else { x });
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ control flow

    /// Moves every active lane to block `t`.
    fn set_pcs(&mut self, t: u32) {
        if self.full {
            self.pcs.fill(t);
        } else {
            for (p, &m) in self.pcs.iter_mut().zip(&self.mask) {
                *p = if m { t } else { *p };
            }
        }
    }

    #[inline(always)]
    fn take_edge(&mut self, e: &Edge, use_sub: bool) {
        if use_sub {
            std::mem::swap(&mut self.mask, &mut self.sub);
        }
        let full_saved = self.full;
        if use_sub {
            self.full = false;
        }
        if e.moves.len() == 1 {
            let (d, a) = e.moves[0];
            self.un(d, a, |x| x);
        } else if !e.moves.is_empty() {
            let l = self.l;
            self.tmp.clear();
            for &(_, a) in &e.moves {
                self.tmp
                    .extend_from_slice(&self.regs[a as usize * l..(a as usize + 1) * l]);
            }
            for (k, &(d, _)) in e.moves.iter().enumerate() {
                for i in 0..l {
                    if self.mask[i] {
                        self.regs[d as usize * l + i] = self.tmp[k * l + i];
                    }
                }
            }
        }
        self.set_pcs(e.target);
        if use_sub {
            std::mem::swap(&mut self.mask, &mut self.sub);
        }
        self.full = full_saved;
    }

    /// Runs a terminator. Returns `Some(block)` when the mask was full and every lane moved to
    /// `block` (then every `pcs` entry is `block` and the mask is unchanged).
    #[inline(always)]
    fn term(&mut self, t: &Term) -> Option<u32> {
        let full = self.full;
        match t {
            Term::Exit => {
                self.set_pcs(DONE);
                full.then_some(DONE)
            }
            Term::Jump(e) => {
                self.take_edge(e, false);
                full.then_some(e.target)
            }
            Term::Branch { c, t, f } => {
                let l = self.l;
                let c = *c as usize * l;
                let (mut any_t, mut any_f) = (false, false);
                // Branch-free over all lanes (vectorises); `tgt` is only read for active lanes.
                for ((g, &m), &v) in self
                    .tgt
                    .iter_mut()
                    .zip(&self.mask)
                    .zip(&self.regs[c..c + l])
                {
                    let v = v != 0;
                    *g = u32::from(v);
                    any_t |= m & v;
                    any_f |= m & !v;
                }
                if !any_f {
                    self.take_edge(t, false);
                    full.then_some(t.target)
                } else if !any_t {
                    self.take_edge(f, false);
                    full.then_some(f.target)
                } else {
                    for (want, e) in [(1, t), (0, f)] {
                        for ((s, &m), &g) in self.sub.iter_mut().zip(&self.mask).zip(&self.tgt) {
                            *s = m & (g == want);
                        }
                        self.take_edge(e, true);
                    }
                    None
                }
            }
            Term::Switch { sel, cases, edges } => {
                let mut first = None;
                let mut uniform = true;
                for i in 0..self.l {
                    if self.mask[i] {
                        let v = self.r(*sel, i);
                        let k = cases
                            .iter()
                            .find(|(c, _)| *c == v)
                            .map(|(_, e)| *e)
                            .unwrap_or(0);
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
                        for ((s, &m), &g) in self.sub.iter_mut().zip(&self.mask).zip(&self.tgt) {
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

enum TAccess<'o> {
    Read { d: &'o [Reg], oob: Option<Reg> },
    Write { v: &'o [Reg] },
}

/// Borrows register row `d` mutably and rows `src` (each different from `d`, possibly equal to
/// each other) immutably, out of the flat register file with `l` lanes per row.
#[inline(always)]
fn rows(regs: &mut [u64], l: usize, d: Reg, src: [Reg; 3]) -> (&mut [u64], [&[u64]; 3]) {
    let d = d as usize * l;
    let (lo, hi) = regs.split_at_mut(d);
    let (dst, rest) = hi.split_at_mut(l);
    let (lo, rest) = (&*lo, &*rest);
    let row = |r: Reg| {
        let r = r as usize * l;
        if r < d {
            &lo[r..r + l]
        } else {
            &rest[r - d - l..r - d]
        }
    };
    (dst, [row(src[0]), row(src[1]), row(src[2])])
}
