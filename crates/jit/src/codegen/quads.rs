//! Buffer loads through addresses that vary from lane to lane in no affine way — a 2-D or 3-D
//! workgroup whose x size is below 16 (IREE's `[8, 2, 1]` matmul tiles), coordinates from
//! division and remainder, clamps. Each chunk checks at run time, four lanes (a quad) at a
//! time, whether the lanes' addresses step by the row they read (a dense quad: one 16-byte load
//! per quad, or four for `vec4` rows) or are all equal (a shared quad: one load, broadcast),
//! with one range check per quad; when a quad is neither, or leaves the window, the chunk
//! gathers lane by lane as before.
//!
//! A `vec4` group whose quads are neither then checks for rows evenly spaced across the quad,
//! with the step read off the first two lanes at run time (IREE's `[8, 8, 1]` matmul tiles
//! read their B operand two or more rows apart): four 16-byte loads and a transpose per quad
//! (`strided_quads`).
//!
//! Three access shapes take this path: a 4-byte load; a `vec4` group (four 4-byte loads at
//! +0..+12, see `vec4`); and a byte group — four 1-byte loads through one address at +0..+3
//! (a packed `vec4<i8>` per lane, how IREE's int8 matmuls load an operand of an integer dot
//! product) — loaded as one 4-byte word per lane and split into its bytes. A byte group at an
//! affine address of stride 4 (back-to-back words) takes a single range check. Split bytes
//! remember their word in `Gen::packed_bytes`, so an 8-bit dot product of them (`dot`) reads
//! the words instead of packing the bytes again; truncating a word (or the word shifted right
//! by a whole byte, `Gen::shifted_words`) to 8 bits records the same.
//!
//! `PhysicalStorageBuffer` byte groups and `vec4` groups at varying 64-bit addresses take the
//! same paths, each quad's range looked up in the live allocations (one lookup per quad, all
//! through one site slot, so a hit costs a compare); a chunk whose quads are neither dense
//! nor shared reads inside the chunk's span when one allocation holds it
//! ([`Gen::physical_words`], [`Gen::physical_vec4`]).
//!
//! Invariants: a fast path runs only when every quad has the addresses it assumes and its whole
//! span lies inside the window (a 32-bit address also does not wrap inside a quad), so it reads
//! exactly the bytes the lanes' own loads would. The slow paths are the single-lane loads the
//! ops would have run (a byte group's bytes each checked on their own), so a lane partly out of
//! range reads what it read before. A packed-bytes entry maps a byte vector to the words it
//! was computed from: the words are operands of its definition, so they dominate its uses.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};

use super::Gen;
use super::values::{JVal, app_flags, lane_flags};

/// Lanes per quad, and quads per chunk.
const QUAD: usize = 4;
const QUADS: usize = 4;

/// Where a quad's bytes are checked: inside a bound window (`ptr`, `len` bytes; addresses are
/// offsets into it), or, for device addresses, in the live allocations (one lookup per quad,
/// through one site slot for the access's quads).
#[derive(Clone, Copy)]
pub(super) enum Window {
    Bound { ptr: Value, len: Value },
    Physical,
}

/// Interleaves the low (`0`) or high (`8`) halves of two byte vectors (`punpck[lh]bw`).
fn unpack_bytes(half: u8) -> [u8; 16] {
    std::array::from_fn(|i| half + (i / 2) as u8 + if i % 2 == 1 { 16 } else { 0 })
}

/// Interleaves the low or high halves of two vectors of 16-bit lanes (`punpck[lh]wd`).
fn unpack_words(half: u8) -> [u8; 16] {
    std::array::from_fn(|i| {
        let (pair, byte) = (i / 4, i % 4);
        let from_second = if byte >= 2 { 16 } else { 0 };
        half + (2 * pair) as u8 + (byte % 2) as u8 + from_second
    })
}

