extern "C" __global__ void __launch_bounds__(256, 1) fusion_kernel(Tensor<__bfloat16, 3> T0, Tensor<__bfloat16, 3> T1, Tensor<__bfloat16, 3> T4, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T4) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t i2 = T0.size[2];
  const int64_t i4 = T1.size[1];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T2 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T5 = reinterpret_cast<__bfloat16*>(smem + 50176);
  int64_t* T2_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T2, T5
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 3; ++s0) {
      mbarrier::init(toSmem(&T2_mbar[s0]), 1);
      mbarrier::init(toSmem(&T2_mbar[s0 + 3]), 128);
    }
  }
  __syncthreads();  // init: T2_mbar visible to every thread
  if (((int64_t)tidY) >= (((int64_t)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    const int64_t h0 = i0 * (ceilDiv(i1, 128) * ceilDiv(i4, 128));
    const int64_t h1 = ceilDiv(i2, 64);
    const int64_t h6 = ceilDiv(i1, 128) * ceilDiv(i4, 128);
    const int64_t h7 = ceilDiv(i4, 128) * 8;
    const int64_t h8 = ceilDiv(i1, 128);
    // AsyncWarp loop of iS101{ceilDiv(i0 * (ceilDiv(i1, 128) * ceilDiv(i4, 128)), 132)}
    #pragma unroll 1
    for (int64_t i6 = 0; i6 < ceilDiv(i0 * (ceilDiv(i1, 128) * ceilDiv(i4, 128)), 132); ++i6) {
      if (((i6 * 132) + ((int64_t)blockIdx.x)) >= h0) {
        continue;
      }
      if (threadIdx.x == 0 && tidY == 1) {
        const int64_t h2 = i6 * h1;
        const int64_t h3 = ((i6 * 132) + ((int64_t)blockIdx.x)) / h6;
        const int64_t h4 = (((((i6 * 132) + ((int64_t)blockIdx.x)) % h6) % h7) / min64(8, h8 - (((((i6 * 132) + ((int64_t)blockIdx.x)) % h6) / h7) * 8))) * 128;
        const int64_t h5 = ((((((i6 * 132) + ((int64_t)blockIdx.x)) % h6) / h7) * 8) + (((((i6 * 132) + ((int64_t)blockIdx.x)) % h6) % h7) % min64(8, h8 - (((((i6 * 132) + ((int64_t)blockIdx.x)) % h6) / h7) * 8)))) * 128;
        // loop of rS23{ceilDiv(i2, 64)}
        for (int64_t i8 = 0; i8 < h1; ++i8) {
          mbarrier::waitParity(toSmem(&T2_mbar[((h2 + i8) % 3) + 3]), ((h2 + i8) / 3) % 2);
          mbarrier::arriveExpectTx(toSmem(&T2_mbar[(h2 + i8) % 3]), 32768);
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T2[((h2 + i8) % 3) * 8192]), &tmap_T1, toSmem(&T2_mbar[(h2 + i8) % 3]), i8 * 64, h4, h3);
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[((h2 + i8) % 3) * 8192]), &tmap_T0, toSmem(&T2_mbar[(h2 + i8) % 3]), i8 * 64, h5, h3);
        }
      }
    }
    return;
  } else {
    increaseRegisters<232>();
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 3; ++s0) {
      mbarrier::arrive(toSmem(&T2_mbar[s0 + 3]));
    }
    const int64_t h9 = i0 * (ceilDiv(i1, 128) * ceilDiv(i4, 128));
    const int64_t h10 = ceilDiv(i2, 64);
    const int64_t h12 = ceilDiv(i2, 64) - 1;
    const int64_t h13 = ((((int64_t)threadIdx.x) % 32) / 8) / 2;
    const int64_t h14 = (((((((int64_t)threadIdx.x) / 32) * 32) + (((((int64_t)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16;
    const int64_t h15 = (((((int64_t)threadIdx.x) % 32) / 8) % 2) * 8;
    const int64_t h16 = ((((((int64_t)threadIdx.x) / 32) * 32) + (((((int64_t)threadIdx.x) % 32) % 8) * 4)) / 4) % 8;
    const int64_t h20 = ceilDiv(i1, 128) * ceilDiv(i4, 128);
    const int64_t h21 = ceilDiv(i4, 128) * 8;
    const int64_t h22 = ceilDiv(i1, 128);
    // ComputeWarp loop of iS101{ceilDiv(i0 * (ceilDiv(i1, 128) * ceilDiv(i4, 128)), 132)}
    #pragma unroll 1
    for (int64_t i6 = 0; i6 < ceilDiv(i0 * (ceilDiv(i1, 128) * ceilDiv(i4, 128)), 132); ++i6) {
      if (((i6 * 132) + ((int64_t)blockIdx.x)) >= h9) {
        continue;
      }
      float T3[128];
      __bfloat16 T7[128];
      __bfloat16* T6 = reinterpret_cast<__bfloat16*>(smem + 99328);
      wgmma::discard(T3);  // written by its first wgmmas (scale-d 0), not zeroed
      if (h10 <= 0) {
        // loop of iUR32{2}
        #pragma unroll
        for (int64_t i17 = 0; i17 < 2; ++i17) {
          // loop of fragment
          #pragma unroll
          for (int64_t r3 = 0; r3 < 64; ++r3) {
            T3[r3 + (i17 * 64)] = 0.0f;
          }
        }
      }
      const int64_t h11 = i6 * h10;
      // loop of rS23{ceilDiv(i2, 64)}
      for (int64_t i8 = 0; i8 < h10; ++i8) {
        mbarrier::waitParity(toSmem(&T2_mbar[(h11 + i8) % 3]), ((h11 + i8) / 3) % 2);
        wgmma::fenceOperands(T3);
        wgmma::fence();
        // loop of rUR33{4}
        #pragma unroll
        for (int64_t i16 = 0; i16 < 4; ++i16) {
          // loop of iUR32{2}
          #pragma unroll
          for (int64_t i17 = 0; i17 < 2; ++i17) {
            wgmma::mmaM64N128K16F32Bf16<0, 0>(&T3[i17 * 64],
                wgmma::smemDescriptor(toSmem(&T5[(((i16 * 16) % 64) + (((((((int64_t)tidY) * 2) + i17) * 64) % 128) * 64)) + (((h11 + i8) % 3) * 8192)]), 16, 1024, 1),
                wgmma::smemDescriptor(toSmem(&T2[((i16 * 16) % 64) + (((h11 + i8) % 3) * 8192)]), 16, 1024, 1), (i8 != 0) || (i16 != 0));
          }
        }
        wgmma::commit();
        wgmma::wait<1>();
        wgmma::fenceOperands(T3);
        if ((i8 - 1) >= 0) {
          mbarrier::arrive(toSmem(&T2_mbar[(((h11 + i8) - 1) % 3) + 3]));
        }
      }
      wgmma::wait<0>();
      wgmma::fenceOperands(T3);
      if (h12 >= 0) {
        mbarrier::arrive(toSmem(&T2_mbar[(((i6 * h10) + h12) % 3) + 3]));
      }
      // loop of stmatrix
      #pragma unroll
      for (int64_t p7_0 = 0; p7_0 < 2; ++p7_0) {
        // loop of stmatrix
        #pragma unroll
        for (int64_t q7 = 0; q7 < 8; ++q7) {
          T7[(q7 * 8) + (p7_0 * 64)] = __float2bfloat16(T3[(q7 * 8) + (p7_0 * 64)]);
          T7[(1 + (q7 * 8)) + (p7_0 * 64)] = __float2bfloat16(T3[((q7 * 8) + 1) + (p7_0 * 64)]);
          T7[(2 + (q7 * 8)) + (p7_0 * 64)] = __float2bfloat16(T3[((q7 * 8) + 2) + (p7_0 * 64)]);
          T7[(3 + (q7 * 8)) + (p7_0 * 64)] = __float2bfloat16(T3[((q7 * 8) + 3) + (p7_0 * 64)]);
          T7[(((q7 * 2) + 1) * 4) + (p7_0 * 64)] = __float2bfloat16(T3[(((q7 * 2) + 1) * 4) + (p7_0 * 64)]);
          T7[(1 + (((q7 * 2) + 1) * 4)) + (p7_0 * 64)] = __float2bfloat16(T3[((((q7 * 2) + 1) * 4) + 1) + (p7_0 * 64)]);
          T7[(2 + (((q7 * 2) + 1) * 4)) + (p7_0 * 64)] = __float2bfloat16(T3[((((q7 * 2) + 1) * 4) + 2) + (p7_0 * 64)]);
          T7[(3 + (((q7 * 2) + 1) * 4)) + (p7_0 * 64)] = __float2bfloat16(T3[((((q7 * 2) + 1) * 4) + 3) + (p7_0 * 64)]);
          stmatrixX4(toSmem(&T6[(((((((q7 * 2) + h13) * 8) % 128) % 64) + ((((((((((int64_t)tidY) * 2) + p7_0) * 64) + h14) + h15) + h16) % 128) * 64)) + ((((((q7 * 2) + h13) * 8) % 128) / 64) * 8192)) ^ ((((((((((q7 * 2) + h13) * 8) % 128) % 64) + ((((((((((int64_t)tidY) * 2) + p7_0) * 64) + h14) + h15) + h16) % 128) * 64)) + ((((((q7 * 2) + h13) * 8) % 128) / 64) * 8192)) / 64) % 8) * 8)]),
              (static_cast<uint32_t>((T7[(q7 * 8) + (p7_0 * 64)]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 1]).raw) << 16)),
              (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 2]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 3]).raw) << 16)),
              (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 4]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 5]).raw) << 16)),
              (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 6]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 7]).raw) << 16)));
        }
      }
      fenceAsyncProxy();
      namedBarrierSync(1, 128);  // RAW: T6 written, then read by a TMA store
      if (threadIdx.x == 0 && tidY == 0) {
        const int64_t h17 = ((i6 * 132) + ((int64_t)blockIdx.x)) / h20;
        const int64_t h18 = ((((((i6 * 132) + ((int64_t)blockIdx.x)) % h20) / h21) * 8) + (((((i6 * 132) + ((int64_t)blockIdx.x)) % h20) % h21) % min64(8, h22 - (((((i6 * 132) + ((int64_t)blockIdx.x)) % h20) / h21) * 8)))) * 128;
        const int64_t h19 = (((((i6 * 132) + ((int64_t)blockIdx.x)) % h20) % h21) / min64(8, h22 - (((((i6 * 132) + ((int64_t)blockIdx.x)) % h20) / h21) * 8))) * 128;
        // loop of iUR103{2}
        #pragma unroll
        for (int64_t i30 = 0; i30 < 2; ++i30) {
          Hopper::cpAsyncBulkTensorTileS2G(&tmap_T4, toSmem(&T6[i30 * 8192]), h19 + (i30 * 64), h18, h17);
          Hopper::cpAsyncBulkCommitGroup();
        }
      }
      if (threadIdx.x == 0 && tidY == 0) {
        Hopper::cpAsyncBulkWaitGroupRead<0>();
      }
      namedBarrierSync(1, 128);  // WAR: T6 is rewritten next iteration
    }
  }
  __syncthreads();  // every wait on T2_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T2, T5
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 6; ++s0) {
      mbarrier::inval(toSmem(&T2_mbar[s0]));
    }
  }
}
