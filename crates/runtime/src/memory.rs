//! `VkDeviceMemory`: a zeroed, aligned host allocation that the application may map.
//!
//! This is the one place in the runtime with `unsafe`: the allocation is shared with the
//! application through `vkMapMemory`, so the driver never forms Rust references to it. Every access
//! goes through raw-pointer copies after a bounds check against the allocation's size, so a bad
//! offset becomes an [`Error`], never an access outside the allocation. Races between the
//! application's writes through a mapping and the executor are the application's to synchronise
//! (that is Vulkan's contract); the driver only ever copies bytes.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use parking_lot::Mutex;
use tessera_kernels::CopyPlan;

use crate::limits::{ALLOCATION_ALIGNMENT, MAX_MEMORY_ALLOCATION_COUNT};
use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

/// The live allocations of one device, by address: what `PhysicalStorageBuffer` pointers in
/// shaders may reach. An allocation is listed from `vkAllocateMemory` until `vkFreeMemory` (or
/// until its last user drops it); a dispatch takes a [`LiveMemory::snapshot`], which keeps the
/// listed allocations alive until the dispatch ends.
#[derive(Debug, Default)]
pub struct LiveMemory {
    allocations: Mutex<std::collections::BTreeMap<u64, std::sync::Weak<DeviceMemory>>>,
}

impl LiveMemory {
    /// Lists `memory` (`vkAllocateMemory`).
    pub fn insert(&self, memory: &Arc<DeviceMemory>) {
        self.allocations
            .lock()
            .insert(memory.address(0), Arc::downgrade(memory));
    }

    /// Unlists `memory` (`vkFreeMemory`): addresses into it no longer resolve, even while
    /// buffers bound to it are still alive.
    pub fn remove(&self, memory: &DeviceMemory) {
        let mut map = self.allocations.lock();
        let key = memory.address(0);
        if map
            .get(&key)
            .is_some_and(|w| std::ptr::eq(w.as_ptr(), memory))
        {
            map.remove(&key);
        }
    }

    /// Every listed allocation that is still alive, in address order (dropped ones are pruned).
    pub fn snapshot(&self) -> Vec<Arc<DeviceMemory>> {
        let mut map = self.allocations.lock();
        map.retain(|_, w| w.strong_count() > 0);
        map.values().filter_map(std::sync::Weak::upgrade).collect()
    }
}

/// Accounting for the one memory heap: bytes and allocations in use.
#[derive(Debug)]
pub struct HeapBudget {
    size: u64,
    used: AtomicU64,
    count: AtomicU32,
}

impl HeapBudget {
    /// A heap of `size` bytes.
    pub fn new(size: u64) -> Self {
        HeapBudget {
            size,
            used: AtomicU64::new(0),
            count: AtomicU32::new(0),
        }
    }

    /// Bytes currently allocated from the heap.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Heap size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    fn reserve(&self, bytes: u64) -> Result<()> {
        let count = self.count.fetch_add(1, Ordering::Relaxed);
        if count >= MAX_MEMORY_ALLOCATION_COUNT {
            self.count.fetch_sub(1, Ordering::Relaxed);
            return Err(Error::invalid(
                "VUID-vkAllocateMemory-maxMemoryAllocationCount-04101",
                format!("already {count} live allocations (maxMemoryAllocationCount)"),
            ));
        }
        let reserved = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|total| *total <= self.size)
            });
        if reserved.is_err() {
            self.count.fetch_sub(1, Ordering::Relaxed);
            return Err(Error::OutOfDeviceMemory(format!(
                "{bytes} bytes requested, {} of {} bytes of the heap in use",
                self.used(),
                self.size
            )));
        }
        Ok(())
    }

    fn release(&self, bytes: u64) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
        self.count.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What `vkGet*MemoryRequirements*` report for a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryRequirements {
    /// Bytes the resource needs.
    pub size: u64,
    /// Required alignment of the binding offset.
    pub alignment: u64,
}

impl MemoryRequirements {
    /// As `VkMemoryRequirements`: every memory type accepts every resource.
    pub fn vk(&self) -> vk::MemoryRequirements {
        vk::MemoryRequirements {
            size: self.size,
            alignment: self.alignment,
            memory_type_bits: crate::physical_device::ALL_MEMORY_TYPES,
        }
    }

