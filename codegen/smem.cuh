// smem.cuh: the 32-bit shared-window address that mbarrier, TMA and cp.async instructions take.
__device__ __forceinline__ uint32_t toSmem(const void* ptr) {
  uint32_t addr;
  asm("{\n"
      "  .reg .u64 a;\n"
      "  cvta.to.shared.u64 a, %1;\n"
      "  cvt.u32.u64 %0, a;\n"
      "}\n"
      : "=r"(addr)
      : "l"(ptr));
  return addr;
}
