//! # tessera-e2e
//!
//! Shared helpers for the end-to-end tests of the Tessera Vulkan ICD.
//!
//! Every test in `tests/` talks to the driver the way a real application
//! does: through the Khronos loader (`libvulkan.so.1`), loaded with
//! [`vulkanalia`]'s `LibloadingLoader`. The loader is pointed at the
//! workspace's ICD manifest (`icd-manifest/tessera_icd.json`) through
//! `VK_DRIVER_FILES` / `VK_ICD_FILENAMES`, and implicit layers (Mesa's
//! device-select layer and friends) are switched off with
//! `VK_LOADER_LAYERS_DISABLE=*`. The environment is set exactly once per
//! process, by [`setup_env`], before the first loader call.
//!
//! The manifest points at `target/release/libtessera_icd.so`, so the release
//! build of the driver must exist: `cargo build --release -p tessera-icd`.
//! Helpers panic with that hint when it does not.
//!
//! The main entry point is [`Ctx`]: an instance, the Tessera physical device
//! and a logical device with N queues of the single queue family, plus
//! helpers for buffers, host-visible memory, command buffers and one-shot
//! submissions. Objects created through a `Ctx` helper are destroyed when the
//! `Ctx` is dropped (after `vkDeviceWaitIdle`).

pub mod bench;
pub mod compute;
pub mod context;
pub mod cooperative;
pub mod data_graph;
pub mod descriptors;
pub mod tensors;

pub use context::*;
pub use tensors::*;

use std::ffi::{CStr, CString, OsString, c_void};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

pub use vulkanalia;
use vulkanalia::loader::{LIBRARY, LibloadingLoader};
use vulkanalia::prelude::v1_3::*;
use vulkanalia::vk::ArmTensorsExtensionDeviceCommands;

/// Every Tessera physical device name starts with this.
pub const DEVICE_NAME_PREFIX: &str = "Tessera";

/// File name of the driver's shared object.
pub const ICD_LIBRARY_FILE: &str = "libtessera_icd.so";

/// The loader magic value that the ICD stores in the first word of each
/// dispatchable handle it returns (`ICD_LOADER_MAGIC`).
pub const ICD_LOADER_MAGIC: usize = 0x01CD_C0DE;

/// Timeout used for every "this must complete" wait, in nanoseconds (10 s).
pub const WAIT_TIMEOUT_NS: u64 = 10_000_000_000;

/// Vulkan 1.3.0 as a packed version number.
pub const API_1_3: u32 = vk::make_version(1, 3, 0);

/// Device extensions the driver must advertise.
pub const REQUIRED_DEVICE_EXTENSIONS: &[&str] = &[
    "VK_KHR_synchronization2",
    "VK_KHR_maintenance4",
    "VK_KHR_timeline_semaphore",
    "VK_KHR_buffer_device_address",
    "VK_KHR_copy_commands2",
    "VK_KHR_map_memory2",
    "VK_EXT_host_query_reset",
    "VK_KHR_8bit_storage",
    "VK_KHR_16bit_storage",
    "VK_KHR_shader_float16_int8",
    "VK_KHR_vulkan_memory_model",
    "VK_EXT_pipeline_creation_cache_control",
    "VK_KHR_maintenance6",
    "VK_KHR_shader_bfloat16",
    "VK_EXT_shader_float8",
    "VK_NV_cooperative_vector",
    "VK_KHR_cooperative_matrix",
    "VK_EXT_scalar_block_layout",
    "VK_KHR_uniform_buffer_standard_layout",
    "VK_KHR_shader_subgroup_extended_types",
];

/// The workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// `TESSERA_E2E_DRIVER`: another driver's ICD manifest to run the loader tests on instead of
/// Tessera (to compare results with a GPU driver: the first physical device is used, and
/// `VK_ARM_tensors` only where it is listed).
pub const OTHER_DRIVER_VAR: &str = "TESSERA_E2E_DRIVER";

/// The manifest of `TESSERA_E2E_DRIVER`, when set.
pub fn other_driver() -> Option<PathBuf> {
    std::env::var_os(OTHER_DRIVER_VAR)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Absolute path of the ICD manifest JSON used by every test (`TESSERA_E2E_DRIVER`'s when set).
pub fn manifest_path() -> PathBuf {
    other_driver().unwrap_or_else(|| workspace_root().join("icd-manifest/tessera_icd.json"))
}

/// Absolute path of the driver library, as named by the manifest's
/// `library_path` (relative paths are relative to the manifest's folder).
pub fn icd_library_path() -> PathBuf {
    let manifest = manifest_path();
    let text = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|e| panic!("cannot read ICD manifest {}: {e}", manifest.display()));
    let library = json_string_field(&text, "library_path").unwrap_or_else(|| {
        panic!(
            "ICD manifest {} has no \"library_path\" string",
            manifest.display()
        )
    });
    let path = Path::new(&library);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        let dir = manifest.parent().expect("manifest has a parent folder");
        let joined = dir.join(path);
        joined.canonicalize().unwrap_or(joined)
    }
}

