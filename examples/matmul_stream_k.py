"""A stream-K bf16 matmul on Hopper tensor cores: a fixed grid of ``blocks`` blocks (the SM count on a GPU) each
takes a contiguous, nearly equal range of the flattened (output tile x K tile) iterations and walks it as
segments, one tile's K range each, running the Pipelined wgmma mainloop of ``examples/matmul_wgmma.py`` per
segment. A segment that covers its tile's whole K runs the epilogue; the segments of a tile split between blocks
write their fp32 partial tiles to a work buffer and arrive on the tile's semaphore, and the last to arrive sums
them in block order (deterministic) and runs the epilogue (``docs/matmul.md``, "Stream-K").
"""

from fusion_ir import DataType, Fusion

from . import matmul_wgmma

DESCRIPTION = "bf16 matmul, stream-K over a fixed grid: split tiles' partials summed in order by the last block"
SIZES = [[(200, 512), (512, 264)], [(130, 320), (320, 136)]]   # 6 tiles x 8 K tiles, 4 x 5: ranges split tiles


def build(blocks: int = 5, tile: tuple[int, int, int] = (128, 128, 64), stages: int = 3,
          compute_warp_groups: int = 1, dtype: DataType = DataType.BFloat16, **params: object) -> Fusion:
    """``blocks``: the grid (a small one here, so that the simulator's ranges split tiles; ``runtime.sm_count()``
    on a GPU); ``params``: the other ``MatmulParams`` fields and ``matmul_wgmma.build``'s options (``epilogue``,
    ``out_dtype``, ``shape``, ...)."""
    return matmul_wgmma.build(tile=tile, stages=stages, compute_warp_groups=compute_warp_groups, dtype=dtype,
                              stream_k=True, blocks=blocks, **params)
