extern "C" __global__ void __launch_bounds__(256, 4) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 1> T1, Tensor<float, 1> T1_work, Tensor<int, 1> T1_sem) {
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];
  extern __shared__ __align__(1024) char smem[];

  int64_t* block_workspace = reinterpret_cast<int64_t*>(smem);
  float T1_acc[4];
  // loop of iV64{4}
  #pragma unroll
  for (int64_t i11 = 0; i11 < 4; ++i11) {
    T1_acc[i11] = 0.0f;
  }
  // loop of rS61{1}
  for (int64_t i3 = 0; i3 < 1; ++i3) {
    float T3[4];
    float T4[4];
    // loop of iS33{4}
    for (int64_t i8 = 0; i8 < 4; ++i8) {
      T3[i8] = 0.0f;
    }
    // loop of rS41{8}
    for (int64_t i4 = 0; i4 < 8; ++i4) {
      // loop of rUR39{4}
      #pragma unroll
      for (int64_t i5 = 0; i5 < 4; ++i5) {
        float T2[4];
        if ((((((((((int64_t)blockIdx.z) + i3) * 8) + i4) * 4) + i5) * 8) + ((int64_t)threadIdx.y)) < 1000) {
          {
            const float4 vec = *reinterpret_cast<const float4*>(&T0.data[((((((((((int64_t)blockIdx.z) + i3) * 8) + i4) * 4) + i5) * 8) + ((int64_t)threadIdx.y)) * T0_stride0) + ((((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x)) * 4) * T0_stride1)]);
            T2[0] = vec.x;
            T2[1] = vec.y;
            T2[2] = vec.z;
            T2[3] = vec.w;
          }
        }
        if ((((((((((int64_t)blockIdx.z) + i3) * 8) + i4) * 4) + i5) * 8) + ((int64_t)threadIdx.y)) < 1000) {
          // loop of iS33{4}
          for (int64_t i8 = 0; i8 < 4; ++i8) {
            T3[i8] = T3[i8] + T2[i8];
          }
        }
      }
    }
    // loop of iS57{4}
    for (int64_t i10 = 0; i10 < 4; ++i10) {
      float T4_acc[1];
      T4_acc[0] = 0.0f;
      T4_acc[0] = T4_acc[0] + T3[i10];
      T4_acc[0] = blockAllReduce<false, true, false, 32, 8, 1>(T4_acc[0], reinterpret_cast<float*>(block_workspace), ReduceAdd());
      T4[i10] = T4_acc[0];
    }
    // loop of iV64{4}
    #pragma unroll
    for (int64_t i11 = 0; i11 < 4; ++i11) {
      T1_acc[i11] = T1_acc[i11] + T4[i11];
    }
  }
  // loop of partials of T1
  #pragma unroll
  for (int64_t g1 = 0; g1 < 4; ++g1) {
    T1_work.data[(((((((int64_t)blockIdx.z) * 2) + ((((int64_t)blockIdx.y) * 2) + ((int64_t)blockIdx.x))) * 4) + g1) * 256) + (((int64_t)threadIdx.x) + (((int64_t)threadIdx.y) * 32))] = T1_acc[g1];
  }
  gridFence();
  __syncthreads();  // every thread's partials of T1 written and fenced before the arrival
  const int64_t last_T1 = semaphoreArrive(&T1_sem.data[(((int64_t)blockIdx.y) * 2) + ((int64_t)blockIdx.x)], 4, threadIdx.x == 0 && threadIdx.y == 0);
  if (last_T1 != 0) {
    // loop of partials of T1
    #pragma unroll
    for (int64_t g1 = 0; g1 < 4; ++g1) {
      T1_acc[g1] = 0.0f;
      // loop of splits, in order
      #pragma unroll 8
      for (int64_t z1 = 0; z1 < 4; ++z1) {
        T1_acc[g1] = T1_acc[g1] + T1_work.data[(((((z1 * 2) + ((((int64_t)blockIdx.y) * 2) + ((int64_t)blockIdx.x))) * 4) + g1) * 256) + (((int64_t)threadIdx.x) + (((int64_t)threadIdx.y) * 32))];
      }
    }
    if ((((int64_t)threadIdx.x) == 0) && (((int64_t)threadIdx.y) == 0)) {
      T1_sem.data[(((int64_t)blockIdx.y) * 2) + ((int64_t)blockIdx.x)] = 0;
    }
    if (((int64_t)threadIdx.y) == 0) {
      *reinterpret_cast<float4*>(&T1.data[(((((int64_t)blockIdx.x) * 32) + ((int64_t)threadIdx.x)) * 4) * T1_stride0]) = float4{T1_acc[0], T1_acc[1], T1_acc[2], T1_acc[3]};
    }
  }
}
