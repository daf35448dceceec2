extern "C" __global__ void __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<__bfloat16, 2> T2, Tensor<__bfloat16, 2> T10, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2, const __grid_constant__ TensorMap tmap_T10, float S3, float S4) {
  const int i0 = T0.size[0];
  const int i1 = T0.size[1];
  const int i3 = T1.size[1];
  const int i4 = T2.size[0];
  const int i5 = T2.size[1];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  int64_t* T15_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of a T15_mbar per issuer
    #pragma unroll 1
    for (int s_T15_mbar = 0; s_T15_mbar < 2; ++s_T15_mbar) {
      mbarrier::init(toSmem(&T15_mbar[s_T15_mbar]), 1);
    }
  }
  __syncthreads();  // init: T15_mbar visible to every thread
  __bfloat16* T11 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T12 = reinterpret_cast<__bfloat16*>(smem + 66560);
  __bfloat16* T15 = reinterpret_cast<__bfloat16*>(smem + 132096);
  int64_t* T11_order = reinterpret_cast<int64_t*>(smem + 80);
  int64_t* T11_mbar = reinterpret_cast<int64_t*>(smem + 16);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T11, T12
    #pragma unroll 1
    for (int s0 = 0; s0 < 4; ++s0) {
      mbarrier::init(toSmem(&T11_mbar[s0]), 1);
      mbarrier::init(toSmem(&T11_mbar[s0 + 4]), 128);
    }
    // pre-prologue loop of ping-pong order of the compute warp groups
    #pragma unroll 1
    for (int s0 = 0; s0 < 4; ++s0) {
      mbarrier::init(toSmem(&T11_order[s0]), 128);
    }
  }
  __syncthreads();  // init: T11_mbar visible to every thread
  if (((int)tidY) >= (((int)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    const int h0 = ceilDiv32(i0, 128) * ceilDiv32(i3, 128);
    const int h1 = ceilDiv32(i1, 64);
    const int h5 = ceilDiv32(i3, 128) * 2;
    const int h6 = ceilDiv32(i0, 128);
    // AsyncWarp loop of iS193{ceilDiv(ceilDiv(ceilDiv(i0, 128) * ceilDiv(i3, 128), 3), 2)}
    #pragma unroll 1
    for (int i6 = 0; i6 < ceilDiv32(ceilDiv32(ceilDiv32(i0, 128) * ceilDiv32(i3, 128), 3), 2); ++i6) {
      // loop of turns of the compute warp groups (iTIDy194{2})
      for (int w0 = 0; w0 < 2; ++w0) {
        if (((((i6 * 2) + w0) * 3) + ((int)blockIdx.x)) >= h0) {
          continue;
        }
        if (threadIdx.x == 0 && tidY == 2) {
          const int h2 = ((i6 * 2) + w0) * h1;
          const int h3 = (((((((i6 * 2) + w0) * 3) + ((int)blockIdx.x)) / h5) * 2) + ((((((i6 * 2) + w0) * 3) + ((int)blockIdx.x)) % h5) % min32(2, h6 - ((((((i6 * 2) + w0) * 3) + ((int)blockIdx.x)) / h5) * 2)))) * 128;
          const int h4 = ((((((i6 * 2) + w0) * 3) + ((int)blockIdx.x)) % h5) / min32(2, h6 - ((((((i6 * 2) + w0) * 3) + ((int)blockIdx.x)) / h5) * 2))) * 128;
          // loop of rS27{ceilDiv(i1, 64)}
          for (int i9 = 0; i9 < h1; ++i9) {
            mbarrier::waitParity(toSmem(&T11_mbar[((h2 + i9) % 4) + 4]), ((h2 + i9) / 4) % 2);
            mbarrier::arriveExpectTx(toSmem(&T11_mbar[(h2 + i9) % 4]), 32768);
            Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T11[((h2 + i9) % 4) * 8192]), &tmap_T0, toSmem(&T11_mbar[(h2 + i9) % 4]), i9 * 64, h3);
            // loop of iUR62{2}
            #pragma unroll
            for (int i13 = 0; i13 < 2; ++i13) {
              Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T12[(i13 * 4096) + (((h2 + i9) % 4) * 8192)]), &tmap_T1, toSmem(&T11_mbar[(h2 + i9) % 4]), h4 + (i13 * 64), i9 * 64);
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
        mbarrier::arrive(toSmem(&T11_mbar[s0 + 4]));
      }
    }
    if (((int)tidY) == 1) {
      mbarrier::arrive(toSmem(&T11_order[0]));
      mbarrier::arrive(toSmem(&T11_order[2]));
    }
    const int h7 = ceilDiv32(i0, 128) * ceilDiv32(i3, 128);
    const int h8 = (((int)tidY) * 128) / 32;
    const int h11 = ceilDiv32(i5, 128) * 2;
    const int h12 = ceilDiv32(i4, 128);
    const int h13 = ceilDiv32(i1, 64);
    const int h15 = (((int)tidY) + 1) % 2;
    const int h16 = ceilDiv32(i1, 64) - 1;
    const int h17 = ((((int)threadIdx.x) % 32) / 8) / 2;
    const int h18 = (((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16;
    const int h19 = (((((int)threadIdx.x) % 32) / 8) % 2) * 8;
    const int h20 = ((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) % 8;
    const int h23 = ceilDiv32(i3, 128) * 2;
    const int h24 = ceilDiv32(i0, 128);
    const int h25 = ((((int)tidY) + 1) % 2) + 2;
    // ComputeWarp loop of iS193{ceilDiv(ceilDiv(ceilDiv(i0, 128) * ceilDiv(i3, 128), 3), 2)}
    #pragma unroll 1
    for (int i6 = 0; i6 < ceilDiv32(ceilDiv32(ceilDiv32(i0, 128) * ceilDiv32(i3, 128), 3), 2); ++i6) {
      if (((((i6 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) >= h7) {
        continue;
      }
      float T5[128];
      __bfloat16 T14[128];
      __bfloat16* T13 = reinterpret_cast<__bfloat16*>(smem + 197632);
      if ((((int)threadIdx.x) + (((int)tidY) * 128)) == (h8 * 32)) {
        mbarrier::arriveExpectTx(toSmem(&T15_mbar[tidY]), 32768);
        const int h9 = (((((((i6 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) / h11) * 2) + ((((((i6 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) % h11) % min32(2, h12 - ((((((i6 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) / h11) * 2)))) * 128;
        const int h10 = ((((((i6 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) % h11) / min32(2, h12 - ((((((i6 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) / h11) * 2))) * 128;
        // loop of iUR206{2}
        #pragma unroll
        for (int i27 = 0; i27 < 2; ++i27) {
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T15[(i27 * 8192) + (((int)tidY) * 16384)]), &tmap_T2, toSmem(&T15_mbar[tidY]), h10 + (i27 * 64), h9);
        }
      }
      wgmma::discard(T5);  // written by its first wgmmas (scale-d 0), not zeroed
      if (h13 <= 0) {
        // loop of iUR34{2}
        #pragma unroll
        for (int i18 = 0; i18 < 2; ++i18) {
          // loop of fragment
          #pragma unroll
          for (int r5 = 0; r5 < 64; ++r5) {
            T5[r5 + (i18 * 64)] = 0.0f;
          }
        }
      }
      mbarrier::waitParity(toSmem(&T11_order[tidY]), i6 % 2);
      const int h14 = ((i6 * 2) + ((int)tidY)) * h13;
      // loop of rS27{ceilDiv(i1, 64)}
      for (int i9 = 0; i9 < h13; ++i9) {
        mbarrier::waitParity(toSmem(&T11_mbar[(h14 + i9) % 4]), ((h14 + i9) / 4) % 2);
        wgmma::fenceOperands(T5);
        wgmma::fence();
        // loop of rUR36{4}
        #pragma unroll
        for (int i17 = 0; i17 < 4; ++i17) {
          // loop of iUR34{2}
          #pragma unroll
          for (int i18 = 0; i18 < 2; ++i18) {
            wgmma::mmaM64N128K16F32Bf16<0, 1>(&T5[i18 * 64],
                wgmma::smemDescriptor(toSmem(&T11[(((i17 * 16) % 64) + (((i18 * 64) % 128) * 64)) + (((h14 + i9) % 4) * 8192)]), 16, 1024, 1),
                wgmma::smemDescriptor(toSmem(&T12[(((i17 * 16) % 64) * 64) + (((h14 + i9) % 4) * 8192)]), 8192, 1024, 1), (i9 != 0) || (i17 != 0));
          }
        }
        wgmma::commit();
        wgmma::wait<1>();
        wgmma::fenceOperands(T5);
        if ((i9 - 1) >= 0) {
          mbarrier::arrive(toSmem(&T11_mbar[(((h14 + i9) - 1) % 4) + 4]));
        }
      }
      mbarrier::arrive(toSmem(&T11_order[h15]));
      wgmma::wait<0>();
      wgmma::fenceOperands(T5);
      if (h16 >= 0) {
        mbarrier::arrive(toSmem(&T11_mbar[(((((i6 * 2) + ((int)tidY)) * h13) + h16) % 4) + 4]));
      }
      mbarrier::waitParity(toSmem(&T11_order[((int)tidY) + 2]), i6 % 2);
      mbarrier::waitParity(toSmem(&T15_mbar[tidY]), i6 % 2);
      // loop of iUR163{2}
      #pragma unroll
      for (int i22 = 0; i22 < 2; ++i22) {
        // loop of iUR169{16}
        #pragma unroll
        for (int i24 = 0; i24 < 16; ++i24) {
          // loop of iUR167{2}
          #pragma unroll
          for (int i25 = 0; i25 < 2; ++i25) {
            // loop of iUR172{2}
            #pragma unroll
            for (int i26 = 0; i26 < 2; ++i26) {
              // T6 (Local, 1 x float) is allocated but unused
              // T7 (Local, 1 x float) is allocated but unused
              // T8 (Local, 1 x float) is allocated but unused
              // T9 (Local, 1 x float) is allocated but unused
            }
          }
        }
      }
      // loop of stmatrix
      #pragma unroll
      for (int p14_0 = 0; p14_0 < 2; ++p14_0) {
        // loop of stmatrix
        #pragma unroll
        for (int q14 = 0; q14 < 8; ++q14) {
          __bfloat16 T15_frag[8];
          {
            uint32_t ldm[4];
            ldmatrixX4(toSmem(&T15[((((((((q14 * 2) + h17) * 8) % 128) % 64) + ((((((p14_0 * 64) + h18) + h19) + h20) % 128) * 64)) + ((((((q14 * 2) + h17) * 8) % 128) / 64) * 8192)) + (((int)tidY) * 16384)) ^ (((((((((((q14 * 2) + h17) * 8) % 128) % 64) + ((((((p14_0 * 64) + h18) + h19) + h20) % 128) * 64)) + ((((((q14 * 2) + h17) * 8) % 128) / 64) * 8192)) + (((int)tidY) * 16384)) / 64) % 8) * 8)]), ldm[0], ldm[1], ldm[2], ldm[3]);
            T15_frag[0].raw = static_cast<uint16_t>(ldm[0]);
            T15_frag[1].raw = static_cast<uint16_t>(ldm[0] >> 16);
            T15_frag[2].raw = static_cast<uint16_t>(ldm[1]);
            T15_frag[3].raw = static_cast<uint16_t>(ldm[1] >> 16);
            T15_frag[4].raw = static_cast<uint16_t>(ldm[2]);
            T15_frag[5].raw = static_cast<uint16_t>(ldm[2] >> 16);
            T15_frag[6].raw = static_cast<uint16_t>(ldm[3]);
            T15_frag[7].raw = static_cast<uint16_t>(ldm[3] >> 16);
          }
          T14[(q14 * 8) + (p14_0 * 64)] = __float2bfloat16((T5[(q14 * 8) + (p14_0 * 64)] * S3) + (__bfloat162float(T15_frag[0]) * S4));
          T14[(1 + (q14 * 8)) + (p14_0 * 64)] = __float2bfloat16((T5[((q14 * 8) + 1) + (p14_0 * 64)] * S3) + (__bfloat162float(T15_frag[1]) * S4));
          T14[(2 + (q14 * 8)) + (p14_0 * 64)] = __float2bfloat16((T5[((q14 * 8) + 2) + (p14_0 * 64)] * S3) + (__bfloat162float(T15_frag[2]) * S4));
          T14[(3 + (q14 * 8)) + (p14_0 * 64)] = __float2bfloat16((T5[((q14 * 8) + 3) + (p14_0 * 64)] * S3) + (__bfloat162float(T15_frag[3]) * S4));
          T14[(((q14 * 2) + 1) * 4) + (p14_0 * 64)] = __float2bfloat16((T5[(((q14 * 2) + 1) * 4) + (p14_0 * 64)] * S3) + (__bfloat162float(T15_frag[4]) * S4));
          T14[(1 + (((q14 * 2) + 1) * 4)) + (p14_0 * 64)] = __float2bfloat16((T5[((((q14 * 2) + 1) * 4) + 1) + (p14_0 * 64)] * S3) + (__bfloat162float(T15_frag[5]) * S4));
          T14[(2 + (((q14 * 2) + 1) * 4)) + (p14_0 * 64)] = __float2bfloat16((T5[((((q14 * 2) + 1) * 4) + 2) + (p14_0 * 64)] * S3) + (__bfloat162float(T15_frag[6]) * S4));
          T14[(3 + (((q14 * 2) + 1) * 4)) + (p14_0 * 64)] = __float2bfloat16((T5[((((q14 * 2) + 1) * 4) + 3) + (p14_0 * 64)] * S3) + (__bfloat162float(T15_frag[7]) * S4));
          stmatrixX4(toSmem(&T13[(((((((q14 * 2) + h17) * 8) % 128) % 64) + ((((((p14_0 * 64) + h18) + h19) + h20) % 128) * 64)) + ((((((q14 * 2) + h17) * 8) % 128) / 64) * 8192)) ^ ((((((((((q14 * 2) + h17) * 8) % 128) % 64) + ((((((p14_0 * 64) + h18) + h19) + h20) % 128) * 64)) + ((((((q14 * 2) + h17) * 8) % 128) / 64) * 8192)) / 64) % 8) * 8)]),
              (static_cast<uint32_t>((T14[(q14 * 8) + (p14_0 * 64)]).raw) | (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 64)) + 1]).raw) << 16)),
              (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 64)) + 2]).raw) | (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 64)) + 3]).raw) << 16)),
              (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 64)) + 4]).raw) | (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 64)) + 5]).raw) << 16)),
              (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 64)) + 6]).raw) | (static_cast<uint32_t>((T14[((q14 * 8) + (p14_0 * 64)) + 7]).raw) << 16)));
        }
      }
      fenceAsyncProxy();
      namedBarrierSync(2 + ((int)tidY), 128);  // RAW: T13 written, then read by a TMA store
      if ((((int)threadIdx.x) + (((int)tidY) * 128)) == (h8 * 32)) {
        const int h21 = (((((((i6 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) / h23) * 2) + ((((((i6 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) % h23) % min32(2, h24 - ((((((i6 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) / h23) * 2)))) * 128;
        const int h22 = ((((((i6 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) % h23) / min32(2, h24 - ((((((i6 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) / h23) * 2))) * 128;
        // loop of iUR195{2}
        #pragma unroll
        for (int i33 = 0; i33 < 2; ++i33) {
          Hopper::cpAsyncBulkTensorTileS2G(&tmap_T10, toSmem(&T13[i33 * 8192]), h22 + (i33 * 64), h21);
          Hopper::cpAsyncBulkCommitGroup();
        }
      }
      if ((((int)threadIdx.x) + (((int)tidY) * 128)) == (h8 * 32)) {
        Hopper::cpAsyncBulkWaitGroupRead<0>();
      }
      namedBarrierSync(2 + ((int)tidY), 128);  // WAR: T13 is rewritten next iteration
      mbarrier::arrive(toSmem(&T11_order[h25]));
    }
  }
  __syncthreads();  // every wait on T11_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T11, T12
    #pragma unroll 1
    for (int s0 = 0; s0 < 8; ++s0) {
      mbarrier::inval(toSmem(&T11_mbar[s0]));
    }
    // post-epilogue loop of ping-pong order of the compute warp groups
    #pragma unroll 1
    for (int s0 = 0; s0 < 4; ++s0) {
      mbarrier::inval(toSmem(&T11_order[s0]));
    }
  }
  __syncthreads();  // every wait on T15_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of a T15_mbar per issuer
    #pragma unroll 1
    for (int s_T15_mbar = 0; s_T15_mbar < 2; ++s_T15_mbar) {
      mbarrier::inval(toSmem(&T15_mbar[s_T15_mbar]));
    }
  }
}
