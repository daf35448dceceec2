extern "C" __global__ void __launch_bounds__(64, 1) fusion_kernel(Tensor<float, 3> T0, Tensor<float, 3> T3) {
  const int64_t i1 = T0.size[1];
  const int64_t i2 = T0.size[2];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T0_stride2 = T0.stride[2];
  const int64_t T3_stride0 = T3.stride[0];
  const int64_t T3_stride1 = T3.stride[1];
  const int64_t T3_stride2 = T3.stride[2];

  // loop of iS13{ceilDiv(i1 * i2, 64)}
  for (int64_t i4 = 0; i4 < ceilDiv(i1 * i2, 64); ++i4) {
    float T1[1];
    float T2[1];
    if (((((i4 * 64) + ((int64_t)threadIdx.x)) / i2) < i1) && ((((i4 * 64) + ((int64_t)threadIdx.x)) % i2) < i2)) {
      T1[0] = T0.data[((((int64_t)blockIdx.x) * T0_stride0) + ((((i4 * 64) + ((int64_t)threadIdx.x)) / i2) * T0_stride1)) + ((((i4 * 64) + ((int64_t)threadIdx.x)) % i2) * T0_stride2)] * 2.0f;
    }
    T2[0] = T1[0] + 1.0f;
    if (((((i4 * 64) + ((int64_t)threadIdx.x)) / i2) < i1) && ((((i4 * 64) + ((int64_t)threadIdx.x)) % i2) < i2)) {
      T3.data[((((int64_t)blockIdx.x) * T3_stride0) + ((((i4 * 64) + ((int64_t)threadIdx.x)) / i2) * T3_stride1)) + ((((i4 * 64) + ((int64_t)threadIdx.x)) % i2) * T3_stride2)] = fmaxf(T2[0], 0.0f);
    }
  }
}
