//! The kernel driver: runs the lane groups a worker takes with the compiled function, and gives
//! the interpreter what compiled code hands back (see the crate docs).
//!
//! Per group: start it, run the full chunks with compiled code (tail lanes of a group that is
//! not a multiple of 16 lanes go to the interpreter), interpret each chunk handed back from
//! where it stopped; for a program with sync ops, repeat while lanes wait at a sync block: run
//! the lowest one for the whole group, then resume the chunks; a group that keeps diverging
//! around its sync ops is finished by the interpreter. A dispatch whose invocation ids reach
//! 2^31 runs on the interpreter: compiled code widens ids without checking for a wrap.

use std::ffi::c_void;

use tessera_spirv::exec::{Worker, tensor_access_size};
use tessera_spirv::ir::DescIdx;
use tessera_spirv::subgroup::SUBGROUP_SIZE;

use crate::JitKernel;
use crate::classes::LANES;
use crate::codegen::DONE;
use crate::ctx::{self, Ctx, DynSite, MAX_RANK, POLL_EVERY, SiteShape, TensorSite, Window, status};

/// Sync rounds with hand-backs after which the interpreter finishes a group.
const DIVERGENT_ROUNDS: u32 = 32;

pub(crate) fn run_groups(
    kernel: &JitKernel,
    worker: &mut Worker<'_, '_>,
    next: &mut dyn FnMut() -> Option<u64>,
) {
    // Compiled code takes invocation ids for values below 2^31 (`codegen::analysis::
    // invocation_ids`); a dispatch past that runs on the interpreter.
    let ids_fit = worker.global_id_end().iter().all(|&end| end <= 1 << 31);
    if kernel.lockstep.is_some() || !ids_fit {
        while let Some(g) = next() {
            let lanes = worker.start_group(g);
            worker.interpret(0, lanes, false);
            if worker.should_stop() {
                return;
            }
        }
        return;
    }
    let ir = worker.ir();
    let sites = &kernel.out.sites;
    let buffers: Vec<Window> = sites
        .buffers
        .iter()
        .map(|&(slot, desc)| {
            let (ptr, len) = worker.buffer(slot, u64::from(desc));
            Window {
                ptr,
                len: len as u64,
            }
        })
        .collect();
    // Each site's shape, zero-padded to MAX_RANK dims and strides (see `TensorSite`); the boxes
    // stay put while `tensors` points into them.
    let mut shapes: Vec<Box<SiteShape>> = Vec::with_capacity(sites.tensors.len());
    let tensors: Vec<TensorSite> = sites
        .tensors
        .iter()
        .map(|t| {
            let DescIdx::Const(d) = t.desc else {
                return TensorSite::none();
            };
            let mut shape = Box::new([0u64; 2 * MAX_RANK]);
            let site = tensor_site(ir, worker, t, u64::from(d), &mut shape);
            shapes.push(shape);
            site
        })
        .collect();
    // The dynamic sites (`ctx::tensor_site` fills them), and a spare unbound one.
    let mut dyn_sites: Vec<DynSite> = (0..=kernel.data.dynamic.len())
        .map(|_| DynSite::none())
        .collect();
    let push = worker.push_constants();
    let count = worker.workgroup_count();
    let has_sync = kernel.out.has_sync;
    let has_guard = kernel.out.has_guard;
    let guarded = kernel.out.guarded.as_slice();
    let wg_size = kernel.out.wg_size.max(1) as usize;
    worker.set_floor(DONE, guarded);
    // Padded to whole chunks: compiled code builds the ids of one-invocation workgroups from 16
    // entries a chunk (`Gen::lane_workgroup_ids`), also for lanes past a last, partial group,
    // whose values no real lane reads (zeros).
    let mut wg_ids: Vec<[u32; 4]> = Vec::new();
    let mut c = Box::new(Ctx {
        regfile: std::ptr::null_mut(),
        pcs: std::ptr::null_mut(),
        shared: Window::EMPTY,
        push: Window {
            ptr: push.as_ptr().cast_mut(),
            len: push.len() as u64,
        },
        buffers: buffers.as_ptr(),
        tensors: tensors.as_ptr(),
        wg_ids: std::ptr::null(),
        num_wg: [count[0], count[1], count[2], 0],
        chunk: 0,
        chunk_end: 0,
        resume: 0,
        stop_block: 0,
        stop_op: 0,
        poll: POLL_EVERY,
        poll_stop: 0,
        floor: DONE,
        rounds: 0,
        ran_rounds: 0,
        groups: 1,
        group: 0,
        worker: std::ptr::null_mut(),
        kernel: std::sync::Arc::as_ptr(&kernel.data).cast::<c_void>(),
        run_op_fn: ctx::run_op,
        poll_fn: ctx::poll,
        physical_fn: ctx::physical,
        coop_fn: ctx::coop,
        product_fn: ctx::product,
        tensor_site_fn: ctx::tensor_site,
        fp8_tables: crate::codegen::fp8_tables(),
        dyn_sites: dyn_sites.as_mut_ptr(),
        physical_cache: [0; 3],
        physical_sites: [[0; 3]; ctx::PHYSICAL_SITES],
        scratch: [0; 512],
        lane_pcs: [0; LANES],
    });
    let fuse = ir_fuse(worker);
    // Group batches (see `Ctx::groups`): whole workgroups of whole chunks, nothing the
    // interpreter has to prepare per group (no built-in rows, shared memory or callouts).
    if kernel.out.batched
        && fuse == 1
        && kernel.out.callouts.is_empty()
        && !kernel.out.builtin_rows
        && ir.shared_size == 0
        && wg_size.is_multiple_of(LANES)
    {
        run_batches(kernel, worker, next, &mut c, (wg_size / LANES) as u32);
        return;
    }
    wg_ids.resize((fuse.max(1) as usize).next_multiple_of(LANES), [0; 4]);
    let mut sync_rounds = 0u32;
    while let Some(g) = next() {
        let lanes = worker.begin_group(g);
        if kernel.out.builtin_rows {
            worker.write_builtins();
        }
        worker.fill_workgroup_ids(g, &mut wg_ids);
        let full = (lanes / LANES) as u32;
        c.regfile = worker.regfile();
        c.pcs = worker.pcs_ptr();
        let shared = worker.shared();
        c.shared = Window {
            ptr: shared.as_mut_ptr(),
            len: shared.len() as u64,
        };
        c.wg_ids = wg_ids.as_ptr();
        let mut resume = 0;
        // Sync rounds of this group in which some chunk was handed back (see below).
        let mut divergent_rounds = 0u32;
        loop {
            let mut handed_back = false;
            // Without guarded latches every chunk runs in one call; with them, one chunk per
            // call, each with the floor its subgroups' other lanes give (`ir::sched`).
            c.chunk = 0;
            while c.chunk < full {
                let chunk = c.chunk;
                let lo = chunk as usize * LANES;
                c.chunk_end = if has_guard { chunk + 1 } else { full };
                c.resume = resume;
                c.floor = if has_guard {
                    floor(worker.pcs(), lo, lo + LANES, wg_size)
                } else {
                    DONE
                };
                c.rounds = u32::from(!has_guard && chunk == 0 && full as usize * LANES == lanes);
                c.ran_rounds = 0;
                c.worker = (worker as *mut Worker<'_, '_>).cast::<c_void>();
                // SAFETY: `c` is a complete context for this worker and group: the windows come
                // from the worker, the register file and block indices are the worker's and
                // stay put while it runs, `kernel.data` outlives the call; compiled code was
                // generated for this program's IR and layout.
                let st = unsafe { (kernel.func)(&mut *c) };
                if c.ran_rounds != 0 {
                    // Every chunk has started: the ones after a hand-back continue where they wait.
                    resume = 1;
                }
                match st {
                    status::DONE => {
                        // `chunk` is where compiled code stopped: `chunk_end`.
                        c.chunk = c.chunk.max(chunk + 1);
                    }
                    status::HAND_BACK => {
                        handed_back = true;
                        kernel.data.count_hand_back(&c);
                        let chunk = c.chunk;
                        if has_guard {
                            worker.set_floor(c.floor, guarded);
                        }
                        interpret_handed_back(worker, &c, has_sync);
                        if worker.should_stop() {
                            return;
                        }
                        // Re-enter at the next chunk: compiled code starts from `ctx.chunk`.
                        c.chunk = chunk + 1;
                    }
                    _ => return,
                }
            }
            let tail = full as usize * LANES;
            if tail < lanes {
                if has_guard {
                    let f = floor(worker.pcs(), tail, lanes, wg_size);
                    worker.set_floor(f, guarded);
                }
                worker.interpret(tail, lanes, has_sync);
            }
            // The watchdog reads the clock: every 16th sync round is often enough (compiled
            // code also polls it on back edges), every round cost row_sum 3%.
            sync_rounds = sync_rounds.wrapping_add(1);
            if !has_sync || (sync_rounds.is_multiple_of(16) && worker.should_stop()) {
                break;
            }
            // (By value: a minimum over references compiles to a branchy scalar loop.)
            let Some(min) = worker.pcs().iter().copied().min() else {
                break;
            };
            if min == DONE {
                break;
            }
            match kernel
                .out
                .barrier_jumps
                .get(min as usize)
                .copied()
                .flatten()
            {
                Some(target) => worker.advance_lanes(min, target),
                None => {
                    kernel
                        .data
                        .sync_blocks
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    worker.run_block(min);
                }
            }
            // A group whose lanes keep diverging around sync ops (a loop with an atomic or a
            // barrier that some lanes of a chunk reach and others do not) costs compiled code a
            // round trip per iteration on top of the interpreter's work. Every chunk is at a
            // sync block or handed back now, so the whole state is in the register file: past
            // a few such rounds, the interpreter finishes the group in lockstep.
            divergent_rounds += u32::from(handed_back);
            if divergent_rounds >= DIVERGENT_ROUNDS {
                worker.interpret(0, lanes, false);
                break;
            }
            resume = 1;
        }
    }
}

