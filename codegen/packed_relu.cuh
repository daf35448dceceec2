// packed_relu.cuh: two floats to a pair of 16-bit floats in one word (the first in the low half), negative
// results 0: relu folded into the packed conversion (one F2FP.RELU where fmaxf and a conversion take three).
__device__ __forceinline__ uint32_t reluPairBf16(float lo, float hi) {
  uint32_t r;
  asm("cvt.rn.relu.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

__device__ __forceinline__ uint32_t reluPairHalf(float lo, float hi) {
  uint32_t r;
  asm("cvt.rn.relu.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
