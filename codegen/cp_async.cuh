// cp_async.cuh: Ampere-style asynchronous global -> shared copies of 4, 8 or 16 bytes.
// A false predicate copies zero source bytes, so the destination is zero-filled.
template <int BYTES>
__device__ __forceinline__ void cpAsync(uint32_t dst, const void* src, bool pred) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
  const uint32_t src_bytes = pred ? BYTES : 0;
  if constexpr (BYTES == 16) {
    // .cg caches in L2 only; it exists for 16-byte copies alone.
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(BYTES), "r"(src_bytes)
                 : "memory");
  }
}

__device__ __forceinline__ void cpAsyncCommitGroup() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Wait until at most N committed cp.async groups of this thread are pending.
template <int N>
__device__ __forceinline__ void cpAsyncWaitGroup() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
