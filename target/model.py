"""What a GPU target is: the frozen description every layer reads its hardware facts from.

A ``Target`` holds the numbers the compiler must respect or encode (shared memory, registers,
threads, the wgmma instruction shapes, the TMA box rules, cluster sizes) and nothing of the
project: operand types are named by their ``fusion_ir.DataType`` member names, so this module
sits below every layer and imports none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Wgmma:
    """The warp-group MMA (``wgmma.mma_async``): one warp group computes an ``m x n x k`` tile."""

    m: int                              # rows of one instruction (one warp group's 4 warps x 16)
    n_step: int                         # N is a multiple of this ...
    max_n: int                          # ... up to this
    k_bytes: int                        # K of one instruction, in bytes of operand (K = k_bytes / element size)
    operand_types: tuple[str, ...]      # ``DataType`` names of the A and B operands it multiplies
    accumulator_type: str               # ``DataType`` name of its accumulators
    descriptor_offset_limit: int        # leading/stride byte offsets: 14-bit fields in 16-byte units

    def k_for(self, element_bytes: int) -> int:
        """K of one instruction on operands of ``element_bytes`` bytes."""
        return self.k_bytes // element_bytes

    def valid_n(self, n: int) -> bool:
        return n % self.n_step == 0 and self.n_step <= n <= self.max_n

    def n_values(self) -> tuple[int, ...]:
        return tuple(range(self.n_step, self.max_n + 1, self.n_step))


@dataclass(frozen=True)
class Tma:
    """The tensor memory accelerator (``cp.async.bulk.tensor``, ``cuTensorMapEncodeTiled``)."""

    max_rank: int                       # dimensions of a tensor map
    max_box: int                        # the largest extent of a box dimension
    alignment: int                      # bytes: a box row, every global stride and the base address are multiples
    smem_alignment: int                 # bytes: a box's start in shared memory (more when swizzled)
    swizzle_spans: tuple[int, ...]      # bytes of one swizzled row, per swizzle mode (32 B, 64 B, 128 B)
    max_element_stride: int             # the traversal stride of a box dimension is in [1, this]
    max_global_extent: int              # extent of a global dimension, at most
    max_global_stride: int              # bytes of a global stride, less than


@dataclass(frozen=True)
class Target:
    """One GPU: its name, architecture and the limits and instruction shapes the compiler uses."""

    name: str
    compute_capability: tuple[int, int]
    arch: str                           # NVRTC's and nvcc's real architecture (the "a" enables wgmma, setmaxnreg)
    sm_count: int                       # resident persistent blocks; the runtime asks the device (with_sm_count)
    smem_per_block: int                 # bytes of shared memory a block may opt in to
    smem_per_block_default: int         # bytes of dynamic shared memory a block gets without opting in
    smem_per_sm: int
    registers_per_sm: int               # 32-bit registers
    registers_per_block: int
    max_registers_per_thread: int
    setmaxnreg_range: tuple[int, int]   # setmaxnreg's register counts: in this range ...
    setmaxnreg_step: int                # ... and multiples of this
    max_threads_per_block: int
    max_threads_per_sm: int             # resident threads of one SM (occupancy's limit)
    max_grid: tuple[int, int, int]
    warp_size: int
    warp_group_size: int                # threads of a warp group: the unit of wgmma and setmaxnreg
    named_barriers: int                 # bar.sync ids 0 .. named_barriers - 1; id 0 is __syncthreads
    max_cluster_size: int               # blocks of a cluster, portable
    max_cluster_size_non_portable: int  # with cudaFuncAttributeNonPortableClusterSizeAllowed
    wgmma: Wgmma
    tma: Tma
    l2_bytes: int = 50 * 1024 * 1024    # the L2 cache: an operand much larger streams from DRAM
    dram_bytes_per_s: float = 3.35e12   # DRAM bandwidth (HBM3 of an H100 SXM)
    mma_flops_per_s: float = 989e12     # dense 16-bit tensor-core peak (wgmma, bf16 / fp16 into fp32)
    fp32_lanes: int = 128               # FP32 results per cycle per SM (add, mul, fma, min, max)
    special_function_lanes: int = 16    # results per cycle per SM of the special function unit (tanh, exp, rcp, ...)
    # (cluster size, clusters resident at once) for a kernel of one block per SM: a cluster's blocks run on one GPC,
    # so a GPC whose SM count the size does not divide leaves SMs idle (cuOccupancyMaxActiveClusters); a size not
    # listed is assumed to fill the SMs (sm_count // size)
    cluster_residency: tuple[tuple[int, int], ...] = ()

    @property
    def special_function_weight(self) -> int:
        """A special function's cost in FP32 ops: how many FP32 results an SM makes while its special function unit
        makes one (8 on an H100)."""
        return self.fp32_lanes // self.special_function_lanes

    @property
    def dram_bytes_per_flop(self) -> float:
        """The machine balance: DRAM bytes per tensor-core flop at peak; a kernel that streams more from DRAM per
        flop than this waits on memory."""
        return self.dram_bytes_per_s / self.mma_flops_per_s

    @property
    def virtual_arch(self) -> str:
        """The PTX architecture of ``arch`` (``compute_90a`` for ``sm_90a``)."""
        return self.arch.replace("sm_", "compute_", 1)

    @property
    def warps_per_group(self) -> int:
        return self.warp_group_size // self.warp_size

    @property
    def max_named_barrier(self) -> int:
        """The largest ``bar.sync`` id a branch may use (id 0 is ``__syncthreads``)."""
        return self.named_barriers - 1

    def with_sm_count(self, sm_count: int) -> Target:
        """This target with the SM count of the device at hand (``runtime.device_target()``); another count than
        the target's drops its ``cluster_residency``, which was read on a device of the target's count."""
        if isinstance(sm_count, bool) or not isinstance(sm_count, int) or sm_count < 1:
            raise ValueError(f"Target.with_sm_count: {sm_count!r} must be a positive int (the device's SM count)")
        if sm_count == self.sm_count:
            return self
        return replace(self, sm_count=sm_count, cluster_residency=())

    def cluster_blocks(self, size: int) -> int:
        """Blocks of a one-block-per-SM kernel resident at once in clusters of ``size`` (a wave): the SM count for
        no cluster, ``cluster_residency``'s clusters x ``size`` where it lists the size, else whole clusters of
        the SMs."""
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"Target.cluster_blocks: {size!r} must be a positive int (blocks of a cluster)")
        if size == 1:
            return self.sm_count
        listed = dict(self.cluster_residency)
        return listed[size] * size if size in listed else self.sm_count // size * size
