extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 1> T1) {
  const int64_t i1 = T0.size[1];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];
  extern __shared__ __align__(1024) char smem[];

  int64_t* block_workspace = reinterpret_cast<int64_t*>(smem);
  float T1_acc[1];
  T1_acc[0] = 0.0f;
  // loop of rS4{ceilDiv(i1, 128)}
  for (int64_t i3 = 0; i3 < ceilDiv(i1, 128); ++i3) {
    if (((i3 * 128) + ((int64_t)threadIdx.x)) < i1) {
      T1_acc[0] = T1_acc[0] + T0.data[(((int64_t)blockIdx.x) * T0_stride0) + (((i3 * 128) + ((int64_t)threadIdx.x)) * T0_stride1)];
    }
  }
  T1_acc[0] = blockAllReduce<true, false, false, 128, 1, 1>(T1_acc[0], reinterpret_cast<float*>(block_workspace), ReduceAdd());
  if (((int64_t)threadIdx.x) == 0) {
    T1.data[((int64_t)blockIdx.x) * T1_stride0] = T1_acc[0];
  }
}
