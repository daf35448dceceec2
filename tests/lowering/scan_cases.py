"""Fusions of the running-total and pad ops (``ops.cummax``, ``ops.cumsum``, ``ops.rescaled_sum``, ``ops.pad``),
unscheduled and under ordinary SIMT schedules, with inputs. Shared by the simulator tests, the nvcc compile
tests, the golden CUDA and the GPU tier."""

from __future__ import annotations

from collections.abc import Callable

from fusion_ir import DataType, Fusion, ParallelType, TensorView, inline_most, ops, parallelize_like, transform_like
from fusion_ir.op_pad import pad_to_multiple
from tests.fusion_ir.op_cases import OpCase

F = DataType.Float


def _fusion(math: Callable[..., tuple[TensorView, ...]], ranks: tuple[int, ...] | None = None,
            shapes: tuple[tuple[int, ...], ...] | None = None) -> tuple[Fusion, tuple[TensorView, ...]]:
    fusion = Fusion()
    with fusion:
        ins = ([fusion.add_input(shape=s, dtype=F) for s in shapes] if shapes is not None
               else [fusion.add_input(ndim=r, dtype=F) for r in ranks or ()])
        outs = math(*ins)
        for o in outs:
            fusion.add_output(o)
    return fusion, outs


def unscheduled(math: Callable[..., tuple[TensorView, ...]], shapes: tuple[tuple[int, ...], ...] | None = None,
                ranks: tuple[int, ...] | None = None, inlined: bool = False) -> Callable[[], Fusion]:
    """``math`` as one thread walking every loop (of inputs of constant ``shapes``, or of symbolic ``ranks``;
    ``inlined``: every tensor inlined into its consumers' loops)."""
    def build() -> Fusion:
        fusion, _ = _fusion(math, ranks=ranks, shapes=shapes)
        fusion.auto_schedule = False
        if inlined:
            inline_most(fusion)
        return fusion
    return build


def rows_on_threads(math: Callable[..., tuple[TensorView, ...]], ranks: tuple[int, ...], threads: int = 32,
                    running_split: int | None = None) -> Callable[[], Fusion]:
    """``math`` of inputs of ``ranks`` (symbolic extents), its first output's axis 0 split into [BIDx, TIDx]
    (``threads``), the other axes serial (the last one split by ``running_split`` into two serial loops when
    given); every tensor transformed, parallelized and inlined like it."""
    def build() -> Fusion:
        fusion, outs = _fusion(math, ranks=ranks)
        ref = outs[0]
        if running_split is not None:
            ref.split(-1, running_split)
        ref.split(0, threads)
        transform_like(ref)
        ref.axis(0).parallelize(ParallelType.BIDx)
        ref.axis(1).parallelize(ParallelType.TIDx)
        parallelize_like(ref)
        inline_most(fusion)
        return fusion
    return build


def online_softmax(block: int = 8, rows: int = 4) -> Callable[[], Fusion]:
    """The online softmax's statistics over blocks of a row: ``x`` [nb, rows, block], each block's max ``mb``, the
    running max before it ``mprev`` (an exclusive cummax over the blocks), the rescale ``alpha`` of the total so
    far and the block's sum of ``exp(x - mnew)``; ``l = rescaled_sum(sum(p), alpha)`` is ``sum(exp(x - mfinal))``.
    Rows on threads, the blocks walked in order by each thread."""
    def math(x: TensorView) -> tuple[TensorView, ...]:
        mb = ops.max(x, -1)
        mprev = ops.cummax(mb, 0, exclusive=True)
        mnew = ops.maximum(mprev, mb)
        alpha = ops.where(ops.eq(mprev, mnew), 1.0, ops.exp(ops.sub(mprev, mnew)))
        p = ops.exp(ops.sub(x, ops.broadcast(mnew, [False, False, True])))
        return ops.rescaled_sum(ops.sum(p, -1), alpha, 0), mnew

    def build() -> Fusion:
        fusion, (l, _) = _fusion(math, shapes=((5, rows, block),))
        fusion.auto_schedule = False
        l.axis(1).parallelize(ParallelType.TIDx)     # rows: l is [rNB, rows]
        parallelize_like(l)
        inline_most(fusion)
        return fusion
    return build


def _pad_multiple(x: TensorView) -> tuple[TensorView, ...]:
    return (ops.mul(pad_to_multiple(ops.exp(x), 1, 64, value=-1.0), 2.0),)


CASES: list[OpCase] = [
    OpCase("cumsum_unscheduled", "scan", unscheduled(lambda x: (ops.cumsum(x, 1),), ((6, 9),)), ((6, 9),)),
    OpCase("cummax_exclusive_axis0_unscheduled", "scan",
           unscheduled(lambda x: (ops.cummax(ops.exp(x), 0, exclusive=True),), ((7, 5),)), ((7, 5),)),
    OpCase("cummax_rows_on_threads", "scan",
           rows_on_threads(lambda x: (ops.cummax(ops.neg(x), 1), ops.cumsum(x, 1, exclusive=True)), (2,)),
           ((70, 13),)),
    OpCase("cumsum_split_serial", "scan",
           rows_on_threads(lambda x: (ops.mul(ops.cumsum(x, 1), 0.5),), (2,), threads=16, running_split=4),
           ((20, 11),)),
    OpCase("rescaled_sum_unscheduled", "rescaled_sum",
           unscheduled(lambda x, s: (ops.rescaled_sum(x, s, 1),), ((4, 9), (4, 9))), ((4, 9), (4, 9))),
    OpCase("rescaled_sum_axis0_unscheduled", "rescaled_sum",
           unscheduled(lambda x, s: (ops.rescaled_sum(ops.exp(x), ops.abs(s), 0),), ((9, 4), (9, 4))),
           ((9, 4), (9, 4))),
    OpCase("rescaled_sum_rows_on_threads", "rescaled_sum",
           rows_on_threads(lambda x, s: (ops.rescaled_sum(x, ops.abs(s), 1),), (2, 2)), ((70, 12), (70, 12))),
    OpCase("rescaled_sum_split_serial", "rescaled_sum",
           rows_on_threads(lambda x, s: (ops.rescaled_sum(x, ops.abs(s), 1),), (2, 2), threads=16, running_split=4),
           ((20, 11), (20, 11))),
    OpCase("pad_unscheduled", "pad", unscheduled(lambda x: (ops.pad(ops.neg(x), [1, 2, 0, 1], 3.0),), ((3, 5),)),
           ((3, 5),)),
    OpCase("pad_symbolic", "pad",
           unscheduled(lambda x: (ops.pad(x, [2, 3], -1.0), pad_to_multiple(ops.exp(x), 1, 64)), ranks=(2,),
                       inlined=True),
           ((4, 7),)),
    OpCase("pad_to_multiple_rows_on_threads", "pad", rows_on_threads(_pad_multiple, (2,)), ((40, 70),)),
    OpCase("online_softmax", "chain", online_softmax(), ((5, 4, 8),), tol=1e-4),
]


def case(name: str) -> OpCase:
    return next(c for c in CASES if c.name == name)
