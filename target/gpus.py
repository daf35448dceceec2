"""The targets the project knows: sm_90 GPUs. A new GPU of the same architecture is one
``dataclasses.replace`` of ``H100``; a new architecture is one new ``Target``."""

from __future__ import annotations

from dataclasses import replace

from .model import Target, Tma, Wgmma

H100 = Target(
    name="H100 SXM",
    compute_capability=(9, 0),
    arch="sm_90a",
    sm_count=132,
    smem_per_block=227 * 1024,           # the opt-in limit: 232,448 bytes
    smem_per_block_default=48 * 1024,
    smem_per_sm=228 * 1024,
    registers_per_sm=64 * 1024,
    registers_per_block=64 * 1024,
    max_registers_per_thread=255,
    setmaxnreg_range=(24, 256),
    setmaxnreg_step=8,
    max_threads_per_block=1024,
    max_threads_per_sm=2048,
    max_grid=(2**31 - 1, 65535, 65535),
    warp_size=32,
    warp_group_size=128,
    named_barriers=16,
    max_cluster_size=8,
    max_cluster_size_non_portable=16,
    # ncu's "Max Active Clusters" on an H100 SXM (132 SMs), 2026-11-26: clusters of 4 and 8 leave 12 SMs idle
    cluster_residency=((2, 66), (4, 30), (8, 15)),
    wgmma=Wgmma(m=64, n_step=8, max_n=256, k_bytes=32, operand_types=("BFloat16", "Half"),
                accumulator_type="Float", descriptor_offset_limit=1 << 18),
    tma=Tma(max_rank=5, max_box=256, alignment=16, smem_alignment=128, swizzle_spans=(32, 64, 128),
            max_element_stride=8, max_global_extent=2**32, max_global_stride=2**40),
)

H200 = replace(H100, name="H200 SXM")                  # sm_90 as the H100, with more (and faster) HBM
H100_PCIE = replace(H100, name="H100 PCIe", sm_count=114, cluster_residency=())   # not read on one
