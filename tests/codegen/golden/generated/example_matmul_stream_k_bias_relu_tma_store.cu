extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<float, 1> T3, Tensor<__bfloat16, 2> T7, Tensor<float, 1> T2_work, Tensor<int, 1> T2_sem, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T3, const __grid_constant__ TensorMap tmap_T7) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t i3 = T1.size[1];
  const int64_t i4 = T3.size[0];
  extern __shared__ __align__(1024) char smem[];

  int64_t* T12_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T12_mbar[0]), 1);
  }
  __syncthreads();  // init: T12_mbar visible to every thread
  const int64_t h0 = ceilDiv(i4, 128);
  const int64_t h1 = min64((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64), ((((int64_t)blockIdx.x) + 1) * ((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))) / min64(5, (ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64)));
  const int64_t h2 = ceilDiv(i1, 64);
  const int64_t h3 = min64((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64), (((int64_t)blockIdx.x) * ((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))) / min64(5, (ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64)));
  const int64_t h7 = ceilDiv(i3, 128);
  const int64_t h18 = min64(5, (ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64));
  const int64_t h19 = (ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64);
  const int64_t h22 = min64((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64), (((int64_t)blockIdx.x) * ((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))) / min64(5, (ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))) / ceilDiv(i1, 64);
  const int64_t h23 = (((int64_t)threadIdx.x) % 4) * 2;
  const int64_t h24 = ((((int64_t)threadIdx.x) % 32) / 8) / 2;
  const int64_t h25 = (((((((int64_t)threadIdx.x) / 32) * 32) + (((((int64_t)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16;
  const int64_t h26 = (((((int64_t)threadIdx.x) % 32) / 8) % 2) * 8;
  const int64_t h27 = ((((((int64_t)threadIdx.x) / 32) * 32) + (((((int64_t)threadIdx.x) % 32) % 8) * 4)) / 4) % 8;
  // loop of iS143{ceilDiv(i0, 128) * ceilDiv(i3, 128)}
  for (int64_t i5 = min64((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64), (((int64_t)blockIdx.x) * ((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))) / min64(5, (ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))) / ceilDiv(i1, 64); i5 < ceilDiv(min64((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64), ((((int64_t)blockIdx.x) + 1) * ((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))) / min64(5, (ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))), ceilDiv(i1, 64)); ++i5) {
    __bfloat16* T8 = reinterpret_cast<__bfloat16*>(smem + 1024);
    __bfloat16* T9 = reinterpret_cast<__bfloat16*>(smem + 50176);
    float T2[128];
    float* T12 = reinterpret_cast<float*>(smem + 128);
    uint32_t T11_w[64];  // T11 in pairs: written a pair at a time
    __bfloat16* T10 = reinterpret_cast<__bfloat16*>(smem + 1024);
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T12_mbar[0]), 512);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T12[0]), &tmap_T3, toSmem(&T12_mbar[0]), (i5 % h0) * 128);
    }
    int64_t* T8_mbar = reinterpret_cast<int64_t*>(smem + 8);
    if (threadIdx.x == 0) {
      // pre-prologue loop of stages of T8, T9
      #pragma unroll 1
      for (int64_t s1 = 0; s1 < 3; ++s1) {
        mbarrier::init(toSmem(&T8_mbar[s1]), 1);
        mbarrier::init(toSmem(&T8_mbar[s1 + 3]), 128);
      }
    }
    __syncthreads();  // init: T8_mbar visible to every thread
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 3; ++s1) {
      mbarrier::arrive(toSmem(&T8_mbar[s1 + 3]));
    }
    if (threadIdx.x == 0) {
      const int64_t h4 = max64(h3, i5 * h2) - (i5 * h2);
      const int64_t h5 = (i5 / h7) * 128;
      const int64_t h6 = (i5 % h7) * 128;
      // prologue loop of rS24{ceilDiv(i1, 64)}
      #pragma unroll
      for (int64_t i6 = 0; i6 < min64(2, (min64(h1, (i5 * h2) + h2) - (i5 * h2)) - (max64(h3, i5 * h2) - (i5 * h2))); ++i6) {
        mbarrier::waitParity(toSmem(&T8_mbar[((i6 + h4) % 3) + 3]), (i6 / 3) % 2);
        mbarrier::arriveExpectTx(toSmem(&T8_mbar[(i6 + h4) % 3]), 32768);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T8[((i6 + h4) % 3) * 8192]), &tmap_T0, toSmem(&T8_mbar[(i6 + h4) % 3]), (i6 + h4) * 64, h5);
        // loop of iUR49{2}
        #pragma unroll
        for (int64_t i10 = 0; i10 < 2; ++i10) {
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T9[(i10 * 4096) + (((i6 + h4) % 3) * 8192)]), &tmap_T1, toSmem(&T8_mbar[(i6 + h4) % 3]), h6 + (i10 * 64), (i6 + h4) * 64);
        }
      }
    }
    wgmma::discard(T2);  // written by its first wgmmas (scale-d 0), not zeroed
    if ((((min64(h1, (i5 * h2) + h2) - (i5 * h2)) - (max64(h3, i5 * h2) - (i5 * h2))) - 2) <= 0) {
      // loop of iUR30{2}
      #pragma unroll
      for (int64_t i16 = 0; i16 < 2; ++i16) {
        // loop of fragment
        #pragma unroll
        for (int64_t r2 = 0; r2 < 64; ++r2) {
          T2[r2 + (i16 * 64)] = 0.0f;
        }
      }
    }
    const int64_t h8 = max64(h3, i5 * h2) - (i5 * h2);
    const int64_t h10 = (i5 / h7) * 128;
    const int64_t h13 = (i5 % h7) * 128;
    // main loop of rS24{ceilDiv(i1, 64)}
    #pragma unroll 1
    for (int64_t i6 = 0; i6 < ((min64(h1, (i5 * h2) + h2) - (i5 * h2)) - (max64(h3, i5 * h2) - (i5 * h2))) - 2; ++i6) {
      mbarrier::waitParity(toSmem(&T8_mbar[(i6 + h8) % 3]), (i6 / 3) % 2);
      wgmma::fenceOperands(T2);
      wgmma::fence();
      const int64_t h9 = ((i6 + h8) % 3) * 8192;
      // loop of rUR31{4}
      #pragma unroll
      for (int64_t i15 = 0; i15 < 4; ++i15) {
        // loop of iUR30{2}
        #pragma unroll
        for (int64_t i16 = 0; i16 < 2; ++i16) {
          wgmma::mmaM64N128K16F32Bf16<0, 1>(&T2[i16 * 64],
              wgmma::smemDescriptor(toSmem(&T8[(((i15 * 16) % 64) + (((((((int64_t)threadIdx.y) * 2) + i16) * 64) % 128) * 64)) + h9]), 16, 1024, 1),
              wgmma::smemDescriptor(toSmem(&T9[(((i15 * 16) % 64) * 64) + h9]), 8192, 1024, 1), (i6 != 0) || (i15 != 0));
        }
      }
      wgmma::commit();
      wgmma::wait<1>();
      wgmma::fenceOperands(T2);
      if ((i6 - 1) >= 0) {
        mbarrier::arrive(toSmem(&T8_mbar[(((i6 - 1) + h8) % 3) + 3]));
      }
      if (threadIdx.x == 0) {
        mbarrier::waitParity(toSmem(&T8_mbar[(((i6 + 2) + h8) % 3) + 3]), ((i6 + 2) / 3) % 2);
        mbarrier::arriveExpectTx(toSmem(&T8_mbar[((i6 + 2) + h8) % 3]), 32768);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T8[(((i6 + 2) + h8) % 3) * 8192]), &tmap_T0, toSmem(&T8_mbar[((i6 + 2) + h8) % 3]), ((i6 + 2) + h8) * 64, h10);
        const int64_t h11 = (((i6 + 2) + h8) % 3) * 8192;
        const int64_t h12 = ((i6 + 2) + h8) * 64;
        const int64_t h14 = ((i6 + 2) + h8) % 3;
        // loop of iUR49{2}
        #pragma unroll
        for (int64_t i10 = 0; i10 < 2; ++i10) {
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T9[(i10 * 4096) + h11]), &tmap_T1, toSmem(&T8_mbar[h14]), h13 + (i10 * 64), h12);
        }
      }
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T2);
    const int64_t h15 = max64(h3, i5 * h2) - (i5 * h2);
    // epilogue loop of rS24{ceilDiv(i1, 64)}
    #pragma unroll 1
    for (int64_t i6 = max64(((min64(h1, (i5 * h2) + h2) - (i5 * h2)) - (max64(h3, i5 * h2) - (i5 * h2))) - 2, 0); i6 < (min64(h1, (i5 * h2) + h2) - (i5 * h2)) - (max64(h3, i5 * h2) - (i5 * h2)); ++i6) {
      mbarrier::waitParity(toSmem(&T8_mbar[(i6 + h15) % 3]), (i6 / 3) % 2);
      wgmma::fenceOperands(T2);
      wgmma::fence();
      const int64_t h16 = ((i6 + h15) % 3) * 8192;
      // loop of rUR31{4}
      #pragma unroll
      for (int64_t i15 = 0; i15 < 4; ++i15) {
        // loop of iUR30{2}
        #pragma unroll
        for (int64_t i16 = 0; i16 < 2; ++i16) {
          wgmma::mmaM64N128K16F32Bf16<0, 1>(&T2[i16 * 64],
              wgmma::smemDescriptor(toSmem(&T8[(((i15 * 16) % 64) + (((((((int64_t)threadIdx.y) * 2) + i16) * 64) % 128) * 64)) + h16]), 16, 1024, 1),
              wgmma::smemDescriptor(toSmem(&T9[(((i15 * 16) % 64) * 64) + h16]), 8192, 1024, 1));
        }
      }
      wgmma::commit();
      wgmma::wait<1>();
      wgmma::fenceOperands(T2);
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T2);
    __syncthreads();  // every wait on T8_mbar done before inval
    if (threadIdx.x == 0) {
      // post-epilogue loop of stages of T8, T9
      #pragma unroll 1
      for (int64_t s1 = 0; s1 < 6; ++s1) {
        mbarrier::inval(toSmem(&T8_mbar[s1]));
      }
    }
    if (!(((max64(h3, i5 * h2) - (i5 * h2)) == 0) && ((min64(h1, (i5 * h2) + h2) - (i5 * h2)) == h2))) {
      const int64_t h17 = ((((int64_t)blockIdx.x) * 2) + min64(1, max64(0, (i5 * h2) - h3))) * 128;
      // loop of partials of T2
      #pragma unroll
      for (int64_t g2 = 0; g2 < 128; ++g2) {
        T2_work.data[((h17 + g2) * 128) + ((int64_t)threadIdx.x)] = T2[g2];
      }
      gridFence();
      __syncthreads();  // every thread's partial of T2 written and fenced before the arrival
    }
    const int64_t last_T2 = (((max64(h3, i5 * h2) - (i5 * h2)) == 0) && ((min64(h1, (i5 * h2) + h2) - (i5 * h2)) == h2)) ? 1 : semaphoreArrive(&T2_sem.data[i5], ((((((((i5 * h2) + h2) - 1) + 1) * h18) - 1) / h19) - (((((i5 * h2) + 1) * h18) - 1) / h19)) + 1, threadIdx.x == 0);
    if (last_T2 != 0) {
      if (!(((max64(h3, i5 * h2) - (i5 * h2)) == 0) && ((min64(h1, (i5 * h2) + h2) - (i5 * h2)) == h2))) {
        // loop of partials of T2
        #pragma unroll
        for (int64_t g2 = 0; g2 < 128; ++g2) {
          T2[g2] = 0.0f;
        }
        const int64_t h21 = i5 * h2;
        // loop of the tile's segments, in K order
        for (int64_t z2 = ((((i5 * h2) + 1) * h18) - 1) / h19; z2 < (((((((i5 * h2) + h2) - 1) + 1) * h18) - 1) / h19) + 1; ++z2) {
          const int64_t h20 = ((z2 * 2) + min64(1, max64(0, h21 - min64(h19, (z2 * h19) / h18)))) * 128;
          // loop of partials of T2
          #pragma unroll
          for (int64_t g2 = 0; g2 < 128; ++g2) {
            T2[g2] = T2[g2] + T2_work.data[((h20 + g2) * 128) + ((int64_t)threadIdx.x)];
          }
        }
        if (((int64_t)threadIdx.x) == 0) {
          T2_sem.data[i5] = 0;
        }
      }
    }
    mbarrier::waitParity(toSmem(&T12_mbar[0]), (i5 - h22) % 2);
    // loop of iUR121{2}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 2; ++i23) {
      // loop of iUR126{16}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 16; ++i25) {
        // loop of iUR124{2}
        #pragma unroll
        for (int64_t i26 = 0; i26 < 2; ++i26) {
          // loop of iUR129{2}
          #pragma unroll
          for (int64_t i27 = 0; i27 < 2; ++i27) {
            // T4 (Local, 1 x float) is allocated but unused
            // T5 (Local, 1 x float) is allocated but unused
            // T6 (Local, 1 x float) is allocated but unused
          }
        }
      }
    }
    __syncthreads();  // WAR: T10 reuses the memory of T8
    if (last_T2 != 0) {
      // loop of stmatrix
      #pragma unroll
      for (int64_t p11_0 = 0; p11_0 < 2; ++p11_0) {
        // loop of stmatrix
        #pragma unroll
        for (int64_t q11 = 0; q11 < 8; ++q11) {
          T11_w[((q11 * 8) + (p11_0 * 64)) / 2] = reluPairBf16(T2[(q11 * 8) + (p11_0 * 64)] + T12[((q11 * 16) + h23) % 128], T2[((q11 * 8) + 1) + (p11_0 * 64)] + T12[(((q11 * 16) + h23) + 1) % 128]);
          T11_w[((2 + (q11 * 8)) + (p11_0 * 64)) / 2] = reluPairBf16(T2[((q11 * 8) + 2) + (p11_0 * 64)] + T12[((q11 * 16) + h23) % 128], T2[((q11 * 8) + 3) + (p11_0 * 64)] + T12[(((q11 * 16) + h23) + 1) % 128]);
          T11_w[((((q11 * 2) + 1) * 4) + (p11_0 * 64)) / 2] = reluPairBf16(T2[(((q11 * 2) + 1) * 4) + (p11_0 * 64)] + T12[((((q11 * 2) + 1) * 8) + h23) % 128], T2[((((q11 * 2) + 1) * 4) + 1) + (p11_0 * 64)] + T12[(((((q11 * 2) + 1) * 8) + h23) + 1) % 128]);
          T11_w[((2 + (((q11 * 2) + 1) * 4)) + (p11_0 * 64)) / 2] = reluPairBf16(T2[((((q11 * 2) + 1) * 4) + 2) + (p11_0 * 64)] + T12[((((q11 * 2) + 1) * 8) + h23) % 128], T2[((((q11 * 2) + 1) * 4) + 3) + (p11_0 * 64)] + T12[(((((q11 * 2) + 1) * 8) + h23) + 1) % 128]);
          stmatrixX4(toSmem(&T10[(((((((q11 * 2) + h24) * 8) % 128) % 64) + ((((((((((int64_t)threadIdx.y) * 2) + p11_0) * 64) + h25) + h26) + h27) % 128) * 64)) + ((((((q11 * 2) + h24) * 8) % 128) / 64) * 8192)) ^ ((((((((((q11 * 2) + h24) * 8) % 128) % 64) + ((((((((((int64_t)threadIdx.y) * 2) + p11_0) * 64) + h25) + h26) + h27) % 128) * 64)) + ((((((q11 * 2) + h24) * 8) % 128) / 64) * 8192)) / 64) % 8) * 8)]),
              T11_w[((q11 * 8) + (p11_0 * 64)) / 2],
              T11_w[(((q11 * 8) + (p11_0 * 64)) / 2) + 1],
              T11_w[(((q11 * 8) + (p11_0 * 64)) / 2) + 2],
              T11_w[(((q11 * 8) + (p11_0 * 64)) / 2) + 3]);
        }
      }
    }
    fenceAsyncProxy();
    __syncthreads();  // RAW: T10 written, then read by a TMA store
    if (last_T2 != 0) {
      if (threadIdx.x == 0) {
        const int64_t h28 = (i5 / h7) * 128;
        const int64_t h29 = (i5 % h7) * 128;
        // loop of iUR144{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          Hopper::cpAsyncBulkTensorTileS2G(&tmap_T7, toSmem(&T10[i31 * 8192]), h29 + (i31 * 64), h28);
          Hopper::cpAsyncBulkCommitGroup();
        }
      }
    }
    if (threadIdx.x == 0) {
      Hopper::cpAsyncBulkWaitGroupRead<0>();
    }
    __syncthreads();  // WAR: next iteration takes back the memory of T8 from T10
  }
  __syncthreads();  // every wait on T12_mbar done before inval
  if (threadIdx.x == 0) {
    mbarrier::inval(toSmem(&T12_mbar[0]));
  }
}
