extern "C" __global__ void __launch_bounds__(384, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 2> T1, Tensor<float, 2> T3, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t T3_stride0 = T3.stride[0];
  const int64_t T3_stride1 = T3.stride[1];
  extern __shared__ __align__(1024) char smem[];

  float* T4 = reinterpret_cast<float*>(smem + 128);
  float* T5 = reinterpret_cast<float*>(smem + 16512);
  int64_t* T4_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    // pre-prologue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 4; ++s1) {
      mbarrier::init(toSmem(&T4_mbar[s1]), 1);
      mbarrier::init(toSmem(&T4_mbar[s1 + 4]), 256);
    }
  }
  __syncthreads();  // init: T4_mbar visible to every thread
  if (((int64_t)threadIdx.y) >= (((int64_t)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    if (threadIdx.x == 0 && threadIdx.y == 2) {
      // AsyncWarp loop of iS8{ceilDiv(i1, 128)}
      #pragma unroll 1
      for (int64_t i5 = 0; i5 < ceilDiv(i1, 128); ++i5) {
        mbarrier::waitParity(toSmem(&T4_mbar[(i5 % 4) + 4]), (i5 / 4) % 2);
        mbarrier::arriveExpectTx(toSmem(&T4_mbar[i5 % 4]), 8192);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T4[(i5 % 4) * 1024]), &tmap_T0, toSmem(&T4_mbar[i5 % 4]), i5 * 128, ((int64_t)blockIdx.x) * 8);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[(i5 % 4) * 1024]), &tmap_T1, toSmem(&T4_mbar[i5 % 4]), i5 * 128, ((int64_t)blockIdx.x) * 8);
      }
    }
    return;
  } else {
    increaseRegisters<232>();
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 4; ++s1) {
      mbarrier::arrive(toSmem(&T4_mbar[s1 + 4]));
    }
    // ComputeWarp loop of iS8{ceilDiv(i1, 128)}
    #pragma unroll 1
    for (int64_t i5 = 0; i5 < ceilDiv(i1, 128); ++i5) {
      mbarrier::waitParity(toSmem(&T4_mbar[i5 % 4]), (i5 / 4) % 2);
      const int64_t h0 = (i5 % 4) * 1024;
      // loop of iS13{4}
      for (int64_t i11 = 0; i11 < 4; ++i11) {
        float T2[1];
        if ((((((int64_t)blockIdx.x) * 8) + ((((int64_t)threadIdx.y) * 4) + i11)) < i0) && (((i5 * 128) + ((int64_t)threadIdx.x)) < i1)) {
          T2[0] = T4[(((int64_t)threadIdx.x) + ((((((int64_t)threadIdx.y) * 4) + i11) % 8) * 128)) + h0] + T5[(((int64_t)threadIdx.x) + ((((((int64_t)threadIdx.y) * 4) + i11) % 8) * 128)) + h0];
        }
        if ((((((int64_t)blockIdx.x) * 8) + ((((int64_t)threadIdx.y) * 4) + i11)) < i0) && (((i5 * 128) + ((int64_t)threadIdx.x)) < i1)) {
          T3.data[(((((int64_t)blockIdx.x) * 8) + ((((int64_t)threadIdx.y) * 4) + i11)) * T3_stride0) + (((i5 * 128) + ((int64_t)threadIdx.x)) * T3_stride1)] = expf(T2[0]);
        }
      }
      mbarrier::arrive(toSmem(&T4_mbar[(i5 % 4) + 4]));
    }
  }
  __syncthreads();  // every wait on T4_mbar done before inval
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    // post-epilogue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 8; ++s1) {
      mbarrier::inval(toSmem(&T4_mbar[s1]));
    }
  }
}
