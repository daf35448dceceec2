extern "C" __global__ void __launch_bounds__(256, 1) fusion_kernel(Tensor<float, 1> T0, Tensor<float, 1> T1, const __grid_constant__ TensorMap tmap_T0) {
  const int64_t i0 = T0.size[0];
  const int64_t T1_stride0 = T1.stride[0];
  extern __shared__ __align__(1024) char smem[];

  float* T2 = reinterpret_cast<float*>(smem + 128);
  int64_t* T2_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    // pre-prologue loop of stages of T2
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 3; ++s0) {
      mbarrier::init(toSmem(&T2_mbar[s0]), 1);
      mbarrier::init(toSmem(&T2_mbar[s0 + 3]), 128);
    }
  }
  __syncthreads();  // init: T2_mbar visible to every thread
  if (((int64_t)threadIdx.y) >= (((int64_t)blockDim.y) - 1)) {
    if (threadIdx.x == 0 && threadIdx.y == 1) {
      // AsyncWarp loop of iS2{ceilDiv(i0, 128)}
      #pragma unroll 1
      for (int64_t i1 = 0; i1 < ceilDiv(i0, 128); ++i1) {
        mbarrier::waitParity(toSmem(&T2_mbar[(i1 % 3) + 3]), (i1 / 3) % 2);
        mbarrier::arriveExpectTx(toSmem(&T2_mbar[i1 % 3]), 512);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T2[(i1 % 3) * 128]), &tmap_T0, toSmem(&T2_mbar[i1 % 3]), i1 * 128);
      }
    }
    return;
  } else {
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 3; ++s0) {
      mbarrier::arrive(toSmem(&T2_mbar[s0 + 3]));
    }
    // ComputeWarp loop of iS2{ceilDiv(i0, 128)}
    #pragma unroll 1
    for (int64_t i1 = 0; i1 < ceilDiv(i0, 128); ++i1) {
      mbarrier::waitParity(toSmem(&T2_mbar[i1 % 3]), (i1 / 3) % 2);
      if (((i1 * 128) + ((int64_t)threadIdx.x)) < i0) {
        T1.data[((i1 * 128) + ((int64_t)threadIdx.x)) * T1_stride0] = T2[((int64_t)threadIdx.x) + ((i1 % 3) * 128)];
      }
      mbarrier::arrive(toSmem(&T2_mbar[(i1 % 3) + 3]));
    }
  }
  __syncthreads();  // every wait on T2_mbar done before inval
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    // post-epilogue loop of stages of T2
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 6; ++s0) {
      mbarrier::inval(toSmem(&T2_mbar[s0]));
    }
  }
}
