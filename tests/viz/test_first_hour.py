"""What a new user meets in ``viz``: close example names, files that define no fusion, lowering
errors instead of kernels, ptxas lines that are missing, and the warp the CUDA elects."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

import examples
from fusion_ir import Fusion, ops
from lowering import lower
from runtime import InputError, simulate
from viz import cuda_view
from viz.cli import make_view
from viz.elected import elected_warps
from viz.subject import Subject
from viz.target import TargetError, load_fusion, load_module
from viz.view import render_text


def test_a_misspelt_example_suggests_close_names(viz) -> None:
    assert "softmx" not in examples.names()
    r = viz("softmx")
    assert r.code == 2 and "did you mean softmax or softmax_like" in r.err   # (and auto_softmax, the third)


def test_a_name_close_to_nothing_suggests_nothing(viz) -> None:
    r = viz("qqqqqq")
    assert r.code == 2 and "did you mean" not in r.err and "viz --list" in r.err


def test_a_file_without_build_or_fusion_is_refused_before_it_runs(viz, tmp_path) -> None:
    marker = tmp_path / "ran"
    script = tmp_path / "nothing.py"
    script.write_text(f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\nx = 1\n")
    assert viz(str(script)).code == 2
    with pytest.raises(TargetError, match="defines neither build.* nor a module-level `fusion` .checked without "
                                          "running it"):
        load_module(str(script))
    assert not marker.exists()


def test_a_file_that_binds_names_dynamically_still_runs(viz, tmp_path) -> None:
    script = tmp_path / "dynamic.py"
    script.write_text("globals()['y'] = 1\n")
    with pytest.raises(TargetError) as e:
        load_fusion(str(script))
    assert "defines neither build() nor a module-level `fusion`" in str(e.value)
    assert "without running it" not in str(e.value)


def test_a_file_with_a_module_level_fusion_is_accepted(viz, tmp_path) -> None:
    script = tmp_path / "plain.py"
    script.write_text("from fusion_ir import Fusion, ops\nfusion = Fusion()\nwith fusion:\n"
                      "    x = fusion.add_input(ndim=1)\n    fusion.add_output(ops.neg(x))\n")
    assert viz(str(script), "--show", "fusion").code == 0


def test_a_block_over_the_thread_limit_is_an_error_not_a_kernel(viz, tmp_path) -> None:
    script = tmp_path / "wide.py"
    script.write_text("from fusion_ir import Fusion, ParallelType, ops\n\n\ndef build():\n    fusion = Fusion()\n"
                      "    with fusion:\n        x = fusion.add_input(ndim=2)\n        y = ops.exp(x)\n"
                      "        fusion.add_output(y)\n    y.split(1, 2048)\n"
                      "    y.axis(2).parallelize(ParallelType.TIDx)\n    return fusion\n")
    for show in ("loops", "cuda", "kir"):
        r = viz(str(script), "--show", show)
        assert r.code == 2 and r.out == "" and "LoweringError" in r.err and "1024 threads per block" in r.err


def test_resources_say_not_reported_without_a_constant_bank_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen import nvcc

    fake = SimpleNamespace(kernel="fusion_kernel", registers=16, barriers=1, static_smem_bytes=0, constant_bytes=0,
                           stack_bytes=0, spill_store_bytes=0, spill_load_bytes=0, spills=False,
                           log="ptxas info    : Used 16 registers", sass=None)
    monkeypatch.setattr(nvcc, "nvcc_available", lambda: True)
    monkeypatch.setattr(nvcc, "compile_check", lambda source, **options: fake)
    kernel = lower(examples.load("pointwise_2d").build())
    view = cuda_view.resources_view(kernel, "")
    assert view.data["constant_bytes"] is None
    assert re.search(r"constant bank 0\s+│\s+not reported", render_text(view, width=100))
    fake.log += "\nptxas info    : Used 16 registers, 380 bytes cmem[0]"
    fake.constant_bytes = 380
    assert cuda_view.resources_view(kernel, "").data["constant_bytes"] == 380


def test_the_pipeline_names_the_warp_the_cuda_elects() -> None:
    kernel = lower(examples.load("tma_tile_2d").build())   # 8 warps; elect.sync in warp 0
    assert elected_warps(kernel)["tma.issue"] == "warp 0"
    rows = make_view(Subject("tma_tile_2d"), "pipeline").data["events"]
    issued = [r for r in rows if r["kind"] in ("tma.issue", "mbarrier.arrive_expect_tx", "mbarrier.init")]
    assert issued and all(r["tasks"] == ["warp 0"] for r in issued)


def test_a_shape_mismatch_through_a_broadcast_names_the_input() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        w = fusion.add_input(ndim=1)
        fusion.add_output(ops.mul(x, ops.broadcast(w, [True, False])))
    from fusion_ir import inline_most

    inline_most(fusion)
    with pytest.raises(InputError, match=r"mul: axis 1 of input T0 and axis 0 of input T1 \(axis 1 of T2\) must "
                                         r"have equal extents"):
        simulate(lower(fusion), [np.ones((3, 4), np.float32), np.ones(5, np.float32)])
