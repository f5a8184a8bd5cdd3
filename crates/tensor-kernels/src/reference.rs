//! The scalar oracle: [`reference_copy`].
//!
//! Deliberately naive — an odometer over every coordinate copying
//! `elem_size` bytes with checked slice indexing — so that it is obviously
//! correct and can judge every optimised kernel.

/// Copies every element of `dims` from the `src_strides` layout in `src` to
/// the `dst_strides` layout in `dst`, one element at a time.
///
/// Offsets are relative to the start of each slice. Performs no validation
/// beyond what slice indexing does: panics if the slices are too short or the
/// lengths of `dims` and the strides differ.
pub fn reference_copy(
    elem_size: usize,
    dims: &[u64],
    src_strides: &[u64],
    dst_strides: &[u64],
    src: &[u8],
    dst: &mut [u8],
) {
    assert_eq!(dims.len(), src_strides.len(), "dims / src_strides length");
    assert_eq!(dims.len(), dst_strides.len(), "dims / dst_strides length");
    if dims.contains(&0) {
        return;
    }
    let rank = dims.len();
    let mut coord = vec![0u64; rank];
    loop {
        let mut s = 0u64;
        let mut d = 0u64;
        for i in 0..rank {
            s += coord[i] * src_strides[i];
            d += coord[i] * dst_strides[i];
        }
        let (s, d) = (s as usize, d as usize);
        dst[d..d + elem_size].copy_from_slice(&src[s..s + elem_size]);
        // Odometer: bump the innermost coordinate, carrying outwards.
        let mut i = rank;
        loop {
            if i == 0 {
                return;
            }
            i -= 1;
            coord[i] += 1;
            if coord[i] < dims[i] {
                break;
            }
            coord[i] = 0;
        }
    }
}
