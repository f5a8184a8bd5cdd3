//! Raw pointers from the application turned into checked Rust values, and Rust values written
//! back: the helpers the generated readers, writers and entry points (`crate::generated`) and the
//! hand-written entry points share.
//!
//! Nothing here keeps a borrow past the entry point that made it: callers copy what they need
//! into owned values before returning. Null pointers where the spec requires a valid one, a
//! wrong `sType`, array pointers that are null with a non-zero count, enum values the registry
//! does not define and flag bits it does not define become `Error::Validation` naming the
//! implicit VUID.

use std::ffi::{CStr, c_char, c_void};

use tessera_runtime::{Error, Result};
use vulkan_headers::vulkan::vulkan_core::*;

/// Longest `pNext` chain we walk (a guard against cycles in a corrupt chain).
const MAX_CHAIN: usize = 256;

/// Mutably borrows `*p`, failing on null.
///
/// # Safety
/// `p` must be null or valid for reads and writes of `T` for `'a`, with no other live reference.
pub unsafe fn deref_mut<'a, T>(p: *mut T, what: &'static str) -> Result<&'a mut T> {
    // SAFETY: caller contract; null is rejected by `as_mut`.
    unsafe { p.as_mut() }
        .ok_or_else(|| Error::invalid("VUID-*-parameter", format!("{what} is NULL")))
}

/// Writes `value` to the out-parameter `p`.
///
/// # Safety
/// `p` must be null or valid for writes of `T`.
pub unsafe fn write<T>(p: *mut T, what: &'static str, value: T) -> Result<()> {
    if p.is_null() {
        return Err(Error::invalid(
            "VUID-*-parameter",
            format!("{what} is NULL"),
        ));
    }
    // SAFETY: non-null (checked) and valid for writes (caller contract); `write` does not read or
    // drop the old (possibly uninitialised) value.
    unsafe { p.write(value) };
    Ok(())
}

/// Writes a handle (the registry's value) to the out-parameter `p`.
///
/// # Safety
/// As [`write`].
pub unsafe fn write_handle<H: crate::handle::RawHandle>(
    p: *mut H,
    what: &'static str,
    handle: u64,
) -> Result<()> {
    // SAFETY: forwarded caller contract.
    unsafe { write(p, what, H::from_raw(handle)) }
}

/// A `VkExtensionProperties` for `name` at revision `spec_version`.
pub fn extension_properties(name: &str, spec_version: u32) -> VkExtensionProperties {
    let mut p: VkExtensionProperties = zeroed();
    copy_cstr_str(&mut p.extensionName, name);
    p.specVersion = spec_version;
    p
}

/// Writes a NUL-terminated copy of `src` into a fixed `char` array (truncating).
pub fn copy_cstr_str(dst: &mut [c_char], src: &str) {
    let bytes = src.as_bytes();
    let n = bytes.len().min(dst.len().saturating_sub(1));
    for (d, s) in dst.iter_mut().zip(&bytes[..n]) {
        *d = *s as c_char;
    }
    for d in dst.iter_mut().skip(n) {
        *d = 0;
    }
}

/// Borrows `len` elements at `p`; `len == 0` gives an empty slice whatever `p` is.
///
/// # Safety
/// When `len > 0`, `p` must be null or valid for reads of `len` elements for `'a`.
pub unsafe fn slice<'a, T>(p: *const T, len: u32, what: &'static str) -> Result<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::invalid(
            "VUID-*-arraylength",
            format!("{what} is NULL with a count of {len}"),
        ));
    }
    // SAFETY: non-null, and valid for `len` reads by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, len as usize) })
}

/// Borrows `count` elements at `p` for a parameter or member whose VUID is `vuid`: `count == 0`
/// (or a null `p` when `optional`) gives an empty slice.
///
/// # Safety
/// When `count > 0` and `p` is non-null, `p` must be valid for reads of `count` elements for `'a`.
pub unsafe fn array<'a, T>(
    p: *const T,
    count: usize,
    optional: bool,
    vuid: &'static str,
) -> Result<&'a [T]> {
    if count == 0 || (optional && p.is_null()) {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::invalid(
            vuid,
            format!("the array is NULL with a count of {count}"),
        ));
    }
    // SAFETY: non-null, and valid for `count` reads by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, count) })
}

/// The `count` elements at `p`, or `None` when `p` is null (an optional array).
///
/// # Safety
/// When `p` is non-null it must be valid for reads of `count` elements for `'a`.
pub unsafe fn optional_array<'a, T>(p: *const T, count: usize) -> Option<&'a [T]> {
    if p.is_null() {
        return None;
    }
    if count == 0 {
        return Some(&[]);
    }
    // SAFETY: non-null, and valid for `count` reads by the caller's contract.
    Some(unsafe { std::slice::from_raw_parts(p, count) })
}

