// named_barrier.cuh: bar.sync on one of the 16 hardware barriers of a block. Barrier 0 is the one
// __syncthreads uses; a named barrier (1..15) synchronizes just `threads` threads (a multiple of
// 32): the warps of a branch that the rest of the block does not take.
__device__ __forceinline__ void namedBarrierSync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
// bar.arrive: this warp's threads count toward barrier `id` and go on; the threads that bar.sync on it wait
// for all `threads` (warp groups taking turns: the group done with its turn arrives on the next one's barrier).
__device__ __forceinline__ void namedBarrierArrive(uint32_t id, uint32_t threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
