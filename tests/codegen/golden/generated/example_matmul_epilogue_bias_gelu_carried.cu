extern "C" __global__ void __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<float, 1> T2, Tensor<__bfloat16, 2> T14, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2, const __grid_constant__ TensorMap tmap_T14) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t i3 = T1.size[1];
  const int64_t i4 = T2.size[0];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  int64_t* T19_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && tidY == 0) {
    mbarrier::init(toSmem(&T19_mbar[0]), 1);
  }
  __syncthreads();  // init: T19_mbar visible to every thread
  __bfloat16* T15 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T16 = reinterpret_cast<__bfloat16*>(smem + 99328);
  __bfloat16* T17 = reinterpret_cast<__bfloat16*>(smem + 148480);
  int64_t* T15_mbar = reinterpret_cast<int64_t*>(smem + 8);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T15, T16
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 3; ++s0) {
      mbarrier::init(toSmem(&T15_mbar[s0]), 1);
      mbarrier::init(toSmem(&T15_mbar[s0 + 3]), 256);
    }
  }
  __syncthreads();  // init: T15_mbar visible to every thread
  if (((int64_t)tidY) >= (((int64_t)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    const int64_t h0 = ceilDiv(i0, 256) * ceilDiv(i3, 128);
    const int64_t h1 = ceilDiv(i1, 64);
    const int64_t h5 = ceilDiv(i3, 128) * 2;
    const int64_t h6 = ceilDiv(i0, 256);
    // AsyncWarp loop of iS343{ceilDiv(ceilDiv(i0, 256) * ceilDiv(i3, 128), 3)}
    #pragma unroll 1
    for (int64_t i5 = 0; i5 < ceilDiv(ceilDiv(i0, 256) * ceilDiv(i3, 128), 3); ++i5) {
      if (((i5 * 3) + ((int64_t)blockIdx.x)) >= h0) {
        continue;
      }
      if (threadIdx.x == 0 && tidY == 2) {
        const int64_t h2 = i5 * h1;
        const int64_t h3 = (((((i5 * 3) + ((int64_t)blockIdx.x)) / h5) * 2) + ((((i5 * 3) + ((int64_t)blockIdx.x)) % h5) % min64(2, h6 - ((((i5 * 3) + ((int64_t)blockIdx.x)) / h5) * 2)))) * 256;
        const int64_t h4 = ((((i5 * 3) + ((int64_t)blockIdx.x)) % h5) / min64(2, h6 - ((((i5 * 3) + ((int64_t)blockIdx.x)) / h5) * 2))) * 128;
        // loop of rS38{ceilDiv(i1, 64)}
        for (int64_t i7 = 0; i7 < h1; ++i7) {
          mbarrier::waitParity(toSmem(&T15_mbar[((h2 + i7) % 3) + 3]), ((h2 + i7) / 3) % 2);
          mbarrier::arriveExpectTx(toSmem(&T15_mbar[(h2 + i7) % 3]), 49152);
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T15[((h2 + i7) % 3) * 16384]), &tmap_T0, toSmem(&T15_mbar[(h2 + i7) % 3]), i7 * 64, h3);
          // loop of iUR69{2}
          #pragma unroll
          for (int64_t i11 = 0; i11 < 2; ++i11) {
            Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T16[(i11 * 4096) + (((h2 + i7) % 3) * 8192)]), &tmap_T1, toSmem(&T15_mbar[(h2 + i7) % 3]), h4 + (i11 * 64), i7 * 64);
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
      mbarrier::arrive(toSmem(&T15_mbar[s0 + 3]));
    }
    const int64_t h7 = ceilDiv(i0, 256) * ceilDiv(i3, 128);
    const int64_t h8 = ceilDiv(i4, 128) * 2;
    const int64_t h9 = ceilDiv(i0, 256);
    const int64_t h10 = ceilDiv(i1, 64);
    const int64_t h12 = ceilDiv(i1, 64) - 1;
    const int64_t h13 = (((int64_t)threadIdx.x) % 4) * 2;
    const int64_t h14 = ((((int64_t)threadIdx.x) % 32) / 8) / 2;
    const int64_t h15 = (((((((int64_t)threadIdx.x) / 32) * 32) + (((((int64_t)threadIdx.x) % 32) % 8) * 4)) / 4) / 8) * 16;
    const int64_t h16 = (((((int64_t)threadIdx.x) % 32) / 8) % 2) * 8;
    const int64_t h17 = ((((((int64_t)threadIdx.x) / 32) * 32) + (((((int64_t)threadIdx.x) % 32) % 8) * 4)) / 4) % 8;
    const int64_t h20 = ceilDiv(i3, 128) * 2;
    // ComputeWarp loop of iS343{ceilDiv(ceilDiv(i0, 256) * ceilDiv(i3, 128), 3)}
    #pragma unroll 1
    for (int64_t i5 = 0; i5 < ceilDiv(ceilDiv(i0, 256) * ceilDiv(i3, 128), 3); ++i5) {
      if (((i5 * 3) + ((int64_t)blockIdx.x)) >= h7) {
        continue;
      }
      float T3[128];
      float* T19 = reinterpret_cast<float*>(smem + 128);
      if (threadIdx.x == 0 && tidY == 0) {
        mbarrier::arriveExpectTx(toSmem(&T19_mbar[0]), 512);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T19[0]), &tmap_T2, toSmem(&T19_mbar[0]), ((((i5 * 3) + ((int64_t)blockIdx.x)) % h8) / min64(2, h9 - ((((i5 * 3) + ((int64_t)blockIdx.x)) / h8) * 2))) * 128);
      }
      wgmma::discard(T3);  // written by its first wgmmas (scale-d 0), not zeroed
      if (h10 <= 0) {
        // loop of iUR46{2}
        #pragma unroll
        for (int64_t i17 = 0; i17 < 2; ++i17) {
          // loop of fragment
          #pragma unroll
          for (int64_t r3 = 0; r3 < 64; ++r3) {
            T3[r3 + (i17 * 64)] = 0.0f;
          }
        }
      }
      const int64_t h11 = i5 * h10;
      // loop of rS38{ceilDiv(i1, 64)}
      for (int64_t i7 = 0; i7 < h10; ++i7) {
        mbarrier::waitParity(toSmem(&T15_mbar[(h11 + i7) % 3]), ((h11 + i7) / 3) % 2);
        wgmma::fenceOperands(T3);
        wgmma::fence();
        // loop of rUR47{4}
        #pragma unroll
        for (int64_t i16 = 0; i16 < 4; ++i16) {
          // loop of iUR46{2}
          #pragma unroll
          for (int64_t i17 = 0; i17 < 2; ++i17) {
            wgmma::mmaM64N128K16F32Bf16<0, 1>(&T3[i17 * 64],
                wgmma::smemDescriptor(toSmem(&T15[(((i16 * 16) % 64) + (((((((int64_t)tidY) * 2) + i17) * 64) % 256) * 64)) + (((h11 + i7) % 3) * 16384)]), 16, 1024, 1),
                wgmma::smemDescriptor(toSmem(&T16[(((i16 * 16) % 64) * 64) + (((h11 + i7) % 3) * 8192)]), 8192, 1024, 1), (i7 != 0) || (i16 != 0));
          }
        }
        wgmma::commit();
        wgmma::wait<1>();
        wgmma::fenceOperands(T3);
        if ((i7 - 1) >= 0) {
          mbarrier::arrive(toSmem(&T15_mbar[(((h11 + i7) - 1) % 3) + 3]));
        }
      }
      wgmma::wait<0>();
      wgmma::fenceOperands(T3);
      if (h12 >= 0) {
        mbarrier::arrive(toSmem(&T15_mbar[(((i5 * h10) + h12) % 3) + 3]));
      }
      mbarrier::waitParity(toSmem(&T19_mbar[0]), i5 % 2);
      const int64_t h18 = (((((i5 * 3) + ((int64_t)blockIdx.x)) / h20) * 2) + ((((i5 * 3) + ((int64_t)blockIdx.x)) % h20) % min64(2, h9 - ((((i5 * 3) + ((int64_t)blockIdx.x)) / h20) * 2)))) * 256;
      const int64_t h19 = ((((i5 * 3) + ((int64_t)blockIdx.x)) % h20) / min64(2, h9 - ((((i5 * 3) + ((int64_t)blockIdx.x)) / h20) * 2))) * 128;
      // loop of iUR345{4}
      #pragma unroll
      for (int64_t i23 = 0; i23 < 4; ++i23) {
        __bfloat16 T18[32];
        // loop of iUR318{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          // loop of iUR323{4}
          #pragma unroll
          for (int64_t i27 = 0; i27 < 4; ++i27) {
            // loop of iUR321{2}
            #pragma unroll
            for (int64_t i28 = 0; i28 < 2; ++i28) {
              // loop of iUR326{2}
              #pragma unroll
              for (int64_t i29 = 0; i29 < 2; ++i29) {
                // T4 (Local, 1 x float) is allocated but unused
                // T5 (Local, 1 x float) is allocated but unused
                // T6 (Local, 1 x float) is allocated but unused
                // T7 (Local, 1 x float) is allocated but unused
                // T8 (Local, 1 x float) is allocated but unused
                // T9 (Local, 1 x float) is allocated but unused
                // T10 (Local, 1 x float) is allocated but unused
                // T11 (Local, 1 x float) is allocated but unused
                // T12 (Local, 1 x float) is allocated but unused
                // T13 (Local, 1 x float) is allocated but unused
              }
            }
          }
        }
        if (threadIdx.x == 0 && tidY == 0) {
          Hopper::cpAsyncBulkWaitGroupRead<1>();
        }
        namedBarrierSync(1, 256);  // WAR: T17 is rewritten here, after its TMA stores' wait
        // loop of stmatrix
        #pragma unroll
        for (int64_t p18_0 = 0; p18_0 < 2; ++p18_0) {
          // loop of stmatrix
          #pragma unroll
          for (int64_t q18 = 0; q18 < 2; ++q18) {
            T18[(q18 * 8) + (p18_0 * 16)] = __float2bfloat16((((T3[(((i23 * 4) + (q18 * 2)) * 4) + (p18_0 * 64)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 128]) * 0.5f) * tanhApprox((T3[(((i23 * 4) + (q18 * 2)) * 4) + (p18_0 * 64)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 128]) * ((((T3[(((i23 * 4) + (q18 * 2)) * 4) + (p18_0 * 64)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 128]) * (T3[(((i23 * 4) + (q18 * 2)) * 4) + (p18_0 * 64)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 128])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[(((i23 * 4) + (q18 * 2)) * 4) + (p18_0 * 64)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 128]) * 0.5f));
            T18[(1 + (q18 * 8)) + (p18_0 * 16)] = __float2bfloat16((((T3[((((i23 * 4) + (q18 * 2)) * 4) + 1) + (p18_0 * 64)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 128]) * 0.5f) * tanhApprox((T3[((((i23 * 4) + (q18 * 2)) * 4) + 1) + (p18_0 * 64)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 128]) * ((((T3[((((i23 * 4) + (q18 * 2)) * 4) + 1) + (p18_0 * 64)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 128]) * (T3[((((i23 * 4) + (q18 * 2)) * 4) + 1) + (p18_0 * 64)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 128])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[((((i23 * 4) + (q18 * 2)) * 4) + 1) + (p18_0 * 64)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 128]) * 0.5f));
            T18[(2 + (q18 * 8)) + (p18_0 * 16)] = __float2bfloat16((((T3[((((i23 * 4) + (q18 * 2)) * 4) + 2) + (p18_0 * 64)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 128]) * 0.5f) * tanhApprox((T3[((((i23 * 4) + (q18 * 2)) * 4) + 2) + (p18_0 * 64)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 128]) * ((((T3[((((i23 * 4) + (q18 * 2)) * 4) + 2) + (p18_0 * 64)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 128]) * (T3[((((i23 * 4) + (q18 * 2)) * 4) + 2) + (p18_0 * 64)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 128])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[((((i23 * 4) + (q18 * 2)) * 4) + 2) + (p18_0 * 64)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 128]) * 0.5f));
            T18[(3 + (q18 * 8)) + (p18_0 * 16)] = __float2bfloat16((((T3[((((i23 * 4) + (q18 * 2)) * 4) + 3) + (p18_0 * 64)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 128]) * 0.5f) * tanhApprox((T3[((((i23 * 4) + (q18 * 2)) * 4) + 3) + (p18_0 * 64)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 128]) * ((((T3[((((i23 * 4) + (q18 * 2)) * 4) + 3) + (p18_0 * 64)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 128]) * (T3[((((i23 * 4) + (q18 * 2)) * 4) + 3) + (p18_0 * 64)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 128])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[((((i23 * 4) + (q18 * 2)) * 4) + 3) + (p18_0 * 64)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 128]) * 0.5f));
            T18[(((q18 * 2) + 1) * 4) + (p18_0 * 16)] = __float2bfloat16((((T3[(((i23 * 4) + ((q18 * 2) + 1)) * 4) + (p18_0 * 64)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 128]) * 0.5f) * tanhApprox((T3[(((i23 * 4) + ((q18 * 2) + 1)) * 4) + (p18_0 * 64)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 128]) * ((((T3[(((i23 * 4) + ((q18 * 2) + 1)) * 4) + (p18_0 * 64)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 128]) * (T3[(((i23 * 4) + ((q18 * 2) + 1)) * 4) + (p18_0 * 64)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 128])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[(((i23 * 4) + ((q18 * 2) + 1)) * 4) + (p18_0 * 64)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 128]) * 0.5f));
            T18[(1 + (((q18 * 2) + 1) * 4)) + (p18_0 * 16)] = __float2bfloat16((((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 1) + (p18_0 * 64)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 128]) * 0.5f) * tanhApprox((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 1) + (p18_0 * 64)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 128]) * ((((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 1) + (p18_0 * 64)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 128]) * (T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 1) + (p18_0 * 64)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 128])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 1) + (p18_0 * 64)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 128]) * 0.5f));
            T18[(2 + (((q18 * 2) + 1) * 4)) + (p18_0 * 16)] = __float2bfloat16((((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 2) + (p18_0 * 64)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 128]) * 0.5f) * tanhApprox((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 2) + (p18_0 * 64)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 128]) * ((((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 2) + (p18_0 * 64)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 128]) * (T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 2) + (p18_0 * 64)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 128])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 2) + (p18_0 * 64)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 128]) * 0.5f));
            T18[(3 + (((q18 * 2) + 1) * 4)) + (p18_0 * 16)] = __float2bfloat16((((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 3) + (p18_0 * 64)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 128]) * 0.5f) * tanhApprox((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 3) + (p18_0 * 64)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 128]) * ((((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 3) + (p18_0 * 64)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 128]) * (T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 3) + (p18_0 * 64)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 128])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 3) + (p18_0 * 64)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 128]) * 0.5f));
            stmatrixX4(toSmem(&T17[((((((i23 * 32) + (((q18 * 2) + h14) * 8)) % 128) % 32) + ((((((((((int64_t)tidY) * 2) + p18_0) * 64) + h15) + h16) + h17) % 256) * 32)) + ((i23 % 2) * 8192)) ^ (((((((((i23 * 32) + (((q18 * 2) + h14) * 8)) % 128) % 32) + ((((((((((int64_t)tidY) * 2) + p18_0) * 64) + h15) + h16) + h17) % 256) * 32)) + ((i23 % 2) * 8192)) / 64) % 4) * 8)]),
                (static_cast<uint32_t>((T18[(q18 * 8) + (p18_0 * 16)]).raw) | (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 1]).raw) << 16)),
                (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 2]).raw) | (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 3]).raw) << 16)),
                (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 4]).raw) | (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 5]).raw) << 16)),
                (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 6]).raw) | (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 7]).raw) << 16)));
          }
        }
        fenceAsyncProxy();
        namedBarrierSync(1, 256);  // RAW: T17 written, then read by a TMA store
        if (threadIdx.x == 0 && tidY == 0) {
          Hopper::cpAsyncBulkTensorTileS2G(&tmap_T14, toSmem(&T17[(i23 % 2) * 8192]), h19 + (i23 * 32), h18);
          Hopper::cpAsyncBulkCommitGroup();
        }
      }
      namedBarrierSync(1, 256);  // WAR: T19 is rewritten next iteration
    }
    if (threadIdx.x == 0 && tidY == 0) {
      Hopper::cpAsyncBulkWaitGroupRead<0>();
    }
  }
  __syncthreads();  // every wait on T15_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T15, T16
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 6; ++s0) {
      mbarrier::inval(toSmem(&T15_mbar[s0]));
    }
  }
  __syncthreads();  // every wait on T19_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    mbarrier::inval(toSmem(&T19_mbar[0]));
  }
}
