extern "C" __global__ void fusion_kernel(Tensor<float, 2> T0, Tensor<float, 1> T1, Tensor<float, 1> T2, Tensor<float, 2> T17) {
  const int64_t i1 = T0.size[1];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T2_stride0 = T2.stride[0];
  const int64_t T17_stride0 = T17.stride[0];
  const int64_t T17_stride1 = T17.stride[1];
  extern __shared__ __align__(1024) char smem[];

  int64_t* block_workspace = reinterpret_cast<int64_t*>(smem);
  float T3[1];
  float T3_acc[1];
  float T4[1];
  float T6[8];
  float T8[1];
  float T8_acc[1];
  float T9[1];
  float T10[1];
  float T11[1];
  T3_acc[0] = 0.0f;
  const int64_t h0 = ceilDiv(i1, 8);
  // loop of rS32{8}
  for (int64_t i3 = 0; i3 < 8; ++i3) {
    if (((i3 * h0) + ((int64_t)threadIdx.x)) < i1) {
      T3_acc[0] = T3_acc[0] + T0.data[(((int64_t)blockIdx.x) * T0_stride0) + (((i3 * h0) + ((int64_t)threadIdx.x)) * T0_stride1)];
    }
  }
  T3_acc[0] = blockAllReduce<true, false, false>(T3_acc[0], reinterpret_cast<float*>(block_workspace), ReduceAdd());
  T3[0] = T3_acc[0];
  T4[0] = T3[0] * 0.0033333333333333335f;
  const int64_t h1 = ceilDiv(i1, 8);
  // loop of iS36{8}
  for (int64_t i5 = 0; i5 < 8; ++i5) {
    float T5[1];
    T5[0] = T4[0];
    if (((i5 * h1) + ((int64_t)threadIdx.x)) < i1) {
      T6[i5] = T0.data[(((int64_t)blockIdx.x) * T0_stride0) + (((i5 * h1) + ((int64_t)threadIdx.x)) * T0_stride1)] - T5[0];
    }
  }
  T8_acc[0] = 0.0f;
  const int64_t h2 = ceilDiv(i1, 8);
  // loop of rS40{8}
  for (int64_t i7 = 0; i7 < 8; ++i7) {
    float T7[1];
    T7[0] = T6[i7] * T6[i7];
    if (((i7 * h2) + ((int64_t)threadIdx.x)) < i1) {
      T8_acc[0] = T8_acc[0] + T7[0];
    }
  }
  T8_acc[0] = blockAllReduce<true, false, false>(T8_acc[0], reinterpret_cast<float*>(block_workspace), ReduceAdd());
  T8[0] = T8_acc[0];
  T9[0] = T8[0] * 0.0033333333333333335f;
  T10[0] = T9[0] + 1e-05f;
  T11[0] = rsqrtf(T10[0]);
  const int64_t h3 = ceilDiv(i1, 8);
  // loop of iS30{8}
  for (int64_t i9 = 0; i9 < 8; ++i9) {
    float T12[1];
    float T13[1];
    float T14[1];
    float T15[1];
    float T16[1];
    T12[0] = T11[0];
    T13[0] = T6[i9] * T12[0];
    if (((i9 * 38) + ((int64_t)threadIdx.x)) < 300) {
      T14[0] = T1.data[((i9 * 38) + ((int64_t)threadIdx.x)) * T1_stride0];
    }
    T15[0] = T13[0] * T14[0];
    if (((i9 * 38) + ((int64_t)threadIdx.x)) < 300) {
      T16[0] = T2.data[((i9 * 38) + ((int64_t)threadIdx.x)) * T2_stride0];
    }
    if (((i9 * h3) + ((int64_t)threadIdx.x)) < i1) {
      T17.data[(((int64_t)blockIdx.x) * T17_stride0) + (((i9 * h3) + ((int64_t)threadIdx.x)) * T17_stride1)] = T15[0] + T16[0];
    }
  }
}
