//! Running a [`Program`]: the dispatch driver, the lane-group [`Machine`] and the interpreter.
//!
//! A dispatch resolves its descriptors once ([`bind`]), then the persistent workers
//! (`tessera-workers`) take batches of consecutive *lane groups* from a shared counter. A lane group is one
//! workgroup, or several tiny workgroups fused when the shader has no workgroup-scope barrier,
//! shared memory or anything else that needs whole workgroups (`GroupShape`). Each worker keeps
//! its register file and scratch rows across dispatches (thread-local), so a dispatch allocates
//! nothing per worker once warm.
//!
//! Backends plug in through [`Kernel`]: the interpreter here is the reference; the JIT
//! (`tessera-jit`) runs groups with compiled code and falls back to [`Machine`]'s interpreter for
//! what it does not compile.

mod backend;
pub(crate) mod bind;
mod coop;
mod interp;
mod machine;
pub mod regfile;
mod tensor;

pub use backend::{Backend, Kernel, TensorWindow, Worker, tensor_access_size};
pub(crate) use bind::Bindings;
pub(crate) use machine::Machine;

use crate::ir::Ir;
use crate::{Program, Resources, SpirvError};
use regfile::{RegFile, RegLayout};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Target lane count when fusing tiny workgroups.
const FUSE_LANES: u32 = 64;
/// Maximum register-file size per worker, in bytes (256 MiB).
const REG_BUDGET: u64 = 1 << 28;

/// How a program's invocations are grouped into lane groups (fixed per program).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupShape {
    /// The workgroup size.
    pub local: [u32; 3],
    /// Invocations per workgroup.
    pub wg_size: u32,
    /// Workgroups per lane group.
    pub fuse: u32,
    /// Lanes per lane group (`wg_size * fuse`).
    pub lanes: u32,
}

impl GroupShape {
    /// The shape for `ir` with workgroup size `local`, or an error when one lane group's
    /// register file would not fit the per-worker budget.
    pub(crate) fn new(ir: &Ir, local: [u32; 3]) -> Result<GroupShape, SpirvError> {
        let wg_size = local[0] * local[1] * local[2];
        let per_lane: u64 = ir
            .reg_types
            .iter()
            .map(|t| t.bytes() as u64)
            .sum::<u64>()
            .max(1);
        let per_wg = per_lane * u64::from(wg_size);
        if per_wg > REG_BUDGET {
            return Err(SpirvError::new(format!(
                "the shader needs {per_lane} bytes of registers per invocation; too many for a \
                 {wg_size}-invocation workgroup"
            )));
        }
        let fuse_cap = u32::try_from(REG_BUDGET / per_wg)
            .unwrap_or(u32::MAX)
            .max(1);
        let fuse = if ir.needs_whole_group {
            1
        } else {
            (FUSE_LANES / wg_size.max(1)).clamp(1, fuse_cap)
        };
        Ok(GroupShape {
            local,
            wg_size,
            fuse,
            lanes: wg_size * fuse,
        })
    }
}

/// Scratch rows of one worker (one `u64` per lane each, reused by every op).
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    pub(crate) a: Vec<u64>,
    pub(crate) b: Vec<u64>,
    pub(crate) c: Vec<u64>,
    pub(crate) d: Vec<u64>,
    pub(crate) bools: Vec<u8>,
    pub(crate) flags: Vec<bool>,
    /// The cooperative-vector products of compiled code (`coop`).
    pub(crate) coop: tessera_coop::batch::Batch,
    /// The cooperative-matrix products of compiled code (`coop`).
    pub(crate) half: tessera_coop::product::HalfProduct,
    /// Register-row offsets of a product's operands (`coop`).
    pub(crate) offsets: Vec<usize>,
}

impl Scratch {
    fn fit(&mut self, lanes: usize) {
        for v in [&mut self.a, &mut self.b, &mut self.c, &mut self.d] {
            if v.len() < lanes {
                v.resize(lanes, 0);
            }
        }
        if self.bools.len() < lanes {
            self.bools.resize(lanes, 0);
            self.flags.resize(lanes, false);
        }
    }

