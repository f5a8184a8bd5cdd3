//! The backend seam: how a compiled form of a [`Program`] (the JIT in `tessera-jit`) runs lane
//! groups through the same machine the interpreter uses.
//!
//! A [`Kernel`] is handed a [`Worker`] per pool thread and runs the lane groups the worker takes.
//! Everything a compiled backend needs is reached through the worker: the register file (laid
//! out by [`RegLayout`], shared with the interpreter), the per-lane block indices, the bound
//! memory as (pointer, length) windows, push constants and shared memory, the watchdog, and the
//! interpreter itself for the lanes it hands back ([`Worker::interpret`], [`Worker::run_op`],
//! [`Worker::run_block`]).
//!
//! Invariants a kernel must keep (the interpreter relies on them when it takes lanes back):
//! - a register's row holds, for every lane the kernel hands back, the value that lane would
//!   have in the interpreter at that point;
//! - memory is touched only inside the windows the worker returns (every access checked against
//!   the window's length: out-of-range loads read 0, stores are dropped);
//! - it polls [`Worker::should_stop`] often enough that a shader that never ends is stopped.

use super::bind::Bound;
use super::machine::Machine;
use super::regfile::RegLayout;
use crate::ir::{Ir, Op};
use crate::{Program, SpirvError, TensorElement};

/// A backend that compiles programs.
pub trait Backend: Send + Sync + std::fmt::Debug {
    /// The backend's name (`"jit"`).
    fn name(&self) -> &'static str;

    /// Compiles `program`, or says why it cannot.
    fn compile(&self, program: &Program) -> Result<Box<dyn Kernel>, SpirvError>;
}

/// A compiled program.
pub trait Kernel: Send + Sync + std::fmt::Debug {
    /// The backend that made it.
    fn backend(&self) -> &'static str;

    /// Runs lane groups from `next` (each call gives the next group to run, `None` when there
    /// are no more) on one worker, until there are none or the dispatch is stopping.
    fn run_groups(&self, worker: &mut Worker<'_, '_>, next: &mut dyn FnMut() -> Option<u64>);

    /// What of its runs so far went to the interpreter, in words, when something did.
    fn interpreted(&self) -> Option<String> {
        None
    }
}

/// One pool thread's view of a dispatch, for a [`Kernel`].
pub struct Worker<'m, 'e> {
    pub(crate) m: &'m mut Machine<'e>,
}

impl std::fmt::Debug for Worker<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("lanes", &self.m.lanes)
            .finish_non_exhaustive()
    }
}

/// A bound tensor view as compiled code reads it.
#[derive(Debug, Clone, Copy)]
pub struct TensorWindow<'a> {
    pub ptr: *mut u8,
    /// Bytes from `ptr` the view may touch.
    pub len: usize,
    pub format: TensorElement,
    pub dims: &'a [u64],
    /// Byte strides, outermost first.
    pub strides: &'a [u64],
}

