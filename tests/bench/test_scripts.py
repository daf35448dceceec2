"""bench/*.py: every benchmark prints its help without a GPU (nor torch), and none writes bench/results/ unless
``--output PATH`` asks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
# modules the benchmarks import, not run
HELPERS = {"__init__", "matmul_common", "triton_matmul", "results_file", "schedulers_reduce_cases"}


def scripts() -> list[str]:
    return sorted(p.stem for p in BENCH.glob("*.py") if p.stem not in HELPERS)


def test_every_module_is_a_benchmark_with_a_main_or_a_known_helper() -> None:
    for stem in scripts():
        assert 'if __name__ == "__main__":' in (BENCH / f"{stem}.py").read_text(), f"bench/{stem}.py has no main"
    assert {"lowering_time", "matmul", "matmul_heuristic", "pointwise", "tma_pointwise"} <= set(scripts())


@pytest.mark.parametrize("stem", scripts())
def test_help_exits_0_without_a_gpu(stem: str, tmp_path: Path) -> None:
    """Run from another folder, as a user would, with the repository not on PYTHONPATH."""
    r = subprocess.run([sys.executable, str(BENCH / f"{stem}.py"), "--help"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage:") and "--output PATH" in r.stdout and "bench/results/" in r.stdout


def test_a_run_prints_and_leaves_the_committed_results_alone(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from bench.lowering_time import main

    committed = {p.name: p.read_bytes() for p in (BENCH / "results").iterdir()}
    main(["--examples", "pointwise_1d", "--repeats", "1"])
    assert "pointwise_1d" in capsys.readouterr().out
    assert {p.name: p.read_bytes() for p in (BENCH / "results").iterdir()} == committed
    out = tmp_path / "sub" / "lowering_time.json"
    main(["--examples", "pointwise_1d", "--repeats", "1", "--output", str(out)])
    rows = json.loads(out.read_text())["rows"]
    assert [r["example"] for r in rows] == ["pointwise_1d"]
    assert {p.name: p.read_bytes() for p in (BENCH / "results").iterdir()} == committed


def test_no_benchmark_names_a_results_file_to_write_itself() -> None:
    for stem in scripts():
        text = (BENCH / f"{stem}.py").read_text()
        assert "write_text(" not in text and '/ "results"' not in text, f"bench/{stem}.py writes a file itself"


def test_matmul_shapes_covers_the_problem_classes_and_lowers_everything(capsys: pytest.CaptureFixture) -> None:
    """At least 24 problems: squares 1024-16384, small K, large K, skinny, batched, transposed, not multiples of 64;
    every problem's rules and candidates lower (``--dry-run``: no GPU)."""
    from bench.matmul_shapes import PROBLEMS, main

    names = " ".join(p.name for p in PROBLEMS)
    assert len(PROBLEMS) >= 24
    for word in ("square 1024", "square 16384", "small-K", "large-K", "skinny", "batched", "B^T", "odd"):
        assert word in names
    assert any(p.shared_b for p in PROBLEMS) and any(p.ta for p in PROBLEMS)
    assert any(p.m % 64 or p.n % 64 or p.k % 64 for p in PROBLEMS)
    assert any(not p.tma_rows for p in PROBLEMS)          # an operand the compute warp groups load
    main(["--dry-run", "--problems", "square 1024,batched 16x,B^T 4096^3,A^T,odd K 2000"])
    out = capsys.readouterr().out
    assert "0 failed" in out and "rules wgmma" in out


