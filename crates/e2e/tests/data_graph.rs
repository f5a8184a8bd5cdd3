//! `VK_ARM_data_graph` end to end, through the Khronos loader: discovery (extensions, features,
//! the queue family's DATA_GRAPH bit and its TOSA.001000.1 operation set), data graph pipelines
//! from shader modules and from inline `VkShaderModuleCreateInfo`, graph constants, sessions and
//! their transient memory, `vkCmdDispatchDataGraphARM` on packed and strided tensors (every
//! output byte checked against a host model), pipeline properties, the pipeline cache (hits,
//! misses, `FAIL_ON_PIPELINE_COMPILE_REQUIRED`, creation feedback, serialized data, creation
//! from an identifier) and the errors bad input gets.
//!
//! Graph modules are assembled with `tessera_graph::testing::Asm` (the shapes and operators the
//! CTS `dEQP-VK.data_graph` cases use: MAX_POOL2D, two chained MAX_POOL2Ds with an intermediate
//! tensor, CONV2D with constant weights, ADD + SUB with two outputs), and a MATMUL whose
//! right-hand side is bound at dispatch.

use std::ffi::{CStr, CString, c_void};

use tessera_e2e::data_graph::*;
use tessera_e2e::*;
use tessera_graph::testing::{ADD, Asm, CONV2D, MATMUL, MAX_POOL2D, SUB};
use vulkanalia::prelude::v1_3::*;
use vulkanalia::vk::{
    ArmDataGraphExtensionDeviceCommands, ArmDataGraphExtensionInstanceCommands,
    ArmTensorsExtensionDeviceCommands,
};

// ------------------------------------------------------------------------------- graphs

/// `out[1,4,8,4] = max_pool2d 2×2/2 (x[1,8,16,4])` (i8), bindings x = 1, out = 0.
fn max_pool_module(chained: bool) -> Vec<u32> {
    let mut a = Asm::new();
    let i8t = a.int(8);
    let i32t = a.int(32);
    let tin = a.tensor(i8t, &[1, 8, 16, 4]);
    let tmid = a.tensor(i8t, &[1, 4, 8, 4]);
    let tout = a.tensor(i8t, &[1, 2, 4, 4]);
    let x = a.input(tin, 1);
    let kernel = a.i32s(&[2, 2]);
    let stride = a.i32s(&[2, 2]);
    let pad = a.i32s(&[0, 0, 0, 0]);
    let nan = a.scalar(i32t, 1);
    let p = a.op(tmid, MAX_POOL2D, &[kernel, stride, pad, nan, x]);
    if chained {
        let q = a.op(tout, MAX_POOL2D, &[kernel, stride, pad, nan, p]);
        a.output(q, tout, 0);
    } else {
        a.output(p, tmid, 0);
    }
    a.finish()
}

/// `out[1,4,8,4] = conv2d 2×2/2 (x[1,8,16,4] f32, w = constant 0 [4,2,2,4], b = constant 1 [4])`.
fn conv_module() -> Vec<u32> {
    let mut a = Asm::new();
    let f32t = a.float(32);
    let i32t = a.int(32);
    let tin = a.tensor(f32t, &[1, 8, 16, 4]);
    let tw = a.tensor(f32t, &[4, 2, 2, 4]);
    let tb = a.tensor(f32t, &[4]);
    let tout = a.tensor(f32t, &[1, 4, 8, 4]);
    let x = a.input(tin, 0);
    let w = a.graph_constant(tw, 0);
    let b = a.graph_constant(tb, 1);
    let pad = a.i32s(&[0, 0, 0, 0]);
    let stride = a.i32s(&[2, 2]);
    let dil = a.i32s(&[1, 1]);
    let acc = a.scalar(i32t, 3);
    let lb = a.boolc(false);
    let zp = a.one(f32t, 0);
    let c = a.op(tout, CONV2D, &[pad, stride, dil, acc, lb, x, w, b, zp, zp]);
    a.output(c, tout, 1);
    a.finish()
}

/// `out[1,24,40] = a[1,24,19] · b[1,19,40]` (f32); bindings a = 0, b = 1, out = 2.
fn matmul_module() -> Vec<u32> {
    let mut a = Asm::new();
    let f32t = a.float(32);
    let ta = a.tensor(f32t, &[1, 24, 19]);
    let tb = a.tensor(f32t, &[1, 19, 40]);
    let to = a.tensor(f32t, &[1, 24, 40]);
    let x = a.input(ta, 0);
    let y = a.input(tb, 1);
    let zp = a.one(f32t, 0);
    let m = a.op(to, MATMUL, &[x, y, zp, zp]);
    a.output(m, to, 2);
    a.finish()
}

/// `sum = x + y`, `diff = x - y` on i32 [1,8,16,4]; bindings x = 2, y = 3, sum = 1, diff = 0.
fn add_sub_module() -> Vec<u32> {
    let mut a = Asm::new();
    let i32t = a.int(32);
    let t = a.tensor(i32t, &[1, 8, 16, 4]);
    let x = a.input(t, 2);
    let y = a.input(t, 3);
    let s = a.op(t, ADD, &[x, y]);
    let d = a.op(t, SUB, &[x, y]);
    a.output(s, t, 1);
    a.output(d, t, 0);
    a.finish()
}

// ------------------------------------------------------------------------------- helpers

/// A bound tensor with its own host-visible memory, and a view.
struct BoundTensor {
    tensor: vk::TensorARM,
    view: vk::TensorViewARM,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    resource: Resource,
}