/// Whether every element of a view of `dims` and `strides` (bytes), `size` bytes each, lies in
/// the first `len` bytes: the last byte of the farthest element, `Σ (dim - 1)·stride + size`,
/// is within them (a view with a zero dimension has no elements).
/// The site of access `t` to descriptor `index` of its resource slot, its dims and strides
/// written into `shape` (zero-padded to [`MAX_RANK`] each; the site points into it). `ok` is 1
/// only for a view compiled code may access with `t`.
pub(crate) fn tensor_site(
    ir: &tessera_spirv::ir::Ir,
    worker: &Worker<'_, '_>,
    t: &tessera_spirv::ir::TensorAcc,
    index: u64,
    shape: &mut SiteShape,
) -> TensorSite {
    match worker.tensor(t.slot, index) {
        Some(w) if w.dims.len() <= MAX_RANK && w.strides.len() == w.dims.len() => {
            *shape = [0; 2 * MAX_RANK];
            shape[..w.dims.len()].copy_from_slice(w.dims);
            shape[MAX_RANK..MAX_RANK + w.strides.len()].copy_from_slice(w.strides);
            TensorSite {
                ptr: w.ptr,
                len: w.len as u64,
                // Compiled code's offset arithmetic needs dims and strides far from overflow
                // (below 2^40), and it reads and writes an element whose coordinates are in
                // bounds without checking it against the window: the view's whole footprint
                // must lie inside it. A view outside that goes to the interpreter.
                ok: u64::from(tensor_access_size(ir, t, &w).is_some_and(|size| {
                    w.dims.iter().chain(w.strides).all(|&x| x < 1 << 40)
                        && footprint_fits(w.dims, w.strides, size, w.len)
                })),
                rank: w.dims.len() as u64,
                dims: shape.as_ptr(),
                strides: shape[MAX_RANK..].as_ptr(),
            }
        }
        _ => TensorSite::none(),
    }
}

