//! Matrix conversion between layouts and component types: the work of
//! `vkConvertCooperativeVectorMatrixNV` and `vkCmdConvertCooperativeVectorMatrixNV`, and the
//! valid-usage rules that need no device (the ones about the device's property list and about
//! addresses are the runtime's).
//!
//! Values are converted with round-to-nearest-even (floats) and copied bit for bit when source
//! and destination have the same type. Only the destination's elements are written (the bytes
//! between the rows of a strided one stay as they were).

use crate::component::ComponentType;
use crate::layout::{Matrix, MatrixLayout, decode, encode};

/// A conversion that breaks a valid-usage rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    #[error(
        "VUID-VkConvertCooperativeVectorMatrixInfoNV-{which}Layout-{vuid}: {which}Stride {stride} \
         must be at least the {line} length ({need} bytes) and a multiple of the element size \
         ({elem} bytes)"
    )]
    Stride {
        which: &'static str,
        vuid: u32,
        stride: usize,
        line: &'static str,
        need: usize,
        elem: usize,
    },
    #[error(
        "VUID-VkConvertCooperativeVectorMatrixInfoNV-srcComponentType-10081: {src:?} and {dst:?} \
         differ, so one must be FLOAT32 or FLOAT16 and the other a lower-precision float"
    )]
    Types {
        src: ComponentType,
        dst: ComponentType,
    },
    #[error(
        "VUID-VkConvertCooperativeVectorMatrixInfoNV-dstComponentType-10082: a {dst:?} destination \
         must have an optimal layout, not {layout:?}"
    )]
    Float8Layout {
        dst: ComponentType,
        layout: MatrixLayout,
    },
    #[error(
        "VkCooperativeVectorPropertiesNV: {ty:?} is an input interpretation only, not a matrix \
         component type"
    )]
    Packed { ty: ComponentType },
}

/// Whether `lower` is a float of lower precision than `wide` (f32 > f16 > bfloat16/float8).
fn narrower(lower: ComponentType, wide: ComponentType) -> bool {
    use ComponentType::*;
    match wide {
        Float32 => matches!(lower, Float16 | BFloat16 | FloatE4M3 | FloatE5M2),
        Float16 => matches!(lower, BFloat16 | FloatE4M3 | FloatE5M2),
        _ => false,
    }
}

fn check_stride(m: &Matrix, which: &'static str, vuid: u32) -> Result<(), ConvertError> {
    let elem = m.ty.bytes();
    let (line, need) = match m.layout {
        MatrixLayout::RowMajor => ("row", m.cols as usize * elem),
        MatrixLayout::ColumnMajor => ("column", m.rows as usize * elem),
        _ => return Ok(()),
    };
    // The spec says "greater than"; the CTS passes strides equal to the length, which every
    // implementation accepts.
    if m.stride < need || !m.stride.is_multiple_of(elem) {
        return Err(ConvertError::Stride {
            which,
            vuid,
            stride: m.stride,
            line,
            need,
            elem,
        });
    }
    Ok(())
}

/// Checks the rules on a conversion from `src` to `dst` that need no device.
pub fn check(src: &Matrix, dst: &Matrix) -> Result<(), ConvertError> {
    for ty in [src.ty, dst.ty] {
        if ty.is_packed() {
            return Err(ConvertError::Packed { ty });
        }
    }
    check_stride(src, "src", 10077)?;
    check_stride(dst, "dst", 10078)?;
    if src.ty != dst.ty && !narrower(src.ty, dst.ty) && !narrower(dst.ty, src.ty) {
        return Err(ConvertError::Types {
            src: src.ty,
            dst: dst.ty,
        });
    }
    if matches!(dst.ty, ComponentType::FloatE4M3 | ComponentType::FloatE5M2)
        && dst.layout.is_strided()
    {
        return Err(ConvertError::Float8Layout {
            dst: dst.ty,
            layout: dst.layout,
        });
    }
    Ok(())
}

