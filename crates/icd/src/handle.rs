//! Handles: every object the application can name lives in one registry, keyed by its handle.
//!
//! - A non-dispatchable handle (`VkBuffer`, `VkFence`, …) is the address of the object's `Arc`
//!   allocation; the registry holds a strong reference, so the address stays unique while the
//!   handle is live.
//! - A dispatchable handle (`VkInstance`, `VkPhysicalDevice`, `VkDevice`, `VkQueue`,
//!   `VkCommandBuffer`) is the address of a boxed [`LoaderSlot`], whose first (only) word the
//!   loader overwrites with its dispatch table. It starts as `ICD_LOADER_MAGIC`.
//!
//! Looking a handle up checks that it is live and of the expected type, so a destroyed or bogus
//! handle is a validation error rather than a wild pointer. No handle is ever dereferenced.

use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, LazyLock};

use parking_lot::RwLock;
use tessera_runtime::{Error, Result};
use vulkan_headers::vulkan::vulkan_core::*;

/// The value the loader expects in a dispatchable object's first word.
pub const ICD_LOADER_MAGIC: usize = 0x01CD_C0DE;

/// The loader's slot at the start of a dispatchable object. The loader writes it from C; Rust
/// never reads it back, so an atomic (same layout as `usize`) keeps that sound.
#[repr(C)]
#[derive(Debug)]
pub struct LoaderSlot {
    loader_data: AtomicUsize,
}

const _: () = assert!(std::mem::offset_of!(LoaderSlot, loader_data) == 0);
const _: () = assert!(std::mem::size_of::<LoaderSlot>() == std::mem::size_of::<usize>());

/// A type the application can hold a handle to.
pub trait Object: Any + Send + Sync {
    /// Its `VkObjectType`.
    const TYPE: VkObjectType;
    /// Its Vulkan type name, for error messages.
    const NAME: &'static str;
}

struct Entry {
    ty: VkObjectType,
    obj: Arc<dyn Any + Send + Sync>,
    _slot: Option<Box<LoaderSlot>>,
}

#[derive(Default)]
struct Registry {
    /// Handle → object.
    objects: HashMap<u64, Entry>,
    /// Object address → handle, for dispatchable objects (whose handle is not the object's
    /// address): the runtime hands out objects, the application wants their handles.
    handles: HashMap<usize, u64>,
}

static REGISTRY: LazyLock<RwLock<Registry>> = LazyLock::new(Default::default);

fn address<T: ?Sized>(obj: &Arc<T>) -> usize {
    Arc::as_ptr(obj).cast::<u8>() as usize
}

/// Registers a non-dispatchable object and returns its handle.
pub fn insert<T: Object>(obj: Arc<T>) -> u64 {
    let handle = address(&obj) as u64;
    REGISTRY.write().objects.insert(
        handle,
        Entry {
            ty: T::TYPE,
            obj,
            _slot: None,
        },
    );
    handle
}

/// Registers a dispatchable object and returns its handle (the loader slot's address).
pub fn insert_dispatchable<T: Object>(obj: Arc<T>) -> u64 {
    let slot = Box::new(LoaderSlot {
        loader_data: AtomicUsize::new(ICD_LOADER_MAGIC),
    });
    let handle = &*slot as *const LoaderSlot as u64;
    let mut registry = REGISTRY.write();
    registry.handles.insert(address(&obj), handle);
    registry.objects.insert(
        handle,
        Entry {
            ty: T::TYPE,
            obj,
            _slot: Some(slot),
        },
    );
    handle
}

/// The handle of a registered object (dispatchable or not), if it is live.
pub fn handle_of<T: Object>(obj: &Arc<T>) -> Option<u64> {
    let registry = REGISTRY.read();
    let candidate = registry
        .handles
        .get(&address(obj))
        .copied()
        .unwrap_or(address(obj) as u64);
    registry
        .objects
        .get(&candidate)
        .filter(|e| e.ty == T::TYPE)
        .map(|_| candidate)
}

fn invalid<T: Object>(handle: u64, vuid: &'static str) -> Error {
    Error::invalid(
        vuid,
        format!("{handle:#x} is not a valid {} handle", T::NAME),
    )
}

/// The live object behind `handle`, for a parameter or member whose VUID is `vuid`.
///
/// # Errors
/// `Validation` when the handle is null, destroyed, or of another type.
pub fn lookup<T: Object>(handle: u64, vuid: &'static str) -> Result<Arc<T>> {
    let registry = REGISTRY.read();
    let entry = registry
        .objects
        .get(&handle)
        .filter(|e| e.ty == T::TYPE)
        .ok_or_else(|| invalid::<T>(handle, vuid))?;
    entry
        .obj
        .clone()
        .downcast::<T>()
        .map_err(|_| invalid::<T>(handle, vuid))
}