fn footprint_fits(dims: &[u64], strides: &[u64], size: usize, len: usize) -> bool {
    if dims.contains(&0) {
        return true;
    }
    let far = dims
        .iter()
        .zip(strides)
        .try_fold(size as u128, |acc, (&d, &s)| {
            acc.checked_add(u128::from(d - 1) * u128::from(s))
        });
    far.is_some_and(|f| f <= len as u128)
}

/// Runs chunk `c.chunk`, handed back by compiled code, on the interpreter from where it stopped
/// (`c.stop_block`/`stop_op`, its lanes' block indices when `stop_block` is `DONE`, or
/// `c.lane_pcs` when it is `LANE_PCS`).
fn interpret_handed_back(worker: &mut Worker<'_, '_>, c: &Ctx, until_sync: bool) {
    let lo = c.chunk as usize * LANES;
    if c.stop_block == ctx::LANE_PCS {
        worker.set_lane_pcs(lo, &c.lane_pcs);
        worker.interpret(lo, lo + LANES, until_sync);
    } else if c.stop_block == DONE {
        worker.interpret(lo, lo + LANES, until_sync);
    } else {
        worker.interpret_from(lo, lo + LANES, c.stop_block, c.stop_op as usize, until_sync);
    }
}

/// Groups a batch holds at most.
const BATCH: usize = 64;