impl BoundTensor {
    fn new(ctx: &Ctx, r: &Resource) -> Self {
        let desc = r.description();
        let mut info = vk::TensorCreateInfoARM {
            description: &desc,
            sharing_mode: vk::SharingMode::EXCLUSIVE,
            ..Default::default()
        };
        // The 64-bit flags (32-bit in vulkanalia) zeroed whole.
        write_flags64(
            &mut info,
            std::mem::offset_of!(vk::TensorCreateInfoARM, flags),
            0,
        );
        // SAFETY: valid create info.
        let tensor =
            unsafe { ctx.device.create_tensor_arm(&info, None) }.expect("vkCreateTensorARM");
        let req_info = vk::TensorMemoryRequirementsInfoARM {
            tensor,
            ..Default::default()
        };
        let mut req = vk::MemoryRequirements2::default();
        // SAFETY: valid structs.
        unsafe {
            ctx.device
                .get_tensor_memory_requirements_arm(&req_info, &mut req)
        };
        let size = req.memory_requirements.size;
        let memory = ctx.memory(size);
        let bind = vk::BindTensorMemoryInfoARM {
            tensor,
            memory,
            memory_offset: 0,
            ..Default::default()
        };
        // SAFETY: valid bind info.
        unsafe { ctx.device.bind_tensor_memory_arm(&[bind]) }.expect("vkBindTensorMemoryARM");
        // SAFETY: host-visible memory of `size` bytes.
        let ptr = unsafe {
            ctx.device
                .map_memory(memory, 0, size, vk::MemoryMapFlags::empty())
        }
        .expect("vkMapMemory")
        .cast::<u8>();
        let mut view_info = vk::TensorViewCreateInfoARM {
            tensor,
            format: r.format,
            ..Default::default()
        };
        write_flags64(
            &mut view_info,
            std::mem::offset_of!(vk::TensorViewCreateInfoARM, flags),
            0,
        );
        // SAFETY: valid create info.
        let view = unsafe { ctx.device.create_tensor_view_arm(&view_info, None) }.expect("view");
        BoundTensor {
            tensor,
            view,
            memory,
            ptr,
            resource: r.clone(),
        }
    }

    /// Writes packed row-major `bytes` at the tensor's strides.
    fn write_packed(&self, bytes: &[u8]) {
        let elem = self.resource.elem() as usize;
        for (i, off) in element_offsets(&self.resource.dims, &self.resource.effective_strides())
            .iter()
            .enumerate()
        {
            // SAFETY: inside the mapped tensor memory.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes[i * elem..].as_ptr(),
                    self.ptr.add(*off as usize),
                    elem,
                )
            };
        }
    }

    /// Reads the tensor into packed row-major bytes.
    fn read_packed(&self) -> Vec<u8> {
        let elem = self.resource.elem() as usize;
        let offsets = element_offsets(&self.resource.dims, &self.resource.effective_strides());
        let mut out = vec![0u8; offsets.len() * elem];
        for (i, off) in offsets.iter().enumerate() {
            // SAFETY: inside the mapped tensor memory.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    self.ptr.add(*off as usize),
                    out[i * elem..].as_mut_ptr(),
                    elem,
                )
            };
        }
        out
    }

    fn destroy(self, ctx: &Ctx) {
        // SAFETY: no work uses them any more.
        unsafe {
            ctx.device.destroy_tensor_view_arm(self.view, None);
            ctx.device.destroy_tensor_arm(self.tensor, None);
            ctx.device.unmap_memory(self.memory);
        }
    }
}

fn create_one(ctx: &Ctx, g: &GraphInfo) -> vk::Pipeline {
    let (r, p) = create_pipelines(
        &ctx.device,
        vk::PipelineCache::null(),
        std::slice::from_ref(&g.info),
    );
    assert_eq!(r, vk::Result::SUCCESS, "vkCreateDataGraphPipelinesARM");
    p[0]
}

/// Runs `pipeline` on `tensors` (each at its resource's binding of set 0).
fn dispatch(
    ctx: &Ctx,
    pipeline: vk::Pipeline,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    session: vk::DataGraphPipelineSessionARM,
    tensors: &[&BoundTensor],
) {
    let views: Vec<(u32, vk::TensorViewARM)> = tensors
        .iter()
        .map(|t| (t.resource.binding, t.view))
        .collect();
    let (pool, set) = tensor_set(&ctx.device, set_layout, &views);
    ctx.run(|d, cb| record_dispatch(d, cb, pipeline, layout, set, session));
    // SAFETY: the work is done.
    unsafe { ctx.device.destroy_descriptor_pool(pool, None) };
}

/// The CTS ramp: element `i` is `start + i` in the element type (wrapping).
fn ramp_i8(n: usize, start: i32) -> Vec<u8> {
    (0..n).map(|i| (start + i as i32) as i8 as u8).collect()
}

/// Host max-pool 2×2/2 of NHWC i8.
fn host_max_pool(x: &[i8], h: usize, w: usize, c: usize) -> Vec<i8> {
    let (oh, ow) = (h / 2, w / 2);
    let mut out = vec![i8::MIN; oh * ow * c];
    for y in 0..oh {
        for xx in 0..ow {
            for ch in 0..c {
                let mut m = i8::MIN;
                for dy in 0..2 {
                    for dx in 0..2 {
                        m = m.max(x[((2 * y + dy) * w + 2 * xx + dx) * c + ch]);
                    }
                }
                out[(y * ow + xx) * c + ch] = m;
            }
        }
    }
    out
}

fn as_i8(b: &[u8]) -> Vec<i8> {
    b.iter().map(|&x| x as i8).collect()
}

// ------------------------------------------------------------------------------- discovery

#[test]
fn extensions_features_and_queue_family_are_reported() {
    let entry = entry();
    let instance = create_instance(&entry, &[]).expect("vkCreateInstance");
    let pd = tessera_physical_device(&instance);
    let exts = device_extension_names(&instance, pd);
    for e in [
        "VK_ARM_data_graph",
        "VK_KHR_maintenance5",
        "VK_KHR_deferred_host_operations",
        "VK_ARM_tensors",
    ] {
        assert!(exts.iter().any(|x| x == e), "{e} is advertised");
    }
    let mut graph = vk::PhysicalDeviceDataGraphFeaturesARM::default();
    let mut m5 = vk::PhysicalDeviceMaintenance5Features::default();
    let mut f = vk::PhysicalDeviceFeatures2::builder()
        .push_next(&mut graph)
        .push_next(&mut m5);
    // SAFETY: valid output chain.
    unsafe { instance.get_physical_device_features2(pd, &mut f) };
    assert_eq!(graph.data_graph, vk::TRUE);
    assert_eq!(graph.data_graph_shader_module, vk::TRUE);
    assert_eq!(graph.data_graph_specialization_constants, vk::TRUE);
    assert_eq!(graph.data_graph_update_after_bind, vk::TRUE);
    assert_eq!(graph.data_graph_descriptor_buffer, vk::FALSE);
    assert_eq!(m5.maintenance5, vk::TRUE);
    // SAFETY: `pd` belongs to `instance`.
    let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
    assert!(
        families[0]
            .queue_flags
            .contains(vk::QueueFlags::COMPUTE | vk::QueueFlags::DATA_GRAPH_ARM)
    );
    // SAFETY: valid family index.
    let ops = unsafe { instance.get_physical_device_queue_family_data_graph_properties_arm(pd, 0) }
        .unwrap();
    assert_eq!(ops.len(), 1);
    assert_eq!(
        ops[0].engine.type_,
        vk::PhysicalDeviceDataGraphProcessingEngineTypeARM::DEFAULT
    );
    assert_eq!(ops[0].engine.is_foreign, vk::FALSE);
    assert_eq!(
        ops[0].operation.operation_type,
        vk::PhysicalDeviceDataGraphOperationTypeARM::SPIRV_EXTENDED_INSTRUCTION_SET
    );
    assert_eq!(ops[0].operation.name.to_string_lossy(), "TOSA.001000.1");
    assert_eq!(ops[0].operation.version, 0);
    let info = vk::PhysicalDeviceQueueFamilyDataGraphProcessingEngineInfoARM {
        queue_family_index: 0,
        engine_type: vk::PhysicalDeviceDataGraphProcessingEngineTypeARM::DEFAULT,
        ..Default::default()
    };
    let mut props = vk::QueueFamilyDataGraphProcessingEnginePropertiesARM::default();
    // SAFETY: valid structs.
    unsafe {
        instance.get_physical_device_queue_family_data_graph_processing_engine_properties_arm(
            pd, &info, &mut props,
        )
    };
    assert!(props.foreign_memory_handle_types.is_empty());
    // SAFETY: no children are alive.
    unsafe { instance.destroy_instance(None) };
}

