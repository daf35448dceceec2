"""Pipeline axes: where a tensor's circular buffer and warp-group turns sit in its loop nest.

Schedule facts read from compute-at positions and circular-buffer options, shared by the buffer,
pipeline-depth, TMA, tensor-core and circular-buffer analyses: the circular-buffer axis
(``cb_axis``), the axis on which a warp-specialized tensor's compute warp groups take turns
(``turn_axis``), the loops a pipeline iterates over (``pipeline_loops``), and whether a shared tile
is read by TMA stores whose wait is deferred (``deferred_store_tile``).
"""

from __future__ import annotations

from fusion_ir import IterDomain, TensorView, WarpSpecialized
from fusion_ir.exprs import load_kind
from fusion_ir.types import LoadStoreOpType

from ..errors import LoweringError
from .id_model import IdModel, LoopGroup


def serial_loops(ids: IdModel, tv: TensorView) -> list[int]:
    """Positions in ``tv.loop`` of the serial loops left of its compute-at position (not loop broadcasts),
    outermost first."""
    return [k for k in range(tv.compute_at_pos) if ids.group(tv.loop[k]).is_loop and not tv.loop[k].is_broadcast]


def cb_axis(ids: IdModel, tv: TensorView) -> int:
    """Position in ``tv.loop`` of its circular-buffer axis.

    Pipelined: the innermost serial loop axis left of the compute-at position;
    WarpSpecialized: the outermost one.
    """
    opts = tv.circular_buffer_options
    assert opts is not None
    candidates = serial_loops(ids, tv)
    if not candidates:
        raise LoweringError(f"T{tv.name} is circular-buffered but has no serial loop left of its compute-at "
                            f"position {tv.compute_at_pos}; compute it at a position inside a serial loop")
    if isinstance(opts.type, WarpSpecialized):
        return candidates[0]
    return candidates[-1]


def turn_axis(ids: IdModel, tv: TensorView) -> IterDomain | None:
    """The axis of a warp-specialized tensor bound to its ``on`` thread dimension between its
    circular-buffer axis and its compute-at position, or None.

    Its consumers' warp groups then take turns: group ``w`` reads the iterations with that index
    ``w``, the producer walks the axis as a serial loop, and the index is part of the pipeline's
    iteration (each stage holds one group's data, not all of them)."""
    opts = tv.circular_buffer_options
    if opts is None or not isinstance(opts.type, WarpSpecialized):
        return None
    axis = cb_axis(ids, tv)
    on = [i for i in tv.loop[axis + 1:tv.compute_at_pos] if ids.group(i).parallel_type is opts.type.on
          and not i.is_broadcast]
    return on[0] if on else None


def pipeline_loops(ids: IdModel, tv: TensorView) -> list[LoopGroup]:
    """The loops a circular-buffered tensor's pipeline iterates over: its circular-buffer loop and,
    when warp-specialized, the loops inside it up to the compute-at position and its ``turn_axis``."""
    axis = cb_axis(ids, tv)
    outer = ids.group(tv.loop[axis])
    if not isinstance(tv.circular_buffer_options.type, WarpSpecialized):
        return [outer]
    turn = turn_axis(ids, tv)
    return [outer] + [ids.group(i) for i in tv.loop[axis + 1:tv.compute_at_pos]
                      if (ids.group(i).is_loop or i is turn) and not i.is_broadcast]


def store_ring(ids: IdModel, tv: TensorView) -> int:
    """The tiles of the ring ``tv`` is, as the shared tile of a TMA store with a deferred wait over several tiles
    (``TensorView.set_store_wait(..., stages=)``); 1 for any other tensor."""
    return max([c.store_stages for c in ids.consumers(tv) if load_kind(c) is LoadStoreOpType.TMAStore
                and c.store_wait.defers] or [1])


def ring_axis(ids: IdModel, tv: TensorView) -> int | None:
    """Position in ``tv.loop`` of the loop a deferred TMA store's tile rotates over: the innermost serial loop left of
    its compute-at position (allocated outside it); None when no loop encloses it."""
    loops = serial_loops(ids, tv)
    return loops[-1] if loops else None


def deferred_store_tile(ids: IdModel, tv: TensorView) -> bool:
    """``tv`` is the shared tile of a TMA store whose wait is deferred (``TensorView.set_store_wait``)."""
    return any(load_kind(c) is LoadStoreOpType.TMAStore and c.store_wait.defers
               for c in ids.consumers(tv))
