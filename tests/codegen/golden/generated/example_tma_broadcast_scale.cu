extern "C" __global__ void __launch_bounds__(1024, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 1> T1, Tensor<float, 2> T3, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t i2 = T1.size[0];
  const int64_t T3_stride0 = T3.stride[0];
  const int64_t T3_stride1 = T3.stride[1];
  extern __shared__ __align__(1024) char smem[];

  float* T4 = reinterpret_cast<float*>(smem + 128);
  float* T5 = reinterpret_cast<float*>(smem + 8320);
  int64_t* T4_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    // pre-prologue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 2; ++s1) {
      mbarrier::init(toSmem(&T4_mbar[s1]), 1);
    }
  }
  __syncthreads();  // init: T4_mbar visible to every thread
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    // prologue loop of iS10{ceilDiv(i1, 128)}
    #pragma unroll
    for (int64_t i4 = 0; i4 < min64(1, ceilDiv(i1, 128)); ++i4) {
      mbarrier::arriveExpectTx(toSmem(&T4_mbar[i4 % 2]), 4608);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[(i4 % 2) * 128]), &tmap_T1, toSmem(&T4_mbar[i4 % 2]), i4 * 128);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T4[(i4 % 2) * 1024]), &tmap_T0, toSmem(&T4_mbar[i4 % 2]), i4 * 128, ((int64_t)blockIdx.x) * 8);
    }
  }
  // main loop of iS10{ceilDiv(i1, 128)}
  #pragma unroll 1
  for (int64_t i4 = 0; i4 < ceilDiv(i1, 128) - 1; ++i4) {
    float T2[1];
    if (threadIdx.x == 0 && threadIdx.y == 0) {
      mbarrier::arriveExpectTx(toSmem(&T4_mbar[(i4 + 1) % 2]), 4608);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[((i4 + 1) % 2) * 128]), &tmap_T1, toSmem(&T4_mbar[(i4 + 1) % 2]), (i4 + 1) * 128);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T4[((i4 + 1) % 2) * 1024]), &tmap_T0, toSmem(&T4_mbar[(i4 + 1) % 2]), (i4 + 1) * 128, ((int64_t)blockIdx.x) * 8);
    }
    mbarrier::waitParity(toSmem(&T4_mbar[i4 % 2]), (i4 / 2) % 2);
    if (((i4 * 128) + ((int64_t)threadIdx.x)) < i2) {
      T2[0] = T5[((int64_t)threadIdx.x) + ((i4 % 2) * 128)];
    }
    if ((((((int64_t)blockIdx.x) * 8) + ((int64_t)threadIdx.y)) < i0) && (((i4 * 128) + ((int64_t)threadIdx.x)) < i1)) {
      T3.data[(((((int64_t)blockIdx.x) * 8) + ((int64_t)threadIdx.y)) * T3_stride0) + (((i4 * 128) + ((int64_t)threadIdx.x)) * T3_stride1)] = T4[(((int64_t)threadIdx.x) + (((int64_t)threadIdx.y) * 128)) + ((i4 % 2) * 1024)] * T2[0];
    }
    __syncthreads();  // WAR: stage (i4 + 1) % 2 is loaded again next iteration
  }
  // epilogue loop of iS10{ceilDiv(i1, 128)}
  #pragma unroll 1
  for (int64_t i4 = max64(ceilDiv(i1, 128) - 1, 0); i4 < ceilDiv(i1, 128); ++i4) {
    float T2[1];
    mbarrier::waitParity(toSmem(&T4_mbar[i4 % 2]), (i4 / 2) % 2);
    if (((i4 * 128) + ((int64_t)threadIdx.x)) < i2) {
      T2[0] = T5[((int64_t)threadIdx.x) + ((i4 % 2) * 128)];
    }
    if ((((((int64_t)blockIdx.x) * 8) + ((int64_t)threadIdx.y)) < i0) && (((i4 * 128) + ((int64_t)threadIdx.x)) < i1)) {
      T3.data[(((((int64_t)blockIdx.x) * 8) + ((int64_t)threadIdx.y)) * T3_stride0) + (((i4 * 128) + ((int64_t)threadIdx.x)) * T3_stride1)] = T4[(((int64_t)threadIdx.x) + (((int64_t)threadIdx.y) * 128)) + ((i4 % 2) * 1024)] * T2[0];
    }
  }
  __syncthreads();  // every wait on T4_mbar done before inval
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    // post-epilogue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 2; ++s1) {
      mbarrier::inval(toSmem(&T4_mbar[s1]));
    }
  }
}
