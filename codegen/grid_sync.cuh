// grid_sync.cuh: a grid reduction's ordering between blocks (lowering/grid_reduction.py).
// gridFence: this thread's earlier global writes (its partials) are ordered, at GPU scope, before what it
// does next; the block barrier after it and thread 0's release-add then publish the block's partials.
__device__ __forceinline__ void gridFence() {
  asm volatile("fence.acq_rel.gpu;\n" ::: "memory");
}

// semaphoreArrive: thread 0 adds 1 to the block's semaphore with acquire-release semantics at GPU scope
// (its release publishes the fenced partials of this block; its acquire makes the other blocks' visible);
// the barrier-reduction then tells every thread of the block whether that add found arrivals - 1.
__device__ __forceinline__ int semaphoreArrive(int* semaphore, int arrivals, bool first_thread) {
  int last = 0;
  if (first_thread) {
    int old;
    asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], 1;\n" : "=r"(old) : "l"(semaphore) : "memory");
    last = old == arrivals - 1;
  }
  return __syncthreads_or(last);
}

// semaphoreArriveNamed: semaphoreArrive inside a warp-split branch (a warp-specialized kernel's compute warp groups,
// thread 0 of the block among them): the barrier-reduction is bar.red.or on named barrier `id` over the branch's
// `threads` threads.
__device__ __forceinline__ int semaphoreArriveNamed(int* semaphore, int arrivals, bool first_thread, int id,
                                                    int threads) {
  int last = 0;
  if (first_thread) {
    int old;
    asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], 1;\n" : "=r"(old) : "l"(semaphore) : "memory");
    last = old == arrivals - 1;
  }
  int any;
  asm volatile("{\n .reg .pred p, q;\n setp.ne.s32 p, %1, 0;\n bar.red.or.pred q, %2, %3, p;\n selp.s32 %0, 1, 0, q;\n}\n"
               : "=r"(any) : "r"(last), "r"(id), "r"(threads) : "memory");
  return any;
}
