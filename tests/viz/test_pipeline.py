"""viz/pipeline.py: the circular-buffer timeline read from the simulator's trace."""

from __future__ import annotations

import pytest

import examples
from lowering import kernel_ir as k
from lowering import lower
from runtime import InputError
from tests.codegen.sample_kernels import pointwise, tma_circular_buffer, warp_specialized
from viz.pipeline import candidate_shapes, distinct_stage_indices, pipeline_view
from viz.view import render_text


def events(view, **match) -> list[dict]:
    return [e for e in view.data["events"] if all(e[key] == value for key, value in match.items())]


def test_pipelined_loads_fill_stages_round_robin_and_computes_wait_in_order() -> None:
    view = pipeline_view(tma_circular_buffer(stages=3).kernel)
    assert view.exit_code == 0 and view.data["error"] is None
    assert (view.data["stages"], view.data["prefetch"], view.data["barriers"]) == (3, 2, ["T4"])
    loads = events(view, kind="tma.issue")
    assert [(e["stage"], e["slot"]) for e in loads] == [("prologue", 0), ("prologue", 1), ("main", 2), ("main", 0),
                                                         ("main", 1)]
    assert [e["text"] for e in loads] == [f"load T1 <- ({128 * t})" for t in range(5)]
    started = [e for e in events(view, kind="mbarrier.wait_parity", stage="main") if not e["text"].endswith("passed")]
    assert [(e["where"], e["slot"]) for e in started] == [("main i7=0", 0), ("main i7=1", 1), ("main i7=2", 2)]
    assert [e["slot"] for e in events(view, kind="mbarrier.init")] == [0, 1, 2]
    assert [e["slot"] for e in events(view, kind="mbarrier.inval")] == [0, 1, 2]
    assert view.data["omitted_events"] > 0      # 8 tiles: main iterations 3 to 5 are left out
    text = render_text(view, width=120)
    assert "pipeline timeline" in text and "│ stage 0 " not in text   # stage columns are headers, not cells
    assert "stage 2" in text and "events of later iterations left out" in text


def test_waits_of_several_warps_for_one_stage_share_a_row() -> None:
    view = pipeline_view(tma_circular_buffer(stages=2).kernel)   # 128 threads: 4 warps wait on every stage
    started = [e for e in events(view, kind="mbarrier.wait_parity", where="main i7=0")
               if not e["text"].endswith("passed")]
    assert sorted(t for e in started for t in e["tasks"]) == ["warp 0", "warp 1", "warp 2", "warp 3"]
    assert len(started) < 4


def test_warp_specialized_async_and_compute_warps_with_war_barriers() -> None:
    view = pipeline_view(warp_specialized(stages=3).kernel)
    assert view.exit_code == 0 and view.data["stages"] == 3
    loads = events(view, kind="tma.issue")
    assert loads and {e["stage"] for e in loads} == {"AsyncWarp"}
    assert [e["slot"] for e in loads[:3]] == [0, 1, 2]
    war_waits = [e for e in events(view, stage="AsyncWarp") if e["text"].startswith("WAR wait parity")]
    assert war_waits and all(e["slot"] is not None for e in war_waits)
    assert any(e["text"] == "WAR arrive" for e in events(view, stage="ComputeWarp"))
    assert any(e["text"].startswith("wait parity 0") for e in events(view, stage="ComputeWarp"))


def test_cp_async_pipeline_shows_copies_commits_and_waits() -> None:
    kernel = lower(examples.load("cp_async_pipeline").build())
    view = pipeline_view(kernel, examples.load("cp_async_pipeline").SIZES)
    copies = events(view, kind="cp_async.issue")
    assert [(e["stage"], e["slot"]) for e in copies[:5]] == [("prologue", 0), ("prologue", 1), ("main", 2),
                                                             ("main", 0), ("main", 1)]
    assert events(view, kind="async.commit") and all(e["slot"] is None for e in events(view, kind="async.wait"))
    assert "async groups" in render_text(view, width=120)


def test_stage_clones_that_share_an_index_are_told_apart() -> None:
    kernel = lower(examples.load("seed_circular_buffer").build())
    loops = [n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop) and n.stage is not None]
    assert len({lp.index.name for lp in loops}) < len(loops)      # prologue, main and epilogue share i1
    renamed, names = distinct_stage_indices(kernel)
    renamed_loops = [n for n in k.walk(renamed.body) if isinstance(n, k.ForLoop) and n.stage is not None]
    assert len({lp.index.name for lp in renamed_loops}) == len(loops)
    assert [names[lp.index.name] for lp in renamed_loops] == [(lp.index.name, lp.stage) for lp in loops]
    assert "i1@main" in str(renamed) and "i1@epilogue" in str(renamed)
    view = pipeline_view(kernel, examples.load("seed_circular_buffer").SIZES)
    wheres = {e["where"].split("=")[0] for e in view.data["events"] if e["where"]}
    assert {"prologue i1", "main i1", "epilogue i1", "pre-prologue s0", "post-epilogue s0"} <= wheres


def test_missing_loads_deadlock_and_the_view_reports_it_with_exit_code_2() -> None:
    kernel = tma_circular_buffer(stages=2).kernel
    starved = k.Kernel(**{**kernel.__dict__, "body": k.rewrite(kernel.body, lambda n: () if isinstance(
        n, k.TmaLoad) else None)})
    view = pipeline_view(starved)
    assert view.exit_code == 2
    assert view.data["error"].startswith("DeadlockError")
    assert events(view, kind="mbarrier.arrive_expect_tx")   # the timeline up to the deadlock is kept
    assert "DeadlockError" in render_text(view, width=120)


def test_kernel_without_circular_buffer_gets_a_note() -> None:
    view = pipeline_view(pointwise().kernel)
    assert view.exit_code == 0 and view.data["circular_buffered"] is False
    assert "no circular-buffered loop" in render_text(view)


def test_input_sizes_middle_first_then_largest() -> None:
    kernel = tma_circular_buffer().kernel
    sizes = [[(1,)], [(100,)], [(1000,)]]
    assert candidate_shapes(kernel, sizes) == [[(100,)], [(1000,)], [(1,)]]
    assert candidate_shapes(kernel, None)[0] == [(1000,)]


def test_no_accepted_size_is_an_input_error() -> None:
    kernel = tma_circular_buffer(stages=3).kernel   # needs at least 3 tiles of 128
    with pytest.raises(InputError, match="no input size passes the kernel's runtime checks"):
        pipeline_view(kernel, [[(10,)], [(20,)]])
