extern "C" __global__ void __launch_bounds__(32, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 3> T4) {
  const int64_t i0 = T0.size[0];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T4_stride0 = T4.stride[0];
  const int64_t T4_stride1 = T4.stride[1];
  const int64_t T4_stride2 = T4.stride[2];
  extern __shared__ __align__(1024) char smem[];

  // loop of iS11{ceilDiv(i0, 32)}
  for (int64_t i1 = 0; i1 < ceilDiv(i0, 32); ++i1) {
    float* T5 = reinterpret_cast<float*>(smem);
    // loop of iS16{32}
    for (int64_t i3 = 0; i3 < 32; ++i3) {
      if (((i1 * 32) + ((int64_t)threadIdx.x)) < i0) {
        cpAsync<4>(toSmem(&T5[i3 + (((int64_t)threadIdx.x) * 32)]), &T0.data[(((i1 * 32) + ((int64_t)threadIdx.x)) * T0_stride0) + (i3 * T0_stride1)], true);
      } else {
        T5[i3 + (((int64_t)threadIdx.x) * 32)] = -1.0f;
      }
    }
    cpAsyncCommitGroup();
    cpAsyncWaitGroup<0>();
    __syncthreads();  // RAW: T5 written, then read
    // loop of iS13{32}
    for (int64_t i5 = 0; i5 < 32; ++i5) {
      T4.data[((i1 * T4_stride0) + (((int64_t)threadIdx.x) * T4_stride1)) + (i5 * T4_stride2)] = T5[i5 + (((int64_t)threadIdx.x) * 32)] * 2.0f;
    }
    __syncthreads();  // WAR: T5 is rewritten next iteration
  }
}
