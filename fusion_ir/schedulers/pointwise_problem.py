"""What the pointwise and transpose schedulers read of a fusion: its reference output, which of the reference's
axes every tensor carries (``missing``: the axes a tensor lacks, broadcast along them), and the extents at the
sizes given (``None`` where the sizes are unknown)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..exprs import BroadcastOp, Expr, LoadStoreOp, MmaOp, PadOp, ReductionOp, RescaledSumOp, ScanOp
from ..fusion import Fusion
from ..iter_domain import IterDomain
from ..tensor_view import TensorView
from ..types import ScheduleError
from .protocol import Sizes, input_shapes


@dataclass(frozen=True)
class PointwiseProblem:
    """``reference``: the output the schedule is built on; ``extents``: its axes' extents (None: unknown sizes);
    ``missing``: per used tensor, the reference axes it does not carry (broadcast or absent)."""

    reference: TensorView
    extents: tuple[int, ...] | None
    missing: dict[TensorView, frozenset[int]]

    @property
    def rank(self) -> int:
        return len(self.reference.logical)

    @property
    def elements(self) -> int | None:
        return None if self.extents is None else math.prod(self.extents)

    def extent(self, axes: range) -> int | None:
        """The product of the reference's extents over ``axes`` (None: unknown sizes)."""
        return None if self.extents is None else math.prod(self.extents[k] for k in axes)


def non_pointwise_expr(e: Expr) -> str | None:
    """Why ``e`` is no pointwise op (a reduction, a matmul, a permute), or None for a pointwise op, cast,
    copy or broadcast (any op that maps its output's axes one to one onto its inputs' positionally)."""
    out = f"T{e.output.name}"
    if isinstance(e, ReductionOp):
        return f"{out} = {e.op}(...) is a reduction"
    if isinstance(e, MmaOp):
        return f"{out} is a matmul"
    if isinstance(e, ScanOp):
        return f"{out} = {e.op_string()}(...) is a scan (a running total walked in order along axis {e.axis})"
    if isinstance(e, RescaledSumOp):
        return f"{out} = rescaled_sum(...) is a reduction walked in order along axis {e.axis}"
    if isinstance(e, PadOp) and any(before.const_value() != 0 for before, _ in e.pads):
        return f"{out} pads before an axis (its elements read the input's shifted by the width)"
    if isinstance(e, LoadStoreOp) and e.permutation is not None:
        return f"{out} permutes its input's axes {list(e.permutation)}"
    return None


def reference_output(fusion: Fusion) -> TensorView:
    """The output with the most non-broadcast axes (the first such), whose loop nest the schedule builds."""
    return max(fusion.outputs, key=lambda tv: sum(not i.is_broadcast for i in tv.logical))


def extent_env(fusion: Fusion, sizes: Sizes | None) -> dict[str, int] | None:
    """Each input extent's symbol bound to its size (None when the sizes are unknown: symbolic without sizes)."""
    symbolic = any(i.extent.const_value() is None for tv in fusion.inputs for i in tv.shape_ids)
    if sizes is None and symbolic:
        return None
    shapes = input_shapes(fusion, sizes)
    env: dict[str, int] = {}
    for tv, shape in zip(fusion.inputs, shapes):
        for i, s in zip(tv.shape_ids, shape):
            if i.extent.is_symbol:
                env[i.extent.name] = s   # type: ignore[index]
    return env


def evaluated(i: IterDomain, env: dict[str, int]) -> int:
    value = i.extent.evaluate(env)
    return int(value)


def pointwise_problem(fusion: Fusion, sizes: Sizes | None, reference: TensorView | None = None) -> PointwiseProblem:
    """The problem of a fusion of pointwise ops: its reference output and, per tensor, the axes it lacks."""
    ref = reference if reference is not None else reference_output(fusion)
    env = extent_env(fusion, sizes)
    extents = None if env is None else tuple(evaluated(i, env) for i in ref.logical)
    return PointwiseProblem(ref, extents, missing_axes(fusion, ref))


def missing_axes(fusion: Fusion, ref: TensorView) -> dict[TensorView, frozenset[int]]:
    """Per used tensor, the reference axes none of its non-broadcast axes maps to."""
    axis_of, _ = _axis_map(fusion, ref)
    rank = len(ref.logical)
    missing = {}
    for tv in fusion.used_tensors():
        carried = {axis_of[i] for i in tv.logical if i in axis_of and not i.is_broadcast and not i.is_reduction}
        missing[tv] = frozenset(range(rank)) - carried
    return missing


def axis_conflicts(fusion: Fusion, ref: TensorView) -> list[str]:
    """Tensors one of whose axes stands for two different reference axes (one input broadcast along different
    axes on two paths, ``x[:, None] - x[None, :]``): no loop nest replayed from the reference computes them."""
    return _axis_map(fusion, ref)[1]


def _axis_map(fusion: Fusion, ref: TensorView) -> tuple[dict[IterDomain, int], list[str]]:
    """Each IterDomain's reference axis: a walk from the outputs (each output's axis ``k`` is the reference's axis
    ``k``) to their producers through each definition's root map; and the axes reached as two different ones."""
    axis_of: dict[IterDomain, int] = {}
    conflicts: list[str] = []
    rank = len(ref.logical)
    for out in fusion.outputs:
        for k, i in enumerate(out.logical):
            if len(out.logical) == rank:
                axis_of[i] = k
    for tv in reversed(fusion.used_tensors()):
        d = tv.definition
        if d is None:
            continue
        for producer in d.tensor_inputs():
            for c, p in d.root_map(producer).items():
                if c not in axis_of or p.is_broadcast:
                    continue
                if p in axis_of and axis_of[p] != axis_of[c]:
                    conflicts.append(f"axis {producer.logical.index(p)} of T{producer.name} is read as axis "
                                     f"{axis_of[p]} and as axis {axis_of[c]} of T{ref.name}")
                axis_of.setdefault(p, axis_of[c])
    return axis_of, conflicts


def broadcast_inputs(problem: PointwiseProblem) -> list[TensorView]:
    """The fusion inputs that lack some reference axis (read through a broadcast)."""
    return [tv for tv, m in problem.missing.items() if tv.is_input and m]


def pre_broadcast_tensors(fusion: Fusion, problem: PointwiseProblem) -> list[TensorView]:
    """Computed tensors that lack some reference axis and are not broadcasts themselves: the ops applied to an
    operand before it is broadcast. A schedule inlines them only where no merge mixes an axis they lack with
    one they carry."""
    return [tv for tv, m in problem.missing.items()
            if m and not tv.is_input and not isinstance(tv.definition, BroadcastOp)]


def require_one_rank(fusion: Fusion, what: str) -> None:
    """Every output has the reference's rank (a ScheduleError names the first that does not)."""
    ref = reference_output(fusion)
    for out in fusion.outputs:
        if len(out.logical) != len(ref.logical):
            raise ScheduleError(f"{what}: output T{out.name} has rank {len(out.logical)} but T{ref.name} has "
                                f"{len(ref.logical)}; every output of one kernel spans the same axes")
