extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<float, 2> T4, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t i2 = T1.size[0];
  const int64_t T4_stride0 = T4.stride[0];
  const int64_t T4_stride1 = T4.stride[1];
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T2 = reinterpret_cast<__bfloat16*>(smem);
  __bfloat16* T3 = reinterpret_cast<__bfloat16*>(smem + 49152);
  float T5[128];
  int64_t* T2_mbar = reinterpret_cast<int64_t*>(smem + 98304);
  if (threadIdx.x == 0) {
    // pre-prologue loop of stages of T2, T3
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 3; ++s2) {
      mbarrier::init(toSmem(&T2_mbar[s2]), 1);
      mbarrier::init(toSmem(&T2_mbar[s2 + 3]), 128);
    }
  }
  __syncthreads();  // init: T2_mbar visible to every thread
  // pre-prologue loop of every stage starts empty
  #pragma unroll 1
  for (int64_t s2 = 0; s2 < 3; ++s2) {
    mbarrier::arrive(toSmem(&T2_mbar[s2 + 3]));
  }
  if (threadIdx.x == 0) {
    // prologue loop of rS17{ceilDiv(i0, 64)}
    #pragma unroll
    for (int64_t i6 = 0; i6 < min64(2, ceilDiv(i0, 64)); ++i6) {
      mbarrier::waitParity(toSmem(&T2_mbar[(i6 % 3) + 3]), (i6 / 3) % 2);
      mbarrier::arriveExpectTx(toSmem(&T2_mbar[i6 % 3]), 32768);
      // loop of iUR32{2}
      #pragma unroll
      for (int64_t i7 = 0; i7 < 2; ++i7) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T2[(i7 * 4096) + ((i6 % 3) * 8192)]), &tmap_T0, toSmem(&T2_mbar[i6 % 3]), (((int64_t)blockIdx.y) * 128) + (i7 * 64), i6 * 64);
      }
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T3[(i6 % 3) * 8192]), &tmap_T1, toSmem(&T2_mbar[i6 % 3]), i6 * 64, ((int64_t)blockIdx.x) * 128);
    }
  }
  wgmma::discard(T5);  // written by its first wgmmas (scale-d 0), not zeroed
  if ((ceilDiv(i0, 64) - 2) <= 0) {
    // loop of iUR22{2}
    #pragma unroll
    for (int64_t i16 = 0; i16 < 2; ++i16) {
      // loop of fragment
      #pragma unroll
      for (int64_t r5 = 0; r5 < 64; ++r5) {
        T5[r5 + (i16 * 64)] = 0.0f;
      }
    }
  }
  // main loop of rS17{ceilDiv(i0, 64)}
  #pragma unroll 1
  for (int64_t i6 = 0; i6 < ceilDiv(i0, 64) - 2; ++i6) {
    mbarrier::waitParity(toSmem(&T2_mbar[i6 % 3]), (i6 / 3) % 2);
    wgmma::fenceOperands(T5);
    wgmma::fence();
    // loop of rUR23{4}
    #pragma unroll
    for (int64_t i15 = 0; i15 < 4; ++i15) {
      // loop of iUR22{2}
      #pragma unroll
      for (int64_t i16 = 0; i16 < 2; ++i16) {
        wgmma::mmaM64N128K16F32Bf16<1, 0>(&T5[i16 * 64],
            wgmma::smemDescriptor(toSmem(&T2[((((i15 * 16) % 64) * 64) + ((((((((int64_t)threadIdx.y) * 2) + i16) * 64) % 128) / 64) * 4096)) + ((i6 % 3) * 8192)]), 8192, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T3[((i15 * 16) % 64) + ((i6 % 3) * 8192)]), 16, 1024, 1), (i6 != 0) || (i15 != 0));
      }
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T5);
    if ((i6 - 1) >= 0) {
      mbarrier::arrive(toSmem(&T2_mbar[((i6 - 1) % 3) + 3]));
    }
    if (threadIdx.x == 0) {
      mbarrier::waitParity(toSmem(&T2_mbar[((i6 + 2) % 3) + 3]), ((i6 + 2) / 3) % 2);
      mbarrier::arriveExpectTx(toSmem(&T2_mbar[(i6 + 2) % 3]), 32768);
      // loop of iUR32{2}
      #pragma unroll
      for (int64_t i7 = 0; i7 < 2; ++i7) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T2[(i7 * 4096) + (((i6 + 2) % 3) * 8192)]), &tmap_T0, toSmem(&T2_mbar[(i6 + 2) % 3]), (((int64_t)blockIdx.y) * 128) + (i7 * 64), (i6 + 2) * 64);
      }
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T3[((i6 + 2) % 3) * 8192]), &tmap_T1, toSmem(&T2_mbar[(i6 + 2) % 3]), (i6 + 2) * 64, ((int64_t)blockIdx.x) * 128);
    }
  }
  wgmma::wait<0>();
  wgmma::fenceOperands(T5);
  // epilogue loop of rS17{ceilDiv(i0, 64)}
  #pragma unroll 1
  for (int64_t i6 = max64(ceilDiv(i0, 64) - 2, 0); i6 < ceilDiv(i0, 64); ++i6) {
    mbarrier::waitParity(toSmem(&T2_mbar[i6 % 3]), (i6 / 3) % 2);
    wgmma::fenceOperands(T5);
    wgmma::fence();
    // loop of rUR23{4}
    #pragma unroll
    for (int64_t i15 = 0; i15 < 4; ++i15) {
      // loop of iUR22{2}
      #pragma unroll
      for (int64_t i16 = 0; i16 < 2; ++i16) {
        wgmma::mmaM64N128K16F32Bf16<1, 0>(&T5[i16 * 64],
            wgmma::smemDescriptor(toSmem(&T2[((((i15 * 16) % 64) * 64) + ((((((((int64_t)threadIdx.y) * 2) + i16) * 64) % 128) / 64) * 4096)) + ((i6 % 3) * 8192)]), 8192, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T3[((i15 * 16) % 64) + ((i6 % 3) * 8192)]), 16, 1024, 1));
      }
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T5);
  }
  wgmma::wait<0>();
  wgmma::fenceOperands(T5);
  __syncthreads();  // every wait on T2_mbar done before inval
  if (threadIdx.x == 0) {
    // post-epilogue loop of stages of T2, T3
    #pragma unroll 1
    for (int64_t s2 = 0; s2 < 6; ++s2) {
      mbarrier::inval(toSmem(&T2_mbar[s2]));
    }
  }
  // loop of iUR48{2}
  #pragma unroll
  for (int64_t i21 = 0; i21 < 2; ++i21) {
    // loop of iUR53{16}
    #pragma unroll
    for (int64_t i23 = 0; i23 < 16; ++i23) {
      // loop of iUR51{2}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 2; ++i24) {
        if ((((((int64_t)blockIdx.y) * 128) + ((((((int64_t)threadIdx.y) * 2) + i21) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i24 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) < i1) && (((((int64_t)blockIdx.x) * 128) + ((i23 * 8) + (((((int64_t)threadIdx.x) % 4) * 2) + 1))) < i2)) {
          *reinterpret_cast<float2*>(&T4.data[(((((int64_t)blockIdx.y) * 128) + ((((((int64_t)threadIdx.y) * 2) + i21) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i24 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) * T4_stride0) + (((((int64_t)blockIdx.x) * 128) + ((i23 * 8) + ((((int64_t)threadIdx.x) % 4) * 2))) * T4_stride1)]) = float2{T5[((i23 * 4) + (i24 * 2)) + (i21 * 64)], T5[(((i23 * 4) + (i24 * 2)) + (i21 * 64)) + 1]};
        }
      }
    }
  }
}
