extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<__bfloat16, 2> T0, Tensor<__bfloat16, 2> T1, Tensor<__bfloat16, 2> T2, Tensor<float, 2> T6, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1, const __grid_constant__ TensorMap tmap_T2) {
  const int64_t T6_stride0 = T6.stride[0];
  const int64_t T6_stride1 = T6.stride[1];
  extern __shared__ __align__(1024) char smem[];

  int64_t* T9_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T9_mbar[0]), 1);
  }
  __syncthreads();  // init: T9_mbar visible to every thread
  int64_t* T8_mbar = reinterpret_cast<int64_t*>(smem + 8);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T8_mbar[0]), 1);
  }
  __syncthreads();  // init: T8_mbar visible to every thread
  int64_t* T7_mbar = reinterpret_cast<int64_t*>(smem + 16);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T7_mbar[0]), 1);
  }
  __syncthreads();  // init: T7_mbar visible to every thread
  float T3[32];
  uint32_t T5_w[16];  // T5 in pairs: the A registers of wgmmas
  __bfloat16* const T5 = reinterpret_cast<__bfloat16*>(T5_w);
  __bfloat16* T9 = reinterpret_cast<__bfloat16*>(smem + 1024);
  float T10[32];
  wgmma::discard(T3);  // written by its first wgmmas (scale-d 0), not zeroed
  // loop of rS26{3}
  for (int64_t i1 = 0; i1 < 3; ++i1) {
    __bfloat16* T7 = reinterpret_cast<__bfloat16*>(smem + 1024);
    __bfloat16* T8 = reinterpret_cast<__bfloat16*>(smem + 9216);
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T7_mbar[0]), 8192);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T7[0]), &tmap_T0, toSmem(&T7_mbar[0]), i1 * 64, ((int64_t)blockIdx.x) * 64);
    }
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T8_mbar[0]), 8192);
      // loop of iUR39{1}
      #pragma unroll
      for (int64_t i4 = 0; i4 < 1; ++i4) {
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T8[i4 * 4096]), &tmap_T1, toSmem(&T8_mbar[0]), i4 * 64, i1 * 64);
      }
    }
    mbarrier::waitParity(toSmem(&T7_mbar[0]), i1 % 2);
    mbarrier::waitParity(toSmem(&T8_mbar[0]), i1 % 2);
    wgmma::fenceOperands(T3);
    wgmma::fence();
    // loop of rUR28{4}
    #pragma unroll
    for (int64_t i8 = 0; i8 < 4; ++i8) {
      wgmma::mmaM64N64K16F32Bf16<0, 1>(&T3[0],
          wgmma::smemDescriptor(toSmem(&T7[(i8 * 16) % 64]), 16, 1024, 1),
          wgmma::smemDescriptor(toSmem(&T8[((i8 * 16) % 64) * 64]), 8192, 1024, 1), (i1 != 0) || (i8 != 0));
    }
    wgmma::commit();
    wgmma::wait<0>();
    wgmma::fenceOperands(T3);
    __syncthreads();  // WAR: T7 is rewritten next iteration
  }
  // loop of iUR68{8}
  #pragma unroll
  for (int64_t i13 = 0; i13 < 8; ++i13) {
    // loop of iUR66{2}
    #pragma unroll
    for (int64_t i14 = 0; i14 < 2; ++i14) {
      // loop of iUR71{2}
      #pragma unroll
      for (int64_t i15 = 0; i15 < 2; ++i15) {
        float T4[1];
        T4[0] = fmaxf(T3[((i13 * 4) + (i14 * 2)) + i15], 0.0f);
        T5[(i15 + (i14 * 2)) + (i13 * 4)] = __float2bfloat16(T4[0]);
      }
    }
  }
  __syncthreads();  // WAR: T9 reuses the memory of T7
  if (threadIdx.x == 0) {
    mbarrier::arriveExpectTx(toSmem(&T9_mbar[0]), 8192);
    // loop of iUR48{1}
    #pragma unroll
    for (int64_t i16 = 0; i16 < 1; ++i16) {
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T9[i16 * 4096]), &tmap_T2, toSmem(&T9_mbar[0]), i16 * 64, 0);
    }
  }
  mbarrier::waitParity(toSmem(&T9_mbar[0]), 0);
  wgmma::discard(T10);  // written by its first wgmmas (scale-d 0), not zeroed
  wgmma::fenceOperands(T5_w);
  wgmma::fenceOperands(T10);
  wgmma::fence();
  // loop of rUR43{4}
  #pragma unroll
  for (int64_t i20 = 0; i20 < 4; ++i20) {
    wgmma::mmaM64N64K16F32Bf16RegA<1>(&T10[0],
        T5_w[(((i20 * 16) / 8) * 4) / 2],
        T5_w[((((i20 * 16) / 8) * 4) / 2) + 1],
        T5_w[((((i20 * 16) / 8) * 4) / 2) + 2],
        T5_w[((((i20 * 16) / 8) * 4) / 2) + 3],
        wgmma::smemDescriptor(toSmem(&T9[i20 * 1024]), 8192, 1024, 1), i20 != 0);
  }
  wgmma::commit();
  wgmma::wait<0>();
  wgmma::fenceOperands(T5_w);
  wgmma::fenceOperands(T10);
  // loop of iUR80{8}
  #pragma unroll
  for (int64_t i25 = 0; i25 < 8; ++i25) {
    // loop of iUR78{2}
    #pragma unroll
    for (int64_t i26 = 0; i26 < 2; ++i26) {
      if (((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i26 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 200) {
        *reinterpret_cast<float2*>(&T6.data[(((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i26 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) * T6_stride0) + (((i25 * 8) + ((((int64_t)threadIdx.x) % 4) * 2)) * T6_stride1)]) = float2{T10[(i25 * 4) + (i26 * 2)], T10[((i25 * 4) + (i26 * 2)) + 1]};
      }
    }
  }
  __syncthreads();  // every wait on T7_mbar done before inval
  if (threadIdx.x == 0) {
    mbarrier::inval(toSmem(&T7_mbar[0]));
  }
  __syncthreads();  // every wait on T8_mbar done before inval
  if (threadIdx.x == 0) {
    mbarrier::inval(toSmem(&T8_mbar[0]));
  }
  __syncthreads();  // every wait on T9_mbar done before inval
  if (threadIdx.x == 0) {
    mbarrier::inval(toSmem(&T9_mbar[0]));
  }
}
