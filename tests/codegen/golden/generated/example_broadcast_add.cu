extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 1> T1, Tensor<float, 2> T3) {
  const int64_t i1 = T0.size[1];
  const int64_t i2 = T1.size[0];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T3_stride0 = T3.stride[0];
  const int64_t T3_stride1 = T3.stride[1];

  // loop of iS7{ceilDiv(i1, 128)}
  for (int64_t i4 = 0; i4 < ceilDiv(i1, 128); ++i4) {
    float T2[1];
    if (((i4 * 128) + ((int64_t)threadIdx.x)) < i2) {
      T2[0] = T1.data[((i4 * 128) + ((int64_t)threadIdx.x)) * T1_stride0];
    }
    if (((i4 * 128) + ((int64_t)threadIdx.x)) < i1) {
      T3.data[(((int64_t)blockIdx.x) * T3_stride0) + (((i4 * 128) + ((int64_t)threadIdx.x)) * T3_stride1)] = T0.data[(((int64_t)blockIdx.x) * T0_stride0) + (((i4 * 128) + ((int64_t)threadIdx.x)) * T0_stride1)] + T2[0];
    }
  }
}
