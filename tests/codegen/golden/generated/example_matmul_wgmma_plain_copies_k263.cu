extern "C" __global__ void __launch_bounds__(256, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<float, 2> T3) {
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T1_stride1 = T1.stride[1];
  const int64_t T3_stride0 = T3.stride[0];
  const int64_t T3_stride1 = T3.stride[1];
  const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T2 = reinterpret_cast<__bfloat16*>(smem);
  __bfloat16* T5 = reinterpret_cast<__bfloat16*>(smem + 49152);
  float T4[64];
  // loop of iUR22{1}
  #pragma unroll
  for (int64_t i15 = 0; i15 < 1; ++i15) {
    // loop of fragment
    #pragma unroll
    for (int64_t r4 = 0; r4 < 64; ++r4) {
      T4[r4 + (i15 * 64)] = 0.0f;
    }
  }
  // prologue loop of rS17{5}
  #pragma unroll
  for (int64_t i2 = 0; i2 < 1; ++i2) {
    const int64_t h0 = (((int64_t)threadIdx.x) % 8) * 8;
    const int64_t h1 = ((((int64_t)threadIdx.x) % 8) * 8) + 1;
    const int64_t h2 = ((((int64_t)threadIdx.x) % 8) * 8) + 2;
    const int64_t h3 = ((((int64_t)threadIdx.x) % 8) * 8) + 3;
    const int64_t h4 = ((((int64_t)threadIdx.x) % 8) * 8) + 4;
    const int64_t h5 = ((((int64_t)threadIdx.x) % 8) * 8) + 5;
    const int64_t h6 = ((((int64_t)threadIdx.x) % 8) * 8) + 6;
    const int64_t h7 = ((((int64_t)threadIdx.x) % 8) * 8) + 7;
    // loop of iS51{4}
    for (int64_t i4 = 0; i4 < 4; ++i4) {
      copyMisaligned<16, 2>(&T2[((h0 + ((((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + ((i2 % 3) * 8192)) ^ (((((h0 + ((((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + ((i2 % 3) * 8192)) / 64) % 8) * 8)], &T1.data[(((((int64_t)blockIdx.x) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) * T1_stride0) + (((i2 * 64) + h0) * T1_stride1)], (((((int64_t)blockIdx.x) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) < 264) ? (((((i2 * 64) + h0) < 263) ? 1u : 0u) | ((((i2 * 64) + h1) < 263) ? 2u : 0u) | ((((i2 * 64) + h2) < 263) ? 4u : 0u) | ((((i2 * 64) + h3) < 263) ? 8u : 0u) | ((((i2 * 64) + h4) < 263) ? 16u : 0u) | ((((i2 * 64) + h5) < 263) ? 32u : 0u) | ((((i2 * 64) + h6) < 263) ? 64u : 0u) | ((((i2 * 64) + h7) < 263) ? 128u : 0u)) : 0u);
    }
    const int64_t h8 = (((int64_t)threadIdx.x) % 8) * 8;
    const int64_t h9 = ((((int64_t)threadIdx.x) % 8) * 8) + 1;
    const int64_t h10 = ((((int64_t)threadIdx.x) % 8) * 8) + 2;
    const int64_t h11 = ((((int64_t)threadIdx.x) % 8) * 8) + 3;
    const int64_t h12 = ((((int64_t)threadIdx.x) % 8) * 8) + 4;
    const int64_t h13 = ((((int64_t)threadIdx.x) % 8) * 8) + 5;
    const int64_t h14 = ((((int64_t)threadIdx.x) % 8) * 8) + 6;
    const int64_t h15 = ((((int64_t)threadIdx.x) % 8) * 8) + 7;
    // loop of iS37{4}
    for (int64_t i9 = 0; i9 < 4; ++i9) {
      copyMisaligned<16, 2>(&T5[((h8 + ((((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + ((i2 % 3) * 8192)) ^ (((((h8 + ((((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + ((i2 % 3) * 8192)) / 64) % 8) * 8)], &T0.data[(((((int64_t)blockIdx.y) * 128) + (((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) * T0_stride0) + (((i2 * 64) + h8) * T0_stride1)], (((((int64_t)blockIdx.y) * 128) + (((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) < 200) ? (((((i2 * 64) + h8) < 263) ? 1u : 0u) | ((((i2 * 64) + h9) < 263) ? 2u : 0u) | ((((i2 * 64) + h10) < 263) ? 4u : 0u) | ((((i2 * 64) + h11) < 263) ? 8u : 0u) | ((((i2 * 64) + h12) < 263) ? 16u : 0u) | ((((i2 * 64) + h13) < 263) ? 32u : 0u) | ((((i2 * 64) + h14) < 263) ? 64u : 0u) | ((((i2 * 64) + h15) < 263) ? 128u : 0u)) : 0u);
    }
  }
  const int64_t h16 = (((int64_t)threadIdx.x) % 8) * 8;
  const int64_t h27 = ((((int64_t)threadIdx.x) % 8) * 8) + 1;
  const int64_t h28 = ((((int64_t)threadIdx.x) % 8) * 8) + 2;
  const int64_t h29 = ((((int64_t)threadIdx.x) % 8) * 8) + 3;
  const int64_t h30 = ((((int64_t)threadIdx.x) % 8) * 8) + 4;
  const int64_t h31 = ((((int64_t)threadIdx.x) % 8) * 8) + 5;
  const int64_t h32 = ((((int64_t)threadIdx.x) % 8) * 8) + 6;
  const int64_t h33 = ((((int64_t)threadIdx.x) % 8) * 8) + 7;
  // main loop of rS17{5}
  #pragma unroll 1
  for (int64_t i2 = 0; i2 < 4; ++i2) {
    fenceAsyncProxy();
    __syncthreads();  // RAW: stage i2 % 3 of T2, T5 loaded by other threads
    wgmma::fenceOperands(T4);
    wgmma::fence();
    // loop of rUR23{4}
    #pragma unroll
    for (int64_t i14 = 0; i14 < 4; ++i14) {
      // loop of iUR22{1}
      #pragma unroll
      for (int64_t i15 = 0; i15 < 1; ++i15) {
        wgmma::mmaM64N128K16F32Bf16<0, 0>(&T4[i15 * 64],
            wgmma::smemDescriptor(toSmem(&T5[(((i14 * 16) % 64) + ((((((int64_t)tidY) + i15) * 64) % 128) * 64)) + ((i2 % 3) * 8192)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T2[((i14 * 16) % 64) + ((i2 % 3) * 8192)]), 16, 1024, 1));
      }
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T4);
    const int64_t h17 = ((i2 + 1) % 3) * 8192;
    const int64_t h18 = (((i2 + 1) * 64) + h16) * T1_stride1;
    const int64_t h19 = ((i2 + 1) * 64) + h16;
    const int64_t h20 = ((i2 + 1) * 64) + h27;
    const int64_t h21 = ((i2 + 1) * 64) + h28;
    const int64_t h22 = ((i2 + 1) * 64) + h29;
    const int64_t h23 = ((i2 + 1) * 64) + h30;
    const int64_t h24 = ((i2 + 1) * 64) + h31;
    const int64_t h25 = ((i2 + 1) * 64) + h32;
    const int64_t h26 = ((i2 + 1) * 64) + h33;
    // loop of iS51{4}
    for (int64_t i4 = 0; i4 < 4; ++i4) {
      copyMisaligned<16, 2>(&T2[((h16 + ((((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + h17) ^ (((((h16 + ((((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + h17) / 64) % 8) * 8)], &T1.data[(((((int64_t)blockIdx.x) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) * T1_stride0) + h18], (((((int64_t)blockIdx.x) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) < 264) ? (((h19 < 263) ? 1u : 0u) | ((h20 < 263) ? 2u : 0u) | ((h21 < 263) ? 4u : 0u) | ((h22 < 263) ? 8u : 0u) | ((h23 < 263) ? 16u : 0u) | ((h24 < 263) ? 32u : 0u) | ((h25 < 263) ? 64u : 0u) | ((h26 < 263) ? 128u : 0u)) : 0u);
    }
    const int64_t h34 = ((i2 + 1) % 3) * 8192;
    const int64_t h35 = (((i2 + 1) * 64) + h16) * T0_stride1;
    const int64_t h36 = ((i2 + 1) * 64) + h16;
    const int64_t h37 = ((i2 + 1) * 64) + h27;
    const int64_t h38 = ((i2 + 1) * 64) + h28;
    const int64_t h39 = ((i2 + 1) * 64) + h29;
    const int64_t h40 = ((i2 + 1) * 64) + h30;
    const int64_t h41 = ((i2 + 1) * 64) + h31;
    const int64_t h42 = ((i2 + 1) * 64) + h32;
    const int64_t h43 = ((i2 + 1) * 64) + h33;
    // loop of iS37{4}
    for (int64_t i9 = 0; i9 < 4; ++i9) {
      copyMisaligned<16, 2>(&T5[((h16 + ((((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + h34) ^ (((((h16 + ((((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + h34) / 64) % 8) * 8)], &T0.data[(((((int64_t)blockIdx.y) * 128) + (((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) * T0_stride0) + h35], (((((int64_t)blockIdx.y) * 128) + (((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) < 200) ? (((h36 < 263) ? 1u : 0u) | ((h37 < 263) ? 2u : 0u) | ((h38 < 263) ? 4u : 0u) | ((h39 < 263) ? 8u : 0u) | ((h40 < 263) ? 16u : 0u) | ((h41 < 263) ? 32u : 0u) | ((h42 < 263) ? 64u : 0u) | ((h43 < 263) ? 128u : 0u)) : 0u);
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
    for (int64_t i14 = 0; i14 < 4; ++i14) {
      // loop of iUR22{1}
      #pragma unroll
      for (int64_t i15 = 0; i15 < 1; ++i15) {
        wgmma::mmaM64N128K16F32Bf16<0, 0>(&T4[i15 * 64],
            wgmma::smemDescriptor(toSmem(&T5[(((i14 * 16) % 64) + ((((((int64_t)tidY) + i15) * 64) % 128) * 64)) + ((i2 % 3) * 8192)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T2[((i14 * 16) % 64) + ((i2 % 3) * 8192)]), 16, 1024, 1));
      }
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T4);
  }
  wgmma::wait<0>();
  wgmma::fenceOperands(T4);
  // loop of iUR60{1}
  #pragma unroll
  for (int64_t i20 = 0; i20 < 1; ++i20) {
    // loop of iUR65{16}
    #pragma unroll
    for (int64_t i22 = 0; i22 < 16; ++i22) {
      // loop of iUR63{2}
      #pragma unroll
      for (int64_t i23 = 0; i23 < 2; ++i23) {
        if ((((((int64_t)blockIdx.y) * 128) + (((((int64_t)tidY) + i20) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i23 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) < 200) && (((((int64_t)blockIdx.x) * 128) + ((i22 * 8) + (((((int64_t)threadIdx.x) % 4) * 2) + 1))) < 264)) {
          *reinterpret_cast<float2*>(&T3.data[(((((int64_t)blockIdx.y) * 128) + (((((int64_t)tidY) + i20) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i23 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) * T3_stride0) + (((((int64_t)blockIdx.x) * 128) + ((i22 * 8) + ((((int64_t)threadIdx.x) % 4) * 2))) * T3_stride1)]) = float2{T4[((i22 * 4) + (i23 * 2)) + (i20 * 64)], T4[(((i22 * 4) + (i23 * 2)) + (i20 * 64)) + 1]};
        }
      }
    }
  }
}
