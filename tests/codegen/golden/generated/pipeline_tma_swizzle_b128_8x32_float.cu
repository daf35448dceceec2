extern "C" __global__ void __launch_bounds__(32, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 2> T2, const __grid_constant__ TensorMap tmap_T0) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t T2_stride0 = T2.stride[0];
  const int64_t T2_stride1 = T2.stride[1];
  extern __shared__ __align__(1024) char smem[];

  float* T3 = reinterpret_cast<float*>(smem + 1024);
  int64_t* T3_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0) {
    // pre-prologue loop of stages of T3
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 2; ++s1) {
      mbarrier::init(toSmem(&T3_mbar[s1]), 1);
    }
  }
  __syncthreads();  // init: T3_mbar visible to every thread
  if (threadIdx.x == 0) {
    // prologue loop of iS6{ceilDiv(i1, 32)}
    #pragma unroll
    for (int64_t i3 = 0; i3 < min64(1, ceilDiv(i1, 32)); ++i3) {
      mbarrier::arriveExpectTx(toSmem(&T3_mbar[i3 % 2]), 1024);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T3[(i3 % 2) * 256]), &tmap_T0, toSmem(&T3_mbar[i3 % 2]), i3 * 32, ((int64_t)blockIdx.x) * 8);
    }
  }
  // main loop of iS6{ceilDiv(i1, 32)}
  #pragma unroll 1
  for (int64_t i3 = 0; i3 < ceilDiv(i1, 32) - 1; ++i3) {
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T3_mbar[(i3 + 1) % 2]), 1024);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T3[((i3 + 1) % 2) * 256]), &tmap_T0, toSmem(&T3_mbar[(i3 + 1) % 2]), (i3 + 1) * 32, ((int64_t)blockIdx.x) * 8);
    }
    mbarrier::waitParity(toSmem(&T3_mbar[i3 % 2]), (i3 / 2) % 2);
    const int64_t h0 = (i3 % 2) * 256;
    // loop of iS9{8}
    for (int64_t i6 = 0; i6 < 8; ++i6) {
      float T1[1];
      if ((((((int64_t)blockIdx.x) * 8) + i6) < i0) && (((i3 * 32) + ((int64_t)threadIdx.x)) < i1)) {
        T1[0] = T3[((((int64_t)threadIdx.x) + (i6 * 32)) + h0) ^ (((((((int64_t)threadIdx.x) + (i6 * 32)) + h0) / 32) % 8) * 4)] * 2.0f;
      }
      if ((((((int64_t)blockIdx.x) * 8) + i6) < i0) && (((i3 * 32) + ((int64_t)threadIdx.x)) < i1)) {
        T2.data[(((((int64_t)blockIdx.x) * 8) + i6) * T2_stride0) + (((i3 * 32) + ((int64_t)threadIdx.x)) * T2_stride1)] = T1[0] + 1.0f;
      }
    }
    __syncthreads();  // WAR: stage (i3 + 1) % 2 is loaded again next iteration
  }
  // epilogue loop of iS6{ceilDiv(i1, 32)}
  #pragma unroll 1
  for (int64_t i3 = max64(ceilDiv(i1, 32) - 1, 0); i3 < ceilDiv(i1, 32); ++i3) {
    mbarrier::waitParity(toSmem(&T3_mbar[i3 % 2]), (i3 / 2) % 2);
    const int64_t h1 = (i3 % 2) * 256;
    // loop of iS9{8}
    for (int64_t i6 = 0; i6 < 8; ++i6) {
      float T1[1];
      if ((((((int64_t)blockIdx.x) * 8) + i6) < i0) && (((i3 * 32) + ((int64_t)threadIdx.x)) < i1)) {
        T1[0] = T3[((((int64_t)threadIdx.x) + (i6 * 32)) + h1) ^ (((((((int64_t)threadIdx.x) + (i6 * 32)) + h1) / 32) % 8) * 4)] * 2.0f;
      }
      if ((((((int64_t)blockIdx.x) * 8) + i6) < i0) && (((i3 * 32) + ((int64_t)threadIdx.x)) < i1)) {
        T2.data[(((((int64_t)blockIdx.x) * 8) + i6) * T2_stride0) + (((i3 * 32) + ((int64_t)threadIdx.x)) * T2_stride1)] = T1[0] + 1.0f;
      }
    }
  }
  __syncthreads();  // every wait on T3_mbar done before inval
  if (threadIdx.x == 0) {
    // post-epilogue loop of stages of T3
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 2; ++s1) {
      mbarrier::inval(toSmem(&T3_mbar[s1]));
    }
  }
}
