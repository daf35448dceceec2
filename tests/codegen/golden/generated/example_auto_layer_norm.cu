extern "C" __global__ void __launch_bounds__(128, 2) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 1> T1, Tensor<float, 1> T2, Tensor<float, 2> T17) {
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T2_stride0 = T2.stride[0];
  const int64_t T17_stride0 = T17.stride[0];
  const int64_t T17_stride1 = T17.stride[1];
  extern __shared__ __align__(1024) char smem[];

  int64_t* block_workspace = reinterpret_cast<int64_t*>(smem);
  float T18[12];
  float T22[1];
  float T3[1];
  float T3_acc[1];
  float T4[1];
  float T6[12];
  float T23[1];
  float T8[1];
  float T8_acc[1];
  float T9[1];
  float T10[1];
  float T11[1];
  // loop of iS44{3}
  for (int64_t i2 = 0; i2 < 3; ++i2) {
    {
      const float4 vec = *reinterpret_cast<const float4*>(&T0.data[(((((int64_t)blockIdx.x) * 2) + ((int64_t)threadIdx.y)) * T0_stride0) + ((((i2 * 64) + ((int64_t)threadIdx.x)) * 4) * T0_stride1)]);
      T18[i2 * 4] = vec.x;
      T18[(i2 * 4) + 1] = vec.y;
      T18[(i2 * 4) + 2] = vec.z;
      T18[(i2 * 4) + 3] = vec.w;
    }
  }
  T22[0] = 0.0f;
  // loop of rS134{3}
  for (int64_t i10 = 0; i10 < 3; ++i10) {
    // loop of rS133{4}
    for (int64_t i12 = 0; i12 < 4; ++i12) {
      T22[0] = T22[0] + T18[i12 + (i10 * 4)];
    }
  }
  T3_acc[0] = 0.0f;
  T3_acc[0] = T3_acc[0] + T22[0];
  T3_acc[0] = blockAllReduce<true, false, false, 64, 2, 1>(T3_acc[0], reinterpret_cast<float*>(block_workspace), ReduceAdd());
  T3[0] = T3_acc[0];
  T4[0] = T3[0] * 0.0013020833333333333f;
  // loop of iS64{3}
  for (int64_t i14 = 0; i14 < 3; ++i14) {
    // loop of iS63{4}
    for (int64_t i16 = 0; i16 < 4; ++i16) {
      float T5[1];
      T5[0] = T4[0];
      T6[i16 + (i14 * 4)] = T18[i16 + (i14 * 4)] - T5[0];
    }
  }
  T23[0] = 0.0f;
  // loop of rS146{3}
  for (int64_t i17 = 0; i17 < 3; ++i17) {
    // loop of rS145{4}
    for (int64_t i19 = 0; i19 < 4; ++i19) {
      float T7[1];
      T7[0] = T6[i19 + (i17 * 4)] * T6[i19 + (i17 * 4)];
      T23[0] = T23[0] + T7[0];
    }
  }
  T8_acc[0] = 0.0f;
  T8_acc[0] = T8_acc[0] + T23[0];
  T8_acc[0] = blockAllReduce<true, false, false, 64, 2, 1>(T8_acc[0], reinterpret_cast<float*>(block_workspace), ReduceAdd());
  T8[0] = T8_acc[0];
  T9[0] = T8[0] * 0.0013020833333333333f;
  T10[0] = T9[0] + 1e-05f;
  T11[0] = rsqrtf(T10[0]);
  // loop of iS38{3}
  for (int64_t i5 = 0; i5 < 3; ++i5) {
    float T19[4];
    float T20[4];
    float T21[4];
    {
      const float4 vec = *reinterpret_cast<const float4*>(&T1.data[(((i5 * 64) + ((int64_t)threadIdx.x)) * 4) * T1_stride0]);
      T19[0] = vec.x;
      T19[1] = vec.y;
      T19[2] = vec.z;
      T19[3] = vec.w;
    }
    {
      const float4 vec = *reinterpret_cast<const float4*>(&T2.data[(((i5 * 64) + ((int64_t)threadIdx.x)) * 4) * T2_stride0]);
      T20[0] = vec.x;
      T20[1] = vec.y;
      T20[2] = vec.z;
      T20[3] = vec.w;
    }
    // loop of iS125{4}
    for (int64_t i8 = 0; i8 < 4; ++i8) {
      float T14[1];
      float T16[1];
      float T12[1];
      float T13[1];
      float T15[1];
      T16[0] = T20[i8];
      T14[0] = T19[i8];
      T12[0] = T11[0];
      T13[0] = T6[i8 + (i5 * 4)] * T12[0];
      T15[0] = T13[0] * T14[0];
      T21[i8] = T15[0] + T16[0];
    }
    *reinterpret_cast<float4*>(&T17.data[(((((int64_t)blockIdx.x) * 2) + ((int64_t)threadIdx.y)) * T17_stride0) + ((((i5 * 64) + ((int64_t)threadIdx.x)) * 4) * T17_stride1)]) = float4{T21[0], T21[1], T21[2], T21[3]};
  }
}
