//! The GEMMs behind MATMUL and the convolutions, and how they read the rows of `A` in place.
//!
//! - [`f32`]: float32 GEMM (AVX-512F, AVX2 + FMA or portable kernels).
//! - [`i8`]: exact int8 GEMM with int32 results (AVX-512 VNNI, AVX2 or portable kernels).
//!
//! `A` is never packed: a GEMM reads row `r` through [`Rows`] as runs of elements of one slice,
//! which is a plain matrix (one run per row) or a convolution's padded input image (one run of
//! taps per kernel row: an implicit GEMM with no im2col copy).

pub mod f32;
pub mod i8;

/// A cache line.
#[repr(C, align(64))]
#[derive(Debug, Clone, Copy)]
struct Line([u8; 64]);

// SAFETY: 64 bytes with no padding (the alignment equals the size); any bit pattern is valid.
unsafe impl bytemuck::Zeroable for Line {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for Line {}

/// A zeroed buffer of `len` elements starting on a cache line, so that a kernel's 64-byte rows of
/// packed weights never straddle two lines (a split load stalls the kernel on every step).
#[derive(Debug, Clone)]
pub struct Aligned<T> {
    lines: Vec<Line>,
    len: usize,
    _element: std::marker::PhantomData<T>,
}

impl<T: bytemuck::Pod> Aligned<T> {
    /// `len` zeroed elements.
    ///
    /// # Errors
    /// When the size overflows or the memory cannot be had.
    pub fn zeroed(len: usize) -> Result<Aligned<T>, &'static str> {
        let bytes = len
            .checked_mul(size_of::<T>())
            .ok_or("GEMM: the packed matrix is too large")?;
        let mut lines = Vec::new();
        lines
            .try_reserve_exact(bytes.div_ceil(64))
            .map_err(|_| "GEMM: out of memory for the packed matrix")?;
        lines.resize(bytes.div_ceil(64), Line([0; 64]));
        Ok(Aligned {
            lines,
            len,
            _element: std::marker::PhantomData,
        })
    }

    /// The elements.
    pub fn as_slice(&self) -> &[T] {
        &bytemuck::cast_slice::<Line, T>(&self.lines)[..self.len]
    }

    /// The elements, to write.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut bytemuck::cast_slice_mut::<Line, T>(&mut self.lines)[..self.len]
    }
}

/// The rows of a GEMM's `A`: row `r`'s K elements are the runs `data[start(r) + offset .. +
/// run]` for each `offset` of `runs`, in order, where `start(r)` is [`Starts`]' for row
/// `first + r`.
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a, T> {
    /// The elements.
    pub data: &'a [T],
    /// Where each row's first run starts, less its offset.
    pub starts: Starts,
    /// Rows of `starts` before this matrix's first row.
    pub first: usize,
    /// Each run's offset from its row's start.
    pub runs: &'a [usize],
    /// Elements per run.
    pub run: usize,
}

/// Where the rows of a [`Rows`] start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Starts {
    /// Row `r` starts at `r·stride` (a row-major matrix, or converted im2col rows).
    Strided(usize),
    /// Row `r` is output position `(n, oy, ox)` of a convolution (`r = (n·oh + oy)·ow + ox`)
    /// over a padded input image, and starts at its top-left tap: `n·image + oy·row + ox·col`.
    Image {
        /// Output height and width.
        oh: usize,
        ow: usize,
        /// Elements per padded input image.
        image: usize,
        /// Elements between the top-left taps of vertically adjacent outputs (stride_y·pw·ic).
        row: usize,
        /// Elements between the top-left taps of horizontally adjacent outputs (stride_x·ic).
        col: usize,
    },
}

impl<'a, T> Rows<'a, T> {
    /// A row-major matrix: row `r` is the `len` elements at `data[r·stride..]`.
    pub fn matrix(data: &'a [T], stride: usize, len: usize) -> Self {
        Rows {
            data,
            starts: Starts::Strided(stride),
            first: 0,
            runs: &[0],
            run: len,
        }
    }