    /// A copy of `row` in scratch.
    pub(crate) fn copy_row<S: regfile::Lane>(&mut self, row: &[S], _which: usize) -> &[S] {
        let dst: &mut [S] = bytemuck::cast_slice_mut(&mut self.a[..]);
        dst[..row.len()].copy_from_slice(row);
        &dst[..row.len()]
    }

    pub(crate) fn copy_rows2<S: regfile::Lane>(&mut self, x: &[S], y: &[S]) -> (&[S], &[S]) {
        let a: &mut [S] = bytemuck::cast_slice_mut(&mut self.a[..]);
        a[..x.len()].copy_from_slice(x);
        let b: &mut [S] = bytemuck::cast_slice_mut(&mut self.b[..]);
        b[..y.len()].copy_from_slice(y);
        (&a[..x.len()], &b[..y.len()])
    }

    pub(crate) fn copy_rows3<S: regfile::Lane>(&mut self, rows: [&[S]; 3]) -> [&[S]; 3] {
        let a: &mut [S] = bytemuck::cast_slice_mut(&mut self.a[..]);
        a[..rows[0].len()].copy_from_slice(rows[0]);
        let b: &mut [S] = bytemuck::cast_slice_mut(&mut self.b[..]);
        b[..rows[1].len()].copy_from_slice(rows[1]);
        let c: &mut [S] = bytemuck::cast_slice_mut(&mut self.c[..]);
        c[..rows[2].len()].copy_from_slice(rows[2]);
        [
            &a[..rows[0].len()],
            &b[..rows[1].len()],
            &c[..rows[2].len()],
        ]
    }

    /// Per-lane byte addresses `addr + offset` of the first `n` lanes.
    pub(crate) fn addresses(
        &mut self,
        rows: &regfile::Rows<'_>,
        addr: Option<crate::ir::Reg>,
        offset: u64,
        n: usize,
    ) -> &[u64] {
        let out = &mut self.d[..n];
        match addr {
            Some(r) => {
                regfile::by_bytes!(rows.layout.bytes[r as usize], T => {
                    for (o, &x) in out.iter_mut().zip(&rows.row::<T>(r)[..n]) {
                        *o = regfile::Lane::get(x).wrapping_add(offset);
                    }
                })
            }
            None => out.fill(offset),
        }
        &self.d[..n]
    }

    /// The tensor path's rows: outer byte offsets, innermost coordinates, in-bounds flags.
    pub(crate) fn tensor_rows(&mut self, n: usize) -> (&mut [u64], &mut [u64], &mut [bool]) {
        (&mut self.a[..n], &mut self.b[..n], &mut self.flags[..n])
    }

    /// [`Self::tensor_rows`] plus a row for the out-of-bounds values.
    pub(crate) fn tensor_rows_with_fallback(
        &mut self,
        n: usize,
    ) -> (&mut [u64], &mut [u64], &mut [bool], &mut [u64]) {
        (
            &mut self.a[..n],
            &mut self.b[..n],
            &mut self.flags[..n],
            &mut self.c[..n],
        )
    }

    /// One lane of [`Self::tensor_rows`].
    pub(crate) fn tensor_lane(&self, lane: usize) -> (u64, u64, bool) {
        (self.a[lane], self.b[lane], self.flags[lane])
    }
}

/// What every worker of one dispatch shares.
pub(crate) struct Env<'a> {
    pub(crate) ir: &'a Ir,
    pub(crate) layout: &'a RegLayout,
    pub(crate) shape: GroupShape,
    pub(crate) bindings: Bindings,
    pub(crate) push: &'a [u8],
    /// `LocalInvocationId` rows (x, y, z) of one workgroup, `wg_size` lanes each.
    pub(crate) local_ids: &'a [u32],
    pub(crate) base: [u32; 3],
    pub(crate) count: [u32; 3],
    pub(crate) total_wg: u64,
    /// Lane groups a worker takes per claim of the shared counter (consecutive ones).
    pub(crate) claim: u64,
    /// The watchdog check (see `Program::dispatch_watched`).
    pub(crate) stop: &'a (dyn Fn() -> Option<String> + Sync),
    /// The first reason a worker got from `stop`.
    pub(crate) abort: std::sync::Mutex<Option<String>>,
    /// Set with `abort`: every worker leaves its current group and takes no new one.
    pub(crate) aborted: AtomicBool,
}

