"""Why a matmul schedule has the parameters it has: ``ParamsWhy``, which the ``MatmulParams`` that
``suggest_matmul_params`` returns carry (``params.why``, set by ``matmul_params.with_why``), and which
``schedule_matmul`` records on the fusion it scheduled (``matmul_choice.MatmulChoice``) for
``viz --show heuristics``.

Three sources: ``"rule"`` (the rules of ``suggest.py``: which branch of the arrangement fired and, per
field, the rule that decided it), ``"tuned"`` (a winner of ``runtime.tuning.tune_matmul`` read back
from the tuning cache: device, date, measured time, the candidates tried) and ``"given"`` (the caller
passed the params to ``schedule_matmul``)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal

from ..types import DataType

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
    tuned: Any = None       # a tuned choice's ``tuning_cache.TunedEntry`` (not imported: that module imports this one)

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


def params_name(params: Any) -> str:
    """A ``MatmulParams`` in one short line, e.g. ``ws persistent tma-store i32 128x256x64 s3 wg2``
    (``g4``: a ``group_m`` other than 8 on a persistent kernel, ``grid-g4``: a block per tile in grouped order
    (``grouped_grid``), ``raster-n``: the tiles grouped along N;
    ``split-k4``: four blocks per output tile; ``cluster2x1``: blocks of a cluster along M x N; ``sub128x64``: the
    epilogue's sub-tile, with ``r3`` a ring of other than 2 staging tiles; ``carried`` or ``deferred``: the TMA
    store's wait, where not the default)."""
    words = [w for w, on in (("ws", params.warp_specialized), ("persistent", params.persistent),
                             ("ping-pong", params.ping_pong), ("tma-store", params.tma_store),
                             ("i32", params.index_type is DataType.Int32)) if on]
    words += [value_text(params.tile), f"s{params.stages}", f"wg{params.compute_warp_groups}"]
    grouped = params.persistent or getattr(params, "grouped_grid", False)
    if getattr(params, "grouped_grid", False):
        words.append(f"grid-g{params.group_m}")
    elif params.persistent and params.group_m != 8:
        words.append(f"g{params.group_m}")
    if grouped and getattr(params, "raster", "m") != "m":
        words.append(f"raster-{params.raster}")
    if getattr(params, "split_k", 1) != 1:
        words.append(f"split-k{params.split_k}")
    if getattr(params, "stream_k", False):
        words.append(f"stream-k{params.blocks}")
    if params.cluster != (1, 1):
        words.append(f"cluster{params.cluster[0]}x{params.cluster[1]}")
    sub = getattr(params, "epilogue_tile", None)
    if sub is not None:
        words.append(f"sub{sub[0]}x{sub[1]}" + (f" r{params.epilogue_stages}" if params.epilogue_stages != 2 else ""))
    wait = getattr(params, "store_wait", "after_boxes")
    wait = getattr(wait, "value", wait)
    if wait != "after_boxes":
        words.append(str(wait))
    return " ".join(words)


def field_values(params: Any) -> list[tuple[str, str]]:
    """Every field of ``params`` with its value as text, in declaration order."""
    return [(f.name, value_text(getattr(params, f.name))) for f in fields(params)]


def given_why(params: Any) -> ParamsWhy:
    """The reason of params the caller chose: every field as given."""
    return ParamsWhy("given", "schedule_matmul(fusion, params): the caller gave every field",
                     tuple(FieldReason(name, value, "given") for name, value in field_values(params)))
