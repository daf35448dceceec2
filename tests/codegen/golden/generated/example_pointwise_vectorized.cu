extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<float, 1> T0, Tensor<float, 1> T1, Tensor<float, 1> T2) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T1.size[0];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T2_stride0 = T2.stride[0];

  float T3[4];
  float T4[4];
  float T5[4];
  if (((((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * 4) + 3) < i0) {
    {
      const float4 vec = *reinterpret_cast<const float4*>(&T0.data[(((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * 4) * T0_stride0]);
      T3[0] = vec.x;
      T3[1] = vec.y;
      T3[2] = vec.z;
      T3[3] = vec.w;
    }
  }
  if (((((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * 4) + 3) < i1) {
    {
      const float4 vec = *reinterpret_cast<const float4*>(&T1.data[(((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * 4) * T1_stride0]);
      T4[0] = vec.x;
      T4[1] = vec.y;
      T4[2] = vec.z;
      T4[3] = vec.w;
    }
  }
  // loop of iS19{4}
  for (int64_t i6 = 0; i6 < 4; ++i6) {
    T5[i6] = T3[i6] + T4[i6];
  }
  if (((((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * 4) + 3) < i0) {
    *reinterpret_cast<float4*>(&T2.data[(((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * 4) * T2_stride0]) = float4{T5[0], T5[1], T5[2], T5[3]};
  }
}
