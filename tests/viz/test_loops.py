"""viz/loops.py and viz/kir_view.py: the loop tree, its stage labels, and what each pass changed."""

from __future__ import annotations

import itertools

import examples
from lowering import kernel_ir as k
from lowering import lower
from tests.codegen.sample_kernels import tma_circular_buffer, vectorized_add, warp_specialized
from viz.kir_view import pass_changes
from viz.loops import STAGE_ORDER, STAGE_STYLE, loop_kind, loops_view
from viz.view import render_text


def stage_words(text: str) -> list[str]:
    names = {s.value for s in k.Stage}
    return [line.split()[-1] for line in text.splitlines() if line.split() and line.split()[-1] in names]


def test_pipelined_stages_render_in_program_order_each_in_its_own_colour() -> None:
    kernel = tma_circular_buffer(stages=3).kernel
    assert stage_words(render_text(loops_view(kernel))) == ["pre-prologue", "prologue", "main", "epilogue",
                                                            "post-epilogue"]
    assert len({STAGE_STYLE[s] for s in STAGE_ORDER}) == len(STAGE_ORDER)
    coloured = render_text(loops_view(kernel), no_color=False)
    for stage in STAGE_ORDER[:5]:
        assert stage.value in coloured
    assert "\x1b[" in coloured


def test_warp_specialized_branches_are_named() -> None:
    text = render_text(loops_view(warp_specialized().kernel))
    assert stage_words(text) == ["pre-prologue", "AsyncWarp", "ComputeWarp", "post-epilogue"]
    lines = [line.strip("│├└─ ") for line in text.splitlines()]
    branch, other = lines.index("if threadIdx.y == 2"), lines.index("else")
    async_loop = next(n for n, line in enumerate(lines) if line.endswith("AsyncWarp"))
    compute_loop = next(n for n, line in enumerate(lines) if line.endswith("ComputeWarp"))
    assert branch < async_loop < other < compute_loop


def test_one_line_per_loop_with_index_range_and_parallel_type() -> None:
    text = render_text(loops_view(vectorized_add().kernel))
    assert "for i3 in [0, 4)  unroll  iV5{4}" in text
    kernel = tma_circular_buffer(stages=3).kernel
    loops = [n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop)]
    assert [loop_kind(lp) for lp in loops] == ["serial", "unroll", "serial", "serial", "serial"]
    data = loops_view(kernel).data["body"]
    assert [n["node"] for n in data][:3] == ["Allocate", "Allocate", "elect_sync"]
    assert data[2]["body"][0]["stage"] == "pre-prologue"


def test_allocations_and_syncs_sit_in_place() -> None:
    text = render_text(loops_view(lower(examples.load("smem_staging").build())), width=200)
    lines = text.splitlines()
    alloc = next(n for n, line in enumerate(lines) if "ALLOC T2: Shared" in line)
    sync = next(n for n, line in enumerate(lines) if "__syncthreads();" in line)
    loops = [n for n, line in enumerate(lines) if "for i" in line]
    assert alloc < loops[0] < sync < loops[1]


def test_pass_changes_count_added_and_removed_lines() -> None:
    traced = lower(examples.load("smem_staging").build(), trace=True)
    changes = pass_changes(traced.passes)
    assert [c.name for c in changes] == [r.name for r in traced.passes]
    syncs = next(c for c in changes if c.name == "syncs")
    assert (syncs.added, syncs.removed) == (1, 0) and any("__syncthreads" in d for d in syncs.diff)
    for before, after in itertools.pairwise(changes):
        assert after.lines - before.lines == after.added - after.removed


def test_launch_requirements_head_the_loop_nest_and_the_kir_listing(viz) -> None:
    """The rules lowering recorded on the arguments: in the loops tree, its JSON and the kernel IR listing."""
    rule = "T0: TMA needs strides that are multiples of 16 bytes"
    lines = viz("tma_tile_2d").out.splitlines()
    assert f"requires {rule}  (((T0_stride0 * 4) % 16) == 0)" in lines[1]
    kir = viz("tma_tile_2d", "--show", "kir").out
    assert f"REQUIRE ((T0_stride0 * 4) % 16) == 0  // {rule}" in kir
    import json

    doc = json.loads(viz("tma_tile_2d", "--show", "loops,kir", "--format", "json").out)
    for view in doc["views"]:
        assert view["launch_requirements"] == [{"tensor": "T0", "rule": "TMA needs strides that are multiples of "
                                                "16 bytes", "holds": "((T0_stride0 * 4) % 16) == 0"}]
    assert "requires" not in viz("tma_add").out   # a 1-D TMA tensor has no stride to check