/// `VkDataGraphTOSANameQualityARM` (VK_ARM_data_graph_instruction_set_tosa, which vulkanalia
/// does not have yet; declared from the registry).
#[repr(C)]
#[derive(Clone, Copy)]
struct TosaNameQuality {
    name: [std::ffi::c_char; 128],
    quality_flags: u32,
}

/// `VkQueueFamilyDataGraphTOSAPropertiesARM`.
#[repr(C)]
struct TosaProperties {
    s_type: vk::StructureType,
    next: *mut c_void,
    profile_count: u32,
    profiles: *const TosaNameQuality,
    extension_count: u32,
    extensions: *const TosaNameQuality,
    level: i32,
}

type GetEngineOperationProperties = unsafe extern "system" fn(
    vk::PhysicalDevice,
    u32,
    *const vk::QueueFamilyDataGraphPropertiesARM,
    *mut vk::BaseOutStructure,
) -> vk::Result;

#[test]
fn the_tosa_instruction_set_reports_its_profiles_extensions_and_level() {
    let entry = entry();
    let instance = create_instance(&entry, &[]).expect("vkCreateInstance");
    let pd = tessera_physical_device(&instance);
    let exts = device_extension_names(&instance, pd);
    assert!(
        exts.iter()
            .any(|e| e == "VK_ARM_data_graph_instruction_set_tosa")
    );
    let f = instance_proc_addr(
        instance.handle(),
        c"vkGetPhysicalDeviceQueueFamilyDataGraphEngineOperationPropertiesARM",
    )
    .expect("the TOSA query resolves");
    // SAFETY: the command's registry signature.
    let query: GetEngineOperationProperties = unsafe { std::mem::transmute(f) };
    // SAFETY: valid family index.
    let pairs =
        unsafe { instance.get_physical_device_queue_family_data_graph_properties_arm(pd, 0) }
            .unwrap();
    // vulkanalia leaves the returned structs' headers as the driver found them (uninitialised).
    let mut pair = pairs[0];
    pair.s_type = vk::StructureType::QUEUE_FAMILY_DATA_GRAPH_PROPERTIES_ARM;
    pair.next = std::ptr::null_mut();
    let mut props = TosaProperties {
        s_type: vk::StructureType::from_raw(1_000_508_000),
        next: std::ptr::null_mut(),
        profile_count: 0,
        profiles: std::ptr::null(),
        extension_count: 0,
        extensions: std::ptr::null(),
        level: 0,
    };
    // SAFETY: valid arguments; `props` is the struct its sType names.
    let r = unsafe { query(pd, 0, &pair, (&mut props as *mut TosaProperties).cast()) };
    assert_eq!(r, vk::Result::SUCCESS);
    assert_eq!(props.level, 1, "VK_DATA_GRAPH_TOSA_LEVEL_8K_ARM");
    let names = |p: *const TosaNameQuality, n: u32| -> Vec<(String, u32)> {
        // SAFETY: the driver's static array of `n` entries.
        unsafe { std::slice::from_raw_parts(p, n as usize) }
            .iter()
            .map(|e| {
                // SAFETY: NUL-terminated within its 128 bytes.
                let s = unsafe { CStr::from_ptr(e.name.as_ptr()) };
                (s.to_string_lossy().into_owned(), e.quality_flags)
            })
            .collect()
    };
    let profiles = names(props.profiles, props.profile_count);
    let extensions = names(props.extensions, props.extension_count);
    let profile_names: Vec<&str> = profiles.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(profile_names, ["PRO-INT", "PRO-FP"]);
    let extension_names: Vec<&str> = extensions.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        extension_names,
        [
            "EXT-INT16",
            "EXT-BF16",
            "EXT-FP8E4M3",
            "EXT-FP8E5M2",
            "EXT-FFT",
            "EXT-DOUBLEROUND",
            "EXT-INEXACTROUND"
        ]
    );
    // Each entry is CONFORMANT (the whole TOSA conformance suite passes), never ACCELERATED,
    // EXPERIMENTAL or DEPRECATED.
    for (name, q) in profiles.iter().chain(&extensions) {
        assert_eq!(*q, 2, "{name}: quality {q:#x}");
    }
    // The wrong output struct, or an operation set it does not report: errors.
    let mut wrong = vk::QueueFamilyDataGraphProcessingEnginePropertiesARM::default();
    // SAFETY: a valid (but wrong) struct.
    let r = unsafe {
        query(
            pd,
            0,
            &pairs[0],
            &mut wrong as *mut _ as *mut vk::BaseOutStructure,
        )
    };
    assert_eq!(r, vk::Result::ERROR_VALIDATION_FAILED);
    let mut other = pair;
    other.operation.name = Default::default();
    // SAFETY: valid arguments.
    let r = unsafe { query(pd, 0, &other, (&mut props as *mut TosaProperties).cast()) };
    assert_eq!(r, vk::Result::ERROR_VALIDATION_FAILED);
    // SAFETY: no children are alive.
    unsafe { instance.destroy_instance(None) };
}

// ------------------------------------------------------------------------------- dispatch