    /// As `VkMemoryRequirements2`: no resource prefers or needs a dedicated allocation.
    pub fn vk2(&self) -> vk::MemoryRequirements2 {
        vk::MemoryRequirements2 {
            memory_requirements: self.vk(),
            memory_dedicated_requirements: Some(Box::default()),
        }
    }
}

/// `vkFlushMappedMemoryRanges` / `vkInvalidateMappedMemoryRanges`: each memory must be mapped and
/// each range inside its mapping (there is nothing to flush: the memory is coherent).
///
/// # Errors
/// `Validation` naming the broken rule.
pub fn check_mapped_ranges(ranges: &[vk::MappedMemoryRange]) -> Result<()> {
    for r in ranges {
        let Some(mapped) = r.memory.mapped_range() else {
            return Err(Error::invalid(
                "VUID-VkMappedMemoryRange-memory-00684",
                "memory is not currently host mapped",
            ));
        };
        ensure!(
            r.offset >= mapped.offset,
            "VUID-VkMappedMemoryRange-size-00685",
            "range offset {} is before the mapped offset {}",
            r.offset,
            mapped.offset
        );
        if r.size != vulkan_headers::vulkan::vulkan_core::VK_WHOLE_SIZE {
            ensure!(
                r.offset
                    .checked_add(r.size)
                    .is_some_and(|end| end <= mapped.offset + mapped.size),
                "VUID-VkMappedMemoryRange-size-00685",
                "range [{}, +{}) exceeds the mapped range",
                r.offset,
                r.size
            );
        }
    }
    Ok(())
}

/// The memory range a resource (buffer or tensor) is bound to.
#[derive(Debug, Clone)]
pub struct Binding {
    /// The memory object (kept alive by the resource).
    pub memory: Arc<DeviceMemory>,
    /// Offset of the resource's first byte in `memory`.
    pub offset: u64,
}

/// The VUIDs a binding check reports, per resource kind.
#[derive(Debug, Clone, Copy)]
pub struct BindVuids {
    /// `memoryOffset` must be less than the allocation size.
    pub offset: &'static str,
    /// `memoryOffset` must be a multiple of the required alignment.
    pub alignment: &'static str,
    /// The resource must fit between `memoryOffset` and the end of the allocation.
    pub size: &'static str,
}

/// Checks that a resource with requirements `req` may be bound to `memory` at `offset`.
///
/// # Errors
/// `Validation` naming the VUID of `vuids` that is broken.
pub fn check_bind(
    memory: &DeviceMemory,
    offset: u64,
    req: MemoryRequirements,
    vuids: BindVuids,
) -> Result<()> {
    ensure!(
        offset < memory.size(),
        vuids.offset,
        "memoryOffset {offset} is not less than the memory size {}",
        memory.size()
    );
    ensure!(
        offset.is_multiple_of(req.alignment),
        vuids.alignment,
        "memoryOffset {offset} is not a multiple of the required alignment {}",
        req.alignment
    );
    ensure!(
        req.size <= memory.size() - offset,
        vuids.size,
        "the resource needs {} bytes but only {} remain after memoryOffset {offset}",
        req.size,
        memory.size() - offset
    );
    Ok(())
}

/// A live mapping of a [`DeviceMemory`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MappedRange {
    /// First mapped byte.
    pub offset: u64,
    /// Mapped length in bytes (resolved from `VK_WHOLE_SIZE`).
    pub size: u64,
}

/// Where an allocation's bytes come from.
#[derive(Debug, Clone, Copy)]
enum Backing {
    /// The Rust allocator (small allocations).
    Heap(Layout),
    /// An anonymous private mapping of `len` bytes: zero pages on demand, so a large allocation
    /// costs nothing until it is touched.
    Mapped { len: usize },
}

/// Allocations of at least this many bytes are anonymous mappings.
const MMAP_THRESHOLD: usize = 256 * 1024;

/// A device-memory allocation.
#[derive(Debug)]
pub struct DeviceMemory {
    ptr: NonNull<u8>,
    backing: Backing,
    size: u64,
    memory_type: u32,
    heap: Arc<HeapBudget>,
    mapped: Mutex<Option<MappedRange>>,
    dedicated_to: std::sync::OnceLock<usize>,
}

