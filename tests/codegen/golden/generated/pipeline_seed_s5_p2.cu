extern "C" __global__ void __launch_bounds__(1, 1) fusion_kernel(Tensor<float, 1> T0, Tensor<float, 1> T1, const __grid_constant__ TensorMap tmap_T0) {
  const int64_t i0 = T0.size[0];
  const int64_t T1_stride0 = T1.stride[0];
  extern __shared__ __align__(1024) char smem[];

  float* T2 = reinterpret_cast<float*>(smem + 128);
  int64_t* T2_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0) {
    // pre-prologue loop of stages of T2
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 5; ++s0) {
      mbarrier::init(toSmem(&T2_mbar[s0]), 1);
    }
  }
  __syncthreads();  // init: T2_mbar visible to every thread
  if (threadIdx.x == 0) {
    // prologue loop of iS2{ceilDiv(i0, 32)}
    #pragma unroll
    for (int64_t i1 = 0; i1 < min64(2, ceilDiv(i0, 32)); ++i1) {
      mbarrier::arriveExpectTx(toSmem(&T2_mbar[i1 % 5]), 128);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T2[(i1 % 5) * 32]), &tmap_T0, toSmem(&T2_mbar[i1 % 5]), i1 * 32);
    }
  }
  // main loop of iS2{ceilDiv(i0, 32)}
  #pragma unroll 1
  for (int64_t i1 = 0; i1 < ceilDiv(i0, 32) - 2; ++i1) {
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T2_mbar[(i1 + 2) % 5]), 128);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T2[((i1 + 2) % 5) * 32]), &tmap_T0, toSmem(&T2_mbar[(i1 + 2) % 5]), (i1 + 2) * 32);
    }
    mbarrier::waitParity(toSmem(&T2_mbar[i1 % 5]), (i1 / 5) % 2);
    const int64_t h0 = (i1 % 5) * 32;
    // loop of iS3{32}
    for (int64_t i3 = 0; i3 < 32; ++i3) {
      if (((i1 * 32) + i3) < i0) {
        T1.data[((i1 * 32) + i3) * T1_stride0] = T2[i3 + h0];
      }
    }
  }
  // epilogue loop of iS2{ceilDiv(i0, 32)}
  #pragma unroll 1
  for (int64_t i1 = max64(ceilDiv(i0, 32) - 2, 0); i1 < ceilDiv(i0, 32); ++i1) {
    mbarrier::waitParity(toSmem(&T2_mbar[i1 % 5]), (i1 / 5) % 2);
    const int64_t h1 = (i1 % 5) * 32;
    // loop of iS3{32}
    for (int64_t i3 = 0; i3 < 32; ++i3) {
      if (((i1 * 32) + i3) < i0) {
        T1.data[((i1 * 32) + i3) * T1_stride0] = T2[i3 + h1];
      }
    }
  }
  __syncthreads();  // every wait on T2_mbar done before inval
  if (threadIdx.x == 0) {
    // post-epilogue loop of stages of T2
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 5; ++s0) {
      mbarrier::inval(toSmem(&T2_mbar[s0]));
    }
  }
}
