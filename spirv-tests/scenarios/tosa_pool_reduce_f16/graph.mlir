// TOSA graph with float16 tensors and two outputs: 2x2/stride-2 max pooling, and a sum over the
// channel axis.
// x: [1,8,8,4] float16 -> pooled: [1,4,4,4] float16, sums: [1,8,8,1] float16.
module {
  func.func @main(%x: tensor<1x8x8x4xf16>) -> (tensor<1x4x4x4xf16>, tensor<1x8x8x1xf16>) {
    %0 = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, nan_mode = PROPAGATE} : (tensor<1x8x8x4xf16>) -> tensor<1x4x4x4xf16>
    %1 = tosa.reduce_sum %x {axis = 3 : i32} : (tensor<1x8x8x4xf16>) -> tensor<1x8x8x1xf16>
    return %0, %1 : tensor<1x4x4x4xf16>, tensor<1x8x8x1xf16>
  }
}