/// [`array`] of bytes.
///
/// # Safety
/// As [`array`].
pub unsafe fn bytes<'a>(
    p: *const u8,
    count: usize,
    optional: bool,
    vuid: &'static str,
) -> Result<&'a [u8]> {
    // SAFETY: forwarded caller contract.
    unsafe { array(p, count, optional, vuid) }
}

/// Reads the struct at `p` with `read`, failing on null.
///
/// # Safety
/// `p` must be null or valid per the spec (for `read`'s contract too).
pub unsafe fn required<T, M>(
    p: *const T,
    vuid: &'static str,
    read: unsafe fn(&T) -> Result<M>,
) -> Result<M> {
    // SAFETY: caller contract; null is rejected by `as_ref`.
    let s = unsafe { p.as_ref() }.ok_or_else(|| Error::invalid(vuid, "the pointer is NULL"))?;
    // SAFETY: caller contract.
    unsafe { read(s) }
}

/// Reads the struct at `p` with `read` when `p` is not null.
///
/// # Safety
/// As [`required`].
pub unsafe fn optional<T, M>(p: *const T, read: unsafe fn(&T) -> Result<M>) -> Result<Option<M>> {
    // SAFETY: caller contract.
    match unsafe { p.as_ref() } {
        // SAFETY: caller contract.
        Some(s) => unsafe { read(s) }.map(Some),
        None => Ok(None),
    }
}

/// A NUL-terminated string parameter, failing on null.
///
/// # Safety
/// `p` must be null or point to a NUL-terminated string valid for `'a`.
pub unsafe fn cstr_param<'a>(p: *const c_char, vuid: &'static str) -> Result<&'a CStr> {
    if p.is_null() {
        return Err(Error::invalid(vuid, "the string is NULL"));
    }
    // SAFETY: non-null and NUL-terminated by the caller's contract.
    Ok(unsafe { CStr::from_ptr(p) })
}

/// A NUL-terminated string parameter that may be null.
///
/// # Safety
/// As [`cstr_param`].
pub unsafe fn optional_cstr<'a>(p: *const c_char) -> Option<&'a CStr> {
    // SAFETY: caller contract.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) })
}

/// A string member copied into a `String` (the spec's strings are UTF-8).
///
/// # Safety
/// As [`cstr_param`].
pub unsafe fn string(p: *const c_char, vuid: &'static str) -> Result<String> {
    // SAFETY: forwarded caller contract.
    let s = unsafe { cstr_param(p, vuid)? };
    s.to_str()
        .map(str::to_string)
        .map_err(|_| Error::invalid(vuid, format!("{s:?} is not UTF-8")))
}

/// A string member that may be null.
///
/// # Safety
/// As [`cstr_param`].
pub unsafe fn optional_string(p: *const c_char, vuid: &'static str) -> Result<Option<String>> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded caller contract.
    unsafe { string(p, vuid) }.map(Some)
}

/// `count` strings (`const char* const*`).
///
/// # Safety
/// `p` must hold `count` valid NUL-terminated strings (or be null with `count == 0`).
pub unsafe fn strings(
    p: *const *const c_char,
    count: u32,
    vuid: &'static str,
) -> Result<Vec<String>> {
    // SAFETY: caller contract.
    let ptrs = unsafe { array(p, count as usize, false, vuid)? };
    ptrs.iter()
        // SAFETY: each entry is a valid string (caller contract).
        .map(|s| unsafe { string(*s, vuid) })
        .collect()
}

