//! Device memory: allocation, mapping (1 and 2), flush/invalidate,
//! commitment, memory requirements, binding and buffer device addresses.

use tessera_e2e::*;
use vulkanalia::prelude::v1_3::*;
use vulkanalia::vk::{
    KhrBufferDeviceAddressExtensionDeviceCommands, KhrMapMemory2ExtensionDeviceCommands,
};

#[test]
fn allocate_map_write_remap_read_free() {
    let ctx = Ctx::new();
    let size = 64 * 1024u64;
    let info = vk::MemoryAllocateInfo::builder()
        .allocation_size(size)
        .memory_type_index(ctx.memory_type);
    // SAFETY: valid allocation, mappings used only within their bounds, and
    // the memory is freed after it is unmapped.
    unsafe {
        let memory = ctx.device.allocate_memory(&info, None).expect("allocate");
        assert!(!memory.is_null());
        // Strictly, VUID-vkGetDeviceMemoryCommitment-memory-00690 limits this
        // query to LAZILY_ALLOCATED memory; Tessera answers it for all
        // memory (everything is committed up front) and reports the size.
        assert_eq!(ctx.device.get_device_memory_commitment(memory), size);

        let ptr = ctx
            .device
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .expect("map whole")
            .cast::<u8>();
        assert!(!ptr.is_null());
        for i in 0..size as usize {
            ptr.add(i).write((i % 251) as u8);
        }
        let range = vk::MappedMemoryRange::builder()
            .memory(memory)
            .offset(0)
            .size(vk::WHOLE_SIZE);
        ctx.device
            .flush_mapped_memory_ranges(&[range])
            .expect("flush");
        ctx.device
            .invalidate_mapped_memory_ranges(&[range])
            .expect("invalidate");
        ctx.device.unmap_memory(memory);

        // Map again at an offset: the same bytes are still there.
        let offset = 4096u64;
        let ptr = ctx
            .device
            .map_memory(memory, offset, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .expect("map at offset");
        let bytes = read_mapped(ptr, (size - offset) as usize);
        for (i, b) in bytes.iter().enumerate() {
            let expected = ((i + offset as usize) % 251) as u8;
            assert_eq!(*b, expected, "byte {} after remap", i + offset as usize);
        }
        ctx.device.unmap_memory(memory);

        // A bounded mapping also works.
        let ptr = ctx
            .device
            .map_memory(memory, 256, 512, vk::MemoryMapFlags::empty())
            .expect("map 512 bytes at 256");
        assert_eq!(read_mapped(ptr, 1)[0], (256 % 251) as u8);
        ctx.device.unmap_memory(memory);

        ctx.device.free_memory(memory, None);
    }
}

#[test]
fn map_memory2_khr_round_trip() {
    let ctx = Ctx::new();
    assert!(
        ctx.enabled_extensions
            .iter()
            .any(|e| e == "VK_KHR_map_memory2"),
        "VK_KHR_map_memory2 not advertised"
    );
    let memory = ctx.memory(4096);
    let map = vk::MemoryMapInfo::builder()
        .memory(memory)
        .offset(0)
        .size(vk::WHOLE_SIZE);
    let unmap = vk::MemoryUnmapInfo::builder().memory(memory);
    // SAFETY: the mapping is used within its 4096 bytes and unmapped before reuse.
    unsafe {
        let ptr = ctx.device.map_memory2_khr(&map).expect("vkMapMemory2KHR");
        assert!(!ptr.is_null());
        ptr.cast::<u32>().write(0x1234_5678);
        ctx.device
            .unmap_memory2_khr(&unmap)
            .expect("vkUnmapMemory2KHR");

        let ptr = ctx
            .device
            .map_memory(memory, 0, 4, vk::MemoryMapFlags::empty())
            .expect("vkMapMemory after vkUnmapMemory2KHR");
        assert_eq!(ptr.cast::<u32>().read(), 0x1234_5678);
        ctx.device.unmap_memory(memory);
    }
}

#[test]
fn memory_requirements_agree_across_queries() {
    let ctx = Ctx::new();
    let size = 1000u64;
    let info = vk::BufferCreateInfo::builder()
        .size(size)
        .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::STORAGE_BUFFER)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    let buffer = ctx.buffer(
        size,
        vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::STORAGE_BUFFER,
    );
    let mut dedicated = vk::MemoryDedicatedRequirements::default();
    let mut reqs2 = vk::MemoryRequirements2::builder().push_next(&mut dedicated);
    let mut reqs3 = vk::MemoryRequirements2::default();
    let query2 = vk::BufferMemoryRequirementsInfo2::builder().buffer(buffer);
    let query3 = vk::DeviceBufferMemoryRequirements::builder().create_info(&info);
    // SAFETY: live buffer, valid output chains.
    let reqs1 = unsafe {
        ctx.device
            .get_buffer_memory_requirements2(&query2, &mut reqs2);
        ctx.device
            .get_device_buffer_memory_requirements(&query3, &mut reqs3);
        ctx.device.get_buffer_memory_requirements(buffer)
    };
    assert!(reqs1.size >= size, "size {}", reqs1.size);
    assert!(
        reqs1.alignment.is_power_of_two(),
        "alignment {}",
        reqs1.alignment
    );
    assert!(reqs1.alignment >= 16, "alignment {}", reqs1.alignment);
    assert_ne!(reqs1.memory_type_bits, 0);
    assert!(
        reqs1.memory_type_bits & (1 << ctx.memory_type) != 0,
        "host-visible type allowed"
    );
    assert_eq!(
        reqs2.memory_requirements, reqs1,
        "vkGetBufferMemoryRequirements2"
    );
    assert_eq!(
        reqs3.memory_requirements, reqs1,
        "vkGetDeviceBufferMemoryRequirements"
    );
    assert_eq!(dedicated.requires_dedicated_allocation, vk::FALSE);
}