/// Runs the worker's groups in batches of up to [`BATCH`] (and one claim's) per call of the
/// compiled function
/// (`Ctx::groups`), each group `full` chunks: the driver only writes each group's workgroup id;
/// a chunk handed back gets its group started for the interpreter, which runs it, and the batch
/// goes on from the next chunk.
fn run_batches(
    kernel: &JitKernel,
    worker: &mut Worker<'_, '_>,
    next: &mut dyn FnMut() -> Option<u64>,
    c: &mut Ctx,
    full: u32,
) {
    // One claim's groups at most, so that the workers share a small dispatch.
    let batch = usize::try_from(worker.claim())
        .unwrap_or(BATCH)
        .clamp(1, BATCH);
    let mut groups: Vec<u64> = Vec::with_capacity(batch);
    let mut ids: Vec<[u32; 4]> = Vec::with_capacity(batch);
    loop {
        groups.clear();
        ids.clear();
        while groups.len() < batch {
            let Some(g) = next() else { break };
            let id = worker.workgroup_id(g, 0);
            groups.push(g);
            ids.push([id[0], id[1], id[2], 0]);
        }
        if groups.is_empty() {
            return;
        }
        c.regfile = worker.regfile();
        c.wg_ids = ids.as_ptr();
        c.groups = groups.len() as u32;
        c.group = 0;
        c.chunk = 0;
        c.chunk_end = full;
        c.resume = 0;
        c.floor = DONE;
        c.rounds = 0;
        loop {
            c.worker = (worker as *mut Worker<'_, '_>).cast::<c_void>();
            // SAFETY: as in `run_groups`; `wg_ids` holds `groups` entries and stays put during
            // the call.
            let st = unsafe { (kernel.func)(&mut *c) };
            match st {
                status::DONE => break,
                status::HAND_BACK => {
                    kernel.data.count_hand_back(c);
                    let (gi, chunk) = (c.group, c.chunk);
                    let Some(&g) = groups.get(gi as usize) else {
                        return;
                    };
                    worker.begin_group(g);
                    interpret_handed_back(worker, c, false);
                    if worker.should_stop() {
                        return;
                    }
                    // Compiled code goes on from the next chunk (the next group's first when
                    // this was the last).
                    c.regfile = worker.regfile();
                    c.chunk = chunk + 1;
                }
                _ => return,
            }
        }
    }
}

/// Workgroups per lane group of the worker's program.
fn ir_fuse(worker: &Worker<'_, '_>) -> u32 {
    let _ = worker;
    // The worker's lane group spans `fuse` workgroups; `workgroup_id(g, k)` serves k < fuse.
    worker.fuse()
}

/// The lowest block index of the lanes outside `lo..hi` that share a subgroup with one inside
/// (`DONE` when there are none): a chunk may take a guarded latch only below it.
fn floor(pcs: &[u32], lo: usize, hi: usize, wg_size: usize) -> u32 {
    let sg = SUBGROUP_SIZE;
    let first = |i: usize| {
        let w = i / wg_size * wg_size;
        w + (i - w) / sg * sg
    };
    let a = first(lo);
    let b = {
        let i = hi - 1;
        let w = i / wg_size * wg_size;
        (first(i) + sg).min(w + wg_size).min(pcs.len())
    };
    let hi = hi.min(b);
    pcs[a..lo]
        .iter()
        .chain(&pcs[hi..b])
        .copied()
        .min()
        .unwrap_or(DONE)
}
