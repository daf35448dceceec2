"""Producers of a broadcast inlined past its new axes: loop broadcasts (fusion_ir/tensor_view.py, inlining.py).

``out[i, j] = x[i, j] * broadcast(cast(w))[j]``: the cast lacks the broadcast's axis ``i``. Computed at a
position of the broadcast that passes ``i``, it gains a loop broadcast standing for ``i`` and is computed
inside the loop ``i`` resolves to; ``inline_most`` adds those axes itself. Every variant lowers and
matches numpy in the simulator, the cast before or after the broadcast.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from fusion_ir import (DataType, Fusion, IterType, LoadStoreOpType, ParallelType, ScheduleError, inline_most, ops,
                       parallelize_like, transform_like)
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches

PT = ParallelType


def _scaled(cast_first: bool):
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        w = fusion.add_input(ndim=1, dtype=DataType.Half)
        if cast_first:
            cast = ops.cast(w, DataType.Float)
            wb = ops.broadcast(cast, [True, False])
        else:
            wb = ops.broadcast(w, [True, False])
            cast = ops.cast(wb, DataType.Float)
        out = ops.mul(x, cast if not cast_first else wb)
        fusion.add_output(out)
    return fusion, x, w, cast, out


def _schedule(cast_first: bool, tma: str, flow: str, split_axis: int) -> Fusion:
    """``tma``: which inputs a TMA cache loads per tile; ``flow``: "transform_like" (transform_like,
    parallelize_like, inline_most), "compute_at" (every intermediate computed at the output) or "caches"
    (only the TMA caches computed at the output, then inline_most)."""
    fusion, x, w, _, out = _scaled(cast_first)
    caches = [t.cache_after(LoadStoreOpType.TMA) for t, name in ((x, "x"), (w, "w")) if name in tma]
    out.split(split_axis, 128)                  # [i0, i1/128, 128] or [i0/128, 128, i1]
    computed = [t for t in fusion.used_tensors() if not t.is_input and t not in caches]
    if flow == "transform_like":
        transform_like(out, computed)
    tile, threads = (0, 2) if split_axis == 1 else (2, 1)
    out.axis(tile).parallelize(PT.BIDx)
    out.axis(threads).parallelize(PT.TIDx)
    if flow == "transform_like":
        parallelize_like(out, computed)
    pos = 2 if split_axis == 1 else 1
    for c in caches:
        c.compute_at(out, pos)
        for k in range(pos, c.ndim):
            if not c.loop[k].is_broadcast:
                c.axis(k).parallelize(PT.Bulk)
    if flow == "compute_at":
        for t in computed:
            if t is not out and t.compute_at_pos == 0:
                t.compute_at(out, -1)
    inline_most(fusion)
    return fusion


def _check(fusion: Fusion, shape: tuple[int, int]) -> None:
    kernel = lower(fusion)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(shape).astype(np.float32), rng.standard_normal(shape[1]).astype(np.float16)]
    assert_matches(fusion, inputs, simulate(kernel, inputs), tol=1e-5)


VARIANTS = [
    (cast_first, tma, flow, split_axis)
    for cast_first, tma, flow, split_axis in itertools.product(
        (True, False), ("", "x", "w", "xw"), ("transform_like", "compute_at", "caches"), (1, 0))
    # split on the broadcast axis, a TMA box would span the other, unsplit axis (a symbolic extent);
    # without a TMA cache "caches" is plain inline_most
    if not (tma and split_axis == 0) and not (flow == "caches" and not tma)
    and not (flow == "caches" and tma == "x")   # nothing schedules the broadcast's axis: a symbolic local buffer
]


@pytest.mark.parametrize("cast_first, tma, flow, split_axis", VARIANTS)
def test_cast_and_broadcast_in_either_order_match_numpy(cast_first: bool, tma: str, flow: str, split_axis: int) -> None:
    fusion = _schedule(cast_first, tma, flow, split_axis)
    _check(fusion, (5, 300))
    _check(_schedule(cast_first, tma, flow, split_axis), (3, 128))


def test_inline_most_gives_the_cast_a_loop_broadcast_for_the_broadcast_axis() -> None:
    fusion, x, w, cast, out = _scaled(cast_first=True)
    out.split(1, 128)
    transform_like(out)
    out.axis(0).parallelize(PT.BIDx)
    out.axis(2).parallelize(PT.TIDx)
    parallelize_like(out)
    assert cast.ndim == 2
    inline_most(fusion)
    wb = cast.consumers()[0]
    assert cast.ndim == 3 and cast.compute_at_pos == 3
    assert cast.loop[0].iter_type is IterType.Broadcast and cast.loop[0].parallel_type is PT.BIDx
    assert list(cast.loop_broadcasts) == [wb.root[0]]
    assert [i.parallel_type for i in cast.loop[1:]] == [PT.Serial, PT.TIDx]


def test_compute_at_past_the_broadcast_axis_gives_the_producer_a_loop_broadcast() -> None:
    fusion, x, w, cast, out = _scaled(cast_first=True)
    out.split(1, 128)
    cast.compute_at(out, 2)
    assert cast.compute_at_pos == 2 and cast.loop[0].iter_type is IterType.Broadcast
    assert str(cast.loop[1].extent) == "ceilDiv(i2, 128)"


def test_a_trailing_broadcast_axis_still_has_no_counterpart() -> None:
    """Computed inside a broadcast axis after every axis they share, a producer would only be repeated."""
    fusion = Fusion()
    with fusion:
        v = fusion.add_input(ndim=1)
        e = ops.exp(v)
        out = ops.add(fusion.add_input(ndim=2), ops.broadcast(e, [False, True]))
        fusion.add_output(out)
    with pytest.raises(ScheduleError, match=r"T1: compute_at: position 2 needs axis 1 \(bS5\{1\}\) of T3, "
                                            r"which has no counterpart in T1 \(a broadcast axis after the last axis "
                                            r"they share: computed inside its loop, T1 would only be repeated\); "
                                            r"compute at position <= 1"):
        e.compute_at(out, 2)
    e.compute_at(out, 1)
    assert e.ndim == 1 and not e.loop_broadcasts


def test_an_axis_merged_from_broadcast_parts_the_producer_lacks_in_part_is_refused() -> None:
    """``t1[i] -> t2 = broadcast(t1)[i, m] -> t3[i, m] -> broadcast(t3)[i, m, k]``, the last laid out as
    ``[k/8, i, k8 * m4, m/4]``: t2's third axis merges a loop broadcast standing for ``k8`` with its own broadcast
    ``m4``, all of them axes t1 lacks. t1 computed at position 3 of t2 gains a loop broadcast for ``k`` (its outer
    part ``k/8`` comes before the axis they share) but not for ``m``: its replay of the merged axis has extent 8, not
    32, another loop than t2's; compute_at refuses it at once (the lowering would, later) and position 2 is kept."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(8,))
        t1 = ops.neg(a)
        t2 = ops.broadcast(t1, [False, True])
        t3 = ops.add(t2, fusion.add_input(shape=(8, 12)))
        t4 = ops.broadcast(t3, [False, False, True])
        out = ops.add(t4, fusion.add_input(shape=(8, 12, 32)))
        fusion.add_output(out)
    out.split(2, 8).split(1, 4).reorder({3: 0, 0: 1, 4: 2, 2: 3, 1: 4}).merge(2, 3)   # [k/8, i, k8 m4, m/4]
    t4.transform_like(out)
    t3.compute_at(t4, -1)
    t2.compute_at(t3, -1)
    assert str(t2.loop[2].extent) == "32"
    with pytest.raises(ScheduleError, match=rf"T{t1.name}: compute_at: position 3 needs axis 2 "
                                            rf"\(bS\d+\{{32\}}\) of T{t2.name}, and the replay of it onto "
                                            rf"T{t1.name} gives bS\d+\{{8\}}, which is not the same loop"):
        t1.compute_at(t2, 3)
    assert t1.compute_at_pos == 0
    t1.compute_at(t2, 2)
    assert t1.compute_at_pos == 2
    (got,) = simulate(lower(fusion), [np.arange(8, dtype=np.float32), np.ones((8, 12), np.float32),
                                      np.ones((8, 12, 32), np.float32)])
    want = -np.arange(8, dtype=np.float32)[:, None, None] + 2
    np.testing.assert_allclose(got, np.broadcast_to(want, (8, 12, 32)))


