extern "C" __global__ void __launch_bounds__(32, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 2> T1) {
  const int64_t i1 = T0.size[1];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T1_stride1 = T1.stride[1];
  extern __shared__ __align__(1024) char smem[];

  float* T2 = reinterpret_cast<float*>(smem);
  const int64_t h0 = ((int64_t)threadIdx.x) * ceilDiv(i1, 32);
  // loop of iS9{ceilDiv(i1, 32)}
  for (int64_t i4 = 0; i4 < ceilDiv(i1, 32); ++i4) {
    if ((h0 + i4) < i1) {
      T2[i4 + h0] = T0.data[(((int64_t)blockIdx.x) * T0_stride0) + ((h0 + i4) * T0_stride1)];
    }
  }
  __syncthreads();  // RAW: T2 written, then read
  const int64_t h1 = ceilDiv(i1, 32);
  // loop of iS4{ceilDiv(i1, 32)}
  for (int64_t i5 = 0; i5 < ceilDiv(i1, 32); ++i5) {
    if (((i5 * 32) + ((int64_t)threadIdx.x)) < i1) {
      T1.data[(((int64_t)blockIdx.x) * T1_stride0) + (((i5 * 32) + ((int64_t)threadIdx.x)) * T1_stride1)] = T2[(((i5 * 32) + ((int64_t)threadIdx.x)) % h1) + ((((i5 * 32) + ((int64_t)threadIdx.x)) / h1) * h1)] * 3.0f;
    }
  }
}
