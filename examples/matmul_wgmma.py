"""A bf16 matmul on Hopper tensor cores: TMA-loaded, 128-byte-swizzled operand tiles in a
circular buffer, one ``wgmma.m64nNk16`` per warp group and k16 step, fp32 accumulators in
registers, and an epilogue that stores each thread's accumulator fragment.

``schedule_matmul`` does the scheduling (``docs/matmul.md`` walks through the loop nest it makes).
``build(out_dtype=DataType.BFloat16)`` casts the accumulators in the epilogue;
``build(epilogue=True)`` fuses ``cast(relu(a @ b + bias), bf16)`` into the same kernel: the bias
is read per column by the threads that hold the fragment.
"""

from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul

DESCRIPTION = "bf16 [M, K] @ [K, N] -> fp32 on wgmma: TMA + B128 swizzle, 4 stages, 2 warp groups, 128 x 256 tiles"
SIZES = [[(128, 128), (128, 128)], [(200, 200), (200, 264)], [(256, 192), (192, 512)]]


def build(tile: tuple[int, int, int] = (128, 256, 64), stages: int = 4, compute_warp_groups: int = 2,
          dtype: DataType = DataType.BFloat16, epilogue: bool = False, out_dtype: DataType | None = None,
          **params: object) -> Fusion:
    """``params``: the other ``MatmulParams`` fields (``warp_specialized``, ``persistent``, ``blocks``, ...)."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=dtype)
        b = fusion.add_input(ndim=2, dtype=dtype)
        c = ops.matmul(a, b)
        if epilogue:
            bias = fusion.add_input(ndim=1, dtype=DataType.Float)
            c = ops.cast(ops.relu(ops.add(c, ops.broadcast(bias, [True, False]))), dtype)
        elif out_dtype is not None:
            c = ops.cast(c, out_dtype)
        fusion.add_output(c)
    schedule_matmul(fusion, MatmulParams(tile=tile, stages=stages, compute_warp_groups=compute_warp_groups,
                                         **params))  # type: ignore[arg-type]
    return fusion