#[test]
fn bind_buffers_at_aligned_offsets_and_copy_between_them() {
    let ctx = Ctx::new();
    let size = 256u64;
    let a = ctx.transfer_buffer(size);
    let b = ctx.transfer_buffer(size);
    let c = ctx.transfer_buffer(size);
    // SAFETY: live buffer.
    let reqs = unsafe { ctx.device.get_buffer_memory_requirements(a) };
    let stride = reqs.size.next_multiple_of(reqs.alignment);
    let memory = ctx.memory(stride * 3);
    // SAFETY: each offset is a multiple of the alignment and in range.
    unsafe {
        ctx.device
            .bind_buffer_memory(a, memory, 0)
            .expect("vkBindBufferMemory at 0");
        let infos = [
            vk::BindBufferMemoryInfo::builder()
                .buffer(b)
                .memory(memory)
                .memory_offset(stride),
            vk::BindBufferMemoryInfo::builder()
                .buffer(c)
                .memory(memory)
                .memory_offset(stride * 2),
        ];
        ctx.device
            .bind_buffer_memory2(&infos)
            .expect("vkBindBufferMemory2 at non-zero offsets");
    }
    // SAFETY: host-visible memory, not mapped elsewhere.
    let ptr = unsafe {
        ctx.device
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
    }
    .expect("map")
    .cast::<u8>();
    let pattern: Vec<u8> = (0..size).map(|i| (i * 7 + 3) as u8).collect();
    // SAFETY: `a` occupies the first `size` bytes of the mapping.
    unsafe { std::ptr::copy_nonoverlapping(pattern.as_ptr(), ptr, pattern.len()) };
    ctx.run(|device, cb| {
        let region = vk::BufferCopy::builder().size(size);
        // SAFETY: recording into a command buffer in the recording state.
        unsafe {
            device.cmd_copy_buffer(cb, a, b, &[region]);
            device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[vk::MemoryBarrier::builder()
                    .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .dst_access_mask(vk::AccessFlags::TRANSFER_READ)],
                &[] as &[vk::BufferMemoryBarrier],
                &[] as &[vk::ImageMemoryBarrier],
            );
            device.cmd_copy_buffer(cb, b, c, &[region]);
        }
    });
    // SAFETY: the work finished; the mapping covers 3 * stride bytes.
    let (in_b, in_c) = unsafe {
        (
            read_mapped(ptr.add(stride as usize).cast(), size as usize),
            read_mapped(ptr.add(2 * stride as usize).cast(), size as usize),
        )
    };
    assert_eq!(in_b, pattern, "buffer bound at offset {stride}");
    assert_eq!(in_c, pattern, "buffer bound at offset {}", 2 * stride);
}

#[test]
fn buffer_device_addresses_follow_memory_offsets() {
    let ctx = Ctx::new();
    assert!(ctx.features.buffer_device_address, "bufferDeviceAddress");
    let usage = vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
        | vk::BufferUsageFlags::STORAGE_BUFFER
        | vk::BufferUsageFlags::TRANSFER_DST;
    let a = ctx.buffer(256, usage);
    let b = ctx.buffer(256, usage);
    // SAFETY: live buffer.
    let reqs = unsafe { ctx.device.get_buffer_memory_requirements(a) };
    assert!(
        256 % reqs.alignment == 0,
        "alignment {} does not divide 256",
        reqs.alignment
    );
    let memory = ctx.memory_with(1024, vk::MemoryAllocateFlags::DEVICE_ADDRESS);
    // SAFETY: aligned offsets within the allocation.
    unsafe {
        ctx.device.bind_buffer_memory(a, memory, 0).expect("bind a");
        ctx.device
            .bind_buffer_memory(b, memory, 256)
            .expect("bind b");
    }
    let addr_a = ctx.device_address(a);
    let addr_b = ctx.device_address(b);
    assert_ne!(addr_a, 0, "device address of a");
    assert_ne!(addr_b, 0, "device address of b");
    assert_eq!(
        addr_b.wrapping_sub(addr_a),
        256,
        "{addr_a:#x} vs {addr_b:#x}"
    );

    let info = vk::BufferDeviceAddressInfo::builder().buffer(a);
    // SAFETY: as above, through the KHR alias.
    let addr_khr = unsafe { ctx.device.get_buffer_device_address_khr(&info) };
    assert_eq!(addr_khr, addr_a, "vkGetBufferDeviceAddressKHR agrees");
}

/// Freed memory goes back to the heap: two allocations of 60% of the heap, one freed before the
/// other, both succeed (and a third while the second is live does not).
#[test]
fn freed_memory_returns_to_the_heap() {
    let ctx = Ctx::new();
    let heap = ctx.memory_properties.memory_heaps[0].size;
    let size = heap / 10 * 6;
    let info = vk::MemoryAllocateInfo::builder()
        .allocation_size(size)
        .memory_type_index(ctx.memory_type);
    // SAFETY: valid allocations, never mapped or bound; each is freed once. Large allocations
    // are lazily zeroed pages, so nothing is touched.
    unsafe {
        let first = ctx.device.allocate_memory(&info, None).expect("first");
        ctx.device.free_memory(first, None);
        let second = ctx
            .device
            .allocate_memory(&info, None)
            .expect("second, after the free");
        assert_eq!(
            ctx.device.allocate_memory(&info, None),
            Err(vk::ErrorCode::OUT_OF_DEVICE_MEMORY),
            "the heap is 60% used"
        );
        ctx.device.free_memory(second, None);
    }
}
