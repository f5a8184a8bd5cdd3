//! The context compiled code runs with (one per worker and dispatch), and the functions it calls
//! back into Rust.
//!
//! [`Ctx`] is `repr(C)`: generated code reads its fields at the offsets [`field`] gives.
//! Pointers in it are windows the [`Worker`] handed out (every access from compiled code is
//! checked against the window's length) or point at the worker's own buffers, valid while the
//! worker runs the kernel. The callbacks never unwind into compiled code: a panic in one is
//! caught and makes it report "stop".

use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};

use tessera_coop::product::Operands;
use tessera_spirv::exec::Worker;
use tessera_spirv::ir::{Op, TensorAcc};

use crate::classes::LANES;

/// A memory window: compiled code touches `ptr..ptr + len` only.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub ptr: *mut u8,
    pub len: u64,
}

impl Window {
    pub const EMPTY: Window = Window {
        ptr: std::ptr::null_mut(),
        len: 0,
    };
}

/// One tensor access site's bound view: `ok` is 1 when the view may be accessed by the site at
/// all (format, rank and shape match), else every element is out of bounds.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TensorSite {
    pub ptr: *mut u8,
    pub len: u64,
    pub ok: u64,
    /// The bound view's dimension count (0 when the descriptor is not a tensor view).
    pub rank: u64,
    /// The view's dimensions and byte strides: [`MAX_RANK`] entries each, zero past `rank`, so
    /// compiled code may read any of them whether or not the access it guards runs.
    pub dims: *const u64,
    pub strides: *const u64,
}

/// The most dimensions a tensor has (`VkPhysicalDeviceTensorPropertiesARM::maxTensorDimensionCount`).
pub const MAX_RANK: usize = 8;

/// A tensor access site whose descriptor index is a run-time value: the view [`tensor_site`]
/// found last for it, and the shape its `dims` and `strides` point into.
#[repr(C)]
pub struct DynSite {
    pub site: TensorSite,
    pub shape: SiteShape,
}

impl DynSite {
    pub fn none() -> DynSite {
        DynSite {
            site: TensorSite::none(),
            shape: [0; 2 * MAX_RANK],
        }
    }
}

/// Physical access sites with an allocation cache of their own (`Ctx::physical_sites`).
pub const PHYSICAL_SITES: usize = 16;

/// Dimensions then strides of one site, zero-padded to [`MAX_RANK`] each.
pub type SiteShape = [u64; 2 * MAX_RANK];

/// A shape of zeros, for sites with no tensor view bound.
pub static NO_SHAPE: SiteShape = [0; 2 * MAX_RANK];

impl TensorSite {
    /// No tensor view bound: every access out of bounds, the shape all zeros.
    pub fn none() -> TensorSite {
        TensorSite {
            ptr: std::ptr::null_mut(),
            len: 0,
            ok: 0,
            rank: 0,
            dims: NO_SHAPE.as_ptr(),
            strides: NO_SHAPE[MAX_RANK..].as_ptr(),
        }
    }
}

/// Status codes the compiled function returns.
pub mod status {
    /// Every chunk of the range finished or yielded at a sync block.
    pub const DONE: u32 = 0;
    /// Chunk `Ctx::stop_chunk` needs the interpreter from op `stop_op` of block `stop_block`
    /// (its live registers are in the register file).
    pub const HAND_BACK: u32 = 1;
    /// The dispatch is stopping.
    pub const ABORT: u32 = 2;
}

