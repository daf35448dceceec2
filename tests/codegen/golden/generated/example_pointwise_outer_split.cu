extern "C" __global__ void __launch_bounds__(32, 1) fusion_kernel(Tensor<float, 1> T0, Tensor<float, 1> T1, Tensor<float, 1> T3) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T1.size[0];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T3_stride0 = T3.stride[0];

  const int64_t h0 = ceilDiv(i1, 4);
  const int64_t h1 = ceilDiv(i0, 4);
  // loop of iS4{4}
  for (int64_t i2 = 0; i2 < 4; ++i2) {
    float T2[1];
    if ((((i2 * h0) + ((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x))) < i1) && (((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x)) < h0)) {
      T2[0] = -T1.data[((i2 * h0) + ((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x))) * T1_stride0];
    }
    if ((((i2 * h1) + ((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x))) < i0) && (((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x)) < h1)) {
      T3.data[((i2 * h1) + ((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x))) * T3_stride0] = T0.data[((i2 * h1) + ((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x))) * T0_stride0] - T2[0];
    }
  }
}
