extern "C" __global__ void __cluster_dims__(1, 2, 1) __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<__bfloat16, 2> T3, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T3) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t i3 = T1.size[1];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T4 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T5 = reinterpret_cast<__bfloat16*>(smem + 80896);
  __bfloat16* T6 = reinterpret_cast<__bfloat16*>(smem + 130048);
  int64_t* T4_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 3; ++s0) {
      mbarrier::init(toSmem(&T4_mbar[s0]), 1);
      mbarrier::init(toSmem(&T4_mbar[s0 + 3]), 264);
    }
  }
  cluster::fenceMBarrierInit();
  cluster::sync();  // init: the cluster's barriers visible to every block before any multicast
  if (((int64_t)tidY) >= (((int64_t)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    const int64_t h0 = ceilDiv(i0, 208) * ceilDiv(ceilDiv(i3, 128), 2);
    const int64_t h1 = ceilDiv(i1, 64);
    const int64_t h5 = ceilDiv(ceilDiv(i3, 128), 2) * 8;
    const int64_t h6 = ceilDiv(i0, 208);
    // AsyncWarp loop of iS105{ceilDiv(ceilDiv(i0, 208) * ceilDiv(ceilDiv(i3, 128), 2), 2)}
    #pragma unroll 1
    for (int64_t i4 = 0; i4 < ceilDiv(ceilDiv(i0, 208) * ceilDiv(ceilDiv(i3, 128), 2), 2); ++i4) {
      if (((i4 * 2) + ((int64_t)blockIdx.x)) >= h0) {
        continue;
      }
      if (threadIdx.x == 0 && tidY == 2) {
        const int64_t h2 = i4 * h1;
        const int64_t h3 = (((((i4 * 2) + ((int64_t)blockIdx.x)) / h5) * 8) + ((((i4 * 2) + ((int64_t)blockIdx.x)) % h5) % min64(8, h6 - ((((i4 * 2) + ((int64_t)blockIdx.x)) / h5) * 8)))) * 208;
        const int64_t h4 = ((((((i4 * 2) + ((int64_t)blockIdx.x)) % h5) / min64(8, h6 - ((((i4 * 2) + ((int64_t)blockIdx.x)) / h5) * 8))) * 2) + ((int64_t)blockIdx.y)) * 128;
        // loop of rS17{ceilDiv(i1, 64)}
        for (int64_t i7 = 0; i7 < h1; ++i7) {
          mbarrier::waitParity(toSmem(&T4_mbar[((h2 + i7) % 3) + 3]), ((h2 + i7) / 3) % 2);
          mbarrier::arriveExpectTx(toSmem(&T4_mbar[(h2 + i7) % 3]), 43008);
          Hopper::cpAsyncBulkTensorTileG2SMulticast(toSmem(&T4[(((h2 + i7) % 3) * 13312) + ((((int64_t)blockIdx.y) % 2) * 6656)]), &tmap_T0, toSmem(&T4_mbar[(h2 + i7) % 3]), 0x3, i7 * 64, h3 + ((((int64_t)blockIdx.y) % 2) * 104));
          // loop of iUR54{2}
          #pragma unroll
          for (int64_t i11 = 0; i11 < 2; ++i11) {
            Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[(i11 * 4096) + (((h2 + i7) % 3) * 8192)]), &tmap_T1, toSmem(&T4_mbar[(h2 + i7) % 3]), h4 + (i11 * 64), i7 * 64);
          }
        }
      }
    }
    return;
  } else {
    increaseRegisters<232>();
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 3; ++s0) {
      mbarrier::arrive(toSmem(&T4_mbar[s0 + 3]));
      if ((((int64_t)threadIdx.x) % 32) == 0) {
        cluster::arriveRemote(toSmem(&T4_mbar[s0 + 3]), ((((int64_t)blockIdx.y) % 2) + 1) % 2);
      }
    }
    const int64_t h7 = ceilDiv(i0, 208) * ceilDiv(ceilDiv(i3, 128), 2);
    const int64_t h8 = ceilDiv(i1, 64);
    const int64_t h10 = ceilDiv(i1, 64) - 1;
    const int64_t h11 = (((((((int64_t)threadIdx.x) / 32) * 32) + (((((int64_t)threadIdx.x) % 32) % 8) / 2)) / 4) / 8) * 16;
    const int64_t h12 = (((((int64_t)threadIdx.x) % 32) / 8) % 2) * 8;
    const int64_t h13 = ((((((int64_t)threadIdx.x) / 32) * 32) + (((((int64_t)threadIdx.x) % 32) % 8) / 2)) / 4) % 8;
    const int64_t h14 = ((((int64_t)threadIdx.x) % 32) / 8) / 2;
    const int64_t h15 = ((((((int64_t)threadIdx.x) % 32) % 8) / 2) % 4) * 2;
    const int64_t h16 = ((((int64_t)threadIdx.x) % 32) % 8) % 2;
    const int64_t h19 = ceilDiv(ceilDiv(i3, 128), 2) * 8;
    const int64_t h20 = ceilDiv(i0, 208);
    // ComputeWarp loop of iS105{ceilDiv(ceilDiv(i0, 208) * ceilDiv(ceilDiv(i3, 128), 2), 2)}
    #pragma unroll 1
    for (int64_t i4 = 0; i4 < ceilDiv(ceilDiv(i0, 208) * ceilDiv(ceilDiv(i3, 128), 2), 2); ++i4) {
      if (((i4 * 2) + ((int64_t)blockIdx.x)) >= h7) {
        continue;
      }
      float T2[104];
      wgmma::discard(T2);  // written by its first wgmmas (scale-d 0), not zeroed
      if (h8 <= 0) {
        // loop of iUR27{1}
        #pragma unroll
        for (int64_t i17 = 0; i17 < 1; ++i17) {
          // loop of fragment
          #pragma unroll
          for (int64_t r2 = 0; r2 < 104; ++r2) {
            T2[r2 + (i17 * 104)] = 0.0f;
          }
        }
      }
      const int64_t h9 = i4 * h8;
      // loop of rS17{ceilDiv(i1, 64)}
      for (int64_t i7 = 0; i7 < h8; ++i7) {
        mbarrier::waitParity(toSmem(&T4_mbar[(h9 + i7) % 3]), ((h9 + i7) / 3) % 2);
        wgmma::fenceOperands(T2);
        wgmma::fence();
        // loop of rUR28{4}
        #pragma unroll
        for (int64_t i16 = 0; i16 < 4; ++i16) {
          // loop of iUR27{1}
          #pragma unroll
          for (int64_t i17 = 0; i17 < 1; ++i17) {
            wgmma::mmaM64N208K16F32Bf16<1, 0>(&T2[i17 * 104],
                wgmma::smemDescriptor(toSmem(&T5[((((i16 * 16) % 64) * 64) + (((((((int64_t)tidY) + i17) * 64) % 128) / 64) * 4096)) + (((h9 + i7) % 3) * 8192)]), 8192, 1024, 1),
                wgmma::smemDescriptor(toSmem(&T4[((i16 * 16) % 64) + (((h9 + i7) % 3) * 13312)]), 16, 1024, 1), (i7 != 0) || (i16 != 0));
          }
        }
        wgmma::commit();
        wgmma::wait<1>();
        wgmma::fenceOperands(T2);
        if ((i7 - 1) >= 0) {
          mbarrier::arrive(toSmem(&T4_mbar[(((h9 + i7) - 1) % 3) + 3]));
          if ((((int64_t)threadIdx.x) % 32) == 0) {
            cluster::arriveRemote(toSmem(&T4_mbar[(((h9 + i7) - 1) % 3) + 3]), ((((int64_t)blockIdx.y) % 2) + 1) % 2);
          }
        }
      }
      wgmma::wait<0>();
      wgmma::fenceOperands(T2);
      if (h10 >= 0) {
        mbarrier::arrive(toSmem(&T4_mbar[(((i4 * h8) + h10) % 3) + 3]));
        if ((((int64_t)threadIdx.x) % 32) == 0) {
          cluster::arriveRemote(toSmem(&T4_mbar[(((i4 * h8) + h10) % 3) + 3]), ((((int64_t)blockIdx.y) % 2) + 1) % 2);
        }
      }
      const int64_t h17 = (((((i4 * 2) + ((int64_t)blockIdx.x)) / h19) * 8) + ((((i4 * 2) + ((int64_t)blockIdx.x)) % h19) % min64(8, h20 - ((((i4 * 2) + ((int64_t)blockIdx.x)) / h19) * 8)))) * 208;
      const int64_t h18 = ((((((i4 * 2) + ((int64_t)blockIdx.x)) % h19) / min64(8, h20 - ((((i4 * 2) + ((int64_t)blockIdx.x)) / h19) * 8))) * 2) + ((int64_t)blockIdx.y)) * 128;
      // loop of iUR107{13}
      #pragma unroll
      for (int64_t i21 = 0; i21 < 13; ++i21) {
        __bfloat16 T7[8];
        if (threadIdx.x == 0 && tidY == 0) {
          Hopper::cpAsyncBulkWaitGroupRead<2>();
        }
        namedBarrierSync(1, 256);  // WAR: T6 is rewritten here, after its TMA stores' wait
        // loop of stmatrix
        #pragma unroll
        for (int64_t p7_0 = 0; p7_0 < 1; ++p7_0) {
          // loop of stmatrix
          #pragma unroll
          for (int64_t q7 = 0; q7 < 1; ++q7) {
            T7[(q7 * 8) + (p7_0 * 8)] = __float2bfloat16(T2[(((i21 * 2) + (q7 * 2)) * 4) + (p7_0 * 104)]);
            T7[(1 + (q7 * 8)) + (p7_0 * 8)] = __float2bfloat16(T2[((((i21 * 2) + (q7 * 2)) * 4) + 1) + (p7_0 * 104)]);
            T7[(2 + (q7 * 8)) + (p7_0 * 8)] = __float2bfloat16(T2[((((i21 * 2) + (q7 * 2)) * 4) + 2) + (p7_0 * 104)]);
            T7[(3 + (q7 * 8)) + (p7_0 * 8)] = __float2bfloat16(T2[((((i21 * 2) + (q7 * 2)) * 4) + 3) + (p7_0 * 104)]);
            T7[(((q7 * 2) + 1) * 4) + (p7_0 * 8)] = __float2bfloat16(T2[(((i21 * 2) + ((q7 * 2) + 1)) * 4) + (p7_0 * 104)]);
            T7[(1 + (((q7 * 2) + 1) * 4)) + (p7_0 * 8)] = __float2bfloat16(T2[((((i21 * 2) + ((q7 * 2) + 1)) * 4) + 1) + (p7_0 * 104)]);
            T7[(2 + (((q7 * 2) + 1) * 4)) + (p7_0 * 8)] = __float2bfloat16(T2[((((i21 * 2) + ((q7 * 2) + 1)) * 4) + 2) + (p7_0 * 104)]);
            T7[(3 + (((q7 * 2) + 1) * 4)) + (p7_0 * 8)] = __float2bfloat16(T2[((((i21 * 2) + ((q7 * 2) + 1)) * 4) + 3) + (p7_0 * 104)]);
            stmatrixX4Trans(toSmem(&T6[((((((((((((int64_t)tidY) + p7_0) * 64) + h11) + h12) + h13) % 128) % 64) + (((((((i21 * 16) + (((q7 * 2) + h14) * 8)) + h15) + h16) % 208) % 16) * 64)) + ((((((((((int64_t)tidY) + p7_0) * 64) + h11) + h12) + h13) % 128) / 64) * 1024)) + ((i21 % 2) * 2048)) ^ (((((((((((((((int64_t)tidY) + p7_0) * 64) + h11) + h12) + h13) % 128) % 64) + (((((((i21 * 16) + (((q7 * 2) + h14) * 8)) + h15) + h16) % 208) % 16) * 64)) + ((((((((((int64_t)tidY) + p7_0) * 64) + h11) + h12) + h13) % 128) / 64) * 1024)) + ((i21 % 2) * 2048)) / 64) % 8) * 8)]),
                (static_cast<uint32_t>((T7[(q7 * 8) + (p7_0 * 8)]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 8)) + 1]).raw) << 16)),
                (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 8)) + 2]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 8)) + 3]).raw) << 16)),
                (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 8)) + 4]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 8)) + 5]).raw) << 16)),
                (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 8)) + 6]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 8)) + 7]).raw) << 16)));
          }
        }
        fenceAsyncProxy();
        namedBarrierSync(1, 256);  // RAW: T6 written, then read by a TMA store
        if (threadIdx.x == 0 && tidY == 0) {
          // loop of iUR109{2}
          #pragma unroll
          for (int64_t i31 = 0; i31 < 2; ++i31) {
            Hopper::cpAsyncBulkTensorTileS2G(&tmap_T3, toSmem(&T6[(i31 * 1024) + ((i21 % 2) * 2048)]), h18 + (i31 * 64), h17 + (i21 * 16));
            Hopper::cpAsyncBulkCommitGroup();
          }
        }
      }
      if (threadIdx.x == 0 && tidY == 0) {
        Hopper::cpAsyncBulkWaitGroupRead<0>();
      }
    }
  }
  cluster::sync();  // no block leaves while a peer may still arrive on its barriers
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 6; ++s0) {
      mbarrier::inval(toSmem(&T4_mbar[s0]));
    }
  }
}
