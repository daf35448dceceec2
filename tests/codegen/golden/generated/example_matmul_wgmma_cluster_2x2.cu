extern "C" __global__ void __cluster_dims__(2, 2, 1) __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<__bfloat16, 2> T3, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T3) {
  const int64_t i1 = T0.size[1];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T4 = reinterpret_cast<__bfloat16*>(smem);
  __bfloat16* T5 = reinterpret_cast<__bfloat16*>(smem + 65536);
  float T2[64];
  __bfloat16 T7[64];
  __bfloat16* T6 = reinterpret_cast<__bfloat16*>(smem);
  int64_t* T4_mbar = reinterpret_cast<int64_t*>(smem + 131072);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 4; ++s2) {
      mbarrier::init(toSmem(&T4_mbar[s2]), 1);
      mbarrier::init(toSmem(&T4_mbar[s2 + 4]), 272);
    }
  }
  cluster::fenceMBarrierInit();
  cluster::sync();  // init: the cluster's barriers visible to every block before any multicast
  if (((int64_t)tidY) >= (((int64_t)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    if (threadIdx.x == 0 && tidY == 2) {
      // AsyncWarp loop of rS17{ceilDiv(i1, 64)}
      #pragma unroll 1
      for (int64_t i6 = 0; i6 < ceilDiv(i1, 64); ++i6) {
        mbarrier::waitParity(toSmem(&T4_mbar[(i6 % 4) + 4]), (i6 / 4) % 2);
        mbarrier::arriveExpectTx(toSmem(&T4_mbar[i6 % 4]), 32768);
        Hopper::cpAsyncBulkTensorTileG2SMulticast(toSmem(&T4[((i6 % 4) * 8192) + ((((int64_t)blockIdx.x) % 2) * 4096)]), &tmap_T0, toSmem(&T4_mbar[i6 % 4]), (uint16_t)(3 << ((((int64_t)blockIdx.y) % 2) * 2)), i6 * 64, (((int64_t)blockIdx.y) * 128) + ((((int64_t)blockIdx.x) % 2) * 64));
        // loop of iUR39{2}
        #pragma unroll
        for (int64_t i10 = 0; i10 < 2; ++i10) {
          Hopper::cpAsyncBulkTensorTileG2SMulticast(toSmem(&T5[((i10 * 4096) + ((i6 % 4) * 8192)) + ((((int64_t)blockIdx.y) % 2) * 2048)]), &tmap_T1, toSmem(&T4_mbar[i6 % 4]), (uint16_t)(5 << (((int64_t)blockIdx.x) % 2)), (((int64_t)blockIdx.x) * 128) + (i10 * 64), (i6 * 64) + ((((int64_t)blockIdx.y) % 2) * 32));
        }
      }
    }
    return;
  } else {
    increaseRegisters<232>();
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 4; ++s2) {
      mbarrier::arrive(toSmem(&T4_mbar[s2 + 4]));
      if ((((int64_t)threadIdx.x) % 32) == 0) {
        cluster::arriveRemote(toSmem(&T4_mbar[s2 + 4]), (((((int64_t)blockIdx.x) % 2) + 1) % 2) + ((((int64_t)blockIdx.y) % 2) * 2));
        cluster::arriveRemote(toSmem(&T4_mbar[s2 + 4]), (((int64_t)blockIdx.x) % 2) + ((((((int64_t)blockIdx.y) % 2) + 1) % 2) * 2));
      }
    }
    wgmma::discard(T2);  // written by its first wgmmas (scale-d 0), not zeroed
    if (ceilDiv(i1, 64) <= 0) {
      // loop of iUR22{1}
      #pragma unroll
      for (int64_t i16 = 0; i16 < 1; ++i16) {
        // loop of fragment
        #pragma unroll
        for (int64_t r2 = 0; r2 < 64; ++r2) {
          T2[r2 + (i16 * 64)] = 0.0f;
        }
      }
    }
    // ComputeWarp loop of rS17{ceilDiv(i1, 64)}
    #pragma unroll 1
    for (int64_t i6 = 0; i6 < ceilDiv(i1, 64); ++i6) {
      mbarrier::waitParity(toSmem(&T4_mbar[i6 % 4]), (i6 / 4) % 2);
      wgmma::fenceOperands(T2);
      wgmma::fence();
      // loop of rUR23{4}
      #pragma unroll
      for (int64_t i15 = 0; i15 < 4; ++i15) {
        // loop of iUR22{1}
        #pragma unroll
        for (int64_t i16 = 0; i16 < 1; ++i16) {
          wgmma::mmaM64N128K16F32Bf16<0, 1>(&T2[i16 * 64],
              wgmma::smemDescriptor(toSmem(&T4[(((i15 * 16) % 64) + ((((((int64_t)tidY) + i16) * 64) % 128) * 64)) + ((i6 % 4) * 8192)]), 16, 1024, 1),
              wgmma::smemDescriptor(toSmem(&T5[(((i15 * 16) % 64) * 64) + ((i6 % 4) * 8192)]), 8192, 1024, 1), (i6 != 0) || (i15 != 0));
        }
      }
      wgmma::commit();
      wgmma::wait<1>();
      wgmma::fenceOperands(T2);
      if ((i6 - 1) >= 0) {
        mbarrier::arrive(toSmem(&T4_mbar[((i6 - 1) % 4) + 4]));
        if ((((int64_t)threadIdx.x) % 32) == 0) {
          cluster::arriveRemote(toSmem(&T4_mbar[((i6 - 1) % 4) + 4]), (((((int64_t)blockIdx.x) % 2) + 1) % 2) + ((((int64_t)blockIdx.y) % 2) * 2));
          cluster::arriveRemote(toSmem(&T4_mbar[((i6 - 1) % 4) + 4]), (((int64_t)blockIdx.x) % 2) + ((((((int64_t)blockIdx.y) % 2) + 1) % 2) * 2));
        }
      }
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T2);
    if ((ceilDiv(i1, 64) - 1) >= 0) {
      mbarrier::arrive(toSmem(&T4_mbar[((ceilDiv(i1, 64) - 1) % 4) + 4]));
      if ((((int64_t)threadIdx.x) % 32) == 0) {
        cluster::arriveRemote(toSmem(&T4_mbar[((ceilDiv(i1, 64) - 1) % 4) + 4]), (((((int64_t)blockIdx.x) % 2) + 1) % 2) + ((((int64_t)blockIdx.y) % 2) * 2));
        cluster::arriveRemote(toSmem(&T4_mbar[((ceilDiv(i1, 64) - 1) % 4) + 4]), (((int64_t)blockIdx.x) % 2) + ((((((int64_t)blockIdx.y) % 2) + 1) % 2) * 2));
      }
    }
  }
  cluster::sync();  // no block leaves while a peer may still arrive on its barriers
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 8; ++s2) {
      mbarrier::inval(toSmem(&T4_mbar[s2]));
    }
  }
  __syncthreads();  // WAR: T6 reuses the memory of T4
  // loop of stmatrix
  #pragma unroll
  for (int64_t p7_0 = 0; p7_0 < 1; ++p7_0) {
    // loop of stmatrix
    #pragma unroll
    for (int64_t q7 = 0; q7 < 8; ++q7) {
      T7[(q7 * 8) + (p7_0 * 64)] = __float2bfloat16(T2[(q7 * 8) + (p7_0 * 64)]);
      T7[(1 + (q7 * 8)) + (p7_0 * 64)] = __float2bfloat16(T2[((q7 * 8) + 1) + (p7_0 * 64)]);
      T7[(2 + (q7 * 8)) + (p7_0 * 64)] = __float2bfloat16(T2[((q7 * 8) + 2) + (p7_0 * 64)]);
      T7[(3 + (q7 * 8)) + (p7_0 * 64)] = __float2bfloat16(T2[((q7 * 8) + 3) + (p7_0 * 64)]);
      T7[(((q7 * 2) + 1) * 4) + (p7_0 * 64)] = __float2bfloat16(T2[(((q7 * 2) + 1) * 4) + (p7_0 * 64)]);
      T7[(1 + (((q7 * 2) + 1) * 4)) + (p7_0 * 64)] = __float2bfloat16(T2[((((q7 * 2) + 1) * 4) + 1) + (p7_0 * 64)]);
      T7[(2 + (((q7 * 2) + 1) * 4)) + (p7_0 * 64)] = __float2bfloat16(T2[((((q7 * 2) + 1) * 4) + 2) + (p7_0 * 64)]);
      T7[(3 + (((q7 * 2) + 1) * 4)) + (p7_0 * 64)] = __float2bfloat16(T2[((((q7 * 2) + 1) * 4) + 3) + (p7_0 * 64)]);
      stmatrixX4(toSmem(&T6[(((((((q7 * 2) + (((((int64_t)threadIdx.x) % 32) / 8) / 2)) * 8) % 128) % 64) + (((((((((int64_t)tidY) + p7_0) * 64) + ((((((((int64_t)threadIdx.x) / 32) * 32) + (((((int64_t)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16)) + ((((((int64_t)threadIdx.x) % 32) / 8) % 2) * 8)) + (((((((int64_t)threadIdx.x) / 32) * 32) + (((((int64_t)threadIdx.x) % 32) % 8) * 4)) / 4) % 8)) % 128) * 64)) + ((((((q7 * 2) + (((((int64_t)threadIdx.x) % 32) / 8) / 2)) * 8) % 128) / 64) * 8192)) ^ ((((((((((q7 * 2) + (((((int64_t)threadIdx.x) % 32) / 8) / 2)) * 8) % 128) % 64) + (((((((((int64_t)tidY) + p7_0) * 64) + ((((((((int64_t)threadIdx.x) / 32) * 32) + (((((int64_t)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16)) + ((((((int64_t)threadIdx.x) % 32) / 8) % 2) * 8)) + (((((((int64_t)threadIdx.x) / 32) * 32) + (((((int64_t)threadIdx.x) % 32) % 8) * 4)) / 4) % 8)) % 128) * 64)) + ((((((q7 * 2) + (((((int64_t)threadIdx.x) % 32) / 8) / 2)) * 8) % 128) / 64) * 8192)) / 64) % 8) * 8)]),
          (static_cast<uint32_t>((T7[(q7 * 8) + (p7_0 * 64)]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 1]).raw) << 16)),
          (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 2]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 3]).raw) << 16)),
          (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 4]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 5]).raw) << 16)),
          (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 6]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 7]).raw) << 16)));
    }
  }
  fenceAsyncProxy();
  __syncthreads();  // RAW: T6 written, then read by a TMA store
  if (threadIdx.x == 0 && tidY == 0) {
    // loop of iUR73{2}
    #pragma unroll
    for (int64_t i29 = 0; i29 < 2; ++i29) {
      Hopper::cpAsyncBulkTensorTileS2G(&tmap_T3, toSmem(&T6[i29 * 8192]), (((int64_t)blockIdx.x) * 128) + (i29 * 64), ((int64_t)blockIdx.y) * 128);
      Hopper::cpAsyncBulkCommitGroup();
    }
  }
  if (threadIdx.x == 0 && tidY == 0) {
    Hopper::cpAsyncBulkWaitGroupRead<0>();
  }
}
