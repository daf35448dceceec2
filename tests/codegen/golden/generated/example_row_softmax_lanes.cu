extern "C" __global__ void __launch_bounds__(256, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 2> T10) {
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T10_stride0 = T10.stride[0];
  const int64_t T10_stride1 = T10.stride[1];

  float T2[1];
  float T2_acc[1];
  float T3[1];
  float T6[8];
  float T7[1];
  float T7_acc[1];
  float T8[1];
  if (((((int64_t)blockIdx.x) * 64) + (((int64_t)threadIdx.x) / 4)) < 100) {
    T2_acc[0] = __uint_as_float(0xff800000u);
  }
  if (((((int64_t)blockIdx.x) * 64) + (((int64_t)threadIdx.x) / 4)) < 100) {
    // loop of rUR28{8}
    #pragma unroll
    for (int64_t i4 = 0; i4 < 8; ++i4) {
      T2_acc[0] = fmaxf(T2_acc[0], T0.data[(((((int64_t)blockIdx.x) * 64) + (((int64_t)threadIdx.x) / 4)) * T0_stride0) + ((((((int64_t)threadIdx.x) % 4) * 8) + i4) * T0_stride1)]);
    }
  }
  T2_acc[0] = ReduceMax()(T2_acc[0], warpShflXor(T2_acc[0], 1u));
  T2_acc[0] = ReduceMax()(T2_acc[0], warpShflXor(T2_acc[0], 2u));
  if (((((int64_t)blockIdx.x) * 64) + (((int64_t)threadIdx.x) / 4)) < 100) {
    T2[0] = T2_acc[0];
  }
  T3[0] = T2[0] * 0.5f;
  // loop of iUR42{8}
  #pragma unroll
  for (int64_t i2 = 0; i2 < 8; ++i2) {
    float T1[1];
    float T4[1];
    float T5[1];
    if (((((int64_t)blockIdx.x) * 64) + (((int64_t)threadIdx.x) / 4)) < 100) {
      T1[0] = T0.data[(((((int64_t)blockIdx.x) * 64) + (((int64_t)threadIdx.x) / 4)) * T0_stride0) + ((((((int64_t)threadIdx.x) % 4) * 8) + i2) * T0_stride1)] * 0.5f;
    }
    T4[0] = T3[0];
    T5[0] = T1[0] - T4[0];
    T6[i2] = expf(T5[0]);
  }
  T7_acc[0] = 0.0f;
  // loop of rUR47{8}
  #pragma unroll
  for (int64_t i7 = 0; i7 < 8; ++i7) {
    T7_acc[0] = T7_acc[0] + T6[i7];
  }
  T7_acc[0] = ReduceAdd()(T7_acc[0], warpShflXor(T7_acc[0], 1u));
  T7_acc[0] = ReduceAdd()(T7_acc[0], warpShflXor(T7_acc[0], 2u));
  T7[0] = T7_acc[0];
  T8[0] = 1.0f / T7[0];
  // loop of iUR56{8}
  #pragma unroll
  for (int64_t i10 = 0; i10 < 8; ++i10) {
    float T9[1];
    T9[0] = T8[0];
    if (((((int64_t)blockIdx.x) * 64) + (((int64_t)threadIdx.x) / 4)) < 100) {
      T10.data[(((((int64_t)blockIdx.x) * 64) + (((int64_t)threadIdx.x) / 4)) * T10_stride0) + ((((((int64_t)threadIdx.x) % 4) * 8) + i10) * T10_stride1)] = T6[i10] * T9[0];
    }
  }
}
