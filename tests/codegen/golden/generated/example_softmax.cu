extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 2> T7) {
  const int64_t i1 = T0.size[1];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T7_stride0 = T7.stride[0];
  const int64_t T7_stride1 = T7.stride[1];
  extern __shared__ __align__(1024) char smem[];

  int64_t* block_workspace = reinterpret_cast<int64_t*>(smem);
  float T1[1];
  float T1_acc[1];
  float* T4 = reinterpret_cast<float*>(smem + 1024);
  float T5[1];
  float T5_acc[1];
  T1_acc[0] = __uint_as_float(0xff800000u);
  // loop of rS16{ceilDiv(i1, 128)}
  for (int64_t i3 = 0; i3 < ceilDiv(i1, 128); ++i3) {
    if (((i3 * 128) + ((int64_t)threadIdx.x)) < i1) {
      T1_acc[0] = fmaxf(T1_acc[0], T0.data[(((int64_t)blockIdx.x) * T0_stride0) + (((i3 * 128) + ((int64_t)threadIdx.x)) * T0_stride1)]);
    }
  }
  T1_acc[0] = blockAllReduce<true, false, false, 128, 1, 1>(T1_acc[0], reinterpret_cast<float*>(block_workspace), ReduceMax());
  T1[0] = T1_acc[0];
  // loop of iS22{ceilDiv(i1, 128)}
  for (int64_t i5 = 0; i5 < ceilDiv(i1, 128); ++i5) {
    float T2[1];
    float T3[1];
    T2[0] = T1[0];
    if (((i5 * 128) + ((int64_t)threadIdx.x)) < i1) {
      T3[0] = T0.data[(((int64_t)blockIdx.x) * T0_stride0) + (((i5 * 128) + ((int64_t)threadIdx.x)) * T0_stride1)] - T2[0];
    }
    if (((i5 * 128) + ((int64_t)threadIdx.x)) < i1) {
      T4[((int64_t)threadIdx.x) + (i5 * 128)] = expf(T3[0]);
    }
  }
  T5_acc[0] = 0.0f;
  __syncthreads();  // RAW: T4 written, then read
  // loop of rS24{ceilDiv(i1, 128)}
  for (int64_t i7 = 0; i7 < ceilDiv(i1, 128); ++i7) {
    if (((i7 * 128) + ((int64_t)threadIdx.x)) < i1) {
      T5_acc[0] = T5_acc[0] + T4[((int64_t)threadIdx.x) + (i7 * 128)];
    }
  }
  T5_acc[0] = blockAllReduce<true, false, false, 128, 1, 1>(T5_acc[0], reinterpret_cast<float*>(block_workspace), ReduceAdd());
  T5[0] = T5_acc[0];
  __syncthreads();  // RAW: T4 written, then read
  // loop of iS28{ceilDiv(i1, 128)}
  for (int64_t i9 = 0; i9 < ceilDiv(i1, 128); ++i9) {
    float T6[1];
    T6[0] = T5[0];
    if (((i9 * 128) + ((int64_t)threadIdx.x)) < i1) {
      T7.data[(((int64_t)blockIdx.x) * T7_stride0) + (((i9 * 128) + ((int64_t)threadIdx.x)) * T7_stride1)] = T4[((int64_t)threadIdx.x) + (i9 * 128)] / T6[0];
    }
  }
}
