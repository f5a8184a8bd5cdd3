//! The `TOSA.001000.1` operators: one list ([`tosa_ops!`]) gives each operator's opcode, name,
//! operands (in encoding order: attributes first, then inputs, each marked constant-only or not)
//! and its kernel, and generates [`TosaOp`] with its lookups and the kernel dispatch. Decoding,
//! the IR printer and the executor all read this list; nothing else lists operators.
//!
//! An operator whose kernel is `None` is decoded and printed but rejected at pipeline creation
//! ("not implemented"), never run.

use crate::error::Result;
use crate::exec::Tensor;
use crate::ir::Node;
use crate::kernels;

/// How an operand is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    /// Must be a constant instruction (attributes, zero points, shifts, tables, shapes).
    Const,
    /// Any tensor value: a graph input, a constant or another operator's result.
    Tensor,
    /// Zero or more tensor values (CONCAT's inputs); always last.
    Variadic,
}

/// A kernel: the node (its attributes decoded) and its input tensors → its outputs.
pub type Kernel = fn(&Node, &[&Tensor]) -> Result<Vec<Tensor>>;

/// Calls `$m!` with the operator list: `opcode Variant "NAME" [operand: Kind, …] kernel`.
macro_rules! tosa_ops {
    ($m:ident) => {
        $m! {
            0 ArgMax "ARGMAX" [axis: Const, nan_mode: Const, input: Tensor] Some(kernels::reduce::argmax);
            1 AvgPool2d "AVG_POOL2D" [kernel: Const, stride: Const, pad: Const, acc_type: Const, input: Tensor, input_zp: Const, output_zp: Const] Some(kernels::pool::avg_pool2d);
            2 Conv2d "CONV2D" [pad: Const, stride: Const, dilation: Const, acc_type: Const, local_bound: Const, input: Tensor, weight: Tensor, bias: Tensor, input_zp: Const, weight_zp: Const] Some(kernels::conv::conv2d);
            3 Conv3d "CONV3D" [pad: Const, stride: Const, dilation: Const, acc_type: Const, local_bound: Const, input: Tensor, weight: Tensor, bias: Tensor, input_zp: Const, weight_zp: Const] Some(kernels::conv::conv3d);
            4 DepthwiseConv2d "DEPTHWISE_CONV2D" [pad: Const, stride: Const, dilation: Const, acc_type: Const, local_bound: Const, input: Tensor, weight: Tensor, bias: Tensor, input_zp: Const, weight_zp: Const] Some(kernels::conv::depthwise_conv2d);
            5 Fft2d "FFT2D" [inverse: Const, local_bound: Const, input_real: Tensor, input_imag: Tensor] Some(kernels::fft::fft2d);
            6 Matmul "MATMUL" [a: Tensor, b: Tensor, a_zp: Const, b_zp: Const] Some(kernels::conv::matmul);
            7 MaxPool2d "MAX_POOL2D" [kernel: Const, stride: Const, pad: Const, nan_mode: Const, input: Tensor] Some(kernels::pool::max_pool2d);
            8 Rfft2d "RFFT2D" [local_bound: Const, input_real: Tensor] Some(kernels::fft::rfft2d);
            9 TransposeConv2d "TRANSPOSE_CONV2D" [out_pad: Const, stride: Const, acc_type: Const, local_bound: Const, input: Tensor, weight: Tensor, bias: Tensor, input_zp: Const, weight_zp: Const] Some(kernels::conv::transpose_conv2d);
            10 Clamp "CLAMP" [min_val: Const, max_val: Const, nan_mode: Const, input: Tensor] Some(kernels::elementwise::clamp);
            11 Erf "ERF" [input: Tensor] Some(kernels::elementwise::erf);
            12 Sigmoid "SIGMOID" [input: Tensor] Some(kernels::elementwise::sigmoid);
            13 Tanh "TANH" [input: Tensor] Some(kernels::elementwise::tanh);
            14 Add "ADD" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::add);
            15 ArithmeticRightShift "ARITHMETIC_RIGHT_SHIFT" [round: Const, input1: Tensor, input2: Tensor] Some(kernels::elementwise::arithmetic_right_shift);
            16 BitwiseAnd "BITWISE_AND" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::bitwise_and);
            17 BitwiseOr "BITWISE_OR" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::bitwise_or);
            18 BitwiseXor "BITWISE_XOR" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::bitwise_xor);
            19 Intdiv "INTDIV" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::intdiv);
            20 LogicalAnd "LOGICAL_AND" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::logical_and);
            21 LogicalLeftShift "LOGICAL_LEFT_SHIFT" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::logical_left_shift);
            22 LogicalRightShift "LOGICAL_RIGHT_SHIFT" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::logical_right_shift);
            23 LogicalOr "LOGICAL_OR" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::logical_or);
            24 LogicalXor "LOGICAL_XOR" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::logical_xor);
            25 Maximum "MAXIMUM" [nan_mode: Const, input1: Tensor, input2: Tensor] Some(kernels::elementwise::maximum);
            26 Minimum "MINIMUM" [nan_mode: Const, input1: Tensor, input2: Tensor] Some(kernels::elementwise::minimum);
            27 Mul "MUL" [input1: Tensor, input2: Tensor, shift: Const] Some(kernels::elementwise::mul);
            28 Pow "POW" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::pow);
            29 Sub "SUB" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::sub);
            30 Table "TABLE" [input1: Tensor, table: Const] Some(kernels::quant::table);
            31 Abs "ABS" [input1: Tensor] Some(kernels::elementwise::abs);
            32 BitwiseNot "BITWISE_NOT" [input1: Tensor] Some(kernels::elementwise::bitwise_not);
            33 Ceil "CEIL" [input1: Tensor] Some(kernels::elementwise::ceil);
            34 Clz "CLZ" [input1: Tensor] Some(kernels::elementwise::clz);
            35 Cos "COS" [input1: Tensor] Some(kernels::elementwise::cos);
            36 Exp "EXP" [input1: Tensor] Some(kernels::elementwise::exp);
            37 Floor "FLOOR" [input1: Tensor] Some(kernels::elementwise::floor);
            38 Log "LOG" [input1: Tensor] Some(kernels::elementwise::log);
            39 LogicalNot "LOGICAL_NOT" [input1: Tensor] Some(kernels::elementwise::logical_not);
            40 Negate "NEGATE" [input1: Tensor, input1_zp: Const, output_zp: Const] Some(kernels::elementwise::negate);
            41 Reciprocal "RECIPROCAL" [input1: Tensor] Some(kernels::elementwise::reciprocal);
            42 Rsqrt "RSQRT" [input1: Tensor] Some(kernels::elementwise::rsqrt);
            43 Sin "SIN" [input1: Tensor] Some(kernels::elementwise::sin);
            44 Select "SELECT" [input1: Tensor, input2: Tensor, input3: Tensor] Some(kernels::elementwise::select);
            45 Equal "EQUAL" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::equal);
            46 Greater "GREATER" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::greater);
            47 GreaterEqual "GREATER_EQUAL" [input1: Tensor, input2: Tensor] Some(kernels::elementwise::greater_equal);
            48 ReduceAll "REDUCE_ALL" [axis: Const, input: Tensor] Some(kernels::reduce::reduce_all);
            49 ReduceAny "REDUCE_ANY" [axis: Const, input: Tensor] Some(kernels::reduce::reduce_any);
            50 ReduceMax "REDUCE_MAX" [axis: Const, nan_mode: Const, input: Tensor] Some(kernels::reduce::reduce_max);
            51 ReduceMin "REDUCE_MIN" [axis: Const, nan_mode: Const, input: Tensor] Some(kernels::reduce::reduce_min);
            52 ReduceProduct "REDUCE_PRODUCT" [axis: Const, input: Tensor] Some(kernels::reduce::reduce_product);
            53 ReduceSum "REDUCE_SUM" [axis: Const, input: Tensor] Some(kernels::reduce::reduce_sum);
            54 Concat "CONCAT" [axis: Const, inputs: Variadic] Some(kernels::data::concat);
            55 Pad "PAD" [input1: Tensor, padding: Const, pad_const: Const] Some(kernels::data::pad);
            56 Reshape "RESHAPE" [input1: Tensor, shape: Const] Some(kernels::data::reshape);
            57 Reverse "REVERSE" [axis: Const, input1: Tensor] Some(kernels::data::reverse);
            58 Slice "SLICE" [input1: Tensor, start: Const, size: Const] Some(kernels::data::slice);
            59 Tile "TILE" [input1: Tensor, multiples: Const] Some(kernels::data::tile);
            60 Transpose "TRANSPOSE" [perms: Const, input1: Tensor] Some(kernels::data::transpose);
            61 Gather "GATHER" [values: Tensor, indices: Tensor] Some(kernels::data::gather);
            62 Scatter "SCATTER" [values_in: Tensor, indices: Tensor, input: Tensor] Some(kernels::data::scatter);
            63 Resize "RESIZE" [mode: Const, input: Tensor, scale: Const, offset: Const, border: Const] Some(kernels::pool::resize);
            64 Cast "CAST" [input: Tensor] Some(kernels::elementwise::cast);
            65 Rescale "RESCALE" [scale32: Const, rounding_mode: Const, per_channel: Const, input_unsigned: Const, output_unsigned: Const, input: Tensor, multiplier: Const, shift: Const, input_zp: Const, output_zp: Const] Some(kernels::quant::rescale);
        }
    };
}

