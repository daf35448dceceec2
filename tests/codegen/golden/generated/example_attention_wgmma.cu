extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<__bfloat16, 4> T0, Tensor<__bfloat16, 4> T1, Tensor<__bfloat16, 4> T2, Tensor<__bfloat16, 4> T15, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2) {
  const int64_t T15_stride0 = T15.stride[0];
  const int64_t T15_stride1 = T15.stride[1];
  const int64_t T15_stride2 = T15.stride[2];
  const int64_t T15_stride3 = T15.stride[3];
  extern __shared__ __align__(1024) char smem[];

  int64_t* T54_mbar = reinterpret_cast<int64_t*>(smem + 16384);
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::init(toSmem(&T54_mbar[0]), 1);
  }
  __syncthreads();  // init: T54_mbar visible to every thread
  int64_t* T53_mbar = reinterpret_cast<int64_t*>(smem + 16392);
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::init(toSmem(&T53_mbar[0]), 1);
  }
  __syncthreads();  // init: T53_mbar visible to every thread
  int64_t* T52_mbar = reinterpret_cast<int64_t*>(smem + 16400);
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::init(toSmem(&T52_mbar[0]), 1);
  }
  __syncthreads();  // init: T52_mbar visible to every thread
  __bfloat16* T52 = reinterpret_cast<__bfloat16*>(smem + 17408);
  float T32_carry[2];
  float T42[2];
  float T49[32];
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::arriveExpectTx(toSmem(&T52_mbar[0]), 8192);
    // loop of iUR239{1}
    #pragma unroll
    for (int64_t i12 = 0; i12 < 1; ++i12) {
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T52[i12 * 4096]), &tmap_T0, toSmem(&T52_mbar[0]), i12 * 64, ((int64_t)blockIdx.x) * 64, ((int64_t)blockIdx.y) % 2, ((int64_t)blockIdx.y) / 2);
    }
  }
  // loop of iUR419{2}
  #pragma unroll
  for (int64_t i28 = 0; i28 < 2; ++i28) {
    if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i28 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 200) {
      T32_carry[i28] = __uint_as_float(0xff800000u);
    }
  }
  // loop of iUR429{2}
  #pragma unroll
  for (int64_t i37 = 0; i37 < 2; ++i37) {
    if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i37 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 200) {
      T42[i37] = 0.0f;
    }
  }
  // loop of iUR472{8}
  #pragma unroll
  for (int64_t i57 = 0; i57 < 8; ++i57) {
    // loop of iUR470{2}
    #pragma unroll
    for (int64_t i58 = 0; i58 < 2; ++i58) {
      // loop of iUR475{2}
      #pragma unroll
      for (int64_t i59 = 0; i59 < 2; ++i59) {
        T49[(i59 + (i58 * 2)) + (i57 * 4)] = 0.0f;
      }
    }
  }
  mbarrier::waitParity(toSmem(&T52_mbar[0]), 0);
  // rS202{4}: the first 3 iterations with T30 known true
  const int64_t h0 = ((int64_t)blockIdx.y) / 2;
  const int64_t h1 = ((int64_t)blockIdx.y) % 2;
  const int64_t h2 = ((((int64_t)threadIdx.x) / 4) / 8) * 16;
  const int64_t h3 = (((int64_t)threadIdx.x) / 4) % 8;
  // loop of rS202{4}
  for (int64_t i2 = 0; i2 < 3; ++i2) {
    float T20[32];
    float T30[32];
    float T31[2];
    float T31_acc[2];
    float T35[2];
    float T37[2];
    float T40[32];
    float T41[2];
    float T41_acc[2];
    __bfloat16 T43[32];
    float T48[2];
    __bfloat16* T54 = reinterpret_cast<__bfloat16*>(smem);
    // loop of fragment
    #pragma unroll
    for (int64_t r20 = 0; r20 < 32; ++r20) {
      T20[r20] = 0.0f;
    }
    // loop of rS232{1}
    for (int64_t i15 = 0; i15 < 1; ++i15) {
      __bfloat16* T53 = reinterpret_cast<__bfloat16*>(smem + 8192);
      if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
        mbarrier::arriveExpectTx(toSmem(&T53_mbar[0]), 8192);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T53[0]), &tmap_T1, toSmem(&T53_mbar[0]), i15 * 64, i2 * 64, h1, h0);
      }
      mbarrier::waitParity(toSmem(&T53_mbar[0]), (i15 + i2) % 2);
      wgmma::fenceOperands(T20);
      wgmma::fence();
      // loop of rUR234{4}
      #pragma unroll
      for (int64_t i19 = 0; i19 < 4; ++i19) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T20[0],
            wgmma::smemDescriptor(toSmem(&T52[((i19 * 16) % 64) + (i15 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T53[(i19 * 16) % 64]), 16, 1024, 1));
      }
      wgmma::commit();
      wgmma::wait<0>();
      wgmma::fenceOperands(T20);
    }
    // loop of iUR267{8}
    #pragma unroll
    for (int64_t i9 = 0; i9 < 8; ++i9) {
      // loop of iUR265{2}
      #pragma unroll
      for (int64_t i10 = 0; i10 < 2; ++i10) {
        // loop of iUR270{2}
        #pragma unroll
        for (int64_t i11 = 0; i11 < 2; ++i11) {
          float T21[1];
          if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i10 * 8) + h3))) < 200) {
            T21[0] = T20[((i9 * 4) + (i10 * 2)) + i11] * 0.125f;
          }
          if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i10 * 8) + h3))) < 200) {
            T30[(i11 + (i10 * 2)) + (i9 * 4)] = T21[0];
          }
        }
      }
    }
    // loop of iUR278{2}
    #pragma unroll
    for (int64_t i25 = 0; i25 < 2; ++i25) {
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i25 * 8) + h3))) < 200) {
        T31_acc[i25] = __uint_as_float(0xff800000u);
      }
    }
    // loop of rUR280{8}
    #pragma unroll
    for (int64_t i24 = 0; i24 < 8; ++i24) {
      // loop of iUR278{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i25 * 8) + h3))) < 200) {
          // loop of rUR283{2}
          #pragma unroll
          for (int64_t i26 = 0; i26 < 2; ++i26) {
            T31_acc[i25] = fmaxf(T31_acc[i25], T30[(i26 + (i25 * 2)) + (i24 * 4)]);
          }
        }
      }
    }
    // loop of iUR278{2}
    #pragma unroll
    for (int64_t i25 = 0; i25 < 2; ++i25) {
      T31_acc[i25] = ReduceMax()(T31_acc[i25], warpShflXor(T31_acc[i25], 1u));
      T31_acc[i25] = ReduceMax()(T31_acc[i25], warpShflXor(T31_acc[i25], 2u));
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i25 * 8) + h3))) < 200) {
        T31[i25] = T31_acc[i25];
      }
    }
    // loop of iUR419{2}
    #pragma unroll
    for (int64_t i28 = 0; i28 < 2; ++i28) {
      float T32[1];
      float T33[1];
      bool T34[1];
      float T36[1];
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i28 * 8) + h3))) < 200) {
        T32[0] = T32_carry[i28];
      }
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i28 * 8) + h3))) < 200) {
        T32_carry[i28] = fmaxf(T32_carry[i28], T31[i28]);
      }
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i28 * 8) + h3))) < 200) {
        T33[0] = fmaxf(T32[0], T31[i28]);
      }
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i28 * 8) + h3))) < 200) {
        T34[0] = T33[0] == __uint_as_float(0xff800000u);
      }
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i28 * 8) + h3))) < 200) {
        T35[i28] = T34[0] ? 0.0f : T33[0];
      }
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i28 * 8) + h3))) < 200) {
        T36[0] = T32[0] - T35[i28];
      }
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i28 * 8) + h3))) < 200) {
        T37[i28] = exp2f(1.4426950408889634f * T36[0]);
      }
    }
    // loop of iUR306{8}
    #pragma unroll
    for (int64_t i30 = 0; i30 < 8; ++i30) {
      // loop of iUR304{2}
      #pragma unroll
      for (int64_t i31 = 0; i31 < 2; ++i31) {
        // loop of iUR309{2}
        #pragma unroll
        for (int64_t i32 = 0; i32 < 2; ++i32) {
          float T38[1];
          float T39[1];
          if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i31 * 8) + h3))) < 200) {
            T38[0] = T35[i31];
          }
          if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i31 * 8) + h3))) < 200) {
            T39[0] = T30[(i32 + (i31 * 2)) + (i30 * 4)] - T38[0];
          }
          if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i31 * 8) + h3))) < 200) {
            T40[(i32 + (i31 * 2)) + (i30 * 4)] = exp2f(1.4426950408889634f * T39[0]);
          }
        }
      }
    }
    // loop of iUR330{2}
    #pragma unroll
    for (int64_t i34 = 0; i34 < 2; ++i34) {
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i34 * 8) + h3))) < 200) {
        T41_acc[i34] = 0.0f;
      }
    }
    // loop of rUR332{8}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 8; ++i33) {
      // loop of iUR330{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i34 * 8) + h3))) < 200) {
          // loop of rUR335{2}
          #pragma unroll
          for (int64_t i35 = 0; i35 < 2; ++i35) {
            T41_acc[i34] = T41_acc[i34] + T40[(i35 + (i34 * 2)) + (i33 * 4)];
          }
        }
      }
    }
    // loop of iUR330{2}
    #pragma unroll
    for (int64_t i34 = 0; i34 < 2; ++i34) {
      T41_acc[i34] = ReduceAdd()(T41_acc[i34], warpShflXor(T41_acc[i34], 1u));
      T41_acc[i34] = ReduceAdd()(T41_acc[i34], warpShflXor(T41_acc[i34], 2u));
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i34 * 8) + h3))) < 200) {
        T41[i34] = T41_acc[i34];
      }
    }
    // loop of iUR319{8}
    #pragma unroll
    for (int64_t i38 = 0; i38 < 8; ++i38) {
      // loop of iUR317{2}
      #pragma unroll
      for (int64_t i39 = 0; i39 < 2; ++i39) {
        if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i39 * 8) + h3))) < 200) {
          // loop of iUR322{2}
          #pragma unroll
          for (int64_t i40 = 0; i40 < 2; ++i40) {
            T43[(i40 + (i39 * 2)) + (i38 * 4)] = __float2bfloat16(T40[(i40 + (i39 * 2)) + (i38 * 4)]);
          }
        }
      }
    }
    // loop of iUR429{2}
    #pragma unroll
    for (int64_t i37 = 0; i37 < 2; ++i37) {
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i37 * 8) + h3))) < 200) {
        T42[i37] = (T42[i37] * T37[i37]) + T41[i37];
      }
    }
    if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
      mbarrier::arriveExpectTx(toSmem(&T54_mbar[0]), 8192);
      // loop of iUR463{1}
      #pragma unroll
      for (int64_t i49 = 0; i49 < 1; ++i49) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T54[i49 * 4096]), &tmap_T2, toSmem(&T54_mbar[0]), i49 * 64, i2 * 64, h1, h0);
      }
    }
    // loop of iUR578{2}
    #pragma unroll
    for (int64_t i43 = 0; i43 < 2; ++i43) {
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i43 * 8) + h3))) < 200) {
        T48[i43] = T37[i43];
      }
    }
    // loop of iUR472{8}
    #pragma unroll
    for (int64_t i57 = 0; i57 < 8; ++i57) {
      // loop of iUR470{2}
      #pragma unroll
      for (int64_t i58 = 0; i58 < 2; ++i58) {
        if ((((((int64_t)blockIdx.x) * 64) + (h2 + ((i58 * 8) + h3))) < 200) && (i2 > 0)) {
          // loop of iUR475{2}
          #pragma unroll
          for (int64_t i59 = 0; i59 < 2; ++i59) {
            T49[(i59 + (i58 * 2)) + (i57 * 4)] = T49[(i59 + (i58 * 2)) + (i57 * 4)] * T48[i58];
          }
        }
      }
    }
    mbarrier::waitParity(toSmem(&T54_mbar[0]), i2 % 2);
    uint32_t T43_a0[16];  // T43 in pairs: the A registers of the wgmmas below
    #pragma unroll
    for (int q = 0; q < 16; ++q) {
      T43_a0[q] = (static_cast<uint32_t>((T43[2 * q]).raw) | (static_cast<uint32_t>((T43[2 * q + 1]).raw) << 16));
    }
    wgmma::fenceOperands(T43_a0);
    wgmma::fenceOperands(T49);
    wgmma::fence();
    // loop of rUR457{4}
    #pragma unroll
    for (int64_t i53 = 0; i53 < 4; ++i53) {
      wgmma::mmaM64N64K16F32Bf16RegA<1>(&T49[0],
          T43_a0[(((i53 * 16) / 8) * 4) / 2],
          T43_a0[((((i53 * 16) / 8) * 4) / 2) + 1],
          T43_a0[((((i53 * 16) / 8) * 4) / 2) + 2],
          T43_a0[((((i53 * 16) / 8) * 4) / 2) + 3],
          wgmma::smemDescriptor(toSmem(&T54[i53 * 1024]), 8192, 1024, 1));
    }
    wgmma::commit();
    wgmma::wait<0>();
    wgmma::fenceOperands(T43_a0);
    wgmma::fenceOperands(T49);
    __syncthreads();  // WAR: T53 is rewritten next iteration
  }
  const int64_t h4 = ((int64_t)blockIdx.y) / 2;
  const int64_t h5 = ((int64_t)blockIdx.y) % 2;
  const int64_t h6 = (((int64_t)threadIdx.x) % 4) * 2;
  const int64_t h7 = ((((int64_t)threadIdx.x) / 4) / 8) * 16;
  const int64_t h8 = (((int64_t)threadIdx.x) / 4) % 8;
  // loop of rS202{4}
  for (int64_t i2 = 3; i2 < 4; ++i2) {
    int64_t T22[1];
    int64_t T23[1];
    bool T28[64];
    float T20[32];
    float T30[32];
    float T31[2];
    float T31_acc[2];
    float T35[2];
    float T37[2];
    float T40[32];
    float T41[2];
    float T41_acc[2];
    __bfloat16 T43[32];
    float T48[2];
    __bfloat16* T54 = reinterpret_cast<__bfloat16*>(smem);
    T22[0] = i2;
    T23[0] = T22[0] * 64LL;
    // loop of iS369{4}
    for (int64_t i4 = 0; i4 < 4; ++i4) {
      // loop of iUR367{8}
      #pragma unroll
      for (int64_t i5 = 0; i5 < 8; ++i5) {
        // loop of iUR370{2}
        #pragma unroll
        for (int64_t i6 = 0; i6 < 2; ++i6) {
          int64_t T24[1];
          int64_t T25[1];
          int64_t T26[1];
          int64_t T27[1];
          T24[0] = T23[0];
          T25[0] = (i5 * 8) + ((i4 * 2) + i6);
          T26[0] = T25[0];
          T27[0] = T24[0] + T26[0];
          T28[(i6 + (i5 * 2)) + (i4 * 16)] = T27[0] < 200LL;
        }
      }
    }
    // loop of fragment
    #pragma unroll
    for (int64_t r20 = 0; r20 < 32; ++r20) {
      T20[r20] = 0.0f;
    }
    // loop of rS232{1}
    for (int64_t i15 = 0; i15 < 1; ++i15) {
      __bfloat16* T53 = reinterpret_cast<__bfloat16*>(smem + 8192);
      if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
        mbarrier::arriveExpectTx(toSmem(&T53_mbar[0]), 8192);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T53[0]), &tmap_T1, toSmem(&T53_mbar[0]), i15 * 64, i2 * 64, h5, h4);
      }
      mbarrier::waitParity(toSmem(&T53_mbar[0]), (i15 + i2) % 2);
      wgmma::fenceOperands(T20);
      wgmma::fence();
      // loop of rUR234{4}
      #pragma unroll
      for (int64_t i19 = 0; i19 < 4; ++i19) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T20[0],
            wgmma::smemDescriptor(toSmem(&T52[((i19 * 16) % 64) + (i15 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T53[(i19 * 16) % 64]), 16, 1024, 1));
      }
      wgmma::commit();
      wgmma::wait<0>();
      wgmma::fenceOperands(T20);
    }
    // loop of iUR267{8}
    #pragma unroll
    for (int64_t i9 = 0; i9 < 8; ++i9) {
      // loop of iUR265{2}
      #pragma unroll
      for (int64_t i10 = 0; i10 < 2; ++i10) {
        // loop of iUR270{2}
        #pragma unroll
        for (int64_t i11 = 0; i11 < 2; ++i11) {
          bool T29[1];
          float T21[1];
          T29[0] = T28[(i11 + (i9 * 2)) + ((((h6 + i11) % 8) / 2) * 16)];
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i10 * 8) + h8))) < 200) {
            T21[0] = T20[((i9 * 4) + (i10 * 2)) + i11] * 0.125f;
          }
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i10 * 8) + h8))) < 200) {
            T30[(i11 + (i10 * 2)) + (i9 * 4)] = T29[0] ? T21[0] : __uint_as_float(0xff800000u);
          }
        }
      }
    }
    // loop of iUR278{2}
    #pragma unroll
    for (int64_t i25 = 0; i25 < 2; ++i25) {
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i25 * 8) + h8))) < 200) {
        T31_acc[i25] = __uint_as_float(0xff800000u);
      }
    }
    // loop of rUR280{8}
    #pragma unroll
    for (int64_t i24 = 0; i24 < 8; ++i24) {
      // loop of iUR278{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i25 * 8) + h8))) < 200) {
          // loop of rUR283{2}
          #pragma unroll
          for (int64_t i26 = 0; i26 < 2; ++i26) {
            T31_acc[i25] = fmaxf(T31_acc[i25], T30[(i26 + (i25 * 2)) + (i24 * 4)]);
          }
        }
      }
    }
    // loop of iUR278{2}
    #pragma unroll
    for (int64_t i25 = 0; i25 < 2; ++i25) {
      T31_acc[i25] = ReduceMax()(T31_acc[i25], warpShflXor(T31_acc[i25], 1u));
      T31_acc[i25] = ReduceMax()(T31_acc[i25], warpShflXor(T31_acc[i25], 2u));
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i25 * 8) + h8))) < 200) {
        T31[i25] = T31_acc[i25];
      }
    }
    // loop of iUR419{2}
    #pragma unroll
    for (int64_t i28 = 0; i28 < 2; ++i28) {
      float T32[1];
      float T33[1];
      bool T34[1];
      float T36[1];
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i28 * 8) + h8))) < 200) {
        T32[0] = T32_carry[i28];
      }
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i28 * 8) + h8))) < 200) {
        T32_carry[i28] = fmaxf(T32_carry[i28], T31[i28]);
      }
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i28 * 8) + h8))) < 200) {
        T33[0] = fmaxf(T32[0], T31[i28]);
      }
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i28 * 8) + h8))) < 200) {
        T34[0] = T33[0] == __uint_as_float(0xff800000u);
      }
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i28 * 8) + h8))) < 200) {
        T35[i28] = T34[0] ? 0.0f : T33[0];
      }
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i28 * 8) + h8))) < 200) {
        T36[0] = T32[0] - T35[i28];
      }
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i28 * 8) + h8))) < 200) {
        T37[i28] = exp2f(1.4426950408889634f * T36[0]);
      }
    }
    // loop of iUR306{8}
    #pragma unroll
    for (int64_t i30 = 0; i30 < 8; ++i30) {
      // loop of iUR304{2}
      #pragma unroll
      for (int64_t i31 = 0; i31 < 2; ++i31) {
        // loop of iUR309{2}
        #pragma unroll
        for (int64_t i32 = 0; i32 < 2; ++i32) {
          float T38[1];
          float T39[1];
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i31 * 8) + h8))) < 200) {
            T38[0] = T35[i31];
          }
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i31 * 8) + h8))) < 200) {
            T39[0] = T30[(i32 + (i31 * 2)) + (i30 * 4)] - T38[0];
          }
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i31 * 8) + h8))) < 200) {
            T40[(i32 + (i31 * 2)) + (i30 * 4)] = exp2f(1.4426950408889634f * T39[0]);
          }
        }
      }
    }
    // loop of iUR330{2}
    #pragma unroll
    for (int64_t i34 = 0; i34 < 2; ++i34) {
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i34 * 8) + h8))) < 200) {
        T41_acc[i34] = 0.0f;
      }
    }
    // loop of rUR332{8}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 8; ++i33) {
      // loop of iUR330{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i34 * 8) + h8))) < 200) {
          // loop of rUR335{2}
          #pragma unroll
          for (int64_t i35 = 0; i35 < 2; ++i35) {
            T41_acc[i34] = T41_acc[i34] + T40[(i35 + (i34 * 2)) + (i33 * 4)];
          }
        }
      }
    }
    // loop of iUR330{2}
    #pragma unroll
    for (int64_t i34 = 0; i34 < 2; ++i34) {
      T41_acc[i34] = ReduceAdd()(T41_acc[i34], warpShflXor(T41_acc[i34], 1u));
      T41_acc[i34] = ReduceAdd()(T41_acc[i34], warpShflXor(T41_acc[i34], 2u));
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i34 * 8) + h8))) < 200) {
        T41[i34] = T41_acc[i34];
      }
    }
    // loop of iUR319{8}
    #pragma unroll
    for (int64_t i38 = 0; i38 < 8; ++i38) {
      // loop of iUR317{2}
      #pragma unroll
      for (int64_t i39 = 0; i39 < 2; ++i39) {
        if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i39 * 8) + h8))) < 200) {
          // loop of iUR322{2}
          #pragma unroll
          for (int64_t i40 = 0; i40 < 2; ++i40) {
            T43[(i40 + (i39 * 2)) + (i38 * 4)] = __float2bfloat16(T40[(i40 + (i39 * 2)) + (i38 * 4)]);
          }
        }
      }
    }
    // loop of iUR429{2}
    #pragma unroll
    for (int64_t i37 = 0; i37 < 2; ++i37) {
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i37 * 8) + h8))) < 200) {
        T42[i37] = (T42[i37] * T37[i37]) + T41[i37];
      }
    }
    if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
      mbarrier::arriveExpectTx(toSmem(&T54_mbar[0]), 8192);
      // loop of iUR463{1}
      #pragma unroll
      for (int64_t i49 = 0; i49 < 1; ++i49) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T54[i49 * 4096]), &tmap_T2, toSmem(&T54_mbar[0]), i49 * 64, i2 * 64, h5, h4);
      }
    }
    // loop of iUR578{2}
    #pragma unroll
    for (int64_t i43 = 0; i43 < 2; ++i43) {
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i43 * 8) + h8))) < 200) {
        T48[i43] = T37[i43];
      }
    }
    // loop of iUR472{8}
    #pragma unroll
    for (int64_t i57 = 0; i57 < 8; ++i57) {
      // loop of iUR470{2}
      #pragma unroll
      for (int64_t i58 = 0; i58 < 2; ++i58) {
        if ((((((int64_t)blockIdx.x) * 64) + (h7 + ((i58 * 8) + h8))) < 200) && (i2 > 0)) {
          // loop of iUR475{2}
          #pragma unroll
          for (int64_t i59 = 0; i59 < 2; ++i59) {
            T49[(i59 + (i58 * 2)) + (i57 * 4)] = T49[(i59 + (i58 * 2)) + (i57 * 4)] * T48[i58];
          }
        }
      }
    }
    mbarrier::waitParity(toSmem(&T54_mbar[0]), i2 % 2);
    uint32_t T43_a0[16];  // T43 in pairs: the A registers of the wgmmas below
    #pragma unroll
    for (int q = 0; q < 16; ++q) {
      T43_a0[q] = (static_cast<uint32_t>((T43[2 * q]).raw) | (static_cast<uint32_t>((T43[2 * q + 1]).raw) << 16));
    }
    wgmma::fenceOperands(T43_a0);
    wgmma::fenceOperands(T49);
    wgmma::fence();
    // loop of rUR457{4}
    #pragma unroll
    for (int64_t i53 = 0; i53 < 4; ++i53) {
      wgmma::mmaM64N64K16F32Bf16RegA<1>(&T49[0],
          T43_a0[(((i53 * 16) / 8) * 4) / 2],
          T43_a0[((((i53 * 16) / 8) * 4) / 2) + 1],
          T43_a0[((((i53 * 16) / 8) * 4) / 2) + 2],
          T43_a0[((((i53 * 16) / 8) * 4) / 2) + 3],
          wgmma::smemDescriptor(toSmem(&T54[i53 * 1024]), 8192, 1024, 1));
    }
    wgmma::commit();
    wgmma::wait<0>();
    wgmma::fenceOperands(T43_a0);
    wgmma::fenceOperands(T49);
    __syncthreads();  // WAR: T53 is rewritten next iteration
  }
  // loop of iUR511{8}
  #pragma unroll
  for (int64_t i46 = 0; i46 < 8; ++i46) {
    // loop of iUR509{2}
    #pragma unroll
    for (int64_t i47 = 0; i47 < 2; ++i47) {
      float T51[2];
      // loop of iUR501{2}
      #pragma unroll
      for (int64_t i48 = 0; i48 < 2; ++i48) {
        float T50[1];
        if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i47 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 200) {
          T50[0] = T42[i47];
        }
        if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i47 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 200) {
          T51[i48] = T49[(i48 + (i47 * 2)) + (i46 * 4)] / T50[0];
        }
      }
      if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i47 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 200) {
        *reinterpret_cast<uint32_t*>(&T15.data[((((((int64_t)blockIdx.y) / 2) * T15_stride0) + ((((int64_t)blockIdx.y) % 2) * T15_stride1)) + (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i47 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) * T15_stride2)) + (((i46 * 8) + ((((int64_t)threadIdx.x) % 4) * 2)) * T15_stride3)]) = (static_cast<uint32_t>((__float2bfloat16(T51[0])).raw) | (static_cast<uint32_t>((__float2bfloat16(T51[1])).raw) << 16));
      }
    }
  }
  __syncthreads();  // every wait on T52_mbar done before inval
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::inval(toSmem(&T52_mbar[0]));
  }
  __syncthreads();  // every wait on T53_mbar done before inval
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::inval(toSmem(&T53_mbar[0]));
  }
  __syncthreads();  // every wait on T54_mbar done before inval
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::inval(toSmem(&T54_mbar[0]));
  }
}
