"""What the reduction and normalization schedulers read of a fusion: its reductions, the axis they reduce
and the extents of the 2-D domain they share.

Both schedulers take 2-D fusions ``[rows, columns]`` (1-D inputs broadcast along them are fine) whose
reductions (``sum``, ``max``) all reduce the same one axis: the last (an inner reduction) or the first
(an outer one). A fusion where a reduction's result is broadcast back onto the reduced domain (softmax,
layer norm) is a normalization; one where none is, a plain reduction. ``classify`` answers both with a
``ReductionDomain`` or with the sentence saying why the fusion is neither.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exprs import BroadcastOp, LoadStoreOp, MmaOp, ReductionOp
from ..fusion import Fusion
from ..tensor_view import TensorView
from ..types import ScheduleError
from .protocol import Sizes, input_shapes

INNER = "inner"
OUTER = "outer"
VECTOR_BYTES = 16   # the widest load one thread issues (LDG.128)


@dataclass(frozen=True)
class ReductionDomain:
    """The 2-D domain ``[rows, columns]`` a fusion's reductions share, and how they reduce it.

    ``kind`` is ``"inner"`` (the last axis reduced) or ``"outer"`` (the first); ``kept`` and ``reduced``
    are the extents of the kept and the reduced axis; ``columns`` the contiguous (last) axis' extent;
    ``element_bytes`` the widest element of a 2-D input (it bounds the vector width).
    """

    kind: str
    rows: int
    columns: int
    element_bytes: int
    reductions: tuple[TensorView, ...]
    broadcast_back: tuple[TensorView, ...]

    @property
    def kept(self) -> int:
        return self.rows if self.kind == INNER else self.columns

    @property
    def reduced(self) -> int:
        return self.columns if self.kind == INNER else self.rows

    @property
    def axis(self) -> int:
        return 1 if self.kind == INNER else 0


def reductions_of(fusion: Fusion) -> list[TensorView]:
    """The used tensors defined by a (not yet rfactored) reduction, in definition order."""
    return [tv for tv in fusion.used_tensors() if isinstance(tv.definition, ReductionOp)]


def broadcasts_of_reductions(fusion: Fusion) -> list[TensorView]:
    """Broadcasts whose input depends on a reduction: the reduction's result put back onto its domain."""
    reductions = set(reductions_of(fusion))
    out = []
    for tv in fusion.used_tensors():
        if not isinstance(tv.definition, BroadcastOp):
            continue
        source = tv.definition.inputs[0]
        if source in reductions or reductions & source.ancestors():
            out.append(tv)
    return out


def classify(fusion: Fusion, sizes: Sizes | None, caller: str) -> ReductionDomain | str:
    """The fusion's ``ReductionDomain``, or one sentence saying why it has none the schedulers take."""
    used = fusion.used_tensors()
    for tv in used:
        if isinstance(tv.definition, MmaOp):
            return f"T{tv.name} is a matmul (the matmul scheduler's), not a sum or max reduction"
        if isinstance(tv.definition, LoadStoreOp) and tv.definition.permutation is not None:
            source = tv.definition.inputs[0]
            return (f"T{tv.name} permutes the axes of T{source.name} ({list(tv.definition.permutation)}); the "
                    f"{caller} scheduler reads every tensor in the domain's layout, vectors along the last axis")
    reductions = reductions_of(fusion)
    if not reductions:
        return "the fusion has no reduction (sum or max): it is pointwise"
    first = reductions[0]
    axes = first.definition.axes
    for tv in reductions:
        if len(tv.definition.inputs[0].shape_ids) != 2:
            return (f"reduction T{tv.name} reduces a {len(tv.definition.inputs[0].shape_ids)}-D tensor; the "
                    f"{caller} scheduler takes reductions of the 2-D domain")
        if tv.definition.axes != axes:
            return (f"T{first.name} reduces axis {list(axes)} but T{tv.name} reduces axis "
                    f"{list(tv.definition.axes)}: two different reduction domains need two kernels")
    if len(axes) != 1:
        return (f"T{first.name} reduces every axis {list(axes)}; the {caller} scheduler reduces one axis "
                f"(the last or the first) of a 2-D domain")
    for tv in used:
        if len(tv.shape_ids) not in (1, 2):
            return (f"T{tv.name} has rank {len(tv.shape_ids)}; the {caller} scheduler takes 2-D fusions "
                    f"(1-D inputs broadcast along them)")
    try:
        shapes = input_shapes(fusion, sizes, caller)
    except ScheduleError as e:
        return str(e)
    two_d = [(tv, s) for tv, s in zip(fusion.inputs, shapes) if len(s) == 2 and tv in used]
    if not two_d:
        return f"no 2-D input: the {caller} scheduler reads its [rows, columns] extents from one"
    rows, columns = two_d[0][1]
    for tv, s in two_d[1:]:
        if tuple(s) != (rows, columns):
            return (f"input T{tv.name} has shape {tuple(s)} but T{two_d[0][0].name} has {(rows, columns)}; the "
                    f"{caller} scheduler takes 2-D inputs of one shape")
    element_bytes = max(tv.dtype.size for tv, _ in two_d)
    kind = INNER if axes[0] == 1 else OUTER
    return ReductionDomain(kind, rows, columns, element_bytes, tuple(reductions),
                           tuple(broadcasts_of_reductions(fusion)))


def vector_width(columns: int, element_bytes: int) -> int:
    """The widest power-of-two vector (at most 16 bytes) that divides the contiguous extent ``columns``
    (a vectorized load must not straddle a row: every row starts on a vector boundary)."""
    width = VECTOR_BYTES // element_bytes
    while width > 1 and columns % width != 0:
        width //= 2
    return width


def next_pow2(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)
