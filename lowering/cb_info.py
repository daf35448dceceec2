"""Which loop a circular-buffered tensor is buffered on, computed in one place for every pass."""

from __future__ import annotations

from fusion_ir import TensorView, WarpSpecialized

from .context import LoweringContext
from .errors import LoweringError


def cb_axis(ctx: LoweringContext, tv: TensorView) -> int:
    """Position in ``tv.loop`` of its circular-buffer axis.

    Pipelined: the innermost serial loop axis left of the compute-at position;
    WarpSpecialized: the outermost one.
    """
    opts = tv.circular_buffer_options
    assert opts is not None
    candidates = [k for k in range(tv.compute_at_pos) if ctx.group(tv.loop[k]).is_loop
                  and not tv.loop[k].is_broadcast]
    if not candidates:
        raise LoweringError(f"T{tv.name} is circular-buffered but has no serial loop left of its compute-at "
                            f"position {tv.compute_at_pos}; compute it at a position inside a serial loop")
    if isinstance(opts.type, WarpSpecialized):
        return candidates[0]
    return candidates[-1]
