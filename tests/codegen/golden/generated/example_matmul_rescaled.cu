extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<__bfloat16, 3> T0, Tensor<__bfloat16, 3> T1, Tensor<float, 2> T2, Tensor<__bfloat16, 2> T6, const __grid_constant__ TensorMap tmap_T0, const __grid_constant__ TensorMap tmap_T1) {
  const int64_t T2_stride0 = T2.stride[0];
  const int64_t T2_stride1 = T2.stride[1];
  const int64_t T6_stride0 = T6.stride[0];
  const int64_t T6_stride1 = T6.stride[1];
  extern __shared__ __align__(1024) char smem[];

  int64_t* T8_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T8_mbar[0]), 1);
  }
  __syncthreads();  // init: T8_mbar visible to every thread
  int64_t* T7_mbar = reinterpret_cast<int64_t*>(smem + 8);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T7_mbar[0]), 1);
  }
  __syncthreads();  // init: T7_mbar visible to every thread
  float T5[32];
  // loop of iUR76{8}
  #pragma unroll
  for (int64_t i19 = 0; i19 < 8; ++i19) {
    // loop of iUR74{2}
    #pragma unroll
    for (int64_t i20 = 0; i20 < 2; ++i20) {
      // loop of iUR79{2}
      #pragma unroll
      for (int64_t i21 = 0; i21 < 2; ++i21) {
        T5[(i21 + (i20 * 2)) + (i19 * 4)] = 0.0f;
      }
    }
  }
  const int64_t h0 = ((((int64_t)threadIdx.x) / 4) / 8) * 16;
  const int64_t h1 = (((int64_t)threadIdx.x) / 4) % 8;
  // loop of rS15{3}
  for (int64_t i2 = 0; i2 < 3; ++i2) {
    float T4[2];
    // loop of iUR98{2}
    #pragma unroll
    for (int64_t i5 = 0; i5 < 2; ++i5) {
      if (((((int64_t)blockIdx.x) * 64) + (h0 + ((i5 * 8) + h1))) < 200) {
        T4[i5] = T2.data[(i2 * T2_stride0) + (((((int64_t)blockIdx.x) * 64) + (h0 + ((i5 * 8) + h1))) * T2_stride1)];
      }
    }
    if (i2 > 0) {
      // loop of iUR76{8}
      #pragma unroll
      for (int64_t i19 = 0; i19 < 8; ++i19) {
        // loop of iUR74{2}
        #pragma unroll
        for (int64_t i20 = 0; i20 < 2; ++i20) {
          // loop of iUR79{2}
          #pragma unroll
          for (int64_t i21 = 0; i21 < 2; ++i21) {
            T5[(i21 + (i20 * 2)) + (i19 * 4)] = T5[(i21 + (i20 * 2)) + (i19 * 4)] * T4[i20];
          }
        }
      }
    }
    // loop of rS30{2}
    for (int64_t i7 = 0; i7 < 2; ++i7) {
      __bfloat16* T7 = reinterpret_cast<__bfloat16*>(smem + 1024);
      __bfloat16* T8 = reinterpret_cast<__bfloat16*>(smem + 9216);
      if (threadIdx.x == 0) {
        mbarrier::arriveExpectTx(toSmem(&T7_mbar[0]), 8192);
        Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T7[0]), &tmap_T0, toSmem(&T7_mbar[0]), i7 * 64, ((int64_t)blockIdx.x) * 64, i2);
      }
      if (threadIdx.x == 0) {
        mbarrier::arriveExpectTx(toSmem(&T8_mbar[0]), 8192);
        // loop of iUR48{1}
        #pragma unroll
        for (int64_t i11 = 0; i11 < 1; ++i11) {
          Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T8[i11 * 4096]), &tmap_T1, toSmem(&T8_mbar[0]), (((int64_t)blockIdx.y) * 64) + (i11 * 64), i7 * 64, i2);
        }
      }
      mbarrier::waitParity(toSmem(&T7_mbar[0]), i7 % 2);
      mbarrier::waitParity(toSmem(&T8_mbar[0]), i7 % 2);
      wgmma::fenceOperands(T5);
      wgmma::fence();
      // loop of rUR32{4}
      #pragma unroll
      for (int64_t i15 = 0; i15 < 4; ++i15) {
        wgmma::mmaM64N64K16F32Bf16<0, 1>(&T5[0],
            wgmma::smemDescriptor(toSmem(&T7[(i15 * 16) % 64]), 16, 1024, 1),
            wgmma::smemDescriptor(toSmem(&T8[((i15 * 16) % 64) * 64]), 8192, 1024, 1));
      }
      wgmma::commit();
      wgmma::wait<0>();
      wgmma::fenceOperands(T5);
      __syncthreads();  // WAR: T7 is rewritten next iteration
    }
  }
  // loop of iUR86{8}
  #pragma unroll
  for (int64_t i23 = 0; i23 < 8; ++i23) {
    // loop of iUR84{2}
    #pragma unroll
    for (int64_t i24 = 0; i24 < 2; ++i24) {
      if ((((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i24 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) < 200) && (((((int64_t)blockIdx.y) * 64) + ((i23 * 8) + (((((int64_t)threadIdx.x) % 4) * 2) + 1))) < 136)) {
        *reinterpret_cast<uint32_t*>(&T6.data[(((((int64_t)blockIdx.x) * 64) + ((((((int64_t)threadIdx.x) / 4) / 8) * 16) + ((i24 * 8) + ((((int64_t)threadIdx.x) / 4) % 8)))) * T6_stride0) + (((((int64_t)blockIdx.y) * 64) + ((i23 * 8) + ((((int64_t)threadIdx.x) % 4) * 2))) * T6_stride1)]) = (static_cast<uint32_t>((__float2bfloat16(T5[(i24 * 2) + (i23 * 4)])).raw) | (static_cast<uint32_t>((__float2bfloat16(T5[((i24 * 2) + (i23 * 4)) + 1])).raw) << 16));
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
}
