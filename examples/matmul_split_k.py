"""A split-K bf16 matmul on Hopper tensor cores: few output tiles and a long K. Each output tile gets
``split_k`` blocks along ``blockIdx.z``, each running the wgmma mainloop of ``examples/matmul_wgmma.py``
over one range of the K tiles into its own fp32 accumulators; the last of them to finish sums the
partial tiles in split order (a deterministic grid reduction) and alone runs the epilogue
(``docs/matmul.md``, "Split-K").
"""

from fusion_ir import DataType, Fusion

from . import matmul_wgmma

DESCRIPTION = "bf16 matmul, K split over blockIdx.z, partial tiles summed in order by the last block"
SIZES = [[(200, 1000), (1000, 264)], [(128, 4096), (4096, 128)]]


def build(split_k: int = 3, tile: tuple[int, int, int] = (128, 128, 64), stages: int = 3,
          compute_warp_groups: int = 1, dtype: DataType = DataType.BFloat16, **params: object) -> Fusion:
    """``params``: the other ``MatmulParams`` fields and ``matmul_wgmma.build``'s options (``epilogue``,
    ``out_dtype``, ``transpose_a``, ...)."""
    return matmul_wgmma.build(tile=tile, stages=stages, compute_warp_groups=compute_warp_groups, dtype=dtype,
                              split_k=split_k, **params)