    /// The starts of the `MR` rows of the kernel block at row `r` (of which `rows` exist: the
    /// rest repeat the first, their results to be dropped), each checked to have all its runs
    /// inside `data`.
    ///
    /// # Errors
    /// When a row reads outside its data.
    pub fn block_starts<const MR: usize>(
        &self,
        r: usize,
        rows: usize,
    ) -> Result<[usize; MR], &'static str> {
        let mut starts = [0usize; MR];
        let rows = rows.clamp(1, MR);
        self.starts(r, &mut starts[..rows]);
        let (have, pad) = starts.split_at_mut(rows);
        pad.fill(have[0]);
        let last = self.runs.iter().copied().max().unwrap_or(0) + self.run;
        if starts
            .iter()
            .any(|s| s.checked_add(last).is_none_or(|end| end > self.data.len()))
        {
            return Err("GEMM: a row reads outside its data");
        }
        Ok(starts)
    }

    /// The rows from row `rows` on.
    pub fn skip(&self, rows: usize) -> Self
    where
        T: Copy,
    {
        Rows {
            first: self.first + rows,
            ..*self
        }
    }

    /// Writes the starts of rows `r..r + out.len()` into `out` (one division for the first, then
    /// steps).
    pub fn starts(&self, r: usize, out: &mut [usize]) {
        let r = self.first + r;
        match self.starts {
            Starts::Strided(stride) => {
                for (i, s) in out.iter_mut().enumerate() {
                    *s = (r + i) * stride;
                }
            }
            Starts::Image {
                oh,
                ow,
                image,
                row,
                col,
            } => {
                if ow == 0 || oh == 0 {
                    return;
                }
                let (mut n, rem) = (r / (oh * ow), r % (oh * ow));
                let (mut oy, mut ox) = (rem / ow, rem % ow);
                for s in out {
                    *s = n * image + oy * row + ox * col;
                    ox += 1;
                    if ox == ow {
                        ox = 0;
                        oy += 1;
                        if oy == oh {
                            oy = 0;
                            n += 1;
                        }
                    }
                }
            }
        }
    }
}

/// A stretch of consecutive K elements inside one run: `len` elements from `offset` past the
/// row's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seg {
    /// Offset from the row's start.
    pub offset: usize,
    /// Elements.
    pub len: usize,
}

/// The segments that make K elements `k0..k1` of a row of runs `runs` (each `run` long) into
/// `out`.
pub fn segments(runs: &[usize], run: usize, k0: usize, k1: usize, out: &mut Vec<Seg>) {
    out.clear();
    let mut k = k0;
    while k < k1 && run > 0 {
        let (s, within) = (k / run, k % run);
        let Some(&offset) = runs.get(s) else { break };
        let len = (run - within).min(k1 - k);
        out.push(Seg {
            offset: offset + within,
            len,
        });
        k += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_buffers_start_on_a_line() {
        for len in [0, 1, 17, 1000] {
            let mut a = Aligned::<i16>::zeroed(len).unwrap();
            assert_eq!(a.as_slice().len(), len);
            assert!(a.as_mut_slice().iter().all(|&v| v == 0));
            assert_eq!(a.as_slice().as_ptr() as usize % 64, 0);
        }
    }

    #[test]
    fn image_starts_step_through_rows_and_images() {
        let rows = Rows::<f32> {
            data: &[],
            starts: Starts::Image {
                oh: 2,
                ow: 3,
                image: 1000,
                row: 100,
                col: 10,
            },
            first: 4,
            runs: &[0],
            run: 1,
        };
        let mut out = [0; 5];
        rows.starts(0, &mut out);
        assert_eq!(out, [110, 120, 1000, 1010, 1020]);
        rows.skip(3).starts(1, &mut out[..2]);
        assert_eq!(out[..2], [1020, 1100]);
        let strided = Rows::<f32> {
            starts: Starts::Strided(7),
            ..rows
        };
        strided.starts(1, &mut out[..2]);
        assert_eq!(out[..2], [35, 42]);
    }

    #[test]
    fn segments_cut_runs_at_block_edges() {
        let mut out = Vec::new();
        segments(&[0, 100, 200], 10, 5, 25, &mut out);
        assert_eq!(
            out,
            [
                Seg { offset: 5, len: 5 },
                Seg {
                    offset: 100,
                    len: 10
                },
                Seg {
                    offset: 200,
                    len: 5
                }
            ]
        );
        segments(&[0], 512, 256, 512, &mut out);
        assert_eq!(
            out,
            [Seg {
                offset: 256,
                len: 256
            }]
        );
        segments(&[], 0, 0, 0, &mut out);
        assert!(out.is_empty());
    }
}
