extern "C" __global__ void __launch_bounds__(256, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<float, 2> T3) {
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T1_stride1 = T1.stride[1];
  const int64_t T3_stride0 = T3.stride[0];
  const int64_t T3_stride1 = T3.stride[1];
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T2 = reinterpret_cast<__bfloat16*>(smem);
  __bfloat16* T5 = reinterpret_cast<__bfloat16*>(smem + 49152);
  float T4[64];
  // loop of iUR22{1}
  #pragma unroll
  for (int64_t i13 = 0; i13 < 1; ++i13) {
    // loop of fragment
    #pragma unroll
    for (int64_t r4 = 0; r4 < 64; ++r4) {
      T4[r4 + (i13 * 64)] = 0.0f;
    }
  }
  // prologue loop of rS17{5}
  #pragma unroll
  for (int64_t i2 = 0; i2 < 1; ++i2) {
    const int64_t h0 = ((int64_t)threadIdx.x) % 64;
    // loop of iS47{32}
    for (int64_t i4 = 0; i4 < 32; ++i4) {
      if ((((i2 * 64) + h0) < 263) && (((((int64_t)blockIdx.x) * 128) + (((((i4 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64)) < 264)) {
        T2[((h0 + ((((((i4 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + ((i2 % 3) * 8192)) ^ (((((h0 + ((((((i4 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + ((i2 % 3) * 8192)) / 64) % 8) * 8)] = T1.data[(((((int64_t)blockIdx.x) * 128) + (((((i4 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64)) * T1_stride0) + (((i2 * 64) + h0) * T1_stride1)];
      } else {
        T2[((h0 + ((((((i4 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + ((i2 % 3) * 8192)) ^ (((((h0 + ((((((i4 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + ((i2 % 3) * 8192)) / 64) % 8) * 8)] = __float2bfloat16(0.0f);
      }
    }
    const int64_t h1 = ((int64_t)threadIdx.x) % 64;
    // loop of iS35{32}
    for (int64_t i8 = 0; i8 < 32; ++i8) {
      if ((((((int64_t)blockIdx.y) * 128) + (((((i8 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64)) < 200) && (((i2 * 64) + h1) < 263)) {
        T5[((h1 + ((((((i8 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + ((i2 % 3) * 8192)) ^ (((((h1 + ((((((i8 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + ((i2 % 3) * 8192)) / 64) % 8) * 8)] = T0.data[(((((int64_t)blockIdx.y) * 128) + (((((i8 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64)) * T0_stride0) + (((i2 * 64) + h1) * T0_stride1)];
      } else {
        T5[((h1 + ((((((i8 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + ((i2 % 3) * 8192)) ^ (((((h1 + ((((((i8 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + ((i2 % 3) * 8192)) / 64) % 8) * 8)] = __float2bfloat16(0.0f);
      }
    }
  }
  const int64_t h3 = ((int64_t)threadIdx.x) % 64;
  // main loop of rS17{5}
  #pragma unroll 1
  for (int64_t i2 = 0; i2 < 4; ++i2) {
    fenceAsyncProxy();
    __syncthreads();  // RAW: stage i2 % 3 of T2, T5 loaded by other threads
    wgmma::fenceOperands(T4);
    wgmma::fence();
    // loop of rUR23{4}
    #pragma unroll
    for (int64_t i12 = 0; i12 < 4; ++i12) {
      // loop of iUR22{1}
      #pragma unroll
      for (int64_t i13 = 0; i13 < 1; ++i13) {
        wgmma::mmaM64N128K16F32Bf16<0, 0>(&T4[i13 * 64],
            wgmma::smemDescriptor(toSmem(&T5[(((i12 * 16) % 64) + ((((((int64_t)threadIdx.y) + i13) * 64) % 128) * 64)) + ((i2 % 3) * 8192)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T2[((i12 * 16) % 64) + ((i2 % 3) * 8192)]), 16, 1024, 1));
      }
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T4);
    const int64_t h2 = ((i2 + 1) * 64) + h3;
    const int64_t h4 = ((i2 + 1) % 3) * 8192;
    const int64_t h5 = (((i2 + 1) * 64) + h3) * T1_stride1;
    // loop of iS47{32}
    for (int64_t i4 = 0; i4 < 32; ++i4) {
      if ((h2 < 263) && (((((int64_t)blockIdx.x) * 128) + (((((i4 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64)) < 264)) {
        T2[((h3 + ((((((i4 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + h4) ^ (((((h3 + ((((((i4 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + h4) / 64) % 8) * 8)] = T1.data[(((((int64_t)blockIdx.x) * 128) + (((((i4 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64)) * T1_stride0) + h5];
      } else {
        T2[((h3 + ((((((i4 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + h4) ^ (((((h3 + ((((((i4 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + h4) / 64) % 8) * 8)] = __float2bfloat16(0.0f);
      }
    }
    const int64_t h6 = ((i2 + 1) * 64) + h3;
    const int64_t h7 = ((i2 + 1) % 3) * 8192;
    const int64_t h8 = (((i2 + 1) * 64) + h3) * T0_stride1;
    // loop of iS35{32}
    for (int64_t i8 = 0; i8 < 32; ++i8) {
      if ((((((int64_t)blockIdx.y) * 128) + (((((i8 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64)) < 200) && (h6 < 263)) {
        T5[((h3 + ((((((i8 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + h7) ^ (((((h3 + ((((((i8 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + h7) / 64) % 8) * 8)] = T0.data[(((((int64_t)blockIdx.y) * 128) + (((((i8 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64)) * T0_stride0) + h8];
      } else {
        T5[((h3 + ((((((i8 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + h7) ^ (((((h3 + ((((((i8 * 2) + ((int64_t)threadIdx.y)) * 128) + ((int64_t)threadIdx.x)) / 64) * 64)) + h7) / 64) % 8) * 8)] = __float2bfloat16(0.0f);
      }
    }
  }
  wgmma::wait<0>();
  wgmma::fenceOperands(T4);
  // epilogue loop of rS17{5}
  #pragma unroll 1
  for (int64_t i2 = 4; i2 < 5; ++i2) {
    fenceAsyncProxy();
    __syncthreads();  // RAW: stage i2 % 3 of T2, T5 loaded by other threads
    wgmma::fenceOperands(T4);
    wgmma::fence();
    // loop of rUR23{4}
    #pragma unroll
    for (int64_t i12 = 0; i12 < 4; ++i12) {
      // loop of iUR22{1}
      #pragma unroll
      for (int64_t i13 = 0; i13 < 1; ++i13) {
        wgmma::mmaM64N128K16F32Bf16<0, 0>(&T4[i13 * 64],
            wgmma::smemDescriptor(toSmem(&T5[(((i12 * 16) % 64) + ((((((int64_t)threadIdx.y) + i13) * 64) % 128) * 64)) + ((i2 % 3) * 8192)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T2[((i12 * 16) % 64) + ((i2 % 3) * 8192)]), 16, 1024, 1));
      }
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T4);
  }
  wgmma::wait<0>();
  wgmma::fenceOperands(T4);
  // loop of iUR56{1}
  #pragma unroll
  for (int64_t i18 = 0; i18 < 1; ++i18) {
    // loop of iUR61{16}
    #pragma unroll
    for (int64_t i20 = 0; i20 < 16; ++i20) {
      // loop of iUR59{2}
      #pragma unroll
      for (int64_t i21 = 0; i21 < 2; ++i21) {
        if ((((((int64_t)blockIdx.y) * 128) + (((((int64_t)threadIdx.y) + i18) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i21 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) < 200) && (((((int64_t)blockIdx.x) * 128) + ((i20 * 8) + (((((int64_t)threadIdx.x) % 4) * 2) + 1))) < 264)) {
          *reinterpret_cast<float2*>(&T3.data[(((((int64_t)blockIdx.y) * 128) + (((((int64_t)threadIdx.y) + i18) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i21 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) * T3_stride0) + (((((int64_t)blockIdx.x) * 128) + ((i20 * 8) + ((((int64_t)threadIdx.x) % 4) * 2))) * T3_stride1)]) = float2{T4[((i20 * 4) + (i21 * 2)) + (i18 * 64)], T4[(((i20 * 4) + (i21 * 2)) + (i18 * 64)) + 1]};
        }
      }
    }
  }
}