def test_a_1d_tma_tile_is_computed_inside_a_2d_tile_loop() -> None:
    """``out[i, j] = x[i, j] * scale[j]``: the TMA tile of scale, computed at the tile loop of out, takes a
    loop broadcast for the block-bound row axis and shares the tile loop (examples/tma_broadcast_scale.py)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        scale = fusion.add_input(ndim=1)
        out = ops.mul(x, ops.broadcast(scale, [True, False]))
        fusion.add_output(out)
    tile = scale.cache_after(LoadStoreOpType.TMA)
    out.split(1, 128)
    out.axis(0).parallelize(PT.BIDx)
    out.axis(2).parallelize(PT.TIDx)
    tile.compute_at(out, 2)
    tile.axis(2).parallelize(PT.Bulk)
    inline_most(fusion)
    assert tile.compute_at_pos == 2 and tile.loop[0].parallel_type is PT.BIDx and tile.loop[0].is_broadcast
    assert [str(i.extent) for i in tile.loop[1:]] == ["ceilDiv(i2, 128)", "128"]
    kernel = lower(fusion)
    rng = np.random.default_rng(1)
    inputs = [rng.standard_normal((6, 300)).astype(np.float32), rng.standard_normal(300).astype(np.float32)]
    assert_matches(fusion, inputs, simulate(kernel, inputs))
