"""Seed 000's kernel from a schedule, ping-pong: two compute warp groups take turns on tiles.

``schedule_matmul(fusion, MatmulParams(warp_specialized=True, persistent=True, ping_pong=True,
tma_store=True))``: the block's tiles are dealt to its two compute warp groups in turn (tile axes
``[T / blocks / 2, 2 (TIDy), blocks (BIDx)]``), each holding a whole 128 x 128 tile (two
``wgmma.m64n128k16`` per k step). The producer warp group walks the same tiles, one turn after
the other, through one pipeline, so group w's tile j uses the iterations
``((j * 2 + w) * k_tiles + k)``, and each stage is read (and released) by one group. Ordering
mbarriers keep the turns: a group waits for its mainloop turn, hands it to the other group when it
has issued its last wgmma, retires its groups, waits for its epilogue turn, stages its own tile
(stmatrix, fence.proxy.async, a named barrier of its own warp group), TMA-stores it and hands the
epilogue turn on; so one group's epilogue runs while the other's mainloop keeps the tensor cores
busy (nvFuser's HopperPingPongMbarriers, CUTLASS's ping-pong kernel).
"""

from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul

DESCRIPTION = "seed 000 ping-pong: 2 compute warp groups take turns on 128x128 tiles, ordered by mbarriers"
SIZES = [[(256, 192), (192, 512)], [(200, 200), (200, 264)], [(384, 512), (512, 256)]]
TOLERANCE = 1e-2    # a bf16 result: the float64 reference is not rounded
BLOCKS = 3      # small for the simulator; on a GPU use runtime.sm_count() (132 on an H100)


def build(blocks: int = BLOCKS, tile: tuple[int, int, int] = (128, 128, 64), stages: int = 4,
          group_m: int = 2, tma_store: bool = True) -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.matmul(a, b), DataType.BFloat16))
    schedule_matmul(fusion, MatmulParams(tile=tile, stages=stages, compute_warp_groups=2, warp_specialized=True,
                                         persistent=True, ping_pong=True, blocks=blocks, group_m=group_m,
                                         tma_store=tma_store))
    return fusion
