extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<__bfloat16, 4> T0, Tensor<__bfloat16, 4> T1, Tensor<__bfloat16, 4> T2, Tensor<__bfloat16, 4> T21, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2) {
  const int64_t T21_stride0 = T21.stride[0];
  const int64_t T21_stride1 = T21.stride[1];
  const int64_t T21_stride2 = T21.stride[2];
  const int64_t T21_stride3 = T21.stride[3];
  extern __shared__ __align__(1024) char smem[];

  int64_t* T66_mbar = reinterpret_cast<int64_t*>(smem + 16384);
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::init(toSmem(&T66_mbar[0]), 1);
  }
  __syncthreads();  // init: T66_mbar visible to every thread
  int64_t* T65_mbar = reinterpret_cast<int64_t*>(smem + 16392);
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::init(toSmem(&T65_mbar[0]), 1);
  }
  __syncthreads();  // init: T65_mbar visible to every thread
  int64_t* T64_mbar = reinterpret_cast<int64_t*>(smem + 16400);
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::init(toSmem(&T64_mbar[0]), 1);
  }
  __syncthreads();  // init: T64_mbar visible to every thread
  int T6[64];
  __bfloat16* T64 = reinterpret_cast<__bfloat16*>(smem + 17408);
  float T44_carry[2];
  float T54[2];
  float T61[32];
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::arriveExpectTx(toSmem(&T64_mbar[0]), 8192);
    // loop of iUR281{1}
    #pragma unroll
    for (int64_t i16 = 0; i16 < 1; ++i16) {
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T64[i16 * 4096]), &tmap_T0, toSmem(&T64_mbar[0]), i16 * 64, ((int64_t)blockIdx.x) * 64, ((int64_t)blockIdx.y) % 2, ((int64_t)blockIdx.y) / 2);
    }
  }
  // loop of iS412{32}
  for (int64_t i2 = 0; i2 < 32; ++i2) {
    // loop of iUR410{2}
    #pragma unroll
    for (int64_t i3 = 0; i3 < 2; ++i3) {
      if (((((int64_t)blockIdx.x) * 64) + (((i2 / 8) * 16) + ((i3 * 8) + (i2 % 8)))) < 100) {
        T6[i3 + (i2 * 2)] = static_cast<int>((((int64_t)blockIdx.x) * 64) + (((i2 / 8) * 16) + ((i3 * 8) + (i2 % 8))));
      }
    }
  }
  // loop of iUR533{2}
  #pragma unroll
  for (int64_t i32 = 0; i32 < 2; ++i32) {
    if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i32 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 100) {
      T44_carry[i32] = __uint_as_float(0xff800000u);
    }
  }
  // loop of iUR543{2}
  #pragma unroll
  for (int64_t i41 = 0; i41 < 2; ++i41) {
    if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i41 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 100) {
      T54[i41] = 0.0f;
    }
  }
  // loop of iUR586{8}
  #pragma unroll
  for (int64_t i61 = 0; i61 < 8; ++i61) {
    // loop of iUR584{2}
    #pragma unroll
    for (int64_t i62 = 0; i62 < 2; ++i62) {
      // loop of iUR589{2}
      #pragma unroll
      for (int64_t i63 = 0; i63 < 2; ++i63) {
        T61[(i63 + (i62 * 2)) + (i61 * 4)] = 0.0f;
      }
    }
  }
  mbarrier::waitParity(toSmem(&T64_mbar[0]), 0);
  // rS244{6}: the first min(min(6, ceilDiv((blockIdx.x * 64) + 64, 64)), min(5, ((blockIdx.x * 64) + 1) / 64)) iterations with T33, T42 known true
  const int64_t h0 = ((int64_t)blockIdx.y) / 2;
  const int64_t h1 = ((int64_t)blockIdx.y) % 2;
  const int64_t h2 = ((((int64_t)threadIdx.x) / 4) / 8) * 16;
  const int64_t h3 = (((int64_t)threadIdx.x) / 4) % 8;
  // loop of rS244{6}
  for (int64_t i4 = 0; i4 < min64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)), min64(5, ((((int64_t)blockIdx.x) * 64) + 1) / 64)); ++i4) {
    float T31[32];
    float T42[32];
    float T43[2];
    float T43_acc[2];
    float T47[2];
    float T49[2];
    float T52[32];
    float T53[2];
    float T53_acc[2];
    __bfloat16 T55[32];
    float T60[2];
    __bfloat16* T66 = reinterpret_cast<__bfloat16*>(smem);
    // loop of fragment
    #pragma unroll
    for (int64_t r31 = 0; r31 < 32; ++r31) {
      T31[r31] = 0.0f;
    }
    // loop of rS274{1}
    for (int64_t i19 = 0; i19 < 1; ++i19) {
      __bfloat16* T65 = reinterpret_cast<__bfloat16*>(smem + 8192);
      if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
        mbarrier::arriveExpectTx(toSmem(&T65_mbar[0]), 8192);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T65[0]), &tmap_T1, toSmem(&T65_mbar[0]), i19 * 64, i4 * 64, h1, h0);
      }
      mbarrier::waitParity(toSmem(&T65_mbar[0]), (i19 + i4) % 2);
      wgmma::fenceOperands(T31);
      wgmma::fence();
      // loop of rUR276{4}
      #pragma unroll
      for (int64_t i23 = 0; i23 < 4; ++i23) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
            wgmma::smemDescriptor(toSmem(&T64[((i23 * 16) % 64) + (i19 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T65[(i23 * 16) % 64]), 16, 1024, 1));
      }
      wgmma::commit();
      wgmma::wait<0>();
      wgmma::fenceOperands(T31);
    }
    // loop of iUR322{8}
    #pragma unroll
    for (int64_t i6 = 0; i6 < 8; ++i6) {
      // loop of iUR320{2}
      #pragma unroll
      for (int64_t i7 = 0; i7 < 2; ++i7) {
        // loop of iUR325{2}
        #pragma unroll
        for (int64_t i8 = 0; i8 < 2; ++i8) {
          float T32[1];
          float T33[1];
          if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i7 * 8) + h3))) < 100) {
            T32[0] = T31[((i6 * 4) + (i7 * 2)) + i8] * 0.125f;
          }
          if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i7 * 8) + h3))) < 100) {
            T33[0] = T32[0];
          }
          if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i7 * 8) + h3))) < 100) {
            T42[(i8 + (i7 * 2)) + (i6 * 4)] = T33[0];
          }
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i29 = 0; i29 < 2; ++i29) {
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i29 * 8) + h3))) < 100) {
        T43_acc[i29] = __uint_as_float(0xff800000u);
      }
    }
    // loop of rUR335{8}
    #pragma unroll
    for (int64_t i28 = 0; i28 < 8; ++i28) {
      // loop of iUR333{2}
      #pragma unroll
      for (int64_t i29 = 0; i29 < 2; ++i29) {
        if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i29 * 8) + h3))) < 100) {
          // loop of rUR338{2}
          #pragma unroll
          for (int64_t i30 = 0; i30 < 2; ++i30) {
            T43_acc[i29] = fmaxf(T43_acc[i29], T42[(i30 + (i29 * 2)) + (i28 * 4)]);
          }
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i29 = 0; i29 < 2; ++i29) {
      T43_acc[i29] = ReduceMax()(T43_acc[i29], warpShflXor(T43_acc[i29], 1u));
      T43_acc[i29] = ReduceMax()(T43_acc[i29], warpShflXor(T43_acc[i29], 2u));
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i29 * 8) + h3))) < 100) {
        T43[i29] = T43_acc[i29];
      }
    }
    // loop of iUR533{2}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 2; ++i32) {
      float T44[1];
      float T45[1];
      bool T46[1];
      float T48[1];
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i32 * 8) + h3))) < 100) {
        T44[0] = T44_carry[i32];
      }
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i32 * 8) + h3))) < 100) {
        T44_carry[i32] = fmaxf(T44_carry[i32], T43[i32]);
      }
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i32 * 8) + h3))) < 100) {
        T45[0] = fmaxf(T44[0], T43[i32]);
      }
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i32 * 8) + h3))) < 100) {
        T46[0] = T45[0] == __uint_as_float(0xff800000u);
      }
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i32 * 8) + h3))) < 100) {
        T47[i32] = T46[0] ? 0.0f : T45[0];
      }
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i32 * 8) + h3))) < 100) {
        T48[0] = T44[0] - T47[i32];
      }
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i32 * 8) + h3))) < 100) {
        T49[i32] = exp2f(1.4426950408889634f * T48[0]);
      }
    }
    // loop of iUR361{8}
    #pragma unroll
    for (int64_t i34 = 0; i34 < 8; ++i34) {
      // loop of iUR359{2}
      #pragma unroll
      for (int64_t i35 = 0; i35 < 2; ++i35) {
        // loop of iUR364{2}
        #pragma unroll
        for (int64_t i36 = 0; i36 < 2; ++i36) {
          float T50[1];
          float T51[1];
          if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i35 * 8) + h3))) < 100) {
            T50[0] = T47[i35];
          }
          if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i35 * 8) + h3))) < 100) {
            T51[0] = T42[(i36 + (i35 * 2)) + (i34 * 4)] - T50[0];
          }
          if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i35 * 8) + h3))) < 100) {
            T52[(i36 + (i35 * 2)) + (i34 * 4)] = exp2f(1.4426950408889634f * T51[0]);
          }
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i38 = 0; i38 < 2; ++i38) {
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i38 * 8) + h3))) < 100) {
        T53_acc[i38] = 0.0f;
      }
    }
    // loop of rUR387{8}
    #pragma unroll
    for (int64_t i37 = 0; i37 < 8; ++i37) {
      // loop of iUR385{2}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 2; ++i38) {
        if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i38 * 8) + h3))) < 100) {
          // loop of rUR390{2}
          #pragma unroll
          for (int64_t i39 = 0; i39 < 2; ++i39) {
            T53_acc[i38] = T53_acc[i38] + T52[(i39 + (i38 * 2)) + (i37 * 4)];
          }
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i38 = 0; i38 < 2; ++i38) {
      T53_acc[i38] = ReduceAdd()(T53_acc[i38], warpShflXor(T53_acc[i38], 1u));
      T53_acc[i38] = ReduceAdd()(T53_acc[i38], warpShflXor(T53_acc[i38], 2u));
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i38 * 8) + h3))) < 100) {
        T53[i38] = T53_acc[i38];
      }
    }
    // loop of iUR374{8}
    #pragma unroll
    for (int64_t i42 = 0; i42 < 8; ++i42) {
      // loop of iUR372{2}
      #pragma unroll
      for (int64_t i43 = 0; i43 < 2; ++i43) {
        if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i43 * 8) + h3))) < 100) {
          // loop of iUR377{2}
          #pragma unroll
          for (int64_t i44 = 0; i44 < 2; ++i44) {
            T55[(i44 + (i43 * 2)) + (i42 * 4)] = __float2bfloat16(T52[(i44 + (i43 * 2)) + (i42 * 4)]);
          }
        }
      }
    }
    // loop of iUR543{2}
    #pragma unroll
    for (int64_t i41 = 0; i41 < 2; ++i41) {
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i41 * 8) + h3))) < 100) {
        T54[i41] = (T54[i41] * T49[i41]) + T53[i41];
      }
    }
    if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
      mbarrier::arriveExpectTx(toSmem(&T66_mbar[0]), 8192);
      // loop of iUR577{1}
      #pragma unroll
      for (int64_t i53 = 0; i53 < 1; ++i53) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T66[i53 * 4096]), &tmap_T2, toSmem(&T66_mbar[0]), i53 * 64, i4 * 64, h1, h0);
      }
    }
    // loop of iUR718{2}
    #pragma unroll
    for (int64_t i47 = 0; i47 < 2; ++i47) {
      if (((((int64_t)blockIdx.x) * 64) + (h2 + ((i47 * 8) + h3))) < 100) {
        T60[i47] = T49[i47];
      }
    }
    // loop of iUR586{8}
    #pragma unroll
    for (int64_t i61 = 0; i61 < 8; ++i61) {
      // loop of iUR584{2}
      #pragma unroll
      for (int64_t i62 = 0; i62 < 2; ++i62) {
        if ((((((int64_t)blockIdx.x) * 64) + (h2 + ((i62 * 8) + h3))) < 100) && (i4 > 0)) {
          // loop of iUR589{2}
          #pragma unroll
          for (int64_t i63 = 0; i63 < 2; ++i63) {
            T61[(i63 + (i62 * 2)) + (i61 * 4)] = T61[(i63 + (i62 * 2)) + (i61 * 4)] * T60[i62];
          }
        }
      }
    }
    mbarrier::waitParity(toSmem(&T66_mbar[0]), i4 % 2);
    uint32_t T55_a0[16];  // T55 in pairs: the A registers of the wgmmas below
    #pragma unroll
    for (int q = 0; q < 16; ++q) {
      T55_a0[q] = (static_cast<uint32_t>((T55[2 * q]).raw) | (static_cast<uint32_t>((T55[2 * q + 1]).raw) << 16));
    }
    wgmma::fenceOperands(T55_a0);
    wgmma::fenceOperands(T61);
    wgmma::fence();
    // loop of rUR571{4}
    #pragma unroll
    for (int64_t i57 = 0; i57 < 4; ++i57) {
      wgmma::mmaM64N64K16F32Bf16RegA<1>(&T61[0],
          T55_a0[(((i57 * 16) / 8) * 4) / 2],
          T55_a0[((((i57 * 16) / 8) * 4) / 2) + 1],
          T55_a0[((((i57 * 16) / 8) * 4) / 2) + 2],
          T55_a0[((((i57 * 16) / 8) * 4) / 2) + 3],
          wgmma::smemDescriptor(toSmem(&T66[i57 * 1024]), 8192, 1024, 1));
    }
    wgmma::commit();
    wgmma::wait<0>();
    wgmma::fenceOperands(T55_a0);
    wgmma::fenceOperands(T61);
    __syncthreads();  // WAR: T65 is rewritten next iteration
  }
  const int64_t h4 = ((int64_t)blockIdx.y) / 2;
  const int64_t h5 = ((int64_t)blockIdx.y) % 2;
  const int64_t h6 = (((int64_t)threadIdx.x) % 4) * 2;
  const int64_t h7 = ((((int64_t)threadIdx.x) / 4) / 8) * 16;
  const int64_t h8 = (((int64_t)threadIdx.x) / 4) % 8;
  // loop of rS244{6}
  for (int64_t i4 = min64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)), min64(5, ((((int64_t)blockIdx.x) * 64) + 1) / 64)); i4 < min64(6, ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 64)); ++i4) {
    int T23[64];
    int64_t T34[1];
    int64_t T35[1];
    bool T40[64];
    float T31[32];
    float T42[32];
    float T43[2];
    float T43_acc[2];
    float T47[2];
    float T49[2];
    float T52[32];
    float T53[2];
    float T53_acc[2];
    __bfloat16 T55[32];
    float T60[2];
    __bfloat16* T66 = reinterpret_cast<__bfloat16*>(smem);
    // loop of iS87{64}
    for (int64_t i9 = 0; i9 < 64; ++i9) {
      int T8[1];
      int T22[1];
      if (((i4 * 64) + i9) < 333) {
        T8[0] = static_cast<int>((i4 * 64) + i9);
      }
      if (((i4 * 64) + i9) < 333) {
        T22[0] = T8[0];
      } else {
        T22[0] = 0;
      }
      T23[i9] = T22[0];
    }
    T34[0] = i4;
    T35[0] = T34[0] * 64LL;
    // loop of iS483{4}
    for (int64_t i12 = 0; i12 < 4; ++i12) {
      // loop of iUR481{8}
      #pragma unroll
      for (int64_t i13 = 0; i13 < 8; ++i13) {
        // loop of iUR484{2}
        #pragma unroll
        for (int64_t i14 = 0; i14 < 2; ++i14) {
          int64_t T36[1];
          int64_t T37[1];
          int64_t T38[1];
          int64_t T39[1];
          T36[0] = T35[0];
          T37[0] = (i13 * 8) + ((i12 * 2) + i14);
          T38[0] = T37[0];
          T39[0] = T36[0] + T38[0];
          T40[(i14 + (i13 * 2)) + (i12 * 16)] = T39[0] < 333LL;
        }
      }
    }
    // loop of fragment
    #pragma unroll
    for (int64_t r31 = 0; r31 < 32; ++r31) {
      T31[r31] = 0.0f;
    }
    // loop of rS274{1}
    for (int64_t i19 = 0; i19 < 1; ++i19) {
      __bfloat16* T65 = reinterpret_cast<__bfloat16*>(smem + 8192);
      if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
        mbarrier::arriveExpectTx(toSmem(&T65_mbar[0]), 8192);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T65[0]), &tmap_T1, toSmem(&T65_mbar[0]), i19 * 64, i4 * 64, h5, h4);
      }
      mbarrier::waitParity(toSmem(&T65_mbar[0]), (i19 + i4) % 2);
      wgmma::fenceOperands(T31);
      wgmma::fence();
      // loop of rUR276{4}
      #pragma unroll
      for (int64_t i23 = 0; i23 < 4; ++i23) {
        wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
            wgmma::smemDescriptor(toSmem(&T64[((i23 * 16) % 64) + (i19 * 4096)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T65[(i23 * 16) % 64]), 16, 1024, 1));
      }
      wgmma::commit();
      wgmma::wait<0>();
      wgmma::fenceOperands(T31);
    }
    // loop of iUR322{8}
    #pragma unroll
    for (int64_t i6 = 0; i6 < 8; ++i6) {
      // loop of iUR320{2}
      #pragma unroll
      for (int64_t i7 = 0; i7 < 2; ++i7) {
        // loop of iUR325{2}
        #pragma unroll
        for (int64_t i8 = 0; i8 < 2; ++i8) {
          int T7[1];
          int T24[1];
          int T25[1];
          bool T26[1];
          bool T41[1];
          float T32[1];
          float T33[1];
          T41[0] = T40[(i8 + (i6 * 2)) + ((((h6 + i8) % 8) / 2) * 16)];
          T24[0] = T23[(i6 * 8) + (h6 + i8)];
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i7 * 8) + h8))) < 100) {
            T7[0] = T6[i7 + (((((((h7 + (i7 * 8)) + h8) % 64) / 16) * 8) + (((((h7 + (i7 * 8)) + h8) % 64) % 16) % 8)) * 2)];
          }
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i7 * 8) + h8))) < 100) {
            T25[0] = T7[0];
          }
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i7 * 8) + h8))) < 100) {
            T26[0] = T24[0] <= T25[0];
          }
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i7 * 8) + h8))) < 100) {
            T32[0] = T31[((i6 * 4) + (i7 * 2)) + i8] * 0.125f;
          }
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i7 * 8) + h8))) < 100) {
            T33[0] = T26[0] ? T32[0] : __uint_as_float(0xff800000u);
          }
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i7 * 8) + h8))) < 100) {
            T42[(i8 + (i7 * 2)) + (i6 * 4)] = T41[0] ? T33[0] : __uint_as_float(0xff800000u);
          }
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i29 = 0; i29 < 2; ++i29) {
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i29 * 8) + h8))) < 100) {
        T43_acc[i29] = __uint_as_float(0xff800000u);
      }
    }
    // loop of rUR335{8}
    #pragma unroll
    for (int64_t i28 = 0; i28 < 8; ++i28) {
      // loop of iUR333{2}
      #pragma unroll
      for (int64_t i29 = 0; i29 < 2; ++i29) {
        if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i29 * 8) + h8))) < 100) {
          // loop of rUR338{2}
          #pragma unroll
          for (int64_t i30 = 0; i30 < 2; ++i30) {
            T43_acc[i29] = fmaxf(T43_acc[i29], T42[(i30 + (i29 * 2)) + (i28 * 4)]);
          }
        }
      }
    }
    // loop of iUR333{2}
    #pragma unroll
    for (int64_t i29 = 0; i29 < 2; ++i29) {
      T43_acc[i29] = ReduceMax()(T43_acc[i29], warpShflXor(T43_acc[i29], 1u));
      T43_acc[i29] = ReduceMax()(T43_acc[i29], warpShflXor(T43_acc[i29], 2u));
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i29 * 8) + h8))) < 100) {
        T43[i29] = T43_acc[i29];
      }
    }
    // loop of iUR533{2}
    #pragma unroll
    for (int64_t i32 = 0; i32 < 2; ++i32) {
      float T44[1];
      float T45[1];
      bool T46[1];
      float T48[1];
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i32 * 8) + h8))) < 100) {
        T44[0] = T44_carry[i32];
      }
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i32 * 8) + h8))) < 100) {
        T44_carry[i32] = fmaxf(T44_carry[i32], T43[i32]);
      }
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i32 * 8) + h8))) < 100) {
        T45[0] = fmaxf(T44[0], T43[i32]);
      }
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i32 * 8) + h8))) < 100) {
        T46[0] = T45[0] == __uint_as_float(0xff800000u);
      }
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i32 * 8) + h8))) < 100) {
        T47[i32] = T46[0] ? 0.0f : T45[0];
      }
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i32 * 8) + h8))) < 100) {
        T48[0] = T44[0] - T47[i32];
      }
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i32 * 8) + h8))) < 100) {
        T49[i32] = exp2f(1.4426950408889634f * T48[0]);
      }
    }
    // loop of iUR361{8}
    #pragma unroll
    for (int64_t i34 = 0; i34 < 8; ++i34) {
      // loop of iUR359{2}
      #pragma unroll
      for (int64_t i35 = 0; i35 < 2; ++i35) {
        // loop of iUR364{2}
        #pragma unroll
        for (int64_t i36 = 0; i36 < 2; ++i36) {
          float T50[1];
          float T51[1];
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i35 * 8) + h8))) < 100) {
            T50[0] = T47[i35];
          }
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i35 * 8) + h8))) < 100) {
            T51[0] = T42[(i36 + (i35 * 2)) + (i34 * 4)] - T50[0];
          }
          if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i35 * 8) + h8))) < 100) {
            T52[(i36 + (i35 * 2)) + (i34 * 4)] = exp2f(1.4426950408889634f * T51[0]);
          }
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i38 = 0; i38 < 2; ++i38) {
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i38 * 8) + h8))) < 100) {
        T53_acc[i38] = 0.0f;
      }
    }
    // loop of rUR387{8}
    #pragma unroll
    for (int64_t i37 = 0; i37 < 8; ++i37) {
      // loop of iUR385{2}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 2; ++i38) {
        if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i38 * 8) + h8))) < 100) {
          // loop of rUR390{2}
          #pragma unroll
          for (int64_t i39 = 0; i39 < 2; ++i39) {
            T53_acc[i38] = T53_acc[i38] + T52[(i39 + (i38 * 2)) + (i37 * 4)];
          }
        }
      }
    }
    // loop of iUR385{2}
    #pragma unroll
    for (int64_t i38 = 0; i38 < 2; ++i38) {
      T53_acc[i38] = ReduceAdd()(T53_acc[i38], warpShflXor(T53_acc[i38], 1u));
      T53_acc[i38] = ReduceAdd()(T53_acc[i38], warpShflXor(T53_acc[i38], 2u));
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i38 * 8) + h8))) < 100) {
        T53[i38] = T53_acc[i38];
      }
    }
    // loop of iUR374{8}
    #pragma unroll
    for (int64_t i42 = 0; i42 < 8; ++i42) {
      // loop of iUR372{2}
      #pragma unroll
      for (int64_t i43 = 0; i43 < 2; ++i43) {
        if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i43 * 8) + h8))) < 100) {
          // loop of iUR377{2}
          #pragma unroll
          for (int64_t i44 = 0; i44 < 2; ++i44) {
            T55[(i44 + (i43 * 2)) + (i42 * 4)] = __float2bfloat16(T52[(i44 + (i43 * 2)) + (i42 * 4)]);
          }
        }
      }
    }
    // loop of iUR543{2}
    #pragma unroll
    for (int64_t i41 = 0; i41 < 2; ++i41) {
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i41 * 8) + h8))) < 100) {
        T54[i41] = (T54[i41] * T49[i41]) + T53[i41];
      }
    }
    if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
      mbarrier::arriveExpectTx(toSmem(&T66_mbar[0]), 8192);
      // loop of iUR577{1}
      #pragma unroll
      for (int64_t i53 = 0; i53 < 1; ++i53) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T66[i53 * 4096]), &tmap_T2, toSmem(&T66_mbar[0]), i53 * 64, i4 * 64, h5, h4);
      }
    }
    // loop of iUR718{2}
    #pragma unroll
    for (int64_t i47 = 0; i47 < 2; ++i47) {
      if (((((int64_t)blockIdx.x) * 64) + (h7 + ((i47 * 8) + h8))) < 100) {
        T60[i47] = T49[i47];
      }
    }
    // loop of iUR586{8}
    #pragma unroll
    for (int64_t i61 = 0; i61 < 8; ++i61) {
      // loop of iUR584{2}
      #pragma unroll
      for (int64_t i62 = 0; i62 < 2; ++i62) {
        if ((((((int64_t)blockIdx.x) * 64) + (h7 + ((i62 * 8) + h8))) < 100) && (i4 > 0)) {
          // loop of iUR589{2}
          #pragma unroll
          for (int64_t i63 = 0; i63 < 2; ++i63) {
            T61[(i63 + (i62 * 2)) + (i61 * 4)] = T61[(i63 + (i62 * 2)) + (i61 * 4)] * T60[i62];
          }
        }
      }
    }
    mbarrier::waitParity(toSmem(&T66_mbar[0]), i4 % 2);
    uint32_t T55_a0[16];  // T55 in pairs: the A registers of the wgmmas below
    #pragma unroll
    for (int q = 0; q < 16; ++q) {
      T55_a0[q] = (static_cast<uint32_t>((T55[2 * q]).raw) | (static_cast<uint32_t>((T55[2 * q + 1]).raw) << 16));
    }
    wgmma::fenceOperands(T55_a0);
    wgmma::fenceOperands(T61);
    wgmma::fence();
    // loop of rUR571{4}
    #pragma unroll
    for (int64_t i57 = 0; i57 < 4; ++i57) {
      wgmma::mmaM64N64K16F32Bf16RegA<1>(&T61[0],
          T55_a0[(((i57 * 16) / 8) * 4) / 2],
          T55_a0[((((i57 * 16) / 8) * 4) / 2) + 1],
          T55_a0[((((i57 * 16) / 8) * 4) / 2) + 2],
          T55_a0[((((i57 * 16) / 8) * 4) / 2) + 3],
          wgmma::smemDescriptor(toSmem(&T66[i57 * 1024]), 8192, 1024, 1));
    }
    wgmma::commit();
    wgmma::wait<0>();
    wgmma::fenceOperands(T55_a0);
    wgmma::fenceOperands(T61);
    __syncthreads();  // WAR: T65 is rewritten next iteration
  }
  // loop of iUR625{8}
  #pragma unroll
  for (int64_t i50 = 0; i50 < 8; ++i50) {
    // loop of iUR623{2}
    #pragma unroll
    for (int64_t i51 = 0; i51 < 2; ++i51) {
      float T63[2];
      // loop of iUR615{2}
      #pragma unroll
      for (int64_t i52 = 0; i52 < 2; ++i52) {
        float T62[1];
        if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i51 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 100) {
          T62[0] = T54[i51];
        }
        if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i51 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 100) {
          T63[i52] = T61[(i52 + (i51 * 2)) + (i50 * 4)] / T62[0];
        }
      }
      if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i51 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 100) {
        *reinterpret_cast<uint32_t*>(&T21.data[((((((int64_t)blockIdx.y) / 2) * T21_stride0) + ((((int64_t)blockIdx.y) % 2) * T21_stride1)) + (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i51 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) * T21_stride2)) + (((i50 * 8) + ((((int64_t)threadIdx.x) % 4) * 2)) * T21_stride3)]) = (static_cast<uint32_t>((__float2bfloat16(T63[0])).raw) | (static_cast<uint32_t>((__float2bfloat16(T63[1])).raw) << 16));
      }
    }
  }
  __syncthreads();  // every wait on T64_mbar done before inval
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::inval(toSmem(&T64_mbar[0]));
  }
  __syncthreads();  // every wait on T65_mbar done before inval
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::inval(toSmem(&T65_mbar[0]));
  }
  __syncthreads();  // every wait on T66_mbar done before inval
  if (threadIdx.x < 32 && Hopper::electSync(0xffffffffu)) {
    mbarrier::inval(toSmem(&T66_mbar[0]));
  }
}