impl<'m, 'e> Worker<'m, 'e> {
    /// The program's IR.
    pub fn ir(&self) -> &'e Ir {
        self.m.ir
    }

    /// The register file's layout.
    pub fn layout(&self) -> &'e RegLayout {
        self.m.layout
    }

    /// Starts lane group `group`: every real lane at block 0, built-in rows written, shared
    /// memory zeroed. Returns the number of real lanes.
    pub fn start_group(&mut self, group: u64) -> usize {
        self.m.start_group(group);
        self.m.lanes
    }

    /// Starts lane group `group` as [`Self::start_group`] does, but leaves the built-in rows
    /// unwritten until something needs them: the interpreter entry points below write them
    /// first, and [`Self::write_builtins`] does on request (compiled code that reads a built-in
    /// from its row). Returns the number of real lanes.
    pub fn begin_group(&mut self, group: u64) -> usize {
        self.m.begin_group(group);
        self.m.lanes
    }

    /// Writes the current lane group's built-in rows (once per group).
    pub fn write_builtins(&mut self) {
        self.m.write_builtins();
    }

    /// The workgroup id of workgroup `k` of lane group `group` (base included).
    pub fn workgroup_id(&self, group: u64, k: u32) -> [u32; 3] {
        let env = self.m.env;
        let wg = group * u64::from(env.shape.fuse) + u64::from(k);
        env.workgroup_ids(wg, 1).next().unwrap_or_default()
    }

    /// Writes the ids of lane group `group`'s workgroups into `out` as `[x, y, z, 0]` entries,
    /// in order (base included), and zeros after the last one.
    pub fn fill_workgroup_ids(&self, group: u64, out: &mut [[u32; 4]]) {
        let env = self.m.env;
        let fuse = u64::from(env.shape.fuse);
        let first = group * fuse;
        let n = env.total_wg.saturating_sub(first).min(fuse) as usize;
        env.fill_workgroup_ids(first, n, out);
    }

    /// Lane groups a worker takes per claim (consecutive ones; fewer at the end): a backend
    /// that runs several groups at once should take no more than one claim's, or the workers
    /// of a small dispatch stop sharing its groups.
    pub fn claim(&self) -> u64 {
        self.m.env.claim
    }

    /// Workgroups per lane group.
    pub fn fuse(&self) -> u32 {
        self.m.env.shape.fuse
    }

    /// The dispatch's workgroup count.
    pub fn workgroup_count(&self) -> [u32; 3] {
        self.m.env.count
    }

    /// One past the largest global invocation id of the dispatch on each axis: (base + count)
    /// · workgroup size (ids past 2^32 wrap).
    pub fn global_id_end(&self) -> [u64; 3] {
        let env = self.m.env;
        std::array::from_fn(|axis| {
            (u64::from(env.base[axis]) + u64::from(env.count[axis]))
                * u64::from(env.shape.local[axis])
        })
    }

    /// The register file's base address (rows at `layout().offsets`), valid until the worker is
    /// used again.
    pub fn regfile(&mut self) -> *mut u8 {
        self.m.file.as_mut_ptr()
    }

    /// Sets the block index of lanes `lo..hi`.
    pub fn set_pcs(&mut self, lo: usize, hi: usize, pc: u32) {
        let hi = hi.min(self.m.lanes);
        if lo < hi {
            self.m.pcs[lo..hi].fill(pc);
        }
    }

    /// The block indices of the lane group's lanes (`u32::MAX` = done).
    pub fn pcs(&self) -> &[u32] {
        &self.m.pcs[..self.m.lanes]
    }

    /// Sets what a window run `until_sync` also stops at: the lowest block its lanes wait at
    /// being one of the `guarded` latches (`ir::sched::guarded_latches`) at or above `floor`
    /// (`u32::MAX`: never). Kept until set again.
    pub fn set_floor(&mut self, floor: u32, guarded: &[bool]) {
        self.m.floor = floor;
        if self.m.guarded.as_slice() != guarded {
            self.m.guarded = guarded.to_vec();
        }
    }

    /// Interprets lanes `lo..hi` from their block indices until they are all done or, with
    /// `until_sync`, until the lowest block one of them waits at begins with a `sync` op (or is
    /// a guarded latch at or above the floor, see [`Self::set_floor`]), whose index it
    /// returns.
    pub fn interpret(&mut self, lo: usize, hi: usize, until_sync: bool) -> Option<u32> {
        self.m.write_builtins();
        let hi = hi.min(self.m.lanes);
        let (save_lo, save_hi) = (self.m.lo, self.m.hi);
        (self.m.lo, self.m.hi) = (lo.min(hi), hi);
        let r = self.m.run_group(until_sync);
        // Lanes outside the window must not look active to a later window.
        self.m.mask[lo.min(hi)..hi].fill(false);
        (self.m.lo, self.m.hi) = (save_lo, save_hi);
        r
    }

    /// Interprets lanes `lo..hi`, all at block `pc`, from op `op_index` of it (the ops before
    /// it have run), then on as [`Self::interpret`] does.
    pub fn interpret_from(
        &mut self,
        lo: usize,
        hi: usize,
        pc: u32,
        op_index: usize,
        until_sync: bool,
    ) -> Option<u32> {
        self.m.write_builtins();
        let hi = hi.min(self.m.lanes);
        let lo = lo.min(hi);
        self.m.pcs[lo..hi].fill(pc);
        let is_sync_start = op_index == 0
            && self
                .m
                .ir
                .blocks
                .get(pc as usize)
                .and_then(|b| b.ops.first())
                .is_some_and(|o| o.is_sync());
        if op_index > 0 || !is_sync_start {
            let (save_lo, save_hi) = (self.m.lo, self.m.hi);
            (self.m.lo, self.m.hi) = (lo, hi);
            self.m.resume_at(pc, op_index);
            self.m.mask[lo..hi].fill(false);
            (self.m.lo, self.m.hi) = (save_lo, save_hi);
        }
        self.interpret(lo, hi, until_sync)
    }

    /// The block indices of the lane group's lanes, for compiled code to write.
    pub fn pcs_ptr(&mut self) -> *mut u32 {
        self.m.pcs.as_mut_ptr()
    }

    /// Sets the block indices of lanes `lo..lo + pcs.len()` (those past the group's lanes are
    /// left out).
    pub fn set_lane_pcs(&mut self, lo: usize, pcs: &[u32]) {
        let hi = (lo + pcs.len()).min(self.m.lanes);
        if let Some(dst) = self.m.pcs.get_mut(lo..hi) {
            dst.copy_from_slice(&pcs[..hi - lo]);
        }
    }

    /// Moves every lane of the group waiting at block `from` to block `to` without running
    /// anything: what running a block of workgroup barriers that jumps to `to` with no edge
    /// copies amounts to (barriers are no-ops once every lane has reached them).
    pub fn advance_lanes(&mut self, from: u32, to: u32) {
        for pc in &mut self.m.pcs[..self.m.lanes] {
            // Branch-free, so that it vectorises.
            *pc = if *pc == from { to } else { *pc };
        }
    }

    /// Runs block `pc` once, over every lane of the group waiting at it.
    pub fn run_block(&mut self, pc: u32) {
        self.m.write_builtins();
        let (save_lo, save_hi) = (self.m.lo, self.m.hi);
        (self.m.lo, self.m.hi) = (0, self.m.lanes);
        self.m.run_block(pc);
        self.m.mask[..self.m.lanes].fill(false);
        (self.m.lo, self.m.hi) = (save_lo, save_hi);
    }

    /// Runs `op` over lanes `lo..hi` (all treated as active) with the interpreter.
    pub fn run_op(&mut self, op: &Op, lo: usize, hi: usize) {
        self.m.write_builtins();
        self.m.run_op(op, lo, hi);
        self.m.mask[..self.m.lanes].fill(false);
    }

    /// Runs cooperative op `op` natively over lanes `lo..hi` (all active; the training ops
    /// only for the lanes set in `active`, bit `i` for lane `lo + i`), reading its operands
    /// from and writing its results to the register file: how compiled code runs the ops of
    /// `SPV_NV_cooperative_vector` (batched SIMD kernels, not the interpreter). Returns false
    /// for another op.
    pub fn run_coop(&mut self, op: &Op, lo: usize, hi: usize, active: u16) -> bool {
        let hi = hi.min(self.m.lanes);
        self.m.coop_native(op, lo.min(hi), hi, active)
    }

    /// Cooperative-matrix multiply-adds of `form` for one half-subgroup, from and to
    /// `operands` (pointers compiled code computed), with the worker's product arrays. False,
    /// with nothing written, for a form `HalfProduct::direct` does not take.
    ///
    /// # Safety
    /// As `tessera_coop::product::HalfProduct::run_batch`.
    pub unsafe fn run_products(
        &mut self,
        form: &tessera_coop::matrix::MulAdd,
        operands: &[tessera_coop::product::Operands],
    ) -> bool {
        // SAFETY: forwarded.
        unsafe { self.m.scratch.half.run_batch(form, operands) }
    }

    /// The memory of buffer descriptor `index` of resource slot `slot` (null and 0 when it is
    /// not a bound buffer).
    pub fn buffer(&self, slot: u32, index: u64) -> (*mut u8, usize) {
        let raw = self.m.env.bindings.buffer(slot, index);
        (raw.ptr(), raw.len())
    }

    /// Tensor descriptor `index` of resource slot `slot`, if it is a bound tensor view.
    pub fn tensor(&self, slot: u32, index: u64) -> Option<TensorWindow<'e>> {
        match self.m.env.bindings.get(slot, index)? {
            Bound::Tensor(v) => Some(TensorWindow {
                ptr: v.raw.ptr(),
                len: v.raw.len(),
                format: v.format,
                dims: &v.dims,
                strides: &v.strides,
            }),
            _ => None,
        }
    }

    /// The memory at device address `address` if one live allocation holds `size` bytes there.
    pub fn physical(&self, address: u64, size: usize) -> Option<*mut u8> {
        self.m
            .env
            .bindings
            .physical(address, size)
            .map(|raw| raw.ptr())
    }

    /// The whole allocation holding `size` bytes at device address `address`, if one live
    /// allocation holds them: its device address, host address and length.
    pub fn physical_allocation(&self, address: u64, size: usize) -> Option<(u64, *mut u8, usize)> {
        let bindings = &self.m.env.bindings;
        bindings.physical(address, size)?;
        let (base, raw) = bindings.physical_allocation(address)?;
        Some((base, raw.ptr(), raw.len()))
    }

    /// The push-constant bytes.
    pub fn push_constants(&self) -> &'e [u8] {
        self.m.env.push
    }

    /// The lane group's shared memory.
    pub fn shared(&mut self) -> &mut [u8] {
        &mut self.m.shared
    }

    /// Polls the watchdog: true when the dispatch must stop (every worker then stops soon).
    pub fn should_stop(&self) -> bool {
        self.m.env.should_stop()
    }
}

/// The element size when tensor access `t` (of `ir`) may touch the bound view `view` at all:
/// its element type fits the view's format, and the view has the declared rank and (for a
/// shaped type) shape. `None` makes every element out of bounds, as in the interpreter.
pub fn tensor_access_size(
    ir: &Ir,
    t: &crate::ir::TensorAcc,
    view: &TensorWindow<'_>,
) -> Option<usize> {
    let size = super::bind::compat(t.elem, view.format)?;
    let rank_ok = !view.dims.is_empty() && view.dims.len() == t.rank as usize;
    let shape_ok = t
        .shape
        .is_none_or(|s| ir.shapes.get(usize::from(s)).map(|s| &**s) == Some(view.dims));
    (rank_ok && shape_ok).then_some(size)
}

impl Program {
    /// The `LocalInvocationId` rows (x, y, z) of one workgroup.
    pub fn local_id_rows(&self) -> &[u32] {
        &self.local_ids
    }
}
