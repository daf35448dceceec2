"""Why a matmul schedule has the parameters it has: ``ParamsWhy``, attached to the ``MatmulParams``
that ``suggest_matmul_params`` returns (``params.why``), and ``MatmulChoice``, what ``schedule_matmul``
records on the fusion it scheduled (``fusion.scheduler_choice``) for ``viz --show heuristics``.

Three sources: ``"rule"`` (the rules of ``suggest.py``: which branch of the arrangement fired and, per
field, the rule that decided it), ``"tuned"`` (a winner of ``runtime.tuning.tune_matmul`` read back
from the tuning cache: device, date, measured time, the candidates tried) and ``"given"`` (the caller
passed the params to ``schedule_matmul``)."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal

from ..types import DataType

if TYPE_CHECKING:
    from .matmul_params import MatmulParams
    from .matmul_problem import MatmulProblem
    from .tuning_cache import TunedEntry

Source = Literal["rule", "tuned", "given"]


@dataclass(frozen=True)
class FieldReason:
    """One ``MatmulParams`` field, its value as text, and what decided it."""

    name: str
    value: str
    reason: str


@dataclass(frozen=True)
class ParamsWhy:
    """Where a ``MatmulParams`` came from: ``summary`` in one line, ``fields`` field by field, and for a
    tuned choice the cache entry it was read from."""

    source: Source
    summary: str
    fields: tuple[FieldReason, ...] = ()
    tuned: TunedEntry | None = None

    def reason(self, name: str) -> str | None:
        """The reason given for field ``name``, or None."""
        return next((f.reason for f in self.fields if f.name == name), None)


def value_text(value: Any) -> str:
    """A field value as the views print it: tiles as ``128x256x64``, enums by their name or value."""
    if isinstance(value, tuple):
        return "x".join(str(v) for v in value) if all(isinstance(v, int) for v in value) else str(value)
    if isinstance(value, DataType):
        return value.name
    if hasattr(value, "value") and isinstance(value.value, str):
        return value.value
    return str(value)


def field_values(params: MatmulParams) -> list[tuple[str, str]]:
    """Every field of ``params`` with its value as text, in declaration order."""
    return [(f.name, value_text(getattr(params, f.name))) for f in fields(params)]


# ``why`` of live params by ``id``, dropped when they are collected (``weakref.finalize``): no attribute of the
# instance, so ``__dict__``, ``asdict``, equality, hashing and ``repr`` see only the fields, and
# ``dataclasses.replace`` (or ``MatmulParams(**p.__dict__)``) makes params without it: a changed params is no
# longer the choice it explains.
_WHY: dict[int, ParamsWhy] = {}


def with_why(params: MatmulParams, why: ParamsWhy) -> MatmulParams:
    """``params`` carrying ``why`` (``params.why``)."""
    key = id(params)
    _WHY[key] = why
    weakref.finalize(params, _WHY.pop, key, None)
    return params


def why_of(params: MatmulParams) -> ParamsWhy | None:
    return _WHY.get(id(params))


@dataclass(frozen=True)
class MatmulChoice:
    """What ``schedule_matmul`` scheduled a fusion with: the params, the problem it read from the fusion,
    the problem's tuning-cache key, and why (``params.why``, or ``"given"`` for params the caller passed)."""

    params: MatmulParams
    problem: MatmulProblem
    key: str
    why: ParamsWhy
    scheduler: str = "schedule_matmul"


def given_why(params: MatmulParams) -> ParamsWhy:
    """The reason of params the caller chose: every field as given."""
    return ParamsWhy("given", "schedule_matmul(fusion, params): the caller gave every field",
                     tuple(FieldReason(name, value, "given") for name, value in field_values(params)))
