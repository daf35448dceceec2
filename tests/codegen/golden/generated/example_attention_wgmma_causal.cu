extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<__bfloat16, 4> T0, Tensor<__bfloat16, 4> T1, Tensor<__bfloat16, 4> T2, Tensor<__bfloat16, 4> T21, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2) {
  const int64_t T21_stride0 = T21.stride[0];
  const int64_t T21_stride1 = T21.stride[1];
  const int64_t T21_stride2 = T21.stride[2];
  const int64_t T21_stride3 = T21.stride[3];
  extern __shared__ __align__(1024) char smem[];

  int64_t* T66_mbar = reinterpret_cast<int64_t*>(smem + 16384);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T66_mbar[0]), 1);
  }
  __syncthreads();  // init: T66_mbar visible to every thread
  int64_t* T65_mbar = reinterpret_cast<int64_t*>(smem + 16392);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T65_mbar[0]), 1);
  }
  __syncthreads();  // init: T65_mbar visible to every thread
  int64_t* T64_mbar = reinterpret_cast<int64_t*>(smem + 16400);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T64_mbar[0]), 1);
  }
  __syncthreads();  // init: T64_mbar visible to every thread
  __bfloat16* T64 = reinterpret_cast<__bfloat16*>(smem + 17408);
  float T44_carry[2];
  float T54[2];
  float T61[32];
  if (threadIdx.x == 0) {
    mbarrier::arriveExpectTx(toSmem(&T64_mbar[0]), 8192);
    // loop of iUR281{1}
    #pragma unroll
    for (int64_t i10 = 0; i10 < 1; ++i10) {
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T64[i10 * 4096]), &tmap_T0, toSmem(&T64_mbar[0]), i10 * 64, ((int64_t)blockIdx.x) * 64, ((int64_t)blockIdx.y) % 2, ((int64_t)blockIdx.y) / 2);
    }
  }
  // loop of iUR659{2}
  #pragma unroll
  for (int64_t i26 = 0; i26 < 2; ++i26) {
    T44_carry[i26] = __uint_as_float(0xff800000u);
  }
  // loop of iUR669{2}
  #pragma unroll
  for (int64_t i35 = 0; i35 < 2; ++i35) {
    T54[i35] = 0.0f;
  }
  // loop of iUR712{8}
  #pragma unroll
  for (int64_t i55 = 0; i55 < 8; ++i55) {
    // loop of iUR710{2}
    #pragma unroll
    for (int64_t i56 = 0; i56 < 2; ++i56) {
      // loop of iUR715{2}
      #pragma unroll
      for (int64_t i57 = 0; i57 < 2; ++i57) {
        T61[(i57 + (i56 * 2)) + (i55 * 4)] = 0.0f;
      }
    }
  }
  mbarrier::waitParity(toSmem(&T64_mbar[0]), 0);
  // rS244{6}: the first min(min(6, ceilDiv((blockIdx.x * 64) + 64, 64)), min(5, ((blockIdx.x * 64) + 1) / 64)) iterations with T33, T42 known true
  const int64_t h0 = ((int64_t)blockIdx.y) / 2;
  const int64_t h1 = ((int64_t)blockIdx.y) % 2;
  // loop of rS244{6}
  for (int64_t i2 = 0; i2 < min64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)), min64(5, ((((int64_t)blockIdx.x) * 64) + 1) / 64)); ++i2) {
    float T31[32];
    float T42[32];
    float T43[2];
    float T43_acc[2];
    float T47[2];
    float T49[2];
    float T52[32];
    float T53[2];
    float T53_acc[2];
    uint32_t T55_w[16];  // T55 in pairs: the A registers of wgmmas
    __bfloat16* const T55 = reinterpret_cast<__bfloat16*>(T55_w);
    float T60[2];
    __bfloat16* T66 = reinterpret_cast<__bfloat16*>(smem);
    wgmma::discard(T31);  // written by its first wgmmas (scale-d 0), not zeroed
    // loop of rS274{1}
    for (int64_t i13 = 0; i13 < 1; ++i13) {
      __bfloat16* T65 = reinterpret_cast<__bfloat16*>(smem + 8192);
      if (threadIdx.x == 0) {
        mbarrier::arriveExpectTx(toSmem(&T65_mbar[0]), 8192);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T65[0]), &tmap_T1, toSmem(&T65_mbar[0]), i13 * 64, i2 * 64, h1, h0);
      }
      mbarrier::waitParity(toSmem(&T65_mbar[0]), (i13 + i2) % 2);
      wgmma::fenceOperands(T31);
      wgmma::fence();
      // loop of rUR276{4}
      #pragma unroll
      for (int64_t i17 = 0; i17 < 4; ++i17) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
            wgmma::smemDescriptor(toSmem(&T64[((i17 * 16) % 64) + (i13 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T65[(i17 * 16) % 64]), 16, 1024, 1), (i13 != 0) || (i17 != 0));
      }
      wgmma::commit();
      wgmma::wait<0>();
      wgmma::fenceOperands(T31);
    }
    // loop of iUR322{8}
    #pragma unroll
    for (int64_t i4 = 0; i4 < 8; ++i4) {
      // loop of iUR320{2}
      #pragma unroll
      for (int64_t i5 = 0; i5 < 2; ++i5) {
        // loop of iUR325{2}
        #pragma unroll
        for (int64_t i6 = 0; i6 < 2; ++i6) {
          float T32[1];
          float T33[1];
          T32[0] = T31[((i4 * 4) + (i5 * 2)) + i6] * 0.125f;
          T33[0] = T32[0];
          T42[(i6 + (i5 * 2)) + (i4 * 4)] = T33[0];
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 2; ++i23) {
      T43_acc[i23] = __uint_as_float(0xff800000u);
    }
    // loop of rUR335{8}
    #pragma unroll
    for (int64_t i22 = 0; i22 < 8; ++i22) {
      // loop of iUR333{2}
      #pragma unroll
      for (int64_t i23 = 0; i23 < 2; ++i23) {
        // loop of rUR338{2}
        #pragma unroll
        for (int64_t i24 = 0; i24 < 2; ++i24) {
          T43_acc[i23] = fmaxf(T43_acc[i23], T42[(i24 + (i23 * 2)) + (i22 * 4)]);
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 2; ++i23) {
      T43_acc[i23] = ReduceMax()(T43_acc[i23], warpShflXor(T43_acc[i23], 1u));
      T43_acc[i23] = ReduceMax()(T43_acc[i23], warpShflXor(T43_acc[i23], 2u));
      T43[i23] = T43_acc[i23];
    }
    // loop of iUR659{2}
    #pragma unroll
    for (int64_t i26 = 0; i26 < 2; ++i26) {
      float T44[1];
      float T45[1];
      bool T46[1];
      float T48[1];
      T44[0] = T44_carry[i26];
      T44_carry[i26] = fmaxf(T44_carry[i26], T43[i26]);
      T45[0] = fmaxf(T44[0], T43[i26]);
      T46[0] = T45[0] == __uint_as_float(0xff800000u);
      T47[i26] = T46[0] ? 0.0f : T45[0];
      T48[0] = T44[0] - T47[i26];
      T49[i26] = exp2f(1.4426950408889634f * T48[0]);
    }
    // loop of iUR361{8}
    #pragma unroll
    for (int64_t i28 = 0; i28 < 8; ++i28) {
      // loop of iUR359{2}
      #pragma unroll
      for (int64_t i29 = 0; i29 < 2; ++i29) {
        // loop of iUR364{2}
        #pragma unroll
        for (int64_t i30 = 0; i30 < 2; ++i30) {
          float T50[1];
          float T51[1];
          T50[0] = T47[i29];
          T51[0] = T42[(i30 + (i29 * 2)) + (i28 * 4)] - T50[0];
          T52[(i30 + (i29 * 2)) + (i28 * 4)] = exp2f(1.4426950408889634f * T51[0]);
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 2; ++i32) {
      T53_acc[i32] = 0.0f;
    }
    // loop of rUR387{8}
    #pragma unroll
    for (int64_t i31 = 0; i31 < 8; ++i31) {
      // loop of iUR385{2}
      #pragma unroll
      for (int64_t i32 = 0; i32 < 2; ++i32) {
        // loop of rUR390{2}
        #pragma unroll
        for (int64_t i33 = 0; i33 < 2; ++i33) {
          T53_acc[i32] = T53_acc[i32] + T52[(i33 + (i32 * 2)) + (i31 * 4)];
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 2; ++i32) {
      T53_acc[i32] = ReduceAdd()(T53_acc[i32], warpShflXor(T53_acc[i32], 1u));
      T53_acc[i32] = ReduceAdd()(T53_acc[i32], warpShflXor(T53_acc[i32], 2u));
      T53[i32] = T53_acc[i32];
    }
    // loop of iUR374{8}
    #pragma unroll
    for (int64_t i36 = 0; i36 < 8; ++i36) {
      // loop of iUR372{2}
      #pragma unroll
      for (int64_t i37 = 0; i37 < 2; ++i37) {
        // loop of iUR377{2}
        #pragma unroll
        for (int64_t i38 = 0; i38 < 2; ++i38) {
          T55[(i38 + (i37 * 2)) + (i36 * 4)] = __float2bfloat16(T52[(i38 + (i37 * 2)) + (i36 * 4)]);
        }
      }
    }
    // loop of iUR669{2}
    #pragma unroll
    for (int64_t i35 = 0; i35 < 2; ++i35) {
      T54[i35] = (T54[i35] * T49[i35]) + T53[i35];
    }
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T66_mbar[0]), 8192);
      // loop of iUR703{1}
      #pragma unroll
      for (int64_t i47 = 0; i47 < 1; ++i47) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T66[i47 * 4096]), &tmap_T2, toSmem(&T66_mbar[0]), i47 * 64, i2 * 64, h1, h0);
      }
    }
    // loop of iUR775{2}
    #pragma unroll
    for (int64_t i41 = 0; i41 < 2; ++i41) {
      T60[i41] = T49[i41];
    }
    if (i2 > 0) {
      // loop of iUR712{8}
      #pragma unroll
      for (int64_t i55 = 0; i55 < 8; ++i55) {
        // loop of iUR710{2}
        #pragma unroll
        for (int64_t i56 = 0; i56 < 2; ++i56) {
          // loop of iUR715{2}
          #pragma unroll
          for (int64_t i57 = 0; i57 < 2; ++i57) {
            T61[(i57 + (i56 * 2)) + (i55 * 4)] = T61[(i57 + (i56 * 2)) + (i55 * 4)] * T60[i56];
          }
        }
      }
    }
    mbarrier::waitParity(toSmem(&T66_mbar[0]), i2 % 2);
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T61);
    wgmma::fence();
    // loop of rUR697{4}
    #pragma unroll
    for (int64_t i51 = 0; i51 < 4; ++i51) {
      wgmma::mmaM64N64K16F32Bf16RegA<1>(&T61[0],
          T55_w[(((i51 * 16) / 8) * 4) / 2],
          T55_w[((((i51 * 16) / 8) * 4) / 2) + 1],
          T55_w[((((i51 * 16) / 8) * 4) / 2) + 2],
          T55_w[((((i51 * 16) / 8) * 4) / 2) + 3],
          wgmma::smemDescriptor(toSmem(&T66[i51 * 1024]), 8192, 1024, 1));
    }
    wgmma::commit();
    wgmma::wait<0>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T61);
    __syncthreads();  // WAR: T65 is rewritten next iteration
  }
  const int64_t h2 = ((int64_t)blockIdx.y) / 2;
  const int64_t h3 = ((int64_t)blockIdx.y) % 2;
  const int64_t h4 = (((int64_t)threadIdx.x) % 4) * 2;
  const int64_t h5 = ((((int64_t)threadIdx.x) / 4) / 8) * 16;
  const int64_t h6 = (((int64_t)threadIdx.x) / 4) % 8;
  // loop of rS244{6}
  for (int64_t i2 = min64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)), min64(5, ((((int64_t)blockIdx.x) * 64) + 1) / 64)); i2 < min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)); ++i2) {
    int64_t T34[1];
    int64_t T35[1];
    int64_t T36[1];
    float T31[32];
    float T42[32];
    float T43[2];
    float T43_acc[2];
    float T47[2];
    float T49[2];
    float T52[32];
    float T53[2];
    float T53_acc[2];
    uint32_t T55_w[16];  // T55 in pairs: the A registers of wgmmas
    __bfloat16* const T55 = reinterpret_cast<__bfloat16*>(T55_w);
    float T60[2];
    __bfloat16* T66 = reinterpret_cast<__bfloat16*>(smem);
    T34[0] = i2;
    T35[0] = T34[0] * 64LL;
    T36[0] = T35[0];
    wgmma::discard(T31);  // written by its first wgmmas (scale-d 0), not zeroed
    // loop of rS274{1}
    for (int64_t i13 = 0; i13 < 1; ++i13) {
      __bfloat16* T65 = reinterpret_cast<__bfloat16*>(smem + 8192);
      if (threadIdx.x == 0) {
        mbarrier::arriveExpectTx(toSmem(&T65_mbar[0]), 8192);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T65[0]), &tmap_T1, toSmem(&T65_mbar[0]), i13 * 64, i2 * 64, h3, h2);
      }
      mbarrier::waitParity(toSmem(&T65_mbar[0]), (i13 + i2) % 2);
      wgmma::fenceOperands(T31);
      wgmma::fence();
      // loop of rUR276{4}
      #pragma unroll
      for (int64_t i17 = 0; i17 < 4; ++i17) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
            wgmma::smemDescriptor(toSmem(&T64[((i17 * 16) % 64) + (i13 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T65[(i17 * 16) % 64]), 16, 1024, 1), (i13 != 0) || (i17 != 0));
      }
      wgmma::commit();
      wgmma::wait<0>();
      wgmma::fenceOperands(T31);
    }
    // loop of iUR322{8}
    #pragma unroll
    for (int64_t i4 = 0; i4 < 8; ++i4) {
      // loop of iUR320{2}
      #pragma unroll
      for (int64_t i5 = 0; i5 < 2; ++i5) {
        // loop of iUR325{2}
        #pragma unroll
        for (int64_t i6 = 0; i6 < 2; ++i6) {
          int T6[1];
          int T7[1];
          int T8[1];
          int T22[1];
          int T23[1];
          int T24[1];
          int T25[1];
          bool T26[1];
          int64_t T37[1];
          int64_t T38[1];
          int64_t T39[1];
          bool T40[1];
          bool T41[1];
          float T32[1];
          float T33[1];
          T37[0] = (i4 * 8) + (h4 + i6);
          T38[0] = T37[0];
          T39[0] = T36[0] + T38[0];
          T40[0] = T39[0] < 333LL;
          T41[0] = T40[0];
          if (((i2 * 64) + ((i4 * 8) + (h4 + i6))) < 333) {
            T8[0] = static_cast<int>((i2 * 64) + ((i4 * 8) + (h4 + i6)));
          }
          if (((i2 * 64) + ((i4 * 8) + (h4 + i6))) < 333) {
            T22[0] = T8[0];
          } else {
            T22[0] = 0;
          }
          T23[0] = T22[0];
          T24[0] = T23[0];
          T6[0] = static_cast<int>((((int64_t)blockIdx.x) * 64) + (h5 + ((i5 * 8) + h6)));
          T7[0] = T6[0];
          T25[0] = T7[0];
          T26[0] = T24[0] <= T25[0];
          T32[0] = T31[((i4 * 4) + (i5 * 2)) + i6] * 0.125f;
          T33[0] = T26[0] ? T32[0] : __uint_as_float(0xff800000u);
          T42[(i6 + (i5 * 2)) + (i4 * 4)] = T41[0] ? T33[0] : __uint_as_float(0xff800000u);
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 2; ++i23) {
      T43_acc[i23] = __uint_as_float(0xff800000u);
    }
    // loop of rUR335{8}
    #pragma unroll
    for (int64_t i22 = 0; i22 < 8; ++i22) {
      // loop of iUR333{2}
      #pragma unroll
      for (int64_t i23 = 0; i23 < 2; ++i23) {
        // loop of rUR338{2}
        #pragma unroll
        for (int64_t i24 = 0; i24 < 2; ++i24) {
          T43_acc[i23] = fmaxf(T43_acc[i23], T42[(i24 + (i23 * 2)) + (i22 * 4)]);
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 2; ++i23) {
      T43_acc[i23] = ReduceMax()(T43_acc[i23], warpShflXor(T43_acc[i23], 1u));
      T43_acc[i23] = ReduceMax()(T43_acc[i23], warpShflXor(T43_acc[i23], 2u));
      T43[i23] = T43_acc[i23];
    }
    // loop of iUR659{2}
    #pragma unroll
    for (int64_t i26 = 0; i26 < 2; ++i26) {
      float T44[1];
      float T45[1];
      bool T46[1];
      float T48[1];
      T44[0] = T44_carry[i26];
      T44_carry[i26] = fmaxf(T44_carry[i26], T43[i26]);
      T45[0] = fmaxf(T44[0], T43[i26]);
      T46[0] = T45[0] == __uint_as_float(0xff800000u);
      T47[i26] = T46[0] ? 0.0f : T45[0];
      T48[0] = T44[0] - T47[i26];
      T49[i26] = exp2f(1.4426950408889634f * T48[0]);
    }
    // loop of iUR361{8}
    #pragma unroll
    for (int64_t i28 = 0; i28 < 8; ++i28) {
      // loop of iUR359{2}
      #pragma unroll
      for (int64_t i29 = 0; i29 < 2; ++i29) {
        // loop of iUR364{2}
        #pragma unroll
        for (int64_t i30 = 0; i30 < 2; ++i30) {
          float T50[1];
          float T51[1];
          T50[0] = T47[i29];
          T51[0] = T42[(i30 + (i29 * 2)) + (i28 * 4)] - T50[0];
          T52[(i30 + (i29 * 2)) + (i28 * 4)] = exp2f(1.4426950408889634f * T51[0]);
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 2; ++i32) {
      T53_acc[i32] = 0.0f;
    }
    // loop of rUR387{8}
    #pragma unroll
    for (int64_t i31 = 0; i31 < 8; ++i31) {
      // loop of iUR385{2}
      #pragma unroll
      for (int64_t i32 = 0; i32 < 2; ++i32) {
        // loop of rUR390{2}
        #pragma unroll
        for (int64_t i33 = 0; i33 < 2; ++i33) {
          T53_acc[i32] = T53_acc[i32] + T52[(i33 + (i32 * 2)) + (i31 * 4)];
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 2; ++i32) {
      T53_acc[i32] = ReduceAdd()(T53_acc[i32], warpShflXor(T53_acc[i32], 1u));
      T53_acc[i32] = ReduceAdd()(T53_acc[i32], warpShflXor(T53_acc[i32], 2u));
      T53[i32] = T53_acc[i32];
    }
    // loop of iUR374{8}
    #pragma unroll
    for (int64_t i36 = 0; i36 < 8; ++i36) {
      // loop of iUR372{2}
      #pragma unroll
      for (int64_t i37 = 0; i37 < 2; ++i37) {
        // loop of iUR377{2}
        #pragma unroll
        for (int64_t i38 = 0; i38 < 2; ++i38) {
          T55[(i38 + (i37 * 2)) + (i36 * 4)] = __float2bfloat16(T52[(i38 + (i37 * 2)) + (i36 * 4)]);
        }
      }
    }
    // loop of iUR669{2}
    #pragma unroll
    for (int64_t i35 = 0; i35 < 2; ++i35) {
      T54[i35] = (T54[i35] * T49[i35]) + T53[i35];
    }
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T66_mbar[0]), 8192);
      // loop of iUR703{1}
      #pragma unroll
      for (int64_t i47 = 0; i47 < 1; ++i47) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T66[i47 * 4096]), &tmap_T2, toSmem(&T66_mbar[0]), i47 * 64, i2 * 64, h3, h2);
      }
    }
    // loop of iUR775{2}
    #pragma unroll
    for (int64_t i41 = 0; i41 < 2; ++i41) {
      T60[i41] = T49[i41];
    }
    if (i2 > 0) {
      // loop of iUR712{8}
      #pragma unroll
      for (int64_t i55 = 0; i55 < 8; ++i55) {
        // loop of iUR710{2}
        #pragma unroll
        for (int64_t i56 = 0; i56 < 2; ++i56) {
          // loop of iUR715{2}
          #pragma unroll
          for (int64_t i57 = 0; i57 < 2; ++i57) {
            T61[(i57 + (i56 * 2)) + (i55 * 4)] = T61[(i57 + (i56 * 2)) + (i55 * 4)] * T60[i56];
          }
        }
      }
    }
    mbarrier::waitParity(toSmem(&T66_mbar[0]), i2 % 2);
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T61);
    wgmma::fence();
    // loop of rUR697{4}
    #pragma unroll
    for (int64_t i51 = 0; i51 < 4; ++i51) {
      wgmma::mmaM64N64K16F32Bf16RegA<1>(&T61[0],
          T55_w[(((i51 * 16) / 8) * 4) / 2],
          T55_w[((((i51 * 16) / 8) * 4) / 2) + 1],
          T55_w[((((i51 * 16) / 8) * 4) / 2) + 2],
          T55_w[((((i51 * 16) / 8) * 4) / 2) + 3],
          wgmma::smemDescriptor(toSmem(&T66[i51 * 1024]), 8192, 1024, 1));
    }
    wgmma::commit();
    wgmma::wait<0>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T61);
    __syncthreads();  // WAR: T65 is rewritten next iteration
  }
  // loop of iUR751{8}
  #pragma unroll
  for (int64_t i44 = 0; i44 < 8; ++i44) {
    // loop of iUR749{2}
    #pragma unroll
    for (int64_t i45 = 0; i45 < 2; ++i45) {
      float T63[2];
      // loop of iUR741{2}
      #pragma unroll
      for (int64_t i46 = 0; i46 < 2; ++i46) {
        float T62[1];
        T62[0] = T54[i45];
        T63[i46] = T61[(i46 + (i45 * 2)) + (i44 * 4)] / T62[0];
      }
      if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i45 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 100) {
        *reinterpret_cast<uint32_t*>(&T21.data[((((((int64_t)blockIdx.y) / 2) * T21_stride0) + ((((int64_t)blockIdx.y) % 2) * T21_stride1)) + (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i45 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) * T21_stride2)) + (((i44 * 8) + ((((int64_t)threadIdx.x) % 4) * 2)) * T21_stride3)]) = (static_cast<uint32_t>((__float2bfloat16(T63[0])).raw) | (static_cast<uint32_t>((__float2bfloat16(T63[1])).raw) << 16));
      }
    }
  }
  __syncthreads();  // every wait on T64_mbar done before inval
  if (threadIdx.x == 0) {
    mbarrier::inval(toSmem(&T64_mbar[0]));
  }
  __syncthreads();  // every wait on T65_mbar done before inval
  if (threadIdx.x == 0) {
    mbarrier::inval(toSmem(&T65_mbar[0]));
  }
  __syncthreads();  // every wait on T66_mbar done before inval
  if (threadIdx.x == 0) {
    mbarrier::inval(toSmem(&T66_mbar[0]));
  }
}
