// TOSA graph of exact int32 operators with four outputs:
//   prod_xor = (a * b) ^ a           (mul with shift 0, bitwise_xor)
//   col_max  = reduce_max(prod_xor, axis 1)
//   stacked  = concat(a, reverse(b, axis 2), axis 0)
//   shifted  = arithmetic_right_shift(a, s) with rounding
// a, b, s: [2,3,4] int32.
module {
  func.func @main(%a: tensor<2x3x4xi32>, %b: tensor<2x3x4xi32>, %s: tensor<2x3x4xi32>) -> (tensor<2x3x4xi32>, tensor<2x1x4xi32>, tensor<4x3x4xi32>, tensor<2x3x4xi32>) {
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %0 = tosa.mul %a, %b, %shift : (tensor<2x3x4xi32>, tensor<2x3x4xi32>, tensor<1xi8>) -> tensor<2x3x4xi32>
    %1 = tosa.bitwise_xor %0, %a : (tensor<2x3x4xi32>, tensor<2x3x4xi32>) -> tensor<2x3x4xi32>
    %2 = tosa.reduce_max %1 {axis = 1 : i32} : (tensor<2x3x4xi32>) -> tensor<2x1x4xi32>
    %3 = tosa.reverse %b {axis = 2 : i32} : (tensor<2x3x4xi32>) -> tensor<2x3x4xi32>
    %4 = tosa.concat %a, %3 {axis = 0 : i32} : (tensor<2x3x4xi32>, tensor<2x3x4xi32>) -> tensor<4x3x4xi32>
    %5 = tosa.arithmetic_right_shift %a, %s {round = true} : (tensor<2x3x4xi32>, tensor<2x3x4xi32>) -> tensor<2x3x4xi32>
    return %1, %2, %4, %5 : tensor<2x3x4xi32>, tensor<2x1x4xi32>, tensor<4x3x4xi32>, tensor<2x3x4xi32>
  }
}