/// What compiled code reads and writes.
#[repr(C)]
#[derive(Debug)]
pub struct Ctx {
    pub regfile: *mut u8,
    /// Per-lane block indices of the lane group (written when a chunk yields or finishes in a
    /// program with sync ops).
    pub pcs: *mut u32,
    pub shared: Window,
    pub push: Window,
    /// Buffer sites (see `Sites`).
    pub buffers: *const Window,
    /// Tensor sites.
    pub tensors: *const TensorSite,
    /// The workgroup ids of the lane group's workgroups (x, y, z, unused).
    pub wg_ids: *const [u32; 4],
    /// The dispatch's workgroup count.
    pub num_wg: [u32; 4],
    /// Chunks to run: `chunk..chunk_end`; on return, `chunk` is where compiled code stopped.
    pub chunk: u32,
    pub chunk_end: u32,
    /// 0: chunks start at block 0; 1: chunks continue from their lanes' block indices.
    pub resume: u32,
    pub stop_block: u32,
    pub stop_op: u32,
    /// Back edges left before the next watchdog poll.
    pub poll: u32,
    /// What the last watchdog poll of compiled code said (1: stop), written by its trampoline
    /// (`codegen::build_poll_trampoline`).
    pub poll_stop: u32,
    /// A chunk entering a guarded latch (`tessera_spirv::ir::sched`) at or above this block
    /// waits there instead (`u32::MAX`: never); the driver sets it per chunk.
    pub floor: u32,
    /// 1 when this call's chunks are the whole lane group (from chunk 0, no lanes left for the
    /// interpreter, no guarded latches): compiled code may then move every chunk past a
    /// barrier-only block itself and run the next round in the same call (`barrier rounds`).
    pub rounds: u32,
    /// Set to 1 by compiled code when it ran such a round: every chunk has started, so the
    /// driver continues in resume mode after a hand-back.
    pub ran_rounds: u32,
    /// Group batches (programs without sync ops, one workgroup per lane group): the call runs
    /// workgroups `group..groups` of the `wg_ids` table, chunks `chunk..chunk_end` of the first
    /// and `0..chunk_end` of the others; on a hand-back `group` is the one that stopped. 1 and 0
    /// for a call of one group.
    pub groups: u32,
    pub group: u32,
    pub worker: *mut c_void,
    pub kernel: *const c_void,
    /// The callbacks (compiled code calls them through these pointers).
    pub run_op_fn: unsafe extern "C" fn(*mut Ctx, u32, u32) -> u32,
    pub poll_fn: unsafe extern "C" fn(*mut Ctx) -> u32,
    pub physical_fn: unsafe extern "C" fn(*mut Ctx, u64, u64) -> *mut u8,
    pub coop_fn: unsafe extern "C" fn(*mut Ctx, u32, u32, u32) -> u32,
    pub product_fn: unsafe extern "C" fn(*mut Ctx, u32, *const Operands, u32) -> u32,
    pub tensor_site_fn: unsafe extern "C" fn(*mut Ctx, u64, u64) -> *mut u8,
    /// The f32 bits of every float8 code, E4M3 then E5M2 (`codegen::conv::fp8_tables`). Compiled
    /// code reads the address here, never as a constant of its own: a kernel kept on disk runs
    /// in another process, where the table lies elsewhere.
    pub fp8_tables: *const [[u32; 256]; 2],
    /// One per tensor access of the code with a run-time descriptor index
    /// (`CallbackData::dynamic`), plus one that stays unbound: filled by [`tensor_site`].
    pub dyn_sites: *mut DynSite,
    /// The allocation `physical` found last: its device address, length and host address
    /// (length 0: none yet). Compiled code checks an access against it before calling.
    pub physical_cache: [u64; 3],
    /// Per physical access site of the code (site index modulo [`PHYSICAL_SITES`]): the
    /// allocation that site found last, copied from `physical_cache` after its lookup. Sites
    /// that read and write different buffers (`c[i] = a[i] + b[i]`) each keep their own.
    pub physical_sites: [[u64; 3]; PHYSICAL_SITES],
    /// Where a checked access that fails goes instead (loads read these bytes and are then
    /// replaced by 0; stores land here). Large enough for the widest vector access.
    pub scratch: [u8; 512],
    /// The block each lane of the chunk handed back goes on from, when `stop_block` is
    /// [`LANE_PCS`] (a masked loop: some lanes at its header, the others at its exit).
    pub lane_pcs: [u32; 16],
}