impl Env<'_> {
    /// The workgroup ids (base included) of `n` consecutive workgroups from the `first`th.
    pub(crate) fn workgroup_ids(&self, first: u64, n: usize) -> impl Iterator<Item = [u32; 3]> {
        workgroup_ids(self.count, self.base, first, n)
    }

    /// [`Self::workgroup_ids`] as `[x, y, z, 0]` entries in `out`, zeros after the `n`th.
    pub(crate) fn fill_workgroup_ids(&self, first: u64, n: usize, out: &mut [[u32; 4]]) {
        fill_workgroup_ids(self.count, self.base, first, n, out);
    }
}

/// The ids (`base` added) of `n` consecutive workgroups of a `count` grid from the `first`th,
/// x fastest: the first by division, the others by counting on (no division per workgroup: a
/// dispatch of one-invocation workgroups starts a workgroup every few nanoseconds).
fn workgroup_ids(
    count: [u32; 3],
    base: [u32; 3],
    first: u64,
    n: usize,
) -> impl Iterator<Item = [u32; 3]> {
    let [cx, cy, _] = count.map(u64::from);
    let mut id = [first % cx, (first / cx) % cy, first / (cx * cy)];
    (0..n).map(move |_| {
        let now = [
            id[0] as u32 + base[0],
            id[1] as u32 + base[1],
            id[2] as u32 + base[2],
        ];
        id[0] += 1;
        if id[0] == cx {
            id[0] = 0;
            id[1] += 1;
            if id[1] == cy {
                id[1] = 0;
                id[2] += 1;
            }
        }
        now
    })
}

/// [`workgroup_ids`] written into `out` as `[x, y, z, 0]` entries (`n` of them, zeros after):
/// a plain loop over one store an entry, for a backend that reads a table of ids per lane group.
/// It counts on as `workgroup_ids` does (a unit test holds the two equal): zipping that
/// iterator into `out` instead ran tiny_groups about 10 % slower.
fn fill_workgroup_ids(count: [u32; 3], base: [u32; 3], first: u64, n: usize, out: &mut [[u32; 4]]) {
    let [cx, cy, _] = count.map(u64::from);
    let n = n.min(out.len());
    if n > 0 {
        let (mut x, mut y, mut z) = (
            (first % cx) as u32,
            ((first / cx) % cy) as u32,
            (first / (cx * cy)) as u32,
        );
        let [cx, cy, _] = count;
        for entry in &mut out[..n] {
            *entry = [
                x.wrapping_add(base[0]),
                y.wrapping_add(base[1]),
                z.wrapping_add(base[2]),
                0,
            ];
            x += 1;
            if x == cx {
                x = 0;
                y += 1;
                if y == cy {
                    y = 0;
                    z += 1;
                }
            }
        }
    }
    out[n..].fill([0; 4]);
}

thread_local! {
    /// Each worker's register file and scratch rows, kept across dispatches.
    static WORKER_STATE: RefCell<(RegFile, Scratch)> = RefCell::new(Default::default());
}