def test_matmul_shapes_stream_k_adds_stream_k_kernels_that_lower(capsys: pytest.CaptureFixture) -> None:
    """``--stream-k`` times stream-K kernels (a grid of the SM count) beside a problem's candidates; without it none
    are timed (the tuner's candidates hold none)."""
    from bench.matmul_shapes import Problem, candidates, main, problem_fusion
    from fusion_ir.schedulers import suggest_matmul_params

    p = Problem("odd 1234x4568x888", 1234, 4568, 888)
    rules = suggest_matmul_params(problem_fusion(p), sms=132)
    assert not any(c.stream_k for c in candidates(p, rules, 132))
    streamed = [c for c in candidates(p, rules, 132, stream_k=True) if c.stream_k]
    assert {(128, 256, 64), (128, 128, 64), rules.tile} <= {c.tile for c in streamed}
    assert {c.blocks for c in streamed} == {132}
    main(["--dry-run", "--stream-k", "--shapes", "1234x4568x888"])
    assert "0 failed" in capsys.readouterr().out


def test_schedulers_dry_run_schedules_and_lowers_every_case(capsys: pytest.CaptureFixture) -> None:
    """The pointwise and transpose cases at three sizes, fp32 and bf16, and the reduction and normalization cases,
    each scheduled by schedule() and lowered (``--dry-run``: no GPU), each by the scheduler of its class."""
    from bench.schedulers import CASES, main

    names = [c.name for c in CASES]
    assert sum("broadcast-add-cast" in n for n in names) == 6 and sum("transpose" in n for n in names) == 6
    for kind in ("softmax", "log_softmax", "layer_norm", "rms_norm", "sum_dim1", "sum_dim0", "max_dim1", "max_dim0"):
        assert any(n.startswith(kind) for n in names), kind
    main(["--dry-run"])
    out = capsys.readouterr().out
    assert f"{len(CASES)} cases lowered, 0 failed" in out
    for scheduler in ("pointwise", "transpose", "reduction", "normalization"):
        assert f"the {scheduler} scheduler" in out
    assert "the pointwise scheduler: " in out and "the transpose scheduler: " in out


def test_attention_dry_run_builds_and_schedules_every_case_without_a_gpu(capsys: pytest.CaptureFixture) -> None:
    """Sequence lengths 1024-16384, head dims 64 and 128, causal or not, each filling the GPU with 16384 tokens and
    2048 channels; ``--dry-run`` (no GPU, no torch) builds each and asks ``schedule()`` for it: the attention
    scheduler takes every one."""
    from bench.attention import CASES, main

    assert {(c.seq, c.head_dim, c.causal) for c in CASES} == {
        (s, d, causal) for s in (1024, 2048, 4096, 8192, 16384) for d in (64, 128) for causal in (False, True)}
    assert all(c.batch * c.seq == 16384 and c.heads * c.head_dim == 2048 for c in CASES)
    full = next(c for c in CASES if not c.causal)
    assert full.flops == 4 * full.batch * full.heads * full.seq ** 2 * full.head_dim
    assert next(c for c in CASES if c.causal and c.seq == full.seq and c.head_dim == full.head_dim).flops == full.flops / 2
    main(["--dry-run", "--cases", "seq1024,seq16384 d128 causal"])
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert [line.split("  ")[0] for line in lines[:-1]] == [
        "seq1024 d64 full b16 h32", "seq1024 d64 causal b16 h32", "seq1024 d128 full b16 h16",
        "seq1024 d128 causal b16 h16", "seq16384 d128 causal b1 h16"]
    assert all("ours: the attention scheduler: block_q=" in line for line in lines[:-1])
    assert lines[-1].startswith("5 cases, 5 scheduled and lowered, 0 refused")


def test_matmul_shapes_takes_batched_problems_by_name() -> None:
    """``--shapes`` takes ``MxNxK`` and ``BxMxNxK`` with the forms ``shared`` (B broadcast over the batch, batched
    only), ``at`` and ``bt`` (an operand given transposed) joined by ``+``; anything else is refused by name."""
    from bench.matmul_shapes import Problem, problem_of

    assert problem_of("512x256x128") == Problem("512x256x128", 512, 256, 128)
    assert problem_of("4x2048x1024x512") == Problem("4x2048x1024x512", 2048, 1024, 512, batch=4)
    shared = problem_of("16x1024x1024x1024:shared")
    assert shared.batch == 16 and shared.shared_b and shared.form == (True, False, False, True)
    linear = problem_of("4096x11008x4096:bt")
    assert (linear.ta, linear.tb, linear.batch) == (False, True, None)
    both = problem_of("8x1024x1024x512:shared+at+bt")
    assert both.form == (True, True, True, True) and (both.m, both.n, both.k) == (1024, 1024, 512)
    for bad in ("2x3x4:shared", "1x2", "4x2x2x2:ct", "4x4x4:bt+bt", "4xax4", "4x4x4:"):
        with pytest.raises(SystemExit, match=r"is not MxNxK or BxMxNxK with forms"):
            problem_of(bad)


