//! NumPy `.npy` files (format versions 1–3, little-endian, C order) to and from [`Tensor`]s, for
//! the graph runner (`cargo xtask graph-run`) and tests against numpy or TOSA's reference model.
//!
//! Element types by `descr`: `|b1` bool, `|i1`/`|u1` i8, `<i2`/`<u2` i16, `<i4`/`<u4` i32, `<i8`
//! i48 (TOSA's int48 in 64-bit containers), `<f2` f16, `<f4` f32. bf16 and fp8, which numpy has
//! no standard code for, are their raw bits as TOSA's tools write them: `<V2` bf16, `<V1`
//! fp8e4m3, `|u1` fp8e5m2 (raw `<u2` / `|u1` / `|V…` files are read too when the caller names
//! the TOSA type). Never panics on a malformed file.

use crate::dtype::DType;
use crate::error::{GraphError, Result};
use crate::exec::Tensor;
use crate::ir::ValueInfo;

fn err(message: impl Into<String>) -> GraphError {
    GraphError::new(".npy", message)
}

/// The `descr` for `dtype`.
pub fn descr(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "|b1",
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I48 => "<i8",
        DType::F16 => "<f2",
        DType::Bf16 => "<V2",
        DType::F32 => "<f4",
        DType::Fp8E4m3 => "<V1",
        DType::Fp8E5m2 => "|u1",
    }
}

/// Writes `t` as a version-1 `.npy` file.
pub fn write(t: &Tensor) -> Vec<u8> {
    let shape = match t.shape.len() {
        1 => format!("({},)", t.shape[0]),
        _ => format!(
            "({})",
            t.shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
        descr(t.dtype)
    );
    // Magic (6) + version (2) + length (2) + header + '\n', padded to 64 bytes.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&t.to_bytes());
    out
}

/// Reads a `.npy` file as a tensor of `want` (its type and shape must match; an i8/u8, i16/u16
/// or i32/u32 file of the right width is accepted for the signless TOSA integer types).
pub fn read(bytes: &[u8], want: &ValueInfo) -> Result<Tensor> {
    let (descr_s, shape, data) = parse(bytes)?;
    let ok = descr_s == descr(want.dtype)
        || match want.dtype {
            DType::I8 => descr_s == "|u1",
            DType::I16 => descr_s == "<u2",
            DType::I32 => descr_s == "<u4",
            DType::Bool => descr_s == "|u1",
            DType::Bf16 => ["<u2", "|V2"].contains(&descr_s.as_str()),
            DType::Fp8E4m3 => ["|u1", "|V1"].contains(&descr_s.as_str()),
            DType::Fp8E5m2 => ["<V1", "|V1"].contains(&descr_s.as_str()),
            _ => false,
        };
    if !ok {
        return Err(err(format!(
            "element type {descr_s}, {} ({}) expected",
            descr(want.dtype),
            want.dtype.name()
        )));
    }
    // numpy writes TOSA's rank 0 as shape (); converters give rank-0 tensors shape [1].
    let same = shape == want.shape || (shape.is_empty() && want.shape == [1]);
    if !same {
        return Err(err(format!("shape {shape:?}, {:?} expected", want.shape)));
    }
    Tensor::from_bytes(want, data)
}

/// Reads a `.npy` file's element type code and shape and returns them with the data bytes.
pub fn parse(bytes: &[u8]) -> Result<(String, Vec<usize>, &[u8])> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(err("not a .npy file"));
    }
    let (len, start) = match bytes[6] {
        1 => (
            usize::from(u16::from_le_bytes([bytes[8], bytes[9]])),
            10usize,
        ),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(err(format!("format version {v}"))),
    };
    let header = bytes
        .get(start..start.saturating_add(len))
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or_else(|| err("a truncated or non-text header"))?;
    let field = |key: &str| -> Option<&str> {
        let at = header.find(&format!("'{key}'"))? + key.len() + 2;
        Some(header[at..].trim_start().strip_prefix(':')?.trim_start())
    };
    let descr_s = field("descr")
        .and_then(|r| r.strip_prefix('\''))
        .and_then(|r| r.split('\'').next())
        .ok_or_else(|| err("no descr"))?
        .to_string();
    if field("fortran_order").is_some_and(|r| r.starts_with("True")) {
        return Err(err("Fortran-order arrays are not supported"));
    }
    let shape_text = field("shape")
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.split(')').next())
        .ok_or_else(|| err("no shape"))?;
    let shape = shape_text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| err(format!("shape entry {s:?}")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((descr_s, shape, &bytes[start + len..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Values;

    #[test]
    fn round_trips_and_rejects_mismatches() {
        let t = Tensor::new(
            DType::I16,
            vec![2, 3],
            Values::Int(vec![1, -2, 3, -4, 5, -32768]),
        )
        .unwrap();
        let bytes = write(&t);
        assert_eq!(
            (10 + usize::from(u16::from_le_bytes([bytes[8], bytes[9]]))) % 64,
            0
        );
        assert_eq!(read(&bytes, &t.info()).unwrap(), t);
        let (d, shape, _) = parse(&bytes).unwrap();
        assert_eq!((d.as_str(), shape), ("<i2", vec![2, 3]));
        let other = ValueInfo {
            dtype: DType::I16,
            shape: vec![3, 2],
        };
        assert!(read(&bytes, &other).is_err());
        let f = ValueInfo {
            dtype: DType::F32,
            shape: vec![2, 3],
        };
        assert!(read(&bytes, &f).is_err());
        for n in 0..bytes.len() {
            let _ = read(&bytes[..n], &t.info());
        }
        let one = Tensor::new(DType::F32, vec![1], Values::Float(vec![2.5])).unwrap();
        assert!(String::from_utf8_lossy(&write(&one)).contains("'shape': (1,)"));
    }
}
