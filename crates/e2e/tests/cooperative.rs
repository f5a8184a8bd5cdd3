//! `VK_NV_cooperative_vector` through the loader: features, properties and the property list
//! (two-call rule), matrix conversion on the host and on the queue, and the errors for bad
//! conversions and for products the device does not list.

use tessera_e2e::compute::*;
use tessera_e2e::cooperative::{MatrixConversion, convert_matrix, converted_size};
use tessera_e2e::vulkanalia::prelude::v1_3::*;
use tessera_e2e::vulkanalia::vk::{
    NvCooperativeVectorExtensionDeviceCommands, NvCooperativeVectorExtensionInstanceCommands,
};
use tessera_e2e::*;

const UNLISTED_SPV: &[u8] = include_bytes!("../../../spirv-tests/shaders/coopvec_unlisted.spv");
const F32: vk::ComponentTypeKHR = vk::ComponentTypeKHR::FLOAT32;
const F16: vk::ComponentTypeKHR = vk::ComponentTypeKHR::FLOAT16;
const ROW: vk::CooperativeVectorMatrixLayoutNV = vk::CooperativeVectorMatrixLayoutNV::ROW_MAJOR;
const COL: vk::CooperativeVectorMatrixLayoutNV = vk::CooperativeVectorMatrixLayoutNV::COLUMN_MAJOR;
const INFERENCING: vk::CooperativeVectorMatrixLayoutNV =
    vk::CooperativeVectorMatrixLayoutNV::INFERENCING_OPTIMAL;
const TRAINING: vk::CooperativeVectorMatrixLayoutNV =
    vk::CooperativeVectorMatrixLayoutNV::TRAINING_OPTIMAL;

fn conversion(
    rows: u32,
    cols: u32,
    types: (vk::ComponentTypeKHR, vk::ComponentTypeKHR),
    layouts: (
        vk::CooperativeVectorMatrixLayoutNV,
        vk::CooperativeVectorMatrixLayoutNV,
    ),
    strides: (usize, usize),
) -> MatrixConversion {
    MatrixConversion {
        rows,
        cols,
        src_type: types.0,
        dst_type: types.1,
        src_layout: layouts.0,
        src_stride: strides.0,
        dst_layout: layouts.1,
        dst_stride: strides.1,
    }
}

#[test]
fn features_properties_and_the_list() {
    let ctx = Ctx::for_shaders();
    assert!(
        ctx.enabled_extensions
            .iter()
            .any(|e| e == "VK_NV_cooperative_vector")
    );
    let mut features = vk::PhysicalDeviceCooperativeVectorFeaturesNV::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::builder().push_next(&mut features);
    let mut props = vk::PhysicalDeviceCooperativeVectorPropertiesNV::default();
    let mut p2 = vk::PhysicalDeviceProperties2::builder().push_next(&mut props);
    // SAFETY: valid output chains.
    unsafe {
        ctx.instance
            .get_physical_device_features2(ctx.physical_device, &mut f2);
        ctx.instance
            .get_physical_device_properties2(ctx.physical_device, &mut p2);
    }
    assert_eq!(features.cooperative_vector, vk::TRUE);
    assert_eq!(features.cooperative_vector_training, vk::TRUE);
    assert_eq!(
        props.cooperative_vector_supported_stages,
        vk::ShaderStageFlags::COMPUTE
    );
    assert_eq!(
        props.cooperative_vector_training_float16_accumulation,
        vk::TRUE
    );
    assert_eq!(
        props.cooperative_vector_training_float32_accumulation,
        vk::TRUE
    );
    assert!(props.max_cooperative_vector_components >= 128);

    // SAFETY: a valid physical device.
    let list = unsafe {
        ctx.instance
            .get_physical_device_cooperative_vector_properties_nv(ctx.physical_device)
    }
    .expect("the property list");
    use vk::ComponentTypeKHR as C;
    let has = |i, ii, m, b, r| {
        list.iter().any(|p| {
            (
                p.input_type,
                p.input_interpretation,
                p.matrix_interpretation,
                p.bias_interpretation,
                p.result_type,
            ) == (i, ii, m, b, r)
        })
    };
    // The spec's required rows and NVIDIA's fp8 and packed forms.
    assert!(has(
        C::FLOAT16,
        C::FLOAT16,
        C::FLOAT16,
        C::FLOAT16,
        C::FLOAT16
    ));
    assert!(has(
        C::UINT32,
        C::SINT8_PACKED_NV,
        C::SINT8,
        C::SINT32,
        C::SINT32
    ));
    assert!(has(C::SINT8, C::SINT8, C::SINT8, C::SINT32, C::SINT32));
    assert!(has(C::FLOAT32, C::SINT8, C::SINT8, C::SINT32, C::SINT32));
    assert!(has(
        C::FLOAT16,
        C::FLOAT8_E4M3_EXT,
        C::FLOAT8_E4M3_EXT,
        C::FLOAT16,
        C::FLOAT16
    ));
    assert!(has(
        C::FLOAT16,
        C::FLOAT8_E5M2_EXT,
        C::FLOAT8_E5M2_EXT,
        C::FLOAT16,
        C::FLOAT16
    ));
    assert!(has(
        C::FLOAT32,
        C::FLOAT32,
        C::FLOAT32,
        C::FLOAT32,
        C::FLOAT32
    ));
    assert!(list.len() >= 17);

    // Two calls with too small an array: VK_INCOMPLETE, and only that many written.
    let f = ctx
        .instance
        .commands()
        .get_physical_device_cooperative_vector_properties_nv;
    let mut count = 3u32;
    let mut few = vec![vk::CooperativeVectorPropertiesNV::default(); 5];
    // SAFETY: `few` holds 5 ≥ `count` structs.
    let r = unsafe { f(ctx.physical_device, &mut count, few.as_mut_ptr()) };
    assert_eq!(r, vk::Result::INCOMPLETE);
    assert_eq!(count, 3);
    assert_eq!(few[0].input_type, list[0].input_type);
    assert_eq!(few[3].input_type, vk::ComponentTypeKHR::default());
}