// SAFETY: the allocation is plain bytes owned by this object; all access goes through raw-pointer
// copies (no references are handed out), so sharing the pointer across threads is sound.
unsafe impl Send for DeviceMemory {}
// SAFETY: as above; `mapped` is behind a mutex.
unsafe impl Sync for DeviceMemory {}

impl DeviceMemory {
    /// Allocates `size` zeroed bytes from `heap`.
    ///
    /// # Errors
    /// `OutOfDeviceMemory` when the heap is exhausted or the host refuses the allocation.
    pub fn allocate(heap: &Arc<HeapBudget>, size: u64, memory_type: u32) -> Result<Self> {
        ensure!(
            size > 0,
            "VUID-VkMemoryAllocateInfo-allocationSize-07897",
            "allocationSize is 0"
        );
        let layout = usize::try_from(size)
            .ok()
            .and_then(|bytes| Layout::from_size_align(bytes, ALLOCATION_ALIGNMENT).ok())
            .ok_or_else(|| Error::OutOfDeviceMemory(format!("{size} bytes is not addressable")))?;
        heap.reserve(size)?;
        let (raw, backing) = if layout.size() >= MMAP_THRESHOLD {
            // SAFETY: an anonymous private mapping of a non-zero length; no existing memory is
            // affected. The kernel returns page-aligned (≥ ALLOCATION_ALIGNMENT), zeroed pages.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    layout.size(),
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            let p = if p == libc::MAP_FAILED {
                std::ptr::null_mut()
            } else {
                p.cast::<u8>()
            };
            (p, Backing::Mapped { len: layout.size() })
        } else {
            // SAFETY: `layout` has a non-zero size (checked above).
            (
                unsafe { std::alloc::alloc_zeroed(layout) },
                Backing::Heap(layout),
            )
        };
        let Some(ptr) = NonNull::new(raw) else {
            heap.release(size);
            return Err(Error::OutOfDeviceMemory(format!(
                "the host refused {size} bytes"
            )));
        };
        Ok(DeviceMemory {
            ptr,
            backing,
            size,
            memory_type,
            heap: heap.clone(),
            mapped: Mutex::new(None),
            dedicated_to: std::sync::OnceLock::new(),
        })
    }

    /// Allocation size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The memory type index it was allocated from.
    pub fn memory_type(&self) -> u32 {
        self.memory_type
    }

    /// Records that this is a dedicated allocation for the resource identified by `key` (the
    /// address of its runtime object).
    pub fn set_dedicated_to(&self, key: usize) {
        let _ = self.dedicated_to.set(key);
    }

    /// The resource this allocation is dedicated to, if any.
    pub fn dedicated_to(&self) -> Option<usize> {
        self.dedicated_to.get().copied()
    }

    /// Host address of byte `offset` (also the buffer-device-address base). Never dereferenced by
    /// callers in this crate.
    pub fn address(&self, offset: u64) -> u64 {
        self.ptr.as_ptr() as u64 + offset
    }

    /// Maps `[offset, offset + size)` (`size == None` means to the end) and returns the host pointer.
    ///
    /// # Errors
    /// `Validation` when already mapped or the range is outside the allocation.
    pub fn map(&self, offset: u64, size: Option<u64>) -> Result<*mut u8> {
        let mut mapped = self.mapped.lock();
        ensure!(
            mapped.is_none(),
            "VUID-vkMapMemory-memory-00678",
            "memory is already mapped"
        );
        ensure!(
            offset < self.size,
            "VUID-vkMapMemory-offset-00679",
            "offset {offset} is not less than the allocation size {}",
            self.size
        );
        let size = size.unwrap_or(self.size - offset);
        ensure!(size > 0, "VUID-vkMapMemory-size-00680", "size is 0");
        ensure!(
            size <= self.size - offset,
            "VUID-vkMapMemory-size-00681",
            "offset {offset} + size {size} exceeds the allocation size {}",
            self.size
        );
        *mapped = Some(MappedRange { offset, size });
        Ok(self.ptr.as_ptr().wrapping_add(offset as usize))
    }

