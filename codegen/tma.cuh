// tma.cuh: bulk tensor copies (cp.async.bulk.tensor, sm_90) through a TensorMap kernel parameter.
// Coordinates are element offsets of the box origin, innermost dimension first, as PTX expects.
// The map is addressed by its generic address, which for a __grid_constant__ parameter is valid.
namespace Hopper {

// Global -> shared; completion is signalled as transaction bytes on the mbarrier.
__device__ __forceinline__ void cpAsyncBulkTensorTileG2S(uint32_t dst, const TensorMap* map, uint32_t mbar,
                                                         int32_t c0) {
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(mbar), "r"(c0)
      : "memory");
}

__device__ __forceinline__ void cpAsyncBulkTensorTileG2S(uint32_t dst, const TensorMap* map, uint32_t mbar,
                                                         int32_t c0, int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
          dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(mbar), "r"(c0), "r"(c1)
      : "memory");
}

__device__ __forceinline__ void cpAsyncBulkTensorTileG2S(uint32_t dst, const TensorMap* map, uint32_t mbar,
                                                         int32_t c0, int32_t c1, int32_t c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::
          "r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(mbar), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

__device__ __forceinline__ void cpAsyncBulkTensorTileG2S(uint32_t dst, const TensorMap* map, uint32_t mbar,
                                                         int32_t c0, int32_t c1, int32_t c2, int32_t c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(mbar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

__device__ __forceinline__ void cpAsyncBulkTensorTileG2S(uint32_t dst, const TensorMap* map, uint32_t mbar,
                                                         int32_t c0, int32_t c1, int32_t c2, int32_t c3, int32_t c4) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6, %7}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(mbar), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
      : "memory");
}

// Shared -> global, tracked by the bulk async-group of the issuing thread (commit / wait_group).
__device__ __forceinline__ void cpAsyncBulkTensorTileS2G(const TensorMap* map, uint32_t src, int32_t c0) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(src), "r"(c0)
               : "memory");
}

__device__ __forceinline__ void cpAsyncBulkTensorTileS2G(const TensorMap* map, uint32_t src, int32_t c0, int32_t c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(src), "r"(c0), "r"(c1)
               : "memory");
}

__device__ __forceinline__ void cpAsyncBulkTensorTileS2G(const TensorMap* map, uint32_t src, int32_t c0, int32_t c1,
                                                         int32_t c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(src), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

__device__ __forceinline__ void cpAsyncBulkTensorTileS2G(const TensorMap* map, uint32_t src, int32_t c0, int32_t c1,
                                                         int32_t c2, int32_t c3) {
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
}

__device__ __forceinline__ void cpAsyncBulkTensorTileS2G(const TensorMap* map, uint32_t src, int32_t c0, int32_t c1,
                                                         int32_t c2, int32_t c3, int32_t c4) {
  asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
               : "memory");
}

__device__ __forceinline__ void cpAsyncBulkCommitGroup() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

// Wait until at most N bulk groups are pending their reads of shared memory.
template <int N>
__device__ __forceinline__ void cpAsyncBulkWaitGroupRead() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

// Wait until at most N bulk groups are pending at all (their writes to global memory done too).
template <int N>
__device__ __forceinline__ void cpAsyncBulkWaitGroup() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

}  // namespace Hopper
