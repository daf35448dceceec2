"""A warp-specialized bf16 matmul in thread-block clusters of two blocks that share an operand by TMA multicast.

``schedule_matmul(fusion, MatmulParams(warp_specialized=True, cluster=(2, 1)))``: the kernel is launched with
``__cluster_dims__(1, 2, 1)``, two blocks of adjacent tile rows (blockIdx.y 2c and 2c + 1) per cluster. Both need
the same tile of B each k step: each block's producer loads half of it (its cluster rank's half of every box)
with ``cp.async.bulk.tensor...multicast::cluster``, which writes it into the shared memory of both blocks, so B
is read from L2 once per cluster instead of once per block. A block's "full" barrier expects the whole stage
(its A tile and all of B's), its "empty" barrier counts the readers of both blocks, which release a stage with
a local and a remote arrive (``mapa`` + ``mbarrier.arrive.release.cluster``); cluster barriers follow the
barriers' init (after ``fence.mbarrier_init``) and precede their inval, so no block multicasts into or arrives on
a peer's barrier before it exists or after it is gone. ``cluster=(1, 2)``: two blocks of adjacent tile columns
share A. The grid is rounded up to whole clusters; the extra block's tiles are out of bounds (TMA zero-fills
them, its stores are predicated off). ``docs/matmul.md``, "Clusters and multicast".

``persistent=True``: ``blocks`` resident blocks in clusters of two walk *cluster tiles*, pairs of adjacent tiles
that share the multicast operand's tile: blockIdx.x is the cluster, which walks the cluster tiles in grouped
order (the same ones in both blocks, so both run the same persistent iterations), and blockIdx.y (0 or 1) the
block's rank, which takes its tile of each pair (``__cluster_dims__(1, 2, 1)``, a grid of ``(blocks / 2, 2)``). A
pair whose second tile is past the matrix still runs in both blocks: the second block loads its half of the shared
tile for its peer, its own operand zero-filled by TMA, and its stores are clipped or predicated off.
"""

from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul

DESCRIPTION = "bf16 matmul in clusters of 2 blocks along M: B's tile TMA-multicast, warp-specialized, 128 x 256 tiles"
SIZES = [[(200, 136), (136, 264)], [(392, 200), (200, 256)], [(128, 64), (64, 520)]]   # 1, 3 (odd) and 1 tile rows


def build(cluster: tuple[int, int] = (2, 1), tile: tuple[int, int, int] = (128, 256, 64), stages: int = 4,
          compute_warp_groups: int = 2, tma_store: bool = False, persistent: bool = False,
          blocks: int | None = None, group_m: int = 8) -> Fusion:
    """``tma_store``: a bf16 result staged in shared memory and TMA-stored (else an fp32 result); ``persistent``:
    ``blocks`` resident blocks (default: the target's SMs) walk the cluster tiles, ``group_m`` tile rows per column
    of B."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        c = ops.matmul(a, b)
        fusion.add_output(ops.cast(c, DataType.BFloat16) if tma_store else c)
    persistence = {"persistent": True, "group_m": group_m} if persistent else {}
    if persistent and blocks is not None:
        persistence["blocks"] = blocks
    schedule_matmul(fusion, MatmulParams(tile=tile, stages=stages, compute_warp_groups=compute_warp_groups,
                                         warp_specialized=True, tma_store=tma_store, cluster=cluster,
                                         **persistence))  # type: ignore[arg-type]
    return fusion
