//! The only module with `unsafe` code: bounds-checked raw access to application memory.
//!
//! Application memory (buffers and tensors bound at dispatch) is shared with other worker threads
//! and with the application, so it is never turned into Rust references. A [`Raw`] is a
//! `(pointer, length)` record whose constructor is `unsafe` (the caller vouches that the range is
//! valid for the whole dispatch); after that every access is checked against `len`:
//! out-of-range loads return `None` and out-of-range stores are dropped. Loads and stores are
//! unaligned raw reads/writes; atomics use real atomic instructions (`Atomic*::from_ptr`) when the
//! address is naturally aligned and fall back to a plain read-modify-write otherwise.

use crate::{BoundResource, PhysicalRange};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

// SAFETY: `BoundResource` only carries raw pointers as plain addresses plus metadata; the crate
// dereferences them solely through `Raw`, whose accesses are bounds-checked, made with raw unaligned
// reads/writes or atomics (never references), and only during `Program::dispatch`, whose contract
// requires the memory to be valid and any concurrent access to follow the Vulkan memory model.
// Moving the record itself to another thread is therefore harmless.
unsafe impl Send for BoundResource {}
// SAFETY: see the `Send` impl above; a shared `&BoundResource` gives no way to access the memory
// other than through the same checked raw accesses.
unsafe impl Sync for BoundResource {}
// SAFETY: as for `BoundResource`: a `PhysicalRange` is an address and a length, dereferenced only
// through bounds-checked `Raw` windows during a dispatch whose contract keeps the memory valid.
unsafe impl Send for PhysicalRange {}
// SAFETY: see the `Send` impl above.
unsafe impl Sync for PhysicalRange {}

/// Atomic read-modify-write operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    Load,
    Store,
    Exchange,
    CompareExchange,
    Add,
    Sub,
    And,
    Or,
    Xor,
    UMin,
    UMax,
    SMin,
    SMax,
    /// Float add: `v` is the addend as f64 bits, the sum is rounded once to the word's format
    /// (binary16, 32 or 64 by its size).
    FAdd,
}

impl AtomicOp {
    /// Whether lanes applying the operation to one word leave the same value in it whatever
    /// order they take it in: the integer add, sub, and, or, xor, min and max (wrapping; not
    /// a float add, whose roundings depend on the order, nor an exchange or a store).
    pub fn commutes(self) -> bool {
        matches!(
            self,
            AtomicOp::Add
                | AtomicOp::Sub
                | AtomicOp::And
                | AtomicOp::Or
                | AtomicOp::Xor
                | AtomicOp::UMin
                | AtomicOp::UMax
                | AtomicOp::SMin
                | AtomicOp::SMax
        )
    }
}

/// Applies an atomic op to `old`, returning the new value (`w` = 32 or 64).
fn rmw(op: AtomicOp, w: u8, old: u64, v: u64, cmp: u64) -> u64 {
    use crate::alu::{IBin, ibin};
    match op {
        AtomicOp::Load => old,
        AtomicOp::Store | AtomicOp::Exchange => v,
        AtomicOp::CompareExchange => {
            if old == cmp {
                v
            } else {
                old
            }
        }
        AtomicOp::Add => ibin(IBin::Add, w, old, v),
        AtomicOp::Sub => ibin(IBin::Sub, w, old, v),
        AtomicOp::And => old & v,
        AtomicOp::Or => old | v,
        AtomicOp::Xor => old ^ v,
        AtomicOp::UMin => ibin(IBin::UMin, w, old, v),
        AtomicOp::UMax => ibin(IBin::UMax, w, old, v),
        AtomicOp::SMin => ibin(IBin::SMin, w, old, v),
        AtomicOp::SMax => ibin(IBin::SMax, w, old, v),
        AtomicOp::FAdd => {
            let sum = crate::alu::f_get(w, old) + f64::from_bits(v);
            crate::alu::f_put(w, sum)
        }
    }
}

