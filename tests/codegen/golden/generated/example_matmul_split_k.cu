extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<float, 2> T2, Tensor<float, 1> T3_work, Tensor<int, 1> T3_sem, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t i2 = T1.size[0];
  const int64_t i3 = T1.size[1];
  const int64_t T2_stride0 = T2.stride[0];
  const int64_t T2_stride1 = T2.stride[1];
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T4 = reinterpret_cast<__bfloat16*>(smem);
  __bfloat16* T5 = reinterpret_cast<__bfloat16*>(smem + 49152);
  float T3[128];
  int64_t* T4_mbar = reinterpret_cast<int64_t*>(smem + 98304);
  if (threadIdx.x == 0) {
    // pre-prologue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s3 = 0; s3 < 3; ++s3) {
      mbarrier::init(toSmem(&T4_mbar[s3]), 1);
      mbarrier::init(toSmem(&T4_mbar[s3 + 3]), 128);
    }
  }
  __syncthreads();  // init: T4_mbar visible to every thread
  // pre-prologue loop of every stage starts empty
  #pragma unroll 1
  for (int64_t s3 = 0; s3 < 3; ++s3) {
    mbarrier::arrive(toSmem(&T4_mbar[s3 + 3]));
  }
  if (threadIdx.x == 0) {
    // prologue loop of rS20{ceilDiv(ceilDiv(i1, 64), 3)}
    #pragma unroll
    for (int64_t i7 = 0; i7 < min64(2, ceilDiv(ceilDiv(i1, 64), 3)); ++i7) {
      mbarrier::waitParity(toSmem(&T4_mbar[(i7 % 3) + 3]), (i7 / 3) % 2);
      mbarrier::arriveExpectTx(toSmem(&T4_mbar[i7 % 3]), 32768);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T4[(i7 % 3) * 8192]), &tmap_T0, toSmem(&T4_mbar[i7 % 3]), ((((int64_t)blockIdx.z) * ceilDiv(ceilDiv(i1, 64), 3)) + i7) * 64, ((int64_t)blockIdx.y) * 128);
      // loop of iUR45{2}
      #pragma unroll
      for (int64_t i11 = 0; i11 < 2; ++i11) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[(i11 * 4096) + ((i7 % 3) * 8192)]), &tmap_T1, toSmem(&T4_mbar[i7 % 3]), (((int64_t)blockIdx.x) * 128) + (i11 * 64), ((((int64_t)blockIdx.z) * ceilDiv(ceilDiv(i2, 64), 3)) + i7) * 64);
      }
    }
  }
  wgmma::discard(T3);  // written by its first wgmmas (scale-d 0), not zeroed
  if ((ceilDiv(ceilDiv(i1, 64), 3) - 2) <= 0) {
    // loop of iUR24{2}
    #pragma unroll
    for (int64_t i17 = 0; i17 < 2; ++i17) {
      // loop of fragment
      #pragma unroll
      for (int64_t r3 = 0; r3 < 64; ++r3) {
        T3[r3 + (i17 * 64)] = 0.0f;
      }
    }
  }
  const int64_t h0 = ((int64_t)blockIdx.z) * ceilDiv(ceilDiv(i1, 64), 3);
  const int64_t h1 = ((int64_t)blockIdx.z) * ceilDiv(ceilDiv(i2, 64), 3);
  // main loop of rS20{ceilDiv(ceilDiv(i1, 64), 3)}
  #pragma unroll 1
  for (int64_t i7 = 0; i7 < ceilDiv(ceilDiv(i1, 64), 3) - 2; ++i7) {
    mbarrier::waitParity(toSmem(&T4_mbar[i7 % 3]), (i7 / 3) % 2);
    wgmma::fenceOperands(T3);
    wgmma::fence();
    // loop of rUR25{4}
    #pragma unroll
    for (int64_t i16 = 0; i16 < 4; ++i16) {
      // loop of iUR24{2}
      #pragma unroll
      for (int64_t i17 = 0; i17 < 2; ++i17) {
        wgmma::mmaM64N128K16F32Bf16<0, 1>(&T3[i17 * 64],
            wgmma::smemDescriptor(toSmem(&T4[(((i16 * 16) % 64) + (((((((int64_t)threadIdx.y) * 2) + i17) * 64) % 128) * 64)) + ((i7 % 3) * 8192)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T5[(((i16 * 16) % 64) * 64) + ((i7 % 3) * 8192)]), 8192, 1024, 1), (i7 != 0) || (i16 != 0));
      }
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T3);
    if ((i7 - 1) >= 0) {
      mbarrier::arrive(toSmem(&T4_mbar[((i7 - 1) % 3) + 3]));
    }
    if (threadIdx.x == 0) {
      mbarrier::waitParity(toSmem(&T4_mbar[((i7 + 2) % 3) + 3]), ((i7 + 2) / 3) % 2);
      mbarrier::arriveExpectTx(toSmem(&T4_mbar[(i7 + 2) % 3]), 32768);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T4[((i7 + 2) % 3) * 8192]), &tmap_T0, toSmem(&T4_mbar[(i7 + 2) % 3]), (h0 + (i7 + 2)) * 64, ((int64_t)blockIdx.y) * 128);
      // loop of iUR45{2}
      #pragma unroll
      for (int64_t i11 = 0; i11 < 2; ++i11) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[(i11 * 4096) + (((i7 + 2) % 3) * 8192)]), &tmap_T1, toSmem(&T4_mbar[(i7 + 2) % 3]), (((int64_t)blockIdx.x) * 128) + (i11 * 64), (h1 + (i7 + 2)) * 64);
      }
    }
  }
  wgmma::wait<0>();
  wgmma::fenceOperands(T3);
  // epilogue loop of rS20{ceilDiv(ceilDiv(i1, 64), 3)}
  #pragma unroll 1
  for (int64_t i7 = max64(ceilDiv(ceilDiv(i1, 64), 3) - 2, 0); i7 < ceilDiv(ceilDiv(i1, 64), 3); ++i7) {
    mbarrier::waitParity(toSmem(&T4_mbar[i7 % 3]), (i7 / 3) % 2);
    wgmma::fenceOperands(T3);
    wgmma::fence();
    // loop of rUR25{4}
    #pragma unroll
    for (int64_t i16 = 0; i16 < 4; ++i16) {
      // loop of iUR24{2}
      #pragma unroll
      for (int64_t i17 = 0; i17 < 2; ++i17) {
        wgmma::mmaM64N128K16F32Bf16<0, 1>(&T3[i17 * 64],
            wgmma::smemDescriptor(toSmem(&T4[(((i16 * 16) % 64) + (((((((int64_t)threadIdx.y) * 2) + i17) * 64) % 128) * 64)) + ((i7 % 3) * 8192)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T5[(((i16 * 16) % 64) * 64) + ((i7 % 3) * 8192)]), 8192, 1024, 1));
      }
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T3);
  }
  wgmma::wait<0>();
  wgmma::fenceOperands(T3);
  __syncthreads();  // every wait on T4_mbar done before inval
  if (threadIdx.x == 0) {
    // post-epilogue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s3 = 0; s3 < 6; ++s3) {
      mbarrier::inval(toSmem(&T4_mbar[s3]));
    }
  }
  // loop of partials of T3
  #pragma unroll
  for (int64_t g3 = 0; g3 < 128; ++g3) {
    T3_work.data[(((((((int64_t)blockIdx.z) * (ceilDiv(i3, 128) * ceilDiv(i0, 128))) + ((((int64_t)blockIdx.y) * ceilDiv(i3, 128)) + ((int64_t)blockIdx.x))) * 128) + g3) * 128) + ((int64_t)threadIdx.x)] = T3[g3];
  }
  gridFence();
  __syncthreads();  // every thread's partials of T3 written and fenced before the arrival
  const int64_t last_T3 = semaphoreArrive(&T3_sem.data[(((int64_t)blockIdx.y) * ceilDiv(i3, 128)) + ((int64_t)blockIdx.x)], 3, threadIdx.x == 0);
  if (last_T3 != 0) {
    // loop of partials of T3
    #pragma unroll
    for (int64_t g3 = 0; g3 < 128; ++g3) {
      T3[g3] = 0.0f;
      // loop of splits, in order
      #pragma unroll 8
      for (int64_t z3 = 0; z3 < 3; ++z3) {
        T3[g3] = T3[g3] + T3_work.data[(((((z3 * (ceilDiv(i3, 128) * ceilDiv(i0, 128))) + ((((int64_t)blockIdx.y) * ceilDiv(i3, 128)) + ((int64_t)blockIdx.x))) * 128) + g3) * 128) + ((int64_t)threadIdx.x)];
      }
    }
    if (((int64_t)threadIdx.x) == 0) {
      T3_sem.data[(((int64_t)blockIdx.y) * ceilDiv(i3, 128)) + ((int64_t)blockIdx.x)] = 0;
    }
    // loop of iUR54{2}
    #pragma unroll
    for (int64_t i22 = 0; i22 < 2; ++i22) {
      // loop of iUR59{16}
      #pragma unroll
      for (int64_t i24 = 0; i24 < 16; ++i24) {
        // loop of iUR57{2}
        #pragma unroll
        for (int64_t i25 = 0; i25 < 2; ++i25) {
          if ((((((int64_t)blockIdx.y) * 128) + ((((((int64_t)threadIdx.y) * 2) + i22) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i25 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) < i0) && (((((int64_t)blockIdx.x) * 128) + ((i24 * 8) + (((((int64_t)threadIdx.x) % 4) * 2) + 1))) < i3)) {
            *reinterpret_cast<float2*>(&T2.data[(((((int64_t)blockIdx.y) * 128) + ((((((int64_t)threadIdx.y) * 2) + i22) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i25 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) * T2_stride0) + (((((int64_t)blockIdx.x) * 128) + ((i24 * 8) + ((((int64_t)threadIdx.x) % 4) * 2))) * T2_stride1)]) = float2{T3[((i24 * 4) + (i25 * 2)) + (i22 * 64)], T3[(((i24 * 4) + (i25 * 2)) + (i22 * 64)) + 1]};
          }
        }
      }
    }
  }
}