/// `Ctx::stop_block` of a chunk handed back with its lanes' blocks in `Ctx::lane_pcs`.
pub const LANE_PCS: u32 = u32::MAX - 1;

/// Byte offset of a `Ctx` field.
macro_rules! field {
    ($f:ident) => {
        std::mem::offset_of!($crate::ctx::Ctx, $f) as i32
    };
}
pub(crate) use field;

/// Back edges between two watchdog polls.
pub const POLL_EVERY: u32 = 1 << 14;

/// What the callbacks need from the kernel.
pub struct CallbackData {
    /// Ops compiled code hands to the interpreter, by index.
    pub ops: Vec<Op>,
    /// Cooperative ops compiled code runs through `coop` or `product`, by index.
    pub natives: Vec<Op>,
    /// Tensor accesses with a run-time descriptor index, by dynamic site (`tensor_site`).
    pub dynamic: Vec<TensorAcc>,
    /// Run-time counts (see `JitKernel::run_stats`).
    pub callouts: std::sync::atomic::AtomicU64,
    pub hand_backs: std::sync::atomic::AtomicU64,
    pub sync_blocks: std::sync::atomic::AtomicU64,
    /// Hand-backs by where the interpreter took over: (block, op), or (`DONE`, 0) for the
    /// lanes' own blocks.
    pub hand_back_sites: std::sync::Mutex<std::collections::BTreeMap<(u32, u32), u64>>,
}

impl CallbackData {
    /// Counts a hand-back at the place `c` says the interpreter takes over.
    pub fn count_hand_back(&self, c: &Ctx) {
        self.hand_backs
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut sites) = self.hand_back_sites.lock() {
            *sites.entry((c.stop_block, c.stop_op)).or_default() += 1;
        }
    }
}

/// # Safety
/// `ctx` must be the `Ctx` the kernel's driver passed to compiled code, with `worker` and
/// `kernel` pointing at the live worker and callback data.
unsafe fn parts<'a>(ctx: *mut Ctx) -> (&'a mut Ctx, &'a mut Worker<'a, 'a>, &'a CallbackData) {
    // SAFETY: the caller's contract; the driver keeps all three alive during the call.
    unsafe {
        let ctx = &mut *ctx;
        let worker = &mut *ctx.worker.cast::<Worker<'a, 'a>>();
        let data = &*ctx.kernel.cast::<CallbackData>();
        (ctx, worker, data)
    }
}

/// Runs op `index` of the kernel's callback list over chunk `chunk`'s lanes in the interpreter
/// (its operands are in the register file; its results go there). Returns 0, or 1 if the
/// dispatch must stop.
///
/// # Safety
/// See [`parts`].
pub unsafe extern "C" fn run_op(ctx: *mut Ctx, index: u32, chunk: u32) -> u32 {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: forwarded contract.
        let (_, worker, data) = unsafe { parts(ctx) };
        let Some(op) = data.ops.get(index as usize) else {
            return 1;
        };
        let lo = chunk as usize * LANES;
        data.callouts
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        worker.run_op(op, lo, lo + LANES);
        0
    }))
    .unwrap_or(1)
}

/// Runs cooperative op `index` of the kernel's native list over chunk `chunk`'s lanes with
/// `tessera-coop`'s batched kernels (its operands are in the register file; its results go
/// there). A training op adds only the lanes whose bit is set in `active` (lane `16·chunk + i`:
/// bit `i`; compiled code passes its divergent branch's mask, or every bit). Returns 0, or 1 if
/// the dispatch must stop.
///
/// # Safety
/// See [`parts`].
pub unsafe extern "C" fn coop(ctx: *mut Ctx, index: u32, chunk: u32, active: u32) -> u32 {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: forwarded contract.
        let (_, worker, data) = unsafe { parts(ctx) };
        let Some(op) = data.natives.get(index as usize) else {
            return 1;
        };
        let lo = chunk as usize * LANES;
        u32::from(!worker.run_coop(op, lo, lo + LANES, active as u16))
    }))
    .unwrap_or(1)
}

