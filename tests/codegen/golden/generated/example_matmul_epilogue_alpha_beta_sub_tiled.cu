extern "C" __global__ void __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<__bfloat16, 2> T2, Tensor<__bfloat16, 2> T10, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2, const __grid_constant__ TensorMap tmap_T10, float S3, float S4) {
  const int i1 = T0.size[1];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  int64_t* T15_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && tidY == 0) {
    mbarrier::init(toSmem(&T15_mbar[0]), 1);
  }
  __syncthreads();  // init: T15_mbar visible to every thread
  __bfloat16* T11 = reinterpret_cast<__bfloat16*>(smem + 66560);
  __bfloat16* T12 = reinterpret_cast<__bfloat16*>(smem + 99328);
  float T5[128];
  __bfloat16* T15 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T13 = reinterpret_cast<__bfloat16*>(smem + 66560);
  if (threadIdx.x == 0 && tidY == 0) {
    mbarrier::arriveExpectTx(toSmem(&T15_mbar[0]), 65536);
    // loop of iUR173{4}
    #pragma unroll
    for (int i29 = 0; i29 < 4; ++i29) {
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T15[i29 * 8192]), &tmap_T2, toSmem(&T15_mbar[0]), (((int)blockIdx.x) * 256) + (i29 * 64), ((int)blockIdx.y) * 128);
    }
  }
  int64_t* T11_mbar = reinterpret_cast<int64_t*>(smem + 8);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T11, T12
    #pragma unroll 1
    for (int s2 = 0; s2 < 2; ++s2) {
      mbarrier::init(toSmem(&T11_mbar[s2]), 1);
      mbarrier::init(toSmem(&T11_mbar[s2 + 2]), 256);
    }
  }
  __syncthreads();  // init: T11_mbar visible to every thread
  if (((int)tidY) >= (((int)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    if (threadIdx.x == 0 && tidY == 2) {
      // AsyncWarp loop of rS27{ceilDiv(i1, 64)}
      #pragma unroll 1
      for (int i8 = 0; i8 < ceilDiv32(i1, 64); ++i8) {
        mbarrier::waitParity(toSmem(&T11_mbar[(i8 % 2) + 2]), (i8 / 2) % 2);
        mbarrier::arriveExpectTx(toSmem(&T11_mbar[i8 % 2]), 49152);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T11[(i8 % 2) * 8192]), &tmap_T0, toSmem(&T11_mbar[i8 % 2]), i8 * 64, ((int)blockIdx.y) * 128);
        // loop of iUR49{4}
        #pragma unroll
        for (int i12 = 0; i12 < 4; ++i12) {
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T12[(i12 * 4096) + ((i8 % 2) * 16384)]), &tmap_T1, toSmem(&T11_mbar[i8 % 2]), (((int)blockIdx.x) * 256) + (i12 * 64), i8 * 64);
        }
      }
    }
    return;
  } else {
    increaseRegisters<232>();
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int s2 = 0; s2 < 2; ++s2) {
      mbarrier::arrive(toSmem(&T11_mbar[s2 + 2]));
    }
    wgmma::discard(T5);  // written by its first wgmmas (scale-d 0), not zeroed
    if (ceilDiv32(i1, 64) <= 0) {
      // loop of iUR32{1}
      #pragma unroll
      for (int i18 = 0; i18 < 1; ++i18) {
        // loop of fragment
        #pragma unroll
        for (int r5 = 0; r5 < 128; ++r5) {
          T5[r5 + (i18 * 128)] = 0.0f;
        }
      }
    }
    // ComputeWarp loop of rS27{ceilDiv(i1, 64)}
    #pragma unroll 1
    for (int i8 = 0; i8 < ceilDiv32(i1, 64); ++i8) {
      mbarrier::waitParity(toSmem(&T11_mbar[i8 % 2]), (i8 / 2) % 2);
      wgmma::fenceOperands(T5);
      wgmma::fence();
      // loop of rUR33{4}
      #pragma unroll
      for (int i17 = 0; i17 < 4; ++i17) {
        // loop of iUR32{1}
        #pragma unroll
        for (int i18 = 0; i18 < 1; ++i18) {
          wgmma::mmaM64N256K16F32Bf16<0, 1>(&T5[i18 * 128],
              wgmma::smemDescriptor(toSmem(&T11[(((i17 * 16) % 64) + ((((((int)tidY) + i18) * 64) % 128) * 64)) + ((i8 % 2) * 8192)]), 16, 1024, 1),
              wgmma::smemDescriptor(toSmem(&T12[(((i17 * 16) % 64) * 64) + ((i8 % 2) * 16384)]), 8192, 1024, 1), (i8 != 0) || (i17 != 0));
        }
      }
      wgmma::commit();
      wgmma::wait<1>();
      wgmma::fenceOperands(T5);
      if ((i8 - 1) >= 0) {
        mbarrier::arrive(toSmem(&T11_mbar[((i8 - 1) % 2) + 2]));
      }
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T5);
    if ((ceilDiv32(i1, 64) - 1) >= 0) {
      mbarrier::arrive(toSmem(&T11_mbar[((ceilDiv32(i1, 64) - 1) % 2) + 2]));
    }
  }
  __syncthreads();  // every wait on T11_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T11, T12
    #pragma unroll 1
    for (int s2 = 0; s2 < 4; ++s2) {
      mbarrier::inval(toSmem(&T11_mbar[s2]));
    }
  }
  mbarrier::waitParity(toSmem(&T15_mbar[0]), 0);
  __syncthreads();  // WAR: T13 reuses the memory of T11
  // loop of iUR167{4}
  #pragma unroll
  for (int i22 = 0; i22 < 4; ++i22) {
    __bfloat16 T14[32];
    // loop of iUR146{1}
    #pragma unroll
    for (int i24 = 0; i24 < 1; ++i24) {
      // loop of iUR151{8}
      #pragma unroll
      for (int i26 = 0; i26 < 8; ++i26) {
        // loop of iUR149{2}
        #pragma unroll
        for (int i27 = 0; i27 < 2; ++i27) {
          // loop of iUR154{2}
          #pragma unroll
          for (int i28 = 0; i28 < 2; ++i28) {
            // T6 (Local, 1 x float) is allocated but unused
            // T7 (Local, 1 x float) is allocated but unused
            // T8 (Local, 1 x float) is allocated but unused
            // T9 (Local, 1 x float) is allocated but unused
          }
        }
      }
    }
    if (threadIdx.x == 0 && tidY == 0) {
      Hopper::cpAsyncBulkWaitGroupRead<1>();
    }
    __syncthreads();  // WAR: T13 is rewritten here, after its TMA stores' wait
    // loop of stmatrix
    #pragma unroll
    for (int p14_0 = 0; p14_0 < 1; ++p14_0) {
      // loop of stmatrix
      #pragma unroll
      for (int q14 = 0; q14 < 4; ++q14) {
        __bfloat16 T15_frag[8];
        {
          uint32_t ldm[4];
          ldmatrixX4(toSmem(&T15[((((((i22 * 64) + (((q14 * 2) + (((((int)threadIdx.x) % 32) / 8) / 2)) * 8)) % 256) % 64) + (((((((((int)tidY) + p14_0) * 64) + ((((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16)) + ((((((int)threadIdx.x) % 32) / 8) % 2) * 8)) + (((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) % 8)) % 128) * 64)) + (i22 * 8192)) ^ (((((((((i22 * 64) + (((q14 * 2) + (((((int)threadIdx.x) % 32) / 8) / 2)) * 8)) % 256) % 64) + (((((((((int)tidY) + p14_0) * 64) + ((((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16)) + ((((((int)threadIdx.x) % 32) / 8) % 2) * 8)) + (((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) % 8)) % 128) * 64)) + (i22 * 8192)) / 64) % 8) * 8)]), ldm[0], ldm[1], ldm[2], ldm[3]);
          T15_frag[0].raw = static_cast<uint16_t>(ldm[0]);
          T15_frag[1].raw = static_cast<uint16_t>(ldm[0] >> 16);
          T15_frag[2].raw = static_cast<uint16_t>(ldm[1]);
          T15_frag[3].raw = static_cast<uint16_t>(ldm[1] >> 16);
          T15_frag[4].raw = static_cast<uint16_t>(ldm[2]);
          T15_frag[5].raw = static_cast<uint16_t>(ldm[2] >> 16);
          T15_frag[6].raw = static_cast<uint16_t>(ldm[3]);
          T15_frag[7].raw = static_cast<uint16_t>(ldm[3] >> 16);
        }
        T14[(q14 * 8) + (p14_0 * 32)] = __float2bfloat16((T5[(((i22 * 8) + (q14 * 2)) * 4) + (p14_0 * 128)] * S3) + (__bfloat162float(T15_frag[0]) * S4));
        T14[(1 + (q14 * 8)) + (p14_0 * 32)] = __float2bfloat16((T5[((((i22 * 8) + (q14 * 2)) * 4) + 1) + (p14_0 * 128)] * S3) + (__bfloat162float(T15_frag[1]) * S4));
        T14[(2 + (q14 * 8)) + (p14_0 * 32)] = __float2bfloat16((T5[((((i22 * 8) + (q14 * 2)) * 4) + 2) + (p14_0 * 128)] * S3) + (__bfloat162float(T15_frag[2]) * S4));
        T14[(3 + (q14 * 8)) + (p14_0 * 32)] = __float2bfloat16((T5[((((i22 * 8) + (q14 * 2)) * 4) + 3) + (p14_0 * 128)] * S3) + (__bfloat162float(T15_frag[3]) * S4));
        T14[(((q14 * 2) + 1) * 4) + (p14_0 * 32)] = __float2bfloat16((T5[(((i22 * 8) + ((q14 * 2) + 1)) * 4) + (p14_0 * 128)] * S3) + (__bfloat162float(T15_frag[4]) * S4));
        T14[(1 + (((q14 * 2) + 1) * 4)) + (p14_0 * 32)] = __float2bfloat16((T5[((((i22 * 8) + ((q14 * 2) + 1)) * 4) + 1) + (p14_0 * 128)] * S3) + (__bfloat162float(T15_frag[5]) * S4));
        T14[(2 + (((q14 * 2) + 1) * 4)) + (p14_0 * 32)] = __float2bfloat16((T5[((((i22 * 8) + ((q14 * 2) + 1)) * 4) + 2) + (p14_0 * 128)] * S3) + (__bfloat162float(T15_frag[6]) * S4));
        T14[(3 + (((q14 * 2) + 1) * 4)) + (p14_0 * 32)] = __float2bfloat16((T5[((((i22 * 8) + ((q14 * 2) + 1)) * 4) + 3) + (p14_0 * 128)] * S3) + (__bfloat162float(T15_frag[7]) * S4));
        stmatrixX4(toSmem(&T13[((((((i22 * 64) + (((q14 * 2) + (((((int)threadIdx.x) % 32) / 8) / 2)) * 8)) % 256) % 64) + (((((((((int)tidY) + p14_0) * 64) + ((((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16)) + ((((((int)threadIdx.x) % 32) / 8) % 2) * 8)) + (((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) % 8)) % 128) * 64)) + ((i22 % 2) * 8192)) ^ (((((((((i22 * 64) + (((q14 * 2) + (((((int)threadIdx.x) % 32) / 8) / 2)) * 8)) % 256) % 64) + (((((((((int)tidY) + p14_0) * 64) + ((((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16)) + ((((((int)threadIdx.x) % 32) / 8) % 2) * 8)) + (((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) % 8)) % 128) * 64)) + ((i22 % 2) * 8192)) / 64) % 8) * 8)]),
            (static_cast<uint32_t>((T14[(q14 * 8) + (p14_0 * 32)]).raw) | (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 32)) + 1]).raw) << 16)),
            (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 32)) + 2]).raw) | (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 32)) + 3]).raw) << 16)),
            (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 32)) + 4]).raw) | (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 32)) + 5]).raw) << 16)),
            (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 32)) + 6]).raw) | (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 32)) + 7]).raw) << 16)));
      }
    }
    fenceAsyncProxy();
    __syncthreads();  // RAW: T13 written, then read by a TMA store
    if (threadIdx.x == 0 && tidY == 0) {
      Hopper::cpAsyncBulkTensorTileS2G(&tmap_T10, toSmem(&T13[(i22 % 2) * 8192]), (((int)blockIdx.x) * 256) + (i22 * 64), ((int)blockIdx.y) * 128);
      Hopper::cpAsyncBulkCommitGroup();
    }
  }
  if (threadIdx.x == 0 && tidY == 0) {
    Hopper::cpAsyncBulkWaitGroupRead<0>();
  }
  __syncthreads();  // every wait on T15_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    mbarrier::inval(toSmem(&T15_mbar[0]));
  }
}
