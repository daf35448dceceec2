extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 2> T4) {
  const int64_t i1 = T0.size[1];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T4_stride0 = T4.stride[0];
  const int64_t T4_stride1 = T4.stride[1];
  extern __shared__ __align__(1024) char smem[];

  int64_t* block_workspace = reinterpret_cast<int64_t*>(smem);
  float T1[1];
  float T1_acc[1];
  T1_acc[0] = __uint_as_float(0xff800000u);
  // loop of rS10{ceilDiv(i1, 128)}
  for (int64_t i3 = 0; i3 < ceilDiv(i1, 128); ++i3) {
    if (((i3 * 128) + ((int64_t)threadIdx.x)) < i1) {
      T1_acc[0] = fmaxf(T1_acc[0], T0.data[(((int64_t)blockIdx.x) * T0_stride0) + (((i3 * 128) + ((int64_t)threadIdx.x)) * T0_stride1)]);
    }
  }
  T1_acc[0] = blockAllReduce<true, false, false, 128, 1, 1>(T1_acc[0], reinterpret_cast<float*>(block_workspace), ReduceMax());
  T1[0] = T1_acc[0];
  // loop of iS16{ceilDiv(i1, 128)}
  for (int64_t i5 = 0; i5 < ceilDiv(i1, 128); ++i5) {
    float T2[1];
    float T3[1];
    T2[0] = T1[0];
    if (((i5 * 128) + ((int64_t)threadIdx.x)) < i1) {
      T3[0] = T0.data[(((int64_t)blockIdx.x) * T0_stride0) + (((i5 * 128) + ((int64_t)threadIdx.x)) * T0_stride1)] - T2[0];
    }
    if (((i5 * 128) + ((int64_t)threadIdx.x)) < i1) {
      T4.data[(((int64_t)blockIdx.x) * T4_stride0) + (((i5 * 128) + ((int64_t)threadIdx.x)) * T4_stride1)] = expf(T3[0]);
    }
  }
}