/// Extracts `"key": "value"` from a small JSON document (no escapes needed
/// for the manifest's paths).
fn json_string_field(text: &str, key: &str) -> Option<String> {
    let quoted = format!("\"{key}\"");
    let after_key = &text[text.find(&quoted)? + quoted.len()..];
    let after_colon = after_key.trim_start().strip_prefix(':')?.trim_start();
    let value = after_colon.strip_prefix('"')?;
    Some(value[..value.find('"')?].to_owned())
}

/// Returns the driver library path, panicking with a build hint if it is missing (under
/// `TESSERA_E2E_DRIVER`, that driver's manifest, unchecked).
pub fn require_icd() -> PathBuf {
    if let Some(manifest) = other_driver() {
        return manifest;
    }
    let lib = icd_library_path();
    assert!(
        lib.is_file(),
        "the Tessera ICD is not built: {} does not exist; \
         build it with `cargo build --release -p tessera-icd`",
        lib.display()
    );
    lib
}

/// Environment variables that make the Khronos loader see only Tessera and
/// no implicit layers. Also used for child processes such as `vulkaninfo`.
pub fn driver_env() -> Vec<(&'static str, OsString)> {
    let manifest = OsString::from(manifest_path());
    vec![
        ("VK_DRIVER_FILES", manifest.clone()),
        ("VK_ICD_FILENAMES", manifest),
        ("VK_LOADER_LAYERS_DISABLE", OsString::from("*")),
    ]
}

static ENV_ONCE: Once = Once::new();

/// Points the loader of this process at the Tessera manifest (once).
///
/// Must run before the first call into the loader; [`entry`] does it.
pub fn setup_env() {
    // Checked outside the `Once` so a missing build gives the clear message
    // in every test instead of a poisoned-`Once` panic.
    require_icd();
    ENV_ONCE.call_once(|| {
        for (key, value) in driver_env() {
            // SAFETY: this runs once, under the `Once`, before any loader
            // call of this process (every loader use goes through `entry()`,
            // which calls `setup_env` first and blocks on the `Once`), so no
            // other thread reads the environment through the loader while it
            // is modified. Rust-side readers are serialised by std's lock.
            unsafe { std::env::set_var(key, value) };
        }
    });
}

/// Loads the Khronos loader (`libvulkan.so.1`) and its global commands.
pub fn entry() -> Entry {
    setup_env();
    // SAFETY: `LIBRARY` is the system Vulkan loader; loading it runs only
    // its own initialisers.
    let loader = unsafe { LibloadingLoader::new(LIBRARY) }.unwrap_or_else(|e| {
        panic!("cannot load the Vulkan loader {LIBRARY}: {e} (install libvulkan1)")
    });
    // SAFETY: the loader exports `vkGetInstanceProcAddr` with the signature
    // vulkanalia expects.
    unsafe { Entry::new(loader) }
        .unwrap_or_else(|e| panic!("cannot load Vulkan entry points from {LIBRARY}: {e}"))
}

/// Creates a Vulkan 1.3 instance with the given instance extensions.
/// Serialises the loader calls that create, destroy and look up logical devices.
///
/// The Khronos loader walks a process-wide list of logical devices in `vkGetDeviceProcAddr` (and
/// so inside `vkCreateDevice`, which resolves the new device's table) while `vkCreateDevice` and
/// `vkDestroyDevice` on other threads add and free its nodes without a lock
/// (KhronosGroup/Vulkan-Loader#2018; still present in 1.4.341, and in Debian 12's 1.3.239).
/// Tests run on many threads in one process, so each of those calls holds this lock. This is a
/// loader bug, not a driver one: the direct-loading tests do not need it.
pub fn loader_device_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn create_instance(entry: &Entry, extensions: &[&CStr]) -> VkResult<Instance> {
    let app = vk::ApplicationInfo::builder()
        .application_name(b"tessera-e2e\0")
        .application_version(1)
        .engine_name(b"tessera-e2e\0")
        .engine_version(1)
        .api_version(API_1_3);
    let names: Vec<_> = extensions.iter().map(|e| e.as_ptr()).collect();
    let info = vk::InstanceCreateInfo::builder()
        .application_info(&app)
        .enabled_extension_names(&names);
    // SAFETY: `info` and everything it points to outlive the call.
    unsafe { entry.create_instance(&info, None) }
}

