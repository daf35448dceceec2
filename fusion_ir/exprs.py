"""Fusion expressions: the ops that define tensors, and how each maps its output's root domain to its inputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

from .iter_domain import IterDomain
from .types import DataType, LoadStoreOpType

if TYPE_CHECKING:
    from .tensor_view import TensorView

Operand = Union["TensorView", int, float]


@dataclass(eq=False)
class Expr:
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)

    @property
    def output(self) -> "TensorView":
        return self.outputs[0]

    def tensor_inputs(self) -> list["TensorView"]:
        from .tensor_view import TensorView

        return [i for i in self.inputs if isinstance(i, TensorView)]

    def root_map(self, producer: "TensorView") -> dict[IterDomain, IterDomain]:
        """Map the output's root IterDomains to ``producer``'s logical IterDomains.

        The default is positional over the producer's non-reduction logical axes,
        which is right for pointwise ops, copies, casts and reductions.
        """
        consumer_root = self.output.root
        producer_ids = [i for i in producer.logical if not i.is_reduction]
        return dict(zip(consumer_root, producer_ids))

    def op_string(self) -> str:
        raise NotImplementedError


@dataclass(eq=False)
class LoadStoreOp(Expr):
    """A copy of its one input: ``set``, a cache (``cache_after``/``cache_before``), a load or a store.

    With a ``permutation`` it is nvFuser's ``Set.Permute`` (``ops.permute``, ``ops.transpose``): output
    axis ``i`` is input axis ``permutation[i]``, so ``out[i0, i1, ...]`` = ``in`` at those indices permuted
    back. Nothing moves but the indices: the root map says which input axis each output axis is, and every
    index (a copy's read, a TMA box's coordinates) follows it.
    """

    op_type: LoadStoreOpType = LoadStoreOpType.Set
    permutation: tuple[int, ...] | None = None

    def root_map(self, producer: "TensorView") -> dict[IterDomain, IterDomain]:
        if self.permutation is None:
            return super().root_map(producer)
        producer_ids = [i for i in producer.logical if not i.is_reduction]
        return {c: producer_ids[p] for c, p in zip(self.output.root, self.permutation)}

    def op_string(self) -> str:
        base = "Set" if self.op_type is LoadStoreOpType.Set else f"Set.{self.op_type.value}"
        return base if self.permutation is None else f"{base}.Permute"


ASYNC_LOADS = (LoadStoreOpType.TMA, LoadStoreOpType.CpAsync)


def is_view_expr(e: "Expr | None") -> bool:
    """A pad, a reshape or a permute (a plain copy with a permutation): an index map of its one input, which moves
    no data (``fusion_ir.views``)."""
    if isinstance(e, (PadOp, ViewOp)):
        return True
    return isinstance(e, LoadStoreOp) and e.permutation is not None and e.op_type is LoadStoreOpType.Set


def view_source(tv: "TensorView") -> "TensorView | None":
    """The fusion input ``tv`` is a chain of views of (``is_view_expr``); None unless ``tv`` is such a view."""
    t = tv
    while is_view_expr(t.definition):
        t = t.definition.inputs[0]
    return t if t is not tv and t.is_input else None


def load_kind(tv: "TensorView") -> LoadStoreOpType | None:
    """How ``tv`` is written: the op type of the ``LoadStoreOp`` defining it (``TMA``, ``CpAsync``,
    ``Set``, ...), or None when another op (or nothing) defines it.

    The package's one answer to "what kind of load is this": a TMA or cp.async load
    (``load_kind(tv) in ASYNC_LOADS``) reads global memory asynchronously into shared memory.
    """
    d = tv.definition
    return d.op_type if isinstance(d, LoadStoreOp) else None


@dataclass(eq=False)
class UnaryOp(Expr):
    op: str = ""


@dataclass(eq=False)
class CastOp(Expr):
    dtype: DataType = DataType.Float


@dataclass(eq=False)
class BinaryOp(Expr):
    op: str = ""


@dataclass(eq=False)
class WhereOp(Expr):
    """``where(cond, a, b)``: ``a`` where ``cond`` is true, else ``b``; any of the three may be a scalar,
    the tensors broadcast as a binary op's do (nvFuser's ``TernaryOp`` ``where``)."""

    def op_string(self) -> str:
        return "where"


@dataclass(eq=False)
class ViewOp(Expr):
    """``reshape``: the output's root copies the input's axes (the default root map) and its logical domain
    is reached by the merges and splits in its transforms; the elements keep their row-major order."""

    def op_string(self) -> str:
        return "reshape"


@dataclass(eq=False)
class FullOp(Expr):
    """A tensor of ``value`` everywhere, read from no tensor (``ops.full``): its extents come from the
    shape it was given."""

    value: float | int | bool = 0


@dataclass(eq=False)
class IotaOp(Expr):
    """The 1-D tensor ``start + i * step`` for i in [0, length), read from no tensor (``ops.iota``)."""

    start: float | int = 0
    step: float | int = 1


@dataclass(eq=False)
class PadOp(Expr):
    """``pad``: the input with ``pads[d] = (before, after)`` elements of ``value`` added around axis ``d``
    (``ops.pad``, nvFuser's ``PadOp``); the output's root maps to the input's axes positionally, element
    ``i`` of a padded axis reading input element ``i - before`` when that is in bounds."""

    pads: tuple = ()                  # one (before, after) pair of extent Vals per axis
    value: float | int | bool = 0

    def op_string(self) -> str:
        return "pad"


@dataclass(eq=False)
class ScanOp(Expr):
    """A running reduction along ``axis`` (``ops.cummax``, ``ops.cumsum``): element ``j`` combines the input's
    elements ``0..j`` (``exclusive``: ``0..j-1``, ``init`` for the first) with ``op``; the output keeps the
    input's shape."""

    op: str = "max"
    axis: int = 0
    exclusive: bool = False
    init: float = 0.0

    def op_string(self) -> str:
        return f"cum{self.op}"


@dataclass(eq=False)
class RescaledSumOp(Expr):
    """``rescaled_sum(x, scale, axis)``: the sum of ``x`` over ``axis`` whose running total is multiplied by
    ``scale[j]`` before ``x[j]`` is added: ``sum_j x[j] * prod_{k > j} scale[k]`` (the first scale multiplies
    zero). Inputs ``x`` and ``scale`` align positionally, as a binary op's do; the output drops ``axis``
    (a reduction axis)."""

    axis: int = 0

    def op_string(self) -> str:
        return "rescaled_sum"


@dataclass(eq=False)
class BroadcastOp(Expr):
    is_broadcast_dims: tuple[bool, ...] = ()

    def root_map(self, producer: "TensorView") -> dict[IterDomain, IterDomain]:
        kept = [cid for cid, new in zip(self.output.root, self.is_broadcast_dims) if not new]
        producer_ids = [i for i in producer.logical if not i.is_reduction]
        return dict(zip(kept, producer_ids))


@dataclass(eq=False)
class ReductionOp(Expr):
    op: str = "sum"
    axes: tuple[int, ...] = ()
    init: float = 0.0
    # the partial result made by rfactor; its consumer finishes the reduction over ``axes``
    rfactor_partial: bool = False


@dataclass(eq=False)
class MmaOp(Expr):
    """``out[B..., M, N, rK] = a[B..., M, K] @ b[B..., K, N]``: batch axes aligned from the right, an operand
    with fewer of them (a 2-D one) broadcast over the others (``ops.matmul``)."""

    def root_map(self, producer: "TensorView") -> dict[IterDomain, IterDomain]:
        *batch, m, n, k = self.output.root
        a = self.inputs[0]
        ids = [i for i in producer.logical if not i.is_reduction]
        own_batch = ids[:-2]
        mapped = dict(zip(batch[len(batch) - len(own_batch):], own_batch)) if own_batch else {}
        if producer is a:
            return {**mapped, m: ids[-2], k: ids[-1]}
        return {**mapped, k: ids[-2], n: ids[-1]}


# -------------------------------------------------------------------- what a reducing expression computes
def reduces(e: Expr | None) -> bool:
    """``e`` combines terms over reduction axes into its output: a reduction, a matmul (a sum of products) or a
    rescaled sum (its output's summed axis is a reduction axis too)."""
    return isinstance(e, (ReductionOp, MmaOp, RescaledSumOp))


def rescales(e: Expr | None) -> bool:
    """``e`` is a reduction whose running total is rescaled before each term (``RescaledSumOp``)."""
    return isinstance(e, RescaledSumOp)


def scans(e: Expr | None) -> bool:
    """``e`` writes every step of a running reduction along one of its axes (``ScanOp``)."""
    return isinstance(e, ScanOp)


def accumulates(e: Expr | None) -> bool:
    """``e`` keeps a running total along an axis: a reduction (its output drops the axis) or a scan (its output
    keeps every step)."""
    return reduces(e) or scans(e)


def in_order(e: Expr | None) -> bool:
    """``e``'s running total depends on the order of its terms (a scan, a rescaled sum): one thread walks its axis
    from the first element to the last, never threads or blocks in parallel, never a split's inner piece outside
    its outer one."""
    return scans(e) or rescales(e)


def combine_op(e: Expr) -> str:
    """How an accumulating expression combines its terms: ``"add"`` or ``"max"`` (a rescaled sum adds each term
    to its rescaled total)."""
    if isinstance(e, (MmaOp, RescaledSumOp)):
        return "add"
    return {"sum": "add", "max": "max"}[e.op]


def reduction_init(e: Expr) -> float:
    """The value an accumulating expression starts from."""
    return e.init if isinstance(e, (ReductionOp, ScanOp)) else 0.0


def sums_products(e: Expr) -> bool:
    """A reducing expression whose terms are the products of its two inputs, in float (a matmul), rather
    than its one input's values."""
    return isinstance(e, MmaOp)
