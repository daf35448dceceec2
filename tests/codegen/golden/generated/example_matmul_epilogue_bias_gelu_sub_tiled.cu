extern "C" __global__ void __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<float, 1> T2, Tensor<__bfloat16, 2> T14, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2, const __grid_constant__ TensorMap tmap_T14) {
  const int i0 = T0.size[0];
  const int i1 = T0.size[1];
  const int i3 = T1.size[1];
  const int i4 = T2.size[0];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  int64_t* T19_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && tidY == 0) {
    mbarrier::init(toSmem(&T19_mbar[0]), 1);
  }
  __syncthreads();  // init: T19_mbar visible to every thread
  __bfloat16* T15 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T16 = reinterpret_cast<__bfloat16*>(smem + 66560);
  __bfloat16* T17 = reinterpret_cast<__bfloat16*>(smem + 197632);
  int64_t* T15_mbar = reinterpret_cast<int64_t*>(smem + 8);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T15, T16
    #pragma unroll 1
    for (int s0 = 0; s0 < 4; ++s0) {
      mbarrier::init(toSmem(&T15_mbar[s0]), 1);
      mbarrier::init(toSmem(&T15_mbar[s0 + 4]), 256);
    }
  }
  __syncthreads();  // init: T15_mbar visible to every thread
  if (((int)tidY) >= (((int)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    const int h0 = ceilDiv32(i0, 128) * ceilDiv32(i3, 256);
    const int h1 = ceilDiv32(i1, 64);
    const int h5 = ceilDiv32(i3, 256) * 2;
    const int h6 = ceilDiv32(i0, 128);
    // AsyncWarp loop of iS343{ceilDiv(ceilDiv(i0, 128) * ceilDiv(i3, 256), 3)}
    #pragma unroll 1
    for (int i5 = 0; i5 < ceilDiv32(ceilDiv32(i0, 128) * ceilDiv32(i3, 256), 3); ++i5) {
      if (((i5 * 3) + ((int)blockIdx.x)) >= h0) {
        continue;
      }
      if (threadIdx.x == 0 && tidY == 2) {
        const int h2 = i5 * h1;
        const int h3 = (((((i5 * 3) + ((int)blockIdx.x)) / h5) * 2) + ((((i5 * 3) + ((int)blockIdx.x)) % h5) % min32(2, h6 - ((((i5 * 3) + ((int)blockIdx.x)) / h5) * 2)))) * 128;
        const int h4 = ((((i5 * 3) + ((int)blockIdx.x)) % h5) / min32(2, h6 - ((((i5 * 3) + ((int)blockIdx.x)) / h5) * 2))) * 256;
        // loop of rS38{ceilDiv(i1, 64)}
        for (int i7 = 0; i7 < h1; ++i7) {
          mbarrier::waitParity(toSmem(&T15_mbar[((h2 + i7) % 4) + 4]), ((h2 + i7) / 4) % 2);
          mbarrier::arriveExpectTx(toSmem(&T15_mbar[(h2 + i7) % 4]), 49152);
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T15[((h2 + i7) % 4) * 8192]), &tmap_T0, toSmem(&T15_mbar[(h2 + i7) % 4]), i7 * 64, h3);
          // loop of iUR69{4}
          #pragma unroll
          for (int i11 = 0; i11 < 4; ++i11) {
            Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T16[(i11 * 4096) + (((h2 + i7) % 4) * 16384)]), &tmap_T1, toSmem(&T15_mbar[(h2 + i7) % 4]), h4 + (i11 * 64), i7 * 64);
          }
        }
      }
    }
    return;
  } else {
    increaseRegisters<232>();
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int s0 = 0; s0 < 4; ++s0) {
      mbarrier::arrive(toSmem(&T15_mbar[s0 + 4]));
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
    // ComputeWarp loop of iS343{ceilDiv(ceilDiv(i0, 128) * ceilDiv(i3, 256), 3)}
    #pragma unroll 1
    for (int i5 = 0; i5 < ceilDiv32(ceilDiv32(i0, 128) * ceilDiv32(i3, 256), 3); ++i5) {
      if (((i5 * 3) + ((int)blockIdx.x)) >= h7) {
        continue;
      }
      float T3[128];
      float* T19 = reinterpret_cast<float*>(smem + 214016);
      if (threadIdx.x == 0 && tidY == 0) {
        mbarrier::arriveExpectTx(toSmem(&T19_mbar[0]), 1024);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T19[0]), &tmap_T2, toSmem(&T19_mbar[0]), ((((i5 * 3) + ((int)blockIdx.x)) % h8) / min32(2, h9 - ((((i5 * 3) + ((int)blockIdx.x)) / h8) * 2))) * 256);
      }
      wgmma::discard(T3);  // written by its first wgmmas (scale-d 0), not zeroed
      if (h10 <= 0) {
        // loop of iUR46{1}
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
      // loop of rS38{ceilDiv(i1, 64)}
      for (int i7 = 0; i7 < h10; ++i7) {
        mbarrier::waitParity(toSmem(&T15_mbar[(h11 + i7) % 4]), ((h11 + i7) / 4) % 2);
        wgmma::fenceOperands(T3);
        wgmma::fence();
        // loop of rUR47{4}
        #pragma unroll
        for (int i16 = 0; i16 < 4; ++i16) {
          // loop of iUR46{1}
          #pragma unroll
          for (int i17 = 0; i17 < 1; ++i17) {
            wgmma::mmaM64N256K16F32Bf16<0, 1>(&T3[i17 * 128],
                wgmma::smemDescriptor(toSmem(&T15[(((i16 * 16) % 64) + ((((((int)tidY) + i17) * 64) % 128) * 64)) + (((h11 + i7) % 4) * 8192)]), 16, 1024, 1),
                wgmma::smemDescriptor(toSmem(&T16[(((i16 * 16) % 64) * 64) + (((h11 + i7) % 4) * 16384)]), 8192, 1024, 1), (i7 != 0) || (i16 != 0));
          }
        }
        wgmma::commit();
        wgmma::wait<1>();
        wgmma::fenceOperands(T3);
        if ((i7 - 1) >= 0) {
          mbarrier::arrive(toSmem(&T15_mbar[(((h11 + i7) - 1) % 4) + 4]));
        }
      }
      wgmma::wait<0>();
      wgmma::fenceOperands(T3);
      if (h12 >= 0) {
        mbarrier::arrive(toSmem(&T15_mbar[(((i5 * h10) + h12) % 4) + 4]));
      }
      mbarrier::waitParity(toSmem(&T19_mbar[0]), i5 % 2);
      const int h18 = (((((i5 * 3) + ((int)blockIdx.x)) / h20) * 2) + ((((i5 * 3) + ((int)blockIdx.x)) % h20) % min32(2, h9 - ((((i5 * 3) + ((int)blockIdx.x)) / h20) * 2)))) * 128;
      const int h19 = ((((i5 * 3) + ((int)blockIdx.x)) % h20) / min32(2, h9 - ((((i5 * 3) + ((int)blockIdx.x)) / h20) * 2))) * 256;
      // loop of iUR345{8}
      #pragma unroll
      for (int i23 = 0; i23 < 8; ++i23) {
        __bfloat16 T18[16];
        // loop of iUR318{1}
        #pragma unroll
        for (int i25 = 0; i25 < 1; ++i25) {
          // loop of iUR323{4}
          #pragma unroll
          for (int i27 = 0; i27 < 4; ++i27) {
            // loop of iUR321{2}
            #pragma unroll
            for (int i28 = 0; i28 < 2; ++i28) {
              // loop of iUR326{2}
              #pragma unroll
              for (int i29 = 0; i29 < 2; ++i29) {
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
        for (int p18_0 = 0; p18_0 < 1; ++p18_0) {
          // loop of stmatrix
          #pragma unroll
          for (int q18 = 0; q18 < 2; ++q18) {
            T18[(q18 * 8) + (p18_0 * 16)] = __float2bfloat16((((T3[(((i23 * 4) + (q18 * 2)) * 4) + (p18_0 * 128)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 256]) * 0.5f) * tanhApprox((T3[(((i23 * 4) + (q18 * 2)) * 4) + (p18_0 * 128)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 256]) * ((((T3[(((i23 * 4) + (q18 * 2)) * 4) + (p18_0 * 128)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 256]) * (T3[(((i23 * 4) + (q18 * 2)) * 4) + (p18_0 * 128)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 256])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[(((i23 * 4) + (q18 * 2)) * 4) + (p18_0 * 128)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 256]) * 0.5f));
            T18[(1 + (q18 * 8)) + (p18_0 * 16)] = __float2bfloat16((((T3[((((i23 * 4) + (q18 * 2)) * 4) + 1) + (p18_0 * 128)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 256]) * 0.5f) * tanhApprox((T3[((((i23 * 4) + (q18 * 2)) * 4) + 1) + (p18_0 * 128)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 256]) * ((((T3[((((i23 * 4) + (q18 * 2)) * 4) + 1) + (p18_0 * 128)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 256]) * (T3[((((i23 * 4) + (q18 * 2)) * 4) + 1) + (p18_0 * 128)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 256])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[((((i23 * 4) + (q18 * 2)) * 4) + 1) + (p18_0 * 128)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 256]) * 0.5f));
            T18[(2 + (q18 * 8)) + (p18_0 * 16)] = __float2bfloat16((((T3[((((i23 * 4) + (q18 * 2)) * 4) + 2) + (p18_0 * 128)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 256]) * 0.5f) * tanhApprox((T3[((((i23 * 4) + (q18 * 2)) * 4) + 2) + (p18_0 * 128)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 256]) * ((((T3[((((i23 * 4) + (q18 * 2)) * 4) + 2) + (p18_0 * 128)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 256]) * (T3[((((i23 * 4) + (q18 * 2)) * 4) + 2) + (p18_0 * 128)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 256])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[((((i23 * 4) + (q18 * 2)) * 4) + 2) + (p18_0 * 128)] + T19[(((i23 * 32) + (q18 * 16)) + h13) % 256]) * 0.5f));
            T18[(3 + (q18 * 8)) + (p18_0 * 16)] = __float2bfloat16((((T3[((((i23 * 4) + (q18 * 2)) * 4) + 3) + (p18_0 * 128)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 256]) * 0.5f) * tanhApprox((T3[((((i23 * 4) + (q18 * 2)) * 4) + 3) + (p18_0 * 128)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 256]) * ((((T3[((((i23 * 4) + (q18 * 2)) * 4) + 3) + (p18_0 * 128)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 256]) * (T3[((((i23 * 4) + (q18 * 2)) * 4) + 3) + (p18_0 * 128)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 256])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[((((i23 * 4) + (q18 * 2)) * 4) + 3) + (p18_0 * 128)] + T19[((((i23 * 32) + (q18 * 16)) + h13) + 1) % 256]) * 0.5f));
            T18[(((q18 * 2) + 1) * 4) + (p18_0 * 16)] = __float2bfloat16((((T3[(((i23 * 4) + ((q18 * 2) + 1)) * 4) + (p18_0 * 128)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 256]) * 0.5f) * tanhApprox((T3[(((i23 * 4) + ((q18 * 2) + 1)) * 4) + (p18_0 * 128)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 256]) * ((((T3[(((i23 * 4) + ((q18 * 2) + 1)) * 4) + (p18_0 * 128)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 256]) * (T3[(((i23 * 4) + ((q18 * 2) + 1)) * 4) + (p18_0 * 128)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 256])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[(((i23 * 4) + ((q18 * 2) + 1)) * 4) + (p18_0 * 128)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 256]) * 0.5f));
            T18[(1 + (((q18 * 2) + 1) * 4)) + (p18_0 * 16)] = __float2bfloat16((((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 1) + (p18_0 * 128)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 256]) * 0.5f) * tanhApprox((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 1) + (p18_0 * 128)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 256]) * ((((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 1) + (p18_0 * 128)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 256]) * (T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 1) + (p18_0 * 128)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 256])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 1) + (p18_0 * 128)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 256]) * 0.5f));
            T18[(2 + (((q18 * 2) + 1) * 4)) + (p18_0 * 16)] = __float2bfloat16((((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 2) + (p18_0 * 128)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 256]) * 0.5f) * tanhApprox((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 2) + (p18_0 * 128)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 256]) * ((((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 2) + (p18_0 * 128)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 256]) * (T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 2) + (p18_0 * 128)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 256])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 2) + (p18_0 * 128)] + T19[(((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) % 256]) * 0.5f));
            T18[(3 + (((q18 * 2) + 1) * 4)) + (p18_0 * 16)] = __float2bfloat16((((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 3) + (p18_0 * 128)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 256]) * 0.5f) * tanhApprox((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 3) + (p18_0 * 128)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 256]) * ((((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 3) + (p18_0 * 128)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 256]) * (T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 3) + (p18_0 * 128)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 256])) * 0.035677408136300125f) + 0.7978845608028654f))) + ((T3[((((i23 * 4) + ((q18 * 2) + 1)) * 4) + 3) + (p18_0 * 128)] + T19[((((i23 * 32) + (((q18 * 2) + 1) * 8)) + h13) + 1) % 256]) * 0.5f));
            stmatrixX4(toSmem(&T17[((((((i23 * 32) + (((q18 * 2) + h14) * 8)) % 256) % 32) + (((((((((int)tidY) + p18_0) * 64) + h15) + h16) + h17) % 128) * 32)) + ((i23 % 2) * 4096)) ^ (((((((((i23 * 32) + (((q18 * 2) + h14) * 8)) % 256) % 32) + (((((((((int)tidY) + p18_0) * 64) + h15) + h16) + h17) % 128) * 32)) + ((i23 % 2) * 4096)) / 64) % 4) * 8)]),
                (static_cast<uint32_t>((T18[(q18 * 8) + (p18_0 * 16)]).raw) | (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 1]).raw) << 16)),
                (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 2]).raw) | (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 3]).raw) << 16)),
                (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 4]).raw) | (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 5]).raw) << 16)),
                (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 6]).raw) | (static_cast<uint32_t>((T18[((q18 * 8) + (p18_0 * 16)) + 7]).raw) << 16)));
          }
        }
        fenceAsyncProxy();
        namedBarrierSync(1, 256);  // RAW: T17 written, then read by a TMA store
        if (threadIdx.x == 0 && tidY == 0) {
          Hopper::cpAsyncBulkTensorTileS2G(&tmap_T14, toSmem(&T17[(i23 % 2) * 4096]), h19 + (i23 * 32), h18);
          Hopper::cpAsyncBulkCommitGroup();
        }
      }
      if (threadIdx.x == 0 && tidY == 0) {
        Hopper::cpAsyncBulkWaitGroupRead<0>();
      }
      namedBarrierSync(1, 256);  // WAR: T19 is rewritten next iteration
    }
  }
  __syncthreads();  // every wait on T15_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T15, T16
    #pragma unroll 1
    for (int s0 = 0; s0 < 8; ++s0) {
      mbarrier::inval(toSmem(&T15_mbar[s0]));
    }
  }
  __syncthreads();  // every wait on T19_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    mbarrier::inval(toSmem(&T19_mbar[0]));
  }
}
