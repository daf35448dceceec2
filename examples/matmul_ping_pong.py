"""Seed 000's kernel from a schedule, ping-pong: two compute warp groups take turns on tiles.

``schedule_matmul(fusion, MatmulParams(warp_specialized=True, persistent=True, ping_pong=True,
tma_store=True))``: the block's tiles are dealt to its two compute warp groups in turn (tile axes
``[T / blocks / 2, 2 (TIDy), blocks (BIDx)]``), each holding a whole 128 x 128 tile (two
``wgmma.m64n128k16`` per k step). The producer warp group walks the same tiles, one turn after
the other, through one pipeline, so group w's tile j uses the iterations
``((j * 2 + w) * k_tiles + k)``, and each stage is read (and released) by one group. Ordering
mbarriers keep the turns: a group waits for its mainloop turn, hands it to the other group when it
has issued its last wgmma, retires its groups, waits for its epilogue turn, stages its tile in the
one staging tile the groups take turns on (stmatrix, fence.proxy.async, a named barrier of its own
warp group), TMA-stores it, waits for the store's reads and hands the epilogue turn on; so one group's epilogue runs while the other's mainloop keeps the tensor cores
busy (nvFuser's HopperPingPongMbarriers, CUTLASS's ping-pong kernel).
"""

from examples import matmul_ws_persistent
from fusion_ir import Fusion

DESCRIPTION = "seed 000 ping-pong: 2 compute warp groups take turns on 128x128 tiles, ordered by mbarriers"
SIZES = matmul_ws_persistent.SIZES
TOLERANCE = matmul_ws_persistent.TOLERANCE
BLOCKS = matmul_ws_persistent.BLOCKS


def build(blocks: int = BLOCKS, tile: tuple[int, int, int] = (128, 128, 64), stages: int = 4,
          group_m: int = 2, tma_store: bool = True, store_wait: str = "after_boxes") -> Fusion:
    """``matmul_ws_persistent``'s fusion and schedule with ``ping_pong=True`` (a whole tile per warp group)."""
    return matmul_ws_persistent.build(blocks, tile, stages, group_m, tma_store, ping_pong=True, store_wait=store_wait)
