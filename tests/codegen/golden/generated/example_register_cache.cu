extern "C" __global__ void __launch_bounds__(64, 1) fusion_kernel(Tensor<float, 1> T0, Tensor<float, 1> T1, Tensor<float, 1> T4) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T1.size[0];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T4_stride0 = T4.stride[0];

  // loop of iS9{4}
  for (int64_t i4 = 0; i4 < 4; ++i4) {
    float T5[1];
    float T2[1];
    float T3[1];
    float T6[1];
    float T7[1];
    if (((((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * 4) + i4) < i0) {
      T5[0] = T0.data[((((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * 4) + i4) * T0_stride0];
    }
    T2[0] = fabsf(T5[0]);
    T3[0] = sqrtf(T2[0]);
    if (((((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * 4) + i4) < i1) {
      T6[0] = T1.data[((((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * 4) + i4) * T1_stride0];
    }
    T7[0] = T3[0] * T6[0];
    if (((((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * 4) + i4) < i0) {
      T4.data[((((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * 4) + i4) * T4_stride0] = T7[0];
    }
  }
}
