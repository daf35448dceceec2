"""rfactor: split a reduction into a partial reduction over chosen axes and a final one."""

from __future__ import annotations

from typing import Iterable

from . import replay
from .exprs import ReductionOp, rescales
from .iter_domain import IterDomain, lane_group
from .tensor_view import TensorView
from .types import IterType


def rfactor(tv: TensorView, axes: int | Iterable[int]) -> TensorView:
    """Return the partial tensor; ``tv`` becomes the reduction of it over the remaining axes."""
    d = tv.definition
    if rescales(d):
        raise tv._err(f"rfactor: T{tv.name} is a rescaled sum, a total walked in order by one thread (each term "
                      f"rescales the total before it); it has no partial totals to combine")
    if not isinstance(d, ReductionOp):
        raise tv._err(f"rfactor: T{tv.name} is not defined by a reduction")
    if tv.compute_at_pos > 0 or tv.max_producer_pos > 0:
        raise tv._err(f"rfactor: T{tv.name} is already inlined ({tv._inlined_desc()}); rfactor before compute_at")
    if tv.logical != tv.root or d.rfactor_partial:
        raise tv._err(f"rfactor: T{tv.name} is already the partial result of an rfactor; rfactor the final "
                      f"reduction instead")
    axes = [axes] if isinstance(axes, int) else list(axes)
    if not axes:
        raise tv._err("rfactor: give at least one reduction axis")
    norm = [tv._norm_axis(a, "rfactor") for a in axes]
    if len(set(norm)) != len(norm):
        raise tv._err(f"rfactor: axes {axes} repeat an axis")
    for a in norm:
        if not tv.loop[a].is_reduction:
            raise tv._err(f"rfactor: {tv._axis_desc(a)} is not a reduction axis")
    lanes = next((k for k, i in enumerate(tv.loop) if lane_group(i) is not None), None)
    if lanes is not None:
        # the lane merge joins rows to the reduced lanes: no partial domain holds the one without the other
        raise tv._err(f"rfactor: {tv._axis_desc(lanes)} merges rows with reduction lanes (merge_lanes); a "
                      f"lane-group reduction is not rfactored: each thread already reduces its serial axes into a "
                      f"partial before the lanes combine by shuffles")
    red_loop = [k for k, i in enumerate(tv.loop) if i.is_reduction]
    if set(red_loop) <= set(norm):
        raise tv._err(f"rfactor: axes {axes} cover every reduction axis "
                      f"({', '.join(tv._axis_desc(k) for k in red_loop)}); at least one reduction axis "
                      f"must stay outside the rfactor axes")
    fusion = tv.fusion
    rf_ids = {tv.loop[a] for a in norm}
    with fusion.transaction():
        # Partial tensor: same root, replayed transforms; rfactor axes stay reductions.
        p_root = {i: fusion.new_iter_domain(i.extent, i.iter_type) for i in tv.root}
        leaves = list(p_root.values())
        new, m = replay.replay_transforms(fusion, tv.transforms, p_root, leaves)
        for old, pid in m.items():
            if old in tv.loop or old in tv.root:
                pid.parallel_type = old.parallel_type if old in tv.loop else pid.parallel_type
        for old in tv.loop:
            if old.is_reduction and old not in rf_ids:
                m[old].iter_type = IterType.Iteration
        partial = fusion.new_tensor(list(p_root.values()), tv.dtype)
        red_cone = replay.ancestors_transforms(tv, [i for i in tv.loop if i.is_reduction])
        red_cone_new = [t for t, o in zip(new, tv.transforms) if o in red_cone]
        partial.transforms = new
        partial.loop = [m[i] for i in tv.loop]
        partial.logical = _logical_after(list(p_root.values()), red_cone_new)
        # Final tensor: a fresh root over the partial's kept axes, iteration transforms replayed.
        kept = [i for i in partial.logical if not i.is_reduction]
        f_root = []
        to_final: dict[IterDomain, IterDomain] = {}
        back = {v: k for k, v in m.items()}
        for pid in kept:
            old = back.get(pid)
            is_red = old is not None and old.is_reduction and old not in rf_ids
            nid = fusion.new_iter_domain(pid.extent, IterType.Reduction if is_red else pid.iter_type)
            f_root.append(nid)
            if old is not None:
                to_final[old] = nid
        leaves = list(f_root)
        iter_transforms = [t for t in tv.transforms if t not in red_cone]
        f_new, fm = replay.replay_transforms(fusion, iter_transforms, to_final, leaves)
        final_loop = []
        for old in tv.loop:
            if old in rf_ids:
                continue
            nid = fm.get(old)
            if nid is not None and nid in leaves and nid not in final_loop:
                nid.parallel_type = old.parallel_type
                final_loop.append(nid)
        final_loop += [i for i in leaves if i not in final_loop]
        tv.root, tv.logical, tv.loop, tv.transforms = f_root, list(f_root), final_loop, f_new
        partial_expr = ReductionOp(inputs=list(d.inputs), outputs=[partial], op=d.op, axes=d.axes, init=d.init,
                                   rfactor_partial=True)
        d.inputs = [partial]
        fusion.insert_expr(partial_expr)
    return partial


def _logical_after(root: list[IterDomain], transforms: list) -> list[IterDomain]:
    leaves = list(root)
    for t in transforms:
        replay.apply_transform(leaves, t)
    return leaves
