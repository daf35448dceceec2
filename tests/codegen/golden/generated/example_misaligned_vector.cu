extern "C" __global__ void __launch_bounds__(5, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<float, 2> T2) {
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T2_stride0 = T2.stride[0];
  const int64_t T2_stride1 = T2.stride[1];
  extern __shared__ __align__(1024) char smem[];

  // loop of iS4{6}
  for (int64_t i0 = 0; i0 < 6; ++i0) {
    __bfloat16* T3 = reinterpret_cast<__bfloat16*>(smem);
    copyMisaligned<16, 2>(&T3[((int64_t)threadIdx.x) * 8], &T0.data[(i0 * T0_stride0) + ((((int64_t)threadIdx.x) * 8) * T0_stride1)], (((((int64_t)threadIdx.x) * 8) < 37) ? 1u : 0u) | ((((((int64_t)threadIdx.x) * 8) + 1) < 37) ? 2u : 0u) | ((((((int64_t)threadIdx.x) * 8) + 2) < 37) ? 4u : 0u) | ((((((int64_t)threadIdx.x) * 8) + 3) < 37) ? 8u : 0u) | ((((((int64_t)threadIdx.x) * 8) + 4) < 37) ? 16u : 0u) | ((((((int64_t)threadIdx.x) * 8) + 5) < 37) ? 32u : 0u) | ((((((int64_t)threadIdx.x) * 8) + 6) < 37) ? 64u : 0u) | ((((((int64_t)threadIdx.x) * 8) + 7) < 37) ? 128u : 0u));
    __syncthreads();  // RAW: T3 written, then read
    // loop of iS13{8}
    for (int64_t i3 = 0; i3 < 8; ++i3) {
      float T1[1];
      T1[0] = __bfloat162float(T3[i3 + (((int64_t)threadIdx.x) * 8)]);
      if (((((int64_t)threadIdx.x) * 8) + i3) < 37) {
        T2.data[(i0 * T2_stride0) + (((((int64_t)threadIdx.x) * 8) + i3) * T2_stride1)] = T1[0] * 2.0f;
      }
    }
    __syncthreads();  // WAR: T3 is rewritten next iteration
  }
}
