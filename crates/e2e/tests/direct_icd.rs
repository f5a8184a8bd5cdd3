//! Using the driver without the Khronos loader, as ncnn and other
//! "bring your own ICD" applications do: dlopen the .so, negotiate the
//! loader-ICD interface, and drive everything through the returned
//! function pointers.

use std::ffi::{CStr, c_char};
use std::mem::transmute;
use std::ptr;

use libloading::Library;
use tessera_e2e::*;
use vulkanalia::vk;
use vulkanalia::vk::Handle;

type NegotiateFn = unsafe extern "system" fn(*mut u32) -> vk::Result;
type ProcAddrFn = unsafe extern "system" fn(vk::Instance, *const c_char) -> vk::PFN_vkVoidFunction;

/// The driver library and its three exports.
struct Icd {
    _lib: Library,
    negotiate: NegotiateFn,
    gipa: ProcAddrFn,
    gpdpa: ProcAddrFn,
}

impl Icd {
    fn open() -> Self {
        let path = require_icd();
        // SAFETY: loading the driver runs only its own initialisers, and the
        // symbols have the loader-ICD interface signatures.
        unsafe {
            let lib =
                Library::new(&path).unwrap_or_else(|e| panic!("dlopen {}: {e}", path.display()));
            let negotiate = *lib
                .get::<NegotiateFn>(b"vk_icdNegotiateLoaderICDInterfaceVersion\0")
                .expect("vk_icdNegotiateLoaderICDInterfaceVersion");
            let gipa = *lib
                .get::<ProcAddrFn>(b"vk_icdGetInstanceProcAddr\0")
                .expect("vk_icdGetInstanceProcAddr");
            let gpdpa = *lib
                .get::<ProcAddrFn>(b"vk_icdGetPhysicalDeviceProcAddr\0")
                .expect("vk_icdGetPhysicalDeviceProcAddr");
            Self {
                _lib: lib,
                negotiate,
                gipa,
                gpdpa,
            }
        }
    }

    fn negotiate(&self, offered: u32) -> (vk::Result, u32) {
        let mut version = offered;
        // SAFETY: valid out pointer.
        let r = unsafe { (self.negotiate)(&mut version) };
        (r, version)
    }

    fn gipa(&self, instance: vk::Instance, name: &CStr) -> vk::PFN_vkVoidFunction {
        // SAFETY: NUL-terminated name; `instance` is NULL or live.
        unsafe { (self.gipa)(instance, name.as_ptr()) }
    }
}

/// Resolves `$name` through `$gpa($handle, ..)` and casts it to `$ty`.
/// Must be used in an `unsafe` context.
macro_rules! load {
    ($gpa:expr, $handle:expr, $name:literal, $ty:ty) => {{
        let f = $gpa($handle, concat!($name, "\0").as_ptr().cast())
            .unwrap_or_else(|| panic!(concat!($name, " resolved to NULL")));
        transmute::<unsafe extern "system" fn(), $ty>(f)
    }};
}

/// Reads the first word of a dispatchable handle: the loader's dispatch slot.
///
/// # Safety
///
/// `handle` must be a live dispatchable handle created by the driver.
unsafe fn loader_slot(handle: usize) -> usize {
    // SAFETY: dispatchable handles point at an object whose first word is
    // reserved for the loader (guaranteed by the caller).
    unsafe { *(handle as *const usize) }
}

fn assert_magic(what: &str, handle: usize) {
    assert_ne!(handle, 0, "{what} is NULL");
    // SAFETY: `handle` is a live dispatchable handle of the driver.
    let slot = unsafe { loader_slot(handle) };
    assert_eq!(
        slot & 0xffff_ffff,
        ICD_LOADER_MAGIC,
        "{what}: the loader slot must hold ICD_LOADER_MAGIC, found {slot:#x}"
    );
}

