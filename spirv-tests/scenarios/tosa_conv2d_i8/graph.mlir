// TOSA graph: int8 conv2d with int32 accumulation, 3x3 kernel, stride 1, padding 1 and a
// non-zero input zero point. Written by make.py: the constant weights and bias come from the
// same seeded generator as the expected output.
// x: [1,6,6,2] int8 -> out: [1,6,6,4] int32.
module {
  func.func @main(%x: tensor<1x6x6x2xi8>) -> tensor<1x6x6x4xi32> {
    %w = "tosa.const"() <{values = dense<[[[[-3, -2], [2, -4], [3, -7]], [[5, 7], [5, -5], [-4, -5]], [[-3, -6], [-8, 4], [7, -8]]], [[[-2, -7], [5, 1], [-8, 5]], [[1, -1], [-8, -6], [6, 7]], [[-7, 0], [-5, -1], [-1, 0]]], [[[7, -7], [-8, 7], [-2, 3]], [[-1, 6], [-5, -8], [3, -8]], [[3, 4], [-2, 6], [-1, 0]]], [[[2, 6], [7, 0], [1, -3]], [[-4, -5], [4, -2], [0, -8]], [[0, -2], [-6, -3], [-3, -5]]]]> : tensor<4x3x3x2xi8>}> : () -> tensor<4x3x3x2xi8>
    %bias = "tosa.const"() <{values = dense<[-552, 68, 325, 889]> : tensor<4xi32>}> : () -> tensor<4xi32>
    %izp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
    %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %0 = tosa.conv2d %x, %w, %bias, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x6x6x2xi8>, tensor<4x3x3x2xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x6x6x4xi32>
    return %0 : tensor<1x6x6x4xi32>
  }
}
