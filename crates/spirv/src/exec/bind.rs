//! The descriptors of one dispatch, resolved once before any lane runs: every resource slot's
//! bound buffers and tensor views as bounds-checked [`Raw`] windows, and the live device-memory
//! ranges that `PhysicalStorageBuffer` addresses resolve against.
//!
//! Invariants: a resolved window never extends past what the application bound; an unbound,
//! null or malformed descriptor resolves to [`Bound::Null`] (every access out of bounds).
//!
//! A program whose variable pointers into buffers are values (`Program::descriptor_addresses`)
//! also finds every bound buffer window among the physical ranges, at
//! [`descriptor_address`]: bit 63 set, which no host (and so no device) address has.

use crate::mem::{Raw, Trusted};
use crate::{BoundResource, PhysicalRange, Program, Resources, ScalarType, TensorElement};

/// A bound tensor view.
#[derive(Debug, Clone)]
pub(crate) struct TensorView {
    pub(crate) raw: Raw,
    pub(crate) format: TensorElement,
    pub(crate) dims: Vec<u64>,
    /// Byte strides, outermost first.
    pub(crate) strides: Vec<u64>,
}

/// One resolved descriptor.
#[derive(Debug, Clone)]
pub(crate) enum Bound {
    Buffer(Raw),
    Tensor(TensorView),
    Null,
}

/// Every descriptor and device-memory range of a dispatch.
#[derive(Debug)]
pub(crate) struct Bindings {
    /// Per resource slot (`Program::resources` order), per array element.
    slots: Vec<Vec<Bound>>,
    /// Live allocations by device address, sorted and non-overlapping.
    physical: Vec<(u64, Raw)>,
}

impl Bindings {
    /// Resolves `program`'s resources.
    ///
    /// # Safety
    /// Every record `resources` returns and every range of `resources.physical_ranges()` must be
    /// valid for reads and writes for as long as the result is used (see `Program::dispatch`).
    pub(crate) unsafe fn resolve(program: &Program, resources: &dyn Resources) -> Bindings {
        // SAFETY: forwarded contract.
        let trusted = unsafe { Trusted::new() };
        let mut slots = Vec::with_capacity(program.resources.len());
        for r in &program.resources {
            let items = match r.array_len {
                None => vec![resolve(&trusted, resources.get(r.set, r.binding, 0))],
                Some(0) => {
                    // Runtime array: resolve the bound prefix (capped).
                    let mut v = Vec::new();
                    while v.len() < 4096 {
                        match resources.get(r.set, r.binding, v.len() as u32) {
                            Some(b) => v.push(resolve(&trusted, Some(b))),
                            None => break,
                        }
                    }
                    v
                }
                Some(n) => (0..n.min(1 << 16))
                    .map(|i| resolve(&trusted, resources.get(r.set, r.binding, i)))
                    .collect(),
            };
            slots.push(items);
        }
        let mut physical = physical_windows(&trusted, resources.physical_ranges());
        if program.descriptor_addresses {
            physical.extend(descriptor_windows(&slots));
            physical.sort_by_key(|&(address, _)| address);
        }
        Bindings { slots, physical }
    }

    /// Descriptor `index` of slot `slot`.
    #[inline(always)]
    pub(crate) fn get(&self, slot: u32, index: u64) -> Option<&Bound> {
        self.slots
            .get(slot as usize)?
            .get(usize::try_from(index).ok()?)
    }

    /// The buffer window of a descriptor (empty when it is not a bound buffer).
    #[inline(always)]
    pub(crate) fn buffer(&self, slot: u32, index: u64) -> Raw {
        match self.get(slot, index) {
            Some(Bound::Buffer(raw)) => *raw,
            _ => Raw::EMPTY,
        }
    }

    /// The window of `size` bytes at device address `address`, if one live allocation holds all
    /// of it.
    pub(crate) fn physical(&self, address: u64, size: usize) -> Option<Raw> {
        let (base, raw) = self.physical_allocation(address)?;
        raw.window(address - base, size)
    }

    /// The live allocation whose range starts at or below `address` last (its device address
    /// and its window), which holds `address` if any does.
    pub(crate) fn physical_allocation(&self, address: u64) -> Option<(u64, Raw)> {
        let i = self.physical.partition_point(|&(a, _)| a <= address);
        self.physical.get(i.checked_sub(1)?).copied()
    }
}

