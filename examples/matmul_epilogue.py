"""Seed 000's cooperative kernel with a fused epilogue: pointwise ops after the matmul, computed from
the accumulator registers before the stmatrix and TMA store.

``build(kind)`` makes one of four fusions and schedules it with ``schedule_matmul`` (the same
``MatmulParams`` as ``matmul_ws_persistent``):

- ``"bias_relu"``: ``bf16(relu(a @ b + bias))``, a float bias broadcast along the rows; each thread
  reads the bias of the columns its accumulator fragment holds;
- ``"bias_gelu"``: ``bf16(gelu(a @ b + bias))`` (``ops.gelu``, the tanh form);
- ``"alpha_beta"``: ``bf16(alpha * (a @ b) + beta * C)`` with C a bf16 ``[M, N]`` input and alpha, beta float
  scalar inputs (``fusion.add_scalar_input``: kernel parameters by value, given at each launch after C;
  ``ALPHA`` and ``BETA`` are the values ``make_inputs`` passes by default): the compute
  warp groups TMA-load C's tile into shared memory at the start of each output tile (one elected
  thread, a token mbarrier) and read it in the fragment layout in the epilogue; the depth is
  ``stages="auto"``: 3 stages of 128 x 256 x 64 beside the staging tile, 2 beside it and C's tile;
- ``"residual"``: ``bf16(a @ b + C)``, a residual connection: C as above, no scalars;
- ``"bias_gelu_pre"`` (not in ``KINDS``: two outputs): ``bf16(a @ b + bias)`` and ``bf16(gelu(a @ b + bias))``,
  the pre-activation a training forward pass keeps beside the activation; with the TMA store each output has a
  staging tile (ring) of its own.

``fusion_of(kind, (m, n, k))`` is the same fusion unscheduled, of constant sizes, for ``schedule_matmul`` to
suggest its parameters (``bench/matmul.py --epilogues-only``); ``epilogue_tile=(128, 64)`` makes any of them
walk its tile in sub-tiles through a ring of staging tiles (``docs/matmul.md``, "Sub-tiled epilogues").

No intermediate goes back to global memory: the kernel writes the bf16 result once.
"""

from typing import Any

from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul
from runtime.inputs import random_inputs

DESCRIPTION = ("seed 000 cooperative + fused epilogue: relu/gelu(a @ b + bias), alpha * a @ b + beta * C or "
               "a @ b + C (C by TMA)")
KINDS = ("bias_relu", "bias_gelu", "alpha_beta", "residual")
C_KINDS = ("alpha_beta", "residual")      # the kinds that read an [M, N] C
TWO_OUTPUTS = ("bias_gelu_pre",)           # kinds of two outputs: the pre-activation and the activation
SIZES = [[(256, 192), (192, 512), (512,)], [(200, 200), (200, 264), (264,)], [(384, 512), (512, 256), (256,)]]
TOLERANCE = 1e-2    # a bf16 result: the float64 reference is not rounded
BLOCKS = 3          # small for the simulator; on a GPU use runtime.sm_count() (132 on an H100)
ALPHA, BETA = 2.0, 0.5


def input_shapes(kind: str, m: int, n: int, k: int) -> list[tuple[int, ...]]:
    """The shapes of ``build(kind)``'s inputs for an ``m x n x k`` matmul (``()`` for alpha and beta)."""
    if kind == "alpha_beta":
        return [(m, k), (k, n), (m, n), (), ()]
    if kind == "residual":
        return [(m, k), (k, n), (m, n)]
    return [(m, k), (k, n), (n,)]


def make_inputs(fusion: Fusion, kind: str, m: int, n: int, k: int, seed: int, alpha: float = ALPHA,
                beta: float = BETA) -> list[Any]:
    """Random a, b and bias or C for ``build(kind)`` at ``m x n x k`` (``runtime.inputs.random_inputs``), then
    ``alpha`` and ``beta`` for the ``alpha_beta`` kind."""
    inputs = random_inputs(fusion, input_shapes(kind, m, n, k), seed)
    if kind == "alpha_beta":
        inputs[3:] = [alpha, beta]
    return inputs


def epilogue(kind: str, acc, extra, alpha: Any = ALPHA, beta: Any = BETA):
    """The fused ops on the fp32 accumulator ``acc``; ``extra`` is the bias (float ``[N]``) or C (bf16 ``[M, N]``);
    ``alpha`` and ``beta`` (``alpha_beta``) are scalar inputs or numbers."""
    if kind == "alpha_beta":
        return ops.add(ops.mul(acc, alpha), ops.mul(ops.cast(extra, DataType.Float), beta))
    if kind == "residual":
        return ops.add(acc, ops.cast(extra, DataType.Float))
    biased = ops.add(acc, ops.broadcast(extra, [True, False]))
    if kind == "bias_relu":
        return ops.relu(biased)
    if kind == "bias_gelu":
        return ops.gelu(biased)
    raise ValueError(f"matmul_epilogue: kind {kind!r} is not one of {', '.join(KINDS)}")


def fusion_of(kind: str, shape: tuple[int, int, int] | None = None) -> Fusion:
    """The unscheduled fusion of ``kind``: of symbolic sizes, or of the constant ``shape`` (M, N, K)."""
    if kind not in KINDS + TWO_OUTPUTS:
        raise ValueError(f"matmul_epilogue: kind {kind!r} is not one of {', '.join(KINDS + TWO_OUTPUTS)}")
    fusion = Fusion()
    with fusion:
        def tensor(dims: tuple[int, ...], dtype: DataType):
            if shape is None:
                return fusion.add_input(ndim=len(dims), dtype=dtype)
            return fusion.add_input(shape=dims, dtype=dtype)

        m, n, k = shape if shape is not None else (0, 0, 0)
        a = tensor((m, k), DataType.BFloat16)
        b = tensor((k, n), DataType.BFloat16)
        scalars = []
        if kind in C_KINDS:
            extra = tensor((m, n), DataType.BFloat16)
            if kind == "alpha_beta":
                scalars = [fusion.add_scalar_input(DataType.Float), fusion.add_scalar_input(DataType.Float)]
        else:
            extra = tensor((n,), DataType.Float)
        if kind in TWO_OUTPUTS:
            pre = ops.add(ops.matmul(a, b), ops.broadcast(extra, [True, False]))
            fusion.add_output(ops.cast(pre, DataType.BFloat16))
            fusion.add_output(ops.cast(ops.gelu(pre), DataType.BFloat16))
            return fusion
        fusion.add_output(ops.cast(epilogue(kind, ops.matmul(a, b), extra, *scalars), DataType.BFloat16))
    return fusion


def build(kind: str = "bias_relu", blocks: int = BLOCKS, tile: tuple[int, int, int] = (128, 256, 64),
          stages: int | str = "auto", group_m: int = 2, index_type: DataType = DataType.Int32, **params: object) -> Fusion:
    """``params``: other ``MatmulParams`` fields (``tma_store=False`` keeps the register-store epilogue)."""
    fusion = fusion_of(kind)
    fields = dict(tile=tile, stages=stages, compute_warp_groups=2, warp_specialized=True, persistent=True,
                  blocks=blocks, group_m=group_m, tma_store=True, index_type=index_type)
    fields.update(params)
    schedule_matmul(fusion, MatmulParams(**fields))  # type: ignore[arg-type]
    return fusion
