extern "C" __global__ void __launch_bounds__(256, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 2> T1, Tensor<float, 2> T2) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t i3 = T1.size[1];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T1_stride1 = T1.stride[1];
  const int64_t T2_stride0 = T2.stride[0];
  const int64_t T2_stride1 = T2.stride[1];

  if ((((((int64_t)blockIdx.y) * 16) + ((int64_t)threadIdx.y)) < i0) && (((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) < i3)) {
    T2.data[(((((int64_t)blockIdx.y) * 16) + ((int64_t)threadIdx.y)) * T2_stride0) + (((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) * T2_stride1)] = 0.0f;
  }
  if ((((((int64_t)blockIdx.y) * 16) + ((int64_t)threadIdx.y)) < i0) && (((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) < i3)) {
    // loop of rS6{i1}
    for (int64_t i8 = 0; i8 < i1; ++i8) {
      T2.data[(((((int64_t)blockIdx.y) * 16) + ((int64_t)threadIdx.y)) * T2_stride0) + (((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) * T2_stride1)] = T2.data[(((((int64_t)blockIdx.y) * 16) + ((int64_t)threadIdx.y)) * T2_stride0) + (((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) * T2_stride1)] + (T0.data[(((((int64_t)blockIdx.y) * 16) + ((int64_t)threadIdx.y)) * T0_stride0) + (i8 * T0_stride1)] * T1.data[(i8 * T1_stride0) + (((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) * T1_stride1)]);
    }
  }
}
