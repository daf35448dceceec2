"""viz/smem.py: offsets, sizes, kinds, live ranges and shared space of shared buffers, mbarriers and tokens."""

from __future__ import annotations

import json
import re
from dataclasses import replace

from fusion_ir.types import DataType
from lowering import kernel_ir as k
from tests.codegen.sample_kernels import (
    assign,
    c,
    fconst,
    load,
    local,
    loop,
    make_kernel,
    shared,
    sym,
    tma_circular_buffer,
    tma_token_2d,
    warp_specialized,
)
from viz.smem import smem_chart, smem_view
from viz.view import render_text


def lines_of(kernel: k.Kernel, needle: str) -> list[int]:
    return [n for n, line in enumerate(str(kernel).splitlines(), 1) if needle in line]


def test_circular_buffer_mbarriers_live_from_the_init_loop_to_the_inval_loop() -> None:
    kernel = tma_circular_buffer(stages=3).kernel
    chart = smem_chart(kernel)
    by_name = {b.name: b for b in chart.buffers}
    mbar, tile = by_name["T4"], by_name["T1"]
    assert (mbar.kind, tile.kind) == ("mbarrier", "tma")
    assert (mbar.offset.const_value(), mbar.nbytes.const_value(), mbar.align) == (1536, 24, 8)
    assert (tile.offset.const_value(), tile.nbytes.const_value(), tile.align) == (0, 1536, 128)
    init_loop = lines_of(kernel, "FOR i5 ")[0]
    inval = lines_of(kernel, "mbarrier::inval(T4")[0]
    assert mbar.live == (init_loop, inval)
    # the tile is live from the prologue loop (its first TMA write) to the end of the epilogue loop
    epilogue_end = lines_of(kernel, "every wait done before inval")[0] - 1
    assert tile.live == (lines_of(kernel, "FOR i6 ")[0], epilogue_end)
    assert [s.stage for s in chart.stages] == [k.Stage.PrePrologue, k.Stage.Prologue, k.Stage.Main,
                                               k.Stage.Epilogue, k.Stage.PostEpilogue]
    assert mbar.shares == () and tile.shares == () and chart.conflicts() == []


def test_token_array_is_listed_as_local_memory_with_its_live_range() -> None:
    kernel = tma_token_2d().kernel
    tokens = [b for b in smem_chart(kernel).buffers if b.kind == "token"]
    assert [(t.name, t.memory, t.offset) for t in tokens] == [("T5", "Local", None)]
    assert tokens[0].live == (lines_of(kernel, "T5[0] = mbarrier::arriveExpectTx")[0],
                              lines_of(kernel, "mbarrier::wait(T4")[0])
    text = render_text(smem_view(kernel))
    assert "(Local memory)" in text and "│ T5 " in text


def test_warp_specialized_full_and_empty_barriers_are_one_array() -> None:
    chart = smem_chart(warp_specialized(stages=3).kernel)
    mbar = next(b for b in chart.buffers if b.kind == "mbarrier full+empty")
    assert mbar.elements.const_value() == 6 and mbar.live is not None
    assert [s.stage for s in chart.stages] == [k.Stage.PrePrologue, k.Stage.AsyncWarp, k.Stage.ComputeWarp,
                                              k.Stage.PostEpilogue]


def reuse_kernel(second_offset: int) -> k.Kernel:
    """Two 512-byte shared buffers used one after the other; the second at ``second_offset``."""
    a, b = shared("T1", 128), shared("T2", 128)
    out = local("T3", 1)
    body = [
        k.Allocate(a, c(0)), k.Allocate(b, c(second_offset)), k.Allocate(out),
        loop("i4", 0, 128, [assign(a, sym("i4"), fconst(1.0))]),
        assign(out, 0, load(a, 5)),
        k.BlockSync("WAR: T2 reuses T1"),
        loop("i5", 0, 128, [assign(b, sym("i5"), load(out, 0))]),
    ]
    return make_kernel("reuse_kernel", body, [], [], (1,), (1,), smem=512 + second_offset)


