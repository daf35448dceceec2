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
  const int64_t h1 = ((((int64_t)blockIdx.x) / ceilDiv(i0, 32)) * 32) + (((((int64_t)threadIdx.x) % 8) * 4) + 3);
  const int64_t h2 = (((((int64_t)blockIdx.x) / ceilDiv(i0, 32)) * 32) + ((((int64_t)threadIdx.x) % 8) * 4)) * T0_stride1;
  // loop of iS42{1}
  for (int64_t i3 = 0; i3 < 1; ++i3) {
    if (((h0 + (((((i3 * 8) + ((int64_t)threadIdx.y)) * 32) + ((int64_t)threadIdx.x)) / 8)) < i0) && (h1 < i1)) {
      *reinterpret_cast<float4*>(&T2[(((((int64_t)threadIdx.x) * 4) + (((int64_t)threadIdx.y) * 128)) + (i3 * 1024)) ^ ((((((((int64_t)threadIdx.x) * 4) + (((int64_t)threadIdx.y) * 128)) + (i3 * 1024)) / 32) % 8) * 4)]) = *reinterpret_cast<const float4*>(&T0.data[((h0 + (((((i3 * 8) + ((int64_t)threadIdx.y)) * 32) + ((int64_t)threadIdx.x)) / 8)) * T0_stride0) + h2]);
    }
  }
  __syncthreads();  // RAW: T2 written, then read
  const int64_t h4 = (((int64_t)threadIdx.x) % 8) * 4;
  const int64_t h6 = (((int64_t)blockIdx.x) / ceilDiv(i0, 32)) * 32;
  const int64_t h7 = ((((int64_t)blockIdx.x) % ceilDiv(i0, 32)) * 32) + (((((int64_t)threadIdx.x) % 8) * 4) + 3);
  const int64_t h8 = (((((int64_t)blockIdx.x) % ceilDiv(i0, 32)) * 32) + ((((int64_t)threadIdx.x) % 8) * 4)) * T1_stride1;
  // loop of iS18{1}
  for (int64_t i7 = 0; i7 < 1; ++i7) {
    float T3[4];
    const int64_t h3 = ((((((i7 * 8) + ((int64_t)threadIdx.y)) * 32) + ((int64_t)threadIdx.x)) / 8) % 32) % 4;
    const int64_t h5 = ((((((i7 * 8) + ((int64_t)threadIdx.y)) * 32) + ((int64_t)threadIdx.x)) / 8) % 32) / 4;
    // loop of iS26{4}
    for (int64_t i10 = 0; i10 < 4; ++i10) {
      T3[i10] = T2[(((h3 + ((((((h4 + i10) % 32) * 8) + h5) % 32) * 4)) + (((((((h4 + i10) % 32) * 8) + h5) / 32) % 8) * 128)) + (((((((h4 + i10) % 32) * 8) + h5) / 32) / 8) * 1024)) ^ ((((((h3 + ((((((h4 + i10) % 32) * 8) + h5) % 32) * 4)) + (((((((h4 + i10) % 32) * 8) + h5) / 32) % 8) * 128)) + (((((((h4 + i10) % 32) * 8) + h5) / 32) / 8) * 1024)) / 32) % 8) * 4)];
    }
    if (((h6 + (((((i7 * 8) + ((int64_t)threadIdx.y)) * 32) + ((int64_t)threadIdx.x)) / 8)) < i1) && (h7 < i0)) {
      *reinterpret_cast<float4*>(&T1.data[((h6 + (((((i7 * 8) + ((int64_t)threadIdx.y)) * 32) + ((int64_t)threadIdx.x)) / 8)) * T1_stride0) + h8]) = float4{T3[0], T3[1], T3[2], T3[3]};
    }
  }
}
