extern "C" __global__ void __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 4> T0, Tensor<__bfloat16, 4> T1, Tensor<__bfloat16, 4> T2, Tensor<__bfloat16, 4> T15, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2) {
  const int64_t T15_stride0 = T15.stride[0];
  const int64_t T15_stride1 = T15.stride[1];
  const int64_t T15_stride2 = T15.stride[2];
  const int64_t T15_stride3 = T15.stride[3];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  int64_t* T52_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && tidY == 0) {
    mbarrier::init(toSmem(&T52_mbar[0]), 1);
  }
  __syncthreads();  // init: T52_mbar visible to every thread
  __bfloat16* T52 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T53 = reinterpret_cast<__bfloat16*>(smem + 17408);
  float T32_carry[2];
  float T42[2];
  __bfloat16* T54 = reinterpret_cast<__bfloat16*>(smem + 33792);
  float T49[32];
  // loop of iUR518{2}
  #pragma unroll
  for (int64_t i28 = 0; i28 < 2; ++i28) {
    T32_carry[i28] = __uint_as_float(0xff800000u);
  }
  // loop of iUR530{2}
  #pragma unroll
  for (int64_t i37 = 0; i37 < 2; ++i37) {
    T42[i37] = 0.0f;
  }
  // loop of iUR581{8}
  #pragma unroll
  for (int64_t i58 = 0; i58 < 8; ++i58) {
    // loop of iUR579{2}
    #pragma unroll
    for (int64_t i59 = 0; i59 < 2; ++i59) {
      // loop of iUR584{2}
      #pragma unroll
      for (int64_t i60 = 0; i60 < 2; ++i60) {
        T49[(i60 + (i59 * 2)) + (i58 * 4)] = 0.0f;
      }
    }
  }
  int64_t* T53_mbar = reinterpret_cast<int64_t*>(smem + 8);
  if (threadIdx.x == 0 && tidY == 0) {
    // pre-prologue loop of stages of T53, T54
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 2; ++s2) {
      mbarrier::init(toSmem(&T53_mbar[s2]), 1);
      mbarrier::init(toSmem(&T53_mbar[s2 + 2]), 256);
    }
  }
  __syncthreads();  // init: T53_mbar visible to every thread
  if (((int64_t)tidY) >= (((int64_t)blockDim.y) - 1)) {
    decreaseRegisters<24>();
    if (threadIdx.x == 0 && tidY == 2) {
      mbarrier::arriveExpectTx(toSmem(&T52_mbar[0]), 16384);
      // loop of iUR241{1}
      #pragma unroll
      for (int64_t i11 = 0; i11 < 1; ++i11) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T52[i11 * 8192]), &tmap_T0, toSmem(&T52_mbar[0]), i11 * 64, ((int64_t)blockIdx.x) * 128, ((int64_t)blockIdx.y) % 2, ((int64_t)blockIdx.y) / 2);
      }
    }
    if (threadIdx.x == 0 && tidY == 2) {
      const int64_t h0 = ((int64_t)blockIdx.y) / 2;
      const int64_t h1 = ((int64_t)blockIdx.y) % 2;
      // AsyncWarp loop of rS202{4}
      #pragma unroll 1
      for (int64_t i2 = 0; i2 < 4; ++i2) {
        mbarrier::waitParity(toSmem(&T53_mbar[(i2 % 2) + 2]), (i2 / 2) % 2);
        mbarrier::arriveExpectTx(toSmem(&T53_mbar[i2 % 2]), 16384);
        // loop of iUR247{1}
        #pragma unroll
        for (int64_t i14 = 0; i14 < 1; ++i14) {
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T53[(i14 * 4096) + ((i2 % 2) * 4096)]), &tmap_T1, toSmem(&T53_mbar[i2 % 2]), i14 * 64, i2 * 64, h1, h0);
        }
        // loop of iUR570{1}
        #pragma unroll
        for (int64_t i50 = 0; i50 < 1; ++i50) {
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T54[(i50 * 4096) + ((i2 % 2) * 4096)]), &tmap_T2, toSmem(&T53_mbar[i2 % 2]), i50 * 64, i2 * 64, h1, h0);
        }
      }
    }
    return;
  } else {
    increaseRegisters<240>();
    mbarrier::waitParity(toSmem(&T52_mbar[0]), 0);
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 2; ++s2) {
      mbarrier::arrive(toSmem(&T53_mbar[s2 + 2]));
    }
    // rS202{4}: the first 3 iterations with T30 known true
    const int64_t h2 = ((((int64_t)tidY) * 64) % 128) * 64;
    // ComputeWarp loop of rS202{4}
    #pragma unroll 1
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
      mbarrier::waitParity(toSmem(&T53_mbar[i2 % 2]), (i2 / 2) % 2);
      wgmma::discard(T20);  // written by its first wgmmas (scale-d 0), not zeroed
      const int64_t h3 = (i2 % 2) * 4096;
      // loop of rS234{1}
      for (int64_t i18 = 0; i18 < 1; ++i18) {
        wgmma::fenceOperands(T20);
        wgmma::fence();
        // loop of rUR236{4}
        #pragma unroll
        for (int64_t i19 = 0; i19 < 4; ++i19) {
          wgmma::mmaM64N64K16F32Bf16<0, 0>(&T20[0],
              wgmma::smemDescriptor(toSmem(&T52[(((i19 * 16) % 64) + h2) + (i18 * 8192)]), 16, 1024, 1),
              wgmma::smemDescriptor(toSmem(&T53[(((i19 * 16) % 64) + (i18 * 4096)) + h3]), 16, 1024, 1), (i18 != 0) || (i19 != 0));
        }
        wgmma::commit();
        wgmma::wait<0>();
        wgmma::fenceOperands(T20);
      }
      // loop of iUR273{8}
      #pragma unroll
      for (int64_t i8 = 0; i8 < 8; ++i8) {
        // loop of iUR271{2}
        #pragma unroll
        for (int64_t i9 = 0; i9 < 2; ++i9) {
          // loop of iUR276{2}
          #pragma unroll
          for (int64_t i10 = 0; i10 < 2; ++i10) {
            float T21[1];
            T21[0] = T20[((i8 * 4) + (i9 * 2)) + i10] * 0.125f;
            T30[(i10 + (i9 * 2)) + (i8 * 4)] = T21[0];
          }
        }
      }
      // loop of iUR286{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        T31_acc[i25] = __uint_as_float(0xff800000u);
      }
      // loop of rUR288{8}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 8; ++i24) {
        // loop of iUR286{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          // loop of rUR291{2}
          #pragma unroll
          for (int64_t i26 = 0; i26 < 2; ++i26) {
            T31_acc[i25] = fmaxf(T31_acc[i25], T30[(i26 + (i25 * 2)) + (i24 * 4)]);
          }
        }
      }
      // loop of iUR286{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        T31_acc[i25] = ReduceMax()(T31_acc[i25], warpShflXor(T31_acc[i25], 1u));
        T31_acc[i25] = ReduceMax()(T31_acc[i25], warpShflXor(T31_acc[i25], 2u));
        T31[i25] = T31_acc[i25];
      }
      // loop of iUR518{2}
      #pragma unroll
      for (int64_t i28 = 0; i28 < 2; ++i28) {
        float T32[1];
        float T33[1];
        bool T34[1];
        float T36[1];
        T32[0] = T32_carry[i28];
        T32_carry[i28] = fmaxf(T32_carry[i28], T31[i28]);
        T33[0] = fmaxf(T32[0], T31[i28]);
        T34[0] = T33[0] == __uint_as_float(0xff800000u);
        T35[i28] = T34[0] ? 0.0f : T33[0];
        T36[0] = T32[0] - T35[i28];
        T37[i28] = exp2f(1.4426950408889634f * T36[0]);
      }
      // loop of iUR318{8}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 8; ++i30) {
        // loop of iUR316{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          // loop of iUR321{2}
          #pragma unroll
          for (int64_t i32 = 0; i32 < 2; ++i32) {
            float T38[1];
            float T39[1];
            T38[0] = T35[i31];
            T39[0] = T30[(i32 + (i31 * 2)) + (i30 * 4)] - T38[0];
            T40[(i32 + (i31 * 2)) + (i30 * 4)] = exp2f(1.4426950408889634f * T39[0]);
          }
        }
      }
      // loop of iUR346{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        T41_acc[i34] = 0.0f;
      }
      // loop of rUR348{8}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 8; ++i33) {
        // loop of iUR346{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          // loop of rUR351{2}
          #pragma unroll
          for (int64_t i35 = 0; i35 < 2; ++i35) {
            T41_acc[i34] = T41_acc[i34] + T40[(i35 + (i34 * 2)) + (i33 * 4)];
          }
        }
      }
      // loop of iUR346{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        T41_acc[i34] = ReduceAdd()(T41_acc[i34], warpShflXor(T41_acc[i34], 1u));
        T41_acc[i34] = ReduceAdd()(T41_acc[i34], warpShflXor(T41_acc[i34], 2u));
        T41[i34] = T41_acc[i34];
      }
      // loop of iUR333{8}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 8; ++i38) {
        // loop of iUR331{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          // loop of iUR336{2}
          #pragma unroll
          for (int64_t i40 = 0; i40 < 2; ++i40) {
            T43[(i40 + (i39 * 2)) + (i38 * 4)] = __float2bfloat16(T40[(i40 + (i39 * 2)) + (i38 * 4)]);
          }
        }
      }
      // loop of iUR530{2}
      #pragma unroll
      for (int64_t i37 = 0; i37 < 2; ++i37) {
        T42[i37] = (T42[i37] * T37[i37]) + T41[i37];
      }
      // loop of iUR654{2}
      #pragma unroll
      for (int64_t i43 = 0; i43 < 2; ++i43) {
        T48[i43] = T37[i43];
      }
      if (i2 > 0) {
        // loop of iUR581{8}
        #pragma unroll
        for (int64_t i58 = 0; i58 < 8; ++i58) {
          // loop of iUR579{2}
          #pragma unroll
          for (int64_t i59 = 0; i59 < 2; ++i59) {
            // loop of iUR584{2}
            #pragma unroll
            for (int64_t i60 = 0; i60 < 2; ++i60) {
              T49[(i60 + (i59 * 2)) + (i58 * 4)] = T49[(i60 + (i59 * 2)) + (i58 * 4)] * T48[i59];
            }
          }
        }
      }
      wgmma::fenceOperands(T43_w);
      wgmma::fenceOperands(T49);
      wgmma::fence();
      // loop of rUR564{4}
      #pragma unroll
      for (int64_t i54 = 0; i54 < 4; ++i54) {
        wgmma::mmaM64N64K16F32Bf16RegA<1>(&T49[0],
            T43_w[(((i54 * 16) / 8) * 4) / 2],
            T43_w[((((i54 * 16) / 8) * 4) / 2) + 1],
            T43_w[((((i54 * 16) / 8) * 4) / 2) + 2],
            T43_w[((((i54 * 16) / 8) * 4) / 2) + 3],
            wgmma::smemDescriptor(toSmem(&T54[(i54 * 1024) + ((i2 % 2) * 4096)]), 8192, 1024, 1));
      }
      wgmma::commit();
      wgmma::wait<0>();
      wgmma::fenceOperands(T43_w);
      wgmma::fenceOperands(T49);
      mbarrier::arrive(toSmem(&T53_mbar[(i2 % 2) + 2]));
    }
    const int64_t h4 = ((((int64_t)tidY) * 64) % 128) * 64;
    const int64_t h6 = (((int64_t)threadIdx.x) % 4) * 2;
    // ComputeWarp loop of rS202{4}
    #pragma unroll 1
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
      mbarrier::waitParity(toSmem(&T53_mbar[i2 % 2]), (i2 / 2) % 2);
      T22[0] = i2;
      T23[0] = T22[0] * 64LL;
      T24[0] = T23[0];
      wgmma::discard(T20);  // written by its first wgmmas (scale-d 0), not zeroed
      const int64_t h5 = (i2 % 2) * 4096;
      // loop of rS234{1}
      for (int64_t i18 = 0; i18 < 1; ++i18) {
        wgmma::fenceOperands(T20);
        wgmma::fence();
        // loop of rUR236{4}
        #pragma unroll
        for (int64_t i19 = 0; i19 < 4; ++i19) {
          wgmma::mmaM64N64K16F32Bf16<0, 0>(&T20[0],
              wgmma::smemDescriptor(toSmem(&T52[(((i19 * 16) % 64) + h4) + (i18 * 8192)]), 16, 1024, 1),
              wgmma::smemDescriptor(toSmem(&T53[(((i19 * 16) % 64) + (i18 * 4096)) + h5]), 16, 1024, 1), (i18 != 0) || (i19 != 0));
        }
        wgmma::commit();
        wgmma::wait<0>();
        wgmma::fenceOperands(T20);
      }
      // loop of iUR273{8}
      #pragma unroll
      for (int64_t i8 = 0; i8 < 8; ++i8) {
        // loop of iUR271{2}
        #pragma unroll
        for (int64_t i9 = 0; i9 < 2; ++i9) {
          // loop of iUR276{2}
          #pragma unroll
          for (int64_t i10 = 0; i10 < 2; ++i10) {
            int64_t T25[1];
            int64_t T26[1];
            int64_t T27[1];
            bool T28[1];
            bool T29[1];
            float T21[1];
            T25[0] = (i8 * 8) + (h6 + i10);
            T26[0] = T25[0];
            T27[0] = T24[0] + T26[0];
            T28[0] = T27[0] < 200LL;
            T29[0] = T28[0];
            T21[0] = T20[((i8 * 4) + (i9 * 2)) + i10] * 0.125f;
            T30[(i10 + (i9 * 2)) + (i8 * 4)] = T29[0] ? T21[0] : __uint_as_float(0xff800000u);
          }
        }
      }
      // loop of iUR286{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        T31_acc[i25] = __uint_as_float(0xff800000u);
      }
      // loop of rUR288{8}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 8; ++i24) {
        // loop of iUR286{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          // loop of rUR291{2}
          #pragma unroll
          for (int64_t i26 = 0; i26 < 2; ++i26) {
            T31_acc[i25] = fmaxf(T31_acc[i25], T30[(i26 + (i25 * 2)) + (i24 * 4)]);
          }
        }
      }
      // loop of iUR286{2}
      #pragma unroll
      for (int64_t i25 = 0; i25 < 2; ++i25) {
        T31_acc[i25] = ReduceMax()(T31_acc[i25], warpShflXor(T31_acc[i25], 1u));
        T31_acc[i25] = ReduceMax()(T31_acc[i25], warpShflXor(T31_acc[i25], 2u));
        T31[i25] = T31_acc[i25];
      }
      // loop of iUR518{2}
      #pragma unroll
      for (int64_t i28 = 0; i28 < 2; ++i28) {
        float T32[1];
        float T33[1];
        bool T34[1];
        float T36[1];
        T32[0] = T32_carry[i28];
        T32_carry[i28] = fmaxf(T32_carry[i28], T31[i28]);
        T33[0] = fmaxf(T32[0], T31[i28]);
        T34[0] = T33[0] == __uint_as_float(0xff800000u);
        T35[i28] = T34[0] ? 0.0f : T33[0];
        T36[0] = T32[0] - T35[i28];
        T37[i28] = exp2f(1.4426950408889634f * T36[0]);
      }
      // loop of iUR318{8}
      #pragma unroll
      for (int64_t i30 = 0; i30 < 8; ++i30) {
        // loop of iUR316{2}
        #pragma unroll
        for (int64_t i31 = 0; i31 < 2; ++i31) {
          // loop of iUR321{2}
          #pragma unroll
          for (int64_t i32 = 0; i32 < 2; ++i32) {
            float T38[1];
            float T39[1];
            T38[0] = T35[i31];
            T39[0] = T30[(i32 + (i31 * 2)) + (i30 * 4)] - T38[0];
            T40[(i32 + (i31 * 2)) + (i30 * 4)] = exp2f(1.4426950408889634f * T39[0]);
          }
        }
      }
      // loop of iUR346{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        T41_acc[i34] = 0.0f;
      }
      // loop of rUR348{8}
      #pragma unroll
      for (int64_t i33 = 0; i33 < 8; ++i33) {
        // loop of iUR346{2}
        #pragma unroll
        for (int64_t i34 = 0; i34 < 2; ++i34) {
          // loop of rUR351{2}
          #pragma unroll
          for (int64_t i35 = 0; i35 < 2; ++i35) {
            T41_acc[i34] = T41_acc[i34] + T40[(i35 + (i34 * 2)) + (i33 * 4)];
          }
        }
      }
      // loop of iUR346{2}
      #pragma unroll
      for (int64_t i34 = 0; i34 < 2; ++i34) {
        T41_acc[i34] = ReduceAdd()(T41_acc[i34], warpShflXor(T41_acc[i34], 1u));
        T41_acc[i34] = ReduceAdd()(T41_acc[i34], warpShflXor(T41_acc[i34], 2u));
        T41[i34] = T41_acc[i34];
      }
      // loop of iUR333{8}
      #pragma unroll
      for (int64_t i38 = 0; i38 < 8; ++i38) {
        // loop of iUR331{2}
        #pragma unroll
        for (int64_t i39 = 0; i39 < 2; ++i39) {
          // loop of iUR336{2}
          #pragma unroll
          for (int64_t i40 = 0; i40 < 2; ++i40) {
            T43[(i40 + (i39 * 2)) + (i38 * 4)] = __float2bfloat16(T40[(i40 + (i39 * 2)) + (i38 * 4)]);
          }
        }
      }
      // loop of iUR530{2}
      #pragma unroll
      for (int64_t i37 = 0; i37 < 2; ++i37) {
        T42[i37] = (T42[i37] * T37[i37]) + T41[i37];
      }
      // loop of iUR654{2}
      #pragma unroll
      for (int64_t i43 = 0; i43 < 2; ++i43) {
        T48[i43] = T37[i43];
      }
      if (i2 > 0) {
        // loop of iUR581{8}
        #pragma unroll
        for (int64_t i58 = 0; i58 < 8; ++i58) {
          // loop of iUR579{2}
          #pragma unroll
          for (int64_t i59 = 0; i59 < 2; ++i59) {
            // loop of iUR584{2}
            #pragma unroll
            for (int64_t i60 = 0; i60 < 2; ++i60) {
              T49[(i60 + (i59 * 2)) + (i58 * 4)] = T49[(i60 + (i59 * 2)) + (i58 * 4)] * T48[i59];
            }
          }
        }
      }
      wgmma::fenceOperands(T43_w);
      wgmma::fenceOperands(T49);
      wgmma::fence();
      // loop of rUR564{4}
      #pragma unroll
      for (int64_t i54 = 0; i54 < 4; ++i54) {
        wgmma::mmaM64N64K16F32Bf16RegA<1>(&T49[0],
            T43_w[(((i54 * 16) / 8) * 4) / 2],
            T43_w[((((i54 * 16) / 8) * 4) / 2) + 1],
            T43_w[((((i54 * 16) / 8) * 4) / 2) + 2],
            T43_w[((((i54 * 16) / 8) * 4) / 2) + 3],
            wgmma::smemDescriptor(toSmem(&T54[(i54 * 1024) + ((i2 % 2) * 4096)]), 8192, 1024, 1));
      }
      wgmma::commit();
      wgmma::wait<0>();
      wgmma::fenceOperands(T43_w);
      wgmma::fenceOperands(T49);
      mbarrier::arrive(toSmem(&T53_mbar[(i2 % 2) + 2]));
    }
  }
  __syncthreads();  // every wait on T53_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    // post-epilogue loop of stages of T53, T54
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 4; ++s2) {
      mbarrier::inval(toSmem(&T53_mbar[s2]));
    }
  }
  // loop of iUR626{8}
  #pragma unroll
  for (int64_t i47 = 0; i47 < 8; ++i47) {
    // loop of iUR624{2}
    #pragma unroll
    for (int64_t i48 = 0; i48 < 2; ++i48) {
      float T51[2];
      // loop of iUR614{2}
      #pragma unroll
      for (int64_t i49 = 0; i49 < 2; ++i49) {
        float T50[1];
        T50[0] = T42[i48];
        T51[i49] = T49[(i49 + (i48 * 2)) + (i47 * 4)] / T50[0];
      }
      if (((((int64_t)blockIdx.x) * 128) + ((((int64_t)tidY) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i48 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) < 200) {
        *reinterpret_cast<uint32_t*>(&T15.data[((((((int64_t)blockIdx.y) / 2) * T15_stride0) + ((((int64_t)blockIdx.y) % 2) * T15_stride1)) + (((((int64_t)blockIdx.x) * 128) + ((((int64_t)tidY) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i48 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) * T15_stride2)) + (((i47 * 8) + ((((int64_t)threadIdx.x) % 4) * 2)) * T15_stride3)]) = (static_cast<uint32_t>((__float2bfloat16(T51[0])).raw) | (static_cast<uint32_t>((__float2bfloat16(T51[1])).raw) << 16));
      }
    }
  }
  __syncthreads();  // every wait on T52_mbar done before inval
  if (threadIdx.x == 0 && tidY == 0) {
    mbarrier::inval(toSmem(&T52_mbar[0]));
  }
}