    /// `vkMapMemory2`: as [`Self::map`]; no map flags are supported.
    ///
    /// # Errors
    /// As [`Self::map`], and `Validation` for any flag.
    pub fn map2(&self, flags: u32, offset: u64, size: Option<u64>) -> Result<*mut u8> {
        ensure!(
            flags == 0,
            "VUID-VkMemoryMapInfo-flags-09569",
            "flags {flags:#x}: no map flags are supported (VK_EXT_map_memory_placed is not)"
        );
        self.map(offset, size)
    }

    /// `vkGetDeviceMemoryCommitment`: every byte of an allocation is committed.
    /// (VUID-vkGetDeviceMemoryCommitment-memory-00690 asks for a `LAZILY_ALLOCATED` memory type,
    /// which Tessera does not have; the answer is still the truth.)
    pub fn commitment(&self) -> u64 {
        tracing::debug!(
            "vkGetDeviceMemoryCommitment on memory that is not lazily allocated: {} bytes",
            self.size
        );
        self.size
    }

    /// `vkGetDeviceMemoryOpaqueCaptureAddress`: 0, since `bufferDeviceAddressCaptureReplay` is
    /// not supported (no address can be replayed).
    pub fn opaque_capture_address(&self) -> u64 {
        0
    }

    /// Ends the mapping.
    ///
    /// # Errors
    /// `Validation` when the memory is not mapped.
    pub fn unmap(&self) -> Result<()> {
        let mut mapped = self.mapped.lock();
        ensure!(
            mapped.is_some(),
            "VUID-vkUnmapMemory-memory-00689",
            "memory is not mapped"
        );
        *mapped = None;
        Ok(())
    }

    /// The current mapping, if any.
    pub fn mapped_range(&self) -> Option<MappedRange> {
        *self.mapped.lock()
    }

    fn check_range(&self, offset: u64, len: u64) -> Result<usize> {
        match offset.checked_add(len) {
            Some(end) if end <= self.size => Ok(offset as usize),
            _ => Err(Error::DeviceLost(format!(
                "access of {len} bytes at {offset} outside a {}-byte allocation",
                self.size
            ))),
        }
    }

    /// The host address of `[offset, offset + len)` after checking that it lies in the
    /// allocation (for the interpreter's memory records; never dereferenced here).
    ///
    /// # Errors
    /// `DeviceLost` when the range is outside the allocation.
    pub fn raw_range(&self, offset: u64, len: u64) -> Result<*mut u8> {
        let start = self.check_range(offset, len)?;
        Ok(self.ptr.as_ptr().wrapping_add(start))
    }

    /// Copies `dst.len()` bytes starting at `offset` out of the allocation.
    ///
    /// # Errors
    /// `DeviceLost` when the range is outside the allocation (validation should have caught it).
    pub fn read(&self, offset: u64, dst: &mut [u8]) -> Result<()> {
        let start = self.check_range(offset, dst.len() as u64)?;
        // SAFETY: `start + dst.len()` is within the allocation (checked), `dst` is a distinct Rust
        // buffer, and byte copies have no alignment requirement.
        unsafe {
            std::ptr::copy_nonoverlapping(self.ptr.as_ptr().add(start), dst.as_mut_ptr(), dst.len())
        };
        Ok(())
    }