def test_a_timed_batch_is_about_3_ms_even_for_a_tiny_problem() -> None:
    """A batch's launches are its work at 700 TFLOP/s, each launch counted at least ``MIN_LAUNCH_S``: a tiny
    problem is not tens of thousands of launches in one graph."""
    from bench.matmul import BATCH_S, MIN_LAUNCH_S, launches_per_batch

    assert launches_per_batch(16384, 16384, 16384) == 1
    assert launches_per_batch(2048, 2048, 2048) == round(BATCH_S / (2 * 2048 ** 3 / 700e12))
    assert launches_per_batch(1104, 24, 1280) == round(BATCH_S / MIN_LAUNCH_S) == 1000
    assert launches_per_batch(1, 1, 1) == 1000


@pytest.mark.parametrize("kind,count", [("mixed", 20), ("large", 16), ("narrow", 8), ("short", 10)])
def test_draw_shapes_draws_each_kind_reproducibly_as_problems_the_bench_takes(kind: str, count: int,
                                                                             capsys: pytest.CaptureFixture) -> None:
    """``draw_shapes --seed N --kind K`` prints one ``--shapes`` argument, the same for the same seed, each problem
    one ``problem_of`` takes; ``narrow`` draws N of at most 64, ``short`` M of at most 256."""
    from bench.matmul_shapes import problem_of
    from bench.probes.draw_shapes import main

    main(["--seed", "5", "--kind", kind])
    first = capsys.readouterr().out.strip()
    main(["--seed", "5", "--kind", kind])
    assert capsys.readouterr().out.strip() == first
    problems = [problem_of(spec) for spec in first.split(",")]
    assert len(problems) == count
    if kind == "narrow":
        assert all(p.n <= 64 for p in problems)
    if kind == "short":
        assert all(1 <= p.m <= 256 and p.n % 8 == 0 and p.k % 8 == 0 for p in problems)


def test_rules_json_prints_the_rules_params_as_the_probe_takes_them(capsys: pytest.CaptureFixture) -> None:
    """``rules_json --shapes`` prints a line a problem, ``M N K`` with its ``--ta`` / ``--tb`` flags, a tab and the
    rules' ``MatmulParams`` as JSON, which read back to the suggestion; a batched problem is refused by name."""
    from bench.matmul_common import params_from_json
    from bench.probes.rules_json import main
    from fusion_ir.schedulers import MatmulParams, suggest_matmul_params
    from runtime.tuning import matmul_fusion

    main(["--shapes", "83x2536x14536,4096x4096x4096:bt,1024x2048x512:at+bt"])
    rows = [line.split("\t") for line in capsys.readouterr().out.strip().split("\n")]
    assert [head for head, _ in rows] == ["83 2536 14536", "4096 4096 4096 --tb", "1024 2048 512 --ta --tb"]
    for (head, text), (shape, ta, tb) in zip(rows, [((83, 2536, 14536), False, False),
                                                    ((4096, 4096, 4096), False, True),
                                                    ((1024, 2048, 512), True, True)]):
        params = MatmulParams(**params_from_json(json.loads(text)))
        assert params == suggest_matmul_params(matmul_fusion(*shape, transpose_a=ta, transpose_b=tb), sms=132)
    with pytest.raises(SystemExit, match=r"rules_json: '4x64x64x64' is batched"):
        main(["--shapes", "4x64x64x64"])
