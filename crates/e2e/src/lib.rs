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
pub mod cooperative;
pub mod data_graph;
pub mod descriptors;

use std::ffi::{CStr, CString, OsString, c_void};
use std::fmt;
use std::marker::PhantomData;
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

/// Objects owned by a [`Ctx`], destroyed when it drops.
#[derive(Debug, Clone, Copy)]
enum Owned {
    Buffer(vk::Buffer),
    Memory(vk::DeviceMemory),
    CommandPool(vk::CommandPool),
    Fence(vk::Fence),
    Semaphore(vk::Semaphore),
    Event(vk::Event),
    QueryPool(vk::QueryPool),
    PrivateDataSlot(vk::PrivateDataSlot),
    Tensor(vk::TensorARM),
    TensorView(vk::TensorViewARM),
}

/// Features that [`Ctx`] enables when the device reports them.
#[derive(Debug, Default, Clone, Copy)]
pub struct EnabledFeatures {
    /// `timelineSemaphore`.
    pub timeline_semaphore: bool,
    /// `bufferDeviceAddress`.
    pub buffer_device_address: bool,
    /// `hostQueryReset`.
    pub host_query_reset: bool,
    /// `synchronization2`.
    pub synchronization2: bool,
    /// `maintenance4`.
    pub maintenance4: bool,
    /// `privateData`.
    pub private_data: bool,
}

/// An instance + the Tessera physical device + a logical device.
pub struct Ctx {
    /// The loader entry (kept alive for the instance).
    pub entry: Entry,
    /// The Vulkan 1.3 instance.
    pub instance: Instance,
    /// The Tessera physical device.
    pub physical_device: vk::PhysicalDevice,
    /// The logical device.
    pub device: Device,
    /// Index of the (compute + transfer) queue family used.
    pub queue_family: u32,
    /// The device's queues, `queues.len()` as requested.
    pub queues: Vec<vk::Queue>,
    /// A HOST_VISIBLE | HOST_COHERENT memory type index.
    pub memory_type: u32,
    /// Physical device properties.
    pub properties: vk::PhysicalDeviceProperties,
    /// Physical device memory properties.
    pub memory_properties: vk::PhysicalDeviceMemoryProperties,
    /// Device extensions enabled on `device`.
    pub enabled_extensions: Vec<String>,
    /// Features enabled on `device`.
    pub features: EnabledFeatures,
    owned: Mutex<Vec<Owned>>,
}

impl fmt::Debug for Ctx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ctx")
            .field("device", &device_name(&self.properties))
            .field("queue_family", &self.queue_family)
            .field("queues", &self.queues.len())
            .field("memory_type", &self.memory_type)
            .finish_non_exhaustive()
    }
}

/// A buffer bound to its own host-visible memory, persistently mapped.
pub struct HostBuffer<'a> {
    /// The buffer.
    pub buffer: vk::Buffer,
    /// Its dedicated memory.
    pub memory: vk::DeviceMemory,
    /// Buffer size in bytes.
    pub size: u64,
    ptr: *mut u8,
    _ctx: PhantomData<&'a Ctx>,
}

impl fmt::Debug for HostBuffer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostBuffer")
            .field("buffer", &self.buffer)
            .field("size", &self.size)
            .finish()
    }
}

impl HostBuffer<'_> {
    /// The mapped bytes (copied out). Only call while no device work writes it.
    pub fn read(&self) -> Vec<u8> {
        // SAFETY: `ptr` maps `size` bytes of HOST_COHERENT memory that lives
        // as long as the owning `Ctx` (which outlives `self`).
        unsafe { std::slice::from_raw_parts(self.ptr, self.size as usize) }.to_vec()
    }

    /// The mapped contents as native-endian `u32`s.
    pub fn read_u32s(&self) -> Vec<u32> {
        self.read()
            .chunks_exact(4)
            .map(|c| u32::from_ne_bytes(c.try_into().expect("4 bytes")))
            .collect()
    }

    /// Writes `data` at `offset` through the mapping.
    pub fn write(&self, offset: usize, data: &[u8]) {
        assert!(
            offset + data.len() <= self.size as usize,
            "write out of range"
        );
        // SAFETY: the range was checked against the mapped size above.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(offset), data.len()) };
    }

    /// Writes `u32`s starting at byte 0.
    pub fn write_u32s(&self, values: &[u32]) {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        self.write(0, &bytes);
    }

    /// Fills the whole buffer with `byte`.
    pub fn fill(&self, byte: u8) {
        // SAFETY: writes exactly the mapped range.
        unsafe { std::ptr::write_bytes(self.ptr, byte, self.size as usize) };
    }
}

impl Ctx {
    /// A context with one queue.
    pub fn new() -> Self {
        Self::with_queues(1)
    }

    /// A context with `queue_count` queues of the Tessera queue family.
    pub fn with_queues(queue_count: u32) -> Self {
        Self::build(queue_count, None).unwrap_or_else(|e| panic!("vkCreateDevice failed: {e:?}"))
    }