macro_rules! define_ops {
    ($($code:literal $variant:ident $name:literal [$($operand:ident: $kind:ident),*] $kernel:expr;)*) => {
        /// A `TOSA.001000.1` operator (see [`tosa_ops!`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum TosaOp {
            $($variant,)*
        }

        impl TosaOp {
            /// Every operator, by opcode.
            pub const ALL: &'static [TosaOp] = &[$(TosaOp::$variant,)*];

            /// The operator with `OpExtInst` instruction number `opcode`.
            pub fn from_opcode(opcode: u32) -> Option<TosaOp> {
                match opcode {
                    $($code => Some(TosaOp::$variant),)*
                    _ => None,
                }
            }

            /// Its `OpExtInst` instruction number.
            pub fn opcode(self) -> u32 {
                match self {
                    $(TosaOp::$variant => $code,)*
                }
            }

            /// Its TOSA name.
            pub fn name(self) -> &'static str {
                match self {
                    $(TosaOp::$variant => $name,)*
                }
            }

            /// Its operands in encoding order: (name, kind).
            pub fn operands(self) -> &'static [(&'static str, Operand)] {
                match self {
                    $(TosaOp::$variant => &[$((stringify!($operand), Operand::$kind)),*],)*
                }
            }

            /// Its kernel, if Tessera implements it.
            pub fn kernel(self) -> Option<Kernel> {
                match self {
                    $(TosaOp::$variant => $kernel,)*
                }
            }
        }
    };
}

