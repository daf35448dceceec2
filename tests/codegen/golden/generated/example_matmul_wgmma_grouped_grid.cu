extern "C" __global__ void __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<float, 2> T2, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1) {
  const int64_t T2_stride0 = T2.stride[0];
  const int64_t T2_stride1 = T2.stride[1];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T4 = reinterpret_cast<__bfloat16*>(smem);
  __bfloat16* T5 = reinterpret_cast<__bfloat16*>(smem + 65536);
  float T3[128];
  int64_t* T4_mbar = reinterpret_cast<int64_t*>(smem + 196608);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 4; ++s1) {
      mbarrier::init(toSmem(&T4_mbar[s1]), 1);
      mbarrier::init(toSmem(&T4_mbar[s1 + 4]), 256);
    }
  }
  __syncthreads();  // init: T4_mbar visible to every thread
  if (((int64_t)tidY) >= (((int64_t)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    if (threadIdx.x == 0 && tidY == 2) {
      const int64_t h0 = (((((int64_t)blockIdx.x) / 12) * 3) + ((((int64_t)blockIdx.x) % 12) % min64(3, 6 - ((((int64_t)blockIdx.x) / 12) * 3)))) * 128;
      const int64_t h1 = ((((int64_t)blockIdx.x) % 12) / min64(3, 6 - ((((int64_t)blockIdx.x) / 12) * 3))) * 256;
      // AsyncWarp loop of rS17{8}
      #pragma unroll 1
      for (int64_t i1 = 0; i1 < 8; ++i1) {
        mbarrier::waitParity(toSmem(&T4_mbar[(i1 % 4) + 4]), (i1 / 4) % 2);
        mbarrier::arriveExpectTx(toSmem(&T4_mbar[i1 % 4]), 49152);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T4[(i1 % 4) * 8192]), &tmap_T0, toSmem(&T4_mbar[i1 % 4]), i1 * 64, h0);
        // loop of iUR42{4}
        #pragma unroll
        for (int64_t i5 = 0; i5 < 4; ++i5) {
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[(i5 * 4096) + ((i1 % 4) * 16384)]), &tmap_T1, toSmem(&T4_mbar[i1 % 4]), h1 + (i5 * 64), i1 * 64);
        }
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
    wgmma::discard(T3);  // written by its first wgmmas (scale-d 0), not zeroed
    // ComputeWarp loop of rS17{8}
    #pragma unroll 1
    for (int64_t i1 = 0; i1 < 8; ++i1) {
      mbarrier::waitParity(toSmem(&T4_mbar[i1 % 4]), (i1 / 4) % 2);
      wgmma::fenceOperands(T3);
      wgmma::fence();
      // loop of rUR24{4}
      #pragma unroll
      for (int64_t i10 = 0; i10 < 4; ++i10) {
        // loop of iUR23{1}
        #pragma unroll
        for (int64_t i11 = 0; i11 < 1; ++i11) {
          wgmma::mmaM64N256K16F32Bf16<0, 1>(&T3[i11 * 128],
              wgmma::smemDescriptor(toSmem(&T4[(((i10 * 16) % 64) + ((((((int64_t)tidY) + i11) * 64) % 128) * 64)) + ((i1 % 4) * 8192)]), 16, 1024, 1),
              wgmma::smemDescriptor(toSmem(&T5[(((i10 * 16) % 64) * 64) + ((i1 % 4) * 16384)]), 8192, 1024, 1), (i1 != 0) || (i10 != 0));
        }
      }
      wgmma::commit();
      wgmma::wait<1>();
      wgmma::fenceOperands(T3);
      if ((i1 - 1) >= 0) {
        mbarrier::arrive(toSmem(&T4_mbar[((i1 - 1) % 4) + 4]));
      }
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T3);
    if (true) {
      mbarrier::arrive(toSmem(&T4_mbar[7]));
    }
  }
  __syncthreads();  // every wait on T4_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 8; ++s1) {
      mbarrier::inval(toSmem(&T4_mbar[s1]));
    }
  }
  const int64_t h2 = (((((int64_t)blockIdx.x) / 12) * 3) + ((((int64_t)blockIdx.x) % 12) % min64(3, 6 - ((((int64_t)blockIdx.x) / 12) * 3)))) * 128;
  const int64_t h3 = ((((int64_t)blockIdx.x) % 12) / min64(3, 6 - ((((int64_t)blockIdx.x) / 12) * 3))) * 256;
  // loop of iUR52{1}
  #pragma unroll
  for (int64_t i16 = 0; i16 < 1; ++i16) {
    // loop of iUR57{32}
    #pragma unroll
    for (int64_t i18 = 0; i18 < 32; ++i18) {
      // loop of iUR55{2}
      #pragma unroll
      for (int64_t i19 = 0; i19 < 2; ++i19) {
        *reinterpret_cast<float2*>(&T2.data[((h2 + (((((int64_t)tidY) + i16) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i19 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) * T2_stride0) + ((h3 + ((i18 * 8) + ((((int64_t)threadIdx.x) % 4) * 2))) * T2_stride1)]) = float2{T3[((i18 * 4) + (i19 * 2)) + (i16 * 128)], T3[(((i18 * 4) + (i19 * 2)) + (i16 * 128)) + 1]};
      }
    }
  }
}
