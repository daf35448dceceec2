extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<float, 1> T0, Tensor<float, 1> T2) {
  const int64_t i0 = T0.size[0];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T2_stride0 = T2.stride[0];

  // loop of iS8{8}
  for (int64_t i2 = 0; i2 < 8; ++i2) {
    float T3[4];
    // main loop of iS4{4}
    #pragma unroll 1
    for (int64_t i4 = 0; i4 < 4; ++i4) {
      float T1[1];
      if (((((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) * 4) + i4) < i0) {
        T3[i4 % 4] = T0.data[((((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) * 4) + i4) * T0_stride0];
      }
      T1[0] = -T3[i4 % 4];
      if (((((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) * 4) + i4) < i0) {
        T2.data[((((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) * 4) + i4) * T2_stride0] = expf(T1[0]);
      }
    }
  }
}
