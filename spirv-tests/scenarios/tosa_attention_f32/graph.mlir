// TOSA graph: float32 scaled dot-product attention over two batches (heads). The expected outputs
// come from Arm's TOSA reference model.
//   scores = matmul(q, transpose(k)) * 0.25 (1 / sqrt(16))
//   p      = exp(scores - reduce_max(scores, axis 2)) * reciprocal(reduce_sum(..., axis 2))
//   o      = matmul(p, v)
// q, k, v: [2,8,16] float32 -> o: [2,8,16] float32, p (the softmax): [2,8,8] float32.
module {
  func.func @main(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x8xf32>) {
    %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x8x16xf32>) -> tensor<2x16x8xf32>
    %0 = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x8xf32>
    %1 = tosa.mul %0, %scale, %shift : (tensor<2x8x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x8xf32>
    %2 = tosa.reduce_max %1 {axis = 2 : i32, nan_mode = PROPAGATE} : (tensor<2x8x8xf32>) -> tensor<2x8x1xf32>
    %3 = tosa.sub %1, %2 : (tensor<2x8x8xf32>, tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
    %4 = tosa.exp %3 : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %5 = tosa.reduce_sum %4 {axis = 2 : i32} : (tensor<2x8x8xf32>) -> tensor<2x8x1xf32>
    %6 = tosa.reciprocal %5 : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
    %7 = tosa.mul %4, %6, %shift : (tensor<2x8x8xf32>, tensor<2x8x1xf32>, tensor<1xi8>) -> tensor<2x8x8xf32>
    %8 = tosa.matmul %7, %v, %zp, %zp : (tensor<2x8x8xf32>, tensor<2x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x16xf32>
    return %8, %7 : tensor<2x8x16xf32>, tensor<2x8x8xf32>
  }
}
