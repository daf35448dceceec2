extern "C" __global__ void __launch_bounds__(384, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<__bfloat16, 2> T3, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t i3 = T1.size[1];
  const int64_t T3_stride0 = T3.stride[0];
  const int64_t T3_stride1 = T3.stride[1];
  extern __shared__ __align__(1024) char smem[];

  __bfloat16* T4 = reinterpret_cast<__bfloat16*>(smem + 1024);
  __bfloat16* T5 = reinterpret_cast<__bfloat16*>(smem + 66560);
  int64_t* T4_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x < 32 && threadIdx.y == 0 && Hopper::electSync(0xffffffffu)) {
    // pre-prologue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 4; ++s0) {
      mbarrier::init(toSmem(&T4_mbar[s0]), 1);
      mbarrier::init(toSmem(&T4_mbar[s0 + 4]), 256);
    }
  }
  __syncthreads();  // init: T4_mbar visible to every thread
  if (((int64_t)threadIdx.y) >= (((int64_t)blockDim.y) - 1)) {
    decreaseRegisters<40>();
    // AsyncWarp loop of iS67{ceilDiv((ceilDiv(ceilDiv(i0, 128), 2) * ceilDiv(i3, 256)) * 2, 3)}
    #pragma unroll 1
    for (int64_t i4 = 0; i4 < ceilDiv((ceilDiv(ceilDiv(i0, 128), 2) * ceilDiv(i3, 256)) * 2, 3); ++i4) {
      if (((i4 * 3) + ((int64_t)blockIdx.x)) >= ((ceilDiv(ceilDiv(i0, 128), 2) * ceilDiv(i3, 256)) * 2)) {
        continue;
      }
      // loop of rS17{ceilDiv(i1, 64)}
      for (int64_t i6 = 0; i6 < ceilDiv(i1, 64); ++i6) {
        if (threadIdx.x < 32 && threadIdx.y == 2 && Hopper::electSync(0xffffffffu)) {
          mbarrier::waitParity(toSmem(&T4_mbar[(((i4 * ceilDiv(i1, 64)) + i6) % 4) + 4]), (((i4 * ceilDiv(i1, 64)) + i6) / 4) % 2);
          mbarrier::arriveExpectTx(toSmem(&T4_mbar[((i4 * ceilDiv(i1, 64)) + i6) % 4]), 49152);
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T4[(((i4 * ceilDiv(i1, 64)) + i6) % 4) * 8192]), &tmap_T0, toSmem(&T4_mbar[((i4 * ceilDiv(i1, 64)) + i6) % 4]), i6 * 64, ((((((i4 * 3) + ((int64_t)blockIdx.x)) / 2) / ceilDiv(i3, 256)) * 2) + (((i4 * 3) + ((int64_t)blockIdx.x)) % 2)) * 128);
          // loop of iUR57{4}
          #pragma unroll
          for (int64_t i10 = 0; i10 < 4; ++i10) {
            Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[(i10 * 4096) + ((((i4 * ceilDiv(i1, 64)) + i6) % 4) * 16384)]), &tmap_T1, toSmem(&T4_mbar[((i4 * ceilDiv(i1, 64)) + i6) % 4]), (((((i4 * 3) + ((int64_t)blockIdx.x)) / 2) % ceilDiv(i3, 256)) * 256) + (i10 * 64), i6 * 64);
          }
        }
      }
    }
    return;
  } else {
    increaseRegisters<232>();
    // pre-prologue loop of every stage starts empty
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 4; ++s0) {
      mbarrier::arrive(toSmem(&T4_mbar[s0 + 4]));
    }
    // ComputeWarp loop of iS67{ceilDiv((ceilDiv(ceilDiv(i0, 128), 2) * ceilDiv(i3, 256)) * 2, 3)}
    #pragma unroll 1
    for (int64_t i4 = 0; i4 < ceilDiv((ceilDiv(ceilDiv(i0, 128), 2) * ceilDiv(i3, 256)) * 2, 3); ++i4) {
      if (((i4 * 3) + ((int64_t)blockIdx.x)) >= ((ceilDiv(ceilDiv(i0, 128), 2) * ceilDiv(i3, 256)) * 2)) {
        continue;
      }
      float T2[128];
      // loop of iUR28{1}
      #pragma unroll
      for (int64_t i16 = 0; i16 < 1; ++i16) {
        // loop of fragment
        #pragma unroll
        for (int64_t r2 = 0; r2 < 128; ++r2) {
          T2[r2 + (i16 * 128)] = 0.0f;
        }
      }
      // loop of rS17{ceilDiv(i1, 64)}
      for (int64_t i6 = 0; i6 < ceilDiv(i1, 64); ++i6) {
        mbarrier::waitParity(toSmem(&T4_mbar[((i4 * ceilDiv(i1, 64)) + i6) % 4]), (((i4 * ceilDiv(i1, 64)) + i6) / 4) % 2);
        wgmma::fenceOperands(T2);
        wgmma::fence();
        // loop of rUR29{4}
        #pragma unroll
        for (int64_t i15 = 0; i15 < 4; ++i15) {
          // loop of iUR28{1}
          #pragma unroll
          for (int64_t i16 = 0; i16 < 1; ++i16) {
            wgmma::mmaM64N256K16F32Bf16<0, 1>(&T2[i16 * 128],
                wgmma::smemDescriptor(toSmem(&T4[(((i15 * 16) % 64) + ((((((int64_t)threadIdx.y) + i16) * 64) % 128) * 64)) + ((((i4 * ceilDiv(i1, 64)) + i6) % 4) * 8192)]), 16, 1024, 1),
                wgmma::smemDescriptor(toSmem(&T5[(((i15 * 16) % 64) * 64) + ((((i4 * ceilDiv(i1, 64)) + i6) % 4) * 16384)]), 8192, 1024, 1));
          }
        }
        wgmma::commit();
        wgmma::wait<1>();
        wgmma::fenceOperands(T2);
        if ((i6 - 1) >= 0) {
          mbarrier::arrive(toSmem(&T4_mbar[((((i4 * ceilDiv(i1, 64)) + i6) - 1) % 4) + 4]));
        }
      }
      wgmma::wait<0>();
      wgmma::fenceOperands(T2);
      if ((ceilDiv(i1, 64) - 1) >= 0) {
        mbarrier::arrive(toSmem(&T4_mbar[(((i4 * ceilDiv(i1, 64)) + (ceilDiv(i1, 64) - 1)) % 4) + 4]));
      }
      // loop of iUR72{1}
      #pragma unroll
      for (int64_t i21 = 0; i21 < 1; ++i21) {
        // loop of iUR77{32}
        #pragma unroll
        for (int64_t i23 = 0; i23 < 32; ++i23) {
          // loop of iUR75{2}
          #pragma unroll
          for (int64_t i24 = 0; i24 < 2; ++i24) {
            if ((((((((((i4 * 3) + ((int64_t)blockIdx.x)) / 2) / ceilDiv(i3, 256)) * 2) + (((i4 * 3) + ((int64_t)blockIdx.x)) % 2)) * 128) + (((((int64_t)threadIdx.y) + i21) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i24 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) < i0) && (((((((i4 * 3) + ((int64_t)blockIdx.x)) / 2) % ceilDiv(i3, 256)) * 256) + ((i23 * 8) + (((((int64_t)threadIdx.x) % 4) * 2) + 1))) < i3)) {
              *reinterpret_cast<uint32_t*>(&T3.data[(((((((((i4 * 3) + ((int64_t)blockIdx.x)) / 2) / ceilDiv(i3, 256)) * 2) + (((i4 * 3) + ((int64_t)blockIdx.x)) % 2)) * 128) + (((((int64_t)threadIdx.y) + i21) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i24 * 8) + ((((int64_t)threadIdx.x) / 4) % 8))))) * T3_stride0) + (((((((i4 * 3) + ((int64_t)blockIdx.x)) / 2) % ceilDiv(i3, 256)) * 256) + ((i23 * 8) + ((((int64_t)threadIdx.x) % 4) * 2))) * T3_stride1)]) = (static_cast<uint32_t>((__float2bfloat16(T2[((i23 * 4) + (i24 * 2)) + (i21 * 128)])).raw) | (static_cast<uint32_t>((__float2bfloat16(T2[(((i23 * 4) + (i24 * 2)) + (i21 * 128)) + 1])).raw) << 16));
            }
          }
        }
      }
    }
  }
  __syncthreads();  // every wait on T4_mbar done before inval
  if (threadIdx.x < 32 && threadIdx.y == 0 && Hopper::electSync(0xffffffffu)) {
    // post-epilogue loop of stages of T4, T5
    #pragma unroll 1
    for (int64_t s0 = 0; s0 < 8; ++s0) {
      mbarrier::inval(toSmem(&T4_mbar[s0]));
    }
  }
}
