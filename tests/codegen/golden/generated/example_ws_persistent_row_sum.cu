extern "C" __global__ void __launch_bounds__(256, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 1> T1, const __grid_constant__ TensorMap tmap_T0) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t T1_stride0 = T1.stride[0];
  extern __shared__ __align__(1024) char smem[];

  int64_t* block_workspace = reinterpret_cast<int64_t*>(smem + 64);
  float* T2 = reinterpret_cast<float*>(smem + 2176);
  int64_t* T2_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    // pre-prologue loop of stages of T2
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 4; ++s0) {
      mbarrier::init(toSmem(&T2_mbar[s0]), 1);
      mbarrier::init(toSmem(&T2_mbar[s0 + 4]), 128);
    }
  }
  __syncthreads();  // init: T2_mbar visible to every thread
  if (((int64_t)threadIdx.y) >= (((int64_t)blockDim.y) - 1)) {
    const int64_t h0 = ceilDiv(i1, 128);
    // AsyncWarp loop of iS6{ceilDiv(i0, 3)}
    #pragma unroll 1
    for (int64_t i2 = 0; i2 < ceilDiv(i0, 3); ++i2) {
      if (((i2 * 3) + ((int64_t)blockIdx.x)) >= i0) {
        continue;
      }
      if (threadIdx.x == 0 && threadIdx.y == 1) {
        const int64_t h1 = i2 * h0;
        // loop of rS4{ceilDiv(i1, 128)}
        for (int64_t i4 = 0; i4 < h0; ++i4) {
          mbarrier::waitParity(toSmem(&T2_mbar[((h1 + i4) % 4) + 4]), ((h1 + i4) / 4) % 2);
          mbarrier::arriveExpectTx(toSmem(&T2_mbar[(h1 + i4) % 4]), 512);
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T2[((h1 + i4) % 4) * 128]), &tmap_T0, toSmem(&T2_mbar[(h1 + i4) % 4]), i4 * 128, (i2 * 3) + ((int64_t)blockIdx.x));
        }
      }
    }
    return;
  } else {
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 4; ++s0) {
      mbarrier::arrive(toSmem(&T2_mbar[s0 + 4]));
    }
    const int64_t h2 = ceilDiv(i1, 128);
    // ComputeWarp loop of iS6{ceilDiv(i0, 3)}
    #pragma unroll 1
    for (int64_t i2 = 0; i2 < ceilDiv(i0, 3); ++i2) {
      if (((i2 * 3) + ((int64_t)blockIdx.x)) >= i0) {
        continue;
      }
      float T1_acc[1];
      if (((i2 * 3) + ((int64_t)blockIdx.x)) < i0) {
        T1_acc[0] = 0.0f;
      }
      const int64_t h3 = i2 * h2;
      // loop of rS4{ceilDiv(i1, 128)}
      for (int64_t i4 = 0; i4 < h2; ++i4) {
        mbarrier::waitParity(toSmem(&T2_mbar[(h3 + i4) % 4]), ((h3 + i4) / 4) % 2);
        if ((((i2 * 3) + ((int64_t)blockIdx.x)) < i0) && (((i4 * 128) + ((int64_t)threadIdx.x)) < i1)) {
          T1_acc[0] = T1_acc[0] + T2[((int64_t)threadIdx.x) + (((h3 + i4) % 4) * 128)];
        }
        mbarrier::arrive(toSmem(&T2_mbar[((h3 + i4) % 4) + 4]));
      }
      T1_acc[0] = blockAllReduce<true, false, false, 128, 2, 1>(T1_acc[0], reinterpret_cast<float*>(block_workspace), ReduceAdd(), 1, 128);
      if ((((i2 * 3) + ((int64_t)blockIdx.x)) < i0) && (((int64_t)threadIdx.x) == 0)) {
        T1.data[((i2 * 3) + ((int64_t)blockIdx.x)) * T1_stride0] = T1_acc[0];
      }
    }
  }
  __syncthreads();  // every wait on T2_mbar done before inval
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    // post-epilogue loop of stages of T2
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 8; ++s0) {
      mbarrier::inval(toSmem(&T2_mbar[s0]));
    }
  }
}
