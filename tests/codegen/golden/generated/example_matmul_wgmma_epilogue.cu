extern "C" __global__ void __launch_bounds__(256, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<float, 1> T3, Tensor<__bfloat16, 2> T7, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t i3 = T1.size[1];
  const int64_t i4 = T3.size[0];
  const int64_t T3_stride0 = T3.stride[0];
  const int64_t T7_stride0 = T7.stride[0];
  const int64_t T7_stride1 = T7.stride[1];
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T8 = reinterpret_cast<__bfloat16*>(smem);
  __bfloat16* T9 = reinterpret_cast<__bfloat16*>(smem + 65536);
  float T2[128];
  // loop of iUR29{1}
  #pragma unroll
  for (int64_t i23 = 0; i23 < 1; ++i23) {
    // loop of fragment
    #pragma unroll
    for (int64_t r2 = 0; r2 < 128; ++r2) {
      T2[r2 + (i23 * 128)] = 0.0f;
    }
  }
  int64_t* T8_mbar = reinterpret_cast<int64_t*>(smem + 196608);
  if (threadIdx.x < 32 && threadIdx.y == 0 && Hopper::electSync(0xffffffffu)) {
    // pre-prologue loop of stages of T8, T9
    #pragma unroll 1
    for (int64_t s8 = 0; s8 < 4; ++s8) {
      mbarrier::init(toSmem(&T8_mbar[s8]), 1);
      mbarrier::init(toSmem(&T8_mbar[s8 + 4]), 256);
    }
  }
  __syncthreads();  // init: T8_mbar visible to every thread
  // pre-prologue loop of every stage starts empty
  #pragma unroll 1
  for (int64_t s8 = 0; s8 < 4; ++s8) {
    mbarrier::arrive(toSmem(&T8_mbar[s8 + 4]));
  }
  if (threadIdx.x < 32 && threadIdx.y == 0 && Hopper::electSync(0xffffffffu)) {
    // prologue loop of rS24{ceilDiv(i1, 64)}
    #pragma unroll
    for (int64_t i13 = 0; i13 < min64(3, ceilDiv(i1, 64)); ++i13) {
      mbarrier::waitParity(toSmem(&T8_mbar[(i13 % 4) + 4]), (i13 / 4) % 2);
      mbarrier::arriveExpectTx(toSmem(&T8_mbar[i13 % 4]), 49152);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T8[(i13 % 4) * 8192]), &tmap_T0, toSmem(&T8_mbar[i13 % 4]), i13 * 64, ((int64_t)blockIdx.y) * 128);
      // loop of iUR46{4}
      #pragma unroll
      for (int64_t i17 = 0; i17 < 4; ++i17) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T9[(i17 * 4096) + ((i13 % 4) * 16384)]), &tmap_T1, toSmem(&T8_mbar[i13 % 4]), (((int64_t)blockIdx.x) * 256) + (i17 * 64), i13 * 64);
      }
    }
  }
  // main loop of rS24{ceilDiv(i1, 64)}
  #pragma unroll 1
  for (int64_t i13 = 0; i13 < ceilDiv(i1, 64) - 3; ++i13) {
    mbarrier::waitParity(toSmem(&T8_mbar[i13 % 4]), (i13 / 4) % 2);
    wgmma::fenceOperands(T2);
    wgmma::fence();
    // loop of rUR30{4}
    #pragma unroll
    for (int64_t i22 = 0; i22 < 4; ++i22) {
      // loop of iUR29{1}
      #pragma unroll
      for (int64_t i23 = 0; i23 < 1; ++i23) {
        wgmma::mmaM64N256K16F32Bf16<0, 1>(&T2[i23 * 128],
            wgmma::smemDescriptor(toSmem(&T8[(((i22 * 16) % 64) + ((((((int64_t)threadIdx.y) + i23) * 64) % 128) * 64)) + ((i13 % 4) * 8192)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T9[(((i22 * 16) % 64) * 64) + ((i13 % 4) * 16384)]), 8192, 1024, 1));
      }
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T2);
    if ((i13 - 1) >= 0) {
      mbarrier::arrive(toSmem(&T8_mbar[((i13 - 1) % 4) + 4]));
    }
    if (threadIdx.x < 32 && threadIdx.y == 0 && Hopper::electSync(0xffffffffu)) {
      mbarrier::waitParity(toSmem(&T8_mbar[((i13 + 3) % 4) + 4]), ((i13 + 3) / 4) % 2);
      mbarrier::arriveExpectTx(toSmem(&T8_mbar[(i13 + 3) % 4]), 49152);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T8[((i13 + 3) % 4) * 8192]), &tmap_T0, toSmem(&T8_mbar[(i13 + 3) % 4]), (i13 + 3) * 64, ((int64_t)blockIdx.y) * 128);
      // loop of iUR46{4}
      #pragma unroll
      for (int64_t i17 = 0; i17 < 4; ++i17) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T9[(i17 * 4096) + (((i13 + 3) % 4) * 16384)]), &tmap_T1, toSmem(&T8_mbar[(i13 + 3) % 4]), (((int64_t)blockIdx.x) * 256) + (i17 * 64), (i13 + 3) * 64);
      }
    }
  }
  wgmma::wait<0>();
  wgmma::fenceOperands(T2);
  // epilogue loop of rS24{ceilDiv(i1, 64)}
  #pragma unroll 1
  for (int64_t i13 = max64(ceilDiv(i1, 64) - 3, 0); i13 < ceilDiv(i1, 64); ++i13) {
    mbarrier::waitParity(toSmem(&T8_mbar[i13 % 4]), (i13 / 4) % 2);
    wgmma::fenceOperands(T2);
    wgmma::fence();
    // loop of rUR30{4}
    #pragma unroll
    for (int64_t i22 = 0; i22 < 4; ++i22) {
      // loop of iUR29{1}
      #pragma unroll
      for (int64_t i23 = 0; i23 < 1; ++i23) {
        wgmma::mmaM64N256K16F32Bf16<0, 1>(&T2[i23 * 128],
            wgmma::smemDescriptor(toSmem(&T8[(((i22 * 16) % 64) + ((((((int64_t)threadIdx.y) + i23) * 64) % 128) * 64)) + ((i13 % 4) * 8192)]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T9[(((i22 * 16) % 64) * 64) + ((i13 % 4) * 16384)]), 8192, 1024, 1));
      }
    }
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::fenceOperands(T2);
  }
  wgmma::wait<0>();
  wgmma::fenceOperands(T2);
  __syncthreads();  // every wait on T8_mbar done before inval
  if (threadIdx.x < 32 && threadIdx.y == 0 && Hopper::electSync(0xffffffffu)) {
    // post-epilogue loop of stages of T8, T9
    #pragma unroll 1
    for (int64_t s8 = 0; s8 < 8; ++s8) {
      mbarrier::inval(toSmem(&T8_mbar[s8]));
    }
  }
  // loop of iUR109{1}
  #pragma unroll
  for (int64_t i8 = 0; i8 < 1; ++i8) {
    // loop of iUR114{32}
    #pragma unroll
    for (int64_t i10 = 0; i10 < 32; ++i10) {
      // loop of iUR112{2}
      #pragma unroll
      for (int64_t i11 = 0; i11 < 2; ++i11) {
        float T6[2];
        // loop of iUR99{2}
        #pragma unroll
        for (int64_t i12 = 0; i12 < 2; ++i12) {
          float T4[1];
          float T5[1];
          if (((((int64_t)blockIdx.x) * 256) + ((i10 * 8) + (((((int64_t)threadIdx.x) % 4) * 2) + i12))) < i4) {
            T4[0] = T3.data[((((int64_t)blockIdx.x) * 256) + ((i10 * 8) + (((((int64_t)threadIdx.x) % 4) * 2) + i12))) * T3_stride0];
          }
          if ((((((int64_t)blockIdx.y) * 128) + (((((int64_t)threadIdx.y) + i8) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i11 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) < i0) && (((((int64_t)blockIdx.x) * 256) + ((i10 * 8) + (((((int64_t)threadIdx.x) % 4) * 2) + i12))) < i3)) {
            T5[0] = T2[(((i10 * 4) + (i11 * 2)) + i12) + (i8 * 128)] + T4[0];
          }
          if ((((((int64_t)blockIdx.y) * 128) + (((((int64_t)threadIdx.y) + i8) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i11 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) < i0) && (((((int64_t)blockIdx.x) * 256) + ((i10 * 8) + (((((int64_t)threadIdx.x) % 4) * 2) + i12))) < i3)) {
            T6[i12] = fmaxf(T5[0], 0.0f);
          }
        }
        if ((((((int64_t)blockIdx.y) * 128) + (((((int64_t)threadIdx.y) + i8) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i11 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) < i0) && (((((int64_t)blockIdx.x) * 256) + ((i10 * 8) + (((((int64_t)threadIdx.x) % 4) * 2) + 1))) < i3)) {
          *reinterpret_cast<uint32_t*>(&T7.data[(((((int64_t)blockIdx.y) * 128) + (((((int64_t)threadIdx.y) + i8) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i11 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) * T7_stride0) + (((((int64_t)blockIdx.x) * 256) + ((i10 * 8) + ((((int64_t)threadIdx.x) % 4) * 2))) * T7_stride1)]) = (static_cast<uint32_t>((__float2bfloat16(T6[0])).raw) | (static_cast<uint32_t>((__float2bfloat16(T6[1])).raw) << 16));
        }
      }
    }
  }
}