#[test]
fn max_pool_runs_on_strided_tensors_without_a_session_memory() {
    let ctx = Ctx::with_data_graph();
    let input = Resource::new(1, vk::Format::R8_SINT, &[1, 8, 16, 4]).strided(3);
    let output = Resource::new(0, vk::Format::R8_SINT, &[1, 4, 8, 4]).strided(5);
    let (set_layout, layout) = layouts(&ctx.device, &[output.clone(), input.clone()]);
    let g = GraphInfo::new(
        &ctx.device,
        &max_pool_module(false),
        layout,
        &[input.clone(), output.clone()],
        &[],
    );
    let pipeline = create_one(&ctx, &g);
    let (session, reqs) = session(&ctx.device, pipeline, |r| ctx.memory(r.size));
    assert!(
        reqs.is_empty(),
        "no intermediate tensor, no bind point: {reqs:?}"
    );
    let x = BoundTensor::new(&ctx, &input);
    let o = BoundTensor::new(&ctx, &output);
    let data = ramp_i8(8 * 16 * 4, 0);
    x.write_packed(&data);
    dispatch(&ctx, pipeline, set_layout, layout, session, &[&x, &o]);
    assert_eq!(
        as_i8(&o.read_packed()),
        host_max_pool(&as_i8(&data), 8, 16, 4)
    );
    x.destroy(&ctx);
    o.destroy(&ctx);
}

#[test]
fn chained_max_pools_need_and_use_transient_memory() {
    let ctx = Ctx::with_data_graph();
    let input = Resource::new(1, vk::Format::R8_SINT, &[1, 8, 16, 4]);
    let output = Resource::new(0, vk::Format::R8_SINT, &[1, 2, 4, 4]);
    let (set_layout, layout) = layouts(&ctx.device, &[output.clone(), input.clone()]);
    let g = GraphInfo::new(
        &ctx.device,
        &max_pool_module(true),
        layout,
        &[input.clone(), output.clone()],
        &[],
    );
    let pipeline = create_one(&ctx, &g);
    let (session, reqs) = session(&ctx.device, pipeline, |r| ctx.memory(r.size));
    assert_eq!(reqs.len(), 1);
    assert_eq!(
        reqs[0].0.bind_point,
        vk::DataGraphPipelineSessionBindPointARM::TRANSIENT
    );
    assert_eq!(
        reqs[0].0.bind_point_type,
        vk::DataGraphPipelineSessionBindPointTypeARM::MEMORY
    );
    assert_eq!(reqs[0].0.num_objects, 1);
    // The intermediate [1,4,8,4] i8 tensor: 128 bytes.
    assert_eq!(reqs[0].1, 128);
    let x = BoundTensor::new(&ctx, &input);
    let o = BoundTensor::new(&ctx, &output);
    let data = ramp_i8(8 * 16 * 4, 0);
    x.write_packed(&data);
    // The transient memory starts as a pattern the intermediate tensor cannot hold.
    let memory = reqs[0].2;
    // SAFETY: host-visible memory of 128 bytes, not mapped.
    let transient = unsafe {
        ctx.device
            .map_memory(memory, 0, 128, vk::MemoryMapFlags::empty())
    }
    .expect("vkMapMemory")
    .cast::<u8>();
    // SAFETY: 128 mapped bytes, no dispatch running.
    unsafe { std::ptr::write_bytes(transient, 0xa5, 128) };
    dispatch(&ctx, pipeline, set_layout, layout, session, &[&x, &o]);
    let once = host_max_pool(&as_i8(&data), 8, 16, 4);
    assert_eq!(as_i8(&o.read_packed()), host_max_pool(&once, 4, 8, 4));
    // The first pool's result went through the session's memory (the plan's arena).
    // SAFETY: 128 mapped bytes; the dispatch finished.
    let seen = unsafe { std::slice::from_raw_parts(transient, 128) };
    assert_eq!(
        as_i8(seen),
        once,
        "the intermediate tensor lives in the TRANSIENT memory"
    );
    // SAFETY: mapped above.
    unsafe { ctx.device.unmap_memory(memory) };
    x.destroy(&ctx);
    o.destroy(&ctx);
}

#[test]
fn matmul_packs_its_dispatch_operand_in_the_transient_memory() {
    let ctx = Ctx::with_data_graph();
    let ra = Resource::new(0, vk::Format::R32_SFLOAT, &[1, 24, 19]);
    let rb = Resource::new(1, vk::Format::R32_SFLOAT, &[1, 19, 40]).strided(2);
    let ro = Resource::new(2, vk::Format::R32_SFLOAT, &[1, 24, 40]);
    let all = [ra.clone(), rb.clone(), ro.clone()];
    let (set_layout, layout) = layouts(&ctx.device, &all);
    let g = GraphInfo::new(&ctx.device, &matmul_module(), layout, &all, &[]);
    let pipeline = create_one(&ctx, &g);
    let (session, reqs) = session(&ctx.device, pipeline, |r| ctx.memory(r.size));
    // No intermediate tensor, but the GEMM packs B (19 × 40, in panels of 16 or 32 columns)
    // at dispatch: that scratch memory is the session's, not the dispatch's.
    assert_eq!(reqs.len(), 1, "{reqs:?}");
    assert_eq!(
        reqs[0].0.bind_point,
        vk::DataGraphPipelineSessionBindPointARM::TRANSIENT
    );
    assert!(reqs[0].1 >= 19 * 48 * 4, "{}", reqs[0].1);
    // Whatever the memory held before must not matter.
    let (memory, size) = (reqs[0].2, reqs[0].1);
    // SAFETY: host-visible memory of `size` bytes, not mapped.
    let transient = unsafe {
        ctx.device
            .map_memory(memory, 0, size, vk::MemoryMapFlags::empty())
    }
    .expect("vkMapMemory")
    .cast::<u8>();
    // SAFETY: `size` mapped bytes, no dispatch running.
    unsafe { std::ptr::write_bytes(transient, 0xa5, size as usize) };
    // SAFETY: mapped above.
    unsafe { ctx.device.unmap_memory(memory) };
    let t: Vec<BoundTensor> = all.iter().map(|r| BoundTensor::new(&ctx, r)).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let xa: Vec<f32> = (0..24 * 19).map(|i| (i % 9) as f32 - 4.0).collect();
    let xb: Vec<f32> = (0..19 * 40).map(|i| (i % 5) as f32 * 0.5 - 1.0).collect();
    t[0].write_packed(&bytes(&xa));
    t[1].write_packed(&bytes(&xb));
    let refs: Vec<&BoundTensor> = t.iter().collect();
    dispatch(&ctx, pipeline, set_layout, layout, session, &refs);
    let got: Vec<f32> = t[2]
        .read_packed()
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for r in 0..24 {
        for j in 0..40 {
            let want: f32 = (0..19).map(|k| xa[r * 19 + k] * xb[k * 40 + j]).sum();
            // Small integers and halves: exact in f32 in any order.
            assert_eq!(got[r * 40 + j], want, "[{r}][{j}]");
        }
    }
    for x in t {
        x.destroy(&ctx);
    }
}

