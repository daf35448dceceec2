extern "C" __global__ void __launch_bounds__(256, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<float, 2> T2, const __grid_constant__ TensorMap tmap_T1) {
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T2_stride0 = T2.stride[0];
  const int64_t T2_stride1 = T2.stride[1];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T4 = reinterpret_cast<__bfloat16*>(smem);
  __bfloat16* T5 = reinterpret_cast<__bfloat16*>(smem + 49152);
  float T3[64];
  int64_t* T5_mbar = reinterpret_cast<int64_t*>(smem + 98304);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 3; ++s2) {
      mbarrier::init(toSmem(&T5_mbar[s2]), 1);
    }
  }
  __syncthreads();  // init: T5_mbar visible to every thread
  // prologue loop of rS17{2}
  #pragma unroll
  for (int64_t i2 = 0; i2 < 1; ++i2) {
    if (threadIdx.x == 0 && tidY == 0) {
      mbarrier::arriveExpectTx(toSmem(&T5_mbar[i2 % 3]), 16384);
      // loop of iUR46{2}
      #pragma unroll
      for (int64_t i8 = 0; i8 < 2; ++i8) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[(i8 * 4096) + ((i2 % 3) * 8192)]), &tmap_T1, toSmem(&T5_mbar[i2 % 3]), (((int64_t)blockIdx.x) * 128) + (i8 * 64), i2 * 64);
      }
    }
    const int64_t h0 = (((int64_t)threadIdx.x) % 16) * 4;
    const int64_t h1 = ((((int64_t)threadIdx.x) % 16) * 4) + 3;
    // loop of iS37{8}
    for (int64_t i4 = 0; i4 < 8; ++i4) {
      cpAsync<8>(toSmem(&T4[((h0 + ((((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 16) * 64)) + ((i2 % 3) * 8192)) ^ (((((h0 + ((((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 16) * 64)) + ((i2 % 3) * 8192)) / 64) % 8) * 8)]), &T0.data[((((((int64_t)blockIdx.y) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 16)) < 200) && (((i2 * 64) + h1) < 100)) ? ((((((int64_t)blockIdx.y) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 16)) * T0_stride0) + (((i2 * 64) + h0) * T0_stride1)) : 0], (((((int64_t)blockIdx.y) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 16)) < 200) && (((i2 * 64) + h1) < 100));
    }
    cpAsyncCommitGroup();
  }
  wgmma::discard(T3);  // written by its first wgmmas (scale-d 0), not zeroed
  const int64_t h2 = (((int64_t)threadIdx.x) % 16) * 4;
  const int64_t h6 = ((((int64_t)threadIdx.x) % 16) * 4) + 3;
  // main loop of rS17{2}
  #pragma unroll 1
  for (int64_t i2 = 0; i2 < 1; ++i2) {
    mbarrier::waitParity(toSmem(&T5_mbar[i2 % 3]), (i2 / 3) % 2);
    cpAsyncWaitGroup<0>();
    fenceAsyncProxy();
    __syncthreads();  // RAW: stage i2 % 3 of T4 loaded by other threads
    wgmma::fenceOperands(T3);
    wgmma::fence();
    // loop of rUR23{4}
    #pragma unroll
    for (int64_t i13 = 0; i13 < 4; ++i13) {
      // loop of iUR22{1}
      #pragma unroll
      for (int64_t i14 = 0; i14 < 1; ++i14) {
        wgmma::mmaM64N128K16F32Bf16<0, 1>(&T3[i14 * 64],
            wgmma::smemDescriptor(toSmem(&T4[(((i13 * 16) % 64) + ((((((int64_t)tidY) + i14) * 64) % 128) * 64)) + ((i2 % 3) * 8192)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T5[(((i13 * 16) % 64) * 64) + ((i2 % 3) * 8192)]), 8192, 1024, 1), (i2 != 0) || (i13 != 0));
      }
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T3);
    if (threadIdx.x == 0 && tidY == 0) {
      mbarrier::arriveExpectTx(toSmem(&T5_mbar[(i2 + 1) % 3]), 16384);
      // loop of iUR46{2}
      #pragma unroll
      for (int64_t i8 = 0; i8 < 2; ++i8) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[(i8 * 4096) + (((i2 + 1) % 3) * 8192)]), &tmap_T1, toSmem(&T5_mbar[(i2 + 1) % 3]), (((int64_t)blockIdx.x) * 128) + (i8 * 64), (i2 + 1) * 64);
      }
    }
    const int64_t h3 = ((i2 + 1) % 3) * 8192;
    const int64_t h4 = (((i2 + 1) * 64) + h2) * T0_stride1;
    const int64_t h5 = ((i2 + 1) * 64) + h6;
    // loop of iS37{8}
    for (int64_t i4 = 0; i4 < 8; ++i4) {
      cpAsync<8>(toSmem(&T4[((h2 + ((((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 16) * 64)) + h3) ^ (((((h2 + ((((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 16) * 64)) + h3) / 64) % 8) * 8)]), &T0.data[((((((int64_t)blockIdx.y) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 16)) < 200) && (h5 < 100)) ? ((((((int64_t)blockIdx.y) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 16)) * T0_stride0) + h4) : 0], (((((int64_t)blockIdx.y) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 16)) < 200) && (h5 < 100));
    }
    cpAsyncCommitGroup();
  }
  wgmma::wait<0>();
  wgmma::fenceOperands(T3);
  // epilogue loop of rS17{2}
  #pragma unroll 1
  for (int64_t i2 = 1; i2 < 2; ++i2) {
    mbarrier::waitParity(toSmem(&T5_mbar[i2 % 3]), (i2 / 3) % 2);
    cpAsyncWaitGroup<0>();
    fenceAsyncProxy();
    __syncthreads();  // RAW: stage i2 % 3 of T4 loaded by other threads
    wgmma::fenceOperands(T3);
    wgmma::fence();
    // loop of rUR23{4}
    #pragma unroll
    for (int64_t i13 = 0; i13 < 4; ++i13) {
      // loop of iUR22{1}
      #pragma unroll
      for (int64_t i14 = 0; i14 < 1; ++i14) {
        wgmma::mmaM64N128K16F32Bf16<0, 1>(&T3[i14 * 64],
            wgmma::smemDescriptor(toSmem(&T4[(((i13 * 16) % 64) + ((((((int64_t)tidY) + i14) * 64) % 128) * 64)) + ((i2 % 3) * 8192)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T5[(((i13 * 16) % 64) * 64) + ((i2 % 3) * 8192)]), 8192, 1024, 1));
      }
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T3);
  }
  wgmma::wait<0>();
  wgmma::fenceOperands(T3);
  __syncthreads();  // every wait on T5_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 3; ++s2) {
      mbarrier::inval(toSmem(&T5_mbar[s2]));
    }
  }
  // loop of iUR55{1}
  #pragma unroll
  for (int64_t i19 = 0; i19 < 1; ++i19) {
    // loop of iUR60{16}
    #pragma unroll
    for (int64_t i21 = 0; i21 < 16; ++i21) {
      // loop of iUR58{2}
      #pragma unroll
      for (int64_t i22 = 0; i22 < 2; ++i22) {
        if ((((((int64_t)blockIdx.y) * 128) + (((((int64_t)tidY) + i19) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i22 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) < 200) && (((((int64_t)blockIdx.x) * 128) + ((i21 * 8) + (((((int64_t)threadIdx.x) % 4) * 2) + 1))) < 264)) {
          *reinterpret_cast<float2*>(&T2.data[(((((int64_t)blockIdx.y) * 128) + (((((int64_t)tidY) + i19) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i22 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) * T2_stride0) + (((((int64_t)blockIdx.x) * 128) + ((i21 * 8) + ((((int64_t)threadIdx.x) % 4) * 2))) * T2_stride1)]) = float2{T3[((i21 * 4) + (i22 * 2)) + (i19 * 64)], T3[(((i21 * 4) + (i22 * 2)) + (i19 * 64)) + 1]};
        }
      }
    }
  }
}
