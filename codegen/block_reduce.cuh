// block_reduce.cuh: all-reduce across the thread dimensions selected by X/Y/Z_REDUCE.
// Threads that differ only in the reduced dimensions form one segment; every thread of a segment
// gets the segment's result. `workspace` is shared memory with one slot per thread of the block.
// Synchronizes with __syncthreads(), so every thread of the block must call it; or, given a named
// barrier (1..15) and its thread count, with bar.sync over just those threads (a warp-specialized
// branch, whose threads are the only ones that call it).
struct ReduceAdd {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a + b;
  }
  __device__ __forceinline__ __half operator()(__half a, __half b) const {
    return __float2half(__half2float(a) + __half2float(b));
  }
  __device__ __forceinline__ __bfloat16 operator()(__bfloat16 a, __bfloat16 b) const {
    return __float2bfloat16(__bfloat162float(a) + __bfloat162float(b));
  }
};

struct ReduceMax {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a > b ? a : b;
  }
  __device__ __forceinline__ float operator()(float a, float b) const {
    return fmaxf(a, b);
  }
  __device__ __forceinline__ __half operator()(__half a, __half b) const {
    return __float2half(fmaxf(__half2float(a), __half2float(b)));
  }
  __device__ __forceinline__ __bfloat16 operator()(__bfloat16 a, __bfloat16 b) const {
    return __float2bfloat16(fmaxf(__bfloat162float(a), __bfloat162float(b)));
  }
};

__device__ __forceinline__ void reduceBarrier(uint32_t barrier, uint32_t threads) {
  if (barrier == 0) {
    __syncthreads();
  } else {
    asm volatile("bar.sync %0, %1;\n" ::"r"(barrier), "r"(threads) : "memory");
  }
}

template <bool X_REDUCE, bool Y_REDUCE, bool Z_REDUCE, typename T, typename Op>
__device__ T blockAllReduce(T value, T* workspace, Op op, uint32_t barrier = 0, uint32_t threads = 0) {
  const uint32_t rx = X_REDUCE ? blockDim.x : 1, ry = Y_REDUCE ? blockDim.y : 1, rz = Z_REDUCE ? blockDim.z : 1;
  const uint32_t sx = X_REDUCE ? 1 : blockDim.x, sy = Y_REDUCE ? 1 : blockDim.y;
  // Position inside the segment (x fastest) and the segment's index.
  const uint32_t reduce_size = rx * ry * rz;
  const uint32_t reduce_idx = (X_REDUCE ? threadIdx.x : 0) + rx * ((Y_REDUCE ? threadIdx.y : 0) + ry * (Z_REDUCE ? threadIdx.z : 0));
  const uint32_t segment_idx = (X_REDUCE ? 0 : threadIdx.x) + sx * ((Y_REDUCE ? 0 : threadIdx.y) + sy * (Z_REDUCE ? 0 : threadIdx.z));
  T* segment = workspace + segment_idx * reduce_size;

  segment[reduce_idx] = value;
  reduceBarrier(barrier, threads);
  // Fold the tail onto the largest power of two, then halve.
  uint32_t np2 = 1;
  while (np2 * 2 <= reduce_size) {
    np2 *= 2;
  }
  if (reduce_idx + np2 < reduce_size) {
    segment[reduce_idx] = op(segment[reduce_idx], segment[reduce_idx + np2]);
  }
  reduceBarrier(barrier, threads);
  for (uint32_t stride = np2 / 2; stride > 0; stride /= 2) {
    if (reduce_idx < stride) {
      segment[reduce_idx] = op(segment[reduce_idx], segment[reduce_idx + stride]);
    }
    reduceBarrier(barrier, threads);
  }
  const T result = segment[0];
  // The workspace may be reused right after; nobody may overwrite it before all have read.
  reduceBarrier(barrier, threads);
  return result;
}