#[test]
fn conv2d_reads_its_constants_and_runs_from_an_inline_module() {
    let ctx = Ctx::with_data_graph();
    let input = Resource::new(0, vk::Format::R32_SFLOAT, &[1, 8, 16, 4]);
    let output = Resource::new(1, vk::Format::R32_SFLOAT, &[1, 4, 8, 4]).strided(2);
    let (set_layout, layout) = layouts(&ctx.device, &[input.clone(), output.clone()]);
    let weights: Vec<f32> = (0..64).map(|i| 1.5 + i as f32).collect();
    let bias: Vec<f32> = (0..4).map(|i| 2.25 + i as f32).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let words = conv_module();
    let mut g = GraphInfo::new(
        &ctx.device,
        &words,
        layout,
        &[input.clone(), output.clone()],
        &[
            (0, vk::Format::R32_SFLOAT, vec![4, 2, 2, 4], bytes(&weights)),
            (1, vk::Format::R32_SFLOAT, vec![4], bytes(&bias)),
        ],
    );
    // The module as a VkShaderModuleCreateInfo in the chain (module = VK_NULL_HANDLE).
    let inline = vk::ShaderModuleCreateInfo {
        next: g.info.next,
        code_size: words.len() * 4,
        code: words.as_ptr(),
        ..Default::default()
    };
    g.shader_info.module = vk::ShaderModule::null();
    g.info.next = (&inline as *const vk::ShaderModuleCreateInfo).cast();
    let pipeline = create_one(&ctx, &g);
    let (session, reqs) = session(&ctx.device, pipeline, |r| ctx.memory(r.size));
    assert!(reqs.is_empty());
    let x = BoundTensor::new(&ctx, &input);
    let o = BoundTensor::new(&ctx, &output);
    let xs: Vec<f32> = (0..8 * 16 * 4).map(|i| (i % 7) as f32 - 3.0).collect();
    x.write_packed(&bytes(&xs));
    dispatch(&ctx, pipeline, set_layout, layout, session, &[&x, &o]);
    let got: Vec<f32> = o
        .read_packed()
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for oy in 0..4 {
        for ox in 0..8 {
            for oc in 0..4 {
                let mut acc = f64::from(bias[oc]);
                for ky in 0..2 {
                    for kx in 0..2 {
                        for ic in 0..4 {
                            let xv = xs[((2 * oy + ky) * 16 + 2 * ox + kx) * 4 + ic];
                            let wv = weights[((oc * 2 + ky) * 2 + kx) * 4 + ic];
                            acc += f64::from(xv) * f64::from(wv);
                        }
                    }
                }
                // Small integers and halves: exact in f32.
                assert_eq!(got[(oy * 8 + ox) * 4 + oc], acc as f32, "({oy},{ox},{oc})");
            }
        }
    }
    x.destroy(&ctx);
    o.destroy(&ctx);
}

#[test]
fn add_and_sub_write_two_outputs_at_swapped_bindings() {
    let ctx = Ctx::with_data_graph();
    let dims = [1i64, 8, 16, 4];
    let x_r = Resource::new(2, vk::Format::R32_SINT, &dims);
    let y_r = Resource::new(3, vk::Format::R32_SINT, &dims).strided(6);
    let s_r = Resource::new(1, vk::Format::R32_SINT, &dims);
    let d_r = Resource::new(0, vk::Format::R32_SINT, &dims).strided(6);
    let all = [x_r.clone(), y_r.clone(), s_r.clone(), d_r.clone()];
    let (set_layout, layout) = layouts(&ctx.device, &all);
    let g = GraphInfo::new(&ctx.device, &add_sub_module(), layout, &all, &[]);
    let pipeline = create_one(&ctx, &g);
    let (session, _) = session(&ctx.device, pipeline, |r| ctx.memory(r.size));
    let t: Vec<BoundTensor> = all.iter().map(|r| BoundTensor::new(&ctx, r)).collect();
    let n = 8 * 16 * 4;
    let xs: Vec<i32> = (0..n).map(|i| i + 5).collect();
    let ys: Vec<i32> = (0..n).map(|i| 3 - 2 * i).collect();
    let b = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    t[0].write_packed(&b(&xs));
    t[1].write_packed(&b(&ys));
    let refs: Vec<&BoundTensor> = t.iter().collect();
    dispatch(&ctx, pipeline, set_layout, layout, session, &refs);
    let sum: Vec<i32> = xs.iter().zip(&ys).map(|(x, y)| x + y).collect();
    let diff: Vec<i32> = xs.iter().zip(&ys).map(|(x, y)| x - y).collect();
    assert_eq!(t[2].read_packed(), b(&sum));
    assert_eq!(t[3].read_packed(), b(&diff));
    for x in t {
        x.destroy(&ctx);
    }
}

// ------------------------------------------------------------------------------- properties

