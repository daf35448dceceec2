extern "C" __global__ void __launch_bounds__(64, 1) fusion_kernel(Tensor<__bfloat16, 4> T0, Tensor<__bfloat16, 4> T1, Tensor<__bfloat16, 4> T2, Tensor<__bfloat16, 4> T15) {
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
  const int64_t T15_stride0 = T15.stride[0];
  const int64_t T15_stride1 = T15.stride[1];
  const int64_t T15_stride2 = T15.stride[2];
  const int64_t T15_stride3 = T15.stride[3];

  float T32_carry[1];
  float T42[1];
  float T49[32];
  T32_carry[0] = __uint_as_float(0xff800000u);
  T42[0] = 0.0f;
  // loop of iS206{32}
  for (int64_t i8 = 0; i8 < 32; ++i8) {
    T49[i8] = 0.0f;
  }
  // rS202{3}: the first 2 iterations with T30 known true
  const int64_t h1 = (((((int64_t)blockIdx.y) / 2) * T0_stride0) + ((((int64_t)blockIdx.y) % 2) * T0_stride1)) + (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * T0_stride2);
  const int64_t h2 = ((((int64_t)blockIdx.y) / 2) * T1_stride0) + ((((int64_t)blockIdx.y) % 2) * T1_stride1);
  const int64_t h3 = ((((int64_t)blockIdx.y) / 2) * T2_stride0) + ((((int64_t)blockIdx.y) % 2) * T2_stride1);
  // loop of rS202{3}
  for (int64_t i3 = 0; i3 < 2; ++i3) {
    float T30[32];
    float T31[1];
    float T32[1];
    float T33[1];
    bool T34[1];
    float T35[1];
    float T36[1];
    float T37[1];
    float T41[1];
    __bfloat16 T43[32];
    // loop of iS117{32}
    for (int64_t i4 = 0; i4 < 32; ++i4) {
      float T20[1];
      float T21[1];
      if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < 48) {
        T20[0] = 0.0f;
      }
      const int64_t h0 = h2 + (((i3 * 32) + i4) * T1_stride2);
      // loop of rS91{32}
      for (int64_t i5 = 0; i5 < 32; ++i5) {
        __bfloat16 T16[1];
        __bfloat16 T17[1];
        __bfloat16 T19[1];
        if (((i3 * 32) + i4) < 80) {
          T16[0] = T1.data[h0 + (i5 * T1_stride3)];
        } else {
          T16[0] = __float2bfloat16(0.0f);
        }
        T17[0] = T16[0];
        T19[0] = T17[0];
        if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < 48) {
          T20[0] = T20[0] + (__bfloat162float(T0.data[h1 + (i5 * T0_stride3)]) * __bfloat162float(T19[0]));
        }
      }
      T21[0] = T20[0] * 0.17677669529663687f;
      T30[i4] = T21[0];
    }
    T31[0] = __uint_as_float(0xff800000u);
    // loop of rS122{32}
    for (int64_t i6 = 0; i6 < 32; ++i6) {
      T31[0] = fmaxf(T31[0], T30[i6]);
    }
    T32[0] = T32_carry[0];
    T32_carry[0] = fmaxf(T32_carry[0], T31[0]);
    T33[0] = fmaxf(T32[0], T31[0]);
    T34[0] = T33[0] == __uint_as_float(0xff800000u);
    T35[0] = T34[0] ? 0.0f : T33[0];
    T36[0] = T32[0] - T35[0];
    T37[0] = exp2f(1.4426950408889634f * T36[0]);
    T41[0] = 0.0f;
    // loop of iS175{32}
    for (int64_t i7 = 0; i7 < 32; ++i7) {
      float T38[1];
      float T39[1];
      float T40[1];
      T38[0] = T35[0];
      T39[0] = T30[i7] - T38[0];
      T40[0] = exp2f(1.4426950408889634f * T39[0]);
      T41[0] = T41[0] + T40[0];
      T43[i7] = __float2bfloat16(T40[0]);
    }
    T42[0] = (T42[0] * T37[0]) + T41[0];
    // loop of iS206{32}
    for (int64_t i8 = 0; i8 < 32; ++i8) {
      float T47[1];
      float T48[1];
      T48[0] = T37[0];
      T47[0] = 0.0f;
      // loop of rS196{32}
      for (int64_t i9 = 0; i9 < 32; ++i9) {
        __bfloat16 T44[1];
        __bfloat16 T45[1];
        __bfloat16 T46[1];
        if (((i3 * 32) + i9) < 80) {
          T44[0] = T2.data[(h3 + (((i3 * 32) + i9) * T2_stride2)) + (i8 * T2_stride3)];
        } else {
          T44[0] = __float2bfloat16(0.0f);
        }
        T45[0] = T44[0];
        T46[0] = T45[0];
        T47[0] = T47[0] + (__bfloat162float(T43[i9]) * __bfloat162float(T46[0]));
      }
      T49[i8] = (T49[i8] * T48[0]) + T47[0];
    }
  }
  const int64_t h5 = (((((int64_t)blockIdx.y) / 2) * T0_stride0) + ((((int64_t)blockIdx.y) % 2) * T0_stride1)) + (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * T0_stride2);
  const int64_t h6 = ((((int64_t)blockIdx.y) / 2) * T1_stride0) + ((((int64_t)blockIdx.y) % 2) * T1_stride1);
  const int64_t h7 = ((((int64_t)blockIdx.y) / 2) * T2_stride0) + ((((int64_t)blockIdx.y) % 2) * T2_stride1);
  // loop of rS202{3}
  for (int64_t i3 = 2; i3 < 3; ++i3) {
    int64_t T22[1];
    int64_t T23[1];
    float T30[32];
    float T31[1];
    float T32[1];
    float T33[1];
    bool T34[1];
    float T35[1];
    float T36[1];
    float T37[1];
    float T41[1];
    __bfloat16 T43[32];
    T22[0] = i3;
    T23[0] = T22[0] * 32LL;
    // loop of iS117{32}
    for (int64_t i4 = 0; i4 < 32; ++i4) {
      float T20[1];
      float T21[1];
      int64_t T24[1];
      int64_t T25[1];
      int64_t T26[1];
      int64_t T27[1];
      bool T28[1];
      bool T29[1];
      if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < 48) {
        T20[0] = 0.0f;
      }
      const int64_t h4 = h6 + (((i3 * 32) + i4) * T1_stride2);
      // loop of rS91{32}
      for (int64_t i5 = 0; i5 < 32; ++i5) {
        __bfloat16 T16[1];
        __bfloat16 T17[1];
        __bfloat16 T19[1];
        if (((i3 * 32) + i4) < 80) {
          T16[0] = T1.data[h4 + (i5 * T1_stride3)];
        } else {
          T16[0] = __float2bfloat16(0.0f);
        }
        T17[0] = T16[0];
        T19[0] = T17[0];
        if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < 48) {
          T20[0] = T20[0] + (__bfloat162float(T0.data[h5 + (i5 * T0_stride3)]) * __bfloat162float(T19[0]));
        }
      }
      T21[0] = T20[0] * 0.17677669529663687f;
      T24[0] = T23[0];
      T25[0] = i4;
      T26[0] = T25[0];
      T27[0] = T24[0] + T26[0];
      T28[0] = T27[0] < 80LL;
      T29[0] = T28[0];
      T30[i4] = T29[0] ? T21[0] : __uint_as_float(0xff800000u);
    }
    T31[0] = __uint_as_float(0xff800000u);
    // loop of rS122{32}
    for (int64_t i6 = 0; i6 < 32; ++i6) {
      T31[0] = fmaxf(T31[0], T30[i6]);
    }
    T32[0] = T32_carry[0];
    T32_carry[0] = fmaxf(T32_carry[0], T31[0]);
    T33[0] = fmaxf(T32[0], T31[0]);
    T34[0] = T33[0] == __uint_as_float(0xff800000u);
    T35[0] = T34[0] ? 0.0f : T33[0];
    T36[0] = T32[0] - T35[0];
    T37[0] = exp2f(1.4426950408889634f * T36[0]);
    T41[0] = 0.0f;
    // loop of iS175{32}
    for (int64_t i7 = 0; i7 < 32; ++i7) {
      float T38[1];
      float T39[1];
      float T40[1];
      T38[0] = T35[0];
      T39[0] = T30[i7] - T38[0];
      T40[0] = exp2f(1.4426950408889634f * T39[0]);
      T41[0] = T41[0] + T40[0];
      T43[i7] = __float2bfloat16(T40[0]);
    }
    T42[0] = (T42[0] * T37[0]) + T41[0];
    // loop of iS206{32}
    for (int64_t i8 = 0; i8 < 32; ++i8) {
      float T47[1];
      float T48[1];
      T48[0] = T37[0];
      T47[0] = 0.0f;
      // loop of rS196{32}
      for (int64_t i9 = 0; i9 < 32; ++i9) {
        __bfloat16 T44[1];
        __bfloat16 T45[1];
        __bfloat16 T46[1];
        if (((i3 * 32) + i9) < 80) {
          T44[0] = T2.data[(h7 + (((i3 * 32) + i9) * T2_stride2)) + (i8 * T2_stride3)];
        } else {
          T44[0] = __float2bfloat16(0.0f);
        }
        T45[0] = T44[0];
        T46[0] = T45[0];
        T47[0] = T47[0] + (__bfloat162float(T43[i9]) * __bfloat162float(T46[0]));
      }
      T49[i8] = (T49[i8] * T48[0]) + T47[0];
    }
  }
  const int64_t h8 = (((((int64_t)blockIdx.y) / 2) * T15_stride0) + ((((int64_t)blockIdx.y) % 2) * T15_stride1)) + (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) * T15_stride2);
  // loop of iS65{32}
  for (int64_t i10 = 0; i10 < 32; ++i10) {
    float T50[1];
    float T51[1];
    T50[0] = T42[0];
    T51[0] = T49[i10] / T50[0];
    if (((((int64_t)blockIdx.x) * 64) + ((int64_t)threadIdx.x)) < 48) {
      T15.data[h8 + (i10 * T15_stride3)] = __float2bfloat16(T51[0]);
    }
  }
}