impl Gen<'_> {
    /// Whether `a` is an address the quad paths take: varying, of 32 or 64 bits.
    pub(super) fn quad_address(a: &Option<(JVal, usize)>) -> bool {
        matches!(a, Some((JVal::Varying(vs), bytes @ (4 | 8))) if vs.len() == *bytes)
    }

    /// For each quad of the varying address `vs` (`abytes`-byte lanes) + `offset`: the address
    /// of its first lane's bytes in the window (the scratch bytes when out of it); and whether
    /// every quad's lanes are `first + i·step` and `3·step + row` bytes from `first` lie in the
    /// window.
    #[allow(clippy::too_many_arguments)]
    fn quads(
        &mut self,
        window: Window,
        vs: &[Value],
        abytes: usize,
        offset: u64,
        step: u64,
        row: u64,
    ) -> ([Value; QUADS], Value) {
        let per_vector = 16 / abytes;
        let vector_ty = if abytes == 4 { I32X4 } else { I64X2 };
        let mut ok = None;
        let mut at = [vs[0]; QUADS];
        let slot = self.physical_site % crate::ctx::PHYSICAL_SITES;
        if matches!(window, Window::Physical) {
            self.physical_site += 1;
        }
        for (q, at) in at.iter_mut().enumerate() {
            let first_vector = q * QUAD / per_vector;
            let first = self.b.ins().extractlane(vs[first_vector], 0);
            let start = self.b.ins().splat(vector_ty, first);
            let mut same = None;
            let quad = &vs[first_vector..first_vector + QUAD / per_vector];
            for (j, &lanes) in (first_vector..).zip(quad) {
                let steps = self.const_vec(abytes, j, |lane| (lane % QUAD) as u64 * step);
                let want = self.b.ins().iadd(start, steps);
                let eq = self.b.ins().icmp(IntCC::Equal, lanes, want);
                same = Some(match same {
                    None => eq,
                    Some(s) => self.b.ins().band(s, eq),
                });
            }
            let mut good = match same {
                Some(s) => self.b.ins().vall_true(s),
                None => self.b.ins().iconst(I8, 0),
            };
            let first = self.fit(first, I64);
            if abytes == 4 && step > 0 {
                // No lane's 32-bit address wraps: first + 3·step stays below 2³².
                let fits = self.b.ins().icmp_imm_s(
                    IntCC::UnsignedLessThanOrEqual,
                    first,
                    (u64::from(u32::MAX) - 3 * step) as i64,
                );
                good = self.b.ins().band(good, fits);
            }
            let from = self.b.ins().iadd_imm_s(first, offset as i64);
            let (p, inside) = match window {
                Window::Bound { ptr, len } => self.checked(ptr, len, from, 3 * step + row),
                Window::Physical => {
                    let n = self.b.ins().iconst(I64, (3 * step + row) as i64);
                    self.physical_range_in(slot, from, n)
                }
            };
            good = self.b.ins().band(good, inside);
            *at = p;
            ok = Some(match ok {
                None => good,
                Some(o) => self.b.ins().band(o, good),
            });
        }
        let ok = ok.unwrap_or_else(|| self.b.ins().iconst(I8, 0));
        (at, ok)
    }

    /// For each quad of the varying address `a` + `offset`: the address of its first lane's
    /// bytes in the window and its lanes' step (`I64`, the second lane's address minus the
    /// first's); and whether every quad's lanes are `first + i·step` with a step from 0 to
    /// 2^20, and `3·step + row` bytes from `first` lie in the window (a 32-bit address also
    /// does not wrap inside a quad). The run-time-step form of `quads`.
    fn strided_quads(
        &mut self,
        window: Window,
        a: &Option<(JVal, usize)>,
        offset: u64,
        row: u64,
    ) -> ([Value; QUADS], [Value; QUADS], Value) {
        let zero = self.b.ins().iconst(I64, 0);
        let (mut at, mut steps) = ([zero; QUADS], [zero; QUADS]);
        let (vs, abytes) = match a {
            Some((JVal::Varying(vs), b @ (4 | 8))) if vs.len() == *b => (vs.clone(), *b),
            _ => return (at, steps, self.b.ins().iconst(I8, 0)),
        };
        let slot = self.physical_site % crate::ctx::PHYSICAL_SITES;
        if matches!(window, Window::Physical) {
            self.physical_site += 1;
        }
        let mut ok: Option<Value> = None;
        for q in 0..QUADS {
            let lane = |g: &mut Self, i: usize| {
                let per_vector = 16 / abytes;
                let l = q * QUAD + i;
                let x =
                    g.b.ins()
                        .extractlane(vs[l / per_vector], (l % per_vector) as u8);
                g.fit(x, I64)
            };
            let first = lane(self, 0);
            let second = lane(self, 1);
            let step = self.b.ins().isub(second, first);
            let mut good = self
                .b
                .ins()
                .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, step, 1 << 20);
            // Lanes 2 and 3 (lanes 0 and 1 hold by construction), in the address width.
            for i in 2..QUAD {
                let want = self.b.ins().imul_imm_s(step, i as i64);
                let want = self.b.ins().iadd(first, want);
                let have = lane(self, i);
                let want = if abytes == 4 {
                    let m = self.b.ins().iconst(I64, i64::from(u32::MAX));
                    self.b.ins().band(want, m)
                } else {
                    want
                };
                let eq = self.b.ins().icmp(IntCC::Equal, have, want);
                good = self.b.ins().band(good, eq);
            }
            if abytes == 4 {
                // No lane's 32-bit address wraps: first + 3·step stays below 2³².
                let last = self.b.ins().imul_imm_s(step, 3);
                let last = self.b.ins().iadd(first, last);
                let fits = self.b.ins().icmp_imm_s(
                    IntCC::UnsignedLessThanOrEqual,
                    last,
                    i64::from(u32::MAX),
                );
                good = self.b.ins().band(good, fits);
            }
            let from = self.b.ins().iadd_imm_s(first, offset as i64);
            let span = self.b.ins().imul_imm_s(step, 3);
            let span = self.b.ins().iadd_imm_s(span, row as i64);
            let (p, inside) = match window {
                Window::Bound { ptr, len } => {
                    let fits = self
                        .b
                        .ins()
                        .icmp(IntCC::UnsignedGreaterThanOrEqual, len, span);
                    let room = self.b.ins().isub(len, span);
                    let within = self
                        .b
                        .ins()
                        .icmp(IntCC::UnsignedLessThanOrEqual, from, room);
                    let inside = self.b.ins().band(fits, within);
                    let host = self.b.ins().iadd(ptr, from);
                    let scratch = self.scratch_addr();
                    (self.b.ins().select(inside, host, scratch), inside)
                }
                Window::Physical => self.physical_range_in(slot, from, span),
            };
            good = self.b.ins().band(good, inside);
            at[q] = p;
            steps[q] = step;
            ok = Some(match ok {
                None => good,
                Some(o) => self.b.ins().band(o, good),
            });
        }
        (at, steps, ok.unwrap_or_else(|| self.b.ins().iconst(I8, 0)))
    }

    /// `fast()` when `ok`, else `slow()`: `count` `I32X4` values either way.
    pub(super) fn fast_or(
        &mut self,
        ok: Value,
        count: usize,
        fast: impl FnOnce(&mut Self) -> Vec<Value>,
        slow: impl FnOnce(&mut Self) -> Vec<Value>,
    ) -> Vec<Value> {
        let join = self.b.create_block();
        let params: Vec<Value> = (0..count)
            .map(|_| self.b.append_block_param(join, I32X4))
            .collect();
        let (fast_block, slow_block) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, fast_block, &[], slow_block, &[]);
        for (block, path) in [
            (
                fast_block,
                Box::new(fast) as Box<dyn FnOnce(&mut Self) -> Vec<Value>>,
            ),
            (slow_block, Box::new(slow)),
        ] {
            self.enter_sealed(block);
            let args: Vec<BlockArg> = path(self).into_iter().map(BlockArg::Value).collect();
            self.b.ins().jump(join, &args);
        }
        self.enter_sealed(join);
        params
    }

    /// The quad paths of a load of a `row`-byte row per lane at the varying address `a` +
    /// `offset`: `dense(p)` reads a dense quad's four rows from `p`, `shared(p)` a shared
    /// quad's one row; each gives `per_quad` `I32X4` values, quad by quad; `slow` gives all of
    /// them, in the same order. `None` when `a` is not a quad address.
    #[allow(clippy::too_many_arguments)]
    fn quad_paths(
        &mut self,
        window: Window,
        a: &Option<(JVal, usize)>,
        offset: u64,
        row: u64,
        per_quad: usize,
        dense: impl Fn(&mut Self, Value) -> Vec<Value>,
        shared: impl Fn(&mut Self, Value) -> Vec<Value>,
        slow: impl FnOnce(&mut Self) -> Vec<Value>,
    ) -> Option<Vec<Value>> {
        if !Self::quad_address(a) {
            return None;
        }
        let (JVal::Varying(vs), abytes) = a.as_ref()? else {
            return None;
        };
        let (vs, abytes) = (vs.clone(), *abytes);
        let (dense_at, dense_ok) = self.quads(window, &vs, abytes, offset, row, row);
        let count = QUADS * per_quad;
        Some(self.fast_or(
            dense_ok,
            count,
            |g| dense_at.iter().flat_map(|&p| dense(g, p)).collect(),
            |g| {
                let (shared_at, shared_ok) = g.quads(window, &vs, abytes, offset, 0, row);
                g.fast_or(
                    shared_ok,
                    count,
                    |g| shared_at.iter().flat_map(|&p| shared(g, p)).collect(),
                    slow,
                )
            },
        ))
    }

    /// Each lane's 4-byte word at the varying address `a` + `offset` (four `I32X4`), through
    /// the quad paths; `None` when `a` is not a quad address.
    pub(super) fn quad_words(
        &mut self,
        window: Window,
        a: &Option<(JVal, usize)>,
        offset: u64,
        slow: impl FnOnce(&mut Self) -> Vec<Value>,
    ) -> Option<Vec<Value>> {
        self.quad_paths(
            window,
            a,
            offset,
            4,
            1,
            |g, p| vec![g.b.ins().load(I32X4, app_flags(), p, 0)],
            |g, p| {
                let x = g.b.ins().load(I32, app_flags(), p, 0);
                vec![g.b.ins().splat(I32X4, x)]
            },
            slow,
        )
    }

    /// The four components of a `vec4` per lane at the varying address `a` + `offset`
    /// (`[component][quad]`), through the quad paths; `slow` gives the components
    /// (`[component][quad]`, flattened) when a quad is neither dense nor shared.
    pub(super) fn quad_vec4(
        &mut self,
        window: Window,
        a: &Option<(JVal, usize)>,
        offset: u64,
        slow: impl FnOnce(&mut Self) -> Vec<Value>,
    ) -> Option<[Vec<Value>; 4]> {
        let by_quad = self.quad_paths(
            window,
            a,
            offset,
            16,
            4,
            |g, p| {
                let rows: Vec<Value> = (0..QUAD)
                    .map(|i| g.b.ins().load(I32X4, app_flags(), p, (16 * i) as i32))
                    .collect();
                g.rows_to_components(&rows).into_iter().flatten().collect()
            },
            |g, p| {
                let row = g.b.ins().load(I32X4, app_flags(), p, 0);
                (0..4u8).map(|c| g.shuffle32(row, row, [c; 4])).collect()
            },
            |g| {
                // Rows evenly spaced (lanes `first + i·step`, a step known only at run time):
                // four 16-byte loads and a transpose per quad.
                let (at, steps, ok) = g.strided_quads(window, a, offset, 16);
                g.fast_or(
                    ok,
                    4 * QUADS,
                    |g| {
                        let mut out = Vec::with_capacity(4 * QUADS);
                        for (&p, &step) in at.iter().zip(&steps) {
                            let mut row_at = p;
                            let mut rows = Vec::with_capacity(QUAD);
                            for i in 0..QUAD {
                                if i > 0 {
                                    row_at = g.b.ins().iadd(row_at, step);
                                }
                                rows.push(g.b.ins().load(I32X4, app_flags(), row_at, 0));
                            }
                            out.extend(g.rows_to_components(&rows).into_iter().flatten());
                        }
                        out
                    },
                    |g| {
                        let comps = slow(g);
                        let mut by_quad = Vec::with_capacity(comps.len());
                        for q in 0..QUADS {
                            for c in 0..4 {
                                by_quad.extend(comps.get(c * QUADS + q).copied());
                            }
                        }
                        by_quad
                    },
                )
            },
        )?;
        let mut out: [Vec<Value>; 4] = Default::default();
        for (i, v) in by_quad.into_iter().enumerate() {
            out[i % 4].push(v);
        }
        Some(out)
    }

    /// The words of a byte group at `a` + `offset` (see the module docs): four `I32X4`, or
    /// `None` for an address this path does not take.
    pub(super) fn byte_group_words(
        &mut self,
        ptr: Value,
        len: Value,
        a: &Option<(JVal, usize)>,
        offset: u64,
    ) -> Option<Vec<Value>> {
        let slow = |g: &mut Self| {
            let bytes: Vec<Value> = (0..4)
                .flat_map(|k| g.gather_lanes(ptr, len, a, offset + k, 1))
                .collect();
            g.pack_bytes(&bytes)
        };
        if let Some((JVal::Affine(base, 4), abytes)) = a {
            let (p, ok) = self.checked_lanes(ptr, len, *base, *abytes, offset, 4, 64);
            let fast = |g: &mut Self| {
                (0..QUADS)
                    .map(|q| g.b.ins().load(I32X4, app_flags(), p, (16 * q) as i32))
                    .collect()
            };
            return Some(self.fast_or(ok, QUADS, fast, slow));
        }
        self.quad_words(Window::Bound { ptr, len }, a, offset, slow)
    }

    /// The span of the chunk's varying 64-bit device addresses `a` + `offset`, each lane's
    /// `row` bytes included: (each lane's device address, whether one allocation holds the whole
    /// span, the host address of device address 0 inside it, the span's end); one lookup
    /// (`physical_range`). `None` for another address.
    fn physical_span_window(
        &mut self,
        a: &Option<(JVal, usize)>,
        offset: u64,
        row: u64,
    ) -> Option<(Vec<Value>, Value, Value, Value)> {
        if !matches!(a, Some((JVal::Varying(_), 8))) {
            return None;
        }
        let lanes: Vec<Value> = (0..16).map(|i| self.lane_offset(a, offset, i)).collect();
        let (mut low, mut high) = (lanes[0], lanes[0]);
        for &x in &lanes[1..] {
            low = self.b.ins().umin(low, x);
            high = self.b.ins().umax(high, x);
        }
        // A span past the address space's end wraps and fails the lookup.
        let reach = self.b.ins().isub(high, low);
        let len = self.b.ins().iadd_imm_s(reach, row as i64);
        let (p, ok) = self.physical_range(low, len);
        // Device address x (inside the span) is at host address `window + x`.
        let window = self.b.ins().isub(p, low);
        let limit = self.b.ins().iadd(low, len);
        Some((lanes, ok, window, limit))
    }

    /// A byte group (see the module docs) at the varying 64-bit device address `a` + `offset`:
    /// the lanes' words (four `I32X4`). Dense or shared quads take one allocation lookup each
    /// (`Window::Physical`); otherwise, when one allocation holds the span from the lowest
    /// lane's address to the highest lane's word (`physical_span_window`), each lane's bytes
    /// are read at their host addresses in it, else each byte of each lane is looked up on its
    /// own, as the single loads do. `None` for another address.
    pub(super) fn physical_words(
        &mut self,
        a: &Option<(JVal, usize)>,
        offset: u64,
    ) -> Option<Vec<Value>> {
        if !matches!(a, Some((JVal::Varying(_), 8))) {
            return None;
        }
        let slow = |g: &mut Self| g.physical_words_in_span(a, offset).unwrap_or_default();
        self.quad_words(Window::Physical, a, offset, slow)
    }

    /// `physical_words` when a quad is neither dense nor shared (see there).
    fn physical_words_in_span(
        &mut self,
        a: &Option<(JVal, usize)>,
        offset: u64,
    ) -> Option<Vec<Value>> {
        let (lanes, ok, window, _) = self.physical_span_window(a, offset, 4)?;
        // The four bytes of every lane, byte `k` at `at(lane, k)`, packed into words.
        let bytes_at = |g: &mut Self, at: &dyn Fn(&mut Self, usize, u64) -> (Value, Value)| {
            let parts: Vec<Value> = (0..4u64)
                .flat_map(|k| {
                    g.lanes_to_vectors(1, |g, i| {
                        let (q, lane_ok) = at(g, i, k);
                        let x = g.b.ins().load(I8, app_flags(), q, 0);
                        let z = g.b.ins().iconst(I8, 0);
                        g.b.ins().select(lane_ok, x, z)
                    })
                })
                .collect();
            g.pack_bytes(&parts)
        };
        let words = self.fast_or(
            ok,
            4,
            |g| {
                let inside = |g: &mut Self, i: usize, k: u64| {
                    let at = g.b.ins().iadd(window, lanes[i]);
                    let one = g.b.ins().iconst(I8, 1);
                    (g.b.ins().iadd_imm_s(at, k as i64), one)
                };
                bytes_at(g, &inside)
            },
            |g| {
                // Each byte of each lane looked up on its own: a miss reads 0.
                let own = |g: &mut Self, i: usize, k: u64| {
                    let at = g.b.ins().iadd_imm_s(lanes[i], k as i64);
                    g.physical_address(at, 1)
                };
                bytes_at(g, &own)
            },
        );
        Some(words)
    }

    /// A `vec4` group (four 4-byte loads at +0..+12) at the varying 64-bit device address
    /// `a` plus `offset`: `[component][quad]` as `quad_vec4` gives them. Dense or shared quads
    /// take one allocation lookup each (`Window::Physical`); otherwise, inside one allocation's
    /// span (`physical_span_window`), each lane's components at their host addresses, else each
    /// component of each lane looked up on its own, as the single loads do (a miss reads 0).
    pub(super) fn physical_vec4(
        &mut self,
        a: &Option<(JVal, usize)>,
        offset: u64,
    ) -> Option<[Vec<Value>; 4]> {
        if !matches!(a, Some((JVal::Varying(_), 8))) {
            return None;
        }
        let slow = |g: &mut Self| g.physical_vec4_in_span(a, offset).unwrap_or_default();
        self.quad_vec4(Window::Physical, a, offset, slow)
    }

    /// `physical_vec4` when a quad is neither dense nor shared: components `[component][quad]`,
    /// flattened.
    fn physical_vec4_in_span(
        &mut self,
        a: &Option<(JVal, usize)>,
        offset: u64,
    ) -> Option<Vec<Value>> {
        let (lanes, ok, window, limit) = self.physical_span_window(a, offset, 16)?;
        let flat = self.fast_or(
            ok,
            4 * QUADS,
            |g| {
                (0..4u64)
                    .flat_map(|c| g.gather_lanes(window, limit, a, offset + 4 * c, 4))
                    .collect()
            },
            |g| {
                (0..4i64)
                    .flat_map(|c| {
                        g.lanes_to_vectors(4, |g, i| {
                            let at = g.b.ins().iadd_imm_s(lanes[i], 4 * c);
                            let (q, lane_ok) = g.physical_address(at, 4);
                            let x = g.b.ins().load(I32, app_flags(), q, 0);
                            let z = g.b.ins().iconst(I32, 0);
                            g.b.ins().select(lane_ok, x, z)
                        })
                    })
                    .collect()
            },
        );
        Some(flat)
    }

    /// Four byte vectors (component `k` of each lane's packed word) as the lanes' words: four
    /// `I32X4`, byte `k` of lane `i`'s word from `bytes[k]`.
    pub(super) fn pack_bytes(&mut self, bytes: &[Value]) -> Vec<Value> {
        let shuffle = |g: &mut Self, x: Value, y: Value, mask: [u8; 16]| {
            let imm = g.b.func.dfg.immediates.push(mask.to_vec().into());
            g.b.ins().shuffle(x, y, imm)
        };
        let (lo, hi) = (unpack_bytes(0), unpack_bytes(8));
        let low_pairs = shuffle(self, bytes[0], bytes[1], lo);
        let high_pairs = shuffle(self, bytes[0], bytes[1], hi);
        let low_upper = shuffle(self, bytes[2], bytes[3], lo);
        let high_upper = shuffle(self, bytes[2], bytes[3], hi);
        let (wlo, whi) = (unpack_words(0), unpack_words(8));
        [
            shuffle(self, low_pairs, low_upper, wlo),
            shuffle(self, low_pairs, low_upper, whi),
            shuffle(self, high_pairs, high_upper, wlo),
            shuffle(self, high_pairs, high_upper, whi),
        ]
        .into_iter()
        .map(|v| self.b.ins().bitcast(I32X4, lane_flags(), v))
        .collect()
    }

    /// The lanes' words split into their four bytes (`I8X16` each), each recorded in
    /// `packed_bytes`.
    pub(super) fn split_words(&mut self, words: &[Value]) -> [Value; 4] {
        std::array::from_fn(|k| {
            let bytes = self.byte_of_words(words, k as u8);
            self.packed_bytes.insert(bytes, (words.to_vec(), k as u8));
            bytes
        })
    }

    /// Records the truncation `bytes` (one `I8X16`) of the words `words` (four `I32X4`) in
    /// `packed_bytes`: byte `k` of the original words when `words` are those words shifted
    /// right by `8·k`, byte 0 of `words` otherwise.
    pub(super) fn note_packed_byte(&mut self, words: &[Value], bytes: &[Value]) {
        let ([byte], [first, ..]) = (bytes, words) else {
            return;
        };
        let entry = match self.shifted_words.get(first) {
            Some((source, k, shifted)) if shifted.as_slice() == words => (source.clone(), *k),
            _ => (words.to_vec(), 0),
        };
        self.packed_bytes.insert(*byte, entry);
    }

    /// Byte `k` of each of the 16 lanes' words (four `I32X4`) as one `I8X16`.
    fn byte_of_words(&mut self, words: &[Value], k: u8) -> Value {
        let lanes: Vec<Value> = words
            .iter()
            .map(|&w| {
                let shifted = if k == 0 {
                    w
                } else {
                    self.b.ins().ushr_imm_s(w, i64::from(8 * k))
                };
                if k == 3 {
                    shifted
                } else {
                    let mask = self.const_vec(4, 0, |_| 0xff);
                    self.b.ins().band(shifted, mask)
                }
            })
            .collect();
        // 0..=255 in each 32-bit lane: both narrowings are exact.
        let low = self.b.ins().snarrow(lanes[0], lanes[1]);
        let high = self.b.ins().snarrow(lanes[2], lanes[3]);
        self.b.ins().unarrow(low, high)
    }
}
