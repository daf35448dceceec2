// stmatrix_trans.cuh: stmatrix's .trans form (sm_90): each 8x8 b16 matrix is stored transposed, lane l
// addressing column l % 8 of matrix l / 8 as stored (its 8 rows' elements of that column, consecutive).
__device__ __forceinline__ void stmatrixX1Trans(uint32_t addr, uint32_t r0) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};\n" ::"r"(addr), "r"(r0) : "memory");
}

__device__ __forceinline__ void stmatrixX2Trans(uint32_t addr, uint32_t r0, uint32_t r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" ::"r"(addr), "r"(r0), "r"(r1)
               : "memory");
}

__device__ __forceinline__ void stmatrixX4Trans(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}