/// A fixed `char` array up to its first NUL.
pub fn fixed_string(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Checks that `value` is one of the values the registry defines for the enum `ty`.
///
/// # Errors
/// `Validation` naming `vuid`.
pub fn check_enum<T: Copy + Into<i128> + std::fmt::Display>(
    value: T,
    valid: &[i128],
    vuid: &'static str,
    ty: &str,
) -> Result<T> {
    if valid.binary_search(&value.into()).is_err() {
        return Err(Error::invalid(
            vuid,
            format!("{value} is not a valid {ty} value"),
        ));
    }
    Ok(value)
}

/// Checks a flags value: only bits the registry defines for `ty` (`valid`), and not zero when
/// `required`.
///
/// # Errors
/// `Validation` naming `vuid`.
pub fn check_flags<F: Copy + Into<u64>>(
    value: F,
    valid: u64,
    required: bool,
    vuid: &'static str,
    ty: &str,
) -> Result<F> {
    let bits: u64 = value.into();
    if bits & !valid != 0 {
        return Err(Error::invalid(
            vuid,
            format!(
                "{bits:#x} has bits {:#x} that are not {ty} bits",
                bits & !valid
            ),
        ));
    }
    if required && bits == 0 {
        return Err(Error::invalid(vuid, format!("{ty} must not be 0")));
    }
    Ok(value)
}

/// Checks a struct's `sType`.
///
/// # Errors
/// `Validation` naming `vuid`.
pub fn check_stype(
    actual: VkStructureType,
    expected: VkStructureType,
    vuid: &'static str,
) -> Result<()> {
    if actual != expected {
        return Err(Error::invalid(
            vuid,
            format!("sType is {actual}, expected {expected}"),
        ));
    }
    Ok(())
}

/// The structures of an input `pNext` chain, as `(sType, pointer)`.
///
/// # Safety
/// `p_next` must be null or the head of a valid chain of Vulkan structures.
pub unsafe fn chain(p_next: *const c_void) -> Vec<(VkStructureType, *const VkBaseInStructure)> {
    let mut out = Vec::new();
    let mut p = p_next.cast::<VkBaseInStructure>();
    while !p.is_null() && out.len() < MAX_CHAIN {
        // SAFETY: every link of a valid chain starts with sType and pNext.
        let base = unsafe { &*p };
        out.push((base.sType, p));
        p = base.pNext;
    }
    out
}

/// `VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO` and `VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO`.
const LOADER_STRUCTURES: [VkStructureType; 2] = [47, 48];

/// Warns when two structures of one type are chained (`VUID-…-sType-unique`). Applications do
/// this (Arm's scenario-runner chains one feature struct twice) and drivers tolerate it, so it is
/// not an error: the first structure of each type is used (feature structs are all read).
pub fn check_unique(
    links: &[(VkStructureType, *const VkBaseInStructure)],
    vuid: &'static str,
) -> Result<()> {
    for (i, (s, _)) in links.iter().enumerate() {
        // The loader's and layers' own structures (`VkLayerInstanceCreateInfo`,
        // `VkLayerDeviceCreateInfo`, vk_layer.h) come several at a time by design.
        if LOADER_STRUCTURES.contains(s) {
            continue;
        }
        if links[..i].iter().any(|(t, _)| t == s) {
            tracing::warn!("{vuid}: structure {s} is chained twice; the first one is used");
        }
    }
    Ok(())
}

/// The structure of type `stype` among `links`.
pub fn find_link(
    links: &[(VkStructureType, *const VkBaseInStructure)],
    stype: VkStructureType,
) -> Option<*const VkBaseInStructure> {
    links.iter().find(|(s, _)| *s == stype).map(|(_, p)| *p)
}

/// The first structure of type `stype` in an input chain, as `T`.
///
/// # Safety
/// As [`chain`]; `T` must be the structure that `stype` names.
pub unsafe fn find<'a, T>(p_next: *const c_void, stype: VkStructureType) -> Option<&'a T> {
    // SAFETY: caller contract.
    let links = unsafe { chain(p_next) };
    links
        .into_iter()
        .find(|(s, _)| *s == stype)
        // SAFETY: `stype` identifies the structure as a `T` (caller contract).
        .map(|(_, p)| unsafe { &*p.cast::<T>() })
}

/// The structures of an output `pNext` chain, as `(sType, pointer)`.
///
/// # Safety
/// `p_next` must be null or the head of a valid, writable chain of Vulkan structures.
pub unsafe fn chain_mut(p_next: *mut c_void) -> Vec<(VkStructureType, *mut VkBaseOutStructure)> {
    let mut out = Vec::new();
    let mut p = p_next.cast::<VkBaseOutStructure>();
    while !p.is_null() && out.len() < MAX_CHAIN {
        // SAFETY: every link of a valid chain starts with sType and pNext.
        let (stype, next) = unsafe { ((*p).sType, (*p).pNext) };
        out.push((stype, p));
        p = next;
    }
    out
}

/// The two-call idiom: with `out` null, writes the count; otherwise writes up to `*count`
/// elements produced by `write_item` and returns `VK_INCOMPLETE` when that was not all.
///
/// # Safety
/// `count` must be null or a valid `u32`; when `out` is non-null it must be valid for `*count`
/// elements.
pub unsafe fn enumerate<T>(
    count: *mut u32,
    out: *mut T,
    len: usize,
    mut write_item: impl FnMut(usize, &mut T),
) -> Result<VkResult> {
    // SAFETY: caller contract.
    let count = unsafe { deref_mut(count, "pCount")? };
    if out.is_null() {
        *count = len as u32;
        return Ok(VK_SUCCESS);
    }
    let n = (*count as usize).min(len);
    for i in 0..n {
        // SAFETY: `i < *count`, and `out` holds `*count` elements (caller contract).
        write_item(i, unsafe { &mut *out.add(i) });
    }
    *count = n as u32;
    Ok(if n < len { VK_INCOMPLETE } else { VK_SUCCESS })
}

/// [`enumerate`] for arrays of plain values (no `sType`/`pNext` to preserve).
///
/// # Safety
/// As [`enumerate`].
pub unsafe fn enumerate_copy<T: Copy>(
    count: *mut u32,
    out: *mut T,
    items: &[T],
) -> Result<VkResult> {
    // SAFETY: forwarded caller contract.
    unsafe { enumerate(count, out, items.len(), |i, slot| *slot = items[i]) }
}

/// Copies `full` over `dst` byte for byte, keeping `dst`'s `sType` and `pNext`: every byte of
/// the caller's struct is then written (`full` is made with [`zeroed`], so its padding is zero).
pub fn write_whole<T>(dst: &mut T, full: &T) {
    const HEADER: usize = std::mem::size_of::<VkBaseOutStructure>();
    let size = std::mem::size_of::<T>();
    if size <= HEADER {
        return;
    }
    // SAFETY: both point to live `T`s of `size` bytes; the header (sType, pNext) is skipped; the
    // bytes copied come from a zero-initialised value, so none is uninitialised.
    unsafe {
        std::ptr::copy_nonoverlapping(
            (full as *const T).cast::<u8>().add(HEADER),
            (dst as *mut T).cast::<u8>().add(HEADER),
            size - HEADER,
        );
    }
}

/// Zeroed value of a plain-old-data Vulkan struct.
pub fn zeroed<T: Copy>() -> T {
    // SAFETY: only used for `#[repr(C)]` Vulkan structs made of integers, floats, arrays of
    // them and raw pointers, for all of which the all-zero bit pattern is valid.
    unsafe { std::mem::zeroed() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer fills the members and leaves the caller's padding alone (the CTS fills a
    /// `VkFormatProperties2` with 0xcd and compares all 32 bytes with an expectation that only
    /// zeroes the members: `api.info.get_physical_device_properties2.format_properties.basic`).
    #[test]
    fn writers_keep_padding() {
        use tessera_runtime::vk::structs as vk;
        let mut out: VkFormatProperties2 = zeroed();
        // SAFETY: plain bytes over a local POD struct.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(
                (&mut out as *mut VkFormatProperties2).cast::<u8>(),
                std::mem::size_of::<VkFormatProperties2>(),
            )
        };
        bytes.fill(0xcd);
        out.sType = VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2;
        out.pNext = std::ptr::null_mut();
        let src = vk::FormatProperties2::default();
        // SAFETY: `out` is a writable VkFormatProperties2 with an empty chain.
        unsafe { crate::generated::write::write_format_properties2(&mut out, &src) };
        // SAFETY: as above.
        let bytes = unsafe {
            std::slice::from_raw_parts(
                (&out as *const VkFormatProperties2).cast::<u8>(),
                std::mem::size_of::<VkFormatProperties2>(),
            )
        };
        assert_eq!(&bytes[4..8], &[0xcd; 4], "padding after sType");
        assert_eq!(&bytes[28..32], &[0xcd; 4], "trailing padding");
        assert_eq!(out.formatProperties.bufferFeatures, 0);
    }

    #[test]
    fn two_call_idiom() {
        let items = [1u32, 2, 3];
        let mut count = 0;
        // SAFETY: valid pointers to locals.
        unsafe {
            assert_eq!(
                enumerate_copy(&mut count, std::ptr::null_mut(), &items).unwrap(),
                VK_SUCCESS
            );
            assert_eq!(count, 3);
            let mut out = [0u32; 3];
            count = 2;
            assert_eq!(
                enumerate_copy(&mut count, out.as_mut_ptr(), &items).unwrap(),
                VK_INCOMPLETE
            );
            assert_eq!((count, out), (2, [1, 2, 0]));
            count = 5;
            assert_eq!(
                enumerate_copy(&mut count, out.as_mut_ptr(), &items).unwrap(),
                VK_SUCCESS
            );
            assert_eq!((count, out), (3, [1, 2, 3]));
            assert!(enumerate_copy::<u32>(std::ptr::null_mut(), out.as_mut_ptr(), &items).is_err());
        }
    }

    #[test]
    fn copies_strings() {
        let mut buf = [1 as c_char; 4];
        copy_cstr_str(&mut buf, "abcdef");
        assert_eq!(buf, [b'a' as c_char, b'b' as c_char, b'c' as c_char, 0]);
    }
}
