extern "C" __global__ void __launch_bounds__(64, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 1> T1, Tensor<float, 1> T1_work, Tensor<int, 1> T1_sem) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];

  float T1_acc[1];
  if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < i0) {
    T1_acc[0] = 0.0f;
  }
  const int64_t h0 = ((int64_t)blockIdx.z) * ceilDiv(i1, 3);
  // loop of rS5{ceilDiv(i1, 3)}
  for (int64_t i5 = 0; i5 < ceilDiv(i1, 3); ++i5) {
    if ((((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < i0) && ((h0 + i5) < i1)) {
      T1_acc[0] = T1_acc[0] + T0.data[(((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * T0_stride0) + ((h0 + i5) * T0_stride1)];
    }
  }
  // loop of partials of T1
  #pragma unroll
  for (int64_t g1 = 0; g1 < 1; ++g1) {
    T1_work.data[((((((int64_t)blockIdx.z) * ceilDiv(i0, 64)) + ((((int64_t)blockIdx.y) * ceilDiv(i0, 64)) + ((int64_t)blockIdx.x))) + g1) * 64) + ((int64_t)threadIdx.x)] = T1_acc[g1];
  }
  gridFence();
  __syncthreads();  // every thread's partials of T1 written and fenced before the arrival
  const int64_t last_T1 = semaphoreArrive(&T1_sem.data[(((int64_t)blockIdx.y) * ceilDiv(i0, 64)) + ((int64_t)blockIdx.x)], 3, threadIdx.x == 0);
  if (last_T1 != 0) {
    // loop of partials of T1
    #pragma unroll
    for (int64_t g1 = 0; g1 < 1; ++g1) {
      T1_acc[g1] = 0.0f;
      // loop of splits, in order
      #pragma unroll 8
      for (int64_t z1 = 0; z1 < 3; ++z1) {
        T1_acc[g1] = T1_acc[g1] + T1_work.data[((((z1 * ceilDiv(i0, 64)) + ((((int64_t)blockIdx.y) * ceilDiv(i0, 64)) + ((int64_t)blockIdx.x))) + g1) * 64) + ((int64_t)threadIdx.x)];
      }
    }
    if (((int64_t)threadIdx.x) == 0) {
      T1_sem.data[(((int64_t)blockIdx.y) * ceilDiv(i0, 64)) + ((int64_t)blockIdx.x)] = 0;
    }
    if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < i0) {
      T1.data[((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * T1_stride0] = T1_acc[0];
    }
  }
}
