extern "C" __global__ void __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<__bfloat16, 2> T3, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T3) {
  const int i0 = T0.size[0];
  const int i1 = T0.size[1];
  const int i3 = T1.size[1];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T4 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T5 = reinterpret_cast<__bfloat16*>(smem + 66560);
  int64_t* T4_order = reinterpret_cast<int64_t*>(smem + 64);
  int64_t* T4_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T4, T5
    #pragma unroll 1
    for (int s0 = 0; s0 < 4; ++s0) {
      mbarrier::init(toSmem(&T4_mbar[s0]), 1);
      mbarrier::init(toSmem(&T4_mbar[s0 + 4]), 128);
    }
    // pre-prologue loop of ping-pong order of the compute warp groups
    #pragma unroll 1
    for (int s0 = 0; s0 < 4; ++s0) {
      mbarrier::init(toSmem(&T4_order[s0]), 128);
    }
  }
  __syncthreads();  // init: T4_mbar visible to every thread
  if (((int)tidY) >= (((int)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    const int h0 = ceilDiv32(i0, 128) * ceilDiv32(i3, 128);
    const int h1 = ceilDiv32(i1, 64);
    const int h5 = ceilDiv32(i3, 128) * 2;
    const int h6 = ceilDiv32(i0, 128);
    // AsyncWarp loop of iS97{ceilDiv(ceilDiv(ceilDiv(i0, 128) * ceilDiv(i3, 128), 3), 2)}
    #pragma unroll 1
    for (int i4 = 0; i4 < ceilDiv32(ceilDiv32(ceilDiv32(i0, 128) * ceilDiv32(i3, 128), 3), 2); ++i4) {
      // loop of turns of the compute warp groups (iTIDy98{2})
      for (int w0 = 0; w0 < 2; ++w0) {
        if (((((i4 * 2) + w0) * 3) + ((int)blockIdx.x)) >= h0) {
          continue;
        }
        if (threadIdx.x == 0 && tidY == 2) {
          const int h2 = ((i4 * 2) + w0) * h1;
          const int h3 = (((((((i4 * 2) + w0) * 3) + ((int)blockIdx.x)) / h5) * 2) + ((((((i4 * 2) + w0) * 3) + ((int)blockIdx.x)) % h5) % min32(2, h6 - ((((((i4 * 2) + w0) * 3) + ((int)blockIdx.x)) / h5) * 2)))) * 128;
          const int h4 = ((((((i4 * 2) + w0) * 3) + ((int)blockIdx.x)) % h5) / min32(2, h6 - ((((((i4 * 2) + w0) * 3) + ((int)blockIdx.x)) / h5) * 2))) * 128;
          // loop of rS17{ceilDiv(i1, 64)}
          for (int i7 = 0; i7 < h1; ++i7) {
            mbarrier::waitParity(toSmem(&T4_mbar[((h2 + i7) % 4) + 4]), ((h2 + i7) / 4) % 2);
            mbarrier::arriveExpectTx(toSmem(&T4_mbar[(h2 + i7) % 4]), 32768);
            Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T4[((h2 + i7) % 4) * 8192]), &tmap_T0, toSmem(&T4_mbar[(h2 + i7) % 4]), i7 * 64, h3);
            // loop of iUR52{2}
            #pragma unroll
            for (int i11 = 0; i11 < 2; ++i11) {
              Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[(i11 * 4096) + (((h2 + i7) % 4) * 8192)]), &tmap_T1, toSmem(&T4_mbar[(h2 + i7) % 4]), h4 + (i11 * 64), i7 * 64);
            }
          }
        }
      }
    }
    return;
  } else {
    increaseRegisters<232>();
    if (((int)tidY) == 0) {
      // pre-prologue loop of every stage starts empty
      #pragma unroll 1
      for (int s0 = 0; s0 < 4; ++s0) {
        mbarrier::arrive(toSmem(&T4_mbar[s0 + 4]));
      }
    }
    if (((int)tidY) == 1) {
      mbarrier::arrive(toSmem(&T4_order[0]));
      mbarrier::arrive(toSmem(&T4_order[2]));
    }
    const int h7 = ceilDiv32(i0, 128) * ceilDiv32(i3, 128);
    const int h8 = ceilDiv32(i1, 64);
    const int h10 = (((int)tidY) + 1) % 2;
    const int h11 = ceilDiv32(i1, 64) - 1;
    const int h12 = ((((int)threadIdx.x) % 32) / 8) / 2;
    const int h13 = (((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16;
    const int h14 = (((((int)threadIdx.x) % 32) / 8) % 2) * 8;
    const int h15 = ((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) % 8;
    const int h16 = (((int)tidY) * 128) / 32;
    const int h19 = ceilDiv32(i3, 128) * 2;
    const int h20 = ceilDiv32(i0, 128);
    const int h21 = ((((int)tidY) + 1) % 2) + 2;
    // ComputeWarp loop of iS97{ceilDiv(ceilDiv(ceilDiv(i0, 128) * ceilDiv(i3, 128), 3), 2)}
    #pragma unroll 1
    for (int i4 = 0; i4 < ceilDiv32(ceilDiv32(ceilDiv32(i0, 128) * ceilDiv32(i3, 128), 3), 2); ++i4) {
      if (((((i4 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) >= h7) {
        continue;
      }
      float T2[128];
      __bfloat16 T7[128];
      __bfloat16* T6 = reinterpret_cast<__bfloat16*>(smem + 132096);
      wgmma::discard(T2);  // written by its first wgmmas (scale-d 0), not zeroed
      if (h8 <= 0) {
        // loop of iUR24{2}
        #pragma unroll
        for (int i16 = 0; i16 < 2; ++i16) {
          // loop of fragment
          #pragma unroll
          for (int r2 = 0; r2 < 64; ++r2) {
            T2[r2 + (i16 * 64)] = 0.0f;
          }
        }
      }
      mbarrier::waitParity(toSmem(&T4_order[tidY]), i4 % 2);
      const int h9 = ((i4 * 2) + ((int)tidY)) * h8;
      // loop of rS17{ceilDiv(i1, 64)}
      for (int i7 = 0; i7 < h8; ++i7) {
        mbarrier::waitParity(toSmem(&T4_mbar[(h9 + i7) % 4]), ((h9 + i7) / 4) % 2);
        wgmma::fenceOperands(T2);
        wgmma::fence();
        // loop of rUR26{4}
        #pragma unroll
        for (int i15 = 0; i15 < 4; ++i15) {
          // loop of iUR24{2}
          #pragma unroll
          for (int i16 = 0; i16 < 2; ++i16) {
            wgmma::mmaM64N128K16F32Bf16<0, 1>(&T2[i16 * 64],
                wgmma::smemDescriptor(toSmem(&T4[(((i15 * 16) % 64) + (((i16 * 64) % 128) * 64)) + (((h9 + i7) % 4) * 8192)]), 16, 1024, 1),
                wgmma::smemDescriptor(toSmem(&T5[(((i15 * 16) % 64) * 64) + (((h9 + i7) % 4) * 8192)]), 8192, 1024, 1), (i7 != 0) || (i15 != 0));
          }
        }
        wgmma::commit();
        wgmma::wait<1>();
        wgmma::fenceOperands(T2);
        if ((i7 - 1) >= 0) {
          mbarrier::arrive(toSmem(&T4_mbar[(((h9 + i7) - 1) % 4) + 4]));
        }
      }
      mbarrier::arrive(toSmem(&T4_order[h10]));
      wgmma::wait<0>();
      wgmma::fenceOperands(T2);
      if (h11 >= 0) {
        mbarrier::arrive(toSmem(&T4_mbar[(((((i4 * 2) + ((int)tidY)) * h8) + h11) % 4) + 4]));
      }
      mbarrier::waitParity(toSmem(&T4_order[((int)tidY) + 2]), i4 % 2);
      // loop of stmatrix
      #pragma unroll
      for (int p7_0 = 0; p7_0 < 2; ++p7_0) {
        // loop of stmatrix
        #pragma unroll
        for (int q7 = 0; q7 < 8; ++q7) {
          T7[(q7 * 8) + (p7_0 * 64)] = __float2bfloat16(T2[(q7 * 8) + (p7_0 * 64)]);
          T7[(1 + (q7 * 8)) + (p7_0 * 64)] = __float2bfloat16(T2[((q7 * 8) + 1) + (p7_0 * 64)]);
          T7[(2 + (q7 * 8)) + (p7_0 * 64)] = __float2bfloat16(T2[((q7 * 8) + 2) + (p7_0 * 64)]);
          T7[(3 + (q7 * 8)) + (p7_0 * 64)] = __float2bfloat16(T2[((q7 * 8) + 3) + (p7_0 * 64)]);
          T7[(((q7 * 2) + 1) * 4) + (p7_0 * 64)] = __float2bfloat16(T2[(((q7 * 2) + 1) * 4) + (p7_0 * 64)]);
          T7[(1 + (((q7 * 2) + 1) * 4)) + (p7_0 * 64)] = __float2bfloat16(T2[((((q7 * 2) + 1) * 4) + 1) + (p7_0 * 64)]);
          T7[(2 + (((q7 * 2) + 1) * 4)) + (p7_0 * 64)] = __float2bfloat16(T2[((((q7 * 2) + 1) * 4) + 2) + (p7_0 * 64)]);
          T7[(3 + (((q7 * 2) + 1) * 4)) + (p7_0 * 64)] = __float2bfloat16(T2[((((q7 * 2) + 1) * 4) + 3) + (p7_0 * 64)]);
          stmatrixX4(toSmem(&T6[(((((((q7 * 2) + h12) * 8) % 128) % 64) + ((((((p7_0 * 64) + h13) + h14) + h15) % 128) * 64)) + ((((((q7 * 2) + h12) * 8) % 128) / 64) * 8192)) ^ ((((((((((q7 * 2) + h12) * 8) % 128) % 64) + ((((((p7_0 * 64) + h13) + h14) + h15) % 128) * 64)) + ((((((q7 * 2) + h12) * 8) % 128) / 64) * 8192)) / 64) % 8) * 8)]),
              (static_cast<uint32_t>((T7[(q7 * 8) + (p7_0 * 64)]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 1]).raw) << 16)),
              (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 2]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 3]).raw) << 16)),
              (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 4]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 5]).raw) << 16)),
              (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 6]).raw) | (static_cast<uint32_t>((T7[((q7 * 8) + (p7_0 * 64)) + 7]).raw) << 16)));
        }
      }
      fenceAsyncProxy();
      namedBarrierSync(2 + ((int)tidY), 128);  // RAW: T6 written, then read by a TMA store
      if ((((int)threadIdx.x) + (((int)tidY) * 128)) == (h16 * 32)) {
        const int h17 = (((((((i4 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) / h19) * 2) + ((((((i4 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) % h19) % min32(2, h20 - ((((((i4 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) / h19) * 2)))) * 128;
        const int h18 = ((((((i4 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) % h19) / min32(2, h20 - ((((((i4 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) / h19) * 2))) * 128;
        // loop of iUR99{2}
        #pragma unroll
        for (int i28 = 0; i28 < 2; ++i28) {
          Hopper::cpAsyncBulkTensorTileS2G(&tmap_T3, toSmem(&T6[i28 * 8192]), h18 + (i28 * 64), h17);
          Hopper::cpAsyncBulkCommitGroup();
        }
      }
      if ((((int)threadIdx.x) + (((int)tidY) * 128)) == (h16 * 32)) {
        Hopper::cpAsyncBulkWaitGroupRead<0>();
      }
      namedBarrierSync(2 + ((int)tidY), 128);  // WAR: T6 is rewritten next iteration
      mbarrier::arrive(toSmem(&T4_order[h21]));
    }
  }
  __syncthreads();  // every wait on T4_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T4, T5
    #pragma unroll 1
    for (int s0 = 0; s0 < 8; ++s0) {
      mbarrier::inval(toSmem(&T4_mbar[s0]));
    }
    // post-epilogue loop of ping-pong order of the compute warp groups
    #pragma unroll 1
    for (int s0 = 0; s0 < 4; ++s0) {
      mbarrier::inval(toSmem(&T4_order[s0]));
    }
  }
}
