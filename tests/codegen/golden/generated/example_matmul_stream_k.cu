extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<float, 2> T2, Tensor<float, 1> T3_work, Tensor<int, 1> T3_sem, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t i3 = T1.size[1];
  const int64_t T2_stride0 = T2.stride[0];
  const int64_t T2_stride1 = T2.stride[1];
  extern __shared__ __align__(1024) char smem[];

  const int64_t h0 = min64((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64), ((((int64_t)blockIdx.x) + 1) * ((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))) / min64(5, (ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64)));
  const int64_t h1 = ceilDiv(i1, 64);
  const int64_t h2 = min64((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64), (((int64_t)blockIdx.x) * ((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))) / min64(5, (ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64)));
  const int64_t h6 = ceilDiv(i3, 128);
  const int64_t h17 = min64(5, (ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64));
  const int64_t h18 = (ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64);
  const int64_t h22 = ((((int64_t)threadIdx.x) / 4) / 8) * 16;
  const int64_t h23 = (((int64_t)threadIdx.x) / 4) % 8;
  const int64_t h25 = ((((int64_t)threadIdx.x) % 4) * 2) + 1;
  const int64_t h26 = (((int64_t)threadIdx.x) % 4) * 2;
  // loop of iS48{ceilDiv(i0, 128) * ceilDiv(i3, 128)}
  for (int64_t i4 = min64((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64), (((int64_t)blockIdx.x) * ((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))) / min64(5, (ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))) / ceilDiv(i1, 64); i4 < ceilDiv(min64((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64), ((((int64_t)blockIdx.x) + 1) * ((ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))) / min64(5, (ceilDiv(i0, 128) * ceilDiv(i3, 128)) * ceilDiv(i1, 64))), ceilDiv(i1, 64)); ++i4) {
    __bfloat16* T4 = reinterpret_cast<__bfloat16*>(smem);
    __bfloat16* T5 = reinterpret_cast<__bfloat16*>(smem + 49152);
    float T3[128];
    int64_t* T4_mbar = reinterpret_cast<int64_t*>(smem + 98304);
    if (threadIdx.x == 0) {
      // pre-prologue loop of stages of T4, T5
      #pragma unroll 1
      for (int64_t s1 = 0; s1 < 3; ++s1) {
        mbarrier::init(toSmem(&T4_mbar[s1]), 1);
        mbarrier::init(toSmem(&T4_mbar[s1 + 3]), 128);
      }
    }
    __syncthreads();  // init: T4_mbar visible to every thread
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 3; ++s1) {
      mbarrier::arrive(toSmem(&T4_mbar[s1 + 3]));
    }
    if (threadIdx.x == 0) {
      const int64_t h3 = max64(h2, i4 * h1) - (i4 * h1);
      const int64_t h4 = (i4 / h6) * 128;
      const int64_t h5 = (i4 % h6) * 128;
      // prologue loop of rS17{ceilDiv(i1, 64)}
      #pragma unroll
      for (int64_t i5 = 0; i5 < min64(2, (min64(h0, (i4 * h1) + h1) - (i4 * h1)) - (max64(h2, i4 * h1) - (i4 * h1))); ++i5) {
        mbarrier::waitParity(toSmem(&T4_mbar[((i5 + h3) % 3) + 3]), (i5 / 3) % 2);
        mbarrier::arriveExpectTx(toSmem(&T4_mbar[(i5 + h3) % 3]), 32768);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T4[((i5 + h3) % 3) * 8192]), &tmap_T0, toSmem(&T4_mbar[(i5 + h3) % 3]), (i5 + h3) * 64, h4);
        // loop of iUR42{2}
        #pragma unroll
        for (int64_t i9 = 0; i9 < 2; ++i9) {
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[(i9 * 4096) + (((i5 + h3) % 3) * 8192)]), &tmap_T1, toSmem(&T4_mbar[(i5 + h3) % 3]), h5 + (i9 * 64), (i5 + h3) * 64);
        }
      }
    }
    wgmma::discard(T3);  // written by its first wgmmas (scale-d 0), not zeroed
    if ((((min64(h0, (i4 * h1) + h1) - (i4 * h1)) - (max64(h2, i4 * h1) - (i4 * h1))) - 2) <= 0) {
      // loop of iUR23{2}
      #pragma unroll
      for (int64_t i15 = 0; i15 < 2; ++i15) {
        // loop of fragment
        #pragma unroll
        for (int64_t r3 = 0; r3 < 64; ++r3) {
          T3[r3 + (i15 * 64)] = 0.0f;
        }
      }
    }
    const int64_t h7 = max64(h2, i4 * h1) - (i4 * h1);
    const int64_t h9 = (i4 / h6) * 128;
    const int64_t h12 = (i4 % h6) * 128;
    // main loop of rS17{ceilDiv(i1, 64)}
    #pragma unroll 1
    for (int64_t i5 = 0; i5 < ((min64(h0, (i4 * h1) + h1) - (i4 * h1)) - (max64(h2, i4 * h1) - (i4 * h1))) - 2; ++i5) {
      mbarrier::waitParity(toSmem(&T4_mbar[(i5 + h7) % 3]), (i5 / 3) % 2);
      wgmma::fenceOperands(T3);
      wgmma::fence();
      const int64_t h8 = ((i5 + h7) % 3) * 8192;
      // loop of rUR24{4}
      #pragma unroll
      for (int64_t i14 = 0; i14 < 4; ++i14) {
        // loop of iUR23{2}
        #pragma unroll
        for (int64_t i15 = 0; i15 < 2; ++i15) {
          wgmma::mmaM64N128K16F32Bf16<0, 1>(&T3[i15 * 64],
              wgmma::smemDescriptor(toSmem(&T4[(((i14 * 16) % 64) + (((((((int64_t)threadIdx.y) * 2) + i15) * 64) % 128) * 64)) + h8]), 16, 1024, 1),
              wgmma::smemDescriptor(toSmem(&T5[(((i14 * 16) % 64) * 64) + h8]), 8192, 1024, 1), (i5 != 0) || (i14 != 0));
        }
      }
      wgmma::commit();
      wgmma::wait<1>();
      wgmma::fenceOperands(T3);
      if ((i5 - 1) >= 0) {
        mbarrier::arrive(toSmem(&T4_mbar[(((i5 - 1) + h7) % 3) + 3]));
      }
      if (threadIdx.x == 0) {
        mbarrier::waitParity(toSmem(&T4_mbar[(((i5 + 2) + h7) % 3) + 3]), ((i5 + 2) / 3) % 2);
        mbarrier::arriveExpectTx(toSmem(&T4_mbar[((i5 + 2) + h7) % 3]), 32768);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T4[(((i5 + 2) + h7) % 3) * 8192]), &tmap_T0, toSmem(&T4_mbar[((i5 + 2) + h7) % 3]), ((i5 + 2) + h7) * 64, h9);
        const int64_t h10 = (((i5 + 2) + h7) % 3) * 8192;
        const int64_t h11 = ((i5 + 2) + h7) * 64;
        const int64_t h13 = ((i5 + 2) + h7) % 3;
        // loop of iUR42{2}
        #pragma unroll
        for (int64_t i9 = 0; i9 < 2; ++i9) {
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[(i9 * 4096) + h10]), &tmap_T1, toSmem(&T4_mbar[h13]), h12 + (i9 * 64), h11);
        }
      }
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T3);
    const int64_t h14 = max64(h2, i4 * h1) - (i4 * h1);
    // epilogue loop of rS17{ceilDiv(i1, 64)}
    #pragma unroll 1
    for (int64_t i5 = max64(((min64(h0, (i4 * h1) + h1) - (i4 * h1)) - (max64(h2, i4 * h1) - (i4 * h1))) - 2, 0); i5 < (min64(h0, (i4 * h1) + h1) - (i4 * h1)) - (max64(h2, i4 * h1) - (i4 * h1)); ++i5) {
      mbarrier::waitParity(toSmem(&T4_mbar[(i5 + h14) % 3]), (i5 / 3) % 2);
      wgmma::fenceOperands(T3);
      wgmma::fence();
      const int64_t h15 = ((i5 + h14) % 3) * 8192;
      // loop of rUR24{4}
      #pragma unroll
      for (int64_t i14 = 0; i14 < 4; ++i14) {
        // loop of iUR23{2}
        #pragma unroll
        for (int64_t i15 = 0; i15 < 2; ++i15) {
          wgmma::mmaM64N128K16F32Bf16<0, 1>(&T3[i15 * 64],
              wgmma::smemDescriptor(toSmem(&T4[(((i14 * 16) % 64) + (((((((int64_t)threadIdx.y) * 2) + i15) * 64) % 128) * 64)) + h15]), 16, 1024, 1),
              wgmma::smemDescriptor(toSmem(&T5[(((i14 * 16) % 64) * 64) + h15]), 8192, 1024, 1));
        }
      }
      wgmma::commit();
      wgmma::wait<1>();
      wgmma::fenceOperands(T3);
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T3);
    __syncthreads();  // every wait on T4_mbar done before inval
    if (threadIdx.x == 0) {
      // post-epilogue loop of stages of T4, T5
      #pragma unroll 1
      for (int64_t s1 = 0; s1 < 6; ++s1) {
        mbarrier::inval(toSmem(&T4_mbar[s1]));
      }
    }
    if (!(((max64(h2, i4 * h1) - (i4 * h1)) == 0) && ((min64(h0, (i4 * h1) + h1) - (i4 * h1)) == h1))) {
      const int64_t h16 = ((((int64_t)blockIdx.x) * 2) + min64(1, max64(0, (i4 * h1) - h2))) * 128;
      // loop of partials of T3
      #pragma unroll
      for (int64_t g3 = 0; g3 < 128; ++g3) {
        T3_work.data[((h16 + g3) * 128) + ((int64_t)threadIdx.x)] = T3[g3];
      }
      gridFence();
      __syncthreads();  // every thread's partial of T3 written and fenced before the arrival
    }
    const int64_t last_T3 = (((max64(h2, i4 * h1) - (i4 * h1)) == 0) && ((min64(h0, (i4 * h1) + h1) - (i4 * h1)) == h1)) ? 1 : semaphoreArrive(&T3_sem.data[i4], ((((((((i4 * h1) + h1) - 1) + 1) * h17) - 1) / h18) - (((((i4 * h1) + 1) * h17) - 1) / h18)) + 1, threadIdx.x == 0);
    if (last_T3 != 0) {
      if (!(((max64(h2, i4 * h1) - (i4 * h1)) == 0) && ((min64(h0, (i4 * h1) + h1) - (i4 * h1)) == h1))) {
        // loop of partials of T3
        #pragma unroll
        for (int64_t g3 = 0; g3 < 128; ++g3) {
          T3[g3] = 0.0f;
        }
        const int64_t h20 = i4 * h1;
        // loop of the tile's segments, in K order
        for (int64_t z3 = ((((i4 * h1) + 1) * h17) - 1) / h18; z3 < (((((((i4 * h1) + h1) - 1) + 1) * h17) - 1) / h18) + 1; ++z3) {
          const int64_t h19 = ((z3 * 2) + min64(1, max64(0, h20 - min64(h18, (z3 * h18) / h17)))) * 128;
          // loop of partials of T3
          #pragma unroll
          for (int64_t g3 = 0; g3 < 128; ++g3) {
            T3[g3] = T3[g3] + T3_work.data[((h19 + g3) * 128) + ((int64_t)threadIdx.x)];
          }
        }
        if (((int64_t)threadIdx.x) == 0) {
          T3_sem.data[i4] = 0;
        }
      }
      const int64_t h21 = (i4 / h6) * 128;
      const int64_t h24 = (i4 % h6) * 128;
      // loop of iUR52{2}
      #pragma unroll
      for (int64_t i20 = 0; i20 < 2; ++i20) {
        // loop of iUR57{16}
        #pragma unroll
        for (int64_t i22 = 0; i22 < 16; ++i22) {
          // loop of iUR55{2}
          #pragma unroll
          for (int64_t i23 = 0; i23 < 2; ++i23) {
            if (((h21 + ((((((int64_t)threadIdx.y) * 2) + i20) * 64) + (h22 + ((i23 * 8) + h23)))) < i0) && ((h24 + ((i22 * 8) + h25)) < i3)) {
              *reinterpret_cast<float2*>(&T2.data[((h21 + ((((((int64_t)threadIdx.y) * 2) + i20) * 64) + (h22 + ((i23 * 8) + h23)))) * T2_stride0) + ((h24 + ((i22 * 8) + h26)) * T2_stride1)]) = float2{T3[((i22 * 4) + (i23 * 2)) + (i20 * 64)], T3[(((i22 * 4) + (i23 * 2)) + (i20 * 64)) + 1]};
            }
          }
        }
      }
    }
  }
}
