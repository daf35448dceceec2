extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<float, 1> T0, Tensor<float, 1> T1, Tensor<float, 1> T2) {
  const int64_t i0 = T0.size[0];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T2_stride0 = T2.stride[0];

  if (((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) < i0) {
    T2.data[((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * T2_stride0] = T0.data[((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * T0_stride0] + T1.data[((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * T1_stride0];
  }
}
