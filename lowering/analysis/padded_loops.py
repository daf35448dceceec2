"""Producers computed inside a pad's loops: a pad's padded axis is longer than its input's, so a producer
inlined into it (compute_at across that axis) runs past its own extent there and is predicated on it; it would
compute element ``i`` where the pad reads ``i - before``, so a width before the axis forbids it.
"""

from __future__ import annotations

from collections.abc import Callable

from fusion_ir import IterDomain, TensorView
from fusion_ir.exprs import PadOp

from ..errors import LoweringError
from ..running_axes import root_ancestors


def pad_bounded_roots(tensors: list[TensorView], group: Callable[[IterDomain], object]
                      ) -> dict[TensorView, tuple[IterDomain, ...]]:
    """Each of ``tensors`` computed inside a padded loop of a pad it feeds (``group``: an axis's loop group, as
    ``IdModel.group``), with the root axes whose index that loop pushes past their extent; ``LoweringError`` when
    the pad has a width before that axis."""
    found: dict[TensorView, list[IterDomain]] = {}
    for pad in tensors:
        e = pad.definition
        if not isinstance(e, PadOp):
            continue
        widths = {r: (before, after) for r, (before, after) in zip(pad.root, e.pads)
                  if (before.const_value(), after.const_value()) != (0, 0)}
        padded_groups: dict[int, tuple[IterDomain, IterDomain]] = {}
        for i in pad.loop:
            for r in root_ancestors(i) & set(widths):
                padded_groups[id(group(i))] = (i, r)
        producers = [t for t in tensors if not t.is_input and (t is e.inputs[0] or t in e.inputs[0].ancestors())]
        for tv in producers:
            for i in tv.loop[:tv.compute_at_pos]:
                hit = padded_groups.get(id(group(i)))
                if hit is None:
                    continue
                axis, root = hit
                before = widths[root][0]
                if before.const_value() != 0:
                    raise LoweringError(
                        f"T{tv.name} is computed inside loop {axis.label()} of pad T{pad.name}, whose axis "
                        f"{root.label()} has {before} elements padded before it: computed in that loop, T{tv.name} "
                        f"would make element i where the pad reads element i - {before}; compute T{tv.name} left of "
                        f"that axis (a smaller compute_at position) or pad after the axis only")
                mine = found.setdefault(tv, [])
                mine.extend(r for r in sorted(root_ancestors(i), key=lambda x: x.name) if r not in mine)
    return {tv: tuple(roots) for tv, roots in found.items()}
