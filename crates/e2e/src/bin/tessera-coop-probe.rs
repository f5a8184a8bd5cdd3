//! Compares the cooperative-vector and cooperative-matrix surface of two drivers: Tessera and a
//! GPU driver (NVIDIA's, on the lent H200 machine), as a Vulkan developer would see it.
//!
//! ```sh
//! tessera-coop-probe run OUT.txt           # on the driver the loader finds (TESSERA_E2E_DRIVER
//!                                          # names another driver's manifest)
//! tessera-coop-probe compare A.txt B.txt   # what differs between two runs
//! ```
//!
//! `run` writes the device's name, its `vkGetPhysicalDeviceCooperativeVectorPropertiesNV` and
//! `vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR` lists, and the results of matrix
//! conversions (`vkConvertCooperativeVectorMatrixNV` on the host, `vkCmdConvert…` on the queue)
//! between component types and layouts, on values that round, saturate, underflow and carry NaNs
//! and infinities. Conversions into an optimal layout are read back through a second conversion
//! into a row- or column-major one: the optimal layouts' bytes are each driver's own, their
//! contents are not. `compare` prints the property rows only one driver lists and, per
//! conversion, how many elements differ (NaN equals NaN) with the first few.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::process::ExitCode;

use tessera_e2e::cooperative::{MatrixConversion, convert_matrix};
use tessera_e2e::vulkanalia::prelude::v1_3::*;
use tessera_e2e::vulkanalia::vk::{
    KhrCooperativeMatrixExtensionInstanceCommands, NvCooperativeVectorExtensionDeviceCommands,
    NvCooperativeVectorExtensionInstanceCommands,
};
use tessera_e2e::*;