tosa_ops!(define_ops);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_covers_all_66_opcodes_once() {
        assert_eq!(TosaOp::ALL.len(), 66);
        for (i, op) in TosaOp::ALL.iter().enumerate() {
            assert_eq!(op.opcode() as usize, i);
            assert_eq!(TosaOp::from_opcode(i as u32), Some(*op));
        }
        assert_eq!(TosaOp::from_opcode(66), None);
    }

    #[test]
    fn operand_counts_match_the_grammar() {
        // From SPIRV-Headers' extinst.tosa.001000.1.grammar.json (CONCAT: axis + variadic).
        let counts = [
            3, 7, 10, 10, 10, 4, 4, 5, 2, 9, 4, 1, 1, 1, 2, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3,
            2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 1, 1, 1, 3, 2, 2, 2, 2, 2, 3, 3, 2, 2, 2, 3, 2,
            2, 3, 2, 2, 2, 3, 5, 1, 10,
        ];
        for op in TosaOp::ALL {
            assert_eq!(
                op.operands().len(),
                counts[op.opcode() as usize],
                "{}",
                op.name()
            );
        }
        assert_eq!(TosaOp::Rescale.operands()[5], ("input", Operand::Tensor));
        assert_eq!(TosaOp::Mul.operands()[2], ("shift", Operand::Const));
    }
}
