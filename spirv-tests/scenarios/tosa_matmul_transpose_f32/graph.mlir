// TOSA graph: batched matmul then transpose of the last two axes.
// a: [2,4,8] float32, b: [2,8,3] float32 -> out: [2,3,4] float32.
module {
  func.func @main(%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>) -> tensor<2x3x4xf32> {
    %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x3xf32>
    %1 = tosa.transpose %0 {perms = array<i32: 0, 2, 1>} : (tensor<2x4x3xf32>) -> tensor<2x3x4xf32>
    return %1 : tensor<2x3x4xf32>
  }
}