/// The live object behind `handle` if there is one of type `T` (for handles the spec lets hold
/// anything when they are not used).
pub fn find<T: Object>(handle: u64) -> Option<Arc<T>> {
    lookup(handle, "VUID-*-parameter (handle)").ok()
}

/// [`lookup`] for a handle that may be `VK_NULL_HANDLE`.
///
/// # Errors
/// As [`lookup`], for a non-null handle.
pub fn get_optional<T: Object>(handle: u64, vuid: &'static str) -> Result<Option<Arc<T>>> {
    if handle == 0 {
        return Ok(None);
    }
    lookup(handle, vuid).map(Some)
}

/// Unregisters `handle` and returns its object; `Ok(None)` for `VK_NULL_HANDLE`.
///
/// # Errors
/// `Validation` when the handle is not a live `T`.
pub fn remove<T: Object>(handle: u64, vuid: &'static str) -> Result<Option<Arc<T>>> {
    if handle == 0 {
        return Ok(None);
    }
    let mut registry = REGISTRY.write();
    match registry.objects.get(&handle) {
        Some(e) if e.ty == T::TYPE => {}
        _ => return Err(invalid::<T>(handle, vuid)),
    }
    let entry = registry
        .objects
        .remove(&handle)
        .ok_or_else(|| invalid::<T>(handle, vuid))?;
    let address = Arc::as_ptr(&entry.obj).cast::<u8>() as usize;
    if registry.handles.get(&address) == Some(&handle) {
        registry.handles.remove(&address);
    }
    drop(registry);
    entry
        .obj
        .downcast::<T>()
        .map(Some)
        .map_err(|_| invalid::<T>(handle, vuid))
}

/// Unregisters the handle of `obj` (an object the runtime destroyed with its parent, such as the
/// command buffers of a pool); nothing happens when it has none.
pub fn forget<T: Object>(obj: &Arc<T>) {
    if let Some(h) = handle_of(obj) {
        let _ = remove::<T>(h, "VUID-*-parameter (handle)");
    }
}

/// Whether `handle` is a live object of any type (private data accepts every type).
pub fn is_live(handle: u64, ty: VkObjectType) -> bool {
    REGISTRY
        .read()
        .objects
        .get(&handle)
        .is_some_and(|e| e.ty == ty)
}

/// A raw handle value as the integer the registry uses.
pub trait RawHandle: Copy {
    /// The handle as `u64`.
    fn raw(self) -> u64;
    /// The handle from a `u64`.
    fn from_raw(raw: u64) -> Self;
}

impl<T> RawHandle for *mut T {
    fn raw(self) -> u64 {
        self as usize as u64
    }
    fn from_raw(raw: u64) -> Self {
        raw as usize as *mut T
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct A;
    impl Object for A {
        const TYPE: VkObjectType = VK_OBJECT_TYPE_BUFFER;
        const NAME: &'static str = "VkBuffer";
    }
    #[derive(Debug)]
    struct B;
    impl Object for B {
        const TYPE: VkObjectType = VK_OBJECT_TYPE_DEVICE;
        const NAME: &'static str = "VkDevice";
    }

    #[test]
    fn lookups_check_liveness_and_type() {
        let h = insert(Arc::new(A));
        assert!(lookup::<A>(h, "VUID-x").is_ok());
        assert!(lookup::<B>(h, "VUID-x").is_err());
        assert!(remove::<B>(h, "VUID-x").is_err());
        assert!(remove::<A>(h, "VUID-x").unwrap().is_some());
        assert!(lookup::<A>(h, "VUID-x").is_err());
        assert!(remove::<A>(0, "VUID-x").unwrap().is_none());
    }

    #[test]
    fn dispatchable_starts_with_magic() {
        let obj = Arc::new(B);
        let h = insert_dispatchable(obj.clone());
        // SAFETY: the handle is the address of a live boxed `LoaderSlot`.
        let word = unsafe { *(h as usize as *const usize) };
        assert_eq!(word, ICD_LOADER_MAGIC);
        assert!(lookup::<B>(h, "VUID-x").is_ok());
        assert_eq!(handle_of(&obj), Some(h));
        remove::<B>(h, "VUID-x").unwrap();
        assert_eq!(handle_of(&obj), None);
    }
}