/// A `rows × cols` f32 matrix of values that f16 cannot all represent.
fn sample(rows: usize, cols: usize) -> Vec<f32> {
    (0..rows * cols)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.0123)
        .collect()
}

fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn host_conversion_round_trips_and_queries_its_size() {
    let ctx = Ctx::for_shaders();
    let (rows, cols) = (37usize, 13usize);
    let values = sample(rows, cols);
    let src = bytes_f32(&values);
    // f32 row-major → f16 inferencing-optimal → f16 column-major (padded) → f32 row-major.
    let to_opt = conversion(
        rows as u32,
        cols as u32,
        (F32, F16),
        (ROW, INFERENCING),
        (cols * 4, 0),
    );
    let opt = convert_matrix(&ctx.device, &to_opt, &src).expect("to optimal");
    assert_eq!(opt.len(), converted_size(&ctx.device, &to_opt).unwrap());
    let to_col = conversion(
        rows as u32,
        cols as u32,
        (F16, F16),
        (INFERENCING, COL),
        (0, rows * 2 + 6),
    );
    let col = convert_matrix(&ctx.device, &to_col, &opt).expect("to column-major");
    assert_eq!(col.len(), cols * (rows * 2 + 6));
    let back = conversion(
        rows as u32,
        cols as u32,
        (F16, F32),
        (COL, ROW),
        (rows * 2 + 6, cols * 4),
    );
    let out = convert_matrix(&ctx.device, &back, &col).expect("back to f32");
    for (i, (o, v)) in out.chunks(4).zip(&values).enumerate() {
        let got = f32::from_le_bytes(o.try_into().unwrap());
        assert_eq!(got, half::f16::from_f32(*v).to_f32(), "element {i}");
    }
    // Training-optimal f16 is a tight array: rows · cols · 2 bytes, padded to 64 bytes.
    let training = conversion(64, 64, (F16, F16), (ROW, TRAINING), (128, 0));
    assert_eq!(converted_size(&ctx.device, &training), Ok(8192));
    let odd = conversion(3, 5, (F16, F16), (ROW, TRAINING), (10, 0));
    assert_eq!(converted_size(&ctx.device, &odd), Ok(64));
}

