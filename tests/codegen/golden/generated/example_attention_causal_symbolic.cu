extern "C" __global__ void __launch_bounds__(64, 1) fusion_kernel(Tensor<__bfloat16, 4> T0, Tensor<__bfloat16, 4> T1, Tensor<__bfloat16, 4> T2, Tensor<__bfloat16, 4> T21) {
  const int64_t i1 = T0.size[1];
  const int64_t i2 = T0.size[2];
  const int64_t i4 = T1.size[1];
  const int64_t i5 = T1.size[2];
  const int64_t i7 = T2.size[1];
  const int64_t i8 = T2.size[2];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T0_stride2 = T0.stride[2];
  const int64_t T0_stride3 = T0.stride[3];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T1_stride1 = T1.stride[1];
  const int64_t T1_stride2 = T1.stride[2];
  const int64_t T1_stride3 = T1.stride[3];
  const int64_t T2_stride0 = T2.stride[0];
  const int64_t T2_stride1 = T2.stride[1];
  const int64_t T2_stride2 = T2.stride[2];
  const int64_t T2_stride3 = T2.stride[3];
  const int64_t T21_stride0 = T21.stride[0];
  const int64_t T21_stride1 = T21.stride[1];
  const int64_t T21_stride2 = T21.stride[2];
  const int64_t T21_stride3 = T21.stride[3];

  int T6[1];
  float T44_carry[1];
  float T54[1];
  float T61[32];
  T6[0] = static_cast<int>((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x));
  T44_carry[0] = __uint_as_float(0xff800000u);
  T54[0] = 0.0f;
  // loop of iS248{32}
  for (int64_t i17 = 0; i17 < 32; ++i17) {
    T61[i17] = 0.0f;
  }
  // rS244{ceilDiv(i5, 32)}: the first min(min(ceilDiv(i5, 32), ceilDiv((blockIdx.x * 64) + 64, 32)), min(max(0, i5) / 32, ((blockIdx.x * 64) + 1) / 32)) iterations with T33, T42 known true
  const int64_t h0 = ceilDiv(i5, 32) * 32;
  const int64_t h2 = (((((int64_t)blockIdx.y) / i1) * T0_stride0) + ((((int64_t)blockIdx.y) % i1) * T0_stride1)) + (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * T0_stride2);
  const int64_t h3 = ((((int64_t)blockIdx.y) / i4) * T1_stride0) + ((((int64_t)blockIdx.y) % i4) * T1_stride1);
  const int64_t h4 = ceilDiv(i8, 32) * 32;
  const int64_t h5 = ((((int64_t)blockIdx.y) / i7) * T2_stride0) + ((((int64_t)blockIdx.y) % i7) * T2_stride1);
  // loop of rS244{ceilDiv(i5, 32)}
  for (int64_t i12 = 0; i12 < min64(min64(ceilDiv(i5, 32), ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 32)), min64(max64(0, i5) / 32, ((((int64_t)blockIdx.x) * 64) + 1) / 32)); ++i12) {
    float T42[32];
    float T43[1];
    float T44[1];
    float T45[1];
    bool T46[1];
    float T47[1];
    float T48[1];
    float T49[1];
    float T53[1];
    __bfloat16 T55[32];
    // loop of iS159{32}
    for (int64_t i13 = 0; i13 < 32; ++i13) {
      float T31[1];
      float T32[1];
      float T33[1];
      if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < i2) {
        T31[0] = 0.0f;
      }
      const int64_t h1 = h3 + (((i12 * 32) + i13) * T1_stride2);
      // loop of rS128{32}
      for (int64_t i14 = 0; i14 < 32; ++i14) {
        __bfloat16 T27[1];
        __bfloat16 T28[1];
        __bfloat16 T30[1];
        if (((i12 * 32) + i13) < h0) {
          if (((i12 * 32) + i13) < i5) {
            T27[0] = T1.data[h1 + (i14 * T1_stride3)];
          } else {
            T27[0] = __float2bfloat16(0.0f);
          }
        }
        T28[0] = T27[0];
        T30[0] = T28[0];
        if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < i2) {
          T31[0] = T31[0] + (__bfloat162float(T0.data[h2 + (i14 * T0_stride3)]) * __bfloat162float(T30[0]));
        }
      }
      T32[0] = T31[0] * 0.17677669529663687f;
      T33[0] = T32[0];
      T42[i13] = T33[0];
    }
    T43[0] = __uint_as_float(0xff800000u);
    // loop of rS164{32}
    for (int64_t i15 = 0; i15 < 32; ++i15) {
      T43[0] = fmaxf(T43[0], T42[i15]);
    }
    T44[0] = T44_carry[0];
    T44_carry[0] = fmaxf(T44_carry[0], T43[0]);
    T45[0] = fmaxf(T44[0], T43[0]);
    T46[0] = T45[0] == __uint_as_float(0xff800000u);
    T47[0] = T46[0] ? 0.0f : T45[0];
    T48[0] = T44[0] - T47[0];
    T49[0] = exp2f(1.4426950408889634f * T48[0]);
    T53[0] = 0.0f;
    // loop of iS217{32}
    for (int64_t i16 = 0; i16 < 32; ++i16) {
      float T50[1];
      float T51[1];
      float T52[1];
      T50[0] = T47[0];
      T51[0] = T42[i16] - T50[0];
      T52[0] = exp2f(1.4426950408889634f * T51[0]);
      T53[0] = T53[0] + T52[0];
      T55[i16] = __float2bfloat16(T52[0]);
    }
    T54[0] = (T54[0] * T49[0]) + T53[0];
    // loop of iS248{32}
    for (int64_t i17 = 0; i17 < 32; ++i17) {
      float T59[1];
      float T60[1];
      T60[0] = T49[0];
      T59[0] = 0.0f;
      // loop of rS238{32}
      for (int64_t i18 = 0; i18 < 32; ++i18) {
        __bfloat16 T56[1];
        __bfloat16 T57[1];
        __bfloat16 T58[1];
        if (((i12 * 32) + i18) < h4) {
          if (((i12 * 32) + i18) < i8) {
            T56[0] = T2.data[(h5 + (((i12 * 32) + i18) * T2_stride2)) + (i17 * T2_stride3)];
          } else {
            T56[0] = __float2bfloat16(0.0f);
          }
        }
        T57[0] = T56[0];
        T58[0] = T57[0];
        T59[0] = T59[0] + (__bfloat162float(T55[i18]) * __bfloat162float(T58[0]));
      }
      T61[i17] = (T61[i17] * T60[0]) + T59[0];
    }
  }
  const int64_t h6 = ceilDiv(i5, 32) * 32;
  const int64_t h8 = (((((int64_t)blockIdx.y) / i1) * T0_stride0) + ((((int64_t)blockIdx.y) % i1) * T0_stride1)) + (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * T0_stride2);
  const int64_t h9 = ((((int64_t)blockIdx.y) / i4) * T1_stride0) + ((((int64_t)blockIdx.y) % i4) * T1_stride1);
  const int64_t h10 = ceilDiv(i8, 32) * 32;
  const int64_t h11 = ((((int64_t)blockIdx.y) / i7) * T2_stride0) + ((((int64_t)blockIdx.y) % i7) * T2_stride1);
  // loop of rS244{ceilDiv(i5, 32)}
  for (int64_t i12 = min64(min64(ceilDiv(i5, 32), ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 32)), min64(max64(0, i5) / 32, ((((int64_t)blockIdx.x) * 64) + 1) / 32)); i12 < min64(ceilDiv(i5, 32), ceilDiv((((int64_t)blockIdx.x) * 64) + 64, 32)); ++i12) {
    int64_t T34[1];
    int64_t T35[1];
    float T42[32];
    float T43[1];
    float T44[1];
    float T45[1];
    bool T46[1];
    float T47[1];
    float T48[1];
    float T49[1];
    float T53[1];
    __bfloat16 T55[32];
    T34[0] = i12;
    T35[0] = T34[0] * 32LL;
    // loop of iS159{32}
    for (int64_t i13 = 0; i13 < 32; ++i13) {
      int T7[1];
      int T8[1];
      int T22[1];
      int T23[1];
      int T24[1];
      int T25[1];
      bool T26[1];
      float T31[1];
      float T32[1];
      float T33[1];
      int64_t T36[1];
      int64_t T37[1];
      int64_t T38[1];
      int64_t T39[1];
      bool T40[1];
      bool T41[1];
      if (((i12 * 32) + i13) < i5) {
        T8[0] = static_cast<int>((i12 * 32) + i13);
      }
      if (((i12 * 32) + i13) < h6) {
        if (((i12 * 32) + i13) < i5) {
          T22[0] = T8[0];
        } else {
          T22[0] = 0;
        }
      }
      T23[0] = T22[0];
      T24[0] = T23[0];
      T7[0] = T6[0];
      T25[0] = T7[0];
      T26[0] = T24[0] <= T25[0];
      if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < i2) {
        T31[0] = 0.0f;
      }
      const int64_t h7 = h9 + (((i12 * 32) + i13) * T1_stride2);
      // loop of rS128{32}
      for (int64_t i14 = 0; i14 < 32; ++i14) {
        __bfloat16 T27[1];
        __bfloat16 T28[1];
        __bfloat16 T30[1];
        if (((i12 * 32) + i13) < h6) {
          if (((i12 * 32) + i13) < i5) {
            T27[0] = T1.data[h7 + (i14 * T1_stride3)];
          } else {
            T27[0] = __float2bfloat16(0.0f);
          }
        }
        T28[0] = T27[0];
        T30[0] = T28[0];
        if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < i2) {
          T31[0] = T31[0] + (__bfloat162float(T0.data[h8 + (i14 * T0_stride3)]) * __bfloat162float(T30[0]));
        }
      }
      T32[0] = T31[0] * 0.17677669529663687f;
      T33[0] = T26[0] ? T32[0] : __uint_as_float(0xff800000u);
      T36[0] = T35[0];
      T37[0] = i13;
      T38[0] = T37[0];
      T39[0] = T36[0] + T38[0];
      T40[0] = T39[0] < i5;
      T41[0] = T40[0];
      T42[i13] = T41[0] ? T33[0] : __uint_as_float(0xff800000u);
    }
    T43[0] = __uint_as_float(0xff800000u);
    // loop of rS164{32}
    for (int64_t i15 = 0; i15 < 32; ++i15) {
      T43[0] = fmaxf(T43[0], T42[i15]);
    }
    T44[0] = T44_carry[0];
    T44_carry[0] = fmaxf(T44_carry[0], T43[0]);
    T45[0] = fmaxf(T44[0], T43[0]);
    T46[0] = T45[0] == __uint_as_float(0xff800000u);
    T47[0] = T46[0] ? 0.0f : T45[0];
    T48[0] = T44[0] - T47[0];
    T49[0] = exp2f(1.4426950408889634f * T48[0]);
    T53[0] = 0.0f;
    // loop of iS217{32}
    for (int64_t i16 = 0; i16 < 32; ++i16) {
      float T50[1];
      float T51[1];
      float T52[1];
      T50[0] = T47[0];
      T51[0] = T42[i16] - T50[0];
      T52[0] = exp2f(1.4426950408889634f * T51[0]);
      T53[0] = T53[0] + T52[0];
      T55[i16] = __float2bfloat16(T52[0]);
    }
    T54[0] = (T54[0] * T49[0]) + T53[0];
    // loop of iS248{32}
    for (int64_t i17 = 0; i17 < 32; ++i17) {
      float T59[1];
      float T60[1];
      T60[0] = T49[0];
      T59[0] = 0.0f;
      // loop of rS238{32}
      for (int64_t i18 = 0; i18 < 32; ++i18) {
        __bfloat16 T56[1];
        __bfloat16 T57[1];
        __bfloat16 T58[1];
        if (((i12 * 32) + i18) < h10) {
          if (((i12 * 32) + i18) < i8) {
            T56[0] = T2.data[(h11 + (((i12 * 32) + i18) * T2_stride2)) + (i17 * T2_stride3)];
          } else {
            T56[0] = __float2bfloat16(0.0f);
          }
        }
        T57[0] = T56[0];
        T58[0] = T57[0];
        T59[0] = T59[0] + (__bfloat162float(T55[i18]) * __bfloat162float(T58[0]));
      }
      T61[i17] = (T61[i17] * T60[0]) + T59[0];
    }
  }
  const int64_t h12 = (((((int64_t)blockIdx.y) / i1) * T21_stride0) + ((((int64_t)blockIdx.y) % i1) * T21_stride1)) + (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * T21_stride2);
  // loop of iS83{32}
  for (int64_t i19 = 0; i19 < 32; ++i19) {
    float T62[1];
    float T63[1];
    T62[0] = T54[0];
    T63[0] = T61[i19] / T62[0];
    if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < i2) {
      T21.data[h12 + (i19 * T21_stride3)] = __float2bfloat16(T63[0]);
    }
  }
}
