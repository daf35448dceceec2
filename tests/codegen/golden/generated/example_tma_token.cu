extern "C" __global__ void __launch_bounds__(256, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 2> T1, const __grid_constant__ TensorMap tmap_T0) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T1_stride1 = T1.stride[1];
  extern __shared__ __align__(1024) char smem[];

  int64_t* T2_mbar = reinterpret_cast<int64_t*>(smem);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    mbarrier::init(toSmem(&T2_mbar[0]), 1);
  }
  __syncthreads();  // init: T2_mbar visible to every thread
  // loop of iS4{ceilDiv(i1, 32)}
  for (int64_t i3 = 0; i3 < ceilDiv(i1, 32); ++i3) {
    float* T2 = reinterpret_cast<float*>(smem + 128);
    if (threadIdx.x == 0 && threadIdx.y == 0) {
      mbarrier::arriveExpectTx(toSmem(&T2_mbar[0]), 1024);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T2[0]), &tmap_T0, toSmem(&T2_mbar[0]), i3 * 32, ((int64_t)blockIdx.x) * 8);
    }
    mbarrier::waitParity(toSmem(&T2_mbar[0]), i3 % 2);
    if ((((((int64_t)blockIdx.x) * 8) + ((int64_t)threadIdx.y)) < i0) && (((i3 * 32) + ((int64_t)threadIdx.x)) < i1)) {
      T1.data[(((((int64_t)blockIdx.x) * 8) + ((int64_t)threadIdx.y)) * T1_stride0) + (((i3 * 32) + ((int64_t)threadIdx.x)) * T1_stride1)] = T2[((int64_t)threadIdx.x) + (((int64_t)threadIdx.y) * 32)] - 1.0f;
    }
    __syncthreads();  // WAR: T2 is rewritten next iteration
  }
  __syncthreads();  // every wait on T2_mbar done before inval
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    mbarrier::inval(toSmem(&T2_mbar[0]));
  }
}