#[test]
fn properties_report_a_creation_log_and_an_identifier() {
    let ctx = Ctx::with_data_graph();
    let input = Resource::new(1, vk::Format::R8_SINT, &[1, 8, 16, 4]);
    let output = Resource::new(0, vk::Format::R8_SINT, &[1, 4, 8, 4]);
    let (_, layout) = layouts(&ctx.device, &[output.clone(), input.clone()]);
    let g = GraphInfo::new(
        &ctx.device,
        &max_pool_module(false),
        layout,
        &[input, output],
        &[],
    );
    let pipeline = create_one(&ctx, &g);
    let info = vk::DataGraphPipelineInfoARM {
        data_graph_pipeline: pipeline,
        ..Default::default()
    };
    // SAFETY: valid info.
    let available = unsafe {
        ctx.device
            .get_data_graph_pipeline_available_properties_arm(&info)
    }
    .unwrap();
    assert_eq!(
        available,
        [
            vk::DataGraphPipelinePropertyARM::CREATION_LOG,
            vk::DataGraphPipelinePropertyARM::IDENTIFIER
        ]
    );
    let mut count = 1u32;
    let mut one = [vk::DataGraphPipelinePropertyARM::default()];
    // SAFETY: room for one.
    let r = unsafe {
        (ctx.device
            .commands()
            .get_data_graph_pipeline_available_properties_arm)(
            ctx.device.handle(),
            &info,
            &mut count,
            one.as_mut_ptr(),
        )
    };
    assert_eq!(r, vk::Result::INCOMPLETE);

    let query = |props: &mut [vk::DataGraphPipelinePropertyQueryResultARM]| {
        // SAFETY: valid structs with room as their dataSize says.
        unsafe {
            (ctx.device.commands().get_data_graph_pipeline_properties_arm)(
                ctx.device.handle(),
                &info,
                props.len() as u32,
                props.as_mut_ptr(),
            )
        }
    };
    let mut props = [
        vk::DataGraphPipelinePropertyQueryResultARM {
            property: vk::DataGraphPipelinePropertyARM::CREATION_LOG,
            ..Default::default()
        },
        vk::DataGraphPipelinePropertyQueryResultARM {
            property: vk::DataGraphPipelinePropertyARM::IDENTIFIER,
            ..Default::default()
        },
    ];
    assert_eq!(query(&mut props), vk::Result::SUCCESS);
    assert_eq!(props[0].is_text, vk::TRUE);
    assert_eq!(props[1].is_text, vk::FALSE);
    let (log_size, id_size) = (props[0].data_size, props[1].data_size);
    assert!(log_size > 1, "a non-empty log with its NUL");
    assert_eq!(id_size, 32);
    // Full buffers filled with 0x7F: every byte gets written.
    let mut log = vec![0x7Fu8; log_size];
    let mut id = vec![0x7Fu8; id_size];
    props[0].data = log.as_mut_ptr().cast();
    props[1].data = id.as_mut_ptr().cast();
    assert_eq!(query(&mut props), vk::Result::SUCCESS);
    assert!(!log.contains(&0x7F) && !id.contains(&0x7F));
    assert_eq!(log.last(), Some(&0));
    let text = CStr::from_bytes_with_nul(&log).unwrap().to_str().unwrap();
    assert!(text.contains("MAX_POOL2D"), "{text}");
    // One byte short each: truncated (the text still NUL-terminated), VK_INCOMPLETE.
    let mut short_log = vec![0x7Fu8; log_size - 1];
    let mut short_id = vec![0x7Fu8; id_size - 1];
    props[0].data = short_log.as_mut_ptr().cast();
    props[0].data_size = log_size - 1;
    props[1].data = short_id.as_mut_ptr().cast();
    props[1].data_size = id_size - 1;
    assert_eq!(query(&mut props), vk::Result::INCOMPLETE);
    assert_eq!(props[0].data_size, log_size - 1);
    assert_eq!(short_log.last(), Some(&0));
    assert!(!short_log.contains(&0x7F) && !short_id.contains(&0x7F));
    assert_eq!(short_id[..], id[..id_size - 1]);
    // The same property twice is an error.
    let mut twice = [props[0], props[0]];
    assert_eq!(query(&mut twice), vk::Result::ERROR_VALIDATION_FAILED);
}

// ------------------------------------------------------------------------------- cache

