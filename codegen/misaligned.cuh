// misaligned.cuh: a vector of BYTES bytes copied from a global address aligned only to its ELEM-byte element
// (MisalignedVectorize). It reads the aligned BYTES-byte chunks that hold the vector's valid elements (at most
// two), shifts the words into place, zeroes each element whose bit of `valid` is clear and stores the vector to
// the aligned destination at once. No chunk without a valid element is read, so the reads stay inside the
// 16-byte granules that hold the tensor's elements: device allocations start 256-byte aligned and are mapped in
// whole pages, so reading the rest of the last element's granule cannot fault (the executor rounds its own
// allocations up to 16 bytes, so compute-sanitizer sees those bytes allocated too). The branch-free reads let the
// compiler issue the loads of every vector of a thread before the first is shifted and stored.
// The loads are not volatile and clobber no memory: the tensor is a fusion input, never written while the kernel
// runs, so the compiler may issue the loads of several vectors before the stores of the first (.nc: read-only).
template <int BYTES>
__device__ __forceinline__ void loadChunk(const void* p, uint32_t* w) {
  if constexpr (BYTES == 16) {
    asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];\n" : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(p));
  } else if constexpr (BYTES == 8) {
    asm("ld.global.nc.v2.u32 {%0, %1}, [%2];\n" : "=r"(w[0]), "=r"(w[1]) : "l"(p));
  } else {
    asm("ld.global.nc.u32 %0, [%1];\n" : "=r"(w[0]) : "l"(p));
  }
}

template <int BYTES>
__device__ __forceinline__ void storeVector(void* p, const uint32_t* w) {
  if constexpr (BYTES == 16) {
    *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
  } else if constexpr (BYTES == 8) {
    *reinterpret_cast<uint2*>(p) = make_uint2(w[0], w[1]);
  } else {
    *reinterpret_cast<uint32_t*>(p) = w[0];
  }
}

template <int BYTES, int ELEM>
__device__ __forceinline__ void copyMisaligned(void* dst, const void* src, uint32_t valid) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "a misaligned vector is 4, 8 or 16 bytes");
  static_assert(ELEM == 1 || ELEM == 2 || ELEM == 4, "a misaligned vector holds elements of 1, 2 or 4 bytes");
  constexpr int W = BYTES / 4;                  // 32-bit words of the vector
  constexpr int N = BYTES / ELEM;               // its elements
  const unsigned long long addr = reinterpret_cast<unsigned long long>(src);
  const uint32_t off = static_cast<uint32_t>(addr) & (BYTES - 1);   // bytes past the aligned chunk's start
  const char* chunk = reinterpret_cast<const char*>(addr - off);
  const uint32_t first = (BYTES - off) / ELEM;  // the vector's elements in the first chunk (N when aligned)
  uint32_t w[2 * W];
#pragma unroll
  for (int j = 0; j < 2 * W; ++j) w[j] = 0u;
  if (valid & ((1u << first) - 1u)) loadChunk<BYTES>(chunk, w);
  if (off != 0u && (valid >> first) != 0u) loadChunk<BYTES>(chunk + BYTES, w + W);
  // shift by whole words (selects on the word offset's bits), then by the bytes left (a funnel shift)
  const uint32_t words = off >> 2;
#pragma unroll
  for (int s = W / 2; s >= 1; s /= 2) {
    if (words & s) {
#pragma unroll
      for (int j = 0; j + s < 2 * W; ++j) w[j] = w[j + s];
    }
  }
  const uint32_t bits = (off & 3u) * 8u;
  uint32_t out[W];
#pragma unroll
  for (int j = 0; j < W; ++j) out[j] = __funnelshift_r(w[j], w[j + 1], bits);
#pragma unroll
  for (int e = 0; e < N; ++e) {
    if (!((valid >> e) & 1u)) {
      constexpr uint32_t ones = ELEM == 4 ? 0xffffffffu : (1u << (8 * ELEM)) - 1u;
      out[e * ELEM / 4] &= ~(ones << ((e * ELEM % 4) * 8));
    }
  }
  storeVector<BYTES>(dst, out);
}
