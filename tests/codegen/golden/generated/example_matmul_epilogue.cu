extern "C" __global__ void __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<float, 1> T2, Tensor<__bfloat16, 2> T7, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2, const __grid_constant__ TensorMap tmap_T7) {
  const int i0 = T0.size[0];
  const int i1 = T0.size[1];
  const int i3 = T1.size[1];
  const int i4 = T2.size[0];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  int64_t* T12_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && tidY == 0) {
    mbarrier::init(toSmem(&T12_mbar[0]), 1);
  }
  __syncthreads();  // init: T12_mbar visible to every thread
  __bfloat16* T8 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T9 = reinterpret_cast<__bfloat16*>(smem + 50176);
  int64_t* T8_mbar = reinterpret_cast<int64_t*>(smem + 8);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T8, T9
    #pragma unroll 1
    for (int s0 = 0; s0 < 3; ++s0) {
      mbarrier::init(toSmem(&T8_mbar[s0]), 1);
      mbarrier::init(toSmem(&T8_mbar[s0 + 3]), 256);
    }
  }
  __syncthreads();  // init: T8_mbar visible to every thread
  if (((int)tidY) >= (((int)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    const int h0 = ceilDiv32(i0, 128) * ceilDiv32(i3, 256);
    const int h1 = ceilDiv32(i1, 64);
    const int h5 = ceilDiv32(i3, 256) * 2;
    const int h6 = ceilDiv32(i0, 128);
    // AsyncWarp loop of iS160{ceilDiv(ceilDiv(i0, 128) * ceilDiv(i3, 256), 3)}
    #pragma unroll 1
    for (int i5 = 0; i5 < ceilDiv32(ceilDiv32(i0, 128) * ceilDiv32(i3, 256), 3); ++i5) {
      if (((i5 * 3) + ((int)blockIdx.x)) >= h0) {
        continue;
      }
      if (threadIdx.x == 0 && tidY == 2) {
        const int h2 = i5 * h1;
        const int h3 = (((((i5 * 3) + ((int)blockIdx.x)) / h5) * 2) + ((((i5 * 3) + ((int)blockIdx.x)) % h5) % min32(2, h6 - ((((i5 * 3) + ((int)blockIdx.x)) / h5) * 2)))) * 128;
        const int h4 = ((((i5 * 3) + ((int)blockIdx.x)) % h5) / min32(2, h6 - ((((i5 * 3) + ((int)blockIdx.x)) / h5) * 2))) * 256;
        // loop of rS24{ceilDiv(i1, 64)}
        for (int i7 = 0; i7 < h1; ++i7) {
          mbarrier::waitParity(toSmem(&T8_mbar[((h2 + i7) % 3) + 3]), ((h2 + i7) / 3) % 2);
          mbarrier::arriveExpectTx(toSmem(&T8_mbar[(h2 + i7) % 3]), 49152);
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T8[((h2 + i7) % 3) * 8192]), &tmap_T0, toSmem(&T8_mbar[(h2 + i7) % 3]), i7 * 64, h3);
          // loop of iUR55{4}
          #pragma unroll
          for (int i11 = 0; i11 < 4; ++i11) {
            Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T9[(i11 * 4096) + (((h2 + i7) % 3) * 16384)]), &tmap_T1, toSmem(&T8_mbar[(h2 + i7) % 3]), h4 + (i11 * 64), i7 * 64);
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
      mbarrier::arrive(toSmem(&T8_mbar[s0 + 3]));
    }
    const int h7 = ceilDiv32(i0, 128) * ceilDiv32(i3, 256);
    const int h8 = ceilDiv32(i4, 256) * 2;
    const int h9 = ceilDiv32(i0, 128);
    const int h10 = ceilDiv32(i1, 64);
    const int h12 = ceilDiv32(i1, 64) - 1;
    const int h13 = (((int)threadIdx.x) % 4) * 2;
    const int h14 = ((((int)threadIdx.x) % 32) / 8) / 2;
    const int h15 = (((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16;
    const int h16 = (((((int)threadIdx.x) % 32) / 8) % 2) * 8;
    const int h17 = ((((((int)threadIdx.x) / 32) * 32) + (((((int)threadIdx.x) % 32) % 8) * 4)) / 4) % 8;
    const int h20 = ceilDiv32(i3, 256) * 2;
    // ComputeWarp loop of iS160{ceilDiv(ceilDiv(i0, 128) * ceilDiv(i3, 256), 3)}
    #pragma unroll 1
    for (int i5 = 0; i5 < ceilDiv32(ceilDiv32(i0, 128) * ceilDiv32(i3, 256), 3); ++i5) {
      if (((i5 * 3) + ((int)blockIdx.x)) >= h7) {
        continue;
      }
      float T3[128];
      float* T12 = reinterpret_cast<float*>(smem + 148480);
      uint32_t T11_w[64];  // T11 in pairs: written a pair at a time
      __bfloat16* T10 = reinterpret_cast<__bfloat16*>(smem + 149504);
      if (threadIdx.x == 0 && tidY == 0) {
        mbarrier::arriveExpectTx(toSmem(&T12_mbar[0]), 1024);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T12[0]), &tmap_T2, toSmem(&T12_mbar[0]), ((((i5 * 3) + ((int)blockIdx.x)) % h8) / min32(2, h9 - ((((i5 * 3) + ((int)blockIdx.x)) / h8) * 2))) * 256);
      }
      wgmma::discard(T3);  // written by its first wgmmas (scale-d 0), not zeroed
      if (h10 <= 0) {
        // loop of iUR32{1}
        #pragma unroll
        for (int i17 = 0; i17 < 1; ++i17) {
          // loop of fragment
          #pragma unroll
          for (int r3 = 0; r3 < 128; ++r3) {
            T3[r3 + (i17 * 128)] = 0.0f;
          }
        }
      }
      const int h11 = i5 * h10;
      // loop of rS24{ceilDiv(i1, 64)}
      for (int i7 = 0; i7 < h10; ++i7) {
        mbarrier::waitParity(toSmem(&T8_mbar[(h11 + i7) % 3]), ((h11 + i7) / 3) % 2);
        wgmma::fenceOperands(T3);
        wgmma::fence();
        // loop of rUR33{4}
        #pragma unroll
        for (int i16 = 0; i16 < 4; ++i16) {
          // loop of iUR32{1}
          #pragma unroll
          for (int i17 = 0; i17 < 1; ++i17) {
            wgmma::mmaM64N256K16F32Bf16<0, 1>(&T3[i17 * 128],
                wgmma::smemDescriptor(toSmem(&T8[(((i16 * 16) % 64) + ((((((int)tidY) + i17) * 64) % 128) * 64)) + (((h11 + i7) % 3) * 8192)]), 16, 1024, 1),
                wgmma::smemDescriptor(toSmem(&T9[(((i16 * 16) % 64) * 64) + (((h11 + i7) % 3) * 16384)]), 8192, 1024, 1), (i7 != 0) || (i16 != 0));
          }
        }
        wgmma::commit();
        wgmma::wait<1>();
        wgmma::fenceOperands(T3);
        if ((i7 - 1) >= 0) {
          mbarrier::arrive(toSmem(&T8_mbar[(((h11 + i7) - 1) % 3) + 3]));
        }
      }
      wgmma::wait<0>();
      wgmma::fenceOperands(T3);
      if (h12 >= 0) {
        mbarrier::arrive(toSmem(&T8_mbar[(((i5 * h10) + h12) % 3) + 3]));
      }
      mbarrier::waitParity(toSmem(&T12_mbar[0]), i5 % 2);
      // loop of iUR135{1}
      #pragma unroll
      for (int i24 = 0; i24 < 1; ++i24) {
        // loop of iUR140{32}
        #pragma unroll
        for (int i26 = 0; i26 < 32; ++i26) {
          // loop of iUR138{2}
          #pragma unroll
          for (int i27 = 0; i27 < 2; ++i27) {
            // loop of iUR143{2}
            #pragma unroll
            for (int i28 = 0; i28 < 2; ++i28) {
              // T4 (Local, 1 x float) is allocated but unused
              // T5 (Local, 1 x float) is allocated but unused
              // T6 (Local, 1 x float) is allocated but unused
            }
          }
        }
      }
      // loop of stmatrix
      #pragma unroll
      for (int p11_0 = 0; p11_0 < 1; ++p11_0) {
        // loop of stmatrix
        #pragma unroll
        for (int q11 = 0; q11 < 16; ++q11) {
          T11_w[((q11 * 8) + (p11_0 * 128)) / 2] = reluPairBf16(T3[(q11 * 8) + (p11_0 * 128)] + T12[((q11 * 16) + h13) % 256], T3[((q11 * 8) + 1) + (p11_0 * 128)] + T12[(((q11 * 16) + h13) + 1) % 256]);
          T11_w[((2 + (q11 * 8)) + (p11_0 * 128)) / 2] = reluPairBf16(T3[((q11 * 8) + 2) + (p11_0 * 128)] + T12[((q11 * 16) + h13) % 256], T3[((q11 * 8) + 3) + (p11_0 * 128)] + T12[(((q11 * 16) + h13) + 1) % 256]);
          T11_w[((((q11 * 2) + 1) * 4) + (p11_0 * 128)) / 2] = reluPairBf16(T3[(((q11 * 2) + 1) * 4) + (p11_0 * 128)] + T12[((((q11 * 2) + 1) * 8) + h13) % 256], T3[((((q11 * 2) + 1) * 4) + 1) + (p11_0 * 128)] + T12[(((((q11 * 2) + 1) * 8) + h13) + 1) % 256]);
          T11_w[((2 + (((q11 * 2) + 1) * 4)) + (p11_0 * 128)) / 2] = reluPairBf16(T3[((((q11 * 2) + 1) * 4) + 2) + (p11_0 * 128)] + T12[((((q11 * 2) + 1) * 8) + h13) % 256], T3[((((q11 * 2) + 1) * 4) + 3) + (p11_0 * 128)] + T12[(((((q11 * 2) + 1) * 8) + h13) + 1) % 256]);
          stmatrixX4(toSmem(&T10[(((((((q11 * 2) + h14) * 8) % 256) % 64) + (((((((((int)tidY) + p11_0) * 64) + h15) + h16) + h17) % 128) * 64)) + ((((((q11 * 2) + h14) * 8) % 256) / 64) * 8192)) ^ ((((((((((q11 * 2) + h14) * 8) % 256) % 64) + (((((((((int)tidY) + p11_0) * 64) + h15) + h16) + h17) % 128) * 64)) + ((((((q11 * 2) + h14) * 8) % 256) / 64) * 8192)) / 64) % 8) * 8)]),
              T11_w[((q11 * 8) + (p11_0 * 128)) / 2],
              T11_w[(((q11 * 8) + (p11_0 * 128)) / 2) + 1],
              T11_w[(((q11 * 8) + (p11_0 * 128)) / 2) + 2],
              T11_w[(((q11 * 8) + (p11_0 * 128)) / 2) + 3]);
        }
      }
      fenceAsyncProxy();
      namedBarrierSync(1, 256);  // RAW: T10 written, then read by a TMA store
      if (threadIdx.x == 0 && tidY == 0) {
        const int h18 = (((((i5 * 3) + ((int)blockIdx.x)) / h20) * 2) + ((((i5 * 3) + ((int)blockIdx.x)) % h20) % min32(2, h9 - ((((i5 * 3) + ((int)blockIdx.x)) / h20) * 2)))) * 128;
        const int h19 = ((((i5 * 3) + ((int)blockIdx.x)) % h20) / min32(2, h9 - ((((i5 * 3) + ((int)blockIdx.x)) / h20) * 2))) * 256;
        // loop of iUR162{4}
        #pragma unroll
        for (int i32 = 0; i32 < 4; ++i32) {
          Hopper::cpAsyncBulkTensorTileS2G(&tmap_T7, toSmem(&T10[i32 * 8192]), h19 + (i32 * 64), h18);
          Hopper::cpAsyncBulkCommitGroup();
        }
      }
      if (threadIdx.x == 0 && tidY == 0) {
        Hopper::cpAsyncBulkWaitGroupRead<0>();
      }
      namedBarrierSync(1, 256);  // WAR: T10 is rewritten next iteration
    }
  }
  __syncthreads();  // every wait on T8_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T8, T9
    #pragma unroll 1
    for (int s0 = 0; s0 < 6; ++s0) {
      mbarrier::inval(toSmem(&T8_mbar[s0]));
    }
  }
  __syncthreads();  // every wait on T12_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    mbarrier::inval(toSmem(&T12_mbar[0]));
  }
}