#[test]
fn cache_hits_misses_and_feedback_follow_the_flags() {
    let ctx = Ctx::with_data_graph();
    let input = Resource::new(1, vk::Format::R8_SINT, &[1, 8, 16, 4]);
    let output = Resource::new(0, vk::Format::R8_SINT, &[1, 4, 8, 4]);
    let (_, layout) = layouts(&ctx.device, &[output.clone(), input.clone()]);
    let words = max_pool_module(false);
    let fail_on = vk::PipelineCreateFlags2::FAIL_ON_PIPELINE_COMPILE_REQUIRED;
    let early = vk::PipelineCreateFlags2::EARLY_RETURN_ON_FAILURE;
    let make = |input: &Resource, flags| {
        GraphInfo::new(
            &ctx.device,
            &words,
            layout,
            &[input.clone(), output.clone()],
            &[],
        )
        .with_flags(flags)
    };
    let new_cache = |data: &[u8]| {
        let info = vk::PipelineCacheCreateInfo::builder().initial_data(data);
        // SAFETY: valid create info.
        unsafe { ctx.device.create_pipeline_cache(&info, None) }.unwrap()
    };
    let cache = new_cache(&[]);
    // Fill, then a hit in a second call: feedback says so.
    let fill = make(&input, vk::PipelineCreateFlags2::empty());
    let (r, p) = create_pipelines(&ctx.device, cache, &[fill.info]);
    assert_eq!(r, vk::Result::SUCCESS);
    assert!(!p[0].is_null());
    let valid = vk::PipelineCreationFeedbackFlags::VALID;
    let hit_bit = vk::PipelineCreationFeedbackFlags::APPLICATION_PIPELINE_CACHE_HIT;
    assert_eq!(fill.feedback.flags, valid);
    let hit = make(&input, fail_on);
    let (r, p) = create_pipelines(&ctx.device, cache, &[hit.info]);
    assert_eq!(r, vk::Result::SUCCESS);
    assert!(!p[0].is_null());
    assert_eq!(hit.feedback.flags, valid | hit_bit);
    // A different input layout (strides) is a miss: COMPILE_REQUIRED, NULL handle.
    let strided = input.clone().strided(3);
    let miss = make(&strided, fail_on);
    let (r, p) = create_pipelines(&ctx.device, cache, &[miss.info]);
    assert_eq!(r, vk::Result::PIPELINE_COMPILE_REQUIRED);
    assert!(p[0].is_null());
    // One call: Fill, Hit, Miss, Hit — each entry sees the ones before it.
    let cache2 = new_cache(&[]);
    let entries = [
        make(&strided, vk::PipelineCreateFlags2::empty()),
        make(&strided, fail_on),
        make(&input.clone().strided(5), fail_on),
        make(&strided, fail_on),
    ];
    let infos: Vec<_> = entries.iter().map(|e| e.info).collect();
    let (r, p) = create_pipelines(&ctx.device, cache2, &infos);
    assert_eq!(r, vk::Result::PIPELINE_COMPILE_REQUIRED);
    assert_eq!(
        p.iter().map(|h| h.is_null()).collect::<Vec<_>>(),
        [false, false, true, false]
    );
    // With EARLY_RETURN_ON_FAILURE on the miss, the entries after it are not created.
    let cache3 = new_cache(&[]);
    let entries = [
        make(&input, vk::PipelineCreateFlags2::empty()),
        make(&input, fail_on),
        make(&strided, fail_on | early),
        make(&input, fail_on),
    ];
    let infos: Vec<_> = entries.iter().map(|e| e.info).collect();
    let (r, p) = create_pipelines(&ctx.device, cache3, &infos);
    assert_eq!(r, vk::Result::PIPELINE_COMPILE_REQUIRED);
    assert_eq!(
        p.iter().map(|h| h.is_null()).collect::<Vec<_>>(),
        [false, false, true, true]
    );

    // The cache's data reloads: a new cache made from it hits.
    // SAFETY: valid cache.
    let data = unsafe { ctx.device.get_pipeline_cache_data(cache) }.unwrap();
    assert!(data.len() > 32, "header + the graph entry");
    let reloaded = new_cache(&data);
    let again = make(&input, fail_on);
    let (r, p) = create_pipelines(&ctx.device, reloaded, &[again.info]);
    assert_eq!(r, vk::Result::SUCCESS);
    assert!(!p[0].is_null());
    assert_eq!(again.feedback.flags, valid | hit_bit);
    // Merged into an empty cache, it hits there too.
    let merged = new_cache(&[]);
    // SAFETY: valid caches.
    unsafe { ctx.device.merge_pipeline_caches(merged, &[cache]) }.unwrap();
    let (r, _) = create_pipelines(&ctx.device, merged, &[make(&input, fail_on).info]);
    assert_eq!(r, vk::Result::SUCCESS);
    // Garbage initial data is ignored.
    let junk = new_cache(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let (r, _) = create_pipelines(&ctx.device, junk, &[make(&input, fail_on).info]);
    assert_eq!(r, vk::Result::PIPELINE_COMPILE_REQUIRED);
}

#[test]
fn a_pipeline_is_recreated_from_its_identifier() {
    let ctx = Ctx::with_data_graph();
    let input = Resource::new(1, vk::Format::R8_SINT, &[1, 8, 16, 4]);
    let output = Resource::new(0, vk::Format::R8_SINT, &[1, 4, 8, 4]);
    let (set_layout, layout) = layouts(&ctx.device, &[output.clone(), input.clone()]);
    let g = GraphInfo::new(
        &ctx.device,
        &max_pool_module(false),
        layout,
        &[input.clone(), output.clone()],
        &[],
    );
    let cache_info = vk::PipelineCacheCreateInfo::builder();
    // SAFETY: valid create info.
    let cache = unsafe { ctx.device.create_pipeline_cache(&cache_info, None) }.unwrap();
    let (r, p) = create_pipelines(&ctx.device, cache, &[g.info]);
    assert_eq!(r, vk::Result::SUCCESS);
    let info = vk::DataGraphPipelineInfoARM {
        data_graph_pipeline: p[0],
        ..Default::default()
    };
    let mut id = vec![0u8; 32];
    let mut props = [vk::DataGraphPipelinePropertyQueryResultARM {
        property: vk::DataGraphPipelinePropertyARM::IDENTIFIER,
        data_size: id.len(),
        data: id.as_mut_ptr().cast(),
        ..Default::default()
    }];
    // SAFETY: valid structs.
    unsafe {
        ctx.device
            .get_data_graph_pipeline_properties_arm(&info, &mut props)
    }
    .unwrap();
    let by_id = vk::DataGraphPipelineIdentifierCreateInfoARM {
        identifier_size: id.len() as u32,
        identifier: id.as_ptr(),
        ..Default::default()
    };
    let from_id = vk::DataGraphPipelineCreateInfoARM {
        next: (&by_id as *const vk::DataGraphPipelineIdentifierCreateInfoARM).cast(),
        flags: vk::PipelineCreateFlags2::FAIL_ON_PIPELINE_COMPILE_REQUIRED,
        layout,
        ..Default::default()
    };
    let (r, p2) = create_pipelines(&ctx.device, cache, &[from_id]);
    assert_eq!(r, vk::Result::SUCCESS);
    // It runs like the original.
    let (session, _) = session(&ctx.device, p2[0], |r| ctx.memory(r.size));
    let x = BoundTensor::new(&ctx, &input);
    let o = BoundTensor::new(&ctx, &output);
    let data = ramp_i8(8 * 16 * 4, -60);
    x.write_packed(&data);
    dispatch(&ctx, p2[0], set_layout, layout, session, &[&x, &o]);
    assert_eq!(
        as_i8(&o.read_packed()),
        host_max_pool(&as_i8(&data), 8, 16, 4)
    );
    // An unknown identifier, or no cache: no pipeline.
    let other = [b'0'; 32];
    let by_other = vk::DataGraphPipelineIdentifierCreateInfoARM {
        identifier_size: 32,
        identifier: other.as_ptr(),
        ..Default::default()
    };
    let mut unknown = from_id;
    unknown.next = (&by_other as *const vk::DataGraphPipelineIdentifierCreateInfoARM).cast();
    let (r, p3) = create_pipelines(&ctx.device, cache, &[unknown]);
    assert_eq!(r, vk::Result::PIPELINE_COMPILE_REQUIRED);
    assert!(p3[0].is_null());
    let (r, _) = create_pipelines(&ctx.device, vk::PipelineCache::null(), &[from_id]);
    assert_eq!(r, vk::Result::ERROR_VALIDATION_FAILED);
    x.destroy(&ctx);
    o.destroy(&ctx);
}

// ------------------------------------------------------------------------------- errors

#[test]
fn bad_graphs_and_descriptions_fail_creation_with_null_handles() {
    let ctx = Ctx::with_data_graph();
    let input = Resource::new(1, vk::Format::R8_SINT, &[1, 8, 16, 4]);
    let output = Resource::new(0, vk::Format::R8_SINT, &[1, 4, 8, 4]);
    let (_, layout) = layouts(&ctx.device, &[output.clone(), input.clone()]);
    let words = max_pool_module(false);
    let fails = |g: &GraphInfo| {
        let (r, p) = create_pipelines(
            &ctx.device,
            vk::PipelineCache::null(),
            std::slice::from_ref(&g.info),
        );
        assert_eq!(r, vk::Result::ERROR_VALIDATION_FAILED);
        assert!(p[0].is_null());
    };
    // A missing resource info.
    fails(&GraphInfo::new(
        &ctx.device,
        &words,
        layout,
        std::slice::from_ref(&input),
        &[],
    ));
    // Dimensions that differ from the graph's.
    let wrong = Resource::new(0, vk::Format::R8_SINT, &[1, 4, 8, 2]);
    fails(&GraphInfo::new(
        &ctx.device,
        &words,
        layout,
        &[input.clone(), wrong],
        &[],
    ));
    // A format that does not carry the graph's element type.
    let wrong = Resource::new(0, vk::Format::R32_SFLOAT, &[1, 4, 8, 4]);
    fails(&GraphInfo::new(
        &ctx.device,
        &words,
        layout,
        &[input.clone(), wrong],
        &[],
    ));
    // The conv graph without its constants.
    let f_in = Resource::new(0, vk::Format::R32_SFLOAT, &[1, 8, 16, 4]);
    let f_out = Resource::new(1, vk::Format::R32_SFLOAT, &[1, 4, 8, 4]);
    let (_, conv_layout) = layouts(&ctx.device, &[f_in.clone(), f_out.clone()]);
    fails(&GraphInfo::new(
        &ctx.device,
        &conv_module(),
        conv_layout,
        &[f_in, f_out],
        &[],
    ));
    // Truncated and garbage modules: errors, never crashes.
    for cut in [5usize, words.len() / 2, words.len() - 1] {
        fails(&GraphInfo::new(
            &ctx.device,
            &words[..cut],
            layout,
            &[input.clone(), output.clone()],
            &[],
        ));
    }
    let mut garbage = words.clone();
    for (i, w) in garbage.iter_mut().enumerate().skip(5) {
        *w ^= (i as u32).wrapping_mul(0x9e37_79b9);
    }
    fails(&GraphInfo::new(
        &ctx.device,
        &garbage,
        layout,
        &[input.clone(), output.clone()],
        &[],
    ));
    // An unknown entry point name.
    let mut g = GraphInfo::new(
        &ctx.device,
        &words,
        layout,
        &[input.clone(), output.clone()],
        &[],
    );
    g.name = CString::new("nope").unwrap();
    g.shader_info.name = g.name.as_ptr();
    fails(&g);
    // A layout without the tensor bindings.
    let (_, empty_layout) = layouts(&ctx.device, &[]);
    fails(&GraphInfo::new(
        &ctx.device,
        &words,
        empty_layout,
        &[input, output],
        &[],
    ));
}

#[test]
fn dispatch_rules_are_checked_when_recording() {
    let ctx = Ctx::with_data_graph();
    let input = Resource::new(1, vk::Format::R8_SINT, &[1, 8, 16, 4]);
    let output = Resource::new(0, vk::Format::R8_SINT, &[1, 2, 4, 4]);
    let (_, layout) = layouts(&ctx.device, &[output.clone(), input.clone()]);
    let g = GraphInfo::new(
        &ctx.device,
        &max_pool_module(true),
        layout,
        &[input, output],
        &[],
    );
    let pipeline = create_one(&ctx, &g);
    let info = session_info(pipeline);
    // SAFETY: valid create info.
    let session = unsafe {
        ctx.device
            .create_data_graph_pipeline_session_arm(&info, None)
    }
    .unwrap();
    // Session memory binding rules: a bind point the session lacks, a too-small allocation.
    let bind = |point, memory, offset| {
        let b = vk::BindDataGraphPipelineSessionMemoryInfoARM {
            session,
            bind_point: point,
            object_index: 0,
            memory,
            memory_offset: offset,
            ..Default::default()
        };
        // SAFETY: valid bind info.
        unsafe { ctx.device.bind_data_graph_pipeline_session_memory_arm(&[b]) }
    };
    let small = ctx.memory(64);
    assert_eq!(
        bind(
            vk::DataGraphPipelineSessionBindPointARM::TRANSIENT,
            small,
            0
        ),
        Err(vk::ErrorCode::VALIDATION_FAILED)
    );
    let big = ctx.memory(4096);
    assert_eq!(
        bind(vk::DataGraphPipelineSessionBindPointARM::TRANSIENT, big, 3),
        Err(vk::ErrorCode::VALIDATION_FAILED)
    );
    // Unbound transient memory: the recording fails.
    let recorded = ctx.record_only(|d, cb| {
        // SAFETY: recording into `cb`.
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::DATA_GRAPH_ARM, pipeline);
            d.cmd_dispatch_data_graph_arm(cb, session, None);
        }
    });
    assert_eq!(recorded, Err(vk::ErrorCode::VALIDATION_FAILED));
    assert_eq!(
        bind(vk::DataGraphPipelineSessionBindPointARM::TRANSIENT, big, 0),
        Ok(())
    );
    // Bound once only.
    assert_eq!(
        bind(vk::DataGraphPipelineSessionBindPointARM::TRANSIENT, big, 0),
        Err(vk::ErrorCode::VALIDATION_FAILED)
    );
    // No pipeline bound at the data graph bind point; then no descriptor set bound.
    let recorded = ctx.record_only(|d, cb| {
        // SAFETY: recording into `cb`.
        unsafe { d.cmd_dispatch_data_graph_arm(cb, session, None) };
    });
    assert_eq!(recorded, Err(vk::ErrorCode::VALIDATION_FAILED));
    let recorded = ctx.record_only(|d, cb| {
        // SAFETY: recording into `cb`.
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::DATA_GRAPH_ARM, pipeline);
            d.cmd_dispatch_data_graph_arm(cb, session, None);
        }
    });
    assert_eq!(recorded, Err(vk::ErrorCode::VALIDATION_FAILED));
    // A data graph pipeline at the compute bind point.
    let recorded = ctx.record_only(|d, cb| {
        // SAFETY: recording into `cb`.
        unsafe { d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline) };
    });
    assert_eq!(recorded, Err(vk::ErrorCode::VALIDATION_FAILED));
    // A deferred operation with a data graph pipeline is an error.
    // SAFETY: valid device.
    let op = unsafe {
        let mut op = vk::DeferredOperationKHR::null();
        let r = (ctx.device.commands().create_deferred_operation_khr)(
            ctx.device.handle(),
            std::ptr::null(),
            &mut op,
        );
        assert_eq!(r, vk::Result::SUCCESS);
        op
    };
    let mut out = vk::Pipeline::null();
    // SAFETY: valid arguments.
    let r = unsafe {
        (ctx.device.commands().create_data_graph_pipelines_arm)(
            ctx.device.handle(),
            op,
            vk::PipelineCache::null(),
            1,
            &g.info,
            std::ptr::null(),
            &mut out,
        )
    };
    assert_eq!(r, vk::Result::ERROR_VALIDATION_FAILED);
    // SAFETY: valid handle; it never has work.
    unsafe {
        assert_eq!(
            (ctx.device.commands().deferred_operation_join_khr)(ctx.device.handle(), op),
            vk::Result::SUCCESS
        );
        assert_eq!(
            (ctx.device.commands().get_deferred_operation_result_khr)(ctx.device.handle(), op),
            vk::Result::SUCCESS
        );
        (ctx.device.commands().destroy_deferred_operation_khr)(
            ctx.device.handle(),
            op,
            std::ptr::null(),
        );
    }
}
