//! Integer dot products (`Op::IDot`: `OpSDot`, `OpUDot`, `OpSUDot`) without an accumulator and
//! with a 32-bit result: the low 32 bits of the exact sum of products, which wrapping 32-bit
//! arithmetic on the sign- or zero-extended components gives (arithmetic modulo 2³² keeps the
//! low bits exact). Components of 8 and 16 bits widen four lanes to a vector. The saturating
//! `AccSat` forms and 64-bit results go to the interpreter.

use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::Value;
use cranelift_codegen::ir::types::*;
use tessera_spirv::ir::Reg;

use super::Gen;
use super::values::JVal;

impl Gen<'_> {
    /// `Op::IDot` when the module docs' conditions hold; `Ok(false)` otherwise.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn idot(
        &mut self,
        in_width: u8,
        out_width: u8,
        lhs_signed: bool,
        rhs_signed: bool,
        dst: Reg,
        lhs: &[Reg],
        rhs: &[Reg],
        acc: Option<Reg>,
    ) -> Result<bool, String> {
        let in_bytes = usize::from(in_width / 8);
        if acc.is_some()
            || out_width != 32
            || !matches!(in_width, 8 | 16 | 32)
            || lhs.len() != rhs.len()
            || lhs.is_empty()
            || lhs.iter().chain(rhs).any(|&r| self.bytes(r) != in_bytes)
        {
            return Ok(false);
        }
        let (xs, ys): (Vec<JVal>, Vec<JVal>) = (
            lhs.iter().map(|&r| self.get(r)).collect(),
            rhs.iter().map(|&r| self.get(r)).collect(),
        );
        if xs.iter().chain(&ys).all(JVal::is_scalar) {
            let mut sum = self.b.ins().iconst(I32, 0);
            for (x, y) in xs.iter().zip(&ys) {
                let (Some(x), Some(y)) = (self.scalar(x, in_bytes), self.scalar(y, in_bytes))
                else {
                    return Ok(false);
                };
                let x = self.widen32(x, lhs_signed);
                let y = self.widen32(y, rhs_signed);
                let p = self.b.ins().imul(x, y);
                sum = self.b.ins().iadd(sum, p);
            }
            self.set(dst, JVal::Uniform(sum))?;
            return Ok(true);
        }
        let mut sums: Option<Vec<Value>> = None;
        for (x, y) in xs.iter().zip(&ys) {
            let x = self.lanes32(x, in_bytes, lhs_signed);
            let y = self.lanes32(y, in_bytes, rhs_signed);
            let products: Vec<Value> = x
                .iter()
                .zip(&y)
                .map(|(&a, &b)| self.b.ins().imul(a, b))
                .collect();
            sums = Some(match sums {
                None => products,
                Some(s) => s
                    .iter()
                    .zip(&products)
                    .map(|(&a, &b)| self.b.ins().iadd(a, b))
                    .collect(),
            });
        }
        let sums = sums.ok_or("idot: no components")?;
        self.set(dst, JVal::Varying(sums))?;
        Ok(true)
    }

    /// A scalar integer extended to `I32` by its signedness.
    fn widen32(&mut self, x: Value, signed: bool) -> Value {
        if self.b.func.dfg.value_type(x) == I32 {
            x
        } else if signed {
            self.b.ins().sextend(I32, x)
        } else {
            self.b.ins().uextend(I32, x)
        }
    }

    /// A value's 16 lanes as four `I32X4`, extended by `signed` from `bytes`-byte lanes.
    fn lanes32(&mut self, v: &JVal, bytes: usize, signed: bool) -> Vec<Value> {
        let mut vs = self.vectors(v, bytes);
        let mut width = bytes;
        while width < 4 {
            vs = vs
                .into_iter()
                .flat_map(|x| {
                    let (lo, hi) = if signed {
                        (self.b.ins().swiden_low(x), self.b.ins().swiden_high(x))
                    } else {
                        (self.b.ins().uwiden_low(x), self.b.ins().uwiden_high(x))
                    };
                    [lo, hi]
                })
                .collect();
            width *= 2;
        }
        vs
    }
}
