extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<float, 1> T0, Tensor<float, 1> T2) {
  const int64_t i0 = T0.size[0];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T2_stride0 = T2.stride[0];
  extern __shared__ __align__(1024) char smem[];

  float* T3 = reinterpret_cast<float*>(smem);
  // prologue loop of iS8{8}
  #pragma unroll
  for (int64_t i2 = 0; i2 < 2; ++i2) {
    if (((((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) * 4) + 3) < i0) {
      cpAsync<16>(toSmem(&T3[(((int64_t)threadIdx.x) * 4) + ((i2 % 4) * 512)]), &T0.data[(((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) * 4) * T0_stride0], true);
    }
    cpAsyncCommitGroup();
  }
  // main loop of iS8{8}
  #pragma unroll 1
  for (int64_t i2 = 0; i2 < 6; ++i2) {
    if (((((((((int64_t)blockIdx.x) * 8) + (i2 + 2)) * 128) + ((int64_t)threadIdx.x)) * 4) + 3) < i0) {
      cpAsync<16>(toSmem(&T3[(((int64_t)threadIdx.x) * 4) + (((i2 + 2) % 4) * 512)]), &T0.data[(((((((int64_t)blockIdx.x) * 8) + (i2 + 2)) * 128) + ((int64_t)threadIdx.x)) * 4) * T0_stride0], true);
    }
    cpAsyncCommitGroup();
    cpAsyncWaitGroup<2>();
    __syncthreads();  // RAW: stage i2 % 4 of T3 loaded by other threads
    const int64_t h0 = (i2 % 4) * 512;
    // loop of iS4{4}
    for (int64_t i5 = 0; i5 < 4; ++i5) {
      float T1[1];
      T1[0] = T3[(i5 + (((int64_t)threadIdx.x) * 4)) + h0] + 1.0f;
      if (((((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) * 4) + i5) < i0) {
        T2.data[((((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) * 4) + i5) * T2_stride0] = T1[0] * T3[(i5 + (((int64_t)threadIdx.x) * 4)) + h0];
      }
    }
    __syncthreads();  // WAR: stage (i2 + 2) % 4 is loaded again next iteration
  }
  // epilogue loop of iS8{8}
  #pragma unroll 1
  for (int64_t i2 = 6; i2 < 8; ++i2) {
    cpAsyncWaitGroup<0>();
    __syncthreads();  // RAW: stage i2 % 4 of T3 loaded by other threads
    const int64_t h1 = (i2 % 4) * 512;
    // loop of iS4{4}
    for (int64_t i5 = 0; i5 < 4; ++i5) {
      float T1[1];
      T1[0] = T3[(i5 + (((int64_t)threadIdx.x) * 4)) + h1] + 1.0f;
      if (((((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) * 4) + i5) < i0) {
        T2.data[((((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) * 4) + i5) * T2_stride0] = T1[0] * T3[(i5 + (((int64_t)threadIdx.x) * 4)) + h1];
      }
    }
  }
}
