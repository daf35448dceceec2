extern "C" __global__ void __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 4> T0, Tensor<__bfloat16, 4> T1, Tensor<__bfloat16, 4> T2, Tensor<__bfloat16, 4> T21, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2) {
  const int64_t T21_stride0 = T21.stride[0];
  const int64_t T21_stride1 = T21.stride[1];
  const int64_t T21_stride2 = T21.stride[2];
  const int64_t T21_stride3 = T21.stride[3];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  int64_t* T64_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && tidY == 0) {
    mbarrier::init(toSmem(&T64_mbar[0]), 1);
  }
  __syncthreads();  // init: T64_mbar visible to every thread
  __bfloat16* T64 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T65 = reinterpret_cast<__bfloat16*>(smem + 17408);
  float T44_carry[2];
  float T54[2];
  __bfloat16* T66 = reinterpret_cast<__bfloat16*>(smem + 41984);
  float T61[32];
  // loop of iUR713{2}
  #pragma unroll
  for (int64_t i28 = 0; i28 < 2; ++i28) {
    T44_carry[i28] = __uint_as_float(0xff800000u);
  }
  // loop of iUR725{2}
  #pragma unroll
  for (int64_t i37 = 0; i37 < 2; ++i37) {
    T54[i37] = 0.0f;
  }
  // loop of iUR776{8}
  #pragma unroll
  for (int64_t i58 = 0; i58 < 8; ++i58) {
    // loop of iUR774{2}
    #pragma unroll
    for (int64_t i59 = 0; i59 < 2; ++i59) {
      // loop of iUR779{2}
      #pragma unroll
      for (int64_t i60 = 0; i60 < 2; ++i60) {
        T61[(i60 + (i59 * 2)) + (i58 * 4)] = 0.0f;
      }
    }
  }
  uint32_t T55_w[16];  // T55 in pairs: the A registers of wgmmas
  __bfloat16* const T55 = reinterpret_cast<__bfloat16*>(T55_w);
  int64_t* T65_mbar = reinterpret_cast<int64_t*>(smem + 8);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T65, T66
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 3; ++s2) {
      mbarrier::init(toSmem(&T65_mbar[s2]), 1);
      mbarrier::init(toSmem(&T65_mbar[s2 + 3]), 256);
    }
  }
  __syncthreads();  // init: T65_mbar visible to every thread
  if (((int64_t)tidY) >= (((int64_t)blockDim.y) - 1)) {
    decreaseRegisters<24>();
    if (threadIdx.x == 0 && tidY == 2) {
      mbarrier::arriveExpectTx(toSmem(&T64_mbar[0]), 16384);
      // loop of iUR283{1}
      #pragma unroll
      for (int64_t i11 = 0; i11 < 1; ++i11) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T64[i11 * 8192]), &tmap_T0, toSmem(&T64_mbar[0]), i11 * 64, ((int64_t)blockIdx.x) * 128, ((int64_t)blockIdx.y) % 2, ((int64_t)blockIdx.y) / 2);
      }
    }
    if (threadIdx.x == 0 && tidY == 2) {
      const int64_t h0 = ((int64_t)blockIdx.y) / 2;
      const int64_t h1 = ((int64_t)blockIdx.y) % 2;
      // AsyncWarp loop of rS244{6}
      #pragma unroll 1
      for (int64_t i2 = 0; i2 < min64(6, ceilDiv((((int64_t)blockIdx.x) * 128) + 128, 64)); ++i2) {
        mbarrier::waitParity(toSmem(&T65_mbar[(i2 % 3) + 3]), (i2 / 3) % 2);
        mbarrier::arriveExpectTx(toSmem(&T65_mbar[i2 % 3]), 16384);
        // loop of iUR289{1}
        #pragma unroll
        for (int64_t i14 = 0; i14 < 1; ++i14) {
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T65[(i14 * 4096) + ((i2 % 3) * 4096)]), &tmap_T1, toSmem(&T65_mbar[i2 % 3]), i14 * 64, i2 * 64, h1, h0);
        }
        // loop of iUR765{1}
        #pragma unroll
        for (int64_t i50 = 0; i50 < 1; ++i50) {
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T66[(i50 * 4096) + ((i2 % 3) * 4096)]), &tmap_T2, toSmem(&T65_mbar[i2 % 3]), i50 * 64, i2 * 64, h1, h0);
        }
      }
    }
    return;
  } else {
    increaseRegisters<240>();
    mbarrier::waitParity(toSmem(&T64_mbar[0]), 0);
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 3; ++s2) {
      mbarrier::arrive(toSmem(&T65_mbar[s2 + 3]));
    }
    // rS244{6}: the first min(min(1, min(6, ceilDiv((blockIdx.x * 128) + 128, 64))), min(5, ((blockIdx.x * 128) + 1) / 64)) iterations with T33, T42 known true
    const int64_t h2 = ((((int64_t)tidY) * 64) % 128) * 64;
    // ComputeWarp loop of rS244{6}
    #pragma unroll 1
    for (int64_t i2 = 0; i2 < min64(min64(1, min64(6, ceilDiv((((int64_t)blockIdx.x) * 128) + 128, 64))), min64(5, ((((int64_t)blockIdx.x) * 128) + 1) / 64)); ++i2) {
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
      // loop of rUR276{1}
      #pragma unroll
      for (int64_t i18 = 0; i18 < 1; ++i18) {
        // loop of rUR278{4}
        #pragma unroll
        for (int64_t i19 = 0; i19 < 4; ++i19) {
          wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
              wgmma::smemDescriptor(toSmem(&T64[(((i19 * 16) % 64) + h2) + (i18 * 8192)]), 16, 1024, 1),
              wgmma::smemDescriptor(toSmem(&T65[(((i19 * 16) % 64) + (i18 * 4096)) + ((i2 % 3) * 4096)]), 16, 1024, 1), (i18 != 0) || (i19 != 0));
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
      // loop of iUR330{8}
      #pragma unroll
      for (int64_t i5 = 0; i5 < 8; ++i5) {
        // loop of iUR328{2}
        #pragma unroll
        for (int64_t i6 = 0; i6 < 2; ++i6) {
          // loop of iUR333{2}
          #pragma unroll
          for (int64_t i7 = 0; i7 < 2; ++i7) {
            float T32[1];
            float T33[1];
            T32[0] = T31[((i5 * 4) + (i6 * 2)) + i7] * 0.125f;
            T33[0] = T32[0];
            T42[(i7 + (i6 * 2)) + (i5 * 4)] = T33[0];
          }
        }
      }
      // loop of iUR343{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        T43_acc[i25] = __uint_as_float(0xff800000u);
      }
      // loop of rUR345{8}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 8; ++i24) {
        // loop of iUR343{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          // loop of rUR348{2}
          #pragma unroll
          for (int64_t i26 = 0; i26 < 2; ++i26) {
            T43_acc[i25] = fmaxf(T43_acc[i25], T42[(i26 + (i25 * 2)) + (i24 * 4)]);
          }
        }
      }
      // loop of iUR343{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        T43_acc[i25] = ReduceMax()(T43_acc[i25], warpShflXor(T43_acc[i25], 1u));
        T43_acc[i25] = ReduceMax()(T43_acc[i25], warpShflXor(T43_acc[i25], 2u));
        T43[i25] = T43_acc[i25];
      }
      // loop of iUR713{2}
      #pragma unroll
      for (int64_t i28 = 0; i28 < 2; ++i28) {
        float T44[1];
        float T45[1];
        bool T46[1];
        float T48[1];
        T44[0] = T44_carry[i28];
        T44_carry[i28] = fmaxf(T44_carry[i28], T43[i28]);
        T45[0] = fmaxf(T44[0], T43[i28]);
        T46[0] = T45[0] == __uint_as_float(0xff800000u);
        T47[i28] = T46[0] ? 0.0f : T45[0];
        T48[0] = T44[0] - T47[i28];
        T49[i28] = exp2f(1.4426950408889634f * T48[0]);
      }
      // loop of iUR375{8}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 8; ++i30) {
        // loop of iUR373{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          // loop of iUR378{2}
          #pragma unroll
          for (int64_t i32 = 0; i32 < 2; ++i32) {
            float T50[1];
            float T51[1];
            T50[0] = T47[i31];
            T51[0] = T42[(i32 + (i31 * 2)) + (i30 * 4)] - T50[0];
            T52[(i32 + (i31 * 2)) + (i30 * 4)] = exp2f(1.4426950408889634f * T51[0]);
          }
        }
      }
      // loop of iUR403{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        T53_acc[i34] = 0.0f;
      }
      // loop of rUR405{8}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 8; ++i33) {
        // loop of iUR403{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          // loop of rUR408{2}
          #pragma unroll
          for (int64_t i35 = 0; i35 < 2; ++i35) {
            T53_acc[i34] = T53_acc[i34] + T52[(i35 + (i34 * 2)) + (i33 * 4)];
          }
        }
      }
      // loop of iUR403{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        T53_acc[i34] = ReduceAdd()(T53_acc[i34], warpShflXor(T53_acc[i34], 1u));
        T53_acc[i34] = ReduceAdd()(T53_acc[i34], warpShflXor(T53_acc[i34], 2u));
        T53[i34] = T53_acc[i34];
      }
      wgmma::wait<0>();
      wgmma::fenceOperands(T55_w);
      wgmma::fenceOperands(T31);
      wgmma::fenceOperands(T61);
      // loop of iUR390{8}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 8; ++i38) {
        // loop of iUR388{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          // loop of iUR393{2}
          #pragma unroll
          for (int64_t i40 = 0; i40 < 2; ++i40) {
            T55[(i40 + (i39 * 2)) + (i38 * 4)] = __float2bfloat16(T52[(i40 + (i39 * 2)) + (i38 * 4)]);
          }
        }
      }
      // loop of iUR725{2}
      #pragma unroll
      for (int64_t i37 = 0; i37 < 2; ++i37) {
        T54[i37] = (T54[i37] * T49[i37]) + T53[i37];
      }
      // loop of iUR849{2}
      #pragma unroll
      for (int64_t i43 = 0; i43 < 2; ++i43) {
        T60[i43] = T49[i43];
      }
      if (i2 > 0) {
        // loop of iUR776{8}
        #pragma unroll
        for (int64_t i58 = 0; i58 < 8; ++i58) {
          // loop of iUR774{2}
          #pragma unroll
          for (int64_t i59 = 0; i59 < 2; ++i59) {
            // loop of iUR779{2}
            #pragma unroll
            for (int64_t i60 = 0; i60 < 2; ++i60) {
              T61[(i60 + (i59 * 2)) + (i58 * 4)] = T61[(i60 + (i59 * 2)) + (i58 * 4)] * T60[i59];
            }
          }
        }
      }
      if ((i2 - 1) >= 0) {
        mbarrier::arrive(toSmem(&T65_mbar[((i2 - 1) % 3) + 3]));
      }
    }
    const int64_t h3 = ((((int64_t)tidY) * 64) % 128) * 64;
    const int64_t h4 = (((int64_t)threadIdx.x) % 4) * 2;
    const int64_t h5 = ((((int64_t)threadIdx.x) / 4) / 8) * 16;
    const int64_t h6 = (((int64_t)threadIdx.x) / 4) % 8;
    // ComputeWarp loop of rS244{6}
    #pragma unroll 1
    for (int64_t i2 = min64(min64(1, min64(6, ceilDiv((((int64_t)blockIdx.x) * 128) + 128, 64))), min64(5, ((((int64_t)blockIdx.x) * 128) + 1) / 64)); i2 < min64(1, min64(6, ceilDiv((((int64_t)blockIdx.x) * 128) + 128, 64))); ++i2) {
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
      // loop of rUR276{1}
      #pragma unroll
      for (int64_t i18 = 0; i18 < 1; ++i18) {
        // loop of rUR278{4}
        #pragma unroll
        for (int64_t i19 = 0; i19 < 4; ++i19) {
          wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
              wgmma::smemDescriptor(toSmem(&T64[(((i19 * 16) % 64) + h3) + (i18 * 8192)]), 16, 1024, 1),
              wgmma::smemDescriptor(toSmem(&T65[(((i19 * 16) % 64) + (i18 * 4096)) + ((i2 % 3) * 4096)]), 16, 1024, 1), (i18 != 0) || (i19 != 0));
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
      // loop of iUR330{8}
      #pragma unroll
      for (int64_t i5 = 0; i5 < 8; ++i5) {
        // loop of iUR328{2}
        #pragma unroll
        for (int64_t i6 = 0; i6 < 2; ++i6) {
          // loop of iUR333{2}
          #pragma unroll
          for (int64_t i7 = 0; i7 < 2; ++i7) {
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
            T37[0] = (i5 * 8) + (h4 + i7);
            T38[0] = T37[0];
            T39[0] = T36[0] + T38[0];
            T40[0] = T39[0] < 333LL;
            T41[0] = T40[0];
            if (((i2 * 64) + ((i5 * 8) + (h4 + i7))) < 333) {
              T8[0] = static_cast<int>((i2 * 64) + ((i5 * 8) + (h4 + i7)));
            }
            if (((i2 * 64) + ((i5 * 8) + (h4 + i7))) < 333) {
              T22[0] = T8[0];
            } else {
              T22[0] = 0;
            }
            T23[0] = T22[0];
            T24[0] = T23[0];
            T6[0] = static_cast<int>((((int64_t)blockIdx.x) * 128) + ((((int64_t)tidY) * 64) + (h5 + ((i6 * 8) + h6))));
            T7[0] = T6[0];
            T25[0] = T7[0];
            T26[0] = T24[0] <= T25[0];
            T32[0] = T31[((i5 * 4) + (i6 * 2)) + i7] * 0.125f;
            T33[0] = T26[0] ? T32[0] : __uint_as_float(0xff800000u);
            T42[(i7 + (i6 * 2)) + (i5 * 4)] = T41[0] ? T33[0] : __uint_as_float(0xff800000u);
          }
        }
      }
      // loop of iUR343{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        T43_acc[i25] = __uint_as_float(0xff800000u);
      }
      // loop of rUR345{8}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 8; ++i24) {
        // loop of iUR343{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          // loop of rUR348{2}
          #pragma unroll
          for (int64_t i26 = 0; i26 < 2; ++i26) {
            T43_acc[i25] = fmaxf(T43_acc[i25], T42[(i26 + (i25 * 2)) + (i24 * 4)]);
          }
        }
      }
      // loop of iUR343{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        T43_acc[i25] = ReduceMax()(T43_acc[i25], warpShflXor(T43_acc[i25], 1u));
        T43_acc[i25] = ReduceMax()(T43_acc[i25], warpShflXor(T43_acc[i25], 2u));
        T43[i25] = T43_acc[i25];
      }
      // loop of iUR713{2}
      #pragma unroll
      for (int64_t i28 = 0; i28 < 2; ++i28) {
        float T44[1];
        float T45[1];
        bool T46[1];
        float T48[1];
        T44[0] = T44_carry[i28];
        T44_carry[i28] = fmaxf(T44_carry[i28], T43[i28]);
        T45[0] = fmaxf(T44[0], T43[i28]);
        T46[0] = T45[0] == __uint_as_float(0xff800000u);
        T47[i28] = T46[0] ? 0.0f : T45[0];
        T48[0] = T44[0] - T47[i28];
        T49[i28] = exp2f(1.4426950408889634f * T48[0]);
      }
      // loop of iUR375{8}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 8; ++i30) {
        // loop of iUR373{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          // loop of iUR378{2}
          #pragma unroll
          for (int64_t i32 = 0; i32 < 2; ++i32) {
            float T50[1];
            float T51[1];
            T50[0] = T47[i31];
            T51[0] = T42[(i32 + (i31 * 2)) + (i30 * 4)] - T50[0];
            T52[(i32 + (i31 * 2)) + (i30 * 4)] = exp2f(1.4426950408889634f * T51[0]);
          }
        }
      }
      // loop of iUR403{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        T53_acc[i34] = 0.0f;
      }
      // loop of rUR405{8}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 8; ++i33) {
        // loop of iUR403{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          // loop of rUR408{2}
          #pragma unroll
          for (int64_t i35 = 0; i35 < 2; ++i35) {
            T53_acc[i34] = T53_acc[i34] + T52[(i35 + (i34 * 2)) + (i33 * 4)];
          }
        }
      }
      // loop of iUR403{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        T53_acc[i34] = ReduceAdd()(T53_acc[i34], warpShflXor(T53_acc[i34], 1u));
        T53_acc[i34] = ReduceAdd()(T53_acc[i34], warpShflXor(T53_acc[i34], 2u));
        T53[i34] = T53_acc[i34];
      }
      wgmma::wait<0>();
      wgmma::fenceOperands(T55_w);
      wgmma::fenceOperands(T31);
      wgmma::fenceOperands(T61);
      // loop of iUR390{8}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 8; ++i38) {
        // loop of iUR388{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          // loop of iUR393{2}
          #pragma unroll
          for (int64_t i40 = 0; i40 < 2; ++i40) {
            T55[(i40 + (i39 * 2)) + (i38 * 4)] = __float2bfloat16(T52[(i40 + (i39 * 2)) + (i38 * 4)]);
          }
        }
      }
      // loop of iUR725{2}
      #pragma unroll
      for (int64_t i37 = 0; i37 < 2; ++i37) {
        T54[i37] = (T54[i37] * T49[i37]) + T53[i37];
      }
      // loop of iUR849{2}
      #pragma unroll
      for (int64_t i43 = 0; i43 < 2; ++i43) {
        T60[i43] = T49[i43];
      }
      if (i2 > 0) {
        // loop of iUR776{8}
        #pragma unroll
        for (int64_t i58 = 0; i58 < 8; ++i58) {
          // loop of iUR774{2}
          #pragma unroll
          for (int64_t i59 = 0; i59 < 2; ++i59) {
            // loop of iUR779{2}
            #pragma unroll
            for (int64_t i60 = 0; i60 < 2; ++i60) {
              T61[(i60 + (i59 * 2)) + (i58 * 4)] = T61[(i60 + (i59 * 2)) + (i58 * 4)] * T60[i59];
            }
          }
        }
      }
      if ((i2 - 1) >= 0) {
        mbarrier::arrive(toSmem(&T65_mbar[((i2 - 1) % 3) + 3]));
      }
    }
    // rS244{6}: the first min(min(6, ceilDiv((blockIdx.x * 128) + 128, 64)), max(min(1, min(6, ceilDiv((blockIdx.x * 128) + 128, 64))), min(5, ((blockIdx.x * 128) + 1) / 64))) iterations with T33, T42 known true
    const int64_t h7 = ((((int64_t)tidY) * 64) % 128) * 64;
    // ComputeWarp loop of rS244{6}
    #pragma unroll 1
    for (int64_t i2 = min64(1, min64(6, ceilDiv((((int64_t)blockIdx.x) * 128) + 128, 64))); i2 < min64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 128) + 128, 64)), max64(min64(1, min64(6, ceilDiv((((int64_t)blockIdx.x) * 128) + 128, 64))), min64(5, ((((int64_t)blockIdx.x) * 128) + 1) / 64))); ++i2) {
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
      // loop of rUR276{1}
      #pragma unroll
      for (int64_t i18 = 0; i18 < 1; ++i18) {
        // loop of rUR278{4}
        #pragma unroll
        for (int64_t i19 = 0; i19 < 4; ++i19) {
          wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
              wgmma::smemDescriptor(toSmem(&T64[(((i19 * 16) % 64) + h7) + (i18 * 8192)]), 16, 1024, 1),
              wgmma::smemDescriptor(toSmem(&T65[(((i19 * 16) % 64) + (i18 * 4096)) + ((i2 % 3) * 4096)]), 16, 1024, 1), (i18 != 0) || (i19 != 0));
        }
      }
      wgmma::commit();
      wgmma::fenceOperands(T55_w);
      wgmma::fenceOperands(T61);
      wgmma::fence();
      // loop of rUR759{4}
      #pragma unroll
      for (int64_t i54 = 0; i54 < 4; ++i54) {
        wgmma::mmaM64N64K16F32Bf16RegA<1>(&T61[0],
            T55_w[(((i54 * 16) / 8) * 4) / 2],
            T55_w[((((i54 * 16) / 8) * 4) / 2) + 1],
            T55_w[((((i54 * 16) / 8) * 4) / 2) + 2],
            T55_w[((((i54 * 16) / 8) * 4) / 2) + 3],
            wgmma::smemDescriptor(toSmem(&T66[(i54 * 1024) + (((i2 - 1) % 3) * 4096)]), 8192, 1024, 1));
      }
      wgmma::commit();
      wgmma::wait<1>();
      wgmma::fenceOperands(T55_w);
      wgmma::fenceOperands(T61);
      // loop of iUR330{8}
      #pragma unroll
      for (int64_t i5 = 0; i5 < 8; ++i5) {
        // loop of iUR328{2}
        #pragma unroll
        for (int64_t i6 = 0; i6 < 2; ++i6) {
          // loop of iUR333{2}
          #pragma unroll
          for (int64_t i7 = 0; i7 < 2; ++i7) {
            float T32[1];
            float T33[1];
            T32[0] = T31[((i5 * 4) + (i6 * 2)) + i7] * 0.125f;
            T33[0] = T32[0];
            T42[(i7 + (i6 * 2)) + (i5 * 4)] = T33[0];
          }
        }
      }
      // loop of iUR343{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        T43_acc[i25] = __uint_as_float(0xff800000u);
      }
      // loop of rUR345{8}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 8; ++i24) {
        // loop of iUR343{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          // loop of rUR348{2}
          #pragma unroll
          for (int64_t i26 = 0; i26 < 2; ++i26) {
            T43_acc[i25] = fmaxf(T43_acc[i25], T42[(i26 + (i25 * 2)) + (i24 * 4)]);
          }
        }
      }
      // loop of iUR343{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        T43_acc[i25] = ReduceMax()(T43_acc[i25], warpShflXor(T43_acc[i25], 1u));
        T43_acc[i25] = ReduceMax()(T43_acc[i25], warpShflXor(T43_acc[i25], 2u));
        T43[i25] = T43_acc[i25];
      }
      // loop of iUR713{2}
      #pragma unroll
      for (int64_t i28 = 0; i28 < 2; ++i28) {
        float T44[1];
        float T45[1];
        bool T46[1];
        float T48[1];
        T44[0] = T44_carry[i28];
        T44_carry[i28] = fmaxf(T44_carry[i28], T43[i28]);
        T45[0] = fmaxf(T44[0], T43[i28]);
        T46[0] = T45[0] == __uint_as_float(0xff800000u);
        T47[i28] = T46[0] ? 0.0f : T45[0];
        T48[0] = T44[0] - T47[i28];
        T49[i28] = exp2f(1.4426950408889634f * T48[0]);
      }
      // loop of iUR375{8}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 8; ++i30) {
        // loop of iUR373{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          // loop of iUR378{2}
          #pragma unroll
          for (int64_t i32 = 0; i32 < 2; ++i32) {
            float T50[1];
            float T51[1];
            T50[0] = T47[i31];
            T51[0] = T42[(i32 + (i31 * 2)) + (i30 * 4)] - T50[0];
            T52[(i32 + (i31 * 2)) + (i30 * 4)] = exp2f(1.4426950408889634f * T51[0]);
          }
        }
      }
      // loop of iUR403{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        T53_acc[i34] = 0.0f;
      }
      // loop of rUR405{8}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 8; ++i33) {
        // loop of iUR403{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          // loop of rUR408{2}
          #pragma unroll
          for (int64_t i35 = 0; i35 < 2; ++i35) {
            T53_acc[i34] = T53_acc[i34] + T52[(i35 + (i34 * 2)) + (i33 * 4)];
          }
        }
      }
      // loop of iUR403{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        T53_acc[i34] = ReduceAdd()(T53_acc[i34], warpShflXor(T53_acc[i34], 1u));
        T53_acc[i34] = ReduceAdd()(T53_acc[i34], warpShflXor(T53_acc[i34], 2u));
        T53[i34] = T53_acc[i34];
      }
      wgmma::wait<0>();
      wgmma::fenceOperands(T55_w);
      wgmma::fenceOperands(T31);
      wgmma::fenceOperands(T61);
      // loop of iUR390{8}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 8; ++i38) {
        // loop of iUR388{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          // loop of iUR393{2}
          #pragma unroll
          for (int64_t i40 = 0; i40 < 2; ++i40) {
            T55[(i40 + (i39 * 2)) + (i38 * 4)] = __float2bfloat16(T52[(i40 + (i39 * 2)) + (i38 * 4)]);
          }
        }
      }
      // loop of iUR725{2}
      #pragma unroll
      for (int64_t i37 = 0; i37 < 2; ++i37) {
        T54[i37] = (T54[i37] * T49[i37]) + T53[i37];
      }
      // loop of iUR849{2}
      #pragma unroll
      for (int64_t i43 = 0; i43 < 2; ++i43) {
        T60[i43] = T49[i43];
      }
      if (i2 > 0) {
        // loop of iUR776{8}
        #pragma unroll
        for (int64_t i58 = 0; i58 < 8; ++i58) {
          // loop of iUR774{2}
          #pragma unroll
          for (int64_t i59 = 0; i59 < 2; ++i59) {
            // loop of iUR779{2}
            #pragma unroll
            for (int64_t i60 = 0; i60 < 2; ++i60) {
              T61[(i60 + (i59 * 2)) + (i58 * 4)] = T61[(i60 + (i59 * 2)) + (i58 * 4)] * T60[i59];
            }
          }
        }
      }
      if ((i2 - 1) >= 0) {
        mbarrier::arrive(toSmem(&T65_mbar[((i2 - 1) % 3) + 3]));
      }
    }
    const int64_t h8 = ((((int64_t)tidY) * 64) % 128) * 64;
    const int64_t h9 = (((int64_t)threadIdx.x) % 4) * 2;
    const int64_t h10 = ((((int64_t)threadIdx.x) / 4) / 8) * 16;
    const int64_t h11 = (((int64_t)threadIdx.x) / 4) % 8;
    // ComputeWarp loop of rS244{6}
    #pragma unroll 1
    for (int64_t i2 = min64(min64(6, ceilDiv((((int64_t)blockIdx.x) * 128) + 128, 64)), max64(min64(1, min64(6, ceilDiv((((int64_t)blockIdx.x) * 128) + 128, 64))), min64(5, ((((int64_t)blockIdx.x) * 128) + 1) / 64))); i2 < min64(6, ceilDiv((((int64_t)blockIdx.x) * 128) + 128, 64)); ++i2) {
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
      // loop of rUR276{1}
      #pragma unroll
      for (int64_t i18 = 0; i18 < 1; ++i18) {
        // loop of rUR278{4}
        #pragma unroll
        for (int64_t i19 = 0; i19 < 4; ++i19) {
          wgmma::mmaM64N64K16F32Bf16<0, 0>(&T31[0],
              wgmma::smemDescriptor(toSmem(&T64[(((i19 * 16) % 64) + h8) + (i18 * 8192)]), 16, 1024, 1),
              wgmma::smemDescriptor(toSmem(&T65[(((i19 * 16) % 64) + (i18 * 4096)) + ((i2 % 3) * 4096)]), 16, 1024, 1), (i18 != 0) || (i19 != 0));
        }
      }
      wgmma::commit();
      wgmma::fenceOperands(T55_w);
      wgmma::fenceOperands(T61);
      wgmma::fence();
      // loop of rUR759{4}
      #pragma unroll
      for (int64_t i54 = 0; i54 < 4; ++i54) {
        wgmma::mmaM64N64K16F32Bf16RegA<1>(&T61[0],
            T55_w[(((i54 * 16) / 8) * 4) / 2],
            T55_w[((((i54 * 16) / 8) * 4) / 2) + 1],
            T55_w[((((i54 * 16) / 8) * 4) / 2) + 2],
            T55_w[((((i54 * 16) / 8) * 4) / 2) + 3],
            wgmma::smemDescriptor(toSmem(&T66[(i54 * 1024) + (((i2 - 1) % 3) * 4096)]), 8192, 1024, 1));
      }
      wgmma::commit();
      wgmma::wait<1>();
      wgmma::fenceOperands(T55_w);
      wgmma::fenceOperands(T61);
      // loop of iUR330{8}
      #pragma unroll
      for (int64_t i5 = 0; i5 < 8; ++i5) {
        // loop of iUR328{2}
        #pragma unroll
        for (int64_t i6 = 0; i6 < 2; ++i6) {
          // loop of iUR333{2}
          #pragma unroll
          for (int64_t i7 = 0; i7 < 2; ++i7) {
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
            T37[0] = (i5 * 8) + (h9 + i7);
            T38[0] = T37[0];
            T39[0] = T36[0] + T38[0];
            T40[0] = T39[0] < 333LL;
            T41[0] = T40[0];
            if (((i2 * 64) + ((i5 * 8) + (h9 + i7))) < 333) {
              T8[0] = static_cast<int>((i2 * 64) + ((i5 * 8) + (h9 + i7)));
            }
            if (((i2 * 64) + ((i5 * 8) + (h9 + i7))) < 333) {
              T22[0] = T8[0];
            } else {
              T22[0] = 0;
            }
            T23[0] = T22[0];
            T24[0] = T23[0];
            T6[0] = static_cast<int>((((int64_t)blockIdx.x) * 128) + ((((int64_t)tidY) * 64) + (h10 + ((i6 * 8) + h11))));
            T7[0] = T6[0];
            T25[0] = T7[0];
            T26[0] = T24[0] <= T25[0];
            T32[0] = T31[((i5 * 4) + (i6 * 2)) + i7] * 0.125f;
            T33[0] = T26[0] ? T32[0] : __uint_as_float(0xff800000u);
            T42[(i7 + (i6 * 2)) + (i5 * 4)] = T41[0] ? T33[0] : __uint_as_float(0xff800000u);
          }
        }
      }
      // loop of iUR343{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        T43_acc[i25] = __uint_as_float(0xff800000u);
      }
      // loop of rUR345{8}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 8; ++i24) {
        // loop of iUR343{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          // loop of rUR348{2}
          #pragma unroll
          for (int64_t i26 = 0; i26 < 2; ++i26) {
            T43_acc[i25] = fmaxf(T43_acc[i25], T42[(i26 + (i25 * 2)) + (i24 * 4)]);
          }
        }
      }
      // loop of iUR343{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        T43_acc[i25] = ReduceMax()(T43_acc[i25], warpShflXor(T43_acc[i25], 1u));
        T43_acc[i25] = ReduceMax()(T43_acc[i25], warpShflXor(T43_acc[i25], 2u));
        T43[i25] = T43_acc[i25];
      }
      // loop of iUR713{2}
      #pragma unroll
      for (int64_t i28 = 0; i28 < 2; ++i28) {
        float T44[1];
        float T45[1];
        bool T46[1];
        float T48[1];
        T44[0] = T44_carry[i28];
        T44_carry[i28] = fmaxf(T44_carry[i28], T43[i28]);
        T45[0] = fmaxf(T44[0], T43[i28]);
        T46[0] = T45[0] == __uint_as_float(0xff800000u);
        T47[i28] = T46[0] ? 0.0f : T45[0];
        T48[0] = T44[0] - T47[i28];
        T49[i28] = exp2f(1.4426950408889634f * T48[0]);
      }
      // loop of iUR375{8}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 8; ++i30) {
        // loop of iUR373{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          // loop of iUR378{2}
          #pragma unroll
          for (int64_t i32 = 0; i32 < 2; ++i32) {
            float T50[1];
            float T51[1];
            T50[0] = T47[i31];
            T51[0] = T42[(i32 + (i31 * 2)) + (i30 * 4)] - T50[0];
            T52[(i32 + (i31 * 2)) + (i30 * 4)] = exp2f(1.4426950408889634f * T51[0]);
          }
        }
      }
      // loop of iUR403{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        T53_acc[i34] = 0.0f;
      }
      // loop of rUR405{8}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 8; ++i33) {
        // loop of iUR403{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          // loop of rUR408{2}
          #pragma unroll
          for (int64_t i35 = 0; i35 < 2; ++i35) {
            T53_acc[i34] = T53_acc[i34] + T52[(i35 + (i34 * 2)) + (i33 * 4)];
          }
        }
      }
      // loop of iUR403{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        T53_acc[i34] = ReduceAdd()(T53_acc[i34], warpShflXor(T53_acc[i34], 1u));
        T53_acc[i34] = ReduceAdd()(T53_acc[i34], warpShflXor(T53_acc[i34], 2u));
        T53[i34] = T53_acc[i34];
      }
      wgmma::wait<0>();
      wgmma::fenceOperands(T55_w);
      wgmma::fenceOperands(T31);
      wgmma::fenceOperands(T61);
      // loop of iUR390{8}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 8; ++i38) {
        // loop of iUR388{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          // loop of iUR393{2}
          #pragma unroll
          for (int64_t i40 = 0; i40 < 2; ++i40) {
            T55[(i40 + (i39 * 2)) + (i38 * 4)] = __float2bfloat16(T52[(i40 + (i39 * 2)) + (i38 * 4)]);
          }
        }
      }
      // loop of iUR725{2}
      #pragma unroll
      for (int64_t i37 = 0; i37 < 2; ++i37) {
        T54[i37] = (T54[i37] * T49[i37]) + T53[i37];
      }
      // loop of iUR849{2}
      #pragma unroll
      for (int64_t i43 = 0; i43 < 2; ++i43) {
        T60[i43] = T49[i43];
      }
      if (i2 > 0) {
        // loop of iUR776{8}
        #pragma unroll
        for (int64_t i58 = 0; i58 < 8; ++i58) {
          // loop of iUR774{2}
          #pragma unroll
          for (int64_t i59 = 0; i59 < 2; ++i59) {
            // loop of iUR779{2}
            #pragma unroll
            for (int64_t i60 = 0; i60 < 2; ++i60) {
              T61[(i60 + (i59 * 2)) + (i58 * 4)] = T61[(i60 + (i59 * 2)) + (i58 * 4)] * T60[i59];
            }
          }
        }
      }
      if ((i2 - 1) >= 0) {
        mbarrier::arrive(toSmem(&T65_mbar[((i2 - 1) % 3) + 3]));
      }
    }
    if ((min64(6, ceilDiv((((int64_t)blockIdx.x) * 128) + 128, 64)) - 1) >= 0) {
      mbarrier::arrive(toSmem(&T65_mbar[((min64(6, ceilDiv((((int64_t)blockIdx.x) * 128) + 128, 64)) - 1) % 3) + 3]));
    }
  }
  __syncthreads();  // every wait on T65_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T65, T66
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 6; ++s2) {
      mbarrier::inval(toSmem(&T65_mbar[s2]));
    }
  }
  wgmma::fenceOperands(T55_w);
  wgmma::fenceOperands(T61);
  wgmma::fence();
  // loop of rUR759{4}
  #pragma unroll
  for (int64_t i54 = 0; i54 < 4; ++i54) {
    wgmma::mmaM64N64K16F32Bf16RegA<1>(&T61[0],
        T55_w[(((i54 * 16) / 8) * 4) / 2],
        T55_w[((((i54 * 16) / 8) * 4) / 2) + 1],
        T55_w[((((i54 * 16) / 8) * 4) / 2) + 2],
        T55_w[((((i54 * 16) / 8) * 4) / 2) + 3],
        wgmma::smemDescriptor(toSmem(&T66[(i54 * 1024) + (((min64(6, ceilDiv((((int64_t)blockIdx.x) * 128) + 128, 64)) - 1) % 3) * 4096)]), 8192, 1024, 1));
  }
  wgmma::commit();
  wgmma::wait<0>();
  wgmma::fenceOperands(T55_w);
  wgmma::fenceOperands(T61);
  // loop of iUR821{8}
  #pragma unroll
  for (int64_t i47 = 0; i47 < 8; ++i47) {
    // loop of iUR819{2}
    #pragma unroll
    for (int64_t i48 = 0; i48 < 2; ++i48) {
      float T63[2];
      // loop of iUR809{2}
      #pragma unroll
      for (int64_t i49 = 0; i49 < 2; ++i49) {
        float T62[1];
        T62[0] = T54[i48];
        T63[i49] = T61[(i49 + (i48 * 2)) + (i47 * 4)] / T62[0];
      }
      if (((((int64_t)blockIdx.x) * 128) + ((((int64_t)tidY) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i48 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) < 100) {
        *reinterpret_cast<uint32_t*>(&T21.data[((((((int64_t)blockIdx.y) / 2) * T21_stride0) + ((((int64_t)blockIdx.y) % 2) * T21_stride1)) + (((((int64_t)blockIdx.x) * 128) + ((((int64_t)tidY) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i48 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) * T21_stride2)) + (((i47 * 8) + ((((int64_t)threadIdx.x) % 4) * 2)) * T21_stride3)]) = (static_cast<uint32_t>((__float2bfloat16(T63[0])).raw) | (static_cast<uint32_t>((__float2bfloat16(T63[1])).raw) << 16));
      }
    }
  }
  __syncthreads();  // every wait on T64_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    mbarrier::inval(toSmem(&T64_mbar[0]));
  }
}
