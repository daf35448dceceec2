extern "C" __global__ void __launch_bounds__(256, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 1> T1, Tensor<float, 2> T5) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t i2 = T1.size[0];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T5_stride0 = T5.stride[0];
  const int64_t T5_stride1 = T5.stride[1];

  // loop of iS15{2}
  for (int64_t i4 = 0; i4 < 2; ++i4) {
    float T2[1];
    float T3[1];
    float T4[1];
    if ((((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) / i1) < i2) {
      T2[0] = T1.data[(((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) / i1) * T1_stride0];
    }
    if (((((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) / i1) < i0) && ((((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) % i1) < i1)) {
      T3[0] = T0.data[((((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) / i1) * T0_stride0) + ((((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) % i1) * T0_stride1)] * T2[0];
    }
    if (((((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) / i1) < i0) && ((((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) % i1) < i1)) {
      T4[0] = -T0.data[((((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) / i1) * T0_stride0) + ((((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) % i1) * T0_stride1)];
    }
    if (((((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) / i1) < i0) && ((((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) % i1) < i1)) {
      T5.data[((((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) / i1) * T5_stride0) + ((((((((int64_t)blockIdx.x) * 2) + i4) * 256) + ((int64_t)threadIdx.x)) % i1) * T5_stride1)] = fmaxf(T3[0], T4[0]);
    }
  }
}
