"""The matmul scheduler as an entry of ``schedule``'s registry: ``schedule_matmul`` and
``suggest_matmul_params`` behind the ``Scheduler`` protocol, their ``MatmulParams`` wrapped in
``MatmulHeuristic`` (a ``HeuristicParams`` naming the scheduler, printing each field with its rule)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..exprs import MmaOp
from ..fusion import Fusion
from ..types import ScheduleError
from .matmul import schedule_matmul
from .matmul_choice import MatmulChoice
from .matmul_params import MatmulParams
from .matmul_problem import matmul_problem
from .matmul_why import field_values, given_why, params_name
from .protocol import FunctionScheduler, HeuristicParams, Sizes
from .suggest import suggest_matmul_params

NAME = "matmul"


@dataclass(frozen=True)
class MatmulHeuristic(HeuristicParams):
    """``MatmulParams`` as ``schedule`` returns them: ``params`` and, once applied, ``schedule_matmul``'s
    ``choice`` (the problem, its key and where each field came from: rule, tuned or given)."""

    scheduler: str = NAME
    params: MatmulParams | None = None
    choice: MatmulChoice | None = None

    def summary(self) -> str:
        return "the matmul scheduler: " + (params_name(self.params) if self.params is not None else "no params")

    def __str__(self) -> str:
        if self.params is None:
            return f"{type(self).__name__} ({self.scheduler} scheduler): no params"
        why = self.params.why if self.params.why is not None else given_why(self.params)
        head = f"{type(self).__name__} ({self.scheduler} scheduler): {params_name(self.params)} ({why.source}: "
        lines = [head + f"{why.summary})"]
        for name, value in field_values(self.params):
            if name == "why":
                continue
            reason = why.reason(name)
            lines.append(f"  {name} = {value}" + (f"  # {reason}" if reason else ""))
        return "\n".join(lines)


def decline(fusion: Fusion, sizes: Sizes | None) -> str | None:
    """None for a fusion with one matmul whose operands ``schedule_matmul`` takes (else its reason)."""
    mmas = [e for e in fusion.exprs if isinstance(e, MmaOp)]
    if not mmas:
        return "the fusion has no matmul (ops.matmul)"
    try:
        matmul_problem(fusion, caller="matmul scheduler")
    except ScheduleError as e:
        return str(e)
    return None


def suggest(fusion: Fusion, sizes: Sizes | None) -> MatmulHeuristic:
    """``suggest_matmul_params(fusion)``: the fusion's constant extents (symbolic ones get the arrangement with the
    best worst case; ``sizes`` does not change them: the kernel is built for the fusion's extents)."""
    params = suggest_matmul_params(fusion)
    why = {"params": params.why.summary if params.why is not None else "suggest_matmul_params"}
    return MatmulHeuristic(params=params, why=why)


def apply(fusion: Fusion, params: HeuristicParams) -> None:
    """``schedule_matmul(fusion, params.params)``."""
    if not isinstance(params, MatmulHeuristic) or params.params is None:
        raise ScheduleError(f"matmul scheduler: params must be MatmulHeuristic(params=MatmulParams(...)), got "
                            f"{type(params).__name__}")
    schedule_matmul(fusion, params.params)


def applied(fusion: Fusion, params: MatmulHeuristic) -> MatmulHeuristic:
    """``params`` with the choice ``schedule_matmul`` recorded on ``fusion``."""
    choice = fusion.scheduler_choice
    return replace(params, choice=choice) if isinstance(choice, MatmulChoice) else params


SCHEDULER = FunctionScheduler(NAME, decline, suggest, apply)
