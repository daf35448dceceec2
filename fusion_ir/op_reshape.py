"""``reshape``: a new shape over the same row-major elements, as merges and splits of the input's axes.

The output's root domain copies the input's axes; its logical domain is reached by merging each run of
adjacent input axes and splitting the result by constant factors (nvFuser's ``ViewOp`` with its
root-to-logical transforms). Extents are compared as products of constant and symbolic factors, so
``[i0, 6] -> [i0, 2, 3]`` and ``[i0, i1] -> [i0 * i1]`` are reshapes, while ``[i0, i1] -> [i1, i0]`` (which
would split by a runtime extent) is refused: it needs its elements moved.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from . import replay
from .exprs import ViewOp
from .op_core import check_tensor, fusion_of
from .scalar import Val
from .tensor_view import TensorView
from .types import ScheduleError


@dataclass(frozen=True)
class _Product:
    """An extent as a constant times a multiset of symbolic factors (each printed ``Val``)."""

    const: int
    factors: Counter

    @staticmethod
    def of(v: Val) -> _Product:
        if v.is_const:
            return _Product(int(v.value), Counter())  # type: ignore[arg-type]
        if v.op == "mul":
            a, b = _Product.of(v.args[0]), _Product.of(v.args[1])
            return a * b
        return _Product(1, Counter({str(v): 1}))

    def __mul__(self, other: _Product) -> _Product:
        return _Product(self.const * other.const, self.factors + other.factors)

    def divides(self, other: _Product) -> bool:
        return self.const != 0 and other.const % self.const == 0 and not self.factors - other.factors

    def smaller_than(self, other: _Product) -> bool:
        """Fewer elements than ``other`` for every value of the symbols (each at least 1): its symbolic factors
        are among ``other``'s, and its constant is smaller, or no larger with fewer symbolic factors, or a
        divisor. A run of axes grows on its smaller side until both sides hold as many elements."""
        if self.factors - other.factors:
            return False
        if self.factors == other.factors:
            return self.const < other.const
        return self.const <= other.const or self.divides(other)

    def __truediv__(self, other: _Product) -> _Product:
        return _Product(self.const // other.const, self.factors - other.factors)

    def same(self, other: _Product) -> bool:
        return self.const == other.const and self.factors == other.factors


def _shape_text(extents: Sequence[Val]) -> str:
    return "[" + ", ".join(str(e) for e in extents) + "]"


def _new_extents(x: TensorView, old: list[Val], new_shape: object) -> list[Val]:
    """``new_shape`` as extents: positive ints, extent ``Val``s, and at most one -1 (the rest of the elements)."""
    if isinstance(new_shape, (str, bytes)) or not isinstance(new_shape, Sequence):
        raise ScheduleError(f"reshape: new_shape {new_shape!r} for T{x.name} must be a sequence of extents")
    entries: list[Val | None] = []
    for k, n in enumerate(new_shape):
        if isinstance(n, Val):
            entries.append(n)
        elif isinstance(n, int) and not isinstance(n, bool) and (n > 0 or n == -1):
            entries.append(None if n == -1 else Val.const(n))
        else:
            raise ScheduleError(f"reshape: new_shape[{k}] {n!r} for T{x.name} must be a positive int, -1 or an "
                                f"extent Val (tv.size(d))")
    if entries.count(None) > 1:
        raise ScheduleError(f"reshape: new_shape {list(new_shape)} for T{x.name} has more than one -1")
    total = _Product(1, Counter())
    for e in old:
        total = total * _Product.of(e)
    known = _Product(1, Counter())
    for e in entries:
        if e is not None:
            known = known * _Product.of(e)
    if None in entries:
        if not known.divides(total):
            raise ScheduleError(f"reshape: T{x.name} of shape {_shape_text(old)} has no shape {list(new_shape)}: "
                                f"its elements are not a multiple of the given extents")
        rest = total / known
        entries[entries.index(None)] = _as_val(rest, old)
        known = total
    if not known.same(total):
        shape = _shape_text([e for e in entries if e is not None])
        raise ScheduleError(f"reshape: T{x.name} of shape {_shape_text(old)} cannot become {shape}: the numbers "
                            f"of elements differ")
    return [e for e in entries if e is not None]


def _as_val(p: _Product, old: list[Val]) -> Val:
    """The ``Val`` of a product whose symbolic factors are (products of) the input's extents."""
    by_text: dict[str, Val] = {}
    for e in old:
        _collect(e, by_text)
    v = Val.const(p.const)
    for text, count in sorted(p.factors.items()):
        for _ in range(count):
            v = v * by_text[text]
    return v


