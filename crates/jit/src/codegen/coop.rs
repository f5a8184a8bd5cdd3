//! Cooperative-matrix loads and stores compiled inline, where their shape allows; the rest (and
//! every cooperative-vector op) run through `ctx::coop` (`Gen::native_call`); multiply-adds
//! are `product`'s.
//!
//! A matrix load (`coop_matrix_load`) is inline when it is row-major, its address and stride are
//! the same for every lane of the chunk (uniform registers or constants, or varying registers
//! whose 16 lanes agree, checked at run time: a subgroup's id from its invocations' ids), it
//! reads a window compiled code reads directly (a buffer with a constant descriptor, shared
//! memory, push constants), its rows are a multiple of 16 elements, and the workgroup is whole
//! subgroups. Then component `i` of
//! chunk `c`'s 16 lanes is 16 consecutive elements of one row (`tessera_coop::matrix`: the rows
//! of half `c mod 2` of its subgroup for A and accumulators, all of B in either half), loaded
//! as vectors. The whole matrix is checked against the
//! window once; when it does not lie inside, the chunk takes `ctx::coop`'s path, whose
//! element-by-element reads give the robust-access result (0 outside).
//!
//! A store (`coop_matrix_store`) is inline on the same conditions (push constants excepted):
//! each half stores its rows, and of a B matrix (all of it in either half) the first half
//! stores it all, the second nothing, as `Machine::matrix_runs` does; a matrix not wholly
//! inside the window takes `ctx::coop`'s path, which drops what falls outside.
//!
//! Invariants: the vectors are loaded or stored only after the check; the values are those
//! `Machine::matrix_runs` copies (same elements, same lanes).

use crate::error::{JitError, JitResult};
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{Block, Value};
use tessera_coop::matrix::{HALF, MatrixType, SUBGROUP, Use};
use tessera_spirv::ir::{MemRef, Op, Reg, Space};

use super::Gen;
use super::values::{JVal, app_flags, vec_ty};

/// Where an inline matrix access goes: `ok` (the whole matrix lies inside the window), the
/// address of the chunk's first element and the bytes between rows.
struct Rows {
    ok: Value,
    first: Value,
    line: Value,
}