use vk::ComponentTypeKHR as C;
use vk::CooperativeVectorMatrixLayoutNV as L;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["run", out] => run(out),
        ["compare", a, b] => compare(a, b),
        _ => Err("usage: tessera-coop-probe run OUT.txt | compare A.txt B.txt".into()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tessera-coop-probe: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Bytes of one element of a component type the conversions produce.
fn size_of(t: C) -> usize {
    match t {
        C::FLOAT32 | C::SINT32 | C::UINT32 => 4,
        C::FLOAT16 => 2,
        _ => 1,
    }
}

fn type_name(t: C) -> String {
    match t {
        C::FLOAT32 => "f32".into(),
        C::FLOAT16 => "f16".into(),
        C::SINT8 => "s8".into(),
        C::UINT8 => "u8".into(),
        C::SINT32 => "s32".into(),
        C::UINT32 => "u32".into(),
        C::FLOAT8_E4M3_EXT => "e4m3".into(),
        C::FLOAT8_E5M2_EXT => "e5m2".into(),
        C::SINT8_PACKED_NV => "s8packed".into(),
        C::UINT8_PACKED_NV => "u8packed".into(),
        C::BFLOAT16 => "bf16".into(),
        other => format!("type{}", other.as_raw()),
    }
}

/// f32 values that round to nearest even, overflow, underflow and carry specials in f16 and in
/// both fp8 encodings, then a ramp.
fn sample_f32(count: usize) -> Vec<f32> {
    let special = [
        0.0f32,
        -0.0,
        1.0,
        -1.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        65504.0,
        65520.0,
        70000.0,
        -1e9,
        448.0,
        464.0,
        480.0,
        57344.0,
        61440.0,
        1.0 + 1.0 / 2048.0,
        1.0 + 3.0 / 2048.0,
        1.0 + 1.0 / 16.0,
        1.0 + 3.0 / 16.0,
        6e-8,
        3e-8,
        1e-3,
        2f32.powi(-9),
        2f32.powi(-10),
        2f32.powi(-17),
        -2f32.powi(-16),
        0.3,
        -0.7,
        123.456,
        1e-40,
    ];
    (0..count)
        .map(|i| match special.get(i) {
            Some(&v) => v,
            None => ((i * 37 % 211) as f32 - 105.0) * 0.173,
        })
        .collect()
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// One conversion chain: a row-major source and one or two conversions.
struct Chain {
    name: &'static str,
    rows: u32,
    cols: u32,
    src_type: C,
    /// (type, layout, stride in bytes: 0 for the optimal layouts) of each step's result.
    steps: Vec<(C, L, usize)>,
}

fn chains() -> Vec<Chain> {
    let row = |t: C, cols: u32, pad: usize| (t, L::ROW_MAJOR, cols as usize * size_of(t) + pad);
    let col = |t: C, rows: u32, pad: usize| (t, L::COLUMN_MAJOR, rows as usize * size_of(t) + pad);
    let inf = |t: C| (t, L::INFERENCING_OPTIMAL, 0);
    let train = |t: C| (t, L::TRAINING_OPTIMAL, 0);
    let (r, c) = (37u32, 13u32);
    vec![
        Chain {
            name: "f32 row -> f16 row (padded)",
            rows: r,
            cols: c,
            src_type: C::FLOAT32,
            steps: vec![row(C::FLOAT16, c, 6)],
        },
        Chain {
            name: "f32 row -> f16 col",
            rows: r,
            cols: c,
            src_type: C::FLOAT32,
            steps: vec![col(C::FLOAT16, r, 0)],
        },
        Chain {
            name: "f16 row -> f32 col (padded)",
            rows: r,
            cols: c,
            src_type: C::FLOAT16,
            steps: vec![col(C::FLOAT32, r, 8)],
        },
        Chain {
            name: "f32 row -> f32 col",
            rows: r,
            cols: c,
            src_type: C::FLOAT32,
            steps: vec![col(C::FLOAT32, r, 0)],
        },
        Chain {
            name: "f32 row -> f16 inferencing -> f32 row",
            rows: r,
            cols: c,
            src_type: C::FLOAT32,
            steps: vec![inf(C::FLOAT16), row(C::FLOAT32, c, 0)],
        },
        Chain {
            name: "f32 row -> f16 training -> f16 col",
            rows: 64,
            cols: 64,
            src_type: C::FLOAT32,
            steps: vec![train(C::FLOAT16), col(C::FLOAT16, 64, 0)],
        },
        Chain {
            name: "f32 row -> e4m3 inferencing -> f32 row",
            rows: r,
            cols: c,
            src_type: C::FLOAT32,
            steps: vec![inf(C::FLOAT8_E4M3_EXT), row(C::FLOAT32, c, 0)],
        },
        Chain {
            name: "f32 row -> e5m2 inferencing -> f16 row",
            rows: r,
            cols: c,
            src_type: C::FLOAT32,
            steps: vec![inf(C::FLOAT8_E5M2_EXT), row(C::FLOAT16, c, 0)],
        },
        Chain {
            name: "f16 row -> e4m3 training -> f32 col",
            rows: 16,
            cols: 32,
            src_type: C::FLOAT16,
            steps: vec![train(C::FLOAT8_E4M3_EXT), col(C::FLOAT32, 16, 0)],
        },
        Chain {
            name: "f16 row -> e5m2 inferencing -> f32 row",
            rows: 64,
            cols: 64,
            src_type: C::FLOAT16,
            steps: vec![inf(C::FLOAT8_E5M2_EXT), row(C::FLOAT32, 64, 0)],
        },
        Chain {
            name: "s8 row -> s8 inferencing -> s8 col",
            rows: r,
            cols: c,
            src_type: C::SINT8,
            steps: vec![inf(C::SINT8), col(C::SINT8, r, 3)],
        },
        Chain {
            name: "u8 row -> u8 training -> u8 row",
            rows: 64,
            cols: 48,
            src_type: C::UINT8,
            steps: vec![train(C::UINT8), row(C::UINT8, 48, 0)],
        },
    ]
}

/// The source matrix of a chain: the f32 sample in its type (f16 rounded to nearest even,
/// integers as a ramp), rows packed.
fn source(chain: &Chain) -> Vec<u8> {
    let n = (chain.rows * chain.cols) as usize;
    let values = sample_f32(n);
    match chain.src_type {
        C::FLOAT32 => f32_bytes(&values),
        C::FLOAT16 => values
            .iter()
            .flat_map(|&v| f32_to_f16(v).to_le_bytes())
            .collect(),
        _ => (0..n).map(|i| (i * 29 % 256) as u8).collect(),
    }
}

/// binary16 nearest-even (NaN stays NaN), for the f16 sources.
fn f32_to_f16(v: f32) -> u16 {
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    if v.is_nan() {
        return sign | 0x7e00;
    }
    let a = v.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 2f32.powi(-25) {
        return sign;
    }
    let e = ((a.to_bits() >> 23) as i32) - 127;
    let (scale, base) = if e < -14 {
        (2f32.powi(24), 0u32)
    } else {
        (2f32.powi(10 - e), ((e + 15) as u32) << 10)
    };
    let m = a * scale;
    let mut q = m.round_ties_even() as u32;
    if e >= -14 {
        q -= 1024;
    }
    (sign as u32 | (base + q)) as u16
}

fn run(out: &str) -> Result<ExitCode, String> {
    let ctx = Ctx::for_shaders();
    let mut text = String::new();
    // SAFETY: a valid physical device.
    let props = unsafe {
        ctx.instance
            .get_physical_device_properties(ctx.physical_device)
    };
    let name = props.device_name.to_string_lossy().to_string();
    writeln!(text, "device {name}").unwrap();
    // SAFETY: a valid physical device.
    let vectors = unsafe {
        ctx.instance
            .get_physical_device_cooperative_vector_properties_nv(ctx.physical_device)
    }
    .map_err(|e| format!("cooperative vector properties: {e:?}"))?;
    for p in &vectors {
        writeln!(
            text,
            "vector input={} interpretation={} matrix={} bias={} result={} transpose={}",
            type_name(p.input_type),
            type_name(p.input_interpretation),
            type_name(p.matrix_interpretation),
            type_name(p.bias_interpretation),
            type_name(p.result_type),
            p.transpose == vk::TRUE
        )
        .unwrap();
    }
    // SAFETY: a valid physical device.
    let matrices = unsafe {
        ctx.instance
            .get_physical_device_cooperative_matrix_properties_khr(ctx.physical_device)
    }
    .map_err(|e| format!("cooperative matrix properties: {e:?}"))?;
    for p in &matrices {
        writeln!(
            text,
            "matrix {}x{}x{} a={} b={} c={} result={} saturating={} scope={}",
            p.m_size,
            p.n_size,
            p.k_size,
            type_name(p.a_type),
            type_name(p.b_type),
            type_name(p.c_type),
            type_name(p.result_type),
            p.saturating_accumulation == vk::TRUE,
            p.scope.as_raw()
        )
        .unwrap();
    }
    for chain in chains() {
        let mut data = source(&chain);
        let mut from = (
            chain.src_type,
            L::ROW_MAJOR,
            chain.cols as usize * size_of(chain.src_type),
        );
        let mut result = Ok(());
        for &(to_type, to_layout, to_stride) in &chain.steps {
            let c = MatrixConversion {
                rows: chain.rows,
                cols: chain.cols,
                src_type: from.0,
                dst_type: to_type,
                src_layout: from.1,
                src_stride: from.2,
                dst_layout: to_layout,
                dst_stride: to_stride,
            };
            match convert_matrix(&ctx.device, &c, &data) {
                Ok(d) => data = d,
                Err(e) => {
                    result = Err(format!("{e:?}"));
                    break;
                }
            }
            from = (to_type, to_layout, to_stride);
        }
        let (last_type, last_layout, last_stride) = from;
        match result {
            Ok(()) => {
                // Only the elements: padding between rows or columns is left as it was.
                let elements =
                    elements(&chain, last_layout, last_stride, size_of(last_type), &data);
                let hex: String = elements.iter().map(|b| format!("{b:02x}")).collect();
                writeln!(
                    text,
                    "conversion {} | {} | {hex}",
                    chain.name,
                    type_name(last_type)
                )
                .unwrap();
            }
            Err(e) => writeln!(text, "conversion {} | error | {e}", chain.name).unwrap(),
        }
    }
    // The same conversion on the queue (device addresses) as on the host.
    writeln!(text, "queue {}", queue_conversion(&ctx)?).unwrap();
    std::fs::write(out, &text).map_err(|e| format!("{out}: {e}"))?;
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// The elements of a row- or column-major result in row-major order, without padding.
fn elements(chain: &Chain, layout: L, stride: usize, size: usize, data: &[u8]) -> Vec<u8> {
    let (rows, cols) = (chain.rows as usize, chain.cols as usize);
    let mut out = Vec::with_capacity(rows * cols * size);
    for r in 0..rows {
        for c in 0..cols {
            let at = if layout == L::COLUMN_MAJOR {
                c * stride + r * size
            } else {
                r * stride + c * size
            };
            out.extend_from_slice(data.get(at..at + size).unwrap_or(&[]));
        }
    }
    out
}

/// f32 row-major → f16 column-major with `vkCmdConvertCooperativeVectorMatrixNV`, against the
/// host conversion of the same matrix: "same" or what differs.
fn queue_conversion(ctx: &Ctx) -> Result<String, String> {
    let (rows, cols) = (24usize, 40usize);
    let values = sample_f32(rows * cols);
    let conversion = MatrixConversion {
        rows: rows as u32,
        cols: cols as u32,
        src_type: C::FLOAT32,
        dst_type: C::FLOAT16,
        src_layout: L::ROW_MAJOR,
        src_stride: cols * 4,
        dst_layout: L::COLUMN_MAJOR,
        dst_stride: rows * 2,
    };
    let host = convert_matrix(&ctx.device, &conversion, &f32_bytes(&values))
        .map_err(|e| format!("host conversion: {e:?}"))?;
    let buffer = ctx.host_buffer(16384);
    buffer.fill(0);
    buffer.write(0, &f32_bytes(&values));
    let base = ctx.device_address(buffer.buffer);
    let mut size = host.len();
    let info = vk::ConvertCooperativeVectorMatrixInfoNV {
        src_size: rows * cols * 4,
        src_data: vk::DeviceOrHostAddressConstKHR {
            device_address: base,
        },
        dst_size: &mut size,
        dst_data: vk::DeviceOrHostAddressKHR {
            device_address: base + 8192,
        },
        src_component_type: C::FLOAT32,
        dst_component_type: C::FLOAT16,
        num_rows: rows as u32,
        num_columns: cols as u32,
        src_layout: L::ROW_MAJOR,
        src_stride: cols * 4,
        dst_layout: L::COLUMN_MAJOR,
        dst_stride: rows * 2,
        ..Default::default()
    };
    ctx.run(|d, cb| {
        // SAFETY: recording; both addresses lie in the buffer's memory, 64-byte aligned.
        unsafe { d.cmd_convert_cooperative_vector_matrix_nv(cb, &[info]) };
    });
    let mem = buffer.read();
    let queue = &mem[8192..8192 + host.len()];
    let differ = queue
        .chunks(2)
        .zip(host.chunks(2))
        .filter(|(a, b)| a != b)
        .count();
    Ok(if differ == 0 {
        format!(
            "f32 row -> f16 col on the queue: same as on the host ({} bytes)",
            host.len()
        )
    } else {
        format!("f32 row -> f16 col on the queue: {differ} elements differ from the host's")
    })
}

/// One element as a number (NaN for every NaN), by the name `run` wrote for its type.
fn value(ty: &str, bytes: &[u8]) -> f64 {
    match (ty, bytes.len()) {
        ("f32", 4) => f64::from(f32::from_le_bytes(bytes.try_into().unwrap_or_default())),
        ("f16", 2) => f16_value(u16::from_le_bytes(bytes.try_into().unwrap_or_default())),
        ("s8", 1) => f64::from(bytes[0] as i8),
        (_, 1) => f64::from(bytes[0]),
        _ => f64::NAN,
    }
}

fn f16_value(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f64::from(h & 0x3ff);
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

fn compare(a: &str, b: &str) -> Result<ExitCode, String> {
    let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"));
    let (ta, tb) = (read(a)?, read(b)?);
    let name = |t: &str| {
        t.lines()
            .find_map(|l| l.strip_prefix("device "))
            .unwrap_or("?")
            .to_string()
    };
    let (na, nb) = (name(&ta), name(&tb));
    println!("A: {na} ({a})\nB: {nb} ({b})");
    for kind in ["vector ", "matrix "] {
        let rows = |t: &str| -> BTreeSet<String> {
            t.lines()
                .filter_map(|l| l.strip_prefix(kind))
                .map(str::to_string)
                .collect()
        };
        let (ra, rb) = (rows(&ta), rows(&tb));
        println!(
            "{}properties: {} in A, {} in B, {} in both",
            kind,
            ra.len(),
            rb.len(),
            ra.intersection(&rb).count()
        );
        for r in rb.difference(&ra) {
            println!("  only in B: {r}");
        }
        for r in ra.difference(&rb) {
            println!("  only in A: {r}");
        }
    }
    let conversions = |t: &str| -> Vec<(String, String, String)> {
        t.lines()
            .filter_map(|l| l.strip_prefix("conversion "))
            .filter_map(|l| {
                let mut parts = l.splitn(3, " | ");
                Some((
                    parts.next()?.to_string(),
                    parts.next()?.to_string(),
                    parts.next()?.to_string(),
                ))
            })
            .collect()
    };
    let mut differing = 0;
    for (name, ty, hex) in conversions(&ta) {
        let Some((_, ty_b, hex_b)) = conversions(&tb).into_iter().find(|c| c.0 == name) else {
            println!("{name}: not in B");
            continue;
        };
        if ty == "error" || ty_b == "error" {
            println!("{name}: A {ty} {}, B {ty_b} {}", short(&hex), short(&hex_b));
            differing += 1;
            continue;
        }
        let bytes = |h: &str| -> Vec<u8> {
            (0..h.len() / 2)
                .filter_map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).ok())
                .collect()
        };
        let (ba, bb) = (bytes(&hex), bytes(&hex_b));
        let size = match ty.as_str() {
            "f32" | "s32" | "u32" => 4,
            "f16" => 2,
            _ => 1,
        };
        let mut diffs = Vec::new();
        for (i, (ea, eb)) in ba.chunks(size).zip(bb.chunks(size)).enumerate() {
            let (va, vb) = (value(&ty, ea), value(&ty, eb));
            let same = ea == eb || (va.is_nan() && vb.is_nan());
            if !same {
                diffs.push((i, va, vb));
            }
        }
        let count = ba.len() / size;
        if ba.len() != bb.len() {
            println!("{name}: {} elements in A, {} in B", count, bb.len() / size);
            differing += 1;
        } else if diffs.is_empty() {
            println!("{name}: {count} {ty} elements, all equal");
        } else {
            differing += 1;
            println!("{name}: {} of {count} {ty} elements differ", diffs.len());
            let input = sample_f32(count);
            for (i, va, vb) in diffs.iter().take(6) {
                println!(
                    "  element {i} (source {:e}): A {va:e}, B {vb:e}",
                    input.get(*i).copied().unwrap_or(f32::NAN)
                );
            }
        }
    }
    for l in ta.lines().chain(tb.lines()) {
        if l.starts_with("queue ") {
            println!("{l}");
        }
    }
    Ok(if differing == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn short(s: &str) -> &str {
    &s[..s.len().min(60)]
}
