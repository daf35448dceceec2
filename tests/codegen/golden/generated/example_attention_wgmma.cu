extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<__bfloat16, 4> T0, Tensor<__bfloat16, 4> T1, Tensor<__bfloat16, 4> T2, Tensor<__bfloat16, 4> T15, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2) {
  const int64_t T15_stride0 = T15.stride[0];
  const int64_t T15_stride1 = T15.stride[1];
  const int64_t T15_stride2 = T15.stride[2];
  const int64_t T15_stride3 = T15.stride[3];
  extern __shared__ __align__(1024) char smem[];

  int64_t* T54_mbar = reinterpret_cast<int64_t*>(smem + 16384);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T54_mbar[0]), 1);
  }
  __syncthreads();  // init: T54_mbar visible to every thread
  int64_t* T53_mbar = reinterpret_cast<int64_t*>(smem + 16392);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T53_mbar[0]), 1);
  }
  __syncthreads();  // init: T53_mbar visible to every thread
  int64_t* T52_mbar = reinterpret_cast<int64_t*>(smem + 16400);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T52_mbar[0]), 1);
  }
  __syncthreads();  // init: T52_mbar visible to every thread
  __bfloat16* T52 = reinterpret_cast<__bfloat16*>(smem + 17408);
  float T32_carry[2];
  float T42[2];
  float T49[32];
  if (threadIdx.x == 0) {
    mbarrier::arriveExpectTx(toSmem(&T52_mbar[0]), 8192);
    // loop of iUR239{1}
    #pragma unroll
    for (int64_t i10 = 0; i10 < 1; ++i10) {
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T52[i10 * 4096]), &tmap_T0, toSmem(&T52_mbar[0]), i10 * 64, ((int64_t)blockIdx.x) * 64, ((int64_t)blockIdx.y) % 2, ((int64_t)blockIdx.y) / 2);
    }
  }
  // loop of iUR482{2}
  #pragma unroll
  for (int64_t i26 = 0; i26 < 2; ++i26) {
    T32_carry[i26] = __uint_as_float(0xff800000u);
  }
  // loop of iUR492{2}
  #pragma unroll
  for (int64_t i35 = 0; i35 < 2; ++i35) {
    T42[i35] = 0.0f;
  }
  // loop of iUR535{8}
  #pragma unroll
  for (int64_t i55 = 0; i55 < 8; ++i55) {
    // loop of iUR533{2}
    #pragma unroll
    for (int64_t i56 = 0; i56 < 2; ++i56) {
      // loop of iUR538{2}
      #pragma unroll
      for (int64_t i57 = 0; i57 < 2; ++i57) {
        T49[(i57 + (i56 * 2)) + (i55 * 4)] = 0.0f;
      }
    }
  }
  mbarrier::waitParity(toSmem(&T52_mbar[0]), 0);
  // rS202{4}: the first 3 iterations with T30 known true
  const int64_t h0 = ((int64_t)blockIdx.y) / 2;
  const int64_t h1 = ((int64_t)blockIdx.y) % 2;
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
    uint32_t T43_w[16];  // T43 in pairs: the A registers of wgmmas
    __bfloat16* const T43 = reinterpret_cast<__bfloat16*>(T43_w);
    float T48[2];
    __bfloat16* T54 = reinterpret_cast<__bfloat16*>(smem);
    wgmma::discard(T20);  // written by its first wgmmas (scale-d 0), not zeroed
    // loop of rS232{1}
    for (int64_t i13 = 0; i13 < 1; ++i13) {
      __bfloat16* T53 = reinterpret_cast<__bfloat16*>(smem + 8192);
      if (threadIdx.x == 0) {
        mbarrier::arriveExpectTx(toSmem(&T53_mbar[0]), 8192);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T53[0]), &tmap_T1, toSmem(&T53_mbar[0]), i13 * 64, i2 * 64, h1, h0);
      }
      mbarrier::waitParity(toSmem(&T53_mbar[0]), (i13 + i2) % 2);
      wgmma::fenceOperands(T20);
      wgmma::fence();
      // loop of rUR234{4}
      #pragma unroll
      for (int64_t i17 = 0; i17 < 4; ++i17) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T20[0],
            wgmma::smemDescriptor(toSmem(&T52[((i17 * 16) % 64) + (i13 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T53[(i17 * 16) % 64]), 16, 1024, 1), (i13 != 0) || (i17 != 0));
      }
      wgmma::commit();
      wgmma::wait<0>();
      wgmma::fenceOperands(T20);
    }
    // loop of iUR267{8}
    #pragma unroll
    for (int64_t i7 = 0; i7 < 8; ++i7) {
      // loop of iUR265{2}
      #pragma unroll
      for (int64_t i8 = 0; i8 < 2; ++i8) {
        // loop of iUR270{2}
        #pragma unroll
        for (int64_t i9 = 0; i9 < 2; ++i9) {
          float T21[1];
          T21[0] = T20[((i7 * 4) + (i8 * 2)) + i9] * 0.125f;
          T30[(i9 + (i8 * 2)) + (i7 * 4)] = T21[0];
        }
      }
    }
    // loop of iUR278{2}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 2; ++i23) {
      T31_acc[i23] = __uint_as_float(0xff800000u);
    }
    // loop of rUR280{8}
    #pragma unroll
    for (int64_t i22 = 0; i22 < 8; ++i22) {
      // loop of iUR278{2}
      #pragma unroll
      for (int64_t i23 = 0; i23 < 2; ++i23) {
        // loop of rUR283{2}
        #pragma unroll
        for (int64_t i24 = 0; i24 < 2; ++i24) {
          T31_acc[i23] = fmaxf(T31_acc[i23], T30[(i24 + (i23 * 2)) + (i22 * 4)]);
        }
      }
    }
    // loop of iUR278{2}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 2; ++i23) {
      T31_acc[i23] = ReduceMax()(T31_acc[i23], warpShflXor(T31_acc[i23], 1u));
      T31_acc[i23] = ReduceMax()(T31_acc[i23], warpShflXor(T31_acc[i23], 2u));
      T31[i23] = T31_acc[i23];
    }
    // loop of iUR482{2}
    #pragma unroll
    for (int64_t i26 = 0; i26 < 2; ++i26) {
      float T32[1];
      float T33[1];
      bool T34[1];
      float T36[1];
      T32[0] = T32_carry[i26];
      T32_carry[i26] = fmaxf(T32_carry[i26], T31[i26]);
      T33[0] = fmaxf(T32[0], T31[i26]);
      T34[0] = T33[0] == __uint_as_float(0xff800000u);
      T35[i26] = T34[0] ? 0.0f : T33[0];
      T36[0] = T32[0] - T35[i26];
      T37[i26] = exp2f(1.4426950408889634f * T36[0]);
    }
    // loop of iUR306{8}
    #pragma unroll
    for (int64_t i28 = 0; i28 < 8; ++i28) {
      // loop of iUR304{2}
      #pragma unroll
      for (int64_t i29 = 0; i29 < 2; ++i29) {
        // loop of iUR309{2}
        #pragma unroll
        for (int64_t i30 = 0; i30 < 2; ++i30) {
          float T38[1];
          float T39[1];
          T38[0] = T35[i29];
          T39[0] = T30[(i30 + (i29 * 2)) + (i28 * 4)] - T38[0];
          T40[(i30 + (i29 * 2)) + (i28 * 4)] = exp2f(1.4426950408889634f * T39[0]);
        }
      }
    }
    // loop of iUR330{2}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 2; ++i32) {
      T41_acc[i32] = 0.0f;
    }
    // loop of rUR332{8}
    #pragma unroll
    for (int64_t i31 = 0; i31 < 8; ++i31) {
      // loop of iUR330{2}
      #pragma unroll
      for (int64_t i32 = 0; i32 < 2; ++i32) {
        // loop of rUR335{2}
        #pragma unroll
        for (int64_t i33 = 0; i33 < 2; ++i33) {
          T41_acc[i32] = T41_acc[i32] + T40[(i33 + (i32 * 2)) + (i31 * 4)];
        }
      }
    }
    // loop of iUR330{2}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 2; ++i32) {
      T41_acc[i32] = ReduceAdd()(T41_acc[i32], warpShflXor(T41_acc[i32], 1u));
      T41_acc[i32] = ReduceAdd()(T41_acc[i32], warpShflXor(T41_acc[i32], 2u));
      T41[i32] = T41_acc[i32];
    }
    // loop of iUR319{8}
    #pragma unroll
    for (int64_t i36 = 0; i36 < 8; ++i36) {
      // loop of iUR317{2}
      #pragma unroll
      for (int64_t i37 = 0; i37 < 2; ++i37) {
        // loop of iUR322{2}
        #pragma unroll
        for (int64_t i38 = 0; i38 < 2; ++i38) {
          T43[(i38 + (i37 * 2)) + (i36 * 4)] = __float2bfloat16(T40[(i38 + (i37 * 2)) + (i36 * 4)]);
        }
      }
    }
    // loop of iUR492{2}
    #pragma unroll
    for (int64_t i35 = 0; i35 < 2; ++i35) {
      T42[i35] = (T42[i35] * T37[i35]) + T41[i35];
    }
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T54_mbar[0]), 8192);
      // loop of iUR526{1}
      #pragma unroll
      for (int64_t i47 = 0; i47 < 1; ++i47) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T54[i47 * 4096]), &tmap_T2, toSmem(&T54_mbar[0]), i47 * 64, i2 * 64, h1, h0);
      }
    }
    // loop of iUR598{2}
    #pragma unroll
    for (int64_t i41 = 0; i41 < 2; ++i41) {
      T48[i41] = T37[i41];
    }
    if (i2 > 0) {
      // loop of iUR535{8}
      #pragma unroll
      for (int64_t i55 = 0; i55 < 8; ++i55) {
        // loop of iUR533{2}
        #pragma unroll
        for (int64_t i56 = 0; i56 < 2; ++i56) {
          // loop of iUR538{2}
          #pragma unroll
          for (int64_t i57 = 0; i57 < 2; ++i57) {
            T49[(i57 + (i56 * 2)) + (i55 * 4)] = T49[(i57 + (i56 * 2)) + (i55 * 4)] * T48[i56];
          }
        }
      }
    }
    mbarrier::waitParity(toSmem(&T54_mbar[0]), i2 % 2);
    wgmma::fenceOperands(T43_w);
    wgmma::fenceOperands(T49);
    wgmma::fence();
    // loop of rUR520{4}
    #pragma unroll
    for (int64_t i51 = 0; i51 < 4; ++i51) {
      wgmma::mmaM64N64K16F32Bf16RegA<1>(&T49[0],
          T43_w[(((i51 * 16) / 8) * 4) / 2],
          T43_w[((((i51 * 16) / 8) * 4) / 2) + 1],
          T43_w[((((i51 * 16) / 8) * 4) / 2) + 2],
          T43_w[((((i51 * 16) / 8) * 4) / 2) + 3],
          wgmma::smemDescriptor(toSmem(&T54[i51 * 1024]), 8192, 1024, 1));
    }
    wgmma::commit();
    wgmma::wait<0>();
    wgmma::fenceOperands(T43_w);
    wgmma::fenceOperands(T49);
    __syncthreads();  // WAR: T53 is rewritten next iteration
  }
  const int64_t h2 = ((int64_t)blockIdx.y) / 2;
  const int64_t h3 = ((int64_t)blockIdx.y) % 2;
  const int64_t h4 = (((int64_t)threadIdx.x) % 4) * 2;
  // loop of rS202{4}
  for (int64_t i2 = 3; i2 < 4; ++i2) {
    int64_t T22[1];
    int64_t T23[1];
    int64_t T24[1];
    float T20[32];
    float T30[32];
    float T31[2];
    float T31_acc[2];
    float T35[2];
    float T37[2];
    float T40[32];
    float T41[2];
    float T41_acc[2];
    uint32_t T43_w[16];  // T43 in pairs: the A registers of wgmmas
    __bfloat16* const T43 = reinterpret_cast<__bfloat16*>(T43_w);
    float T48[2];
    __bfloat16* T54 = reinterpret_cast<__bfloat16*>(smem);
    T22[0] = i2;
    T23[0] = T22[0] * 64LL;
    T24[0] = T23[0];
    wgmma::discard(T20);  // written by its first wgmmas (scale-d 0), not zeroed
    // loop of rS232{1}
    for (int64_t i13 = 0; i13 < 1; ++i13) {
      __bfloat16* T53 = reinterpret_cast<__bfloat16*>(smem + 8192);
      if (threadIdx.x == 0) {
        mbarrier::arriveExpectTx(toSmem(&T53_mbar[0]), 8192);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T53[0]), &tmap_T1, toSmem(&T53_mbar[0]), i13 * 64, i2 * 64, h3, h2);
      }
      mbarrier::waitParity(toSmem(&T53_mbar[0]), (i13 + i2) % 2);
      wgmma::fenceOperands(T20);
      wgmma::fence();
      // loop of rUR234{4}
      #pragma unroll
      for (int64_t i17 = 0; i17 < 4; ++i17) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T20[0],
            wgmma::smemDescriptor(toSmem(&T52[((i17 * 16) % 64) + (i13 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T53[(i17 * 16) % 64]), 16, 1024, 1), (i13 != 0) || (i17 != 0));
      }
      wgmma::commit();
      wgmma::wait<0>();
      wgmma::fenceOperands(T20);
    }
    // loop of iUR267{8}
    #pragma unroll
    for (int64_t i7 = 0; i7 < 8; ++i7) {
      // loop of iUR265{2}
      #pragma unroll
      for (int64_t i8 = 0; i8 < 2; ++i8) {
        // loop of iUR270{2}
        #pragma unroll
        for (int64_t i9 = 0; i9 < 2; ++i9) {
          int64_t T25[1];
          int64_t T26[1];
          int64_t T27[1];
          bool T28[1];
          bool T29[1];
          float T21[1];
          T25[0] = (i7 * 8) + (h4 + i9);
          T26[0] = T25[0];
          T27[0] = T24[0] + T26[0];
          T28[0] = T27[0] < 200LL;
          T29[0] = T28[0];
          T21[0] = T20[((i7 * 4) + (i8 * 2)) + i9] * 0.125f;
          T30[(i9 + (i8 * 2)) + (i7 * 4)] = T29[0] ? T21[0] : __uint_as_float(0xff800000u);
        }
      }
    }
    // loop of iUR278{2}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 2; ++i23) {
      T31_acc[i23] = __uint_as_float(0xff800000u);
    }
    // loop of rUR280{8}
    #pragma unroll
    for (int64_t i22 = 0; i22 < 8; ++i22) {
      // loop of iUR278{2}
      #pragma unroll
      for (int64_t i23 = 0; i23 < 2; ++i23) {
        // loop of rUR283{2}
        #pragma unroll
        for (int64_t i24 = 0; i24 < 2; ++i24) {
          T31_acc[i23] = fmaxf(T31_acc[i23], T30[(i24 + (i23 * 2)) + (i22 * 4)]);
        }
      }
    }
    // loop of iUR278{2}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 2; ++i23) {
      T31_acc[i23] = ReduceMax()(T31_acc[i23], warpShflXor(T31_acc[i23], 1u));
      T31_acc[i23] = ReduceMax()(T31_acc[i23], warpShflXor(T31_acc[i23], 2u));
      T31[i23] = T31_acc[i23];
    }
    // loop of iUR482{2}
    #pragma unroll
    for (int64_t i26 = 0; i26 < 2; ++i26) {
      float T32[1];
      float T33[1];
      bool T34[1];
      float T36[1];
      T32[0] = T32_carry[i26];
      T32_carry[i26] = fmaxf(T32_carry[i26], T31[i26]);
      T33[0] = fmaxf(T32[0], T31[i26]);
      T34[0] = T33[0] == __uint_as_float(0xff800000u);
      T35[i26] = T34[0] ? 0.0f : T33[0];
      T36[0] = T32[0] - T35[i26];
      T37[i26] = exp2f(1.4426950408889634f * T36[0]);
    }
    // loop of iUR306{8}
    #pragma unroll
    for (int64_t i28 = 0; i28 < 8; ++i28) {
      // loop of iUR304{2}
      #pragma unroll
      for (int64_t i29 = 0; i29 < 2; ++i29) {
        // loop of iUR309{2}
        #pragma unroll
        for (int64_t i30 = 0; i30 < 2; ++i30) {
          float T38[1];
          float T39[1];
          T38[0] = T35[i29];
          T39[0] = T30[(i30 + (i29 * 2)) + (i28 * 4)] - T38[0];
          T40[(i30 + (i29 * 2)) + (i28 * 4)] = exp2f(1.4426950408889634f * T39[0]);
        }
      }
    }
    // loop of iUR330{2}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 2; ++i32) {
      T41_acc[i32] = 0.0f;
    }
    // loop of rUR332{8}
    #pragma unroll
    for (int64_t i31 = 0; i31 < 8; ++i31) {
      // loop of iUR330{2}
      #pragma unroll
      for (int64_t i32 = 0; i32 < 2; ++i32) {
        // loop of rUR335{2}
        #pragma unroll
        for (int64_t i33 = 0; i33 < 2; ++i33) {
          T41_acc[i32] = T41_acc[i32] + T40[(i33 + (i32 * 2)) + (i31 * 4)];
        }
      }
    }
    // loop of iUR330{2}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 2; ++i32) {
      T41_acc[i32] = ReduceAdd()(T41_acc[i32], warpShflXor(T41_acc[i32], 1u));
      T41_acc[i32] = ReduceAdd()(T41_acc[i32], warpShflXor(T41_acc[i32], 2u));
      T41[i32] = T41_acc[i32];
    }
    // loop of iUR319{8}
    #pragma unroll
    for (int64_t i36 = 0; i36 < 8; ++i36) {
      // loop of iUR317{2}
      #pragma unroll
      for (int64_t i37 = 0; i37 < 2; ++i37) {
        // loop of iUR322{2}
        #pragma unroll
        for (int64_t i38 = 0; i38 < 2; ++i38) {
          T43[(i38 + (i37 * 2)) + (i36 * 4)] = __float2bfloat16(T40[(i38 + (i37 * 2)) + (i36 * 4)]);
        }
      }
    }
    // loop of iUR492{2}
    #pragma unroll
    for (int64_t i35 = 0; i35 < 2; ++i35) {
      T42[i35] = (T42[i35] * T37[i35]) + T41[i35];
    }
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T54_mbar[0]), 8192);
      // loop of iUR526{1}
      #pragma unroll
      for (int64_t i47 = 0; i47 < 1; ++i47) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T54[i47 * 4096]), &tmap_T2, toSmem(&T54_mbar[0]), i47 * 64, i2 * 64, h3, h2);
      }
    }
    // loop of iUR598{2}
    #pragma unroll
    for (int64_t i41 = 0; i41 < 2; ++i41) {
      T48[i41] = T37[i41];
    }
    if (i2 > 0) {
      // loop of iUR535{8}
      #pragma unroll
      for (int64_t i55 = 0; i55 < 8; ++i55) {
        // loop of iUR533{2}
        #pragma unroll
        for (int64_t i56 = 0; i56 < 2; ++i56) {
          // loop of iUR538{2}
          #pragma unroll
          for (int64_t i57 = 0; i57 < 2; ++i57) {
            T49[(i57 + (i56 * 2)) + (i55 * 4)] = T49[(i57 + (i56 * 2)) + (i55 * 4)] * T48[i56];
          }
        }
      }
    }
    mbarrier::waitParity(toSmem(&T54_mbar[0]), i2 % 2);
    wgmma::fenceOperands(T43_w);
    wgmma::fenceOperands(T49);
    wgmma::fence();
    // loop of rUR520{4}
    #pragma unroll
    for (int64_t i51 = 0; i51 < 4; ++i51) {
      wgmma::mmaM64N64K16F32Bf16RegA<1>(&T49[0],
          T43_w[(((i51 * 16) / 8) * 4) / 2],
          T43_w[((((i51 * 16) / 8) * 4) / 2) + 1],
          T43_w[((((i51 * 16) / 8) * 4) / 2) + 2],
          T43_w[((((i51 * 16) / 8) * 4) / 2) + 3],
          wgmma::smemDescriptor(toSmem(&T54[i51 * 1024]), 8192, 1024, 1));
    }
    wgmma::commit();
    wgmma::wait<0>();
    wgmma::fenceOperands(T43_w);
    wgmma::fenceOperands(T49);
    __syncthreads();  // WAR: T53 is rewritten next iteration
  }
  // loop of iUR574{8}
  #pragma unroll
  for (int64_t i44 = 0; i44 < 8; ++i44) {
    // loop of iUR572{2}
    #pragma unroll
    for (int64_t i45 = 0; i45 < 2; ++i45) {
      float T51[2];
      // loop of iUR564{2}
      #pragma unroll
      for (int64_t i46 = 0; i46 < 2; ++i46) {
        float T50[1];
        T50[0] = T42[i45];
        T51[i46] = T49[(i46 + (i45 * 2)) + (i44 * 4)] / T50[0];
      }
      if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i45 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 200) {
        *reinterpret_cast<uint32_t*>(&T15.data[((((((int64_t)blockIdx.y) / 2) * T15_stride0) + ((((int64_t)blockIdx.y) % 2) * T15_stride1)) + (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i45 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) * T15_stride2)) + (((i44 * 8) + ((((int64_t)threadIdx.x) % 4) * 2)) * T15_stride3)]) = (static_cast<uint32_t>((__float2bfloat16(T51[0])).raw) | (static_cast<uint32_t>((__float2bfloat16(T51[1])).raw) << 16));
      }
    }
  }
  __syncthreads();  // every wait on T52_mbar done before inval
  if (threadIdx.x == 0) {
    mbarrier::inval(toSmem(&T52_mbar[0]));
  }
  __syncthreads();  // every wait on T53_mbar done before inval
  if (threadIdx.x == 0) {
    mbarrier::inval(toSmem(&T53_mbar[0]));
  }
  __syncthreads();  // every wait on T54_mbar done before inval
  if (threadIdx.x == 0) {
    mbarrier::inval(toSmem(&T54_mbar[0]));
  }
}
