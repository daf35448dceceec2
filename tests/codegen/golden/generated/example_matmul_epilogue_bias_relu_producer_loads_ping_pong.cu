extern "C" __global__ void __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<float, 1> T2, Tensor<__bfloat16, 2> T7, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2, const __grid_constant__ TensorMap tmap_T7) {
  const int i0 = T0.size[0];
  const int i1 = T0.size[1];
  const int i3 = T1.size[1];
  const int i4 = T2.size[0];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T8 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T9 = reinterpret_cast<__bfloat16*>(smem + 66560);
  __bfloat16* T10 = reinterpret_cast<__bfloat16*>(smem + 132096);
  int64_t* T8_order = reinterpret_cast<int64_t*>(smem + 64);
  int64_t* T8_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T8, T9
    #pragma unroll 1
    for (int s0 = 0; s0 < 4; ++s0) {
      mbarrier::init(toSmem(&T8_mbar[s0]), 1);
      mbarrier::init(toSmem(&T8_mbar[s0 + 4]), 128);
    }
    // pre-prologue loop of ping-pong order of the compute warp groups
    #pragma unroll 1
    for (int s0 = 0; s0 < 4; ++s0) {
      mbarrier::init(toSmem(&T8_order[s0]), 128);
    }
  }
  __syncthreads();  // init: T8_mbar visible to every thread
  float* T12 = reinterpret_cast<float*>(smem + 197632);
  int64_t* T12_epilogue_mbar = reinterpret_cast<int64_t*>(smem + 96);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T12
    #pragma unroll 1
    for (int s0 = 0; s0 < 4; ++s0) {
      mbarrier::init(toSmem(&T12_epilogue_mbar[s0]), 1);
      mbarrier::init(toSmem(&T12_epilogue_mbar[s0 + 4]), 128);
    }
  }
  __syncthreads();  // init: T12_epilogue_mbar visible to every thread
  if (((int)tidY) >= (((int)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    const int h0 = ceilDiv32(i0, 128) * ceilDiv32(i3, 128);
    const int h1 = min32(4, ceilDiv32(i1, 64));
    const int h5 = ceilDiv32(i1, 64);
    const int h6 = ceilDiv32(i3, 128) * 2;
    const int h7 = ceilDiv32(i0, 128);
    const int h9 = ceilDiv32(i4, 128) * 2;
    // AsyncWarp loop of iS176{ceilDiv(ceilDiv(ceilDiv(i0, 128) * ceilDiv(i3, 128), 3), 2)}
    #pragma unroll 1
    for (int i5 = 0; i5 < ceilDiv32(ceilDiv32(ceilDiv32(i0, 128) * ceilDiv32(i3, 128), 3), 2); ++i5) {
      // loop of turns of the compute warp groups (iTIDy177{2})
      for (int w0 = 0; w0 < 2; ++w0) {
        if (((((i5 * 2) + w0) * 3) + ((int)blockIdx.x)) >= h0) {
          continue;
        }
        if (threadIdx.x == 0 && tidY == 2) {
          const int h2 = ((i5 * 2) + w0) * h5;
          const int h3 = (((((((i5 * 2) + w0) * 3) + ((int)blockIdx.x)) / h6) * 2) + ((((((i5 * 2) + w0) * 3) + ((int)blockIdx.x)) % h6) % min32(2, h7 - ((((((i5 * 2) + w0) * 3) + ((int)blockIdx.x)) / h6) * 2)))) * 128;
          const int h4 = ((((((i5 * 2) + w0) * 3) + ((int)blockIdx.x)) % h6) / min32(2, h7 - ((((((i5 * 2) + w0) * 3) + ((int)blockIdx.x)) / h6) * 2))) * 128;
          // loop of rS24{ceilDiv(i1, 64)}
          for (int i8 = 0; i8 < h1; ++i8) {
            mbarrier::waitParity(toSmem(&T8_mbar[((h2 + i8) % 4) + 4]), ((h2 + i8) / 4) % 2);
            mbarrier::arriveExpectTx(toSmem(&T8_mbar[(h2 + i8) % 4]), 32768);
            Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T8[((h2 + i8) % 4) * 8192]), &tmap_T0, toSmem(&T8_mbar[(h2 + i8) % 4]), i8 * 64, h3);
            // loop of iUR59{2}
            #pragma unroll
            for (int i12 = 0; i12 < 2; ++i12) {
              Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T9[(i12 * 4096) + (((h2 + i8) % 4) * 8192)]), &tmap_T1, toSmem(&T8_mbar[(h2 + i8) % 4]), h4 + (i12 * 64), i8 * 64);
            }
          }
        }
        if (threadIdx.x == 0 && tidY == 2) {
          const int h8 = ((((((i5 * 2) + w0) * 3) + ((int)blockIdx.x)) % h9) / min32(2, h7 - ((((((i5 * 2) + w0) * 3) + ((int)blockIdx.x)) / h9) * 2))) * 128;
          // loop of iUR178{2}
          #pragma unroll
          for (int i21 = 0; i21 < 2; ++i21) {
            mbarrier::waitParity(toSmem(&T12_epilogue_mbar[(((((i5 * 2) + w0) * 2) + i21) % 4) + 4]), (((((i5 * 2) + w0) * 2) + i21) / 4) % 2);
            mbarrier::arriveExpectTx(toSmem(&T12_epilogue_mbar[((((i5 * 2) + w0) * 2) + i21) % 4]), 256);
            Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T12[(((((i5 * 2) + w0) * 2) + i21) % 4) * 64]), &tmap_T2, toSmem(&T12_epilogue_mbar[((((i5 * 2) + w0) * 2) + i21) % 4]), h8 + (i21 * 64));
          }
        }
        if (threadIdx.x == 0 && tidY == 2) {
          const int h10 = ((i5 * 2) + w0) * h5;
          const int h11 = (((((((i5 * 2) + w0) * 3) + ((int)blockIdx.x)) / h6) * 2) + ((((((i5 * 2) + w0) * 3) + ((int)blockIdx.x)) % h6) % min32(2, h7 - ((((((i5 * 2) + w0) * 3) + ((int)blockIdx.x)) / h6) * 2)))) * 128;
          const int h12 = ((((((i5 * 2) + w0) * 3) + ((int)blockIdx.x)) % h6) / min32(2, h7 - ((((((i5 * 2) + w0) * 3) + ((int)blockIdx.x)) / h6) * 2))) * 128;
          // loop of rS24{ceilDiv(i1, 64)}
          for (int i8 = h1; i8 < h5; ++i8) {
            mbarrier::waitParity(toSmem(&T8_mbar[((h10 + i8) % 4) + 4]), ((h10 + i8) / 4) % 2);
            mbarrier::arriveExpectTx(toSmem(&T8_mbar[(h10 + i8) % 4]), 32768);
            Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T8[((h10 + i8) % 4) * 8192]), &tmap_T0, toSmem(&T8_mbar[(h10 + i8) % 4]), i8 * 64, h11);
            // loop of iUR59{2}
            #pragma unroll
            for (int i12 = 0; i12 < 2; ++i12) {
              Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T9[(i12 * 4096) + (((h10 + i8) % 4) * 8192)]), &tmap_T1, toSmem(&T8_mbar[(h10 + i8) % 4]), h12 + (i12 * 64), i8 * 64);
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
        mbarrier::arrive(toSmem(&T8_mbar[s0 + 4]));
      }
    }
    if (((int)tidY) == 0) {
      // pre-prologue loop of every stage starts empty
      #pragma unroll 1
      for (int s0 = 0; s0 < 4; ++s0) {
        mbarrier::arrive(toSmem(&T12_epilogue_mbar[s0 + 4]));
      }
    }
    if (((int)tidY) == 1) {
      mbarrier::arrive(toSmem(&T8_order[0]));
      mbarrier::arrive(toSmem(&T8_order[2]));
    }
    const int h13 = ceilDiv32(i0, 128) * ceilDiv32(i3, 128);
    const int h14 = ceilDiv32(i1, 64);
    const int h16 = (((int)tidY) + 1) % 2;
    const int h17 = ceilDiv32(i1, 64) - 1;
    const int h18 = (((int)tidY) * 128) / 32;
    const int h19 = (((int)threadIdx.x) % 4) * 2;
    const int h20 = ((((int)threadIdx.x) % 32) / 8) / 2;
    const int h21 = (((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16;
    const int h22 = (((((int)threadIdx.x) % 32) / 8) % 2) * 8;
    const int h23 = ((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) % 8;
    const int h25 = ((((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16) + (((((((int)threadIdx.x) % 32) / 8) % 2) * 8) + (((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) % 8));
    const int h26 = ceilDiv32(i3, 128);
    const int h28 = ceilDiv32(i0, 128);
    const int h29 = ceilDiv32(i3, 128) * 2;
    const int h30 = ((((int)tidY) + 1) % 2) + 2;
    // ComputeWarp loop of iS176{ceilDiv(ceilDiv(ceilDiv(i0, 128) * ceilDiv(i3, 128), 3), 2)}
    #pragma unroll 1
    for (int i5 = 0; i5 < ceilDiv32(ceilDiv32(ceilDiv32(i0, 128) * ceilDiv32(i3, 128), 3), 2); ++i5) {
      if (((((i5 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) >= h13) {
        continue;
      }
      float T3[128];
      wgmma::discard(T3);  // written by its first wgmmas (scale-d 0), not zeroed
      if (h14 <= 0) {
        // loop of iUR31{2}
        #pragma unroll
        for (int i17 = 0; i17 < 2; ++i17) {
          // loop of fragment
          #pragma unroll
          for (int r3 = 0; r3 < 64; ++r3) {
            T3[r3 + (i17 * 64)] = 0.0f;
          }
        }
      }
      mbarrier::waitParity(toSmem(&T8_order[tidY]), i5 % 2);
      const int h15 = ((i5 * 2) + ((int)tidY)) * h14;
      // loop of rS24{ceilDiv(i1, 64)}
      for (int i8 = 0; i8 < h14; ++i8) {
        mbarrier::waitParity(toSmem(&T8_mbar[(h15 + i8) % 4]), ((h15 + i8) / 4) % 2);
        wgmma::fenceOperands(T3);
        wgmma::fence();
        // loop of rUR33{4}
        #pragma unroll
        for (int i16 = 0; i16 < 4; ++i16) {
          // loop of iUR31{2}
          #pragma unroll
          for (int i17 = 0; i17 < 2; ++i17) {
            wgmma::mmaM64N128K16F32Bf16<0, 1>(&T3[i17 * 64],
                wgmma::smemDescriptor(toSmem(&T8[(((i16 * 16) % 64) + (((i17 * 64) % 128) * 64)) + (((h15 + i8) % 4) * 8192)]), 16, 1024, 1),
                wgmma::smemDescriptor(toSmem(&T9[(((i16 * 16) % 64) * 64) + (((h15 + i8) % 4) * 8192)]), 8192, 1024, 1), (i8 != 0) || (i16 != 0));
          }
        }
        wgmma::commit();
        wgmma::wait<1>();
        wgmma::fenceOperands(T3);
        if ((i8 - 1) >= 0) {
          mbarrier::arrive(toSmem(&T8_mbar[(((h15 + i8) - 1) % 4) + 4]));
        }
      }
      mbarrier::arrive(toSmem(&T8_order[h16]));
      wgmma::wait<0>();
      wgmma::fenceOperands(T3);
      if (h17 >= 0) {
        mbarrier::arrive(toSmem(&T8_mbar[(((((i5 * 2) + ((int)tidY)) * h14) + h17) % 4) + 4]));
      }
      mbarrier::waitParity(toSmem(&T8_order[((int)tidY) + 2]), i5 % 2);
      const int h24 = (((((((i5 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) / h29) * 2) + ((((((i5 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) % h29) % min32(2, h28 - ((((((i5 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) / h29) * 2)))) * 128;
      const int h27 = ((((((i5 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) % h29) / min32(2, h28 - ((((((i5 * 2) + ((int)tidY)) * 3) + ((int)blockIdx.x)) / h29) * 2))) * 128;
      // loop of iUR178{2}
      #pragma unroll
      for (int i21 = 0; i21 < 2; ++i21) {
        uint32_t T11_w[32];  // T11 in pairs: written a pair at a time
        mbarrier::waitParity(toSmem(&T12_epilogue_mbar[((((i5 * 2) + ((int)tidY)) * 2) + i21) % 4]), (((((i5 * 2) + ((int)tidY)) * 2) + i21) / 4) % 2);
        // loop of iUR146{2}
        #pragma unroll
        for (int i24 = 0; i24 < 2; ++i24) {
          // loop of iUR152{8}
          #pragma unroll
          for (int i26 = 0; i26 < 8; ++i26) {
            // loop of iUR150{2}
            #pragma unroll
            for (int i27 = 0; i27 < 2; ++i27) {
              // loop of iUR155{2}
              #pragma unroll
              for (int i28 = 0; i28 < 2; ++i28) {
                // T4 (Local, 1 x float) is allocated but unused
                // T5 (Local, 1 x float) is allocated but unused
                // T6 (Local, 1 x float) is allocated but unused
              }
            }
          }
        }
        if ((((int)threadIdx.x) + (((int)tidY) * 128)) == (h18 * 32)) {
          Hopper::cpAsyncBulkWaitGroupRead<1>();
        }
        namedBarrierSync(2 + ((int)tidY), 128);  // WAR: T10 is rewritten here, after its TMA stores' wait
        // loop of stmatrix
        #pragma unroll
        for (int p11_0 = 0; p11_0 < 2; ++p11_0) {
          // loop of stmatrix
          #pragma unroll
          for (int q11 = 0; q11 < 4; ++q11) {
            T11_w[((q11 * 8) + (p11_0 * 32)) / 2] = reluPairBf16(T3[(((i21 * 8) + (q11 * 2)) * 4) + (p11_0 * 64)] + T12[(((((i21 * 64) + (q11 * 16)) + h19) % 128) % 64) + ((((((i5 * 2) + ((int)tidY)) * 2) + i21) % 4) * 64)], T3[((((i21 * 8) + (q11 * 2)) * 4) + 1) + (p11_0 * 64)] + T12[((((((i21 * 64) + (q11 * 16)) + h19) + 1) % 128) % 64) + ((((((i5 * 2) + ((int)tidY)) * 2) + i21) % 4) * 64)]);
            T11_w[((2 + (q11 * 8)) + (p11_0 * 32)) / 2] = reluPairBf16(T3[((((i21 * 8) + (q11 * 2)) * 4) + 2) + (p11_0 * 64)] + T12[(((((i21 * 64) + (q11 * 16)) + h19) % 128) % 64) + ((((((i5 * 2) + ((int)tidY)) * 2) + i21) % 4) * 64)], T3[((((i21 * 8) + (q11 * 2)) * 4) + 3) + (p11_0 * 64)] + T12[((((((i21 * 64) + (q11 * 16)) + h19) + 1) % 128) % 64) + ((((((i5 * 2) + ((int)tidY)) * 2) + i21) % 4) * 64)]);
            T11_w[((((q11 * 2) + 1) * 4) + (p11_0 * 32)) / 2] = reluPairBf16(T3[(((i21 * 8) + ((q11 * 2) + 1)) * 4) + (p11_0 * 64)] + T12[(((((i21 * 64) + (((q11 * 2) + 1) * 8)) + h19) % 128) % 64) + ((((((i5 * 2) + ((int)tidY)) * 2) + i21) % 4) * 64)], T3[((((i21 * 8) + ((q11 * 2) + 1)) * 4) + 1) + (p11_0 * 64)] + T12[((((((i21 * 64) + (((q11 * 2) + 1) * 8)) + h19) + 1) % 128) % 64) + ((((((i5 * 2) + ((int)tidY)) * 2) + i21) % 4) * 64)]);
            T11_w[((2 + (((q11 * 2) + 1) * 4)) + (p11_0 * 32)) / 2] = reluPairBf16(T3[((((i21 * 8) + ((q11 * 2) + 1)) * 4) + 2) + (p11_0 * 64)] + T12[(((((i21 * 64) + (((q11 * 2) + 1) * 8)) + h19) % 128) % 64) + ((((((i5 * 2) + ((int)tidY)) * 2) + i21) % 4) * 64)], T3[((((i21 * 8) + ((q11 * 2) + 1)) * 4) + 3) + (p11_0 * 64)] + T12[((((((i21 * 64) + (((q11 * 2) + 1) * 8)) + h19) + 1) % 128) % 64) + ((((((i5 * 2) + ((int)tidY)) * 2) + i21) % 4) * 64)]);
            stmatrixX4(toSmem(&T10[(((((((i21 * 64) + (((q11 * 2) + h20) * 8)) % 128) % 64) + ((((((p11_0 * 64) + h21) + h22) + h23) % 128) * 64)) + ((((((((((h24 + ((p11_0 * 64) + h25)) / 128) / 2) * 2) * h26) + (((h27 + ((i21 * 64) + (((q11 * 2) + h20) * 8))) / 128) * min32(2, h28 - ((((h24 + ((p11_0 * 64) + h25)) / 128) / 2) * 2)))) + (((h24 + ((p11_0 * 64) + h25)) / 128) - ((((h24 + ((p11_0 * 64) + h25)) / 128) / 2) * 2))) / 3) % 2) * 8192)) + ((i21 % 2) * 16384)) ^ ((((((((((i21 * 64) + (((q11 * 2) + h20) * 8)) % 128) % 64) + ((((((p11_0 * 64) + h21) + h22) + h23) % 128) * 64)) + ((((((((((h24 + ((p11_0 * 64) + h25)) / 128) / 2) * 2) * h26) + (((h27 + ((i21 * 64) + (((q11 * 2) + h20) * 8))) / 128) * min32(2, h28 - ((((h24 + ((p11_0 * 64) + h25)) / 128) / 2) * 2)))) + (((h24 + ((p11_0 * 64) + h25)) / 128) - ((((h24 + ((p11_0 * 64) + h25)) / 128) / 2) * 2))) / 3) % 2) * 8192)) + ((i21 % 2) * 16384)) / 64) % 8) * 8)]),
                T11_w[((q11 * 8) + (p11_0 * 32)) / 2],
                T11_w[(((q11 * 8) + (p11_0 * 32)) / 2) + 1],
                T11_w[(((q11 * 8) + (p11_0 * 32)) / 2) + 2],
                T11_w[(((q11 * 8) + (p11_0 * 32)) / 2) + 3]);
          }
        }
        mbarrier::arrive(toSmem(&T12_epilogue_mbar[(((((i5 * 2) + ((int)tidY)) * 2) + i21) % 4) + 4]));
        fenceAsyncProxy();
        namedBarrierSync(2 + ((int)tidY), 128);  // RAW: T10 written, then read by a TMA store
        if ((((int)threadIdx.x) + (((int)tidY) * 128)) == (h18 * 32)) {
          Hopper::cpAsyncBulkTensorTileS2G(&tmap_T7, toSmem(&T10[(((int)tidY) * 8192) + ((i21 % 2) * 16384)]), h27 + (i21 * 64), h24);
          Hopper::cpAsyncBulkCommitGroup();
        }
      }
      if ((((int)threadIdx.x) + (((int)tidY) * 128)) == (h18 * 32)) {
        Hopper::cpAsyncBulkWaitGroupRead<0>();
      }
      mbarrier::arrive(toSmem(&T8_order[h30]));
    }
  }
  __syncthreads();  // every wait on T12_epilogue_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T12
    #pragma unroll 1
    for (int s0 = 0; s0 < 8; ++s0) {
      mbarrier::inval(toSmem(&T12_epilogue_mbar[s0]));
    }
  }
  __syncthreads();  // every wait on T8_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T8, T9
    #pragma unroll 1
    for (int s0 = 0; s0 < 8; ++s0) {
      mbarrier::inval(toSmem(&T8_mbar[s0]));
    }
    // post-epilogue loop of ping-pong order of the compute warp groups
    #pragma unroll 1
    for (int s0 = 0; s0 < 4; ++s0) {
      mbarrier::inval(toSmem(&T8_order[s0]));
    }
  }
}
