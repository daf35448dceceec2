extern "C" __global__ void __launch_bounds__(128) tma_circular_buffer_3_kernel(Tensor<float, 1> T0, Tensor<float, 1> T2, const __grid_constant__ TensorMap tmap_T0) {
  const int64_t i0 = T0.size[0];
  const int64_t T2_stride0 = T2.stride[0];
  extern __shared__ __align__(1024) char smem[];

  float* T1 = reinterpret_cast<float*>(smem);
  int64_t* T4 = reinterpret_cast<int64_t*>(smem + 1536);
  if (threadIdx.x == 0) {
    // pre-prologue loop
    #pragma unroll 1
    for (int64_t i5 = 0; i5 < 3; ++i5) {
      mbarrier::init(toSmem(&T4[i5]), 1);
    }
  }
  __syncthreads();  // init: mbarriers visible to all threads
  // prologue loop of iS3{ceilDiv(i0, 128)}
  #pragma unroll
  for (int64_t i6 = 0; i6 < 2; ++i6) {
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T4[i6 % 3]), 512);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T1[(i6 % 3) * 128]), &tmap_T0, toSmem(&T4[i6 % 3]), i6 * 128);
    }
  }
  // main loop of iS3{ceilDiv(i0, 128)}
  #pragma unroll 1
  for (int64_t i7 = 0; i7 < ceilDiv(i0, 128) - 2; ++i7) {
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T4[(i7 + 2) % 3]), 512);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T1[((i7 + 2) % 3) * 128]), &tmap_T0, toSmem(&T4[(i7 + 2) % 3]), (i7 + 2) * 128);
    }
    mbarrier::waitParity(toSmem(&T4[i7 % 3]), (i7 / 3) % 2);
    if (((i7 * 128) + ((int64_t)threadIdx.x)) < i0) {
      T2.data[((i7 * 128) + ((int64_t)threadIdx.x)) * T2_stride0] = (T1[((i7 % 3) * 128) + ((int64_t)threadIdx.x)] * 2.0f) + 1.0f;
    }
    __syncthreads();  // WAR: stage i % S is loaded again next iteration
  }
  // epilogue loop of iS3{ceilDiv(i0, 128)}
  #pragma unroll 1
  for (int64_t i8 = ceilDiv(i0, 128) - 2; i8 < ceilDiv(i0, 128); ++i8) {
    mbarrier::waitParity(toSmem(&T4[i8 % 3]), (i8 / 3) % 2);
    if (((i8 * 128) + ((int64_t)threadIdx.x)) < i0) {
      T2.data[((i8 * 128) + ((int64_t)threadIdx.x)) * T2_stride0] = (T1[((i8 % 3) * 128) + ((int64_t)threadIdx.x)] * 2.0f) + 1.0f;
    }
  }
  __syncthreads();  // every wait done before inval
  if (threadIdx.x == 0) {
    // post-epilogue loop
    #pragma unroll 1
    for (int64_t i9 = 0; i9 < 3; ++i9) {
      mbarrier::inval(toSmem(&T4[i9]));
    }
  }
}
