// wgmma.cuh: warpgroup MMA (sm_90a): fence, commit and wait, shared-memory matrix descriptors, and the
// accumulator operand fence. The wgmma.mma_async wrappers themselves (one asm statement with one "+f"
// operand per accumulator) are generated per shape by codegen/wgmma.py and pasted after this file.
namespace wgmma {

__device__ __forceinline__ void fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <int N>
__device__ __forceinline__ void wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Matrix descriptor: start address, leading and stride byte offsets (all >> 4, 14 bits each), base
// offset 0 (bits 49-51), swizzle mode (0 none, 1 128B, 2 64B, 3 32B) in bits 62-63.
__host__ __device__ __forceinline__ uint64_t smemDescriptor(uint32_t smem_addr, uint32_t leading_byte_offset,
                                                            uint32_t stride_byte_offset, uint32_t swizzle_mode) {
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((smem_addr & 0x3FFFF) >> 4);
  desc |= static_cast<uint64_t>((leading_byte_offset & 0x3FFFF) >> 4) << 16;
  desc |= static_cast<uint64_t>((stride_byte_offset & 0x3FFFF) >> 4) << 32;
  desc |= static_cast<uint64_t>(swizzle_mode & 0x3) << 62;
  return desc;
}

// The compiler sees a wgmma write its accumulators when it is issued, but the registers change until
// the wait_group that retires it. Marking every accumulator as read and written here (after
// wait_group, before wgmma.fence) keeps ordinary code from moving its register accesses across.
template <int N>
__device__ __forceinline__ void fenceOperands(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    asm volatile("" : "+f"(d[i])::"memory");
  }
}

// Accumulators whose old values are dead: their first wgmmas write them without reading (scale-d 0). No instruction;
// it only tells the compiler, so the previous tile's values are not kept alive up to those wgmmas (a register each).
template <int N>
__device__ __forceinline__ void discard(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    asm("" : "=f"(d[i]));
  }
}

}  // namespace wgmma