#[test]
fn negotiates_interface_versions() {
    let icd = Icd::open();
    assert_eq!(icd.negotiate(7), (vk::Result::SUCCESS, 7));
    assert_eq!(icd.negotiate(5), (vk::Result::SUCCESS, 5));
    assert_eq!(icd.negotiate(9), (vk::Result::SUCCESS, 7), "capped at 7");
}

#[test]
fn global_proc_addrs() {
    let icd = Icd::open();
    icd.negotiate(7);
    let null = vk::Instance::null();
    assert!(icd.gipa(null, c"vkCreateInstance").is_some());
    assert!(
        icd.gipa(null, c"vkEnumerateInstanceExtensionProperties")
            .is_some()
    );
    assert!(
        icd.gipa(null, c"vk_icdNegotiateLoaderICDInterfaceVersion")
            .is_some()
    );
    assert!(
        icd.gipa(null, c"vkGetPhysicalDeviceProperties").is_none(),
        "instance-level commands need an instance"
    );
    assert!(icd.gipa(null, c"vkDoesNotExist").is_none());
}

#[test]
fn copy_buffer_end_to_end_without_the_loader() {
    let icd = Icd::open();
    assert_eq!(icd.negotiate(7), (vk::Result::SUCCESS, 7));
    let null = vk::Instance::null();

    // SAFETY: every pointer comes from the driver's own proc-addr functions
    // and is called with its Vulkan signature; all handles are used while
    // live and destroyed in reverse order of creation.
    unsafe {
        // Instance.
        let create_instance = load!(icd.gipa, null, "vkCreateInstance", vk::PFN_vkCreateInstance);
        let app = vk::ApplicationInfo {
            api_version: API_1_3,
            application_name: c"direct-icd".as_ptr(),
            ..Default::default()
        };
        let info = vk::InstanceCreateInfo {
            application_info: &app,
            ..Default::default()
        };
        let mut instance = vk::Instance::null();
        let r = create_instance(&info, ptr::null(), &mut instance);
        assert_eq!(r, vk::Result::SUCCESS, "vkCreateInstance");
        assert_magic("VkInstance", instance.as_raw());

        let gipa = icd.gipa;
        let enumerate = load!(
            gipa,
            instance,
            "vkEnumeratePhysicalDevices",
            vk::PFN_vkEnumeratePhysicalDevices
        );
        let get_props = load!(
            gipa,
            instance,
            "vkGetPhysicalDeviceProperties",
            vk::PFN_vkGetPhysicalDeviceProperties
        );
        let get_mem_props = load!(
            gipa,
            instance,
            "vkGetPhysicalDeviceMemoryProperties",
            vk::PFN_vkGetPhysicalDeviceMemoryProperties
        );
        let create_device = load!(gipa, instance, "vkCreateDevice", vk::PFN_vkCreateDevice);
        let gdpa = load!(
            gipa,
            instance,
            "vkGetDeviceProcAddr",
            vk::PFN_vkGetDeviceProcAddr
        );
        let destroy_instance = load!(
            gipa,
            instance,
            "vkDestroyInstance",
            vk::PFN_vkDestroyInstance
        );

        // Physical-device proc addrs: physical-device commands only.
        assert!((icd.gpdpa)(instance, c"vkGetPhysicalDeviceProperties".as_ptr()).is_some());
        assert!(
            (icd.gpdpa)(instance, c"vkCreateBuffer".as_ptr()).is_none(),
            "vk_icdGetPhysicalDeviceProcAddr must not return device commands"
        );

        let mut count = 0;
        assert_eq!(
            enumerate(instance, &mut count, ptr::null_mut()),
            vk::Result::SUCCESS
        );
        assert_eq!(count, 1);
        let mut pd = vk::PhysicalDevice::null();
        assert_eq!(
            enumerate(instance, &mut count, &mut pd),
            vk::Result::SUCCESS
        );
        assert_magic("VkPhysicalDevice", pd.as_raw());
        let mut props = vk::PhysicalDeviceProperties::default();
        get_props(pd, &mut props);
        assert!(
            device_name(&props).starts_with("Tessera"),
            "{}",
            device_name(&props)
        );
        let mut mem_props = vk::PhysicalDeviceMemoryProperties::default();
        get_mem_props(pd, &mut mem_props);
        let memory_type = find_memory_type(
            &mem_props,
            !0,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        )
        .expect("host-visible memory type");

        // Device and queue.
        let priority = 1.0f32;
        let queue_info = vk::DeviceQueueCreateInfo {
            queue_family_index: 0,
            queue_count: 1,
            queue_priorities: &priority,
            ..Default::default()
        };
        let device_info = vk::DeviceCreateInfo {
            queue_create_info_count: 1,
            queue_create_infos: &queue_info,
            ..Default::default()
        };
        let mut device = vk::Device::null();
        assert_eq!(
            create_device(pd, &device_info, ptr::null(), &mut device),
            vk::Result::SUCCESS,
            "vkCreateDevice"
        );
        assert_magic("VkDevice", device.as_raw());

        assert!(gdpa(device, c"vkDoesNotExist".as_ptr()).is_none());
        let get_queue = load!(gdpa, device, "vkGetDeviceQueue", vk::PFN_vkGetDeviceQueue);
        let create_buffer = load!(gdpa, device, "vkCreateBuffer", vk::PFN_vkCreateBuffer);
        let destroy_buffer = load!(gdpa, device, "vkDestroyBuffer", vk::PFN_vkDestroyBuffer);
        let get_reqs = load!(
            gdpa,
            device,
            "vkGetBufferMemoryRequirements",
            vk::PFN_vkGetBufferMemoryRequirements
        );
        let allocate = load!(gdpa, device, "vkAllocateMemory", vk::PFN_vkAllocateMemory);
        let free = load!(gdpa, device, "vkFreeMemory", vk::PFN_vkFreeMemory);
        let bind = load!(
            gdpa,
            device,
            "vkBindBufferMemory",
            vk::PFN_vkBindBufferMemory
        );
        let map = load!(gdpa, device, "vkMapMemory", vk::PFN_vkMapMemory);
        let unmap = load!(gdpa, device, "vkUnmapMemory", vk::PFN_vkUnmapMemory);
        let create_pool = load!(
            gdpa,
            device,
            "vkCreateCommandPool",
            vk::PFN_vkCreateCommandPool
        );
        let destroy_pool = load!(
            gdpa,
            device,
            "vkDestroyCommandPool",
            vk::PFN_vkDestroyCommandPool
        );
        let allocate_cbs = load!(
            gdpa,
            device,
            "vkAllocateCommandBuffers",
            vk::PFN_vkAllocateCommandBuffers
        );
        let begin = load!(
            gdpa,
            device,
            "vkBeginCommandBuffer",
            vk::PFN_vkBeginCommandBuffer
        );
        let end = load!(
            gdpa,
            device,
            "vkEndCommandBuffer",
            vk::PFN_vkEndCommandBuffer
        );
        let cmd_copy = load!(gdpa, device, "vkCmdCopyBuffer", vk::PFN_vkCmdCopyBuffer);
        let create_fence = load!(gdpa, device, "vkCreateFence", vk::PFN_vkCreateFence);
        let destroy_fence = load!(gdpa, device, "vkDestroyFence", vk::PFN_vkDestroyFence);
        let submit = load!(gdpa, device, "vkQueueSubmit", vk::PFN_vkQueueSubmit);
        let wait = load!(gdpa, device, "vkWaitForFences", vk::PFN_vkWaitForFences);
        let destroy_device = load!(gdpa, device, "vkDestroyDevice", vk::PFN_vkDestroyDevice);

        let mut queue = vk::Queue::null();
        get_queue(device, 0, 0, &mut queue);
        assert_magic("VkQueue", queue.as_raw());

        // Two 256-byte buffers in one allocation.
        let size = 256u64;
        let buffer_info = vk::BufferCreateInfo {
            size,
            usage: vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
            sharing_mode: vk::SharingMode::EXCLUSIVE,
            ..Default::default()
        };
        let mut src = vk::Buffer::null();
        let mut dst = vk::Buffer::null();
        assert_eq!(
            create_buffer(device, &buffer_info, ptr::null(), &mut src),
            vk::Result::SUCCESS
        );
        assert_eq!(
            create_buffer(device, &buffer_info, ptr::null(), &mut dst),
            vk::Result::SUCCESS
        );
        let mut reqs = vk::MemoryRequirements::default();
        get_reqs(device, src, &mut reqs);
        assert!(reqs.memory_type_bits & (1 << memory_type) != 0);
        let stride = reqs.size.next_multiple_of(reqs.alignment);
        let alloc_info = vk::MemoryAllocateInfo {
            allocation_size: 2 * stride,
            memory_type_index: memory_type,
            ..Default::default()
        };
        let mut memory = vk::DeviceMemory::null();
        assert_eq!(
            allocate(device, &alloc_info, ptr::null(), &mut memory),
            vk::Result::SUCCESS
        );
        assert_eq!(bind(device, src, memory, 0), vk::Result::SUCCESS);
        assert_eq!(bind(device, dst, memory, stride), vk::Result::SUCCESS);
        let mut mapped = ptr::null_mut();
        assert_eq!(
            map(
                device,
                memory,
                0,
                vk::WHOLE_SIZE,
                vk::MemoryMapFlags::empty(),
                &mut mapped
            ),
            vk::Result::SUCCESS
        );
        let bytes = mapped.cast::<u8>();
        for i in 0..size as usize {
            bytes.add(i).write(i as u8 ^ 0x5A);
            bytes.add(stride as usize + i).write(0);
        }

        // Record and submit one copy.
        let pool_info = vk::CommandPoolCreateInfo {
            queue_family_index: 0,
            ..Default::default()
        };
        let mut pool = vk::CommandPool::null();
        assert_eq!(
            create_pool(device, &pool_info, ptr::null(), &mut pool),
            vk::Result::SUCCESS
        );
        let cb_info = vk::CommandBufferAllocateInfo {
            command_pool: pool,
            level: vk::CommandBufferLevel::PRIMARY,
            command_buffer_count: 1,
            ..Default::default()
        };
        let mut cb = vk::CommandBuffer::null();
        assert_eq!(allocate_cbs(device, &cb_info, &mut cb), vk::Result::SUCCESS);
        assert_magic("VkCommandBuffer", cb.as_raw());
        let begin_info = vk::CommandBufferBeginInfo::default();
        assert_eq!(begin(cb, &begin_info), vk::Result::SUCCESS);
        let region = vk::BufferCopy {
            src_offset: 0,
            dst_offset: 0,
            size,
        };
        cmd_copy(cb, src, dst, 1, &region);
        assert_eq!(end(cb), vk::Result::SUCCESS);
        let fence_info = vk::FenceCreateInfo::default();
        let mut fence = vk::Fence::null();
        assert_eq!(
            create_fence(device, &fence_info, ptr::null(), &mut fence),
            vk::Result::SUCCESS
        );
        let submit_info = vk::SubmitInfo {
            command_buffer_count: 1,
            command_buffers: &cb,
            ..Default::default()
        };
        assert_eq!(submit(queue, 1, &submit_info, fence), vk::Result::SUCCESS);
        assert_eq!(
            wait(device, 1, &fence, vk::TRUE, WAIT_TIMEOUT_NS),
            vk::Result::SUCCESS
        );
        for i in 0..size as usize {
            assert_eq!(*bytes.add(stride as usize + i), i as u8 ^ 0x5A, "byte {i}");
        }

        // Tear down.
        destroy_fence(device, fence, ptr::null());
        destroy_pool(device, pool, ptr::null());
        unmap(device, memory);
        destroy_buffer(device, src, ptr::null());
        destroy_buffer(device, dst, ptr::null());
        free(device, memory, ptr::null());
        destroy_device(device, ptr::null());
        destroy_instance(instance, ptr::null());
    }
}