    /// Copies `src` into the allocation at `offset`.
    ///
    /// # Errors
    /// `DeviceLost` when the range is outside the allocation.
    pub fn write(&self, offset: u64, src: &[u8]) -> Result<()> {
        let start = self.check_range(offset, src.len() as u64)?;
        // SAFETY: the destination range is inside the allocation (checked) and `src` is a Rust
        // slice, which cannot alias the allocation because no references to it are ever formed.
        unsafe {
            std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.as_ptr().add(start), src.len())
        };
        Ok(())
    }

    /// Fills `size` bytes at `offset` (a multiple of 4) with the little-endian `pattern`.
    ///
    /// # Errors
    /// `DeviceLost` when the range is outside the allocation.
    pub fn fill_u32(&self, offset: u64, size: u64, pattern: u32) -> Result<()> {
        let start = self.check_range(offset, size)?;
        let bytes = pattern.to_le_bytes();
        let base = self.ptr.as_ptr().wrapping_add(start);
        if bytes.iter().all(|b| *b == bytes[0]) {
            // SAFETY: `[start, start + size)` is inside the allocation (checked).
            unsafe { std::ptr::write_bytes(base, bytes[0], size as usize) };
            return Ok(());
        }
        for word in 0..(size / 4) as usize {
            // SAFETY: `word * 4 + 4 <= size`, so the four bytes are inside the checked range.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), base.add(word * 4), 4) };
        }
        Ok(())
    }

    /// Copies `size` bytes from `src` at `src_offset` to `dst` at `dst_offset`. Overlapping ranges
    /// (the same allocation) are copied as if through a temporary.
    ///
    /// # Errors
    /// `DeviceLost` when either range is outside its allocation.
    pub fn copy(
        src: &DeviceMemory,
        src_offset: u64,
        dst: &DeviceMemory,
        dst_offset: u64,
        size: u64,
    ) -> Result<()> {
        let s = src.check_range(src_offset, size)?;
        let d = dst.check_range(dst_offset, size)?;
        // SAFETY: both ranges are inside their allocations (checked); `copy` allows overlap.
        unsafe {
            std::ptr::copy(
                src.ptr.as_ptr().add(s),
                dst.ptr.as_ptr().add(d),
                size as usize,
            )
        };
        Ok(())
    }
}

