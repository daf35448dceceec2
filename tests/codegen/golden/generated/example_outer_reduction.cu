extern "C" __global__ void __launch_bounds__(64, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 1> T2) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T2_stride0 = T2.stride[0];

  if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < i1) {
    T2.data[((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * T2_stride0] = 0.0f;
  }
  // loop of rS4{i0}
  for (int64_t i4 = 0; i4 < i0; ++i4) {
    float T1[1];
    if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < i1) {
      T1[0] = T0.data[(i4 * T0_stride0) + (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * T0_stride1)] * T0.data[(i4 * T0_stride0) + (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * T0_stride1)];
    }
    if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < i1) {
      T2.data[((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * T2_stride0] = T2.data[((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * T2_stride0] + T1[0];
    }
  }
}
