extern "C" __global__ void __launch_bounds__(256, 1) fusion_kernel(Tensor<float, 1> T0, Tensor<float, 1> T1, Tensor<float, 1> T2, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1) {
  const int64_t i0 = T0.size[0];
  const int64_t T2_stride0 = T2.stride[0];
  extern __shared__ __align__(1024) char smem[];

  float* T3 = reinterpret_cast<float*>(smem + 128);
  float* T4 = reinterpret_cast<float*>(smem + 4224);
  int64_t* T3_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0) {
    // pre-prologue loop of stages of T3, T4
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 4; ++s1) {
      mbarrier::init(toSmem(&T3_mbar[s1]), 1);
    }
  }
  __syncthreads();  // init: T3_mbar visible to every thread
  // main loop of iS8{8}
  #pragma unroll 1
  for (int64_t i3 = 0; i3 < 8; ++i3) {
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T3_mbar[i3 % 4]), 2048);
      const int64_t h0 = (i3 % 4) * 256;
      const int64_t h1 = i3 % 4;
      // loop of iS13{1}
      for (int64_t i4 = 0; i4 < 1; ++i4) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T3[(i4 * 256) + h0]), &tmap_T0, toSmem(&T3_mbar[h1]), (((((int64_t)blockIdx.x) * 8) + i3) + i4) * 256);
      }
      const int64_t h2 = (i3 % 4) * 256;
      const int64_t h3 = i3 % 4;
      // loop of iS20{1}
      for (int64_t i6 = 0; i6 < 1; ++i6) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T4[(i6 * 256) + h2]), &tmap_T1, toSmem(&T3_mbar[h3]), (((((int64_t)blockIdx.x) * 8) + i3) + i6) * 256);
      }
    }
    mbarrier::waitParity(toSmem(&T3_mbar[i3 % 4]), (i3 / 4) % 2);
    const int64_t h4 = (i3 % 4) * 256;
    // loop of iS6{1}
    for (int64_t i8 = 0; i8 < 1; ++i8) {
      if ((((((((int64_t)blockIdx.x) * 8) + i3) + i8) * 256) + ((int64_t)threadIdx.x)) < i0) {
        T2.data[(((((((int64_t)blockIdx.x) * 8) + i3) + i8) * 256) + ((int64_t)threadIdx.x)) * T2_stride0] = T3[(((int64_t)threadIdx.x) + (i8 * 256)) + h4] + T4[(((int64_t)threadIdx.x) + (i8 * 256)) + h4];
      }
    }
    __syncthreads();  // WAR: stage (i3 + 0) % 4 is loaded again next iteration
  }
  __syncthreads();  // every wait on T3_mbar done before inval
  if (threadIdx.x == 0) {
    // post-epilogue loop of stages of T3, T4
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 4; ++s1) {
      mbarrier::inval(toSmem(&T3_mbar[s1]));
    }
  }
}
