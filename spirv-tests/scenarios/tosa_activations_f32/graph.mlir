// TOSA graph of float32 activations and a reduction:
//   sig = sigmoid(x), th = tanh(x), ex = exp(x * 0.5) (mul by a broadcast constant),
//   rmax = reduce_max(sig + th, axis 1).
// x: [3,16] float32.
module {
  func.func @main(%x: tensor<3x16xf32>) -> (tensor<3x16xf32>, tensor<3x16xf32>, tensor<3x16xf32>, tensor<3x1xf32>) {
    %half = "tosa.const"() <{values = dense<5.000000e-01> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %0 = tosa.sigmoid %x : (tensor<3x16xf32>) -> tensor<3x16xf32>
    %1 = tosa.tanh %x : (tensor<3x16xf32>) -> tensor<3x16xf32>
    %2 = tosa.mul %x, %half, %shift : (tensor<3x16xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<3x16xf32>
    %3 = tosa.exp %2 : (tensor<3x16xf32>) -> tensor<3x16xf32>
    %4 = tosa.add %0, %1 : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
    %5 = tosa.reduce_max %4 {axis = 1 : i32, nan_mode = PROPAGATE} : (tensor<3x16xf32>) -> tensor<3x1xf32>
    return %0, %1, %3, %5 : tensor<3x16xf32>, tensor<3x16xf32>, tensor<3x16xf32>, tensor<3x1xf32>
  }
}
