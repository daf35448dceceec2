extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 1> T1, Tensor<float, 1> T2, Tensor<__bfloat16, 2> T8) {
  const int64_t i1 = T0.size[1];
  const int64_t i2 = T1.size[0];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T2_stride0 = T2.stride[0];
  const int64_t T8_stride0 = T8.stride[0];
  const int64_t T8_stride1 = T8.stride[1];

  float T9[4];
  __bfloat16 T10[4];
  if (((((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * 4) + 3) < i1) {
    {
      const float4 vec = *reinterpret_cast<const float4*>(&T0.data[(((int64_t)blockIdx.y) * T0_stride0) + ((((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * 4) * T0_stride1)]);
      T9[0] = vec.x;
      T9[1] = vec.y;
      T9[2] = vec.z;
      T9[3] = vec.w;
    }
  }
  // loop of iS49{4}
  for (int64_t i7 = 0; i7 < 4; ++i7) {
    float T3[1];
    float T5[1];
    float T4[1];
    float T6[1];
    float T7[1];
    T5[0] = T2.data[((int64_t)blockIdx.y) * T2_stride0];
    if (((((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * 4) + i7) < i2) {
      T3[0] = T1.data[((((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * 4) + i7) * T1_stride0];
    }
    T4[0] = T9[i7] + T3[0];
    T6[0] = T4[0] * T5[0];
    T7[0] = fmaxf(T6[0], 0.0f);
    T10[i7] = __float2bfloat16(T7[0]);
  }
  if (((((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * 4) + 3) < i1) {
    *reinterpret_cast<uint2*>(&T8.data[(((int64_t)blockIdx.y) * T8_stride0) + ((((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * 4) * T8_stride1)]) = uint2{(static_cast<uint32_t>((T10[0]).raw) | (static_cast<uint32_t>((T10[1]).raw) << 16)), (static_cast<uint32_t>((T10[2]).raw) | (static_cast<uint32_t>((T10[3]).raw) << 16))};
  }
}