/// Applies `op` to a plain (non-shared) little-endian slice; used for workgroup memory, which is
/// private to the worker running the lane group. Returns the old value, `None` if out of range.
pub(crate) fn slice_atomic(
    mem: &mut [u8],
    off: u64,
    size: usize,
    op: AtomicOp,
    v: u64,
    cmp: u64,
) -> Option<u64> {
    let old = slice_load(mem, off, size)?;
    let new = rmw(op, (size * 8) as u8, old, v, cmp);
    if op != AtomicOp::Load {
        slice_store(mem, off, size, new);
    }
    Some(old)
}

/// Little-endian load of `size` (1, 2, 4 or 8) bytes from a slice; `None` if out of range.
pub(crate) fn slice_load(mem: &[u8], off: u64, size: usize) -> Option<u64> {
    let start = usize::try_from(off).ok()?;
    let bytes = mem.get(start..start.checked_add(size)?)?;
    let mut b = [0u8; 8];
    b[..size].copy_from_slice(bytes);
    Some(u64::from_le_bytes(b))
}

/// Little-endian store of `size` bytes into a slice; dropped if out of range.
pub(crate) fn slice_store(mem: &mut [u8], off: u64, size: usize, v: u64) {
    let Ok(start) = usize::try_from(off) else {
        return;
    };
    let Some(end) = start.checked_add(size) else {
        return;
    };
    if let Some(dst) = mem.get_mut(start..end) {
        dst.copy_from_slice(&v.to_le_bytes()[..size]);
    }
}

/// A bounds-checked window on application memory. See the module docs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Raw {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: `Raw` is an address range whose validity for the whole dispatch was promised by the
// caller of `Raw::new`; all accesses are raw (unaligned or atomic), never references, so sharing
// it between worker threads introduces no aliasing UB beyond what the Vulkan memory model allows.
unsafe impl Send for Raw {}
// SAFETY: as for `Send`.
unsafe impl Sync for Raw {}

