// elect.cuh: elect.sync (sm_90) picks one thread among the lanes in `membermask`.
namespace Hopper {

__device__ __forceinline__ bool electSync(uint32_t membermask) {
  uint32_t is_elected;
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  elect.sync _|p, %1;\n"
      "  selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(is_elected)
      : "r"(membermask));
  return is_elected != 0;
}

// The member mask of a warp with `lanes` threads (all 32 when lanes >= 32).
__device__ __forceinline__ uint32_t laneMask(int64_t lanes) {
  return lanes >= 32 ? 0xffffffffu : ((1u << lanes) - 1u);
}

}  // namespace Hopper
