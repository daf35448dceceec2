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
  const int64_t h0 = (((int64_t)threadIdx.x) % 8) * 8;
  const int64_t h11 = ((((int64_t)threadIdx.x) % 8) * 8) + 1;
  const int64_t h12 = ((((int64_t)threadIdx.x) % 8) * 8) + 2;
  const int64_t h13 = ((((int64_t)threadIdx.x) % 8) * 8) + 3;
  const int64_t h14 = ((((int64_t)threadIdx.x) % 8) * 8) + 4;
  const int64_t h15 = ((((int64_t)threadIdx.x) % 8) * 8) + 5;
  const int64_t h16 = ((((int64_t)threadIdx.x) % 8) * 8) + 6;
  const int64_t h17 = ((((int64_t)threadIdx.x) % 8) * 8) + 7;
  // prologue loop of rS17{5}
  #pragma unroll 1
  for (int64_t i2 = 0; i2 < 1; ++i2) {
    const int64_t h1 = (i2 % 3) * 8192;
    const int64_t h2 = ((i2 * 64) + h0) * T1_stride1;
    const int64_t h3 = (i2 * 64) + h0;
    const int64_t h4 = (i2 * 64) + h11;
    const int64_t h5 = (i2 * 64) + h12;
    const int64_t h6 = (i2 * 64) + h13;
    const int64_t h7 = (i2 * 64) + h14;
    const int64_t h8 = (i2 * 64) + h15;
    const int64_t h9 = (i2 * 64) + h16;
    const int64_t h10 = (i2 * 64) + h17;
    // loop of iS51{4}
    for (int64_t i4 = 0; i4 < 4; ++i4) {
      copyMisaligned<16, 2>(&T2[((h0 + ((((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + h1) ^ (((((h0 + ((((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + h1) / 64) % 8) * 8)], &T1.data[(((((int64_t)blockIdx.x) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) * T1_stride0) + h2], (((((int64_t)blockIdx.x) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) < 264) ? (((h3 < 263) ? 1u : 0u) | ((h4 < 263) ? 2u : 0u) | ((h5 < 263) ? 4u : 0u) | ((h6 < 263) ? 8u : 0u) | ((h7 < 263) ? 16u : 0u) | ((h8 < 263) ? 32u : 0u) | ((h9 < 263) ? 64u : 0u) | ((h10 < 263) ? 128u : 0u)) : 0u);
    }
    const int64_t h18 = (i2 % 3) * 8192;
    const int64_t h19 = ((i2 * 64) + h0) * T0_stride1;
    const int64_t h20 = (i2 * 64) + h0;
    const int64_t h21 = (i2 * 64) + h11;
    const int64_t h22 = (i2 * 64) + h12;
    const int64_t h23 = (i2 * 64) + h13;
    const int64_t h24 = (i2 * 64) + h14;
    const int64_t h25 = (i2 * 64) + h15;
    const int64_t h26 = (i2 * 64) + h16;
    const int64_t h27 = (i2 * 64) + h17;
    // loop of iS37{4}
    for (int64_t i9 = 0; i9 < 4; ++i9) {
      copyMisaligned<16, 2>(&T5[((h0 + ((((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + h18) ^ (((((h0 + ((((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + h18) / 64) % 8) * 8)], &T0.data[(((((int64_t)blockIdx.y) * 128) + (((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) * T0_stride0) + h19], (((((int64_t)blockIdx.y) * 128) + (((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) < 200) ? (((h20 < 263) ? 1u : 0u) | ((h21 < 263) ? 2u : 0u) | ((h22 < 263) ? 4u : 0u) | ((h23 < 263) ? 8u : 0u) | ((h24 < 263) ? 16u : 0u) | ((h25 < 263) ? 32u : 0u) | ((h26 < 263) ? 64u : 0u) | ((h27 < 263) ? 128u : 0u)) : 0u);
    }
  }
  wgmma::discard(T4);  // written by its first wgmmas (scale-d 0), not zeroed
  const int64_t h28 = (((int64_t)threadIdx.x) % 8) * 8;
  const int64_t h39 = ((((int64_t)threadIdx.x) % 8) * 8) + 1;
  const int64_t h40 = ((((int64_t)threadIdx.x) % 8) * 8) + 2;
  const int64_t h41 = ((((int64_t)threadIdx.x) % 8) * 8) + 3;
  const int64_t h42 = ((((int64_t)threadIdx.x) % 8) * 8) + 4;
  const int64_t h43 = ((((int64_t)threadIdx.x) % 8) * 8) + 5;
  const int64_t h44 = ((((int64_t)threadIdx.x) % 8) * 8) + 6;
  const int64_t h45 = ((((int64_t)threadIdx.x) % 8) * 8) + 7;
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
            wgmma::smemDescriptor(toSmem(&T2[((i14 * 16) % 64) + ((i2 % 3) * 8192)]), 16, 1024, 1), (i2 != 0) || (i14 != 0));
      }
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T4);
    const int64_t h29 = ((i2 + 1) % 3) * 8192;
    const int64_t h30 = (((i2 + 1) * 64) + h28) * T1_stride1;
    const int64_t h31 = ((i2 + 1) * 64) + h28;
    const int64_t h32 = ((i2 + 1) * 64) + h39;
    const int64_t h33 = ((i2 + 1) * 64) + h40;
    const int64_t h34 = ((i2 + 1) * 64) + h41;
    const int64_t h35 = ((i2 + 1) * 64) + h42;
    const int64_t h36 = ((i2 + 1) * 64) + h43;
    const int64_t h37 = ((i2 + 1) * 64) + h44;
    const int64_t h38 = ((i2 + 1) * 64) + h45;
    // loop of iS51{4}
    for (int64_t i4 = 0; i4 < 4; ++i4) {
      copyMisaligned<16, 2>(&T2[((h28 + ((((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + h29) ^ (((((h28 + ((((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + h29) / 64) % 8) * 8)], &T1.data[(((((int64_t)blockIdx.x) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) * T1_stride0) + h30], (((((int64_t)blockIdx.x) * 128) + (((((i4 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) < 264) ? (((h31 < 263) ? 1u : 0u) | ((h32 < 263) ? 2u : 0u) | ((h33 < 263) ? 4u : 0u) | ((h34 < 263) ? 8u : 0u) | ((h35 < 263) ? 16u : 0u) | ((h36 < 263) ? 32u : 0u) | ((h37 < 263) ? 64u : 0u) | ((h38 < 263) ? 128u : 0u)) : 0u);
    }
    const int64_t h46 = ((i2 + 1) % 3) * 8192;
    const int64_t h47 = (((i2 + 1) * 64) + h28) * T0_stride1;
    const int64_t h48 = ((i2 + 1) * 64) + h28;
    const int64_t h49 = ((i2 + 1) * 64) + h39;
    const int64_t h50 = ((i2 + 1) * 64) + h40;
    const int64_t h51 = ((i2 + 1) * 64) + h41;
    const int64_t h52 = ((i2 + 1) * 64) + h42;
    const int64_t h53 = ((i2 + 1) * 64) + h43;
    const int64_t h54 = ((i2 + 1) * 64) + h44;
    const int64_t h55 = ((i2 + 1) * 64) + h45;
    // loop of iS37{4}
    for (int64_t i9 = 0; i9 < 4; ++i9) {
      copyMisaligned<16, 2>(&T5[((h28 + ((((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + h46) ^ (((((h28 + ((((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8) * 64)) + h46) / 64) % 8) * 8)], &T0.data[(((((int64_t)blockIdx.y) * 128) + (((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) * T0_stride0) + h47], (((((int64_t)blockIdx.y) * 128) + (((((i9 * 2) + ((int64_t)tidY)) * 128) + ((int64_t)threadIdx.x)) / 8)) < 200) ? (((h48 < 263) ? 1u : 0u) | ((h49 < 263) ? 2u : 0u) | ((h50 < 263) ? 4u : 0u) | ((h51 < 263) ? 8u : 0u) | ((h52 < 263) ? 16u : 0u) | ((h53 < 263) ? 32u : 0u) | ((h54 < 263) ? 64u : 0u) | ((h55 < 263) ? 128u : 0u)) : 0u);
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