/// Runs a dispatch on the interpreter. See [`Program::dispatch`].
///
/// # Safety
/// Same contract as [`Program::dispatch`].
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn dispatch(
    p: &Program,
    kernel: Option<&dyn Kernel>,
    res: &dyn Resources,
    push: &[u8],
    base: [u32; 3],
    count: [u32; 3],
    threads: usize,
    stop: &(dyn Fn() -> Option<String> + Sync),
) -> Result<(), SpirvError> {
    let total_wg = u64::from(count[0]) * u64::from(count[1]) * u64::from(count[2]);
    if total_wg == 0 {
        return Ok(());
    }
    let shape = p.shape;
    let groups = total_wg.div_ceil(u64::from(shape.fuse));
    let pool = tessera_workers::global();
    let workers = threads
        .max(1)
        .min(pool.threads())
        .min(usize::try_from(groups).unwrap_or(usize::MAX));
    // Small enough that the last batches balance the workers, large enough to amortise the
    // claim and keep each worker's accesses contiguous.
    let batch = (groups / (workers as u64 * 16)).clamp(1, 64);
    let env = Env {
        ir: &p.ir,
        layout: &p.layout,
        shape,
        // SAFETY: our caller guarantees every bound record is valid for this call.
        bindings: unsafe { Bindings::resolve(p, res) },
        push,
        local_ids: &p.local_ids,
        base,
        count,
        total_wg,
        claim: batch,
        stop,
        abort: std::sync::Mutex::new(None),
        aborted: AtomicBool::new(false),
    };
    let next = AtomicU64::new(0);
    let work = |_: usize| {
        let run = |file: &mut RegFile, scratch: &mut Scratch| {
            // Converted weight copies are keyed by address: a new dispatch may have rebound
            // or rewritten that memory.
            scratch.coop.forget();
            let mut m = Machine::new(&env, file, scratch);
            // Each claim takes `batch` consecutive groups, so that a worker streams through
            // contiguous memory (hardware prefetchers follow it) and the shared counter is
            // touched once per batch.
            let (mut at, mut end) = (0u64, 0u64);
            let mut take = || {
                if at == end {
                    at = next.fetch_add(batch, Ordering::Relaxed);
                    end = at.saturating_add(batch).min(groups);
                }
                if at >= groups || env.aborted.load(Ordering::Relaxed) {
                    return None;
                }
                at += 1;
                Some(at - 1)
            };
            match kernel {
                Some(k) => k.run_groups(&mut Worker { m: &mut m }, &mut take),
                None => {
                    while let Some(g) = take() {
                        m.start_group(g);
                        m.run_group(false);
                    }
                }
            }
        };
        // A nested dispatch on this thread (never expected) gets fresh state instead of a
        // second borrow.
        WORKER_STATE.with(|state| match state.try_borrow_mut() {
            Ok(mut s) => {
                let (file, scratch) = &mut *s;
                run(file, scratch)
            }
            Err(_) => run(&mut RegFile::default(), &mut Scratch::default()),
        });
    };
    let ran = pool.run(workers, &work);
    if let Err(p) = ran {
        return Err(SpirvError::new(format!(
            "internal error: the {} panicked: {}",
            kernel.map_or("interpreter", |k| k.backend()),
            p.0
        )));
    }
    match env.abort.into_inner() {
        Ok(None) => Ok(()),
        Ok(Some(why)) => Err(SpirvError::new(why)),
        Err(_) => Err(SpirvError::new("dispatch aborted")),
    }
}

/// `LocalInvocationId` rows (x, y, z) of one workgroup of size `local`.
pub(crate) fn local_id_rows(local: [u32; 3]) -> Vec<u32> {
    let [lx, ly, lz] = local;
    let n = (lx * ly * lz) as usize;
    let mut rows = vec![0u32; 3 * n];
    let mut li = 0;
    for z in 0..lz {
        for y in 0..ly {
            for x in 0..lx {
                rows[li] = x;
                rows[n + li] = y;
                rows[2 * n + li] = z;
                li += 1;
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::{fill_workgroup_ids, workgroup_ids};

    #[test]
    fn workgroup_ids_count_on_as_division_would() {
        let count = [3u32, 2, 4];
        let base = [10u32, 20, 30];
        let total = 3 * 2 * 4;
        for first in 0..total {
            let got: Vec<[u32; 3]> =
                workgroup_ids(count, base, first, (total - first) as usize).collect();
            let want: Vec<[u32; 3]> = (first..total)
                .map(|wg| {
                    [
                        (wg % 3) as u32 + 10,
                        ((wg / 3) % 2) as u32 + 20,
                        (wg / 6) as u32 + 30,
                    ]
                })
                .collect();
            assert_eq!(got, want, "from workgroup {first}");
            let mut table = vec![[7u32; 4]; 32];
            let n = (total - first) as usize;
            fill_workgroup_ids(count, base, first, n, &mut table);
            let filled: Vec<[u32; 3]> = table[..n].iter().map(|e| [e[0], e[1], e[2]]).collect();
            assert_eq!(filled, want, "table from workgroup {first}");
            assert!(table[..n].iter().all(|e| e[3] == 0));
            assert!(table[n..].iter().all(|&e| e == [0; 4]));
        }
    }
}
