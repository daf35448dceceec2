// mbarrier.cuh: shared-memory mbarrier operations (PTX ISA 8.0, sm_90), addressed by toSmem().
// With MBARRIER_WATCHDOG_NS defined (the executor does by default), a wait that spins longer than
// that many nanoseconds traps, turning a pipeline deadlock into a launch error instead of a hang.
namespace mbarrier {

__device__ __forceinline__ uint64_t globalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ void init(uint32_t mbar, uint32_t arrival_count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(mbar), "r"(arrival_count) : "memory");
}

__device__ __forceinline__ void inval(uint32_t mbar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(mbar) : "memory");
}

__device__ __forceinline__ uint64_t arrive(uint32_t mbar) {
  uint64_t state;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];\n" : "=l"(state) : "r"(mbar) : "memory");
  return state;
}

// Arrive once and add tx_bytes to the transaction count the current phase waits for.
__device__ __forceinline__ uint64_t arriveExpectTx(uint32_t mbar, uint32_t tx_bytes) {
  uint64_t state;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;\n"
               : "=l"(state)
               : "r"(mbar), "r"(tx_bytes)
               : "memory");
  return state;
}

__device__ __forceinline__ bool tryWait(uint32_t mbar, uint64_t state) {
  uint32_t done;
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  mbarrier.try_wait.shared::cta.b64 p, [%1], %2;\n"
      "  selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(mbar), "l"(state)
      : "memory");
  return done != 0;
}

__device__ __forceinline__ bool tryWaitParity(uint32_t mbar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "  selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(mbar), "r"(parity)
      : "memory");
  return done != 0;
}

// Wait until the phase recorded in `state` (a token from arrive/arriveExpectTx) has completed.
__device__ __forceinline__ void wait(uint32_t mbar, uint64_t state) {
#ifdef MBARRIER_WATCHDOG_NS
  const uint64_t start = globalTimerNs();
  while (!tryWait(mbar, state)) {
    if (globalTimerNs() - start > MBARRIER_WATCHDOG_NS) {
      asm volatile("trap;");
    }
  }
#else
  while (!tryWait(mbar, state)) {
  }
#endif
}

// Wait until the phase with the given parity has completed (parity = (use / stages) % 2).
__device__ __forceinline__ void waitParity(uint32_t mbar, uint32_t parity) {
#ifdef MBARRIER_WATCHDOG_NS
  const uint64_t start = globalTimerNs();
  while (!tryWaitParity(mbar, parity)) {
    if (globalTimerNs() - start > MBARRIER_WATCHDOG_NS) {
      asm volatile("trap;");
    }
  }
#else
  while (!tryWaitParity(mbar, parity)) {
  }
#endif
}

}  // namespace mbarrier