#[test]
fn host_conversion_rejects_bad_input() {
    let ctx = Ctx::for_shaders();
    let src = bytes_f32(&sample(8, 8));
    let fails = |c: MatrixConversion| convert_matrix(&ctx.device, &c, &src).err();
    // A stride shorter than a row.
    assert_eq!(
        fails(conversion(8, 8, (F32, F32), (ROW, ROW), (16, 32))),
        Some(vk::ErrorCode::VALIDATION_FAILED)
    );
    // A size query reads no source: a short source stride is only a warning there (the CTS's
    // training tests rely on it), but a conversion with it fails.
    let short_src = conversion(8, 8, (F32, F16), (ROW, TRAINING), (16, 0));
    assert_eq!(converted_size(&ctx.device, &short_src), Ok(128));
    assert_eq!(fails(short_src), Some(vk::ErrorCode::VALIDATION_FAILED));
    // Float8 into a row-major destination.
    let e4 = vk::ComponentTypeKHR::FLOAT8_E4M3_EXT;
    assert_eq!(
        fails(conversion(8, 8, (F32, e4), (ROW, ROW), (32, 8))),
        Some(vk::ErrorCode::VALIDATION_FAILED)
    );
    // Between integer types.
    assert_eq!(
        fails(conversion(
            8,
            8,
            (vk::ComponentTypeKHR::SINT8, vk::ComponentTypeKHR::UINT8),
            (ROW, ROW),
            (8, 8)
        )),
        Some(vk::ErrorCode::VALIDATION_FAILED)
    );
    // Too little room: VK_INCOMPLETE, and nothing written.
    let c = conversion(8, 8, (F32, F16), (ROW, TRAINING), (32, 0));
    let mut out = vec![0xa5u8; 64];
    let mut size = out.len();
    let info = vk::ConvertCooperativeVectorMatrixInfoNV {
        src_size: src.len(),
        src_data: vk::DeviceOrHostAddressConstKHR {
            host_address: src.as_ptr().cast(),
        },
        dst_size: &mut size,
        dst_data: vk::DeviceOrHostAddressKHR {
            host_address: out.as_mut_ptr().cast(),
        },
        src_component_type: c.src_type,
        dst_component_type: c.dst_type,
        num_rows: c.rows,
        num_columns: c.cols,
        src_layout: c.src_layout,
        src_stride: c.src_stride,
        dst_layout: c.dst_layout,
        dst_stride: c.dst_stride,
        ..Default::default()
    };
    let raw = ctx.device.commands().convert_cooperative_vector_matrix_nv;
    // SAFETY: every pointer is live; `size` says how much `out` holds.
    let r = unsafe { raw(ctx.device.handle(), &info) };
    assert_eq!(r, vk::Result::INCOMPLETE);
    assert!(out.iter().all(|&b| b == 0xa5));
    // A source shorter than the matrix, and overlapping memory.
    let short = vk::ConvertCooperativeVectorMatrixInfoNV {
        src_size: 16,
        ..info
    };
    let mut big = vec![0u8; 256];
    size = big.len();
    let short = vk::ConvertCooperativeVectorMatrixInfoNV {
        dst_size: &mut size,
        dst_data: vk::DeviceOrHostAddressKHR {
            host_address: big.as_mut_ptr().cast(),
        },
        ..short
    };
    // SAFETY: as above.
    let r = unsafe { raw(ctx.device.handle(), &short) };
    assert_eq!(r, vk::Result::ERROR_VALIDATION_FAILED);
    let overlapping = vk::ConvertCooperativeVectorMatrixInfoNV {
        src_size: 256,
        src_data: vk::DeviceOrHostAddressConstKHR {
            host_address: big.as_ptr().cast(),
        },
        dst_data: vk::DeviceOrHostAddressKHR {
            host_address: big.as_mut_ptr().wrapping_add(64).cast(),
        },
        ..short
    };
    // SAFETY: as above (the driver must refuse before touching the overlap).
    let r = unsafe { raw(ctx.device.handle(), &overlapping) };
    assert_eq!(r, vk::Result::ERROR_VALIDATION_FAILED);
}

