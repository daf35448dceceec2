extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<float, 1> T0, Tensor<float, 1> T1) {
  const int64_t i0 = T0.size[0];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T1_stride0 = T1.stride[0];
  extern __shared__ __align__(1024) char smem[];

  float* T2 = reinterpret_cast<float*>(smem);
  // prologue loop of iS5{8}
  #pragma unroll 1
  for (int64_t i2 = 0; i2 < 1; ++i2) {
    const int64_t h0 = (i2 % 2) * 128;
    // loop of iS12{32}
    for (int64_t i4 = 0; i4 < 32; ++i4) {
      if ((((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((((int64_t)threadIdx.x) * 32) + i4)) < i0) && (((int64_t)threadIdx.x) < 4)) {
        T2[(i4 + (((int64_t)threadIdx.x) * 32)) + h0] = T0.data[((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((((int64_t)threadIdx.x) * 32) + i4)) * T0_stride0];
      }
    }
  }
  const int64_t h2 = ((((int64_t)threadIdx.x) % 128) % 32) + (((((int64_t)threadIdx.x) % 128) / 32) * 32);
  // main loop of iS5{8}
  #pragma unroll 1
  for (int64_t i2 = 0; i2 < 7; ++i2) {
    const int64_t h1 = ((i2 + 1) % 2) * 128;
    // loop of iS12{32}
    for (int64_t i4 = 0; i4 < 32; ++i4) {
      if ((((((((int64_t)blockIdx.x) * 8) + (i2 + 1)) * 128) + ((((int64_t)threadIdx.x) * 32) + i4)) < i0) && (((int64_t)threadIdx.x) < 4)) {
        T2[(i4 + (((int64_t)threadIdx.x) * 32)) + h1] = T0.data[((((((int64_t)blockIdx.x) * 8) + (i2 + 1)) * 128) + ((((int64_t)threadIdx.x) * 32) + i4)) * T0_stride0];
      }
    }
    __syncthreads();  // RAW: stage i2 % 2 of T2 loaded by other threads
    if (((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) < i0) {
      T1.data[((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) * T1_stride0] = T2[h2 + ((i2 % 2) * 128)] + 1.0f;
    }
    __syncthreads();  // WAR: stage (i2 + 1) % 2 is loaded again next iteration
  }
  const int64_t h3 = ((((int64_t)threadIdx.x) % 128) % 32) + (((((int64_t)threadIdx.x) % 128) / 32) * 32);
  // epilogue loop of iS5{8}
  #pragma unroll 1
  for (int64_t i2 = 7; i2 < 8; ++i2) {
    if (((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) < i0) {
      T1.data[((((((int64_t)blockIdx.x) * 8) + i2) * 128) + ((int64_t)threadIdx.x)) * T1_stride0] = T2[h3 + ((i2 % 2) * 128)] + 1.0f;
    }
  }
}
