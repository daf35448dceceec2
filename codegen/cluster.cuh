// cluster.cuh: thread-block clusters (sm_90): a barrier over every block of the cluster, the fence that
// makes mbarrier inits visible to the peers, an arrive on a peer block's mbarrier, and TMA loads multicast
// into the shared memory of several blocks of the cluster (the same offset in each, completing on each
// block's mbarrier at the same offset).
namespace cluster {

// Every (non-exited) thread of every block of the cluster arrives, then waits for all of them; the
// release/acquire pair orders each thread's earlier shared-memory accesses (and a peer's) around it.
__device__ __forceinline__ void sync() {
  asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
  asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
}

// This block's mbarrier.init visible, at cluster scope, before a cluster barrier releases the peers.
__device__ __forceinline__ void fenceMBarrierInit() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// Arrive on the mbarrier at shared address `mbar` (this block's offset) of the block of cluster rank `cta`.
// The default semantics (release at CTA scope), not `.release.cluster`: a cluster-scope release makes every
// arriving warp wait for a memory barrier (MEMBAR) first, which halved the multicast matmul's speed. A consumer
// releasing a stage has only read it, through wgmma, already waited for; the peer's next TMA write into it is
// ordered by this arrive and that peer's wait on the barrier (the pattern of CUTLASS's ClusterBarrier).
__device__ __forceinline__ void arriveRemote(uint32_t mbar, uint32_t cta) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(mbar), "r"(cta));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(remote) : "memory");
}

}  // namespace cluster

namespace Hopper {

// Global -> shared of every block in `mask` (bit r: cluster rank r), each at `dst` of its own shared memory,
// completing as transaction bytes on each one's mbarrier at `mbar`.
__device__ __forceinline__ void cpAsyncBulkTensorTileG2SMulticast(uint32_t dst, const TensorMap* map, uint32_t mbar,
                                                                  uint16_t mask, int32_t c0) {
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%4}], [%2], %3;\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(mbar), "h"(mask), "r"(c0)
      : "memory");
}

__device__ __forceinline__ void cpAsyncBulkTensorTileG2SMulticast(uint32_t dst, const TensorMap* map, uint32_t mbar,
                                                                  uint16_t mask, int32_t c0, int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%4, %5}], [%2], %3;\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(mbar), "h"(mask), "r"(c0), "r"(c1)
      : "memory");
}

__device__ __forceinline__ void cpAsyncBulkTensorTileG2SMulticast(uint32_t dst, const TensorMap* map, uint32_t mbar,
                                                                  uint16_t mask, int32_t c0, int32_t c1, int32_t c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%4, %5, %6}], [%2], %3;\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(mbar), "h"(mask), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

__device__ __forceinline__ void cpAsyncBulkTensorTileG2SMulticast(uint32_t dst, const TensorMap* map, uint32_t mbar,
                                                                  uint16_t mask, int32_t c0, int32_t c1, int32_t c2, int32_t c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%4, %5, %6, %7}], [%2], %3;\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(mbar), "h"(mask), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

__device__ __forceinline__ void cpAsyncBulkTensorTileG2SMulticast(uint32_t dst, const TensorMap* map, uint32_t mbar,
                                                                  uint16_t mask, int32_t c0, int32_t c1, int32_t c2, int32_t c3, int32_t c4) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%4, %5, %6, %7, %8}], [%2], %3;\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(mbar), "h"(mask), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
      : "memory");
}

}  // namespace Hopper