#[test]
fn device_conversion_runs_on_the_queue() {
    let ctx = Ctx::for_shaders();
    let (rows, cols) = (24usize, 40usize);
    let values = sample(rows, cols);
    let to_opt = conversion(
        rows as u32,
        cols as u32,
        (F32, F16),
        (ROW, INFERENCING),
        (cols * 4, 0),
    );
    let host = convert_matrix(&ctx.device, &to_opt, &bytes_f32(&values)).expect("host conversion");
    let buffer = ctx.host_buffer(16384);
    buffer.fill(0);
    buffer.write(0, &bytes_f32(&values));
    let base = ctx.device_address(buffer.buffer);
    let mut sizes = [host.len(), 4096];
    let info = |src: u64, dst: u64, size: *mut usize| vk::ConvertCooperativeVectorMatrixInfoNV {
        src_size: rows * cols * 4,
        src_data: vk::DeviceOrHostAddressConstKHR {
            device_address: src,
        },
        dst_size: size,
        dst_data: vk::DeviceOrHostAddressKHR {
            device_address: dst,
        },
        src_component_type: F32,
        dst_component_type: F16,
        num_rows: rows as u32,
        num_columns: cols as u32,
        src_layout: ROW,
        src_stride: cols * 4,
        dst_layout: INFERENCING,
        ..Default::default()
    };
    let (a, b) = sizes.split_at_mut(1);
    let infos = [
        info(base, base + 4096, &mut a[0]),
        info(base, base + 8192 + 64, &mut b[0]),
    ];
    ctx.run(|d, cb| {
        // SAFETY: recording; the addresses are in the buffer's memory, 64-byte aligned.
        unsafe { d.cmd_convert_cooperative_vector_matrix_nv(cb, &infos) };
    });
    let mem = buffer.read();
    assert_eq!(&mem[4096..4096 + host.len()], &host[..]);
    assert_eq!(&mem[8256..8256 + host.len()], &host[..]);

    // A misaligned address and overlapping destinations are recording errors.
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
    let cb = ctx.command_buffer(pool);
    for bad in [
        vec![info(base + 4, base + 4096, &mut sizes[0])],
        vec![
            info(base, base + 4096, &mut sizes[0]),
            info(base, base + 4096 + 64, &mut sizes[1]),
        ],
    ] {
        ctx.begin(cb, vk::CommandBufferUsageFlags::empty());
        // SAFETY: recording; the driver must reject the infos.
        unsafe {
            ctx.device
                .cmd_convert_cooperative_vector_matrix_nv(cb, &bad)
        };
        // SAFETY: recording.
        let r = unsafe { ctx.device.end_command_buffer(cb) };
        assert_eq!(r.err(), Some(vk::ErrorCode::VALIDATION_FAILED));
        // SAFETY: not pending.
        unsafe {
            ctx.device
                .reset_command_buffer(cb, vk::CommandBufferResetFlags::empty())
        }
        .expect("reset");
    }
}

#[test]
fn an_unlisted_product_fails_pipeline_creation() {
    let ctx = Ctx::for_shaders();
    let set_layout = storage_layout(&ctx, 1);
    let layout = pipeline_layout(&ctx, set_layout, 0);
    let module = shader_module(&ctx, &words(UNLISTED_SPV));
    let r = compute_pipeline(&ctx, module, layout, 32);
    assert_eq!(r.err(), Some(vk::ErrorCode::VALIDATION_FAILED));
    // SAFETY: objects of this device, unused by pending work.
    unsafe {
        ctx.device.destroy_shader_module(module, None);
        ctx.device.destroy_pipeline_layout(layout, None);
        ctx.device.destroy_descriptor_set_layout(set_layout, None);
    }
}

/// `tessera-coop-probe` (what compares Tessera with a GPU driver) runs on Tessera: every
/// conversion chain converts, the queue conversion matches the host's, and two runs compare
/// equal.
#[test]
fn the_probe_runs_and_compares() {
    let probe = env!("CARGO_BIN_EXE_tessera-coop-probe");
    let dir = std::env::temp_dir().join(format!("tessera-coop-probe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
    for out in [&a, &b] {
        let st = std::process::Command::new(probe)
            .arg("run")
            .arg(out)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("run the probe");
        assert!(st.success(), "tessera-coop-probe run: {st}");
    }
    let text = std::fs::read_to_string(&a).expect("probe output");
    assert!(text.starts_with("device Tessera"), "{text}");
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("conversion "))
            .count(),
        12
    );
    assert!(!text.contains("| error |"), "{text}");
    assert!(text.contains("on the queue: same as on the host"), "{text}");
    let cmp = std::process::Command::new(probe)
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .output()
        .expect("compare");
    let report = String::from_utf8_lossy(&cmp.stdout);
    assert!(cmp.status.success(), "{report}");
    assert_eq!(report.matches("all equal").count(), 12, "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}
