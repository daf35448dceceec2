extern "C" __global__ void __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<__bfloat16, 2> T3, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T3) {
  const int i0 = T0.size[0];
  const int i1 = T0.size[1];
  const int i3 = T1.size[1];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T4 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T5 = reinterpret_cast<__bfloat16*>(smem + 50176);
  int64_t* T4_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T4, T5
    #pragma unroll 1
    for (int s0 = 0; s0 < 3; ++s0) {
      mbarrier::init(toSmem(&T4_mbar[s0]), 1);
      mbarrier::init(toSmem(&T4_mbar[s0 + 3]), 256);
    }
  }
  __syncthreads();  // init: T4_mbar visible to every thread
  if (((int)tidY) >= (((int)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    const int h0 = ceilDiv32(i0, 128) * ceilDiv32(i3, 256);
    const int h1 = ceilDiv32(i1, 64);
    const int h5 = ceilDiv32(i3, 256) * 2;
    const int h6 = ceilDiv32(i0, 128);
    // AsyncWarp loop of iS89{ceilDiv(ceilDiv(i0, 128) * ceilDiv(i3, 256), 3)}
    #pragma unroll 1
    for (int i4 = 0; i4 < ceilDiv32(ceilDiv32(i0, 128) * ceilDiv32(i3, 256), 3); ++i4) {
      if (((i4 * 3) + ((int)blockIdx.x)) >= h0) {
        continue;
      }
      if (threadIdx.x == 0 && tidY == 2) {
        const int h2 = i4 * h1;
        const int h3 = (((((i4 * 3) + ((int)blockIdx.x)) / h5) * 2) + ((((i4 * 3) + ((int)blockIdx.x)) % h5) % min32(2, h6 - ((((i4 * 3) + ((int)blockIdx.x)) / h5) * 2)))) * 128;
        const int h4 = ((((i4 * 3) + ((int)blockIdx.x)) % h5) / min32(2, h6 - ((((i4 * 3) + ((int)blockIdx.x)) / h5) * 2))) * 256;
        // loop of rS17{ceilDiv(i1, 64)}
        for (int i6 = 0; i6 < h1; ++i6) {
          mbarrier::waitParity(toSmem(&T4_mbar[((h2 + i6) % 3) + 3]), ((h2 + i6) / 3) % 2);
          mbarrier::arriveExpectTx(toSmem(&T4_mbar[(h2 + i6) % 3]), 49152);
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T4[((h2 + i6) % 3) * 8192]), &tmap_T0, toSmem(&T4_mbar[(h2 + i6) % 3]), i6 * 64, h3);
          // loop of iUR48{4}
          #pragma unroll
          for (int i10 = 0; i10 < 4; ++i10) {
            Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[(i10 * 4096) + (((h2 + i6) % 3) * 16384)]), &tmap_T1, toSmem(&T4_mbar[(h2 + i6) % 3]), h4 + (i10 * 64), i6 * 64);
          }
        }
      }
    }
    return;
  } else {
    increaseRegisters<232>();
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int s0 = 0; s0 < 3; ++s0) {
      mbarrier::arrive(toSmem(&T4_mbar[s0 + 3]));
    }
    const int h7 = ceilDiv32(i0, 128) * ceilDiv32(i3, 256);
    const int h8 = ceilDiv32(i1, 64);
    const int h10 = ceilDiv32(i1, 64) - 1;
    const int h11 = ((((int)threadIdx.x) % 32) / 8) / 2;
    const int h12 = (((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16;
    const int h13 = (((((int)threadIdx.x) % 32) / 8) % 2) * 8;
    const int h14 = ((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) % 8;
    const int h17 = ceilDiv32(i3, 256) * 2;
    const int h18 = ceilDiv32(i0, 128);
    // ComputeWarp loop of iS89{ceilDiv(ceilDiv(i0, 128) * ceilDiv(i3, 256), 3)}
    #pragma unroll 1
    for (int i4 = 0; i4 < ceilDiv32(ceilDiv32(i0, 128) * ceilDiv32(i3, 256), 3); ++i4) {
      if (((i4 * 3) + ((int)blockIdx.x)) >= h7) {
        continue;
      }
      float T2[128];
      __bfloat16 T7[128];
      __bfloat16* T6 = reinterpret_cast<__bfloat16*>(smem + 148480);
      wgmma::discard(T2);  // written by its first wgmmas (scale-d 0), not zeroed
      if (h8 <= 0) {
        // loop of iUR25{1}
        #pragma unroll
        for (int i16 = 0; i16 < 1; ++i16) {
          // loop of fragment
          #pragma unroll
          for (int r2 = 0; r2 < 128; ++r2) {
            T2[r2 + (i16 * 128)] = 0.0f;
          }
        }
      }
      const int h9 = i4 * h8;
      // loop of rS17{ceilDiv(i1, 64)}
      for (int i6 = 0; i6 < h8; ++i6) {
        mbarrier::waitParity(toSmem(&T4_mbar[(h9 + i6) % 3]), ((h9 + i6) / 3) % 2);
        wgmma::fenceOperands(T2);
        wgmma::fence();
        // loop of rUR26{4}
        #pragma unroll
        for (int i15 = 0; i15 < 4; ++i15) {
          // loop of iUR25{1}
          #pragma unroll
          for (int i16 = 0; i16 < 1; ++i16) {
            wgmma::mmaM64N256K16F32Bf16<0, 1>(&T2[i16 * 128],
                wgmma::smemDescriptor(toSmem(&T4[(((i15 * 16) % 64) + ((((((int)tidY) + i16) * 64) % 128) * 64)) + (((h9 + i6) % 3) * 8192)]), 16, 1024, 1),
                wgmma::smemDescriptor(toSmem(&T5[(((i15 * 16) % 64) * 64) + (((h9 + i6) % 3) * 16384)]), 8192, 1024, 1), (i6 != 0) || (i15 != 0));
          }
        }
        wgmma::commit();
        wgmma::wait<1>();
        wgmma::fenceOperands(T2);
        if ((i6 - 1) >= 0) {
          mbarrier::arrive(toSmem(&T4_mbar[(((h9 + i6) - 1) % 3) + 3]));
        }
      }
      wgmma::wait<0>();
      wgmma::fenceOperands(T2);
      if (h10 >= 0) {
        mbarrier::arrive(toSmem(&T4_mbar[(((i4 * h8) + h10) % 3) + 3]));
      }
      // loop of stmatrix
      #pragma unroll
      for (int p7_0 = 0; p7_0 < 1; ++p7_0) {
        // loop of stmatrix
        #pragma unroll
        for (int q7 = 0; q7 < 16; ++q7) {
          T7[(q7 * 8) + (p7_0 * 128)] = __float2bfloat16(T2[(q7 * 8) + (p7_0 * 128)]);
          T7[(1 + (q7 * 8)) + (p7_0 * 128)] = __float2bfloat16(T2[((q7 * 8) + 1) + (p7_0 * 128)]);
          T7[(2 + (q7 * 8)) + (p7_0 * 128)] = __float2bfloat16(T2[((q7 * 8) + 2) + (p7_0 * 128)]);
          T7[(3 + (q7 * 8)) + (p7_0 * 128)] = __float2bfloat16(T2[((q7 * 8) + 3) + (p7_0 * 128)]);
          T7[(((q7 * 2) + 1) * 4) + (p7_0 * 128)] = __float2bfloat16(T2[(((q7 * 2) + 1) * 4) + (p7_0 * 128)]);
          T7[(1 + (((q7 * 2) + 1) * 4)) + (p7_0 * 128)] = __float2bfloat16(T2[((((q7 * 2) + 1) * 4) + 1) + (p7_0 * 128)]);
          T7[(2 + (((q7 * 2) + 1) * 4)) + (p7_0 * 128)] = __float2bfloat16(T2[((((q7 * 2) + 1) * 4) + 2) + (p7_0 * 128)]);
          T7[(3 + (((q7 * 2) + 1) * 4)) + (p7_0 * 128)] = __float2bfloat16(T2[((((q7 * 2) + 1) * 4) + 3) + (p7_0 * 128)]);
          stmatrixX4(toSmem(&T6[(((((((q7 * 2) + h11) * 8) % 256) % 64) + (((((((((int)tidY) + p7_0) * 64) + h12) + h13) + h14) % 128) * 64)) + ((((((q7 * 2) + h11) * 8) % 256) / 64) * 8192)) ^ ((((((((((q7 * 2) + h11) * 8) % 256) % 64) + (((((((((int)tidY) + p7_0) * 64) + h12) + h13) + h14) % 128) * 64)) + ((((((q7 * 2) + h11) * 8) % 256) / 64) * 8192)) / 64) % 8) * 8)]),
              (static_cast<uint32_t>((T7[(q7 * 8) + (p7_0 * 128)]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 128)) + 1]).raw) << 16)),
              (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 128)) + 2]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 128)) + 3]).raw) << 16)),
              (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 128)) + 4]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 128)) + 5]).raw) << 16)),
              (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 128)) + 6]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 128)) + 7]).raw) << 16)));
        }
      }
      fenceAsyncProxy();
      namedBarrierSync(1, 256);  // RAW: T6 written, then read by a TMA store
      if (threadIdx.x == 0 && tidY == 0) {
        const int h15 = (((((i4 * 3) + ((int)blockIdx.x)) / h17) * 2) + ((((i4 * 3) + ((int)blockIdx.x)) % h17) % min32(2, h18 - ((((i4 * 3) + ((int)blockIdx.x)) / h17) * 2)))) * 128;
        const int h16 = ((((i4 * 3) + ((int)blockIdx.x)) % h17) / min32(2, h18 - ((((i4 * 3) + ((int)blockIdx.x)) / h17) * 2))) * 256;
        // loop of iUR91{4}
        #pragma unroll
        for (int i29 = 0; i29 < 4; ++i29) {
          Hopper::cpAsyncBulkTensorTileS2G(&tmap_T3, toSmem(&T6[i29 * 8192]), h16 + (i29 * 64), h15);
          Hopper::cpAsyncBulkCommitGroup();
        }
      }
      if (threadIdx.x == 0 && tidY == 0) {
        Hopper::cpAsyncBulkWaitGroupRead<0>();
      }
      namedBarrierSync(1, 256);  // WAR: T6 is rewritten next iteration
    }
  }
  __syncthreads();  // every wait on T4_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T4, T5
    #pragma unroll 1
    for (int s0 = 0; s0 < 6; ++s0) {
      mbarrier::inval(toSmem(&T4_mbar[s0]));
    }
  }
}
