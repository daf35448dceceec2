extern "C" __global__ void __launch_bounds__(32, 1) fusion_kernel(Tensor<float, 4> T0, Tensor<float, 5> T4, const __grid_constant__ TensorMap tmap_T0) {
  const int64_t i2 = T0.size[2];
  const int64_t T4_stride0 = T4.stride[0];
  const int64_t T4_stride1 = T4.stride[1];
  const int64_t T4_stride2 = T4.stride[2];
  const int64_t T4_stride3 = T4.stride[3];
  const int64_t T4_stride4 = T4.stride[4];
  extern __shared__ __align__(1024) char smem[];

  int64_t* T5_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0) {
    mbarrier::init(toSmem(&T5_mbar[0]), 1);
  }
  __syncthreads();  // init: T5_mbar visible to every thread
  // loop of iS19{ceilDiv(i2, 32)}
  for (int64_t i5 = 0; i5 < ceilDiv(i2, 32); ++i5) {
    float* T5 = reinterpret_cast<float*>(smem + 128);
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T5_mbar[0]), 4096);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T5[0]), &tmap_T0, toSmem(&T5_mbar[0]), 0, i5 * 32, blockIdx.x, blockIdx.y);
    }
    mbarrier::waitParity(toSmem(&T5_mbar[0]), i5 % 2);
    // loop of iS23{32}
    for (int64_t i9 = 0; i9 < 32; ++i9) {
      T4.data[((((i5 * T4_stride0) + (((int64_t)blockIdx.y) * T4_stride1)) + (((int64_t)blockIdx.x) * T4_stride2)) + (((int64_t)threadIdx.x) * T4_stride3)) + (i9 * T4_stride4)] = T5[i9 + (((int64_t)threadIdx.x) * 32)] * 2.0f;
    }
    __syncthreads();  // WAR: T5 is rewritten next iteration
  }
  __syncthreads();  // every wait on T5_mbar done before inval
  if (threadIdx.x == 0) {
    mbarrier::inval(toSmem(&T5_mbar[0]));
  }
}
