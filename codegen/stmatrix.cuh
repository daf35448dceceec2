// stmatrix.cuh: warp-wide stores of 8x8 b16 matrices from registers to shared memory (sm_90).
// Each lane passes the row address it owns; each register holds two b16 elements.
__device__ __forceinline__ void stmatrixX1(uint32_t addr, uint32_t r0) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" ::"r"(addr), "r"(r0) : "memory");
}

__device__ __forceinline__ void stmatrixX2(uint32_t addr, uint32_t r0, uint32_t r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" ::"r"(addr), "r"(r0), "r"(r1) : "memory");
}

__device__ __forceinline__ void stmatrixX4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(r0), "r"(r1),
               "r"(r2), "r"(r3)
               : "memory");
}
