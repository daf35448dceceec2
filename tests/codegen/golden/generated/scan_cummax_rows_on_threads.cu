extern "C" __global__ void __launch_bounds__(32, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 2> T2, Tensor<float, 2> T3) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T2_stride0 = T2.stride[0];
  const int64_t T2_stride1 = T2.stride[1];
  const int64_t T3_stride0 = T3.stride[0];
  const int64_t T3_stride1 = T3.stride[1];

  float T2_carry[1];
  float T3_carry[1];
  T2_carry[0] = __uint_as_float(0xff800000u);
  // loop of iS5{i1}
  for (int64_t i4 = 0; i4 < i1; ++i4) {
    float T1[1];
    if (((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x)) < i0) {
      T1[0] = -T0.data[(((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x)) * T0_stride0) + (i4 * T0_stride1)];
    }
    T2_carry[0] = fmaxf(T2_carry[0], T1[0]);
    if (((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x)) < i0) {
      T2.data[(((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x)) * T2_stride0) + (i4 * T2_stride1)] = T2_carry[0];
    }
  }
  if (((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x)) < i0) {
    T3_carry[0] = 0.0f;
  }
  // loop of iS7{i1}
  for (int64_t i7 = 0; i7 < i1; ++i7) {
    if (((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x)) < i0) {
      T3.data[(((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x)) * T3_stride0) + (i7 * T3_stride1)] = T3_carry[0];
    }
    if (((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x)) < i0) {
      T3_carry[0] = T3_carry[0] + T0.data[(((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x)) * T0_stride0) + (i7 * T0_stride1)];
    }
  }
}