/// The name of a physical device as a Rust string.
pub fn device_name(props: &vk::PhysicalDeviceProperties) -> String {
    props.device_name.to_string_lossy().into_owned()
}

/// Finds the Tessera physical device (panics, listing what was found, if none).
pub fn tessera_physical_device(instance: &Instance) -> vk::PhysicalDevice {
    // SAFETY: `instance` is a live instance.
    let devices = unsafe { instance.enumerate_physical_devices() }
        .unwrap_or_else(|e| panic!("vkEnumeratePhysicalDevices failed: {e:?}"));
    let mut names = Vec::new();
    for &pd in &devices {
        // SAFETY: `pd` was just enumerated from `instance`.
        let props = unsafe { instance.get_physical_device_properties(pd) };
        let name = device_name(&props);
        if name.starts_with(DEVICE_NAME_PREFIX) || other_driver().is_some() {
            return pd;
        }
        names.push(name);
    }
    panic!(
        "no physical device named {DEVICE_NAME_PREFIX}* (found {names:?}); \
         is {} pointing at the Tessera ICD?",
        manifest_path().display()
    )
}

/// Names of all device extensions the physical device advertises.
pub fn device_extension_names(instance: &Instance, pd: vk::PhysicalDevice) -> Vec<String> {
    // SAFETY: `pd` belongs to `instance`.
    unsafe { instance.enumerate_device_extension_properties(pd, None) }
        .expect("vkEnumerateDeviceExtensionProperties")
        .iter()
        .map(|e| e.extension_name.to_string_lossy().into_owned())
        .collect()
}

/// Index of the first memory type that has all of `flags`.
pub fn find_memory_type(
    props: &vk::PhysicalDeviceMemoryProperties,
    type_bits: u32,
    flags: vk::MemoryPropertyFlags,
) -> Option<u32> {
    (0..props.memory_type_count).find(|&i| {
        type_bits & (1 << i) != 0
            && props.memory_types[i as usize]
                .property_flags
                .contains(flags)
    })
}

/// Sets the bytes of `value` from `end` (the end of its last field) to its
/// size to zero: a struct's tail padding, which Rust leaves undefined.
pub fn zero_tail_padding<T: Copy>(value: &mut T, end: usize) {
    let size = std::mem::size_of::<T>();
    assert!(end <= size, "end {end} is past the struct ({size} bytes)");
    // SAFETY: the range `end..size` lies inside `*value` and, as the caller
    // names the end of the last field, holds only padding bytes.
    unsafe { std::ptr::write_bytes((value as *mut T).cast::<u8>().add(end), 0, size - end) };
}

/// Reads the raw `*mut c_void` a mapping returned as `len` bytes.
///
/// # Safety
///
/// `ptr` must point at `len` readable bytes.
pub unsafe fn read_mapped(ptr: *const c_void, len: usize) -> Vec<u8> {
    // SAFETY: guaranteed by the caller.
    unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) }.to_vec()
}

/// Little helper: `u32` values as bytes (native endian).
pub fn u32_bytes(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_ne_bytes()).collect()
}

/// Looks `name` up with the loader's `vkGetInstanceProcAddr`.
pub fn instance_proc_addr(instance: vk::Instance, name: &CStr) -> vk::PFN_vkVoidFunction {
    setup_env();
    type Gipa =
        unsafe extern "system" fn(vk::Instance, *const std::ffi::c_char) -> vk::PFN_vkVoidFunction;
    // SAFETY: loading the system Vulkan loader again returns the library
    // already loaded by `entry()`; it runs only its own initialisers.
    let lib = unsafe { libloading::Library::new(LIBRARY) }
        .unwrap_or_else(|e| panic!("cannot load {LIBRARY}: {e}"));
    // SAFETY: the loader exports `vkGetInstanceProcAddr` with this signature.
    let gipa: libloading::Symbol<'_, Gipa> = unsafe { lib.get(b"vkGetInstanceProcAddr\0") }
        .unwrap_or_else(|e| panic!("{LIBRARY} has no vkGetInstanceProcAddr: {e}"));
    // SAFETY: `instance` is a live instance (or null) and `name` a C string.
    unsafe { gipa(instance, name.as_ptr()) }
}