def test_buffers_that_share_bytes_are_named_and_overlapping_lives_are_conflicts() -> None:
    chart = smem_chart(reuse_kernel(0))
    by_name = {b.name: b for b in chart.buffers}
    assert by_name["T1"].shares == ("T2",) and by_name["T2"].shares == ("T1",)
    assert by_name["T1"].live[1] < by_name["T2"].live[0]
    assert chart.conflicts() == []
    assert smem_chart(reuse_kernel(512)).buffers[0].shares == ()

    # T2 written while T1 is still read afterwards: the shared bytes are a conflict
    kernel = reuse_kernel(0)
    late_read = assign(local("T3", 1), 0, load(shared("T1", 128), 7))
    clash = replace(kernel, body=kernel.body + (late_read,))
    assert smem_chart(clash).conflicts() == [("T1", "T2")]
    assert "live buffers share bytes: T1 and T2" in render_text(smem_view(clash))


def test_misaligned_offset_is_flagged() -> None:
    tile = shared("T1", 64, align=128)
    kernel = make_kernel("misaligned", [k.Allocate(tile, c(16)), assign(tile, 0, fconst(0.0))], [], [], (1,), (1,),
                         smem=272)
    assert smem_chart(kernel).buffers[0].aligned is False
    assert "misaligned" in render_text(smem_view(kernel))


def test_kernel_without_shared_memory_says_so() -> None:
    out = local("T1", 1, DataType.Float)
    kernel = make_kernel("no_smem", [k.Allocate(out), assign(out, 0, fconst(1.0))], [], [], (1,), (1,))
    view = smem_view(kernel)
    assert view.data["buffers"] == [] and "no shared memory" in render_text(view)


def test_lowered_warp_specialized_kernels_show_full_and_empty_barriers() -> None:
    import examples
    from lowering import lower

    chart = smem_chart(lower(examples.load("ws_tma_pointwise").build()))
    (mbar,) = [b for b in chart.buffers if b.kind.startswith("mbarrier")]
    assert mbar.kind == "mbarrier full+empty" and mbar.elements.const_value() == 8
    stages = [s.stage for s in chart.stages]
    assert k.Stage.AsyncWarp in stages and k.Stage.ComputeWarp in stages


def test_auto_stages_show_the_depth_picked_and_what_limited_it(viz, tmp_path) -> None:
    """``viz --show smem`` of a kernel whose pipeline was given ``stages="auto"``."""
    target = tmp_path / "auto_add.py"
    target.write_text("from examples import tma_add\n\n\ndef build():\n    return tma_add.build('auto', boxes=16, tiles=1000)\n")
    r = viz(str(target), "--show", "smem")
    assert r.code == 0 and r.err == ""
    assert 'circular-buffer depth picked for stages="auto"' in r.out
    assert re.search(r"│ iS8\{1000\} +│ T3, T4 +│ 7 +│ 6 +│ shared memory: 232,336 bytes left after", r.out)
    assert "each stage needs 32,776 bytes" in r.out
    doc = json.loads(viz(str(target), "--show", "smem", "--format", "json").out)
    (auto,) = doc["auto_stages"]
    assert (auto["tensors"], auto["stages"], auto["prefetch"], auto["limited_by"]) == (
        ["T3", "T4"], 7, 6, "shared memory")
    short = tmp_path / "short_add.py"
    short.write_text("from examples import tma_add\n\n\ndef build():\n    return tma_add.build('auto', tiles=8)\n")
    assert re.search(r"│ T3, T4 +│ 8 +│ 7 +│ the loop has only 8 iterations", viz(str(short), "--show", "smem").out)


def test_fixed_stages_show_no_depth_table(viz) -> None:
    r = viz("tma_add", "--show", "smem")
    assert r.code == 0 and "stages=\"auto\"" not in r.out
    assert json.loads(viz("tma_add", "--show", "smem", "--format", "json").out)["auto_stages"] == []


def test_ping_pong_c_tile_has_a_part_per_warp_group_live_through_the_tile_loop() -> None:
    from examples import matmul_epilogue
    from lowering import lower

    fusion = matmul_epilogue.build("alpha_beta", ping_pong=True, tile=(128, 128, 64), stages=2, blocks=2)
    kernel = lower(fusion)
    chart = smem_chart(kernel)
    c = fusion.inputs[2]
    (load,) = [n for n in k.walk(kernel.body) if isinstance(n, k.TmaLoad) and n.tensor_map.name == f"tmap_T{c.name}"]
    by_name = {b.name: b for b in chart.buffers}
    tile, mbar = by_name[load.dst.name], by_name[load.mbar.name]
    assert tile.nbytes.const_value() == 2 * 128 * 128 * 2 and mbar.nbytes.const_value() == 2 * 8
    assert tile.shares == () and chart.conflicts() == []
    assert load.dst.name in render_text(smem_view(kernel))