/// The most bytes of a descriptor's window a variable pointer reaches (its offset bits).
const DESCRIPTOR_WINDOW: usize = 1 << 32;

/// The address at which a variable pointer sees the start of buffer descriptor `index` of
/// resource slot `slot`: bit 63, the slot in bits 48..63, the index in bits 32..48, and the
/// byte offset below. `None` past 32 768 slots or 65 536 array elements.
pub(crate) fn descriptor_address(slot: u32, index: u32) -> Option<u64> {
    (slot < (1 << 15) && index < (1 << 16))
        .then(|| (1 << 63) | (u64::from(slot) << 48) | (u64::from(index) << 32))
}

/// Every bound, non-empty buffer window of `slots` at its [`descriptor_address`], cut to the
/// offsets the address's low 32 bits can hold.
fn descriptor_windows(slots: &[Vec<Bound>]) -> Vec<(u64, Raw)> {
    let mut out = Vec::new();
    for (slot, items) in slots.iter().enumerate() {
        for (index, item) in items.iter().enumerate() {
            let (Bound::Buffer(raw), Ok(slot), Ok(index)) =
                (item, u32::try_from(slot), u32::try_from(index))
            else {
                continue;
            };
            let Some(address) = descriptor_address(slot, index) else {
                continue;
            };
            let len = raw.len().min(DESCRIPTOR_WINDOW);
            if len > 0 {
                out.extend(raw.window(0, len).map(|window| (address, window)));
            }
        }
    }
    out
}

/// The device-memory ranges as windows sorted by address; empty ranges and ranges whose end
/// overflows are dropped, and of overlapping ranges only the first (by address) is kept, so every
/// address belongs to at most one window.
fn physical_windows(trusted: &Trusted<'_>, ranges: &[PhysicalRange]) -> Vec<(u64, Raw)> {
    let mut physical: Vec<(u64, Raw)> = ranges
        .iter()
        .filter(|p| p.len > 0 && p.address.checked_add(p.len as u64).is_some())
        .map(|p| (p.address, trusted.raw(p.ptr, p.len)))
        .collect();
    physical.sort_by_key(|&(a, _)| a);
    let mut end = 0u64;
    physical.retain(|&(a, raw)| {
        let keep = a >= end;
        if keep {
            end = a + raw.len() as u64;
        }
        keep
    });
    physical
}

fn resolve(t: &Trusted<'_>, b: Option<&BoundResource>) -> Bound {
    match b {
        Some(BoundResource::Buffer { ptr, len }) => Bound::Buffer(t.raw(*ptr, *len)),
        Some(BoundResource::Tensor {
            ptr,
            len,
            format,
            dims,
            strides,
        }) if dims.len() == strides.len() => Bound::Tensor(TensorView {
            raw: t.raw(*ptr, *len),
            format: *format,
            dims: dims.clone(),
            strides: strides.clone(),
        }),
        _ => Bound::Null,
    }
}

