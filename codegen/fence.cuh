// fence.cuh: order this thread's generic-proxy shared-memory writes before later async-proxy
// accesses (TMA store, wgmma operand reads).
__device__ __forceinline__ void fenceAsyncProxy() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