    /// A context with one queue and `VK_ARM_tensors` enabled, with the
    /// `tensors` and `tensorNonPacked` features.
    pub fn with_tensors() -> Self {
        Self::with_tensor_features(vk::PhysicalDeviceTensorFeaturesARM {
            tensors: vk::TRUE,
            tensor_non_packed: vk::TRUE,
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("vkCreateDevice with VK_ARM_tensors failed: {e:?}"))
    }

    /// A context with one queue, `VK_ARM_tensors` enabled and exactly
    /// `features` (its `s_type`/`next` are overwritten) chained to
    /// `VkDeviceCreateInfo`. Returns the `vkCreateDevice` error, if any.
    pub fn with_tensor_features(features: vk::PhysicalDeviceTensorFeaturesARM) -> VkResult<Self> {
        Self::build(1, Some(features))
    }

    /// A context for running arbitrary compute shaders (the `spirv-tests` cases): one queue,
    /// `VK_ARM_tensors` with every tensor shader-access feature, and the shader arithmetic and
    /// 8/16-bit storage features (`shaderInt64`, `shaderFloat64`, `shaderInt16`, `shaderInt8`,
    /// `shaderFloat16`, `storageBuffer8/16BitAccess`, …) the device reports.
    pub fn for_shaders() -> Self {
        let tensors = vk::PhysicalDeviceTensorFeaturesARM {
            tensors: vk::TRUE,
            tensor_non_packed: vk::TRUE,
            shader_tensor_access: vk::TRUE,
            shader_storage_tensor_array_dynamic_indexing: vk::TRUE,
            shader_storage_tensor_array_non_uniform_indexing: vk::TRUE,
            ..Default::default()
        };
        Self::build_with(1, Some(tensors), true, false)
            .unwrap_or_else(|e| panic!("vkCreateDevice with shader features failed: {e:?}"))
    }

    /// [`Ctx::for_shaders`] plus `VK_ARM_data_graph` (and its dependencies
    /// `VK_KHR_maintenance5` and `VK_KHR_deferred_host_operations`) with the features
    /// `dataGraph`, `dataGraphShaderModule`, `dataGraphSpecializationConstants` and
    /// `dataGraphUpdateAfterBind`, and `maintenance5`.
    pub fn with_data_graph() -> Self {
        let tensors = vk::PhysicalDeviceTensorFeaturesARM {
            tensors: vk::TRUE,
            tensor_non_packed: vk::TRUE,
            shader_tensor_access: vk::TRUE,
            ..Default::default()
        };
        Self::build_with(1, Some(tensors), true, true)
            .unwrap_or_else(|e| panic!("vkCreateDevice with VK_ARM_data_graph failed: {e:?}"))
    }

    /// Creates the context; `tensor_features` enables `VK_ARM_tensors` and
    /// chains the struct.
    fn build(
        queue_count: u32,
        tensor_features: Option<vk::PhysicalDeviceTensorFeaturesARM>,
    ) -> VkResult<Self> {
        Self::build_with(queue_count, tensor_features, false, false)
    }

    /// [`Ctx::build`]; `shader_features` also enables the supported shader arithmetic and
    /// small-type storage features, `data_graph` the data graph extensions and features.
    fn build_with(
        queue_count: u32,
        tensor_features: Option<vk::PhysicalDeviceTensorFeaturesARM>,
        shader_features: bool,
        data_graph: bool,
    ) -> VkResult<Self> {
        let entry = entry();
        let instance = create_instance(&entry, &[]).expect("vkCreateInstance");
        let physical_device = tessera_physical_device(&instance);
        // SAFETY: `physical_device` belongs to `instance`.
        let (properties, memory_properties, families) = unsafe {
            (
                instance.get_physical_device_properties(physical_device),
                instance.get_physical_device_memory_properties(physical_device),
                instance.get_physical_device_queue_family_properties(physical_device),
            )
        };
        let queue_family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .expect("a queue family with COMPUTE") as u32;
        let available = families[queue_family as usize].queue_count;
        assert!(
            queue_count >= 1 && queue_count <= available,
            "Ctx::with_queues({queue_count}): queue family {queue_family} has {available} queues"
        );

        // Enable the wanted extensions and features the device reports.
        let advertised = device_extension_names(&instance, physical_device);
        let mut enabled_extensions: Vec<String> = REQUIRED_DEVICE_EXTENSIONS
            .iter()
            .filter(|e| advertised.iter().any(|a| a == *e))
            .map(|e| e.to_string())
            .collect();
        // Another driver (TESSERA_E2E_DRIVER) may have no tensors: then none are enabled.
        let tensor_features = tensor_features.filter(|_| {
            other_driver().is_none() || advertised.iter().any(|a| a == ARM_TENSORS_EXTENSION_NAME)
        });
        if tensor_features.is_some() {
            enabled_extensions.push(ARM_TENSORS_EXTENSION_NAME.to_owned());
        }
        if data_graph {
            enabled_extensions.extend(
                [
                    "VK_ARM_data_graph",
                    "VK_KHR_maintenance5",
                    "VK_KHR_deferred_host_operations",
                ]
                .map(str::to_owned),
            );
        }
        let ext_c: Vec<CString> = enabled_extensions
            .iter()
            .map(|e| CString::new(e.as_str()).expect("no NUL"))
            .collect();
        let ext_ptrs: Vec<_> = ext_c.iter().map(|e| e.as_ptr()).collect();

        let mut s11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut s12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut s13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut supported = vk::PhysicalDeviceFeatures2::builder()
            .push_next(&mut s11)
            .push_next(&mut s12)
            .push_next(&mut s13);
        // SAFETY: the chain is made of valid, writable structs.
        unsafe { instance.get_physical_device_features2(physical_device, &mut supported) };
        let s10 = supported.features;
        let features = EnabledFeatures {
            timeline_semaphore: s12.timeline_semaphore == vk::TRUE,
            buffer_device_address: s12.buffer_device_address == vk::TRUE,
            host_query_reset: s12.host_query_reset == vk::TRUE,
            synchronization2: s13.synchronization2 == vk::TRUE,
            maintenance4: s13.maintenance4 == vk::TRUE,
            private_data: s13.private_data == vk::TRUE,
        };
        let mut e12 = vk::PhysicalDeviceVulkan12Features {
            timeline_semaphore: features.timeline_semaphore.into(),
            buffer_device_address: features.buffer_device_address.into(),
            host_query_reset: features.host_query_reset.into(),
            ..Default::default()
        };
        // Only the features a shader may need, and only when asked for and supported.
        let want = |b: vk::Bool32| vk::Bool32::from(shader_features && b == vk::TRUE);
        let e10 = vk::PhysicalDeviceFeatures {
            shader_float64: want(s10.shader_float64),
            shader_int64: want(s10.shader_int64),
            shader_int16: want(s10.shader_int16),
            ..Default::default()
        };
        let mut e11 = vk::PhysicalDeviceVulkan11Features {
            storage_buffer_16bit_access: want(s11.storage_buffer_16bit_access),
            uniform_and_storage_buffer_16bit_access: want(
                s11.uniform_and_storage_buffer_16bit_access,
            ),
            storage_push_constant16: want(s11.storage_push_constant16),
            ..Default::default()
        };
        e12.storage_buffer_8bit_access = want(s12.storage_buffer_8bit_access);
        e12.uniform_and_storage_buffer_8bit_access =
            want(s12.uniform_and_storage_buffer_8bit_access);
        e12.storage_push_constant8 = want(s12.storage_push_constant8);
        e12.shader_float16 = want(s12.shader_float16);
        e12.shader_int8 = want(s12.shader_int8);
        e12.vulkan_memory_model = want(s12.vulkan_memory_model);
        e12.scalar_block_layout = want(s12.scalar_block_layout);
        e12.uniform_buffer_standard_layout = want(s12.uniform_buffer_standard_layout);
        e12.shader_subgroup_extended_types = want(s12.shader_subgroup_extended_types);
        let mut e13 = vk::PhysicalDeviceVulkan13Features {
            synchronization2: features.synchronization2.into(),
            maintenance4: features.maintenance4.into(),
            private_data: features.private_data.into(),
            ..Default::default()
        };
        // Both structs end in 4 bytes of tail padding. Give the driver zeros
        // there, so a driver that (wrongly) reads padding cannot make every
        // test flaky; `tests/device.rs` checks that padding is ignored.
        zero_tail_padding(
            &mut e12,
            std::mem::offset_of!(
                vk::PhysicalDeviceVulkan12Features,
                subgroup_broadcast_dynamic_id
            ) + 4,
        );
        zero_tail_padding(
            &mut e13,
            std::mem::offset_of!(vk::PhysicalDeviceVulkan13Features, maintenance4) + 4,
        );
        let priorities = vec![1.0f32; queue_count as usize];
        let queue_info = [vk::DeviceQueueCreateInfo::builder()
            .queue_family_index(queue_family)
            .queue_priorities(&priorities)];
        let mut tensors = tensor_features.map(|f| vk::PhysicalDeviceTensorFeaturesARM {
            s_type: vk::StructureType::PHYSICAL_DEVICE_TENSOR_FEATURES_ARM,
            next: std::ptr::null_mut(),
            ..f
        });
        let mut info = vk::DeviceCreateInfo::builder()
            .queue_create_infos(&queue_info)
            .enabled_extension_names(&ext_ptrs)
            .push_next(&mut e12)
            .push_next(&mut e13);
        if shader_features {
            info = info.enabled_features(&e10).push_next(&mut e11);
        }
        if let Some(t) = tensors.as_mut() {
            info = info.push_next(t);
        }
        let has = |name: &str| enabled_extensions.iter().any(|e| e == name);
        // The optional extensions' features, as far as the device reports them (another
        // driver, under TESSERA_E2E_DRIVER, may lack some).
        let mut bf16_supported = vk::PhysicalDeviceShaderBfloat16FeaturesKHR::default();
        let mut fp8_supported = vk::PhysicalDeviceShaderFloat8FeaturesEXT::default();
        let mut vector_supported = vk::PhysicalDeviceCooperativeVectorFeaturesNV::default();
        let mut matrix_supported = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default();
        {
            let mut query = vk::PhysicalDeviceFeatures2::builder();
            if has("VK_KHR_shader_bfloat16") {
                query = query.push_next(&mut bf16_supported);
            }
            if has("VK_EXT_shader_float8") {
                query = query.push_next(&mut fp8_supported);
            }
            if has("VK_NV_cooperative_vector") {
                query = query.push_next(&mut vector_supported);
            }
            if has("VK_KHR_cooperative_matrix") {
                query = query.push_next(&mut matrix_supported);
            }
            // SAFETY: the chain is made of valid, writable structs of enabled extensions.
            unsafe { instance.get_physical_device_features2(physical_device, &mut query) };
        }
        let mut bf16 = vk::PhysicalDeviceShaderBfloat16FeaturesKHR {
            shader_b_float16_type: bf16_supported.shader_b_float16_type,
            shader_b_float_16dot_product: bf16_supported.shader_b_float_16dot_product,
            shader_b_float16_cooperative_matrix: bf16_supported.shader_b_float16_cooperative_matrix,
            ..Default::default()
        };
        let mut fp8 = vk::PhysicalDeviceShaderFloat8FeaturesEXT {
            shader_float8: fp8_supported.shader_float8,
            ..Default::default()
        };
        if shader_features && has("VK_KHR_shader_bfloat16") {
            info = info.push_next(&mut bf16);
        }
        if shader_features && has("VK_EXT_shader_float8") {
            info = info.push_next(&mut fp8);
        }
        let mut coop_vector = vk::PhysicalDeviceCooperativeVectorFeaturesNV {
            cooperative_vector: vector_supported.cooperative_vector,
            cooperative_vector_training: vector_supported.cooperative_vector_training,
            ..Default::default()
        };
        if shader_features && has("VK_NV_cooperative_vector") {
            info = info.push_next(&mut coop_vector);
        }
        let mut coop_matrix = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR {
            cooperative_matrix: matrix_supported.cooperative_matrix,
            cooperative_matrix_robust_buffer_access: matrix_supported
                .cooperative_matrix_robust_buffer_access,
            ..Default::default()
        };
        if shader_features && has("VK_KHR_cooperative_matrix") {
            info = info.push_next(&mut coop_matrix);
        }
        let mut graph_features = vk::PhysicalDeviceDataGraphFeaturesARM {
            data_graph: vk::TRUE,
            data_graph_shader_module: vk::TRUE,
            data_graph_specialization_constants: vk::TRUE,
            data_graph_update_after_bind: vk::TRUE,
            ..Default::default()
        };
        let mut m5 = vk::PhysicalDeviceMaintenance5Features {
            maintenance5: vk::TRUE,
            ..Default::default()
        };
        if data_graph {
            info = info.push_next(&mut graph_features).push_next(&mut m5);
        }
        let guard = loader_device_lock();
        // SAFETY: `info` and its chain outlive the call.
        let created = unsafe { instance.create_device(physical_device, &info, None) };
        drop(guard);
        let device = match created {
            Ok(device) => device,
            Err(e) => {
                // SAFETY: no child of the instance is alive.
                unsafe { instance.destroy_instance(None) };
                return Err(e);
            }
        };
        // SAFETY: the queues were requested at device creation.
        let queues = (0..queue_count)
            .map(|i| unsafe { device.get_device_queue(queue_family, i) })
            .collect();

        let memory_type = find_memory_type(
            &memory_properties,
            !0,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        )
        .expect("a HOST_VISIBLE | HOST_COHERENT memory type");

        Ok(Self {
            entry,
            instance,
            physical_device,
            device,
            queue_family,
            queues,
            memory_type,
            properties,
            memory_properties,
            enabled_extensions,
            features,
            owned: Mutex::new(Vec::new()),
        })
    }

    fn own(&self, object: Owned) {
        self.owned.lock().expect("owned list").push(object);
    }

    /// The first queue.
    pub fn queue(&self) -> vk::Queue {
        self.queues[0]
    }

    /// Creates a buffer (owned by the context). Panics on failure.
    pub fn buffer(&self, size: u64, usage: vk::BufferUsageFlags) -> vk::Buffer {
        let info = vk::BufferCreateInfo::builder()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info on a live device.
        let buffer = unsafe { self.device.create_buffer(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateBuffer({size}) failed: {e:?}"));
        self.own(Owned::Buffer(buffer));
        buffer
    }

    /// A TRANSFER_SRC | TRANSFER_DST | STORAGE buffer.
    pub fn transfer_buffer(&self, size: u64) -> vk::Buffer {
        self.buffer(
            size,
            vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST
                | vk::BufferUsageFlags::STORAGE_BUFFER,
        )
    }

    /// Allocates `size` bytes of `self.memory_type` (owned by the context).
    pub fn memory(&self, size: u64) -> vk::DeviceMemory {
        self.memory_with(size, vk::MemoryAllocateFlags::empty())
    }

    /// Allocates memory with `VkMemoryAllocateFlagsInfo::flags` (e.g. DEVICE_ADDRESS).
    pub fn memory_with(&self, size: u64, flags: vk::MemoryAllocateFlags) -> vk::DeviceMemory {
        let mut flags_info = vk::MemoryAllocateFlagsInfo::builder().flags(flags);
        let mut info = vk::MemoryAllocateInfo::builder()
            .allocation_size(size)
            .memory_type_index(self.memory_type);
        if !flags.is_empty() {
            info = info.push_next(&mut flags_info);
        }
        // SAFETY: valid allocate info on a live device.
        let memory = unsafe { self.device.allocate_memory(&info, None) }
            .unwrap_or_else(|e| panic!("vkAllocateMemory({size}) failed: {e:?}"));
        self.own(Owned::Memory(memory));
        memory
    }

    /// A transfer buffer of `size` bytes bound to its own mapped memory.
    pub fn host_buffer(&self, size: u64) -> HostBuffer<'_> {
        let buffer = self.transfer_buffer(size);
        // SAFETY: `buffer` is a live buffer of this device.
        let reqs = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        assert!(
            reqs.memory_type_bits & (1 << self.memory_type) != 0,
            "memory type {} not allowed for buffers (bits {:#x})",
            self.memory_type,
            reqs.memory_type_bits
        );
        let memory = self.memory(reqs.size.max(size));
        // SAFETY: fresh buffer and memory; offset 0 satisfies any alignment.
        unsafe { self.device.bind_buffer_memory(buffer, memory, 0) }
            .unwrap_or_else(|e| panic!("vkBindBufferMemory failed: {e:?}"));
        // SAFETY: host-visible memory, not mapped yet.
        let ptr = unsafe {
            self.device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
        }
        .unwrap_or_else(|e| panic!("vkMapMemory failed: {e:?}"));
        assert!(!ptr.is_null(), "vkMapMemory returned NULL");
        HostBuffer {
            buffer,
            memory,
            size,
            ptr: ptr.cast(),
            _ctx: PhantomData,
        }
    }

    /// Creates a command pool on the context's queue family (owned).
    pub fn command_pool(&self, flags: vk::CommandPoolCreateFlags) -> vk::CommandPool {
        let info = vk::CommandPoolCreateInfo::builder()
            .flags(flags)
            .queue_family_index(self.queue_family);
        // SAFETY: valid create info on a live device.
        let pool = unsafe { self.device.create_command_pool(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateCommandPool failed: {e:?}"));
        self.own(Owned::CommandPool(pool));
        pool
    }

    /// Allocates `count` command buffers of `level` from `pool`.
    pub fn command_buffers(
        &self,
        pool: vk::CommandPool,
        level: vk::CommandBufferLevel,
        count: u32,
    ) -> Vec<vk::CommandBuffer> {
        let info = vk::CommandBufferAllocateInfo::builder()
            .command_pool(pool)
            .level(level)
            .command_buffer_count(count);
        // SAFETY: `pool` is a live pool of this device.
        unsafe { self.device.allocate_command_buffers(&info) }
            .unwrap_or_else(|e| panic!("vkAllocateCommandBuffers failed: {e:?}"))
    }

    /// Allocates one primary command buffer from `pool`.
    pub fn command_buffer(&self, pool: vk::CommandPool) -> vk::CommandBuffer {
        self.command_buffers(pool, vk::CommandBufferLevel::PRIMARY, 1)[0]
    }

    /// `vkBeginCommandBuffer` with `flags`, panicking on failure.
    pub fn begin(&self, cb: vk::CommandBuffer, flags: vk::CommandBufferUsageFlags) {
        let info = vk::CommandBufferBeginInfo::builder().flags(flags);
        // SAFETY: `cb` is a primary command buffer of this device.
        unsafe { self.device.begin_command_buffer(cb, &info) }
            .unwrap_or_else(|e| panic!("vkBeginCommandBuffer failed: {e:?}"));
    }

    /// `vkEndCommandBuffer`, panicking on failure.
    pub fn end(&self, cb: vk::CommandBuffer) {
        // SAFETY: `cb` is a command buffer of this device.
        unsafe { self.device.end_command_buffer(cb) }
            .unwrap_or_else(|e| panic!("vkEndCommandBuffer failed: {e:?}"));
    }

    /// Creates a fence (owned).
    pub fn fence(&self, signaled: bool) -> vk::Fence {
        let flags = if signaled {
            vk::FenceCreateFlags::SIGNALED
        } else {
            vk::FenceCreateFlags::empty()
        };
        let info = vk::FenceCreateInfo::builder().flags(flags);
        // SAFETY: valid create info on a live device.
        let fence = unsafe { self.device.create_fence(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateFence failed: {e:?}"));
        self.own(Owned::Fence(fence));
        fence
    }

    /// Creates a binary semaphore (owned).
    pub fn semaphore(&self) -> vk::Semaphore {
        let info = vk::SemaphoreCreateInfo::builder();
        // SAFETY: valid create info on a live device.
        let semaphore = unsafe { self.device.create_semaphore(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateSemaphore failed: {e:?}"));
        self.own(Owned::Semaphore(semaphore));
        semaphore
    }

    /// Creates a timeline semaphore with `initial` value (owned).
    pub fn timeline_semaphore(&self, initial: u64) -> vk::Semaphore {
        let mut type_info = vk::SemaphoreTypeCreateInfo::builder()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(initial);
        let info = vk::SemaphoreCreateInfo::builder().push_next(&mut type_info);
        // SAFETY: valid create info chain on a live device.
        let semaphore = unsafe { self.device.create_semaphore(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateSemaphore(TIMELINE) failed: {e:?}"));
        self.own(Owned::Semaphore(semaphore));
        semaphore
    }

    /// Creates an event (owned).
    pub fn event(&self) -> vk::Event {
        let info = vk::EventCreateInfo::builder();
        // SAFETY: valid create info on a live device.
        let event = unsafe { self.device.create_event(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateEvent failed: {e:?}"));
        self.own(Owned::Event(event));
        event
    }

    /// Creates a TIMESTAMP query pool with `count` queries (owned).
    pub fn timestamp_pool(&self, count: u32) -> vk::QueryPool {
        let info = vk::QueryPoolCreateInfo::builder()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(count);
        // SAFETY: valid create info on a live device.
        let pool = unsafe { self.device.create_query_pool(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateQueryPool failed: {e:?}"));
        self.own(Owned::QueryPool(pool));
        pool
    }

    /// Creates a private data slot (owned).
    pub fn private_data_slot(&self) -> vk::PrivateDataSlot {
        let info = vk::PrivateDataSlotCreateInfo::builder();
        // SAFETY: valid create info on a live device.
        let slot = unsafe { self.device.create_private_data_slot(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreatePrivateDataSlot failed: {e:?}"));
        self.own(Owned::PrivateDataSlot(slot));
        slot
    }

    /// `vkQueueSubmit` of `cbs` (no semaphores) signalling `fence`.
    pub fn submit(
        &self,
        queue: vk::Queue,
        cbs: &[vk::CommandBuffer],
        fence: vk::Fence,
    ) -> VkResult<()> {
        let submit = vk::SubmitInfo::builder().command_buffers(cbs);
        // SAFETY: `cbs` are executable command buffers of this device.
        unsafe { self.device.queue_submit(queue, &[submit], fence) }
    }

    /// Waits for `fence`, panicking if it does not signal within [`WAIT_TIMEOUT_NS`].
    pub fn wait(&self, fence: vk::Fence) {
        // SAFETY: `fence` is a live fence of this device.
        let result = unsafe { self.device.wait_for_fences(&[fence], true, WAIT_TIMEOUT_NS) };
        assert_eq!(
            result,
            Ok(vk::SuccessCode::SUCCESS),
            "vkWaitForFences did not report the fence signalled"
        );
    }

    /// Records `record` into a fresh one-time-submit primary command buffer,
    /// submits it on queue 0, and waits for it.
    pub fn run(&self, record: impl FnOnce(&Device, vk::CommandBuffer)) {
        self.run_on(self.queue(), record);
    }

    /// Like [`Ctx::run`] on a chosen queue.
    pub fn run_on(&self, queue: vk::Queue, record: impl FnOnce(&Device, vk::CommandBuffer)) {
        let pool = self.command_pool(vk::CommandPoolCreateFlags::TRANSIENT);
        let cb = self.command_buffer(pool);
        self.begin(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        record(&self.device, cb);
        self.end(cb);
        let fence = self.fence(false);
        self.submit(queue, &[cb], fence)
            .unwrap_or_else(|e| panic!("vkQueueSubmit failed: {e:?}"));
        self.wait(fence);
    }

    /// Buffer device address of `buffer` (needs the feature and usage bit).
    pub fn device_address(&self, buffer: vk::Buffer) -> vk::DeviceAddress {
        let info = vk::BufferDeviceAddressInfo::builder().buffer(buffer);
        // SAFETY: `buffer` is bound to memory allocated with DEVICE_ADDRESS.
        unsafe { self.device.get_buffer_device_address(&info) }
    }

    /// Destroys the device and instance immediately, without
    /// `vkDeviceWaitIdle` and without destroying child objects first: the
    /// "application tears down with work still pending" scenario. The
    /// driver must neither crash nor hang. Child objects are leaked.
    pub fn destroy_without_waiting(self) {
        let this = std::mem::ManuallyDrop::new(self);
        let _guard = loader_device_lock();
        // SAFETY: `this` is never used again and its `Drop` never runs, so
        // the device and instance are destroyed exactly once.
        unsafe {
            this.device.destroy_device(None);
            this.instance.destroy_instance(None);
        }
    }

    /// Looks a device command up with `vkGetDeviceProcAddr`.
    pub fn device_proc_addr(&self, name: &CStr) -> vk::PFN_vkVoidFunction {
        let _guard = loader_device_lock();
        // SAFETY: `device` is a live device of `instance`.
        unsafe {
            self.instance
                .get_device_proc_addr(self.device.handle(), name)
        }
    }
}

impl Default for Ctx {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        let owned = std::mem::take(self.owned.get_mut().unwrap_or_else(|e| e.into_inner()));
        // SAFETY: the device waits for all its work before objects are
        // destroyed in reverse creation order; nothing else uses them after.
        unsafe {
            let _ = self.device.device_wait_idle();
            for object in owned.into_iter().rev() {
                match object {
                    Owned::Buffer(b) => self.device.destroy_buffer(b, None),
                    Owned::Memory(m) => self.device.free_memory(m, None),
                    Owned::CommandPool(p) => self.device.destroy_command_pool(p, None),
                    Owned::Fence(f) => self.device.destroy_fence(f, None),
                    Owned::Semaphore(s) => self.device.destroy_semaphore(s, None),
                    Owned::Event(e) => self.device.destroy_event(e, None),
                    Owned::QueryPool(q) => self.device.destroy_query_pool(q, None),
                    Owned::PrivateDataSlot(s) => self.device.destroy_private_data_slot(s, None),
                    Owned::Tensor(t) => self.device.destroy_tensor_arm(t, None),
                    Owned::TensorView(v) => self.device.destroy_tensor_view_arm(v, None),
                }
            }
            let _guard = loader_device_lock();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
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

// ---------------------------------------------------------------------------
// VK_ARM_tensors helpers
// ---------------------------------------------------------------------------

/// Name of the tensor extension.
pub const ARM_TENSORS_EXTENSION_NAME: &str = "VK_ARM_tensors";

/// `VK_TENSOR_USAGE_SHADER_BIT_ARM`.
pub const TENSOR_USAGE_SHADER: u64 = 0x2;
/// `VK_TENSOR_USAGE_TRANSFER_SRC_BIT_ARM`.
pub const TENSOR_USAGE_TRANSFER_SRC: u64 = 0x4;
/// `VK_TENSOR_USAGE_TRANSFER_DST_BIT_ARM`.
pub const TENSOR_USAGE_TRANSFER_DST: u64 = 0x8;
/// `VK_TENSOR_USAGE_IMAGE_ALIASING_BIT_ARM`.
pub const TENSOR_USAGE_IMAGE_ALIASING: u64 = 0x10;
/// TRANSFER_SRC | TRANSFER_DST.
pub const TENSOR_USAGE_TRANSFER: u64 = TENSOR_USAGE_TRANSFER_SRC | TENSOR_USAGE_TRANSFER_DST;
/// `VK_TENSOR_CREATE_PROTECTED_BIT_ARM`.
pub const TENSOR_CREATE_PROTECTED: u64 = 0x2;
/// `VK_TENSOR_CREATE_MUTABLE_FORMAT_BIT_ARM`.
pub const TENSOR_CREATE_MUTABLE_FORMAT: u64 = 0x1;

/// Every tensor format the driver supports, with its element size in bytes.
pub const TENSOR_FORMATS: &[(vk::Format, u64)] = &[
    (vk::Format::R8_UNORM, 1),
    (vk::Format::R8_SNORM, 1),
    (vk::Format::R8_USCALED, 1),
    (vk::Format::R8_SSCALED, 1),
    (vk::Format::R8_UINT, 1),
    (vk::Format::R8_SINT, 1),
    (vk::Format::R16_UNORM, 2),
    (vk::Format::R16_SNORM, 2),
    (vk::Format::R16_USCALED, 2),
    (vk::Format::R16_SSCALED, 2),
    (vk::Format::R16_UINT, 2),
    (vk::Format::R16_SINT, 2),
    (vk::Format::R16_SFLOAT, 2),
    (vk::Format::R32_UINT, 4),
    (vk::Format::R32_SINT, 4),
    (vk::Format::R32_SFLOAT, 4),
    (vk::Format::R64_UINT, 8),
    (vk::Format::R64_SINT, 8),
    (vk::Format::R64_SFLOAT, 8),
    (vk::Format::R8_BOOL_ARM, 1),
    (vk::Format::R16_SFLOAT_FPENCODING_BFLOAT16_ARM, 2),
    (vk::Format::R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM, 1),
    (vk::Format::R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM, 1),
];

/// Element size of a tensor format of [`TENSOR_FORMATS`] (panics for others).
pub fn tensor_format_size(format: vk::Format) -> u64 {
    TENSOR_FORMATS
        .iter()
        .find(|(f, _)| *f == format)
        .map(|(_, s)| *s)
        .unwrap_or_else(|| panic!("{format:?} is not a tensor format"))
}

/// Packed row-major byte strides of `dims` (outermost first) with `elem`-byte elements.
pub fn packed_strides(elem: u64, dims: &[i64]) -> Vec<i64> {
    padded_strides(elem, dims, 0)
}

/// Byte strides with `pad` extra bytes on every outer stride, as the CTS
/// builds its non-packed tensors: `s[n-1] = elem`, `s[i] = s[i+1]·d[i+1] + pad`.
pub fn padded_strides(elem: u64, dims: &[i64], pad: u64) -> Vec<i64> {
    let mut strides = vec![0i64; dims.len()];
    let mut acc = elem as i64;
    for i in (0..dims.len()).rev() {
        strides[i] = acc;
        acc = acc * dims[i] + pad as i64;
    }
    strides
}

/// Bytes a tensor spans: `strides[0]·dims[0]`.
pub fn tensor_footprint(dims: &[i64], strides: &[i64]) -> u64 {
    (strides[0] * dims[0]) as u64
}

/// The byte offset of every element, in row-major coordinate order.
pub fn element_offsets(dims: &[i64], strides: &[i64]) -> Vec<u64> {
    assert_eq!(dims.len(), strides.len(), "rank of dims and strides");
    let count: i64 = dims.iter().product();
    let mut out = Vec::with_capacity(count as usize);
    let mut coord = vec![0i64; dims.len()];
    for _ in 0..count {
        out.push(coord.iter().zip(strides).map(|(c, s)| c * s).sum::<i64>() as u64);
        for i in (0..dims.len()).rev() {
            coord[i] += 1;
            if coord[i] < dims[i] {
                break;
            }
            coord[i] = 0;
        }
    }
    out
}

/// Writes `value` as a `u64` at byte `offset` of `target`: the 64-bit
/// `VkFlags64` members (`VkTensorCreateFlagsARM`, `VkTensorUsageFlagsARM`,
/// `VkTensorViewCreateFlagsARM`) that `vulkanalia` declares as `u32`
/// followed by 4 bytes of padding. This sets the upper half (the padding) too,
/// instead of leaving it undefined.
pub fn write_flags64<T>(target: &mut T, offset: usize, value: u64) {
    assert!(
        offset.is_multiple_of(8) && offset + 8 <= std::mem::size_of::<T>(),
        "offset {offset} is not an aligned 8-byte field of a {}-byte struct",
        std::mem::size_of::<T>()
    );
    // SAFETY: the 8 bytes at `offset` lie inside `*target` (checked above),
    // are 8-byte aligned in a struct containing pointers, and hold a `u32`
    // flags member plus its padding, for which any bit pattern is valid.
    unsafe {
        (target as *mut T)
            .cast::<u8>()
            .add(offset)
            .cast::<u64>()
            .write(value)
    };
}

/// A `VkTensorCreateInfoARM` with its description and arrays, in stable
/// heap storage so the pointers stay valid while the value moves.
#[derive(Debug, Clone)]
pub struct TensorInfo {
    /// Tiling.
    pub tiling: vk::TensorTilingARM,
    /// Element format.
    pub format: vk::Format,
    /// `pDimensions`, outermost first.
    pub dims: Vec<i64>,
    /// `pStrides` (`None`: NULL).
    pub strides: Option<Vec<i64>>,
    /// `VkTensorUsageFlagsARM` (64-bit).
    pub usage: u64,
    /// `VkTensorCreateFlagsARM` (64-bit).
    pub flags: u64,
    /// `sharingMode`.
    pub sharing_mode: vk::SharingMode,
    /// `pQueueFamilyIndices`.
    pub queue_families: Vec<u32>,
    /// `pNext` of the create info (must outlive every use).
    pub next: *const c_void,
    /// `dimensionCount` override (`None`: `dims.len()`).
    pub dimension_count: Option<u32>,
    desc: Box<vk::TensorDescriptionARM>,
    info: Box<vk::TensorCreateInfoARM>,
}

impl TensorInfo {
    /// A tensor of `dims` with NULL strides, exclusive sharing and no flags.
    pub fn new(tiling: vk::TensorTilingARM, format: vk::Format, dims: &[i64], usage: u64) -> Self {
        Self {
            tiling,
            format,
            dims: dims.to_vec(),
            strides: None,
            usage,
            flags: 0,
            sharing_mode: vk::SharingMode::EXCLUSIVE,
            queue_families: Vec::new(),
            next: std::ptr::null(),
            dimension_count: None,
            desc: Box::default(),
            info: Box::default(),
        }
    }

    /// A linear tensor with NULL (packed) strides and TRANSFER_SRC|DST usage.
    pub fn linear(format: vk::Format, dims: &[i64]) -> Self {
        Self::new(
            vk::TensorTilingARM::LINEAR,
            format,
            dims,
            TENSOR_USAGE_TRANSFER,
        )
    }

    /// An optimal tensor with TRANSFER_SRC|DST usage.
    pub fn optimal(format: vk::Format, dims: &[i64]) -> Self {
        Self::new(
            vk::TensorTilingARM::OPTIMAL,
            format,
            dims,
            TENSOR_USAGE_TRANSFER,
        )
    }

    /// Sets explicit `pStrides`.
    pub fn with_strides(mut self, strides: &[i64]) -> Self {
        self.strides = Some(strides.to_vec());
        self
    }

    /// Element size of the format.
    pub fn elem(&self) -> u64 {
        tensor_format_size(self.format)
    }

    /// The strides the tensor will have: the explicit ones or packed.
    pub fn effective_strides(&self) -> Vec<i64> {
        self.strides
            .clone()
            .unwrap_or_else(|| packed_strides(self.elem(), &self.dims))
    }

    /// Bytes the tensor spans.
    pub fn footprint(&self) -> u64 {
        tensor_footprint(&self.dims, &self.effective_strides())
    }

    /// The raw description (pointers into `self`).
    pub fn description(&mut self) -> &vk::TensorDescriptionARM {
        *self.desc = vk::TensorDescriptionARM {
            s_type: vk::StructureType::TENSOR_DESCRIPTION_ARM,
            next: std::ptr::null(),
            tiling: self.tiling,
            format: self.format,
            dimension_count: self.dimension_count.unwrap_or(self.dims.len() as u32),
            dimensions: if self.dims.is_empty() {
                std::ptr::null()
            } else {
                self.dims.as_ptr()
            },
            strides: self
                .strides
                .as_ref()
                .map_or(std::ptr::null(), |s| s.as_ptr()),
            usage: vk::TensorUsageFlagsARM::empty(),
        };
        write_flags64(
            &mut *self.desc,
            std::mem::offset_of!(vk::TensorDescriptionARM, usage),
            self.usage,
        );
        &self.desc
    }

    /// The raw create info (pointers into `self`).
    pub fn raw(&mut self) -> &vk::TensorCreateInfoARM {
        let desc: *const vk::TensorDescriptionARM = self.description();
        *self.info = vk::TensorCreateInfoARM {
            s_type: vk::StructureType::TENSOR_CREATE_INFO_ARM,
            next: self.next,
            flags: vk::TensorCreateFlagsARM::empty(),
            description: desc,
            sharing_mode: self.sharing_mode,
            queue_family_index_count: self.queue_families.len() as u32,
            queue_family_indices: if self.queue_families.is_empty() {
                std::ptr::null()
            } else {
                self.queue_families.as_ptr()
            },
        };
        write_flags64(
            &mut *self.info,
            std::mem::offset_of!(vk::TensorCreateInfoARM, flags),
            self.flags,
        );
        &self.info
    }
}

/// `vkCreateTensorARM` (the caller owns the tensor).
pub fn create_tensor(device: &Device, info: &mut TensorInfo) -> VkResult<vk::TensorARM> {
    let raw = info.raw();
    // SAFETY: `raw` and everything it points to live in `info` for the call.
    unsafe { device.create_tensor_arm(raw, None) }
}

/// `vkGetTensorMemoryRequirementsARM` with `VkMemoryDedicatedRequirements`
/// chained (pre-filled with TRUE/TRUE so the driver must write it).
pub fn tensor_requirements(
    device: &Device,
    tensor: vk::TensorARM,
) -> (vk::MemoryRequirements, vk::MemoryDedicatedRequirements) {
    let info = vk::TensorMemoryRequirementsInfoARM::builder().tensor(tensor);
    let mut dedicated = vk::MemoryDedicatedRequirements {
        prefers_dedicated_allocation: vk::TRUE,
        requires_dedicated_allocation: vk::TRUE,
        ..Default::default()
    };
    let mut reqs = vk::MemoryRequirements2::builder().push_next(&mut dedicated);
    // SAFETY: `tensor` is a live tensor of `device`; the output chain is writable.
    unsafe { device.get_tensor_memory_requirements_arm(&info, &mut reqs) };
    let reqs = reqs.memory_requirements;
    (
        reqs,
        vk::MemoryDedicatedRequirements {
            next: std::ptr::null_mut(),
            ..dedicated
        },
    )
}

/// `vkBindTensorMemoryARM` of one tensor.
pub fn bind_tensor(
    device: &Device,
    tensor: vk::TensorARM,
    memory: vk::DeviceMemory,
    offset: u64,
) -> VkResult<()> {
    let info = vk::BindTensorMemoryInfoARM::builder()
        .tensor(tensor)
        .memory(memory)
        .memory_offset(offset);
    // SAFETY: valid handles of `device`; the driver validates the rest.
    unsafe { device.bind_tensor_memory_arm(&[info]) }
}

/// Records `vkCmdCopyTensorARM` of the whole tensor `src` to `dst`, with one
/// region of `dimensionCount = 0` (NULL offsets and extent).
pub fn cmd_copy_whole_tensor(
    device: &Device,
    cb: vk::CommandBuffer,
    src: vk::TensorARM,
    dst: vk::TensorARM,
) {
    let region = vk::TensorCopyARM::default();
    cmd_copy_tensor_regions(device, cb, src, dst, std::slice::from_ref(&region));
}

/// Records `vkCmdCopyTensorARM` with explicit regions.
pub fn cmd_copy_tensor_regions(
    device: &Device,
    cb: vk::CommandBuffer,
    src: vk::TensorARM,
    dst: vk::TensorARM,
    regions: &[vk::TensorCopyARM],
) {
    let info = vk::CopyTensorInfoARM {
        src_tensor: src,
        dst_tensor: dst,
        region_count: regions.len() as u32,
        regions: if regions.is_empty() {
            std::ptr::null()
        } else {
            regions.as_ptr()
        },
        ..Default::default()
    };
    // SAFETY: `cb` is recording; `info` and the regions outlive the call.
    unsafe { device.cmd_copy_tensor_arm(cb, &info) };
}

/// A host-visible, host-coherent allocation, persistently mapped.
pub struct HostMemory<'a> {
    /// The memory object.
    pub memory: vk::DeviceMemory,
    /// Its size in bytes.
    pub size: u64,
    ptr: *mut u8,
    _ctx: PhantomData<&'a Ctx>,
}

impl fmt::Debug for HostMemory<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostMemory")
            .field("memory", &self.memory)
            .field("size", &self.size)
            .finish()
    }
}

impl HostMemory<'_> {
    /// All mapped bytes (copied out). Only call while no device work writes them.
    pub fn read(&self) -> Vec<u8> {
        // SAFETY: `ptr` maps `size` bytes of HOST_COHERENT memory that lives
        // as long as the owning `Ctx`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.size as usize) }.to_vec()
    }

    /// Writes `data` at `offset`.
    pub fn write(&self, offset: u64, data: &[u8]) {
        assert!(
            offset + data.len() as u64 <= self.size,
            "write out of range"
        );
        // SAFETY: the range was checked against the mapped size above.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(offset as usize), data.len())
        };
    }

    /// The mapped pointer.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }
}

/// Deterministic, non-repeating-looking bytes (seeded).
pub fn pattern_bytes(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 11) as u8
        })
        .collect()
}

impl Ctx {
    /// Creates a tensor owned by the context (panics on failure).
    pub fn tensor(&self, info: &mut TensorInfo) -> vk::TensorARM {
        self.try_tensor(info)
            .unwrap_or_else(|e| panic!("vkCreateTensorARM({:?}) failed: {e:?}", info.dims))
    }

    /// Creates a tensor; on success it is owned by the context.
    pub fn try_tensor(&self, info: &mut TensorInfo) -> VkResult<vk::TensorARM> {
        let tensor = create_tensor(&self.device, info)?;
        self.own(Owned::Tensor(tensor));
        Ok(tensor)
    }

    /// `vkCreateTensorViewARM` with 64-bit `flags`; on success the view is
    /// owned by the context.
    pub fn try_tensor_view(
        &self,
        tensor: vk::TensorARM,
        format: vk::Format,
        flags: u64,
    ) -> VkResult<vk::TensorViewARM> {
        let mut info = vk::TensorViewCreateInfoARM {
            tensor,
            format,
            ..Default::default()
        };
        write_flags64(
            &mut info,
            std::mem::offset_of!(vk::TensorViewCreateInfoARM, flags),
            flags,
        );
        // SAFETY: `info` is a complete create info on a live device.
        let view = unsafe { self.device.create_tensor_view_arm(&info, None) }?;
        self.own(Owned::TensorView(view));
        Ok(view)
    }

    /// `vkBindTensorMemoryARM` of one tensor.
    pub fn bind_tensor(
        &self,
        tensor: vk::TensorARM,
        memory: vk::DeviceMemory,
        offset: u64,
    ) -> VkResult<()> {
        bind_tensor(&self.device, tensor, memory, offset)
    }

    /// Memory requirements of `tensor` (+ the dedicated-allocation answer).
    pub fn tensor_requirements(
        &self,
        tensor: vk::TensorARM,
    ) -> (vk::MemoryRequirements, vk::MemoryDedicatedRequirements) {
        tensor_requirements(&self.device, tensor)
    }

    /// Allocates `size` bytes of host-visible memory (owned) and maps it.
    pub fn host_memory(&self, size: u64) -> HostMemory<'_> {
        let memory = self.memory(size);
        // SAFETY: host-visible memory, not mapped yet.
        let ptr = unsafe {
            self.device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
        }
        .unwrap_or_else(|e| panic!("vkMapMemory failed: {e:?}"));
        assert!(!ptr.is_null(), "vkMapMemory returned NULL");
        HostMemory {
            memory,
            size,
            ptr: ptr.cast(),
            _ctx: PhantomData,
        }
    }

    /// A transfer buffer of `size` bytes bound to `memory` at `offset` (owned).
    pub fn buffer_on(&self, memory: vk::DeviceMemory, offset: u64, size: u64) -> vk::Buffer {
        let buffer = self.transfer_buffer(size);
        // SAFETY: fresh buffer; the driver validates offset and size.
        unsafe { self.device.bind_buffer_memory(buffer, memory, offset) }
            .unwrap_or_else(|e| panic!("vkBindBufferMemory(offset {offset}) failed: {e:?}"));
        buffer
    }

    /// Records commands into a fresh command buffer and returns what
    /// `vkEndCommandBuffer` says (the command buffer is not submitted).
    pub fn record_only(&self, record: impl FnOnce(&Device, vk::CommandBuffer)) -> VkResult<()> {
        let pool = self.command_pool(vk::CommandPoolCreateFlags::TRANSIENT);
        let cb = self.command_buffer(pool);
        self.begin(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        record(&self.device, cb);
        // SAFETY: `cb` is a recording command buffer of this device.
        unsafe { self.device.end_command_buffer(cb) }
    }
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
