// types.cuh: fixed-width integers and 16-bit float storage types, without CUDA headers.
// NVRTC on the target machine has no standard or CCCL headers, so the kernel defines what it uses.
// The integer typedefs match glibc's on LP64 Linux, so nvcc (which pulls in <stdint.h>) accepts them too.
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long int uint64_t;

// IEEE binary16 and bfloat16 as raw bits; arithmetic happens in float after an explicit conversion.
struct alignas(2) __half {
  uint16_t raw;
};
struct alignas(2) __bfloat16 {
  uint16_t raw;
};

__device__ __forceinline__ float __half2float(__half h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.raw));
  return f;
}

__device__ __forceinline__ __half __float2half(float f) {
  __half h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.raw) : "f"(f));
  return h;
}

__device__ __forceinline__ float __bfloat162float(__bfloat16 b) {
  // bfloat16 is the upper half of a float32.
  return __uint_as_float(static_cast<uint32_t>(b.raw) << 16);
}

__device__ __forceinline__ __bfloat16 __float2bfloat16(float f) {
  __bfloat16 b;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b.raw) : "f"(f));
  return b;
}

// tanh.approx.f32 (sm_75+): at most 2^-10.7 relative error, for a tanh whose result only reaches bfloat16
// outputs (lowering/precision.py); one MUFU instruction where tanhf takes about twenty.
__device__ __forceinline__ float tanhApprox(float x) {
  float r;
  asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
