// wgmma.cuh: a minimal warpgroup MMA wrapper (sm_90a): fence/commit/wait, shared-memory matrix
// descriptors, and m64nNk16 f32 += f16 * f16 with both operands in shared memory (N = 8, 16).
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

// Matrix descriptor: start address, leading and stride byte offsets (all >> 4), swizzle mode
// (0 none, 1 128B, 2 64B, 3 32B) in bits 62-63.
__device__ __forceinline__ uint64_t smemDescriptor(uint32_t smem_addr, uint32_t leading_byte_offset,
                                                   uint32_t stride_byte_offset, uint32_t swizzle_mode) {
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((smem_addr & 0x3FFFF) >> 4);
  desc |= static_cast<uint64_t>((leading_byte_offset & 0x3FFFF) >> 4) << 16;
  desc |= static_cast<uint64_t>((stride_byte_offset & 0x3FFFF) >> 4) << 32;
  desc |= static_cast<uint64_t>(swizzle_mode & 0x3) << 62;
  return desc;
}

__device__ __forceinline__ void mmaM64N8K16F32F16(float (&d)[4], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  setp.ne.b32 p, %6, 0;\n"
      "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<int32_t>(accumulate)));
}

__device__ __forceinline__ void mmaM64N16K16F32F16(float (&d)[8], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  setp.ne.b32 p, %10, 0;\n"
      "  wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<int32_t>(accumulate)));
}

}  // namespace wgmma
