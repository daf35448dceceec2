"""What every scheduler of ``fusion_ir.schedulers.schedule`` provides, and the sizes it reads.

A scheduler is one module with three functions behind a ``Scheduler`` object:

- ``decline(fusion, sizes) -> str | None``: None when it takes the fusion, else one sentence saying why not
  (``schedule`` prints every scheduler's reason when none takes a fusion);
- ``suggest(fusion, sizes) -> HeuristicParams``: the heuristic; a frozen dataclass of every choice, with
  ``why`` naming the rule behind each field;
- ``apply(fusion, params) -> None``: schedules every tensor of the fusion in place from ``params``.

A module exposes ``SCHEDULER`` (an object with these three, or ``FunctionScheduler(name, decline, suggest, apply)``
over its module-level functions), and ``registry.SCHEDULERS`` lists it in order.

``sizes`` holds one shape per fusion input, in the order of ``fusion.inputs`` (the inputs ``execute`` would
get); ``input_shapes`` resolves them against the fusion's constant extents.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Protocol

from ..fusion import Fusion
from ..types import ScheduleError

Sizes = Sequence[Sequence[int]]


@dataclass(frozen=True)
class HeuristicParams:
    """The base of every scheduler's parameters: its name and, per field, the rule that chose it."""

    scheduler: str
    why: Mapping[str, str] = field(default_factory=dict, compare=False)

    def summary(self) -> str:
        """One line: the scheduler and every field's value (``pointwise scheduler: reference=T3, vectorize=4, ..``)."""
        values = ", ".join(f"{f.name}={getattr(self, f.name)!s}" for f in fields(self)
                           if f.name not in ("scheduler", "why"))
        return f"the {self.scheduler} scheduler: {values}"

    def __str__(self) -> str:
        lines = [f"{type(self).__name__} ({self.scheduler} scheduler)"]
        for f in fields(self):
            if f.name in ("scheduler", "why"):
                continue
            rule = self.why.get(f.name)
            lines.append(f"  {f.name} = {getattr(self, f.name)!r}" + (f"  # {rule}" if rule else ""))
        return "\n".join(lines)


class Scheduler(Protocol):
    name: str

    def decline(self, fusion: Fusion, sizes: Sizes | None) -> str | None: ...

    def suggest(self, fusion: Fusion, sizes: Sizes | None) -> HeuristicParams: ...

    def apply(self, fusion: Fusion, params: HeuristicParams) -> None: ...


@dataclass(frozen=True)
class FunctionScheduler:
    """A ``Scheduler`` made of a module's three functions (``SCHEDULER = FunctionScheduler("pointwise", decline,
    suggest, apply)``): what ``schedule`` asks in turn."""

    name: str
    decline: Callable[[Fusion, Sizes | None], str | None]
    suggest: Callable[[Fusion, Sizes | None], HeuristicParams]
    apply: Callable[[Fusion, HeuristicParams], None]


def input_shapes(fusion: Fusion, sizes: Sizes | None, caller: str = "schedule") -> list[tuple[int, ...]]:
    """Every input's shape: ``sizes`` where given, checked against the constant extents; else the constant
    extents themselves. A ScheduleError names the input whose size is unknown or does not match."""
    if sizes is not None and len(sizes) != len(fusion.inputs):
        raise ScheduleError(f"{caller}: sizes has {len(sizes)} shapes but the fusion has {len(fusion.inputs)} "
                            f"inputs; give one shape per input, in the order of fusion.inputs")
    shapes: list[tuple[int, ...]] = []
    for k, tv in enumerate(fusion.inputs):
        consts = [i.extent.const_value() for i in tv.shape_ids]
        if sizes is None:
            if any(c is None for c in consts):
                raise ScheduleError(f"{caller}: input T{tv.name} has symbolic extents; pass sizes=[...] (one "
                                    f"shape per input) or schedule it at execute, where the inputs give them")
            shapes.append(tuple(int(c) for c in consts))
            continue
        given = tuple(int(s) for s in sizes[k])
        if len(given) != len(consts):
            raise ScheduleError(f"{caller}: sizes[{k}] = {given} has {len(given)} dims but input T{tv.name} "
                                f"has {len(consts)}")
        for d, (g, c) in enumerate(zip(given, consts)):
            if g < 1:
                raise ScheduleError(f"{caller}: sizes[{k}][{d}] = {g} for input T{tv.name}: extents must be >= 1")
            if c is not None and c != g:
                raise ScheduleError(f"{caller}: sizes[{k}][{d}] = {g} but input T{tv.name} axis {d} has the "
                                    f"constant extent {c}")
        shapes.append(given)
    return shapes
