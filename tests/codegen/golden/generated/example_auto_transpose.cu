extern "C" __global__ void __launch_bounds__(256, 1) fusion_kernel(Tensor<float, 2> T0, Tensor<float, 2> T1) {
  const int64_t i0 = T0.size[0];
  const int64_t i1 = T0.size[1];
  const int64_t T0_stride0 = T0.stride[0];
  const int64_t T0_stride1 = T0.stride[1];
  const int64_t T1_stride0 = T1.stride[0];
  const int64_t T1_stride1 = T1.stride[1];
  extern __shared__ __align__(1024) char smem[];

  float* T2 = reinterpret_cast<float*>(smem);
  const int64_t h0 = (((int64_t)blockIdx.x) % ceilDiv(i0, 32)) * 32;
  const int64_t h1 = ((((int64_t)blockIdx.x) / ceilDiv(i0, 32)) * 32) + ((int64_t)threadIdx.x);
  const int64_t h2 = (((((int64_t)blockIdx.x) / ceilDiv(i0, 32)) * 32) + ((int64_t)threadIdx.x)) * T0_stride1;
  // loop of iS18{4}
  for (int64_t i3 = 0; i3 < 4; ++i3) {
    if (((h0 + ((i3 * 8) + ((int64_t)threadIdx.y))) < i0) && (h1 < i1)) {
      T2[((((int64_t)threadIdx.x) + (((int64_t)threadIdx.y) * 32)) + (i3 * 256)) ^ (((((((int64_t)threadIdx.x) + (((int64_t)threadIdx.y) * 32)) + (i3 * 256)) / 32) % 8) * 4)] = T0.data[((h0 + ((i3 * 8) + ((int64_t)threadIdx.y))) * T0_stride0) + h2];
    }
  }
  __syncthreads();  // RAW: T2 written, then read
  const int64_t h3 = (((int64_t)blockIdx.x) / ceilDiv(i0, 32)) * 32;
  const int64_t h4 = ((((int64_t)blockIdx.x) % ceilDiv(i0, 32)) * 32) + ((int64_t)threadIdx.x);
  const int64_t h5 = (((((int64_t)blockIdx.x) % ceilDiv(i0, 32)) * 32) + ((int64_t)threadIdx.x)) * T1_stride1;
  const int64_t h6 = ((((int64_t)threadIdx.x) % 32) % 8) * 32;
  const int64_t h7 = ((((int64_t)threadIdx.x) % 32) / 8) * 256;
  // loop of iS11{4}
  for (int64_t i6 = 0; i6 < 4; ++i6) {
    if (((h3 + ((i6 * 8) + ((int64_t)threadIdx.y))) < i1) && (h4 < i0)) {
      T1.data[((h3 + ((i6 * 8) + ((int64_t)threadIdx.y))) * T1_stride0) + h5] = T2[(((((i6 * 8) + ((int64_t)threadIdx.y)) % 32) + h6) + h7) ^ ((((((((i6 * 8) + ((int64_t)threadIdx.y)) % 32) + h6) + h7) / 32) % 8) * 4)];
    }
  }
}
