"""``viz --show heuristics``: the matmul scheduler's parameters and why, for params given by the caller
(examples/matmul_wgmma.py, a golden), chosen by the rules, or read from the tuning cache; a fusion the
matmul scheduler did not schedule is a usage error (a note among other shows)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from fusion_ir.schedulers import tuning_cache
from fusion_ir.schedulers.tuning_cache import Tried, TunedEntry, TuningCache
from tests.fusion_ir.test_matmul_tuning import _fusion

GOLDEN = Path(__file__).parent / "golden" / "matmul_wgmma_heuristics.txt"

RULES_TARGET = """
from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import schedule_matmul


def build():
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(4096, 256), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(256, 4096), dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.matmul(a, b), DataType.BFloat16))
    return schedule_matmul(fusion)
"""


def _panel_text(err: str) -> str:
    """The words of viz's error panel, without its borders and line breaks."""
    return " ".join(w for w in err.split() if not set(w) <= set("│╭╮╰╯─"))


def test_given_params_of_the_wgmma_example(viz) -> None:
    r = viz("matmul_wgmma", "--show", "heuristics")
    assert r.code == 0, r.err
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(r.out)
    assert r.out == GOLDEN.read_text(), f"viz matmul_wgmma --show heuristics changed; UPDATE_GOLDEN=1 rewrites {GOLDEN}"
    assert "source:    given" in r.out and "given (the rules: 256x128x64)" in r.out


def test_the_rule_behind_each_parameter(viz, tmp_path: Path) -> None:
    target = tmp_path / "small_k.py"
    target.write_text(RULES_TARGET)
    r = viz(str(target), "--show", "heuristics")
    assert r.code == 0, r.err
    assert "source:    rule: K of at most 4 tiles (K = 256: 4 tiles of 64)" in r.out
    assert "depth: ping-pong at a K" in r.out
    assert "the rules would choose" not in r.out
    data = json.loads(viz(str(target), "--show", "heuristics", "--format", "json").out)
    assert data["source"] == "rule" and data["key"].startswith("bfloat16 4096x4096x256 batch 1")
    fields = {f["name"]: f for f in data["fields"]}
    assert fields["tile"]["value"] == "128x128x64" and fields["tile"]["reason"].startswith("rule short K: 128 x 128")


def test_a_tuned_choice_shows_its_cache_entry(viz, tmp_path: Path) -> None:
    from fusion_ir.schedulers import MatmulParams
    from fusion_ir.schedulers.matmul_key import problem_key

    target = tmp_path / "small_k.py"
    target.write_text(RULES_TARGET)
    winner = MatmulParams(tile=(128, 128, 64), stages=4, warp_specialized=True)
    path = tmp_path / "cache.json"
    TuningCache(path).store(TunedEntry("Fake GPU", problem_key(_fusion(4096, 4096, 256)), winner, 0.1234, 696.0,
                                       "2026-11-25T22:00:00+00:00",
                                       (Tried("ws 256x128x64 s4 wg2", 0.15, 572.6), Tried("ws 128x128x64 s4 wg2",
                                                                                          0.1234, 696.0),
                                        Tried("ws tma-store 256x128x64 s4 wg2", error="skipped: CompileError: x"))))
    with tuning_cache.use(device="Fake GPU", path=path):
        r = viz(str(target), "--show", "heuristics")
    assert r.code == 0, r.err
    out = " ".join(r.out.split())
    assert ("source: tuned: tuned on Fake GPU (2026-11-25T22:00:00+00:00): 0.1234 ms, 696.0 TFLOP/s, the fastest "
            "of 3 candidates") in out
    assert "candidates tried on Fake GPU" in out and "winner" in out and "skipped: CompileError: x" in out
    assert "the rules would choose ws persistent ping-pong tma-store i32 128x128x64 s6 wg2: K of at most 4 tiles" in out


def test_a_hand_scheduled_fusion_is_a_usage_error(viz) -> None:
    r = viz("pointwise_2d", "--show", "heuristics")
    assert r.code == 2
    assert "UsageError: --show heuristics: pointwise_2d was scheduled by hand; it shows the parameters a scheduler " \
           "(schedule(), schedule_matmul) chose" in _panel_text(r.err)


def test_a_hand_scheduled_matmul_is_a_usage_error(viz) -> None:
    r = viz("matmul_simt", "--show", "heuristics")
    assert r.code == 2
    assert "the matmul of matmul_simt was scheduled by hand, not by schedule_matmul" in _panel_text(r.err)


def test_among_other_shows_it_is_a_note(viz) -> None:
    r = viz("pointwise_2d", "--show", "fusion,heuristics")
    assert r.code == 0, r.err
    assert "--show heuristics: pointwise_2d was scheduled by hand" in " ".join(r.out.split())
    data = json.loads(viz("pointwise_2d", "--show", "fusion,heuristics", "--format", "json").out)
    assert data["views"][1]["scheduler"] is None and "scheduled by hand" in data["views"][1]["note"]
