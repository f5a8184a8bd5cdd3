//! Cooperative-matrix loads compiled inline, where their shape allows; the rest (and every
//! cooperative-vector op) run through `ctx::coop` (`Gen::native_call`); multiply-adds are
//! `product`'s.
//!
//! A matrix load (`coop_matrix_load`) is inline when it is row-major, its address and stride are
//! the same for every lane (uniform registers or constants), it reads a window compiled code
//! reads directly (a buffer with a constant descriptor, shared memory, push constants), its rows
//! are a multiple of 16 elements, and the workgroup is whole subgroups. Then component `i` of
//! chunk `c`'s 16 lanes is 16 consecutive elements of one row (`tessera_coop::matrix`: the rows
//! of half `c mod 2` of its subgroup for A and accumulators, all of B in either half), loaded
//! as vectors. The whole matrix is checked against the
//! window once; when it does not lie inside, the chunk takes `ctx::coop`'s path, whose
//! element-by-element reads give the robust-access result (0 outside).
//!
//! Invariants: the vectors are loaded only after the check; the values are those
//! `Machine::matrix_runs` copies (same elements, same lanes).

use crate::error::{JitError, JitResult};
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use tessera_coop::matrix::{HALF, SUBGROUP, Use};
use tessera_spirv::ir::Op;

use super::Gen;
use super::values::{JVal, app_flags, vec_ty};

impl Gen<'_> {
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
        let es = ty.elem.bytes();
        let (rows, cols) = (ty.rows as usize, ty.cols as usize);
        let a_half = ty.usage != Use::B;
        let eligible = !*column_major
            && cols.is_multiple_of(HALF)
            && (self.shape.wg_size as usize).is_multiple_of(SUBGROUP)
            && dsts.len() == ty.length() as usize
            && dsts.iter().all(|&d| self.bytes(d) == es)
            && (!a_half || rows.is_multiple_of(2));
        if !eligible {
            return self.native_call(op);
        }
        let address = src.addr.map(|r| self.get(r));
        let stride_value = stride.map(|r| (self.get(r), self.bytes(r)));
        if address.as_ref().is_some_and(|v| !v.is_scalar())
            || stride_value.as_ref().is_some_and(|(v, _)| !v.is_scalar())
        {
            return self.native_call(op);
        }
        let Some((ptr, len)) = self.window(src.space) else {
            return self.native_call(op);
        };
        // The byte offset of element (0, 0) and the bytes between rows, as the interpreter
        // computes them (raw register bits, zero-extended; wrapping).
        let base = match &address {
            Some(v) => {
                let x = self
                    .scalar(v, 8)
                    .ok_or(JitError::NotUniform("a matrix load's address or stride"))?;
                self.b.ins().iadd_imm_s(x, src.offset as i64)
            }
            None => self.b.ins().iconst(I64, src.offset as i64),
        };
        let (stride64, narrow) = match &stride_value {
            Some((v, bytes)) => {
                let x = self
                    .scalar(v, 8)
                    .ok_or(JitError::NotUniform("a matrix load's address or stride"))?;
                (x, *bytes < 8)
            }
            None => (self.b.ins().iconst(I64, 0), true),
        };
        let line = self.b.ins().imul_imm_s(stride64, i64::from(*unit));
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

        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(ok, fast, &[], slow, &[]);

        self.b.switch_to_block(fast);
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
        let vt = vec_ty(es);
        for (i, &d) in dsts.iter().enumerate() {
            let (row, col) = ((HALF * i) / cols, (HALF * i) % cols);
            let down = self.b.ins().imul_imm_s(line, row as i64);
            let at = self.b.ins().iadd(first, down);
            let vs = (0..es)
                .map(|j| {
                    self.b
                        .ins()
                        .load(vt, app_flags(), at, (col * es + 16 * j) as i32)
                })
                .collect();
            self.set(d, JVal::Varying(vs))?;
        }
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(slow);
        self.native_call(op)?;
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(join);
        Ok(())
    }
}
