"""The analyses passes share: built once by their pipeline step, typed, read-only afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

import examples
from fusion_ir import LoadStoreOpType, load_kind
from lowering import LoweringError, lower
from lowering.analysis import Analyses
from lowering.analysis.roles import Role, sub_dags
from lowering.pipeline import PIPELINE, Analysis

ROOT = Path(__file__).resolve().parents[2]


def test_stage_and_parity_are_functions_of_the_iteration() -> None:
    traced = lower(examples.load("seed_circular_buffer").build(), trace=True)
    circular = traced.analyses.circular
    (loop,) = circular.loops.values()
    i = loop.index
    assert str(loop.stage(i)) == f"{i} % {loop.stages}"
    assert str(loop.parity(i)) == f"({i} / {loop.stages}) % 2"
    assert str(loop.empty(loop.stage(i + 1))) == f"(({i} + 1) % {loop.stages}) + {loop.stages}"
    (tv,) = loop.tensors
    assert str(circular.stage_offset(tv)) == f"({i} % {loop.stages}) * {circular.stage_sizes[tv]}"
    mbar, slot = traced.analyses.mbarriers.slot(tv)
    assert mbar.name == f"T{tv.name}_mbar" and slot == loop.full(loop.stage(i))


def test_analysis_steps_leave_the_kernel_as_it_was() -> None:
    traced = lower(examples.load("tma_add").build(), trace=True)
    kinds = {step.name: isinstance(step, Analysis) for step in PIPELINE}
    previous = None
    for record in traced.passes:
        assert record.is_analysis == kinds[record.name]
        if record.is_analysis and previous is not None:
            assert record.kernel is previous
        previous = record.kernel


def test_reading_an_analysis_before_its_step_is_an_internal_error() -> None:
    analyses = Analyses(examples.load("pointwise_2d").build())
    with pytest.raises(RuntimeError, match="'circular' analysis is read before"):
        analyses.circular


def test_a_lowering_error_names_the_step_that_raised_it() -> None:
    bad = examples.load("tma_tile_2d").build()
    tile = next(tv for tv in bad.used_tensors() if load_kind(tv) is LoadStoreOpType.TMA)
    tile.loop[2].parallel_type = tile.loop[2].parallel_type.TIDy   # behind the schedule API's back
    with pytest.raises(LoweringError) as info:
        lower(bad)
    assert info.value.lowering_step == "tma"
    assert "TIDy" in str(info.value)


def test_load_and_compute_sub_dags() -> None:
    fusion = examples.load("tma_add").build()
    roles = sub_dags(fusion)
    loads = {f"T{tv.name}" for tv, r in roles.items() if r is Role.Load}
    assert loads and all(load_kind(tv) is LoadStoreOpType.TMA or tv.is_input
                         for tv, r in roles.items() if r is Role.Load)
    assert all(r is Role.Compute for tv, r in roles.items() if tv.is_output)


def test_passes_talk_through_analyses_only() -> None:
    for path in (ROOT / "lowering").rglob("*.py"):
        text = path.read_text()
        assert "notes[" not in text, path
        if path.parent.name == "passes":
            others = [p.stem for p in path.parent.glob("*.py") if p.stem not in (path.stem, "__init__")]
            for other in others:
                assert f"from .{other} import" not in text and f"passes.{other}" not in text, (path, other)
