"""What ``schedule_matmul`` records on the fusion it scheduled (``fusion.scheduler_choice``): the params,
the problem read from the fusion, its tuning-cache key and why those params (``viz --show heuristics``)."""

from __future__ import annotations

from dataclasses import dataclass

from .matmul_params import MatmulParams
from .matmul_problem import MatmulProblem
from .matmul_why import ParamsWhy


@dataclass(frozen=True)
class MatmulChoice:
    """The params ``schedule_matmul`` used, the problem, its key (``matmul_key.problem_key``) and why: the
    params' ``why`` (rule or tuned), or ``"given"`` for params the caller passed."""

    params: MatmulParams
    problem: MatmulProblem
    key: str
    why: ParamsWhy
    scheduler: str = "schedule_matmul"
