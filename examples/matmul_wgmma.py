"""A bf16 matmul on Hopper tensor cores: TMA-loaded, 128-byte-swizzled operand tiles in a
circular buffer, one ``wgmma.m64nNk16`` per warp group and k16 step, fp32 accumulators in
registers, and an epilogue that stores each thread's accumulator fragment.

``schedule_matmul`` does the scheduling (``docs/matmul.md`` walks through the loop nest it makes).
``build(out_dtype=DataType.BFloat16)`` casts the accumulators in the epilogue;
``build(epilogue=True)`` fuses ``cast(relu(a @ b + bias), bf16)`` into the same kernel: the bias
is read per column by the threads that hold the fragment. ``build(transpose_b=True)`` takes b as
``[N, K]`` (nn.Linear's weight) and multiplies by ``ops.transpose(b, 0, 1)``, ``transpose_a=True`` a
as ``[K, M]``: TMA loads each input in place, in its own major order (``docs/matmul.md``, "Operand
layouts"). ``build(batch=True)`` multiplies ``[B, M, K] @ [B, K, N]``: the batch on ``blockIdx.z``, or merged into
the persistent tile index (``docs/matmul.md``, "Batched operands"). ``build(shape=(200, 264, 100))`` fixes the
sizes: A's rows of K = 100 are 200 bytes, which TMA cannot copy, so the compute warp groups load A with 8-byte
cp.async into the same swizzled tile (``docs/matmul.md``, "Any K and any row stride").
"""

from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul

DESCRIPTION = "bf16 [M, K] @ [K, N] -> fp32 on wgmma: TMA + B128 swizzle, 4 stages, 2 warp groups, 128 x 256 tiles"
SIZES = [[(128, 128), (128, 128)], [(200, 200), (200, 264)], [(256, 192), (192, 512)]]


def input_shapes(m: int, n: int, k: int, transpose_a: bool = False, transpose_b: bool = False,
                 epilogue: bool = False, batch: int | None = None) -> list[tuple[int, ...]]:
    """The shapes of ``build(transpose_a=..., transpose_b=..., epilogue=..., batch=...)``'s inputs for
    ``m x n x k`` (``batch``: the extent of the batch axis of ``build(batch=True)``)."""
    lead = () if batch is None else (batch,)
    shapes: list[tuple[int, ...]] = [lead + ((k, m) if transpose_a else (m, k)),
                                     lead + ((n, k) if transpose_b else (k, n))]
    return shapes + [(n,)] if epilogue else shapes


def build(tile: tuple[int, int, int] = (128, 256, 64), stages: int = 4, compute_warp_groups: int = 2,
          dtype: DataType = DataType.BFloat16, epilogue: bool = False, out_dtype: DataType | None = None,
          transpose_a: bool = False, transpose_b: bool = False, batch: bool = False,
          shape: tuple[int, int, int] | None = None, **params: object) -> Fusion:
    """``params``: the other ``MatmulParams`` fields (``warp_specialized``, ``persistent``, ``blocks``, ...);
    ``transpose_a``: a is given ``[K, M]``; ``transpose_b``: b is given ``[N, K]``; ``batch``: both lead with
    a batch axis; ``shape``: constant ``(M, N, K)`` instead of symbolic extents (rows that are not 16-byte
    multiples, K = 100 say, are then loaded by cp.async or plain copies: docs/matmul.md, "Any K and any row
    stride")."""
    fusion = Fusion()
    nd = 3 if batch else 2
    shapes = None if shape is None else input_shapes(*shape, transpose_a=transpose_a, transpose_b=transpose_b)
    with fusion:
        if shapes is None:
            a = fusion.add_input(ndim=nd, dtype=dtype)
            b = fusion.add_input(ndim=nd, dtype=dtype)
        else:
            if batch:
                raise ValueError("build: shape= gives 2-D operands; it does not combine with batch=True")
            a = fusion.add_input(shape=shapes[0], dtype=dtype)
            b = fusion.add_input(shape=shapes[1], dtype=dtype)
        c = ops.matmul(ops.transpose(a, nd - 2, nd - 1) if transpose_a else a,
                       ops.transpose(b, nd - 2, nd - 1) if transpose_b else b)
        if epilogue:
            bias = fusion.add_input(ndim=1, dtype=DataType.Float)
            c = ops.cast(ops.relu(ops.add(c, ops.broadcast(bias, [True] * (nd - 1) + [False]))), dtype)
        elif out_dtype is not None:
            c = ops.cast(c, out_dtype)
        fusion.add_output(c)
    schedule_matmul(fusion, MatmulParams(tile=tile, stages=stages, compute_warp_groups=compute_warp_groups,
                                         **params))  # type: ignore[arg-type]
    return fusion