impl Gen<'_> {
    /// The inline form of a matrix access of `count` components (the module docs'
    /// conditions), or `None` when it has none.
    #[allow(clippy::too_many_arguments)]
    fn matrix_rows(
        &mut self,
        ty: &MatrixType,
        column_major: bool,
        unit: u32,
        mem: &MemRef,
        stride: Option<Reg>,
        regs: &[Reg],
        store: bool,
    ) -> JitResult<Option<Rows>> {
        let es = ty.elem.bytes();
        let (rows, cols) = (ty.rows as usize, ty.cols as usize);
        let a_half = ty.usage != Use::B;
        let eligible = !column_major
            && cols.is_multiple_of(HALF)
            && (self.shape.wg_size as usize).is_multiple_of(SUBGROUP)
            && regs.len() == ty.length() as usize
            && regs.iter().all(|&d| self.bytes(d) == es)
            && (!a_half || rows.is_multiple_of(2))
            && !(store && mem.space == Space::Push);
        if !eligible {
            return Ok(None);
        }
        let Some((ptr, len)) = self.window(mem.space) else {
            return Ok(None);
        };
        // A varying address or stride (a subgroup's id from its invocations' ids) is taken
        // from lane 0 when every lane of the chunk holds the same, checked here at run time.
        let mut same = self.b.ins().iconst(I8, 1);
        let mut chunk_scalar = |g: &mut Self, r: Reg| -> Option<JVal> {
            let v = g.get(r);
            if matches!(v, JVal::Affine(..)) {
                return None;
            }
            let (first, agreed) = g.first_lane_agreed(&v, g.bytes(r));
            if let Some(a) = agreed {
                same = g.b.ins().band(same, a);
            }
            Some(JVal::Uniform(first))
        };
        let address = match mem.addr {
            Some(r) => match chunk_scalar(self, r) {
                Some(v) => Some(v),
                None => return Ok(None),
            },
            None => None,
        };
        let stride_value = match stride {
            Some(r) => match chunk_scalar(self, r) {
                Some(v) => Some((v, self.bytes(r))),
                None => return Ok(None),
            },
            None => None,
        };
        // The byte offset of element (0, 0) and the bytes between rows, as the interpreter
        // computes them (raw register bits, zero-extended; wrapping).
        let base = match &address {
            Some(v) => {
                let x = self
                    .scalar(v, 8)
                    .ok_or(JitError::NotUniform("a matrix access's address or stride"))?;
                self.b.ins().iadd_imm_s(x, mem.offset as i64)
            }
            None => self.b.ins().iconst(I64, mem.offset as i64),
        };
        let (stride64, narrow) = match &stride_value {
            Some((v, bytes)) => {
                let x = self
                    .scalar(v, 8)
                    .ok_or(JitError::NotUniform("a matrix access's address or stride"))?;
                (x, *bytes < 8)
            }
            None => (self.b.ins().iconst(I64, 0), true),
        };
        let line = self.b.ins().imul_imm_s(stride64, i64::from(unit));
        // In range: stride < 2³² (so nothing below overflows), base ≤ len and the matrix's last
        // byte, (rows - 1)·line + cols·es past base, at most len.
        let small = if narrow {
            self.b.ins().iconst(I8, 1)
        } else {
            self.b
                .ins()
                .icmp_imm_s(IntCC::UnsignedLessThan, stride64, 1 << 32)
        };
        let span = self.b.ins().imul_imm_s(line, (rows - 1) as i64);
        let span = self.b.ins().iadd_imm_s(span, (cols * es) as i64);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, span, len);
        let room = self.b.ins().isub(len, span);
        let within = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, base, room);
        let ok = self.b.ins().band(small, fits);
        let ok = self.b.ins().band(ok, within);
        let ok = self.b.ins().band(ok, same);
        let mut first = self.b.ins().iadd(ptr, base);
        if a_half {
            // Half h = chunk mod 2 holds rows h·rows/2 ..
            let c = self.chunk();
            let h = self.b.ins().band_imm_u(c, 1);
            let h = self.b.ins().uextend(I64, h);
            let half_rows = self.b.ins().imul_imm_s(line, (rows / 2) as i64);
            let skip = self.b.ins().imul(h, half_rows);
            first = self.b.ins().iadd(first, skip);
        }
        Ok(Some(Rows { ok, first, line }))
    }

    /// The address of component `i`'s 16 elements of a `cols`-wide matrix of `es`-byte
    /// elements (see [`Self::matrix_rows`]).
    fn component_at(&mut self, rows: &Rows, cols: usize, i: usize) -> (Value, i32) {
        let (row, col) = ((HALF * i) / cols, (HALF * i) % cols);
        let down = self.b.ins().imul_imm_s(rows.line, row as i64);
        (self.b.ins().iadd(rows.first, down), col as i32)
    }

    /// `OpCooperativeMatrixLoadKHR`: inline when the module docs' conditions hold, through
    /// `ctx::coop` otherwise.
    pub(crate) fn coop_matrix_load(&mut self, op: &Op) -> JitResult<()> {
        let Op::CoopMatLoad {
            ty,
            column_major,
            unit,
            dsts,
            src,
            stride,
        } = op
        else {
            return self.native_call(op);
        };
        let in_place = self.load_places.loads.contains(&self.at);
        let rows = if in_place && self.mask.is_some() {
            None
        } else {
            self.matrix_rows(ty, *column_major, *unit, src, *stride, dsts, false)?
        };
        let Some(rows) = rows else {
            self.native_call(op)?;
            if in_place {
                self.set_place(dsts, None);
            }
            return Ok(());
        };
        if in_place {
            // The multiply-adds read the matrix where it is (`operands`); the rows are
            // filled only where it is not wholly inside the window.
            let fast = self.b.create_block();
            let slow = self.b.create_block();
            let join = self.b.create_block();
            self.b.ins().brif(rows.ok, fast, &[], slow, &[]);
            self.enter_sealed(fast);
            self.set_place(dsts, Some((rows.first, rows.line)));
            self.b.ins().jump(join, &[]);
            self.enter_sealed(slow);
            self.native_call(op)?;
            self.set_place(dsts, None);
            self.b.ins().jump(join, &[]);
            self.enter_sealed(join);
            return Ok(());
        }
        let es = ty.elem.bytes();
        self.inline_or_native(op, rows.ok, |g, _| {
            let vt = vec_ty(es);
            for (i, &d) in dsts.iter().enumerate() {
                let (at, col) = g.component_at(&rows, ty.cols as usize, i);
                let vs = (0..es)
                    .map(|j| {
                        g.b.ins()
                            .load(vt, app_flags(), at, col * es as i32 + 16 * j as i32)
                    })
                    .collect();
                g.set(d, JVal::Varying(vs))?;
            }
            Ok(())
        })
    }

    /// `OpCooperativeMatrixStoreKHR`: inline when the module docs' conditions hold (a `B`
    /// matrix is stored by the subgroup's first half only), through `ctx::coop` otherwise.
    pub(crate) fn coop_matrix_store(&mut self, op: &Op) -> JitResult<()> {
        let Op::CoopMatStore {
            ty,
            column_major,
            unit,
            values,
            dst,
            stride,
        } = op
        else {
            return self.native_call(op);
        };
        let Some(rows) = self.matrix_rows(ty, *column_major, *unit, dst, *stride, values, true)?
        else {
            return self.native_call(op);
        };
        let es = ty.elem.bytes();
        self.inline_or_native(op, rows.ok, |g, join| {
            if ty.usage == Use::B {
                // The second half holds the same B and stores nothing.
                let stores = g.b.create_block();
                let c = g.chunk();
                let h = g.b.ins().band_imm_u(c, 1);
                g.b.ins().brif(h, join, &[], stores, &[]);
                g.b.switch_to_block(stores);
            }
            for (i, &v) in values.iter().enumerate() {
                let (at, col) = g.component_at(&rows, ty.cols as usize, i);
                let value = g.get(v);
                for (j, x) in g.vectors(&value, es).into_iter().enumerate() {
                    g.b.ins()
                        .store(app_flags(), x, at, col * es as i32 + 16 * j as i32);
                }
            }
            Ok(())
        })
    }

    /// Runs `inline` (given the join block) where `ok` holds and `op` through `ctx::coop`
    /// where it does not; both paths meet after it.
    fn inline_or_native(
        &mut self,
        op: &Op,
        ok: Value,
        inline: impl FnOnce(&mut Self, Block) -> JitResult<()>,
    ) -> JitResult<()> {
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(ok, fast, &[], slow, &[]);

        self.enter_sealed(fast);
        inline(self, join)?;
        self.b.ins().jump(join, &[]);

        self.enter_sealed(slow);
        self.native_call(op)?;
        self.b.ins().jump(join, &[]);

        self.enter_sealed(join);
        Ok(())
    }
}
