"""Running axes: the loop axes along which an accumulating tensor (a reduction, a scan) carries its total, and
the rule an order-dependent one (a scan, a rescaled sum: ``fusion_ir.exprs.in_order``) obeys.

A reduction runs along its reduction axes; a scan along the loop axes derived from its scan axis (they stay
iteration axes: every step is written). An order-dependent total is walked in order by one thread: every
loop axis of its running axis is Serial or Unroll, made by splits of that axis alone (no merge with another
axis), the outer piece of each split left of the inner one.
"""

from __future__ import annotations

from fusion_ir import IterDomain, Merge, ParallelType, Split, TensorView
from fusion_ir.exprs import accumulates, in_order, reduces, scans

from .errors import LoweringError

ORDERED_PARALLEL_TYPES = (ParallelType.Serial, ParallelType.Unroll)


def running_root(tv: TensorView) -> IterDomain | None:
    """The root axis an order-dependent tensor runs along (a scan's axis, a rescaled sum's summed axis)."""
    e = tv.definition
    return tv.root[e.axis] if in_order(e) else None


def root_ancestors(i: IterDomain) -> set[IterDomain]:
    """The root axes ``i`` is made of."""
    out: set[IterDomain] = set()
    stack = [i]
    while stack:
        x = stack.pop()
        if x.definition is None:
            out.add(x)
        else:
            stack.extend(x.definition.inputs)
    return out


def runs_along(tv: TensorView, i: IterDomain) -> bool:
    """``tv`` carries its running total along loop axis ``i``: a reduction axis of a reduction, or an axis made
    of a scan's axis."""
    e = tv.definition
    if reduces(e):
        return i.is_reduction
    if scans(e):
        return tv.root[e.axis] in root_ancestors(i)
    return False


def carries(tv: TensorView) -> bool:
    """``tv`` keeps a running total: its loop nest has an init before its running loops."""
    return accumulates(tv.definition)


def _path(i: IterDomain, root: IterDomain) -> tuple[int, ...]:
    """Where ``i`` sits in the splits of ``root``: 0 for each outer piece, 1 for each inner one, from the root
    down (two pieces walk ``root`` in order when their paths are in lexicographic order)."""
    steps: list[int] = []
    x = i
    while x is not root:
        t = x.definition
        assert isinstance(t, Split)
        steps.append(0 if x is t.outer else 1)
        x = t.input
    return tuple(reversed(steps))


def check_order(tv: TensorView, parallel_type) -> None:
    """An order-dependent ``tv`` walks its running axis in order, in one thread (``parallel_type(i)`` gives each
    loop axis's binding after compute-at propagation); raises ``LoweringError`` naming the tensor, the axis
    and the rule otherwise."""
    root = running_root(tv)
    if root is None:
        return
    what = f"T{tv.name} ({tv.definition.op_string()} along {root.label()})"
    axes = [i for i in tv.loop if root in root_ancestors(i)]
    for i in axes:
        if root_ancestors(i) != {root} or _merged(i, root):
            raise LoweringError(f"{what}: its axis {i.label()} merges the running axis with another axis; a running "
                                f"total walks its axis in order in one thread, so split that axis only")
        pt = parallel_type(i)
        if pt not in ORDERED_PARALLEL_TYPES:
            raise LoweringError(f"{what}: its axis {i.label()} is bound to {pt.name}; a running total walks its axis "
                                f"in order in one thread, so every piece of it is Serial or Unroll (bind another "
                                f"axis to threads and blocks)")
    paths = [_path(i, root) for i in axes]
    for (a, pa), (b, pb) in zip(zip(axes, paths), zip(axes[1:], paths[1:])):
        if pb < pa:
            raise LoweringError(f"{what}: its axis {b.label()} is a more significant piece of the running axis than "
                                f"{a.label()} but comes inside it; a running total walks its axis in order, so keep the "
                                f"outer piece of each split left of the inner one")


def _merged(i: IterDomain, root: IterDomain) -> bool:
    x = i
    while x is not root:
        t = x.definition
        if isinstance(t, Merge):
            return True
        x = t.input
    return False
