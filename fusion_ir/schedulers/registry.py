"""``schedule(fusion)``: nvFuser's scheduler registry. Each scheduler of ``SCHEDULERS`` is asked in turn whether
it takes the fusion (``decline``); the first that does chooses its params (``suggest``) and schedules every
tensor (``apply``). The params, with the rule behind each, are returned and kept as ``fusion.scheduler_choice``
(``viz --show heuristics`` prints them). A fusion no scheduler takes is a ``ScheduleError`` that gives every
scheduler's reason.
"""

from __future__ import annotations

from ..fusion import Fusion
from ..types import ScheduleError
from . import attention, matmul_entry, normalization, pointwise, reduction, transpose
from .matmul_params import MatmulParams
from .protocol import HeuristicParams, Scheduler, Sizes
from .unscheduled import schedule_marks


# The order nvFuser asks them in: the most specific first, pointwise (which takes any op chain) last.
SCHEDULERS: tuple[Scheduler, ...] = (
    attention.SCHEDULER,
    matmul_entry.SCHEDULER,
    reduction.SCHEDULER,
    normalization.SCHEDULER,
    transpose.SCHEDULER,
    pointwise.SCHEDULER,
)


def scheduler_named(name: str) -> Scheduler:
    """The registered scheduler called ``name``."""
    found = next((s for s in SCHEDULERS if s.name == name), None)
    if found is None:
        raise ScheduleError(f"schedule: no scheduler is named {name!r} (registered: "
                            f"{', '.join(s.name for s in SCHEDULERS)})")
    return found


def decline_reasons(fusion: Fusion, sizes: Sizes | None = None) -> dict[str, str | None]:
    """Every registered scheduler's answer for ``fusion``: its reason to decline, or None where it takes it."""
    return {s.name: s.decline(fusion, sizes) for s in SCHEDULERS}


def schedule(fusion: Fusion, sizes: Sizes | None = None, params: HeuristicParams | MatmulParams | None = None
             ) -> HeuristicParams:
    """Schedule every tensor of an unscheduled ``fusion`` with the first registered scheduler that takes it, at
    ``sizes`` (one shape per input, in the order of ``fusion.inputs``; None: the inputs' constant extents, or for
    symbolic ones a schedule that suits any size). ``params`` skips the heuristic: the scheduler they name
    (``params.scheduler``) applies them (a ``MatmulParams`` goes to the matmul scheduler). Returns the params,
    also kept as ``fusion.scheduler_choice``; a ScheduleError when the fusion is already scheduled, when no
    scheduler takes it (with each one's reason) or when the named one declines it."""
    if not isinstance(fusion, Fusion):
        raise ScheduleError(f"schedule: expected a Fusion, got {type(fusion).__name__}")
    marks = schedule_marks(fusion)
    if marks:
        raise ScheduleError(f"schedule: the fusion is already scheduled ({'; '.join(marks[:3])}); schedule starts "
                            f"from a fusion with no schedule at all, and never replaces a hand schedule")
    if isinstance(params, MatmulParams):
        params = matmul_entry.MatmulHeuristic(params=params, why={"params": "given"})
    if params is not None:
        if not isinstance(params, HeuristicParams):
            raise ScheduleError(f"schedule: params must be a scheduler's HeuristicParams (PointwiseParams, ...), got "
                                f"{type(params).__name__}")
        chosen = scheduler_named(params.scheduler)
        reason = chosen.decline(fusion, sizes)
        if reason is not None:
            raise ScheduleError(f"schedule: the {chosen.name} scheduler named by the params declines the fusion: "
                                f"{reason}")
        return _apply(fusion, chosen, params)
    reasons = {}
    for s in SCHEDULERS:
        reason = s.decline(fusion, sizes)
        if reason is None:
            return _apply(fusion, s, s.suggest(fusion, sizes))
        reasons[s.name] = reason
    listed = "\n".join(f"  {name}: {why}" for name, why in reasons.items())
    raise ScheduleError(f"schedule: no scheduler takes this fusion; schedule it by hand. Each scheduler's reason:\n"
                        f"{listed}")


def _apply(fusion: Fusion, scheduler: Scheduler, params: HeuristicParams) -> HeuristicParams:
    with fusion.transaction():
        scheduler.apply(fusion, params)
    if isinstance(params, matmul_entry.MatmulHeuristic):
        params = matmul_entry.applied(fusion, params)
    fusion.scheduler_choice = params
    return params
