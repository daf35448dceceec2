// setmaxnreg.cuh: warpgroup register reallocation (sm_90a). ptxas honours it only when the kernel
// has a register cap at entry, which codegen gives with __launch_bounds__(threads, 1).
template <int N>
__device__ __forceinline__ void increaseRegisters() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

template <int N>
__device__ __forceinline__ void decreaseRegisters() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
