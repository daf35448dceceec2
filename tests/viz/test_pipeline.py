"""viz/pipeline.py: the circular-buffer timeline read from the simulator's trace."""

from __future__ import annotations

import pytest

import examples
from lowering import kernel_ir as k
from lowering import lower
from runtime import InputError
from tests.codegen.sample_kernels import pointwise, tma_circular_buffer, warp_specialized
from viz.elected import elected_warps
from viz.pipeline import candidate_shapes, distinct_stage_indices, more_tiles, pipeline_view
from viz.view import render_text
from viz.warp_roles import warp_roles


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


# ---------------------------------------------------------------- warp-specialized kernels: roles, turns, tiles
@pytest.fixture(scope="module")
def ping_pong():
    ex = examples.load("matmul_ping_pong")
    return pipeline_view(lower(ex.build()), ex.SIZES)


@pytest.fixture(scope="module")
def cooperative():
    ex = examples.load("matmul_ws_persistent")
    return pipeline_view(lower(ex.build()), ex.SIZES)


def test_warp_roles_from_the_producer_branch() -> None:
    kernel = lower(examples.load("matmul_ping_pong").build())
    roles = warp_roles(kernel, (128, 3, 1))     # threadIdx.y == 2 is the producer: warps 8..11
    assert roles is not None
    assert {w: roles.roles[w] for w in (0, 3, 4, 7, 8, 11)} == {
        0: "compute wg0", 3: "compute wg0", 4: "compute wg1", 7: "compute wg1", 8: "producer", 11: "producer"}
    assert roles.of("warp 5") == "compute wg1" and roles.of("async proxy") is None
    assert roles.legend() == "producer: warps 8-11, compute wg0: warps 0-3, compute wg1: warps 4-7"
    sample = warp_specialized(stages=3).kernel      # if (threadIdx.y == 2): the producer, no branch_threads
    assert warp_roles(sample, (128, 3, 1)).roles[8] == "producer"
    assert warp_roles(tma_circular_buffer(stages=3).kernel, (128, 1, 1)) is None


def test_the_warp_an_elected_statement_runs_in_is_a_constant_or_the_simulators() -> None:
    elected = elected_warps(lower(examples.load("matmul_ping_pong").build()))
    assert elected["tma.issue"] == "warp 8"
    assert "tma_store.issue" not in elected      # each compute warp group elects in its own first warp


def test_ping_pong_names_the_role_of_every_task(ping_pong) -> None:
    assert ping_pong.exit_code == 0 and ping_pong.data["error"] is None
    assert ping_pong.data["roles"] == {"compute wg0": [0, 1, 2, 3], "compute wg1": [4, 5, 6, 7],
                                       "producer": [8, 9, 10, 11]}
    loads = events(ping_pong, kind="tma.issue")
    assert loads and {(e["role"], tuple(e["tasks"])) for e in loads} == {("producer", ("warp 8",))}
    wgmma = events(ping_pong, kind="wgmma.issue")
    assert {e["role"] for e in wgmma} == {"compute wg0", "compute wg1"}
    assert all(len(e["tasks"]) == 4 for e in wgmma if e["text"].startswith("wgmma ×"))   # one row per group
    text = render_text(ping_pong, width=100)
    assert "producer: warps 8-11, compute wg0: warps 0-3, compute wg1: warps 4-7" in text
    assert "producer warp 8" in text and "wg0 warp" in text and "wg1 warp" in text


def test_ping_pong_turns_have_their_own_column_in_order(ping_pong) -> None:
    assert ping_pong.data["barriers"] == ["T4_mbar"] and ping_pong.data["turn_barriers"] == ["T4_order"]
    turn = events(ping_pong, column="turn")
    assert turn and all(e["slot"] is None for e in turn)
    assert not [e for e in ping_pong.data["events"] if "T4_order" in e["text"]]   # not drawn as a stage

    def taken(e: dict) -> bool:       # a handoff, or a wait that ended (not the row of one that started)
        return e["kind"] in ("mbarrier.arrive", "mbarrier.wait_parity") and not e["text"].endswith("…")

    def section(what: str) -> list[str]:
        return [e["text"].removesuffix(" ✓").removesuffix(" passed") for e in turn if taken(e) and what in e["text"]]

    assert section("mainloop") == [
        "wg1 mainloop turn -> wg0",                                  # before the loop: wg0 goes first
        "wg0 waits its mainloop turn (parity 0)", "wg0 mainloop turn -> wg1",
        "wg1 waits its mainloop turn (parity 0)", "wg1 mainloop turn -> wg0",
        "wg0 waits its mainloop turn (parity 1)", "wg0 mainloop turn -> wg1",
        "wg1 waits its mainloop turn (parity 1)", "wg1 mainloop turn -> wg0"]
    assert section("epilogue") == [
        "wg1 epilogue turn -> wg0",
        "wg0 waits its epilogue turn (parity 0)", "wg0 epilogue turn -> wg1",
        "wg1 waits its epilogue turn (parity 0)", "wg1 epilogue turn -> wg0",
        "wg0 waits its epilogue turn (parity 1)", "wg0 epilogue turn -> wg1",
        "wg1 waits its epilogue turn (parity 1)", "wg1 epilogue turn -> wg0"]
    # wg0 issues its first tile's wgmma, hands the mainloop on, and only then does wg1 issue any
    rows = ping_pong.data["events"]
    first = {role: next(n for n, e in enumerate(rows) if e["kind"] == "wgmma.issue" and e["role"] == role)
             for role in ("compute wg0", "compute wg1")}
    handoff = next(n for n, e in enumerate(rows) if e["text"] == "wg0 mainloop turn -> wg1")
    assert first["compute wg0"] < handoff < first["compute wg1"]
    # each group's epilogue stores its own tile, in turn
    stores = events(ping_pong, kind="tma_store.issue")
    assert [e["role"] for e in stores] == ["compute wg0", "compute wg1"] * 2
    assert all(e["column"] == "turn" for e in stores)


