"""Seed 000's kernel from a schedule, cooperative: persistent, warp-specialized, bf16 on wgmma.

``schedule_matmul(fusion, MatmulParams(warp_specialized=True, persistent=True, tma_store=True))``: a
producer warp group (``setmaxnreg.dec 40``) walks this block's output tiles and, inside, their k
tiles, and its elected thread waits for an empty stage, arrives expecting the stage's bytes and
issues the TMA loads of A and B; two compute warp groups (``setmaxnreg.inc 232``) share each
128 x 256 tile (64 rows each): they arrive on every empty stage, then per tile zero their
accumulators, per k tile wait for a full stage, issue four ``wgmma.m64n256k16``, commit, wait for
the previous group and release its stage; after the k loop they retire the last group, release its
stage, convert to bf16, ``stmatrix`` the tile into a swizzled shared tile, ``fence.proxy.async``,
synchronize and TMA-store it (commit; one wait for all the boxes, or, with ``store_wait="deferred"``,
before the next tile is staged). One pipeline runs across the tile and k loops; tiles
go in grouped order over the blocks. Index arithmetic is 32-bit (``index_type=DataType.Int32``:
tensors under 2**31 elements, checked at launch), which keeps the k loop's stage and phase
arithmetic off 64-bit multiplies and divisions. ``matmul_ping_pong`` is the other arrangement of the two
compute warp groups.
"""

from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul

DESCRIPTION = "seed 000 cooperative: persistent warp-specialized bf16 matmul, 2 warp groups per tile, TMA store"
SIZES = [[(256, 192), (192, 512)], [(200, 200), (200, 264)], [(384, 512), (512, 256)]]
TOLERANCE = 1e-2    # a bf16 result: the float64 reference is not rounded
BLOCKS = 3      # small for the simulator; on a GPU use runtime.sm_count() (132 on an H100)


def build(blocks: int = BLOCKS, tile: tuple[int, int, int] = (128, 256, 64), stages: int = 3,
          group_m: int = 2, tma_store: bool = True, ping_pong: bool = False,
          index_type: DataType = DataType.Int32, store_wait: str = "after_boxes") -> Fusion:
    """The fusion, scheduled; ``store_wait="deferred"`` waits for a tile's TMA stores only when the next
    tile is about to be staged (``TensorView.set_store_wait``)."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.matmul(a, b), DataType.BFloat16))
    schedule_matmul(fusion, MatmulParams(tile=tile, stages=stages, compute_warp_groups=2, warp_specialized=True,
                                         persistent=True, ping_pong=ping_pong, blocks=blocks, group_m=group_m,
                                         tma_store=tma_store, index_type=index_type, store_wait=store_wait))
    return fusion
