extern "C" __global__ void __launch_bounds__(16, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 2> T1, Tensor<float, 1> T3) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t i2 = T1.size[0];
  const int64_t i3 = T1.size[1];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T1_stride1 = T1.stride[1];
  const int64_t T3_stride0 = T3.stride[0];

  if (((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) < i0) {
    T3.data[((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) * T3_stride0] = 0.0f;
  }
  // loop of rS8{ceilDiv(i1, 4)}
  for (int64_t i6 = 0; i6 < ceilDiv(i1, 4); ++i6) {
    // loop of rS9{4}
    for (int64_t i7 = 0; i7 < 4; ++i7) {
      float T2[1];
      if ((((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) < i2) && (((i6 * 4) + i7) < i3)) {
        T2[0] = fabsf(T1.data[(((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) * T1_stride0) + (((i6 * 4) + i7) * T1_stride1)]);
      }
      if ((((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) < i0) && (((i6 * 4) + i7) < i1)) {
        T3.data[((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) * T3_stride0] = (T3.data[((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) * T3_stride0] * T2[0]) + T0.data[(((((int64_t)blockIdx.x) * 16) + ((int64_t)threadIdx.x)) * T0_stride0) + (((i6 * 4) + i7) * T0_stride1)];
      }
    }
  }
}