impl DeviceMemory {
    /// Runs a planned strided copy from `src` at `src_offset` to `dst` at `dst_offset` (the
    /// tensors' binding offsets). When both ranges lie in the same allocation and overlap (aliased
    /// tensors, or a tensor copied onto itself), the source bytes go through a temporary first,
    /// so the result is as if every element were read before any was written.
    ///
    /// # Errors
    /// `DeviceLost` when a range is outside its allocation; `OutOfHostMemory` when the temporary
    /// cannot be allocated.
    pub fn copy_strided(
        plan: &CopyPlan,
        src: &DeviceMemory,
        src_offset: u64,
        dst: &DeviceMemory,
        dst_offset: u64,
    ) -> Result<()> {
        let (src_len, dst_len) = (plan.src_extent(), plan.dst_extent());
        let s = src.check_range(src_offset, src_len)?;
        let d = dst.check_range(dst_offset, dst_len)?;
        let overlap = std::ptr::eq(src, dst)
            && src_offset < dst_offset + dst_len
            && dst_offset < src_offset + src_len;
        let dst_ptr = dst.ptr.as_ptr().wrapping_add(d);
        if overlap {
            let mut tmp = Vec::new();
            tmp.try_reserve_exact(src_len as usize).map_err(|_| {
                Error::OutOfHostMemory(format!("{src_len} bytes for an overlapping tensor copy"))
            })?;
            tmp.resize(src_len as usize, 0);
            src.read(src_offset, &mut tmp)?;
            // SAFETY: `tmp` holds the plan's whole source extent; the destination range was
            // checked to lie inside `dst`; `tmp` is a separate allocation, so they do not overlap.
            unsafe { plan.execute_raw(tmp.as_ptr(), dst_ptr) };
        } else {
            // SAFETY: both ranges were checked to lie inside their allocations, and they do not
            // overlap (different allocations, or disjoint ranges of the same one).
            unsafe { plan.execute_raw(src.ptr.as_ptr().wrapping_add(s), dst_ptr) };
        }
        Ok(())
    }
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        match self.backing {
            // SAFETY: `ptr` came from `alloc_zeroed(layout)` and is freed exactly once, here.
            Backing::Heap(layout) => unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) },
            Backing::Mapped { len } => {
                // SAFETY: `ptr` and `len` are the mapping made in `allocate`, unmapped once, here.
                if unsafe { libc::munmap(self.ptr.as_ptr().cast(), len) } != 0 {
                    tracing::error!("munmap of a {len}-byte device-memory allocation failed");
                }
            }
        }
        self.heap.release(self.size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heap() -> Arc<HeapBudget> {
        Arc::new(HeapBudget::new(1 << 20))
    }

    #[test]
    fn live_memory_lists_allocations_until_freed_or_dropped() {
        let heap = heap();
        let live = LiveMemory::default();
        let a = Arc::new(DeviceMemory::allocate(&heap, 64, 0).unwrap());
        let b = Arc::new(DeviceMemory::allocate(&heap, 128, 0).unwrap());
        live.insert(&a);
        live.insert(&b);
        let both = live.snapshot();
        assert_eq!(both.len(), 2);
        assert!(both.windows(2).all(|w| w[0].address(0) < w[1].address(0)));
        drop(both);
        // Freed (still held by a buffer, say): no longer listed.
        live.remove(&a);
        let snap = live.snapshot();
        assert_eq!(snap.len(), 1);
        assert_eq!(snap[0].address(0), b.address(0));
        // A snapshot keeps its allocations alive; once every user drops one, it is unlisted.
        drop(b);
        assert_eq!(snap[0].size(), 128);
        drop(snap);
        assert!(live.snapshot().is_empty());
        // Unlisting something that is not listed is harmless.
        live.remove(&a);
    }

    #[test]
    fn allocation_is_zeroed_and_aligned() {
        let mem = DeviceMemory::allocate(&heap(), 100, 0).unwrap();
        let mut out = [1u8; 100];
        mem.read(0, &mut out).unwrap();
        assert!(out.iter().all(|b| *b == 0));
        assert_eq!(mem.address(0) % ALLOCATION_ALIGNMENT as u64, 0);
    }

    #[test]
    fn heap_budget_is_enforced_and_released() {
        let heap = heap();
        let a = DeviceMemory::allocate(&heap, 1 << 19, 0).unwrap();
        let _b = DeviceMemory::allocate(&heap, 1 << 19, 0).unwrap();
        assert!(matches!(
            DeviceMemory::allocate(&heap, 1, 0),
            Err(Error::OutOfDeviceMemory(_))
        ));
        drop(a);
        assert_eq!(heap.used(), 1 << 19);
        DeviceMemory::allocate(&heap, 1 << 19, 0).unwrap();
    }

    #[test]
    fn large_allocations_are_mapped_and_zeroed() {
        let heap = Arc::new(HeapBudget::new(1 << 30));
        let mem = DeviceMemory::allocate(&heap, 64 << 20, 0).unwrap();
        assert!(matches!(mem.backing, Backing::Mapped { .. }));
        let mut out = [1u8; 16];
        mem.read((64 << 20) - 16, &mut out).unwrap();
        assert_eq!(out, [0; 16]);
        mem.write(1 << 20, &[7; 4]).unwrap();
        mem.read(1 << 20, &mut out[..4]).unwrap();
        assert_eq!(&out[..4], &[7; 4]);
        assert_eq!(mem.address(0) % ALLOCATION_ALIGNMENT as u64, 0);
    }

    #[test]
    fn zero_size_is_invalid() {
        assert!(matches!(
            DeviceMemory::allocate(&heap(), 0, 0),
            Err(Error::Validation { .. })
        ));
    }

    #[test]
    fn map_rules() {
        let mem = DeviceMemory::allocate(&heap(), 64, 0).unwrap();
        assert!(mem.map(64, None).is_err());
        assert!(mem.map(8, Some(57)).is_err());
        let p = mem.map(8, None).unwrap();
        assert_eq!(p as u64, mem.address(8));
        assert_eq!(
            mem.mapped_range(),
            Some(MappedRange {
                offset: 8,
                size: 56
            })
        );
        assert!(mem.map(0, None).is_err());
        mem.unmap().unwrap();
        assert!(mem.unmap().is_err());
    }

    #[test]
    fn fill_copy_and_bounds() {
        let mem = DeviceMemory::allocate(&heap(), 32, 0).unwrap();
        mem.fill_u32(0, 16, 0x0403_0201).unwrap();
        DeviceMemory::copy(&mem, 0, &mem, 4, 16).unwrap();
        let mut out = [0u8; 20];
        mem.read(0, &mut out).unwrap();
        assert_eq!(&out[..8], &[1, 2, 3, 4, 1, 2, 3, 4]);
        assert_eq!(&out[16..20], &[1, 2, 3, 4]);
        assert!(mem.write(30, &[0; 4]).is_err());
        assert!(mem.read(u64::MAX, &mut [0; 2]).is_err());
        mem.fill_u32(16, 16, 0).unwrap();
        mem.read(12, &mut out[..8]).unwrap();
        assert_eq!(&out[..8], &[1, 2, 3, 4, 0, 0, 0, 0]);
    }
}
