// TOSA graph: broadcast add followed by a ReLU (clamp at 0).
// a: [1,4,4,3] float32, b: [1,1,1,3] float32 (broadcast) -> out: [1,4,4,3] float32.
module {
  func.func @main(%a: tensor<1x4x4x3xf32>, %b: tensor<1x1x1x3xf32>) -> tensor<1x4x4x3xf32> {
    %0 = tosa.add %a, %b : (tensor<1x4x4x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x4x4x3xf32>
    %1 = tosa.clamp %0 {min_val = 0.000000e+00 : f32, max_val = 3.402823e+38 : f32} : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
    return %1 : tensor<1x4x4x3xf32>
  }
}