def _collect(v: Val, out: dict[str, Val]) -> None:
    if v.op == "mul":
        _collect(v.args[0], out)
        _collect(v.args[1], out)
    elif not v.is_const:
        out[str(v)] = v


def _groups(x: TensorView, old: list[Val], new: list[Val]) -> list[tuple[list[int], list[int]]]:
    """Runs of input axes and output axes of equal element counts, left to right: each run of input
    axes merges into one and splits into its output axes."""
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(old) and j < len(new):
        gi, gj = [i], [j]
        po, pn = _Product.of(old[i]), _Product.of(new[j])
        while not po.same(pn):
            if pn.smaller_than(po) and gj[-1] + 1 < len(new):
                gj.append(gj[-1] + 1)
                pn = pn * _Product.of(new[gj[-1]])
            elif po.smaller_than(pn) and gi[-1] + 1 < len(old):
                gi.append(gi[-1] + 1)
                po = po * _Product.of(old[gi[-1]])
            else:
                raise _data_movement(x, old, new)
        groups.append((gi, gj))
        i, j = gi[-1] + 1, gj[-1] + 1
    # extent-1 axes left on one side join the last run (a merge with 1, a split by 1)
    for k in range(i, len(old)):
        if not _Product.of(old[k]).same(_Product(1, Counter())):
            raise _data_movement(x, old, new)
        groups[-1][0].append(k)
    for k in range(j, len(new)):
        if not _Product.of(new[k]).same(_Product(1, Counter())):
            raise _data_movement(x, old, new)
        groups[-1][1].append(k)
    return groups


def _data_movement(x: TensorView, old: list[Val], new: list[Val]) -> ScheduleError:
    return ScheduleError(f"reshape: T{x.name} of shape {_shape_text(old)} cannot become {_shape_text(new)} by merging "
                         f"adjacent axes and splitting them by constant factors: it would need a data movement "
                         f"(permute the axes first, or give constant extents)")


def reshape(x: TensorView, new_shape: Sequence[int | Val]) -> TensorView:
    """``x`` with shape ``new_shape`` (ints, -1 once, or extents), its axes merged and split by constants."""
    x = check_tensor(x, "reshape")
    fusion = fusion_of(x)
    ids = x.shape_ids
    if any(i.is_broadcast for i in ids):
        raise ScheduleError(f"reshape: T{x.name} has broadcast axes ({', '.join(i.label() for i in ids if i.is_broadcast)}"
                            f"); reshape the tensor before broadcasting it")
    old = [i.extent for i in ids]
    new = _new_extents(x, old, new_shape)
    if not old or not new:
        raise ScheduleError(f"reshape: T{x.name} of shape {_shape_text(old)} to {_shape_text(new)}: a reshape "
                            f"needs at least one axis on each side")
    groups = _groups(x, old, new)
    for _, gj in groups:
        symbolic = [k for k in gj if not new[k].is_const]
        if len(symbolic) > 1:
            raise _data_movement(x, old, new)
    root = [fusion.new_iter_domain(i.extent, i.iter_type) for i in ids]
    out = fusion.new_tensor(root, x.dtype)
    leaves = list(root)
    transforms: list = []
    pos = 0
    for gi, gj in groups:
        for _ in range(len(gi) - 1):
            m = replay.make_merge(fusion, leaves[pos], leaves[pos + 1])
            replay.apply_transform(leaves, m)
            transforms.append(m)
        _split_into(fusion, leaves, pos, [new[k] for k in gj], transforms)
        pos += len(gj)
    out.transforms = transforms
    out.logical = list(leaves)
    out.loop = list(leaves)
    fusion.add_expr(ViewOp(inputs=[x], outputs=[out]))
    return out


def _split_into(fusion: object, leaves: list, pos: int, extents: list[Val], transforms: list) -> None:
    """Split ``leaves[pos]`` into axes of ``extents`` (all constant but at most one): constants after the
    symbolic one are inner splits, those before it outer splits; the axis left has the given extent."""
    symbolic = next((k for k, e in enumerate(extents) if not e.is_const), 0)
    for k in range(len(extents) - 1, symbolic, -1):           # innermost first
        s = replay.make_split(fusion, leaves[pos + symbolic], int(extents[k].value), True)  # type: ignore[arg-type]
        replay.apply_transform(leaves, s)
        transforms.append(s)
    for k in range(symbolic):                                   # outermost first
        s = replay.make_split(fusion, leaves[pos + k], int(extents[k].value), False)  # type: ignore[arg-type]
        replay.apply_transform(leaves, s)
        transforms.append(s)
    # the element counts agree exactly: the remaining axis is the given extent, not a ceilDiv of it
    leaves[pos + symbolic].extent = extents[symbolic]
