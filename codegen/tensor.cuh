// tensor.cuh: kernel parameter types and index helpers.

// A global tensor parameter: data pointer, logical sizes and element strides (outermost first).
// The executor passes it by value: 8 bytes of pointer, then N int64 sizes, then N int64 strides.
template <typename T, int N>
struct Tensor {
  T* data;
  int64_t size[N];
  int64_t stride[N];
};

template <typename T>
struct Tensor<T, 0> {
  T* data;
};

// Layout-compatible with the driver's CUtensorMap (128 opaque bytes, 64-byte aligned).
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

// Index arithmetic is int64 (nvFuser's nvfuser_index_t); operands are non-negative.
__device__ __forceinline__ int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

__device__ __forceinline__ int64_t min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}

__device__ __forceinline__ int64_t max64(int64_t a, int64_t b) {
  return a > b ? a : b;
}

// The same in 32 bits, for kernels whose index type is int (Fusion.set_index_type).
__device__ __forceinline__ int ceilDiv32(int a, int b) {
  return (a + b - 1) / b;
}

__device__ __forceinline__ int min32(int a, int b) {
  return a < b ? a : b;
}

__device__ __forceinline__ int max32(int a, int b) {
  return a > b ? a : b;
}