def test_ping_pong_shows_the_first_two_tiles_of_each_compute_group(ping_pong) -> None:
    data = ping_pong.data
    assert data["tile_loop"] == "i4" and data["tiles_shown"] == 2
    assert all(n >= 2 for n in data["tiles_run"].values()) and data["omitted_events"] > 0
    # the SIZES give block 0 one tile of wg1: the output extents (M, N) double, K stays
    assert data["inputs"] == [[400, 200], [200, 528]]
    tiles = {role: {e["where"].split()[0] for e in events(ping_pong, kind="wgmma.issue", role=role)}
             for role in ("compute wg0", "compute wg1")}
    assert tiles == {"compute wg0": {"i4=0", "i4=1"}, "compute wg1": {"i4=0", "i4=1"}}
    words = " ".join(render_text(ping_pong, width=100).split())
    assert "the first 2 tiles (i4 iterations) of each compute warp group" in words
    assert "the output extents of (200, 200), (200, 264) doubled" in words
    assert "events of later tiles left out" in words


def test_ping_pong_fits_100_columns(ping_pong) -> None:
    text = render_text(ping_pong, width=100)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    header = next(line for line in lines if "stage 0" in line)
    assert all(f" stage {s} " in header for s in range(4)) and header.rstrip().endswith("turn")
    assert "wait_group 1" in text and "wg0 waits its" in text     # cells of two or three lines, words whole
    wide = render_text(ping_pong, width=220)             # room enough: a column each for where and task
    assert "┃ where " in wide and "┃ task " in wide and "wg1 waits its mainloop turn (parity 0) …" in wide


def test_cooperative_kernel_has_roles_and_tiles_but_no_turns(cooperative) -> None:
    data = cooperative.data
    assert data["turn_barriers"] == [] and not events(cooperative, column="turn")
    assert set(data["roles"]) == {"producer", "compute wg0", "compute wg1"}
    assert data["tile_loop"] == "i4" and data["tiles_run"] == {"compute wg0": 2, "compute wg1": 2}
    assert [e["column"] for e in events(cooperative, kind="tma_store.issue")] == ["async groups"] * 2
    text = render_text(cooperative, width=100)
    assert "turn" not in text and "async groups" in text


def test_more_tiles_doubles_the_extents_the_output_has() -> None:
    kernel = lower(examples.load("matmul_ping_pong").build())
    assert more_tiles(kernel, [(200, 200), (200, 264)]) == [(400, 200), (200, 528)]


def test_non_persistent_warp_specialized_kernel_keeps_the_iteration_window() -> None:
    view = pipeline_view(warp_specialized(stages=3).kernel)
    assert view.data["tile_loop"] is None and view.data["turn_barriers"] == []
    assert {e["role"] for e in events(view, stage="AsyncWarp")} == {"producer"}
    assert "the first 3 iterations of the steady-state loop" in render_text(view, width=120)


def test_an_auto_pipeline_shows_the_depth_the_lowering_picked() -> None:
    """``stages="auto"``: the fusion says "auto"; the stage columns come from the ``depths`` analysis."""
    traced = lower(examples.load("cp_async_pipeline").build("auto"), trace=True)
    depths = {f"T{tv.name}": traced.analyses.depths.stages(tv) for tv in traced.analyses.depths.resolved}
    assert depths == {"T3": 8}
    view = pipeline_view(traced.kernel, examples.load("cp_async_pipeline").SIZES, depths=depths)
    assert view.data["stages"] == 8 and view.data["prefetch"] == 7
    slots = {e["column"] for e in events(view) if e["kind"] == "cp_async.issue"}
    assert slots == {f"stage {s}" for s in range(8)}


def test_ping_pong_with_c_shows_each_groups_c_load_in_the_turn_column() -> None:
    """Each compute warp group loads the C tile of its own turn on a token barrier of its own: those events are
    the group's, in the turn column, not a pipeline stage's."""
    ex = examples.load("matmul_epilogue")
    kernel = lower(ex.build("residual", ping_pong=True, tile=(128, 128, 64), stages=2, blocks=2))
    view = pipeline_view(kernel, [[(256, 128), (128, 512), (256, 512)]])
    assert view.exit_code == 0 and view.data["error"] is None
    c_loads = [e for e in events(view, kind="tma.issue") if e["role"] != "producer"]
    assert {e["role"] for e in c_loads} == {"compute wg0", "compute wg1"}
    assert all(e["column"] == "turn" and e["slot"] is None for e in c_loads)
    assert all(e["role"] == "producer" for e in events(view, kind="tma.issue") if e["slot"] is not None)
    assert "load T11" in render_text(view, width=120)
