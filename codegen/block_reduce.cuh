// block_reduce.cuh: all-reduce across the thread dimensions selected by X/Y/Z_REDUCE.
// Threads that differ only in the reduced dimensions form one segment; every thread of a segment
// gets the segment's result. `workspace` is shared memory with one slot per thread of the block.
// Warp shuffles (__shfl_xor_sync) combine a segment's values within each warp; a segment spanning
// several warps then meets once in shared memory (one slot per warp and kept index, one barrier, a
// last shuffle stage in every warp, one more barrier before the workspace may be reused); a segment
// within one warp needs neither. Segment shapes the shuffles cannot follow (non-power-of-two extents,
// a kept dimension between reduced ones, a block of partial warps) take the shared-memory tree, a
// barrier per halving step.
// Every thread of the block must call it: it may synchronize with __syncthreads(), or, given a named
// barrier (1..15) and its thread count, with bar.sync over just those threads (a warp-specialized
// branch of whole warps, whose threads are the only ones that call it). It is no barrier for the
// caller's own shared memory: the lowering places those (BlockSync) itself.
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

// One lane's value exchanged with lane ^ lane_mask of the same warp (every lane of the warp calls it).
template <typename T>
__device__ __forceinline__ T warpShflXor(T value, uint32_t lane_mask) {
  return __shfl_xor_sync(0xffffffffu, value, lane_mask);
}
__device__ __forceinline__ __half warpShflXor(__half value, uint32_t lane_mask) {
  return __half{static_cast<uint16_t>(__shfl_xor_sync(0xffffffffu, static_cast<uint32_t>(value.raw), lane_mask))};
}
__device__ __forceinline__ __bfloat16 warpShflXor(__bfloat16 value, uint32_t lane_mask) {
  return __bfloat16{static_cast<uint16_t>(__shfl_xor_sync(0xffffffffu, static_cast<uint32_t>(value.raw), lane_mask))};
}

// The shared-memory tree: any segment shape, a barrier per halving step.
template <typename T, typename Op>
__device__ T treeAllReduce(T value, T* segment, uint32_t reduce_idx, uint32_t reduce_size, Op op, uint32_t barrier,
                           uint32_t threads) {
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

// BX, BY, BZ: the block's extents when the kernel's are constant (0: read blockDim), so the choice of
// path and the lane arithmetic fold at compile time.
template <bool X_REDUCE, bool Y_REDUCE, bool Z_REDUCE, uint32_t BX = 0, uint32_t BY = 0, uint32_t BZ = 0, typename T,
          typename Op>
__device__ T blockAllReduce(T value, T* workspace, Op op, uint32_t barrier = 0, uint32_t threads = 0) {
  const uint32_t bdx = BX != 0 ? BX : blockDim.x, bdy = BY != 0 ? BY : blockDim.y, bdz = BZ != 0 ? BZ : blockDim.z;
  const uint32_t rx = X_REDUCE ? bdx : 1, ry = Y_REDUCE ? bdy : 1, rz = Z_REDUCE ? bdz : 1;
  const uint32_t sx = X_REDUCE ? 1 : bdx, sy = Y_REDUCE ? 1 : bdy;
  // Position inside the segment (x fastest) and the segment's index.
  const uint32_t reduce_size = rx * ry * rz;
  const uint32_t reduce_idx = (X_REDUCE ? threadIdx.x : 0) + rx * ((Y_REDUCE ? threadIdx.y : 0) + ry * (Z_REDUCE ? threadIdx.z : 0));
  const uint32_t segment_idx = (X_REDUCE ? 0 : threadIdx.x) + sx * ((Y_REDUCE ? 0 : threadIdx.y) + sy * (Z_REDUCE ? 0 : threadIdx.z));
  // The warp path needs a segment's members at one stride `low` in the linear thread index
  // (tid = lo + low * (reduce_idx + reduce_size * hi)): every kept dimension either below all reduced
  // ones or above them (or of extent 1). `low` (the kept threads below) and reduce_size powers of two,
  // `low` at most a warp, and the warps of the block whole; else the shared-memory tree.
  const bool y_kept_between = !Y_REDUCE && bdy > 1 && X_REDUCE && Z_REDUCE;
  const uint32_t low = X_REDUCE ? 1 : (Y_REDUCE || (Z_REDUCE && bdy == 1) ? bdx : bdx * bdy);
  const uint32_t block_threads = bdx * bdy * bdz;
  const bool pow2 = (reduce_size & (reduce_size - 1)) == 0 && (low & (low - 1)) == 0;
  if (reduce_size == 1) {
    return value;
  }
  if (y_kept_between || !pow2 || low > 32 || block_threads % 32 != 0) {
    return treeAllReduce(value, workspace + segment_idx * reduce_size, reduce_idx, reduce_size, op, barrier,
                         threads);
  }
  // Within the warp: lanes lo + low * j hold one segment's values; butterfly over the j bits.
  const uint32_t lanes = low <= 32 ? 32 / low : 1;                         // lanes per kept index in a warp
  const uint32_t per_warp = lanes < reduce_size ? lanes : reduce_size;     // members of a segment in a warp
  for (uint32_t mask = low; mask < low * per_warp; mask *= 2) {
    value = op(value, warpShflXor(value, mask));
  }
  if (per_warp == reduce_size) {
    return value;  // a segment within one warp: no shared memory, no barrier
  }
  // Across warps: lanes lo of each warp publish their segments' partials, then every warp combines
  // the partials of its own segments (lane lo + low * m reads warp m's, m + 32 / low's, ...).
  const uint32_t tid = threadIdx.x + bdx * (threadIdx.y + bdy * threadIdx.z);
  const uint32_t warp = tid / 32;
  const uint32_t warps = reduce_size / per_warp;             // warps of one segment (a power of two)
  const uint32_t first_warp = warp & ~(warps - 1);           // the segment group's first warp
  if ((tid % 32) < low) {
    workspace[warp * low + tid % 32] = value;
  }
  reduceBarrier(barrier, threads);
  const uint32_t lo = tid % low, m = (tid % 32) / low;
  const uint32_t k0 = m % warps;
  T acc = workspace[(first_warp + k0) * low + lo];
  for (uint32_t k = k0 + lanes; k < warps; k += lanes) {
    acc = op(acc, workspace[(first_warp + k) * low + lo]);
  }
  const uint32_t groups = warps < lanes ? warps : lanes;
  for (uint32_t mask = low; mask < low * groups; mask *= 2) {
    acc = op(acc, warpShflXor(acc, mask));
  }
  // The workspace may be reused right after; nobody may overwrite it before all have read.
  reduceBarrier(barrier, threads);
  return acc;
}