/// Converts `src_bytes` (a `src` matrix, at least `src.footprint()` bytes) into `dst_bytes` (at
/// least `dst.size()` bytes). The pair must have passed [`check`] and have the same shape.
pub fn convert(src: &Matrix, src_bytes: &[u8], dst: &Matrix, dst_bytes: &mut [u8]) {
    if !dst.layout.is_strided() {
        // An optimal matrix's padding is zeros, so that converted bytes never depend on what
        // the destination held.
        let end = dst.size().min(dst_bytes.len());
        if let Some(pad) = dst_bytes.get_mut(dst.footprint().min(end)..end) {
            pad.fill(0);
        }
    }
    let same = src.ty == dst.ty;
    let (sw, dw) = (src.ty.bytes(), dst.ty.bytes());
    for row in 0..src.rows.min(dst.rows) as usize {
        for col in 0..src.cols.min(dst.cols) as usize {
            let (from, to) = (src.offset(row, col), dst.offset(row, col));
            let (Some(s), Some(d)) = (
                src_bytes.get(from..from + sw),
                dst_bytes.get_mut(to..to + dw),
            ) else {
                continue;
            };
            if same {
                d.copy_from_slice(s);
            } else {
                let value = decode(src.ty, ComponentType::UInt64.load(s));
                let bits = encode(dst.ty, value);
                d.copy_from_slice(&bits.to_le_bytes()[..dw]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Number;

    fn strided(rows: u32, cols: u32, ty: ComponentType, layout: MatrixLayout) -> Matrix {
        let stride = match layout {
            MatrixLayout::RowMajor => cols as usize * ty.bytes(),
            _ => rows as usize * ty.bytes(),
        };
        Matrix {
            rows,
            cols,
            ty,
            layout,
            stride,
        }
    }

    #[test]
    fn round_trips_through_every_layout() {
        use MatrixLayout::*;
        for ty in [
            ComponentType::Float16,
            ComponentType::Float32,
            ComponentType::SInt8,
            ComponentType::UInt8,
        ] {
            let (rows, cols) = (11u32, 5u32);
            let src = strided(rows, cols, ty, RowMajor);
            let mut bytes = vec![0u8; src.size()];
            for r in 0..rows as usize {
                for c in 0..cols as usize {
                    let v = (r * 7 + c * 3) as i64 % 19 - 9;
                    let n = if ty.is_float() {
                        Number::Float(v as f64 * 0.5)
                    } else {
                        Number::Int(v)
                    };
                    src.write(&mut bytes, r, c, n);
                }
            }
            for mid in [ColumnMajor, InferencingOptimal, TrainingOptimal] {
                let m = Matrix {
                    stride: if mid == ColumnMajor { 64 } else { 0 },
                    ..strided(rows, cols, ty, mid)
                };
                check(&src, &m).unwrap();
                let mut a = vec![0xa5u8; m.size()];
                convert(&src, &bytes, &m, &mut a);
                let mut back = vec![0u8; src.size()];
                convert(&m, &a, &src, &mut back);
                assert_eq!(back, bytes, "{ty:?} via {mid:?}");
            }
        }
    }

    #[test]
    fn rules() {
        use ComponentType::*;
        use MatrixLayout::*;
        let f32m = strided(4, 4, Float32, RowMajor);
        let e4 = Matrix {
            layout: RowMajor,
            ..strided(4, 4, FloatE4M3, RowMajor)
        };
        assert!(matches!(
            check(&f32m, &e4),
            Err(ConvertError::Float8Layout { .. })
        ));
        let e4 = Matrix {
            layout: InferencingOptimal,
            ..e4
        };
        check(&f32m, &e4).unwrap();
        let s8 = strided(4, 4, SInt8, RowMajor);
        assert!(matches!(check(&f32m, &s8), Err(ConvertError::Types { .. })));
        let short = Matrix { stride: 12, ..f32m };
        assert!(matches!(
            check(&short, &f32m),
            Err(ConvertError::Stride { vuid: 10077, .. })
        ));
    }

    #[test]
    fn float8_overflow_follows_the_conversion_rules() {
        use ComponentType::*;
        let src = strided(1, 3, Float32, MatrixLayout::RowMajor);
        let mut bytes = vec![0u8; 12];
        for (c, v) in [1000.0f64, 0.3, -1e6].into_iter().enumerate() {
            src.write(&mut bytes, 0, c, Number::Float(v));
        }
        let e4 = Matrix {
            rows: 1,
            cols: 3,
            ty: FloatE4M3,
            layout: MatrixLayout::InferencingOptimal,
            stride: 0,
        };
        let mut out = vec![0u8; e4.size()];
        convert(&src, &bytes, &e4, &mut out);
        assert!(matches!(e4.read(&out, 0, 0), Number::Float(x) if x.is_nan()));
        assert_eq!(e4.read(&out, 0, 1), Number::Float(0.3125));
    }
}
