extern "C" __global__ void __launch_bounds__(128, 2) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 2> T8) {
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T8_stride0 = T8.stride[0];
  const int64_t T8_stride1 = T8.stride[1];
  extern __shared__ __align__(1024) char smem[];

  int64_t* block_workspace = reinterpret_cast<int64_t*>(smem);
  float T9[16];
  float T11[1];
  float T1[1];
  float T1_acc[1];
  float T4[16];
  float T12[1];
  float T5[1];
  float T5_acc[1];
  float T6[1];
  // loop of iS29{4}
  for (int64_t i2 = 0; i2 < 4; ++i2) {
    {
      const float4 vec = *reinterpret_cast<const float4*>(&T0.data[(((((int64_t)blockIdx.x) * 2) + ((int64_t)threadIdx.y)) * T0_stride0) + ((((i2 * 64) + ((int64_t)threadIdx.x)) * 4) * T0_stride1)]);
      T9[i2 * 4] = vec.x;
      T9[(i2 * 4) + 1] = vec.y;
      T9[(i2 * 4) + 2] = vec.z;
      T9[(i2 * 4) + 3] = vec.w;
    }
  }
  T11[0] = __uint_as_float(0xff800000u);
  // loop of rS81{4}
  for (int64_t i5 = 0; i5 < 4; ++i5) {
    // loop of rS80{4}
    for (int64_t i7 = 0; i7 < 4; ++i7) {
      T11[0] = fmaxf(T11[0], T9[i7 + (i5 * 4)]);
    }
  }
  T1_acc[0] = __uint_as_float(0xff800000u);
  T1_acc[0] = fmaxf(T1_acc[0], T11[0]);
  T1_acc[0] = blockAllReduce<true, false, false, 64, 2, 1>(T1_acc[0], reinterpret_cast<float*>(block_workspace), ReduceMax());
  T1[0] = T1_acc[0];
  // loop of iS53{4}
  for (int64_t i9 = 0; i9 < 4; ++i9) {
    // loop of iS52{4}
    for (int64_t i11 = 0; i11 < 4; ++i11) {
      float T2[1];
      float T3[1];
      T2[0] = T1[0];
      T3[0] = T9[i11 + (i9 * 4)] - T2[0];
      T4[i11 + (i9 * 4)] = expf(T3[0]);
    }
  }
  T12[0] = 0.0f;
  // loop of rS93{4}
  for (int64_t i12 = 0; i12 < 4; ++i12) {
    // loop of rS92{4}
    for (int64_t i14 = 0; i14 < 4; ++i14) {
      T12[0] = T12[0] + T4[i14 + (i12 * 4)];
    }
  }
  T5_acc[0] = 0.0f;
  T5_acc[0] = T5_acc[0] + T12[0];
  T5_acc[0] = blockAllReduce<true, false, false, 64, 2, 1>(T5_acc[0], reinterpret_cast<float*>(block_workspace), ReduceAdd());
  T5[0] = T5_acc[0];
  T6[0] = 1.0f / T5[0];
  // loop of iS23{4}
  for (int64_t i16 = 0; i16 < 4; ++i16) {
    float T10[4];
    // loop of iS72{4}
    for (int64_t i18 = 0; i18 < 4; ++i18) {
      float T7[1];
      T7[0] = T6[0];
      T10[i18] = T4[i18 + (i16 * 4)] * T7[0];
    }
    *reinterpret_cast<float4*>(&T8.data[(((((int64_t)blockIdx.x) * 2) + ((int64_t)threadIdx.y)) * T8_stride0) + ((((i16 * 64) + ((int64_t)threadIdx.x)) * 4) * T8_stride1)]) = float4{T10[0], T10[1], T10[2], T10[3]};
  }
}
