extern "C" __global__ void __launch_bounds__(128, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 1> T1, const __grid_constant__ TensorMap tmap_T0) {
  const int64_t i1 = T0.size[1];
  const int64_t T1_stride0 = T1.stride[0];
  extern __shared__ __align__(1024) char smem[];

  int64_t* block_workspace = reinterpret_cast<int64_t*>(smem + 1024);
  float* T2 = reinterpret_cast<float*>(smem);
  float T1_acc[1];
  T1_acc[0] = 0.0f;
  int64_t* T2_mbar = reinterpret_cast<int64_t*>(smem + 1024);
  if (threadIdx.x == 0) {
    // pre-prologue loop of stages of T2
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 2; ++s1) {
      mbarrier::init(toSmem(&T2_mbar[s1]), 1);
    }
  }
  __syncthreads();  // init: T2_mbar visible to every thread
  if (threadIdx.x == 0) {
    // prologue loop of rS4{ceilDiv(i1, 128)}
    #pragma unroll
    for (int64_t i3 = 0; i3 < min64(1, ceilDiv(i1, 128)); ++i3) {
      mbarrier::arriveExpectTx(toSmem(&T2_mbar[i3 % 2]), 512);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T2[(i3 % 2) * 128]), &tmap_T0, toSmem(&T2_mbar[i3 % 2]), i3 * 128, blockIdx.x);
    }
  }
  // main loop of rS4{ceilDiv(i1, 128)}
  #pragma unroll 1
  for (int64_t i3 = 0; i3 < ceilDiv(i1, 128) - 1; ++i3) {
    if (threadIdx.x == 0) {
      mbarrier::arriveExpectTx(toSmem(&T2_mbar[(i3 + 1) % 2]), 512);
      Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T2[((i3 + 1) % 2) * 128]), &tmap_T0, toSmem(&T2_mbar[(i3 + 1) % 2]), (i3 + 1) * 128, blockIdx.x);
    }
    mbarrier::waitParity(toSmem(&T2_mbar[i3 % 2]), (i3 / 2) % 2);
    if (((i3 * 128) + ((int64_t)threadIdx.x)) < i1) {
      T1_acc[0] = T1_acc[0] + T2[((int64_t)threadIdx.x) + ((i3 % 2) * 128)];
    }
    __syncthreads();  // WAR: stage (i3 + 1) % 2 is loaded again next iteration
  }
  // epilogue loop of rS4{ceilDiv(i1, 128)}
  #pragma unroll 1
  for (int64_t i3 = max64(ceilDiv(i1, 128) - 1, 0); i3 < ceilDiv(i1, 128); ++i3) {
    mbarrier::waitParity(toSmem(&T2_mbar[i3 % 2]), (i3 / 2) % 2);
    if (((i3 * 128) + ((int64_t)threadIdx.x)) < i1) {
      T1_acc[0] = T1_acc[0] + T2[((int64_t)threadIdx.x) + ((i3 % 2) * 128)];
    }
  }
  __syncthreads();  // every wait on T2_mbar done before inval
  if (threadIdx.x == 0) {
    // post-epilogue loop of stages of T2
    #pragma unroll 1
    for (int64_t s1 = 0; s1 < 2; ++s1) {
      mbarrier::inval(toSmem(&T2_mbar[s1]));
    }
  }
  __syncthreads();  // WAR: block_workspace reuses the memory of T2_mbar
  T1_acc[0] = blockAllReduce<true, false, false, 128, 1, 1>(T1_acc[0], reinterpret_cast<float*>(block_workspace), ReduceAdd());
  if (((int64_t)threadIdx.x) == 0) {
    T1.data[((int64_t)blockIdx.x) * T1_stride0] = T1_acc[0];
  }
}
