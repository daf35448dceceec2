"""Lane-group reductions: a reduction whose thread axis merges iteration axes with an inner reduction axis
(``TensorView.merge_lanes``), bound to TIDx. The threads that differ only in the inner part are ``lanes``
consecutive lanes of one warp; they combine their partials by ``shfl.xor`` steps of lane masks ``1, 2, ..,
lanes / 2`` (``WarpShuffleXor``), after which every lane of the group holds the result. No shared memory, no
barrier: a row reduction of a wgmma accumulator fragment (the 4 lanes of a quad hold a row's column pairs).

Built by ``id_model.build`` (``IdModel.lane_reductions``): ``find`` before the cross-thread reads are checked,
``check_whole_warps`` once the launch extents are known.
Guarantees, raised as ``LoweringError`` otherwise: the lane axis is bound to TIDx, the launched TIDx extent is
whole warps (a shuffle with a full mask needs every lane of the warp), and the tensor reduces over no other thread
index (a lane group and a block reduction in one tensor are not implemented).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fusion_ir import IterDomain, ParallelType, TensorView
from fusion_ir.iter_domain import lane_group
from fusion_ir.scalar import Val
from target import current as current_target

from ..errors import LoweringError


@dataclass(frozen=True)
class LaneReduction:
    """``tv`` reduces across groups of ``lanes`` consecutive lanes of TIDx (its ``axis``, a ``merge_lanes`` axis)."""

    tv: TensorView
    axis: IterDomain
    lanes: int

    @property
    def lane_masks(self) -> tuple[int, ...]:
        """The butterfly steps' lane masks: ``1, 2, .., lanes / 2``."""
        return tuple(1 << k for k in range(self.lanes.bit_length() - 1))


def find(computed: list[TensorView], binding: Callable[[IterDomain], ParallelType]) -> dict[TensorView, LaneReduction]:
    """The lane-group reductions among ``computed`` (``binding``: an axis's parallel type after propagation)."""
    found: dict[TensorView, LaneReduction] = {}
    for tv in computed:
        axis = next((i for i in tv.loop if lane_group(i) is not None), None)
        if axis is None:
            continue
        lanes = lane_group(axis)
        assert lanes is not None
        pt = binding(axis)
        if pt is not ParallelType.TIDx:
            raise LoweringError(f"T{tv.name} axis {axis.label()} merges row axes with {lanes} reduction lanes "
                                f"(merge_lanes) but is bound to {pt.name}: bind it to TIDx, whose low bits are the "
                                f"lanes of a warp that reduce by shuffles")
        others = [i for i in tv.loop if i is not axis and i.is_reduction and binding(i).is_thread]
        if others:
            raise LoweringError(f"T{tv.name} reduces across lane groups ({axis.label()}) and over thread index "
                                f"{binding(others[0]).name} ({others[0].label()}); a lane-group reduction and a block "
                                f"reduction in one tensor are not implemented: rfactor one of them")
        found[tv] = LaneReduction(tv, axis, lanes)
    return found


def check_whole_warps(found: dict[TensorView, LaneReduction], tidx: Val) -> None:
    """The shuffles run in whole warps: ``tidx``, the launched TIDx extent, is a constant multiple of the warp."""
    warp = current_target().warp_size
    threads = tidx.const_value()
    for tv, lane in found.items():
        if threads is None or threads % warp:
            raise LoweringError(f"T{tv.name} reduces across lane groups ({lane.axis.label()}) by warp shuffles, "
                                f"which every lane of a warp runs; the launched TIDx extent {tidx} must be a "
                                f"constant multiple of the warp size ({warp})")