impl Raw {
    /// A window of length zero: every access is out of range.
    pub(crate) const EMPTY: Raw = Raw {
        ptr: std::ptr::null_mut(),
        len: 0,
    };

    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` bytes for as long as this `Raw` or any copy
    /// of it is used, and concurrent access by others must be data-race free in the Vulkan sense
    /// (non-atomic conflicting accesses are the shader author's problem, not UB in our code
    /// because we only use raw volatile-free copies that never create references).
    pub(crate) unsafe fn new(ptr: *mut u8, len: usize) -> Raw {
        if ptr.is_null() {
            Raw::EMPTY
        } else {
            Raw { ptr, len }
        }
    }

    /// Byte length of the window.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The window's first byte (null for an empty window), for compiled code that checks every
    /// access against `len` itself.
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// The sub-window of `size` bytes at `off`, if it lies inside this one.
    pub(crate) fn window(&self, off: u64, size: usize) -> Option<Raw> {
        let start = self.range(off, size)?;
        // SAFETY: `start + size <= len`, so the sub-range lies inside this window, which
        // `Raw::new`'s contract makes valid for the same time.
        Some(unsafe { Raw::new(self.ptr.add(start), size) })
    }

    #[inline(always)]
    fn range(&self, off: u64, size: usize) -> Option<usize> {
        let start = usize::try_from(off).ok()?;
        let end = start.checked_add(size)?;
        (end <= self.len).then_some(start)
    }

    /// Little-endian load of `size` (1, 2, 4 or 8) bytes at `off`; `None` if out of range.
    #[inline(always)]
    pub(crate) fn load(&self, off: u64, size: usize) -> Option<u64> {
        let start = self.range(off, size)?;
        // SAFETY: `start + size <= len` and `Raw::new`'s contract makes `ptr..ptr+len` valid for
        // reads; `read_unaligned` needs no alignment.
        let v = unsafe {
            let p = self.ptr.add(start);
            match size {
                1 => u64::from(p.read()),
                2 => u64::from(u16::from_le((p as *const u16).read_unaligned())),
                4 => u64::from(u32::from_le((p as *const u32).read_unaligned())),
                _ => u64::from_le((p as *const u64).read_unaligned()),
            }
        };
        Some(v)
    }

    /// Copies `dst.len()` bytes at `off` into `dst`; false (nothing copied) unless all of them
    /// are in range.
    #[inline]
    pub(crate) fn read(&self, off: u64, dst: &mut [u8]) -> bool {
        let Some(start) = self.range(off, dst.len()) else {
            return false;
        };
        // SAFETY: in range (checked above), valid for reads by `Raw::new`'s contract; `dst` is
        // our own memory, which the application's cannot overlap.
        unsafe { copy_bytes(self.ptr.add(start), dst.as_mut_ptr(), dst.len()) };
        true
    }

    /// Copies `src` to `off`; false (nothing copied) unless all of it is in range.
    #[inline]
    pub(crate) fn write(&self, off: u64, src: &[u8]) -> bool {
        let Some(start) = self.range(off, src.len()) else {
            return false;
        };
        // SAFETY: as in `read`, for writes.
        unsafe { copy_bytes(src.as_ptr(), self.ptr.add(start), src.len()) };
        true
    }

    /// Little-endian store of the low `size` bytes of `v` at `off`; dropped if out of range.
    #[inline(always)]
    pub(crate) fn store(&self, off: u64, size: usize, v: u64) {
        let Some(start) = self.range(off, size) else {
            return;
        };
        // SAFETY: in range (checked above) and `Raw::new`'s contract makes the range valid for
        // writes; `write_unaligned` needs no alignment.
        unsafe {
            let p = self.ptr.add(start);
            match size {
                1 => p.write(v as u8),
                2 => (p as *mut u16).write_unaligned((v as u16).to_le()),
                4 => (p as *mut u32).write_unaligned((v as u32).to_le()),
                _ => (p as *mut u64).write_unaligned(v.to_le()),
            }
        }
    }

    /// Atomic op on a 2-, 4- or 8-byte word at `off` (a 2-byte one through its aligned 4-byte
    /// word when that lies in the window); returns the old value, `None` if out of range.
    pub(crate) fn atomic(
        &self,
        off: u64,
        size: usize,
        op: AtomicOp,
        v: u64,
        cmp: u64,
    ) -> Option<u64> {
        let start = self.range(off, size)?;
        // SAFETY: in range, so the pointer stays inside the bound allocation.
        let p = unsafe { self.ptr.add(start) };
        let w = (size * 8) as u8;
        if size == 4 && (p as usize).is_multiple_of(4) {
            // SAFETY: `p` is aligned, in range, valid for the dispatch, and only ever accessed
            // atomically or with raw accesses (never through references) by this crate.
            let a = unsafe { AtomicU32::from_ptr(p as *mut u32) };
            let old = match op {
                AtomicOp::Load => a.load(Ordering::SeqCst),
                AtomicOp::Store => {
                    a.store(v as u32, Ordering::SeqCst);
                    0
                }
                _ => a
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |old| {
                        Some(rmw(op, w, u64::from(old), v, cmp) as u32)
                    })
                    .unwrap_or_else(|x| x),
            };
            Some(u64::from(old))
        } else if size == 8 && (p as usize).is_multiple_of(8) {
            // SAFETY: as above, with 8-byte alignment checked.
            let a = unsafe { AtomicU64::from_ptr(p as *mut u64) };
            let old = match op {
                AtomicOp::Load => a.load(Ordering::SeqCst),
                AtomicOp::Store => {
                    a.store(v, Ordering::SeqCst);
                    0
                }
                _ => a
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |old| {
                        Some(rmw(op, w, old, v, cmp))
                    })
                    .unwrap_or_else(|x| x),
            };
            Some(old)
        } else if size == 2
            && (p as usize).is_multiple_of(2)
            && let Some(word_start) = start
                .checked_sub((p as usize) & 3)
                .filter(|w| w + 4 <= self.len)
        {
            // SAFETY: the aligned word holding the half-word is in range (its start is `p`
            // rounded down to 4 bytes, checked above to lie inside the window).
            let wp = unsafe { self.ptr.add(word_start) };
            let shift = 8 * ((p as usize) & 2) as u32;
            // SAFETY: `wp` is aligned, in range and only accessed atomically or raw.
            let a = unsafe { AtomicU32::from_ptr(wp as *mut u32) };
            let word = a
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |word| {
                    let old = u64::from((word >> shift) & 0xffff);
                    let new = (rmw(op, w, old, v, cmp) & 0xffff) as u32;
                    Some((word & !(0xffff << shift)) | (new << shift))
                })
                .unwrap_or_else(|x| x);
            Some(u64::from((word >> shift) & 0xffff))
        } else {
            // Misaligned: cannot be atomic; do a plain read-modify-write.
            let old = self.load(off, size)?;
            if op != AtomicOp::Load {
                self.store(off, size, rmw(op, w, old, v, cmp));
            }
            Some(old)
        }
    }
}

/// Copies `len` bytes, with inline moves for the lengths of cooperative-matrix runs (a call to
/// `memcpy` for 32 bytes costs more than the move).
///
/// # Safety
/// As `std::ptr::copy_nonoverlapping`.
#[inline(always)]
unsafe fn copy_bytes(src: *const u8, dst: *mut u8, len: usize) {
    // SAFETY: the caller's contract, for each constant length.
    unsafe {
        match len {
            16 => std::ptr::copy_nonoverlapping(src, dst, 16),
            32 => std::ptr::copy_nonoverlapping(src, dst, 32),
            64 => std::ptr::copy_nonoverlapping(src, dst, 64),
            _ => std::ptr::copy_nonoverlapping(src, dst, len),
        }
    }
}

/// Proof that we are inside [`crate::Program::dispatch`], whose safety contract makes every
/// bound record's `(ptr, len)` valid for the whole call. Lets `exec` build [`Raw`] windows
/// without further `unsafe`.
#[derive(Debug)]
pub(crate) struct Trusted<'a>(std::marker::PhantomData<&'a ()>);

impl<'a> Trusted<'a> {
    /// # Safety
    /// Every `BoundResource` passed to [`Trusted::raw`] during `'a` must satisfy
    /// `Program::dispatch`'s contract: `ptr` valid for reads and writes of `len` bytes for `'a`.
    pub(crate) unsafe fn new() -> Trusted<'a> {
        Trusted(std::marker::PhantomData)
    }

    /// A checked window on a bound record's memory.
    pub(crate) fn raw(&self, ptr: *mut u8, len: usize) -> Raw {
        // SAFETY: `Trusted::new`'s contract covers every record resolved during the dispatch.
        unsafe { Raw::new(ptr, len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Half-word atomic adds from several threads, through windows that start at the word, at
    /// the half-word itself (offset 2 of a word) and inside a larger window: none is lost, and
    /// the other half of the word is untouched.
    #[test]
    fn half_word_atomics_are_atomic_wherever_the_window_starts() {
        const THREADS: usize = 4;
        const ADDS: usize = 256;
        // `FAdd` takes the addend as f64 bits.
        let one = 1.0f64.to_bits();
        for (window_start, window_len, off) in [(0usize, 4usize, 2u64), (0, 8, 2), (4, 4, 2)] {
            let mut words = [0u32; 4];
            let base = words.as_mut_ptr().cast::<u8>();
            // The neighbour half-word holds a marker.
            let marker = 0x5a5au16;
            // SAFETY: the array holds 16 bytes; the window lies inside it.
            unsafe {
                base.add(window_start + off as usize - 2)
                    .cast::<u16>()
                    .write(marker)
            };
            let addr = base as usize;
            std::thread::scope(|scope| {
                for _ in 0..THREADS {
                    scope.spawn(move || {
                        // SAFETY: the array outlives the scope; all threads access it through
                        // `Raw` only.
                        let raw = unsafe { Raw::new((addr + window_start) as *mut u8, window_len) };
                        for _ in 0..ADDS {
                            raw.atomic(off, 2, AtomicOp::FAdd, one, 0).unwrap();
                        }
                    });
                }
            });
            // SAFETY: in range; the threads are done.
            let (sum, neighbour) = unsafe {
                let p = base.add(window_start + off as usize);
                (p.cast::<u16>().read(), p.sub(2).cast::<u16>().read())
            };
            assert_eq!(
                half::f16::from_bits(sum).to_f32(),
                (THREADS * ADDS) as f32,
                "window at {window_start}, offset {off}"
            );
            assert_eq!(neighbour, marker);
        }
    }
}