/// Runs `count` cooperative-matrix multiply-adds of the form of multiply-add `index` of the
/// kernel's native list for one chunk, from and to `operands`: pointers compiled code computed
/// into its register rows (or the rows of the variable an operand stays in, or where a load
/// left it). Returns 0, or 1 if the dispatch must stop.
///
/// # Safety
/// See [`parts`]; `operands` points at `count` `Operands` whose places hold the multiply-adds'
/// components as `HalfProduct::run_batch` requires.
pub unsafe extern "C" fn product(
    ctx: *mut Ctx,
    index: u32,
    operands: *const Operands,
    count: u32,
) -> u32 {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: forwarded contract.
        let (_, worker, data) = unsafe { parts(ctx) };
        let Some(Op::CoopMatMulAdd { form, .. }) = data.natives.get(index as usize) else {
            return 1;
        };
        // SAFETY: forwarded contract: `count` entries at `operands`.
        let list = unsafe { std::slice::from_raw_parts(operands, count as usize) };
        // SAFETY: forwarded contract.
        u32::from(!unsafe { worker.run_products(form, list) })
    }))
    .unwrap_or(1)
}

/// Fills dynamic site `site` (`CallbackData::dynamic`) with descriptor `index` of its resource
/// slot, as the driver fills the static sites (`driver::tensor_site`), and returns its
/// `TensorSite`: unbound (every element out of bounds) for an index past the array, a view
/// the access may not use, or a site index out of range (which then names the spare last
/// entry).
///
/// # Safety
/// See [`parts`]; `Ctx::dyn_sites` holds `dynamic.len() + 1` entries.
pub unsafe extern "C" fn tensor_site(ctx: *mut Ctx, site: u64, index: u64) -> *mut u8 {
    // SAFETY: forwarded contract.
    let (c, worker, data) = unsafe { parts(ctx) };
    let count = data.dynamic.len();
    let at = usize::try_from(site).map_or(count, |s| s.min(count));
    // SAFETY: `at <= count`, inside the table.
    let entry = unsafe { &mut *c.dyn_sites.add(at) };
    let filled = catch_unwind(AssertUnwindSafe(|| match data.dynamic.get(at) {
        Some(t) => {
            let ir = worker.ir();
            let view = crate::driver::tensor_site(ir, worker, t, index, &mut entry.shape);
            entry.site = view;
        }
        None => entry.site = TensorSite::none(),
    }));
    if filled.is_err() {
        entry.site = TensorSite::none();
    }
    std::ptr::from_mut(&mut entry.site).cast()
}

/// Polls the watchdog: 1 if the dispatch must stop.
///
/// # Safety
/// See [`parts`].
pub unsafe extern "C" fn poll(ctx: *mut Ctx) -> u32 {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: forwarded contract.
        let (ctx, worker, _) = unsafe { parts(ctx) };
        ctx.poll = POLL_EVERY;
        u32::from(worker.should_stop())
    }))
    .unwrap_or(1)
}

/// The host address of `size` bytes at device address `address`, or null if no live allocation
/// holds them.
///
/// # Safety
/// See [`parts`].
pub unsafe extern "C" fn physical(ctx: *mut Ctx, address: u64, size: u64) -> *mut u8 {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: forwarded contract.
        let (ctx, worker, _) = unsafe { parts(ctx) };
        let Some((base, host, len)) = worker.physical_allocation(address, size as usize) else {
            return std::ptr::null_mut();
        };
        // The allocation stays live for the dispatch: compiled code may reuse the window.
        ctx.physical_cache = [base, len as u64, host as u64];
        host.wrapping_add((address - base) as usize)
    }))
    .unwrap_or(std::ptr::null_mut())
}
