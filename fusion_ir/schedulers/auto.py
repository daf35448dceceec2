"""Scheduling at the point of use: ``lower``, ``simulate``, ``execute`` and ``viz`` of a fusion with no schedule at
all (``unscheduled.schedule_marks``) call ``schedule`` first and say so with an ``AutoScheduleWarning``, instead
of lowering every loop onto one thread. A hand schedule, however partial, is never touched. A fusion meant to run
as one thread says so: ``fusion.auto_schedule = False``."""

from __future__ import annotations

import warnings

from ..fusion import Fusion
from ..types import ScheduleError
from .protocol import HeuristicParams, Sizes, input_shapes
from .registry import schedule
from .unscheduled import schedule_marks


class AutoScheduleWarning(UserWarning):
    """A fusion with no schedule was scheduled by ``schedule`` (or, no scheduler taking it, left as one thread)."""


def auto_schedule(fusion: Fusion, sizes: Sizes | None = None, *, caller: str = "lower",
                  stacklevel: int = 3) -> HeuristicParams | None:
    """``schedule(fusion, sizes)`` when ``fusion`` has no schedule at all and ``fusion.auto_schedule`` is on,
    with a warning naming the scheduler and its params; the params, or None when nothing was scheduled (a
    scheduled fusion, ``auto_schedule`` off, or no scheduler taking it: then a warning with every reason)."""
    if not getattr(fusion, "auto_schedule", True) or schedule_marks(fusion):
        return None
    if sizes is not None:
        try:
            input_shapes(fusion, sizes, caller)
        except ScheduleError:
            sizes = None          # the run refuses those inputs itself, with the input's name
    try:
        params = schedule(fusion, sizes)
    except ScheduleError as e:
        warnings.warn(f"{caller}: the fusion has no schedule and {e}\n{caller}: it runs unscheduled, every loop on "
                      f"one thread (set fusion.auto_schedule = False to ask for that and silence this)",
                      AutoScheduleWarning, stacklevel=stacklevel)
        return None
    warnings.warn(f"{caller}: the fusion had no schedule; schedule() scheduled it with {params.summary()} "
                  f"(fusion.scheduler_choice; viz --show heuristics shows why; fusion.auto_schedule = False keeps it "
                  f"one thread)",
                  AutoScheduleWarning, stacklevel=stacklevel)
    return params
