extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<__bfloat16, 4> T0, Tensor<__bfloat16, 4> T1, Tensor<__bfloat16, 4> T2, Tensor<__bfloat16, 4> T21, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2) {
  const int64_t T21_stride0 = T21.stride[0];
  const int64_t T21_stride1 = T21.stride[1];
  const int64_t T21_stride2 = T21.stride[2];
  const int64_t T21_stride3 = T21.stride[3];
  extern __shared__ __align__(1024) char smem[];

  int64_t* T64_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T64_mbar[0]), 1);
  }
  __syncthreads();  // init: T64_mbar visible to every thread
  __bfloat16* T64 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T65 = reinterpret_cast<__bfloat16*>(smem + 9216);
  float T44_carry[2];
  float T54[2];
  __bfloat16* T66 = reinterpret_cast<__bfloat16*>(smem + 33792);
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
  for (int64_t i27 = 0; i27 < 2; ++i27) {
    T44_carry[i27] = __uint_as_float(0xff800000u);
  }
  // loop of iUR669{2}
  #pragma unroll
  for (int64_t i36 = 0; i36 < 2; ++i36) {
    T54[i36] = 0.0f;
  }
  // loop of iUR712{8}
  #pragma unroll
  for (int64_t i56 = 0; i56 < 8; ++i56) {
    // loop of iUR710{2}
    #pragma unroll
    for (int64_t i57 = 0; i57 < 2; ++i57) {
      // loop of iUR715{2}
      #pragma unroll
      for (int64_t i58 = 0; i58 < 2; ++i58) {
        T61[(i58 + (i57 * 2)) + (i56 * 4)] = 0.0f;
      }
    }
  }
  uint32_t T55_w[16];  // T55 in pairs: the A registers of wgmmas
  __bfloat16* const T55 = reinterpret_cast<__bfloat16*>(T55_w);
  int64_t* T65_mbar = reinterpret_cast<int64_t*>(smem + 8);
  if (threadIdx.x == 0) {
    // pre-prologue loop of stages of T65, T66
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 3; ++s2) {
      mbarrier::init(toSmem(&T65_mbar[s2]), 1);
      mbarrier::init(toSmem(&T65_mbar[s2 + 3]), 128);
    }
  }
  __syncthreads();  // init: T65_mbar visible to every thread
  // pre-prologue loop of every stage starts empty
  #pragma unroll 1
  for (int64_t s2 = 0; s2 < 3; ++s2) {
    mbarrier::arrive(toSmem(&T65_mbar[s2 + 3]));
  }
  mbarrier::waitParity(toSmem(&T64_mbar[0]), 0);
  if (threadIdx.x == 0) {
    // prologue loop of rS244{6}
    #pragma unroll
    for (int64_t i2 = 0; i2 < min64(2, min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64))); ++i2) {
      mbarrier::waitParity(toSmem(&T65_mbar[(i2 % 3) + 3]), (i2 / 3) % 2);
      mbarrier::arriveExpectTx(toSmem(&T65_mbar[i2 % 3]), 16384);
      // loop of iUR287{1}
      #pragma unroll
      for (int64_t i13 = 0; i13 < 1; ++i13) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T65[(i13 * 4096) + ((i2 % 3) * 4096)]), &tmap_T1, toSmem(&T65_mbar[i2 % 3]), i13 * 64, i2 * 64, ((int64_t)blockIdx.y) % 2, ((int64_t)blockIdx.y) / 2);
      }
      // loop of iUR703{1}
      #pragma unroll
      for (int64_t i48 = 0; i48 < 1; ++i48) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T66[(i48 * 4096) + ((i2 % 3) * 4096)]), &tmap_T2, toSmem(&T65_mbar[i2 % 3]), i48 * 64, i2 * 64, ((int64_t)blockIdx.y) % 2, ((int64_t)blockIdx.y) / 2);
      }
    }
  }
  // rS244{6}: the first min(min(1, min(6, ceilDiv((blockIdx.x * 64) + 64, 64)) - 2), min(5, ((blockIdx.x * 64) + 1) / 64)) iterations with T33, T42 known true
  const int64_t h0 = ((int64_t)blockIdx.y) / 2;
  const int64_t h1 = ((int64_t)blockIdx.y) % 2;
  // main loop of rS244{6}
  #pragma unroll 1
  for (int64_t i2 = 0; i2 < min64(min64(1, min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2), min64(5, ((((int64_t)blockIdx.x) * 64) + 1) / 64)); ++i2) {
    float T31[32];
    float T42[32];
    float T43[2];
    float T43_acc[2];
    float T47[2];
    float T49[2];
    float T52[32];
    float T53[2];
    float T53_acc[2];
    float T60[2];
    mbarrier::waitParity(toSmem(&T65_mbar[i2 % 3]), (i2 / 3) % 2);
    wgmma::discard(T31);  // written by its first wgmmas (scale-d 0), not zeroed
    wgmma::fenceOperands(T31);
    wgmma::fence();
    // loop of rUR274{1}
    #pragma unroll
    for (int64_t i17 = 0; i17 < 1; ++i17) {
      // loop of rUR276{4}
      #pragma unroll
      for (int64_t i18 = 0; i18 < 4; ++i18) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
            wgmma::smemDescriptor(toSmem(&T64[((i18 * 16) % 64) + (i17 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T65[(((i18 * 16) % 64) + (i17 * 4096)) + ((i2 % 3) * 4096)]), 16, 1024, 1), (i17 != 0) || (i18 != 0));
      }
    }
    wgmma::commit();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
    wgmma::fence();
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
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
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = __uint_as_float(0xff800000u);
    }
    // loop of rUR335{8}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 8; ++i23) {
      // loop of iUR333{2}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 2; ++i24) {
        // loop of rUR338{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          T43_acc[i24] = fmaxf(T43_acc[i24], T42[(i25 + (i24 * 2)) + (i23 * 4)]);
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 1u));
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 2u));
      T43[i24] = T43_acc[i24];
    }
    // loop of iUR659{2}
    #pragma unroll
    for (int64_t i27 = 0; i27 < 2; ++i27) {
      float T44[1];
      float T45[1];
      bool T46[1];
      float T48[1];
      T44[0] = T44_carry[i27];
      T44_carry[i27] = fmaxf(T44_carry[i27], T43[i27]);
      T45[0] = fmaxf(T44[0], T43[i27]);
      T46[0] = T45[0] == __uint_as_float(0xff800000u);
      T47[i27] = T46[0] ? 0.0f : T45[0];
      T48[0] = T44[0] - T47[i27];
      T49[i27] = exp2f(1.4426950408889634f * T48[0]);
    }
    // loop of iUR361{8}
    #pragma unroll
    for (int64_t i29 = 0; i29 < 8; ++i29) {
      // loop of iUR359{2}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 2; ++i30) {
        // loop of iUR364{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          float T50[1];
          float T51[1];
          T50[0] = T47[i30];
          T51[0] = T42[(i31 + (i30 * 2)) + (i29 * 4)] - T50[0];
          T52[(i31 + (i30 * 2)) + (i29 * 4)] = exp2f(1.4426950408889634f * T51[0]);
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = 0.0f;
    }
    // loop of rUR387{8}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 8; ++i32) {
      // loop of iUR385{2}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 2; ++i33) {
        // loop of rUR390{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          T53_acc[i33] = T53_acc[i33] + T52[(i34 + (i33 * 2)) + (i32 * 4)];
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 1u));
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 2u));
      T53[i33] = T53_acc[i33];
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
    // loop of iUR374{8}
    #pragma unroll
    for (int64_t i37 = 0; i37 < 8; ++i37) {
      // loop of iUR372{2}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 2; ++i38) {
        // loop of iUR377{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          T55[(i39 + (i38 * 2)) + (i37 * 4)] = __float2bfloat16(T52[(i39 + (i38 * 2)) + (i37 * 4)]);
        }
      }
    }
    // loop of iUR669{2}
    #pragma unroll
    for (int64_t i36 = 0; i36 < 2; ++i36) {
      T54[i36] = (T54[i36] * T49[i36]) + T53[i36];
    }
    // loop of iUR775{2}
    #pragma unroll
    for (int64_t i42 = 0; i42 < 2; ++i42) {
      T60[i42] = T49[i42];
    }
    if (i2 > 0) {
      // loop of iUR712{8}
      #pragma unroll
      for (int64_t i56 = 0; i56 < 8; ++i56) {
        // loop of iUR710{2}
        #pragma unroll
        for (int64_t i57 = 0; i57 < 2; ++i57) {
          // loop of iUR715{2}
          #pragma unroll
          for (int64_t i58 = 0; i58 < 2; ++i58) {
            T61[(i58 + (i57 * 2)) + (i56 * 4)] = T61[(i58 + (i57 * 2)) + (i56 * 4)] * T60[i57];
          }
        }
      }
    }
    if ((i2 - 1) >= 0) {
      mbarrier::arrive(toSmem(&T65_mbar[((i2 - 1) % 3) + 3]));
    }
    if (threadIdx.x == 0) {
      mbarrier::waitParity(toSmem(&T65_mbar[((i2 + 2) % 3) + 3]), ((i2 + 2) / 3) % 2);
      mbarrier::arriveExpectTx(toSmem(&T65_mbar[(i2 + 2) % 3]), 16384);
      // loop of iUR287{1}
      #pragma unroll
      for (int64_t i13 = 0; i13 < 1; ++i13) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T65[(i13 * 4096) + (((i2 + 2) % 3) * 4096)]), &tmap_T1, toSmem(&T65_mbar[(i2 + 2) % 3]), i13 * 64, (i2 + 2) * 64, h1, h0);
      }
      // loop of iUR703{1}
      #pragma unroll
      for (int64_t i48 = 0; i48 < 1; ++i48) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T66[(i48 * 4096) + (((i2 + 2) % 3) * 4096)]), &tmap_T2, toSmem(&T65_mbar[(i2 + 2) % 3]), i48 * 64, (i2 + 2) * 64, h1, h0);
      }
    }
  }
  const int64_t h2 = (((int64_t)threadIdx.x) % 4) * 2;
  const int64_t h3 = ((((int64_t)threadIdx.x) / 4) / 8) * 16;
  const int64_t h4 = (((int64_t)threadIdx.x) / 4) % 8;
  const int64_t h5 = ((int64_t)blockIdx.y) / 2;
  const int64_t h6 = ((int64_t)blockIdx.y) % 2;
  // main loop of rS244{6}
  #pragma unroll 1
  for (int64_t i2 = min64(min64(1, min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2), min64(5, ((((int64_t)blockIdx.x) * 64) + 1) / 64)); i2 < min64(1, min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2); ++i2) {
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
    float T60[2];
    mbarrier::waitParity(toSmem(&T65_mbar[i2 % 3]), (i2 / 3) % 2);
    T34[0] = i2;
    T35[0] = T34[0] * 64LL;
    T36[0] = T35[0];
    wgmma::discard(T31);  // written by its first wgmmas (scale-d 0), not zeroed
    wgmma::fenceOperands(T31);
    wgmma::fence();
    // loop of rUR274{1}
    #pragma unroll
    for (int64_t i17 = 0; i17 < 1; ++i17) {
      // loop of rUR276{4}
      #pragma unroll
      for (int64_t i18 = 0; i18 < 4; ++i18) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
            wgmma::smemDescriptor(toSmem(&T64[((i18 * 16) % 64) + (i17 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T65[(((i18 * 16) % 64) + (i17 * 4096)) + ((i2 % 3) * 4096)]), 16, 1024, 1), (i17 != 0) || (i18 != 0));
      }
    }
    wgmma::commit();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
    wgmma::fence();
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
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
          T37[0] = (i4 * 8) + (h2 + i6);
          T38[0] = T37[0];
          T39[0] = T36[0] + T38[0];
          T40[0] = T39[0] < 333LL;
          T41[0] = T40[0];
          if (((i2 * 64) + ((i4 * 8) + (h2 + i6))) < 333) {
            T8[0] = static_cast<int>((i2 * 64) + ((i4 * 8) + (h2 + i6)));
          }
          if (((i2 * 64) + ((i4 * 8) + (h2 + i6))) < 333) {
            T22[0] = T8[0];
          } else {
            T22[0] = 0;
          }
          T23[0] = T22[0];
          T24[0] = T23[0];
          T6[0] = static_cast<int>((((int64_t)blockIdx.x) * 64) + (h3 + ((i5 * 8) + h4)));
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
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = __uint_as_float(0xff800000u);
    }
    // loop of rUR335{8}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 8; ++i23) {
      // loop of iUR333{2}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 2; ++i24) {
        // loop of rUR338{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          T43_acc[i24] = fmaxf(T43_acc[i24], T42[(i25 + (i24 * 2)) + (i23 * 4)]);
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 1u));
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 2u));
      T43[i24] = T43_acc[i24];
    }
    // loop of iUR659{2}
    #pragma unroll
    for (int64_t i27 = 0; i27 < 2; ++i27) {
      float T44[1];
      float T45[1];
      bool T46[1];
      float T48[1];
      T44[0] = T44_carry[i27];
      T44_carry[i27] = fmaxf(T44_carry[i27], T43[i27]);
      T45[0] = fmaxf(T44[0], T43[i27]);
      T46[0] = T45[0] == __uint_as_float(0xff800000u);
      T47[i27] = T46[0] ? 0.0f : T45[0];
      T48[0] = T44[0] - T47[i27];
      T49[i27] = exp2f(1.4426950408889634f * T48[0]);
    }
    // loop of iUR361{8}
    #pragma unroll
    for (int64_t i29 = 0; i29 < 8; ++i29) {
      // loop of iUR359{2}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 2; ++i30) {
        // loop of iUR364{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          float T50[1];
          float T51[1];
          T50[0] = T47[i30];
          T51[0] = T42[(i31 + (i30 * 2)) + (i29 * 4)] - T50[0];
          T52[(i31 + (i30 * 2)) + (i29 * 4)] = exp2f(1.4426950408889634f * T51[0]);
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = 0.0f;
    }
    // loop of rUR387{8}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 8; ++i32) {
      // loop of iUR385{2}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 2; ++i33) {
        // loop of rUR390{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          T53_acc[i33] = T53_acc[i33] + T52[(i34 + (i33 * 2)) + (i32 * 4)];
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 1u));
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 2u));
      T53[i33] = T53_acc[i33];
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
    // loop of iUR374{8}
    #pragma unroll
    for (int64_t i37 = 0; i37 < 8; ++i37) {
      // loop of iUR372{2}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 2; ++i38) {
        // loop of iUR377{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          T55[(i39 + (i38 * 2)) + (i37 * 4)] = __float2bfloat16(T52[(i39 + (i38 * 2)) + (i37 * 4)]);
        }
      }
    }
    // loop of iUR669{2}
    #pragma unroll
    for (int64_t i36 = 0; i36 < 2; ++i36) {
      T54[i36] = (T54[i36] * T49[i36]) + T53[i36];
    }
    // loop of iUR775{2}
    #pragma unroll
    for (int64_t i42 = 0; i42 < 2; ++i42) {
      T60[i42] = T49[i42];
    }
    if (i2 > 0) {
      // loop of iUR712{8}
      #pragma unroll
      for (int64_t i56 = 0; i56 < 8; ++i56) {
        // loop of iUR710{2}
        #pragma unroll
        for (int64_t i57 = 0; i57 < 2; ++i57) {
          // loop of iUR715{2}
          #pragma unroll
          for (int64_t i58 = 0; i58 < 2; ++i58) {
            T61[(i58 + (i57 * 2)) + (i56 * 4)] = T61[(i58 + (i57 * 2)) + (i56 * 4)] * T60[i57];
          }
        }
      }
    }
    if ((i2 - 1) >= 0) {
      mbarrier::arrive(toSmem(&T65_mbar[((i2 - 1) % 3) + 3]));
    }
    if (threadIdx.x == 0) {
      mbarrier::waitParity(toSmem(&T65_mbar[((i2 + 2) % 3) + 3]), ((i2 + 2) / 3) % 2);
      mbarrier::arriveExpectTx(toSmem(&T65_mbar[(i2 + 2) % 3]), 16384);
      // loop of iUR287{1}
      #pragma unroll
      for (int64_t i13 = 0; i13 < 1; ++i13) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T65[(i13 * 4096) + (((i2 + 2) % 3) * 4096)]), &tmap_T1, toSmem(&T65_mbar[(i2 + 2) % 3]), i13 * 64, (i2 + 2) * 64, h6, h5);
      }
      // loop of iUR703{1}
      #pragma unroll
      for (int64_t i48 = 0; i48 < 1; ++i48) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T66[(i48 * 4096) + (((i2 + 2) % 3) * 4096)]), &tmap_T2, toSmem(&T65_mbar[(i2 + 2) % 3]), i48 * 64, (i2 + 2) * 64, h6, h5);
      }
    }
  }
  // rS244{6}: the first min(min(6, ceilDiv((blockIdx.x * 64) + 64, 64)) - 2, max(min(1, min(6, ceilDiv((blockIdx.x * 64) + 64, 64)) - 2), min(5, ((blockIdx.x * 64) + 1) / 64))) iterations with T33, T42 known true
  const int64_t h7 = ((int64_t)blockIdx.y) / 2;
  const int64_t h8 = ((int64_t)blockIdx.y) % 2;
  // main loop of rS244{6}
  #pragma unroll 1
  for (int64_t i2 = min64(1, min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2); i2 < min64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2, max64(min64(1, min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2), min64(5, ((((int64_t)blockIdx.x) * 64) + 1) / 64))); ++i2) {
    float T31[32];
    float T42[32];
    float T43[2];
    float T43_acc[2];
    float T47[2];
    float T49[2];
    float T52[32];
    float T53[2];
    float T53_acc[2];
    float T60[2];
    mbarrier::waitParity(toSmem(&T65_mbar[i2 % 3]), (i2 / 3) % 2);
    wgmma::discard(T31);  // written by its first wgmmas (scale-d 0), not zeroed
    wgmma::fenceOperands(T31);
    wgmma::fence();
    // loop of rUR274{1}
    #pragma unroll
    for (int64_t i17 = 0; i17 < 1; ++i17) {
      // loop of rUR276{4}
      #pragma unroll
      for (int64_t i18 = 0; i18 < 4; ++i18) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
            wgmma::smemDescriptor(toSmem(&T64[((i18 * 16) % 64) + (i17 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T65[(((i18 * 16) % 64) + (i17 * 4096)) + ((i2 % 3) * 4096)]), 16, 1024, 1), (i17 != 0) || (i18 != 0));
      }
    }
    wgmma::commit();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T61);
    wgmma::fence();
    // loop of rUR697{4}
    #pragma unroll
    for (int64_t i52 = 0; i52 < 4; ++i52) {
      wgmma::mmaM64N64K16F32Bf16RegA<1>(&T61[0],
          T55_w[(((i52 * 16) / 8) * 4) / 2],
          T55_w[((((i52 * 16) / 8) * 4) / 2) + 1],
          T55_w[((((i52 * 16) / 8) * 4) / 2) + 2],
          T55_w[((((i52 * 16) / 8) * 4) / 2) + 3],
          wgmma::smemDescriptor(toSmem(&T66[(i52 * 1024) + (((i2 - 1) % 3) * 4096)]), 8192, 1024, 1));
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T61);
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
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = __uint_as_float(0xff800000u);
    }
    // loop of rUR335{8}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 8; ++i23) {
      // loop of iUR333{2}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 2; ++i24) {
        // loop of rUR338{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          T43_acc[i24] = fmaxf(T43_acc[i24], T42[(i25 + (i24 * 2)) + (i23 * 4)]);
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 1u));
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 2u));
      T43[i24] = T43_acc[i24];
    }
    // loop of iUR659{2}
    #pragma unroll
    for (int64_t i27 = 0; i27 < 2; ++i27) {
      float T44[1];
      float T45[1];
      bool T46[1];
      float T48[1];
      T44[0] = T44_carry[i27];
      T44_carry[i27] = fmaxf(T44_carry[i27], T43[i27]);
      T45[0] = fmaxf(T44[0], T43[i27]);
      T46[0] = T45[0] == __uint_as_float(0xff800000u);
      T47[i27] = T46[0] ? 0.0f : T45[0];
      T48[0] = T44[0] - T47[i27];
      T49[i27] = exp2f(1.4426950408889634f * T48[0]);
    }
    // loop of iUR361{8}
    #pragma unroll
    for (int64_t i29 = 0; i29 < 8; ++i29) {
      // loop of iUR359{2}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 2; ++i30) {
        // loop of iUR364{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          float T50[1];
          float T51[1];
          T50[0] = T47[i30];
          T51[0] = T42[(i31 + (i30 * 2)) + (i29 * 4)] - T50[0];
          T52[(i31 + (i30 * 2)) + (i29 * 4)] = exp2f(1.4426950408889634f * T51[0]);
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = 0.0f;
    }
    // loop of rUR387{8}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 8; ++i32) {
      // loop of iUR385{2}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 2; ++i33) {
        // loop of rUR390{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          T53_acc[i33] = T53_acc[i33] + T52[(i34 + (i33 * 2)) + (i32 * 4)];
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 1u));
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 2u));
      T53[i33] = T53_acc[i33];
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
    // loop of iUR374{8}
    #pragma unroll
    for (int64_t i37 = 0; i37 < 8; ++i37) {
      // loop of iUR372{2}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 2; ++i38) {
        // loop of iUR377{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          T55[(i39 + (i38 * 2)) + (i37 * 4)] = __float2bfloat16(T52[(i39 + (i38 * 2)) + (i37 * 4)]);
        }
      }
    }
    // loop of iUR669{2}
    #pragma unroll
    for (int64_t i36 = 0; i36 < 2; ++i36) {
      T54[i36] = (T54[i36] * T49[i36]) + T53[i36];
    }
    // loop of iUR775{2}
    #pragma unroll
    for (int64_t i42 = 0; i42 < 2; ++i42) {
      T60[i42] = T49[i42];
    }
    if (i2 > 0) {
      // loop of iUR712{8}
      #pragma unroll
      for (int64_t i56 = 0; i56 < 8; ++i56) {
        // loop of iUR710{2}
        #pragma unroll
        for (int64_t i57 = 0; i57 < 2; ++i57) {
          // loop of iUR715{2}
          #pragma unroll
          for (int64_t i58 = 0; i58 < 2; ++i58) {
            T61[(i58 + (i57 * 2)) + (i56 * 4)] = T61[(i58 + (i57 * 2)) + (i56 * 4)] * T60[i57];
          }
        }
      }
    }
    if ((i2 - 1) >= 0) {
      mbarrier::arrive(toSmem(&T65_mbar[((i2 - 1) % 3) + 3]));
    }
    if (threadIdx.x == 0) {
      mbarrier::waitParity(toSmem(&T65_mbar[((i2 + 2) % 3) + 3]), ((i2 + 2) / 3) % 2);
      mbarrier::arriveExpectTx(toSmem(&T65_mbar[(i2 + 2) % 3]), 16384);
      // loop of iUR287{1}
      #pragma unroll
      for (int64_t i13 = 0; i13 < 1; ++i13) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T65[(i13 * 4096) + (((i2 + 2) % 3) * 4096)]), &tmap_T1, toSmem(&T65_mbar[(i2 + 2) % 3]), i13 * 64, (i2 + 2) * 64, h8, h7);
      }
      // loop of iUR703{1}
      #pragma unroll
      for (int64_t i48 = 0; i48 < 1; ++i48) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T66[(i48 * 4096) + (((i2 + 2) % 3) * 4096)]), &tmap_T2, toSmem(&T65_mbar[(i2 + 2) % 3]), i48 * 64, (i2 + 2) * 64, h8, h7);
      }
    }
  }
  const int64_t h9 = (((int64_t)threadIdx.x) % 4) * 2;
  const int64_t h10 = ((((int64_t)threadIdx.x) / 4) / 8) * 16;
  const int64_t h11 = (((int64_t)threadIdx.x) / 4) % 8;
  const int64_t h12 = ((int64_t)blockIdx.y) / 2;
  const int64_t h13 = ((int64_t)blockIdx.y) % 2;
  // main loop of rS244{6}
  #pragma unroll 1
  for (int64_t i2 = min64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2, max64(min64(1, min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2), min64(5, ((((int64_t)blockIdx.x) * 64) + 1) / 64))); i2 < min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2; ++i2) {
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
    float T60[2];
    mbarrier::waitParity(toSmem(&T65_mbar[i2 % 3]), (i2 / 3) % 2);
    T34[0] = i2;
    T35[0] = T34[0] * 64LL;
    T36[0] = T35[0];
    wgmma::discard(T31);  // written by its first wgmmas (scale-d 0), not zeroed
    wgmma::fenceOperands(T31);
    wgmma::fence();
    // loop of rUR274{1}
    #pragma unroll
    for (int64_t i17 = 0; i17 < 1; ++i17) {
      // loop of rUR276{4}
      #pragma unroll
      for (int64_t i18 = 0; i18 < 4; ++i18) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
            wgmma::smemDescriptor(toSmem(&T64[((i18 * 16) % 64) + (i17 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T65[(((i18 * 16) % 64) + (i17 * 4096)) + ((i2 % 3) * 4096)]), 16, 1024, 1), (i17 != 0) || (i18 != 0));
      }
    }
    wgmma::commit();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T61);
    wgmma::fence();
    // loop of rUR697{4}
    #pragma unroll
    for (int64_t i52 = 0; i52 < 4; ++i52) {
      wgmma::mmaM64N64K16F32Bf16RegA<1>(&T61[0],
          T55_w[(((i52 * 16) / 8) * 4) / 2],
          T55_w[((((i52 * 16) / 8) * 4) / 2) + 1],
          T55_w[((((i52 * 16) / 8) * 4) / 2) + 2],
          T55_w[((((i52 * 16) / 8) * 4) / 2) + 3],
          wgmma::smemDescriptor(toSmem(&T66[(i52 * 1024) + (((i2 - 1) % 3) * 4096)]), 8192, 1024, 1));
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T61);
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
          T37[0] = (i4 * 8) + (h9 + i6);
          T38[0] = T37[0];
          T39[0] = T36[0] + T38[0];
          T40[0] = T39[0] < 333LL;
          T41[0] = T40[0];
          if (((i2 * 64) + ((i4 * 8) + (h9 + i6))) < 333) {
            T8[0] = static_cast<int>((i2 * 64) + ((i4 * 8) + (h9 + i6)));
          }
          if (((i2 * 64) + ((i4 * 8) + (h9 + i6))) < 333) {
            T22[0] = T8[0];
          } else {
            T22[0] = 0;
          }
          T23[0] = T22[0];
          T24[0] = T23[0];
          T6[0] = static_cast<int>((((int64_t)blockIdx.x) * 64) + (h10 + ((i5 * 8) + h11)));
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
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = __uint_as_float(0xff800000u);
    }
    // loop of rUR335{8}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 8; ++i23) {
      // loop of iUR333{2}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 2; ++i24) {
        // loop of rUR338{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          T43_acc[i24] = fmaxf(T43_acc[i24], T42[(i25 + (i24 * 2)) + (i23 * 4)]);
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 1u));
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 2u));
      T43[i24] = T43_acc[i24];
    }
    // loop of iUR659{2}
    #pragma unroll
    for (int64_t i27 = 0; i27 < 2; ++i27) {
      float T44[1];
      float T45[1];
      bool T46[1];
      float T48[1];
      T44[0] = T44_carry[i27];
      T44_carry[i27] = fmaxf(T44_carry[i27], T43[i27]);
      T45[0] = fmaxf(T44[0], T43[i27]);
      T46[0] = T45[0] == __uint_as_float(0xff800000u);
      T47[i27] = T46[0] ? 0.0f : T45[0];
      T48[0] = T44[0] - T47[i27];
      T49[i27] = exp2f(1.4426950408889634f * T48[0]);
    }
    // loop of iUR361{8}
    #pragma unroll
    for (int64_t i29 = 0; i29 < 8; ++i29) {
      // loop of iUR359{2}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 2; ++i30) {
        // loop of iUR364{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          float T50[1];
          float T51[1];
          T50[0] = T47[i30];
          T51[0] = T42[(i31 + (i30 * 2)) + (i29 * 4)] - T50[0];
          T52[(i31 + (i30 * 2)) + (i29 * 4)] = exp2f(1.4426950408889634f * T51[0]);
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = 0.0f;
    }
    // loop of rUR387{8}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 8; ++i32) {
      // loop of iUR385{2}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 2; ++i33) {
        // loop of rUR390{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          T53_acc[i33] = T53_acc[i33] + T52[(i34 + (i33 * 2)) + (i32 * 4)];
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 1u));
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 2u));
      T53[i33] = T53_acc[i33];
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
    // loop of iUR374{8}
    #pragma unroll
    for (int64_t i37 = 0; i37 < 8; ++i37) {
      // loop of iUR372{2}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 2; ++i38) {
        // loop of iUR377{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          T55[(i39 + (i38 * 2)) + (i37 * 4)] = __float2bfloat16(T52[(i39 + (i38 * 2)) + (i37 * 4)]);
        }
      }
    }
    // loop of iUR669{2}
    #pragma unroll
    for (int64_t i36 = 0; i36 < 2; ++i36) {
      T54[i36] = (T54[i36] * T49[i36]) + T53[i36];
    }
    // loop of iUR775{2}
    #pragma unroll
    for (int64_t i42 = 0; i42 < 2; ++i42) {
      T60[i42] = T49[i42];
    }
    if (i2 > 0) {
      // loop of iUR712{8}
      #pragma unroll
      for (int64_t i56 = 0; i56 < 8; ++i56) {
        // loop of iUR710{2}
        #pragma unroll
        for (int64_t i57 = 0; i57 < 2; ++i57) {
          // loop of iUR715{2}
          #pragma unroll
          for (int64_t i58 = 0; i58 < 2; ++i58) {
            T61[(i58 + (i57 * 2)) + (i56 * 4)] = T61[(i58 + (i57 * 2)) + (i56 * 4)] * T60[i57];
          }
        }
      }
    }
    if ((i2 - 1) >= 0) {
      mbarrier::arrive(toSmem(&T65_mbar[((i2 - 1) % 3) + 3]));
    }
    if (threadIdx.x == 0) {
      mbarrier::waitParity(toSmem(&T65_mbar[((i2 + 2) % 3) + 3]), ((i2 + 2) / 3) % 2);
      mbarrier::arriveExpectTx(toSmem(&T65_mbar[(i2 + 2) % 3]), 16384);
      // loop of iUR287{1}
      #pragma unroll
      for (int64_t i13 = 0; i13 < 1; ++i13) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T65[(i13 * 4096) + (((i2 + 2) % 3) * 4096)]), &tmap_T1, toSmem(&T65_mbar[(i2 + 2) % 3]), i13 * 64, (i2 + 2) * 64, h13, h12);
      }
      // loop of iUR703{1}
      #pragma unroll
      for (int64_t i48 = 0; i48 < 1; ++i48) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T66[(i48 * 4096) + (((i2 + 2) % 3) * 4096)]), &tmap_T2, toSmem(&T65_mbar[(i2 + 2) % 3]), i48 * 64, (i2 + 2) * 64, h13, h12);
      }
    }
  }
  // rS244{6}: the first min(min(max(1, max(min(6, ceilDiv((blockIdx.x * 64) + 64, 64)) - 2, 0)), min(6, ceilDiv((blockIdx.x * 64) + 64, 64))), max(max(min(6, ceilDiv((blockIdx.x * 64) + 64, 64)) - 2, 0), min(5, ((blockIdx.x * 64) + 1) / 64))) iterations with T33, T42 known true
  // epilogue loop of rS244{6}
  #pragma unroll 1
  for (int64_t i2 = max64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2, 0); i2 < min64(min64(max64(1, max64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2, 0)), min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64))), max64(max64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2, 0), min64(5, ((((int64_t)blockIdx.x) * 64) + 1) / 64))); ++i2) {
    float T31[32];
    float T42[32];
    float T43[2];
    float T43_acc[2];
    float T47[2];
    float T49[2];
    float T52[32];
    float T53[2];
    float T53_acc[2];
    float T60[2];
    mbarrier::waitParity(toSmem(&T65_mbar[i2 % 3]), (i2 / 3) % 2);
    wgmma::discard(T31);  // written by its first wgmmas (scale-d 0), not zeroed
    wgmma::fenceOperands(T31);
    wgmma::fence();
    // loop of rUR274{1}
    #pragma unroll
    for (int64_t i17 = 0; i17 < 1; ++i17) {
      // loop of rUR276{4}
      #pragma unroll
      for (int64_t i18 = 0; i18 < 4; ++i18) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
            wgmma::smemDescriptor(toSmem(&T64[((i18 * 16) % 64) + (i17 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T65[(((i18 * 16) % 64) + (i17 * 4096)) + ((i2 % 3) * 4096)]), 16, 1024, 1), (i17 != 0) || (i18 != 0));
      }
    }
    wgmma::commit();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
    wgmma::fence();
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
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
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = __uint_as_float(0xff800000u);
    }
    // loop of rUR335{8}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 8; ++i23) {
      // loop of iUR333{2}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 2; ++i24) {
        // loop of rUR338{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          T43_acc[i24] = fmaxf(T43_acc[i24], T42[(i25 + (i24 * 2)) + (i23 * 4)]);
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 1u));
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 2u));
      T43[i24] = T43_acc[i24];
    }
    // loop of iUR659{2}
    #pragma unroll
    for (int64_t i27 = 0; i27 < 2; ++i27) {
      float T44[1];
      float T45[1];
      bool T46[1];
      float T48[1];
      T44[0] = T44_carry[i27];
      T44_carry[i27] = fmaxf(T44_carry[i27], T43[i27]);
      T45[0] = fmaxf(T44[0], T43[i27]);
      T46[0] = T45[0] == __uint_as_float(0xff800000u);
      T47[i27] = T46[0] ? 0.0f : T45[0];
      T48[0] = T44[0] - T47[i27];
      T49[i27] = exp2f(1.4426950408889634f * T48[0]);
    }
    // loop of iUR361{8}
    #pragma unroll
    for (int64_t i29 = 0; i29 < 8; ++i29) {
      // loop of iUR359{2}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 2; ++i30) {
        // loop of iUR364{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          float T50[1];
          float T51[1];
          T50[0] = T47[i30];
          T51[0] = T42[(i31 + (i30 * 2)) + (i29 * 4)] - T50[0];
          T52[(i31 + (i30 * 2)) + (i29 * 4)] = exp2f(1.4426950408889634f * T51[0]);
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = 0.0f;
    }
    // loop of rUR387{8}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 8; ++i32) {
      // loop of iUR385{2}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 2; ++i33) {
        // loop of rUR390{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          T53_acc[i33] = T53_acc[i33] + T52[(i34 + (i33 * 2)) + (i32 * 4)];
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 1u));
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 2u));
      T53[i33] = T53_acc[i33];
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
    // loop of iUR374{8}
    #pragma unroll
    for (int64_t i37 = 0; i37 < 8; ++i37) {
      // loop of iUR372{2}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 2; ++i38) {
        // loop of iUR377{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          T55[(i39 + (i38 * 2)) + (i37 * 4)] = __float2bfloat16(T52[(i39 + (i38 * 2)) + (i37 * 4)]);
        }
      }
    }
    // loop of iUR669{2}
    #pragma unroll
    for (int64_t i36 = 0; i36 < 2; ++i36) {
      T54[i36] = (T54[i36] * T49[i36]) + T53[i36];
    }
    // loop of iUR775{2}
    #pragma unroll
    for (int64_t i42 = 0; i42 < 2; ++i42) {
      T60[i42] = T49[i42];
    }
    if (i2 > 0) {
      // loop of iUR712{8}
      #pragma unroll
      for (int64_t i56 = 0; i56 < 8; ++i56) {
        // loop of iUR710{2}
        #pragma unroll
        for (int64_t i57 = 0; i57 < 2; ++i57) {
          // loop of iUR715{2}
          #pragma unroll
          for (int64_t i58 = 0; i58 < 2; ++i58) {
            T61[(i58 + (i57 * 2)) + (i56 * 4)] = T61[(i58 + (i57 * 2)) + (i56 * 4)] * T60[i57];
          }
        }
      }
    }
  }
  const int64_t h14 = (((int64_t)threadIdx.x) % 4) * 2;
  const int64_t h15 = ((((int64_t)threadIdx.x) / 4) / 8) * 16;
  const int64_t h16 = (((int64_t)threadIdx.x) / 4) % 8;
  // epilogue loop of rS244{6}
  #pragma unroll 1
  for (int64_t i2 = min64(min64(max64(1, max64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2, 0)), min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64))), max64(max64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2, 0), min64(5, ((((int64_t)blockIdx.x) * 64) + 1) / 64))); i2 < min64(max64(1, max64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2, 0)), min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64))); ++i2) {
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
    float T60[2];
    mbarrier::waitParity(toSmem(&T65_mbar[i2 % 3]), (i2 / 3) % 2);
    T34[0] = i2;
    T35[0] = T34[0] * 64LL;
    T36[0] = T35[0];
    wgmma::discard(T31);  // written by its first wgmmas (scale-d 0), not zeroed
    wgmma::fenceOperands(T31);
    wgmma::fence();
    // loop of rUR274{1}
    #pragma unroll
    for (int64_t i17 = 0; i17 < 1; ++i17) {
      // loop of rUR276{4}
      #pragma unroll
      for (int64_t i18 = 0; i18 < 4; ++i18) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
            wgmma::smemDescriptor(toSmem(&T64[((i18 * 16) % 64) + (i17 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T65[(((i18 * 16) % 64) + (i17 * 4096)) + ((i2 % 3) * 4096)]), 16, 1024, 1), (i17 != 0) || (i18 != 0));
      }
    }
    wgmma::commit();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
    wgmma::fence();
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
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
          T37[0] = (i4 * 8) + (h14 + i6);
          T38[0] = T37[0];
          T39[0] = T36[0] + T38[0];
          T40[0] = T39[0] < 333LL;
          T41[0] = T40[0];
          if (((i2 * 64) + ((i4 * 8) + (h14 + i6))) < 333) {
            T8[0] = static_cast<int>((i2 * 64) + ((i4 * 8) + (h14 + i6)));
          }
          if (((i2 * 64) + ((i4 * 8) + (h14 + i6))) < 333) {
            T22[0] = T8[0];
          } else {
            T22[0] = 0;
          }
          T23[0] = T22[0];
          T24[0] = T23[0];
          T6[0] = static_cast<int>((((int64_t)blockIdx.x) * 64) + (h15 + ((i5 * 8) + h16)));
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
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = __uint_as_float(0xff800000u);
    }
    // loop of rUR335{8}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 8; ++i23) {
      // loop of iUR333{2}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 2; ++i24) {
        // loop of rUR338{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          T43_acc[i24] = fmaxf(T43_acc[i24], T42[(i25 + (i24 * 2)) + (i23 * 4)]);
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 1u));
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 2u));
      T43[i24] = T43_acc[i24];
    }
    // loop of iUR659{2}
    #pragma unroll
    for (int64_t i27 = 0; i27 < 2; ++i27) {
      float T44[1];
      float T45[1];
      bool T46[1];
      float T48[1];
      T44[0] = T44_carry[i27];
      T44_carry[i27] = fmaxf(T44_carry[i27], T43[i27]);
      T45[0] = fmaxf(T44[0], T43[i27]);
      T46[0] = T45[0] == __uint_as_float(0xff800000u);
      T47[i27] = T46[0] ? 0.0f : T45[0];
      T48[0] = T44[0] - T47[i27];
      T49[i27] = exp2f(1.4426950408889634f * T48[0]);
    }
    // loop of iUR361{8}
    #pragma unroll
    for (int64_t i29 = 0; i29 < 8; ++i29) {
      // loop of iUR359{2}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 2; ++i30) {
        // loop of iUR364{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          float T50[1];
          float T51[1];
          T50[0] = T47[i30];
          T51[0] = T42[(i31 + (i30 * 2)) + (i29 * 4)] - T50[0];
          T52[(i31 + (i30 * 2)) + (i29 * 4)] = exp2f(1.4426950408889634f * T51[0]);
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = 0.0f;
    }
    // loop of rUR387{8}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 8; ++i32) {
      // loop of iUR385{2}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 2; ++i33) {
        // loop of rUR390{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          T53_acc[i33] = T53_acc[i33] + T52[(i34 + (i33 * 2)) + (i32 * 4)];
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 1u));
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 2u));
      T53[i33] = T53_acc[i33];
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
    // loop of iUR374{8}
    #pragma unroll
    for (int64_t i37 = 0; i37 < 8; ++i37) {
      // loop of iUR372{2}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 2; ++i38) {
        // loop of iUR377{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          T55[(i39 + (i38 * 2)) + (i37 * 4)] = __float2bfloat16(T52[(i39 + (i38 * 2)) + (i37 * 4)]);
        }
      }
    }
    // loop of iUR669{2}
    #pragma unroll
    for (int64_t i36 = 0; i36 < 2; ++i36) {
      T54[i36] = (T54[i36] * T49[i36]) + T53[i36];
    }
    // loop of iUR775{2}
    #pragma unroll
    for (int64_t i42 = 0; i42 < 2; ++i42) {
      T60[i42] = T49[i42];
    }
    if (i2 > 0) {
      // loop of iUR712{8}
      #pragma unroll
      for (int64_t i56 = 0; i56 < 8; ++i56) {
        // loop of iUR710{2}
        #pragma unroll
        for (int64_t i57 = 0; i57 < 2; ++i57) {
          // loop of iUR715{2}
          #pragma unroll
          for (int64_t i58 = 0; i58 < 2; ++i58) {
            T61[(i58 + (i57 * 2)) + (i56 * 4)] = T61[(i58 + (i57 * 2)) + (i56 * 4)] * T60[i57];
          }
        }
      }
    }
  }
  // rS244{6}: the first min(min(6, ceilDiv((blockIdx.x * 64) + 64, 64)), max(min(max(1, max(min(6, ceilDiv((blockIdx.x * 64) + 64, 64)) - 2, 0)), min(6, ceilDiv((blockIdx.x * 64) + 64, 64))), min(5, ((blockIdx.x * 64) + 1) / 64))) iterations with T33, T42 known true
  // epilogue loop of rS244{6}
  #pragma unroll 1
  for (int64_t i2 = min64(max64(1, max64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2, 0)), min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64))); i2 < min64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)), max64(min64(max64(1, max64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2, 0)), min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64))), min64(5, ((((int64_t)blockIdx.x) * 64) + 1) / 64))); ++i2) {
    float T31[32];
    float T42[32];
    float T43[2];
    float T43_acc[2];
    float T47[2];
    float T49[2];
    float T52[32];
    float T53[2];
    float T53_acc[2];
    float T60[2];
    mbarrier::waitParity(toSmem(&T65_mbar[i2 % 3]), (i2 / 3) % 2);
    wgmma::discard(T31);  // written by its first wgmmas (scale-d 0), not zeroed
    wgmma::fenceOperands(T31);
    wgmma::fence();
    // loop of rUR274{1}
    #pragma unroll
    for (int64_t i17 = 0; i17 < 1; ++i17) {
      // loop of rUR276{4}
      #pragma unroll
      for (int64_t i18 = 0; i18 < 4; ++i18) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
            wgmma::smemDescriptor(toSmem(&T64[((i18 * 16) % 64) + (i17 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T65[(((i18 * 16) % 64) + (i17 * 4096)) + ((i2 % 3) * 4096)]), 16, 1024, 1), (i17 != 0) || (i18 != 0));
      }
    }
    wgmma::commit();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T61);
    wgmma::fence();
    // loop of rUR697{4}
    #pragma unroll
    for (int64_t i52 = 0; i52 < 4; ++i52) {
      wgmma::mmaM64N64K16F32Bf16RegA<1>(&T61[0],
          T55_w[(((i52 * 16) / 8) * 4) / 2],
          T55_w[((((i52 * 16) / 8) * 4) / 2) + 1],
          T55_w[((((i52 * 16) / 8) * 4) / 2) + 2],
          T55_w[((((i52 * 16) / 8) * 4) / 2) + 3],
          wgmma::smemDescriptor(toSmem(&T66[(i52 * 1024) + (((i2 - 1) % 3) * 4096)]), 8192, 1024, 1));
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T61);
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
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = __uint_as_float(0xff800000u);
    }
    // loop of rUR335{8}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 8; ++i23) {
      // loop of iUR333{2}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 2; ++i24) {
        // loop of rUR338{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          T43_acc[i24] = fmaxf(T43_acc[i24], T42[(i25 + (i24 * 2)) + (i23 * 4)]);
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 1u));
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 2u));
      T43[i24] = T43_acc[i24];
    }
    // loop of iUR659{2}
    #pragma unroll
    for (int64_t i27 = 0; i27 < 2; ++i27) {
      float T44[1];
      float T45[1];
      bool T46[1];
      float T48[1];
      T44[0] = T44_carry[i27];
      T44_carry[i27] = fmaxf(T44_carry[i27], T43[i27]);
      T45[0] = fmaxf(T44[0], T43[i27]);
      T46[0] = T45[0] == __uint_as_float(0xff800000u);
      T47[i27] = T46[0] ? 0.0f : T45[0];
      T48[0] = T44[0] - T47[i27];
      T49[i27] = exp2f(1.4426950408889634f * T48[0]);
    }
    // loop of iUR361{8}
    #pragma unroll
    for (int64_t i29 = 0; i29 < 8; ++i29) {
      // loop of iUR359{2}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 2; ++i30) {
        // loop of iUR364{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          float T50[1];
          float T51[1];
          T50[0] = T47[i30];
          T51[0] = T42[(i31 + (i30 * 2)) + (i29 * 4)] - T50[0];
          T52[(i31 + (i30 * 2)) + (i29 * 4)] = exp2f(1.4426950408889634f * T51[0]);
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = 0.0f;
    }
    // loop of rUR387{8}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 8; ++i32) {
      // loop of iUR385{2}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 2; ++i33) {
        // loop of rUR390{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          T53_acc[i33] = T53_acc[i33] + T52[(i34 + (i33 * 2)) + (i32 * 4)];
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 1u));
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 2u));
      T53[i33] = T53_acc[i33];
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
    // loop of iUR374{8}
    #pragma unroll
    for (int64_t i37 = 0; i37 < 8; ++i37) {
      // loop of iUR372{2}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 2; ++i38) {
        // loop of iUR377{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          T55[(i39 + (i38 * 2)) + (i37 * 4)] = __float2bfloat16(T52[(i39 + (i38 * 2)) + (i37 * 4)]);
        }
      }
    }
    // loop of iUR669{2}
    #pragma unroll
    for (int64_t i36 = 0; i36 < 2; ++i36) {
      T54[i36] = (T54[i36] * T49[i36]) + T53[i36];
    }
    // loop of iUR775{2}
    #pragma unroll
    for (int64_t i42 = 0; i42 < 2; ++i42) {
      T60[i42] = T49[i42];
    }
    if (i2 > 0) {
      // loop of iUR712{8}
      #pragma unroll
      for (int64_t i56 = 0; i56 < 8; ++i56) {
        // loop of iUR710{2}
        #pragma unroll
        for (int64_t i57 = 0; i57 < 2; ++i57) {
          // loop of iUR715{2}
          #pragma unroll
          for (int64_t i58 = 0; i58 < 2; ++i58) {
            T61[(i58 + (i57 * 2)) + (i56 * 4)] = T61[(i58 + (i57 * 2)) + (i56 * 4)] * T60[i57];
          }
        }
      }
    }
  }
  const int64_t h17 = (((int64_t)threadIdx.x) % 4) * 2;
  const int64_t h18 = ((((int64_t)threadIdx.x) / 4) / 8) * 16;
  const int64_t h19 = (((int64_t)threadIdx.x) / 4) % 8;
  // epilogue loop of rS244{6}
  #pragma unroll 1
  for (int64_t i2 = min64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)), max64(min64(max64(1, max64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 2, 0)), min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64))), min64(5, ((((int64_t)blockIdx.x) * 64) + 1) / 64))); i2 < min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)); ++i2) {
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
    float T60[2];
    mbarrier::waitParity(toSmem(&T65_mbar[i2 % 3]), (i2 / 3) % 2);
    T34[0] = i2;
    T35[0] = T34[0] * 64LL;
    T36[0] = T35[0];
    wgmma::discard(T31);  // written by its first wgmmas (scale-d 0), not zeroed
    wgmma::fenceOperands(T31);
    wgmma::fence();
    // loop of rUR274{1}
    #pragma unroll
    for (int64_t i17 = 0; i17 < 1; ++i17) {
      // loop of rUR276{4}
      #pragma unroll
      for (int64_t i18 = 0; i18 < 4; ++i18) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
            wgmma::smemDescriptor(toSmem(&T64[((i18 * 16) % 64) + (i17 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T65[(((i18 * 16) % 64) + (i17 * 4096)) + ((i2 % 3) * 4096)]), 16, 1024, 1), (i17 != 0) || (i18 != 0));
      }
    }
    wgmma::commit();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T61);
    wgmma::fence();
    // loop of rUR697{4}
    #pragma unroll
    for (int64_t i52 = 0; i52 < 4; ++i52) {
      wgmma::mmaM64N64K16F32Bf16RegA<1>(&T61[0],
          T55_w[(((i52 * 16) / 8) * 4) / 2],
          T55_w[((((i52 * 16) / 8) * 4) / 2) + 1],
          T55_w[((((i52 * 16) / 8) * 4) / 2) + 2],
          T55_w[((((i52 * 16) / 8) * 4) / 2) + 3],
          wgmma::smemDescriptor(toSmem(&T66[(i52 * 1024) + (((i2 - 1) % 3) * 4096)]), 8192, 1024, 1));
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T61);
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
          T37[0] = (i4 * 8) + (h17 + i6);
          T38[0] = T37[0];
          T39[0] = T36[0] + T38[0];
          T40[0] = T39[0] < 333LL;
          T41[0] = T40[0];
          if (((i2 * 64) + ((i4 * 8) + (h17 + i6))) < 333) {
            T8[0] = static_cast<int>((i2 * 64) + ((i4 * 8) + (h17 + i6)));
          }
          if (((i2 * 64) + ((i4 * 8) + (h17 + i6))) < 333) {
            T22[0] = T8[0];
          } else {
            T22[0] = 0;
          }
          T23[0] = T22[0];
          T24[0] = T23[0];
          T6[0] = static_cast<int>((((int64_t)blockIdx.x) * 64) + (h18 + ((i5 * 8) + h19)));
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
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = __uint_as_float(0xff800000u);
    }
    // loop of rUR335{8}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 8; ++i23) {
      // loop of iUR333{2}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 2; ++i24) {
        // loop of rUR338{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          T43_acc[i24] = fmaxf(T43_acc[i24], T42[(i25 + (i24 * 2)) + (i23 * 4)]);
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 1u));
      T43_acc[i24] = ReduceMax()(T43_acc[i24], warpShflXor(T43_acc[i24], 2u));
      T43[i24] = T43_acc[i24];
    }
    // loop of iUR659{2}
    #pragma unroll
    for (int64_t i27 = 0; i27 < 2; ++i27) {
      float T44[1];
      float T45[1];
      bool T46[1];
      float T48[1];
      T44[0] = T44_carry[i27];
      T44_carry[i27] = fmaxf(T44_carry[i27], T43[i27]);
      T45[0] = fmaxf(T44[0], T43[i27]);
      T46[0] = T45[0] == __uint_as_float(0xff800000u);
      T47[i27] = T46[0] ? 0.0f : T45[0];
      T48[0] = T44[0] - T47[i27];
      T49[i27] = exp2f(1.4426950408889634f * T48[0]);
    }
    // loop of iUR361{8}
    #pragma unroll
    for (int64_t i29 = 0; i29 < 8; ++i29) {
      // loop of iUR359{2}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 2; ++i30) {
        // loop of iUR364{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          float T50[1];
          float T51[1];
          T50[0] = T47[i30];
          T51[0] = T42[(i31 + (i30 * 2)) + (i29 * 4)] - T50[0];
          T52[(i31 + (i30 * 2)) + (i29 * 4)] = exp2f(1.4426950408889634f * T51[0]);
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = 0.0f;
    }
    // loop of rUR387{8}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 8; ++i32) {
      // loop of iUR385{2}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 2; ++i33) {
        // loop of rUR390{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          T53_acc[i33] = T53_acc[i33] + T52[(i34 + (i33 * 2)) + (i32 * 4)];
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i33 = 0; i33 < 2; ++i33) {
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 1u));
      T53_acc[i33] = ReduceAdd()(T53_acc[i33], warpShflXor(T53_acc[i33], 2u));
      T53[i33] = T53_acc[i33];
    }
    wgmma::wait<0>();
    wgmma::fenceOperands(T55_w);
    wgmma::fenceOperands(T31);
    wgmma::fenceOperands(T61);
    // loop of iUR374{8}
    #pragma unroll
    for (int64_t i37 = 0; i37 < 8; ++i37) {
      // loop of iUR372{2}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 2; ++i38) {
        // loop of iUR377{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          T55[(i39 + (i38 * 2)) + (i37 * 4)] = __float2bfloat16(T52[(i39 + (i38 * 2)) + (i37 * 4)]);
        }
      }
    }
    // loop of iUR669{2}
    #pragma unroll
    for (int64_t i36 = 0; i36 < 2; ++i36) {
      T54[i36] = (T54[i36] * T49[i36]) + T53[i36];
    }
    // loop of iUR775{2}
    #pragma unroll
    for (int64_t i42 = 0; i42 < 2; ++i42) {
      T60[i42] = T49[i42];
    }
    if (i2 > 0) {
      // loop of iUR712{8}
      #pragma unroll
      for (int64_t i56 = 0; i56 < 8; ++i56) {
        // loop of iUR710{2}
        #pragma unroll
        for (int64_t i57 = 0; i57 < 2; ++i57) {
          // loop of iUR715{2}
          #pragma unroll
          for (int64_t i58 = 0; i58 < 2; ++i58) {
            T61[(i58 + (i57 * 2)) + (i56 * 4)] = T61[(i58 + (i57 * 2)) + (i56 * 4)] * T60[i57];
          }
        }
      }
    }
  }
  __syncthreads();  // every wait on T65_mbar done before inval
  if (threadIdx.x == 0) {
    // post-epilogue loop of stages of T65, T66
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 6; ++s2) {
      mbarrier::inval(toSmem(&T65_mbar[s2]));
    }
  }
  wgmma::fenceOperands(T55_w);
  wgmma::fenceOperands(T61);
  wgmma::fence();
  // loop of rUR697{4}
  #pragma unroll
  for (int64_t i52 = 0; i52 < 4; ++i52) {
    wgmma::mmaM64N64K16F32Bf16RegA<1>(&T61[0],
        T55_w[(((i52 * 16) / 8) * 4) / 2],
        T55_w[((((i52 * 16) / 8) * 4) / 2) + 1],
        T55_w[((((i52 * 16) / 8) * 4) / 2) + 2],
        T55_w[((((i52 * 16) / 8) * 4) / 2) + 3],
        wgmma::smemDescriptor(toSmem(&T66[(i52 * 1024) + (((min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)) - 1) % 3) * 4096)]), 8192, 1024, 1));
  }
  wgmma::commit();
  wgmma::wait<0>();
  wgmma::fenceOperands(T55_w);
  wgmma::fenceOperands(T61);
  // loop of iUR751{8}
  #pragma unroll
  for (int64_t i45 = 0; i45 < 8; ++i45) {
    // loop of iUR749{2}
    #pragma unroll
    for (int64_t i46 = 0; i46 < 2; ++i46) {
      float T63[2];
      // loop of iUR741{2}
      #pragma unroll
      for (int64_t i47 = 0; i47 < 2; ++i47) {
        float T62[1];
        T62[0] = T54[i46];
        T63[i47] = T61[(i47 + (i46 * 2)) + (i45 * 4)] / T62[0];
      }
      if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i46 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 100) {
        *reinterpret_cast<uint32_t*>(&T21.data[((((((int64_t)blockIdx.y) / 2) * T21_stride0) + ((((int64_t)blockIdx.y) % 2) * T21_stride1)) + (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i46 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) * T21_stride2)) + (((i45 * 8) + ((((int64_t)threadIdx.x) % 4) * 2)) * T21_stride3)]) = (static_cast<uint32_t>((__float2bfloat16(T63[0])).raw) | (static_cast<uint32_t>((__float2bfloat16(T63[1])).raw) << 16));
      }
    }
  }
  __syncthreads();  // every wait on T64_mbar done before inval
  if (threadIdx.x == 0) {
    mbarrier::inval(toSmem(&T64_mbar[0]));
  }
}