/// Element byte size if SPIR-V element type `e` may access a view of format `f`.
pub(crate) fn compat(e: ScalarType, f: TensorElement) -> Option<usize> {
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

impl PhysicalRange {
    /// Whether `address..address + len` lies inside this range.
    pub fn contains(&self, address: u64, len: u64) -> bool {
        address >= self.address
            && address
                .checked_add(len)
                .is_some_and(|end| end <= self.address + self.len as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bindings with only the physical windows of `ranges`.
    fn with_ranges(ranges: &[PhysicalRange]) -> Bindings {
        // SAFETY: every range in these tests points into a live local buffer of at least `len`
        // bytes, used only while the bindings are.
        let trusted = unsafe { Trusted::new() };
        Bindings {
            slots: Vec::new(),
            physical: physical_windows(&trusted, ranges),
        }
    }

    #[test]
    fn descriptor_addresses_reach_exactly_the_bound_windows() {
        let mut a = [0u8; 16];
        let mut b = [0u8; 8];
        // SAFETY: both buffers outlive the bindings.
        let trusted = unsafe { Trusted::new() };
        let slots = vec![
            vec![Bound::Null],
            vec![
                Bound::Buffer(trusted.raw(a.as_mut_ptr(), a.len())),
                Bound::Null,
                Bound::Buffer(trusted.raw(b.as_mut_ptr(), b.len())),
            ],
        ];
        let mut physical = descriptor_windows(&slots);
        physical.sort_by_key(|&(address, _)| address);
        let bind = Bindings { slots, physical };
        let a0 = descriptor_address(1, 0).unwrap();
        let b0 = descriptor_address(1, 2).unwrap();
        assert_eq!(a0, 0x8001_0000_0000_0000);
        assert_eq!(b0, 0x8001_0002_0000_0000);
        let at = |addr, size| bind.physical(addr, size).map(|r| r.ptr() as usize);
        assert_eq!(at(a0 + 12, 4), Some(a.as_ptr() as usize + 12));
        assert_eq!(at(b0 + 4, 4), Some(b.as_ptr() as usize + 4));
        // Past a window's end, a null descriptor, slot 0: nothing.
        assert_eq!(at(a0 + 14, 4), None);
        assert_eq!(at(b0 + 8, 1), None);
        assert_eq!(at(descriptor_address(1, 1).unwrap(), 1), None);
        assert_eq!(at(descriptor_address(0, 0).unwrap(), 1), None);
        assert_eq!(descriptor_address(1 << 15, 0), None);
        assert_eq!(descriptor_address(0, 1 << 16), None);
    }

    #[test]
    fn physical_addresses_resolve_to_the_one_range_that_holds_the_whole_access() {
        let mut a = [0u8; 64];
        let mut b = [0u8; 32];
        // Device addresses need not be the host addresses; b right after a.
        let ranges = [
            PhysicalRange {
                address: 0x1040,
                ptr: b.as_mut_ptr(),
                len: b.len(),
            },
            PhysicalRange {
                address: 0x1000,
                ptr: a.as_mut_ptr(),
                len: a.len(),
            },
        ];
        let bind = with_ranges(&ranges);
        let at = |addr, size| bind.physical(addr, size).map(|r| r.ptr() as usize);
        assert_eq!(at(0x1000, 4), Some(a.as_ptr() as usize));
        assert_eq!(at(0x103c, 4), Some(a.as_ptr() as usize + 0x3c));
        assert_eq!(at(0x1040, 8), Some(b.as_ptr() as usize));
        assert_eq!(at(0x105c, 4), Some(b.as_ptr() as usize + 0x1c));
        // Straddling the end of a (even into b), past b, below a, wrapping: out of range.
        assert_eq!(at(0x103e, 4), None);
        assert_eq!(at(0x105e, 4), None);
        assert_eq!(at(0x0ffc, 4), None);
        assert_eq!(at(0, 1), None);
        assert_eq!(at(u64::MAX - 1, 4), None);
        // Loads and stores through a resolved window.
        let w = bind.physical(0x1044, 4).expect("in range");
        w.store(0, 4, 0xdead_beef);
        assert_eq!(w.load(0, 4), Some(0xdead_beef));
        assert_eq!(u32::from_le_bytes(b[4..8].try_into().unwrap()), 0xdead_beef);
    }

    #[test]
    fn empty_overflowing_and_overlapping_ranges_are_dropped() {
        let mut a = [0u8; 64];
        let mut b = [0u8; 64];
        let ranges = [
            PhysicalRange {
                address: 0x2000,
                ptr: a.as_mut_ptr(),
                len: 64,
            },
            // Overlaps the first: dropped.
            PhysicalRange {
                address: 0x2020,
                ptr: b.as_mut_ptr(),
                len: 64,
            },
            PhysicalRange {
                address: 0x3000,
                ptr: b.as_mut_ptr(),
                len: 0,
            },
            PhysicalRange {
                address: u64::MAX - 8,
                ptr: b.as_mut_ptr(),
                len: 64,
            },
        ];
        let bind = with_ranges(&ranges);
        assert_eq!(bind.physical.len(), 1);
        assert!(bind.physical(0x2030, 4).is_some());
        assert!(bind.physical(0x2050, 4).is_none());
        assert!(bind.physical(0x3000, 1).is_none());
        assert!(bind.physical(u64::MAX - 8, 4).is_none());
        assert!(with_ranges(&[]).physical(0x2000, 1).is_none());
    }
}
