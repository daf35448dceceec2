extern "C" __global__ void __launch_bounds__(32, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 2> T4) {
  const int64_t i1 = T0.size[1];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T4_stride0 = T4.stride[0];
  const int64_t T4_stride1 = T4.stride[1];
  extern __shared__ __align__(1024) char smem[];

  float* T1 = reinterpret_cast<float*>(smem);
  // loop of iS16{ceilDiv(i1, 32)}
  for (int64_t i3 = 0; i3 < ceilDiv(i1, 32); ++i3) {
    if (((i3 * 32) + ((int64_t)threadIdx.x)) < i1) {
      T1[((int64_t)threadIdx.x) + (i3 * 32)] = T0.data[(((int64_t)blockIdx.x) * T0_stride0) + (((i3 * 32) + ((int64_t)threadIdx.x)) * T0_stride1)] + 1.0f;
    }
  }
  __syncthreads();  // RAW: T1 written, then read
  // loop of iS10{ceilDiv(i1, 32)}
  for (int64_t i5 = 0; i5 < ceilDiv(i1, 32); ++i5) {
    float T2[1];
    float T3[1];
    if (((i5 * 32) + ((int64_t)threadIdx.x)) < i1) {
      T2[0] = T1[((int64_t)threadIdx.x) + (i5 * 32)] * T1[((int64_t)threadIdx.x) + (i5 * 32)];
    }
    T3[0] = sinf(T2[0]);
    if (((i5 * 32) + ((int64_t)threadIdx.x)) < i1) {
      T4.data[(((int64_t)blockIdx.x) * T4_stride0) + (((i5 * 32) + ((int64_t)threadIdx.x)) * T4_stride1)] = T3[0] + T0.data[(((int64_t)blockIdx.x) * T0_stride0) + (((i5 * 32) + ((int64_t)threadIdx.x)) * T0_stride1)];
    }
  }
}
