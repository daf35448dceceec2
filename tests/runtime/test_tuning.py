"""runtime.tuning.tune_matmul: with an injected measure on the CPU (the winner, the cache entry, the progress
lines, candidates that fail, what it refuses), and end to end on the GPU (``-m gpu``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from fusion_ir import ScheduleError
from fusion_ir.schedulers import schedule_matmul, tuning_cache
from fusion_ir.schedulers.candidates import matmul_candidates
from fusion_ir.schedulers.matmul_key import problem_key
from fusion_ir.schedulers.tuning_cache import TuningCache, TuningCacheError
from runtime.tuning import TuningError, print_progress, tune_matmul
from tests.fusion_ir.test_matmul_tuning import _fusion

DEVICE = "Fake GPU"


class FakeMeasure:
    """Times from a table (a string: the candidate's failure), by the candidate's place in the first call; a later
    call (the confirmation round) gets each candidate's time of ``again`` if given, else its first one; records
    what it was asked."""

    def __init__(self, results: list[float | str], again: dict[int, float | str] | None = None) -> None:
        self.results, self.again = results, again or {}
        self.calls: list[tuple[str, int]] = []
        self.first: list = []

    def __call__(self, fusion, candidates):
        self.calls.append((str(fusion), len(candidates)))
        if not self.first:
            self.first = list(candidates)
            return self.results[:len(candidates)]
        places = [next(k for k, c in enumerate(self.first) if c is p) for p in candidates]
        return [self.again.get(k, self.results[k]) for k in places]


def test_the_fastest_candidate_is_stored_and_returned(tmp_path: Path) -> None:
    fusion = _fusion(512, 512, 512)
    before = str(fusion)
    candidates = matmul_candidates(fusion, 132)[:3]
    seen = []
    measure = FakeMeasure([0.5, "skipped: CompileError: no", 0.25])
    winner = tune_matmul(fusion, candidates=candidates, measure=measure, progress=lambda *a: seen.append(a),
                         cache=tmp_path / "cache.json", device=DEVICE, sms=132)
    assert winner == candidates[2] and winner.why.source == "tuned"
    assert str(fusion) == before and fusion.scheduler_choice is None, "the fusion itself is not scheduled"
    assert [(t.name, index, total) for t, index, total in seen] == [
        (seen[k][0].name, k, 3) for k in range(3)]
    assert seen[1][0].error == "skipped: CompileError: no" and seen[1][0].ms is None
    assert seen[2][0].tflops == pytest.approx(2 * 512 ** 3 / 0.25 / 1e9)
    entry = TuningCache(tmp_path / "cache.json").lookup(DEVICE, problem_key(fusion))
    assert entry is not None and entry.params == candidates[2] and entry.ms == 0.25 and len(entry.tried) == 3
    assert winner.why.tuned == entry
    with tuning_cache.use(device=DEVICE, path=tmp_path / "cache.json"):
        scheduled = schedule_matmul(copy.deepcopy(fusion))
    assert scheduled.scheduler_choice.params == candidates[2]
    assert scheduled.scheduler_choice.why.summary.startswith(f"tuned on {DEVICE} (")


def test_the_default_candidates_and_device(tmp_path: Path) -> None:
    fusion = _fusion(512, 512, 512)
    measure = FakeMeasure([1.0 + k for k in range(len(matmul_candidates(fusion, 132)))])
    with tuning_cache.use(device="installed GPU"):
        winner = tune_matmul(fusion, measure=measure, progress=None, cache=tmp_path / "c.json", sms=132)
    assert measure.calls[0][1] == len(matmul_candidates(fusion, 132))
    assert winner == matmul_candidates(fusion, 132)[0]
    data = json.loads((tmp_path / "c.json").read_text())
    assert list(data["entries"]) == ["installed GPU"]


def test_the_default_progress_prints_a_line_per_candidate(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    fusion = _fusion(512, 512, 512)
    candidates = matmul_candidates(fusion, 132)[:2]
    tune_matmul(fusion, candidates=candidates, measure=FakeMeasure([0.01, "rejected: relative error 1e+00"]),
                progress=print_progress, cache=tmp_path / "c.json", device=DEVICE)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("  [1/2] ws tma-store 64x128x64 s8 wg1") and lines[0].endswith(" 0.0100 ms     26.8 TFLOP/s")
    assert lines[1].endswith("rejected: relative error 1e+00")
    assert lines[2].startswith("  winner: ws tma-store 64x128x64 s8 wg1 sub64x64 (0.0100 ms); stored for 'Fake GPU' in ")


def test_no_candidate_that_runs_is_an_error_listing_each(tmp_path: Path) -> None:
    fusion = _fusion(512, 512, 512)
    candidates = matmul_candidates(fusion, 132)[:2]
    with pytest.raises(TuningError, match="(?s)no candidate ran.*skipped: LaunchError.*rejected: relative"):
        tune_matmul(fusion, candidates=candidates, measure=FakeMeasure(["skipped: LaunchError", "rejected: relative"]),
                    progress=None, cache=tmp_path / "c.json", device=DEVICE)
    assert not (tmp_path / "c.json").exists()


def test_what_it_refuses(tmp_path: Path) -> None:
    measure = FakeMeasure([1.0])
    with pytest.raises(ScheduleError, match="symbolic"):
        tune_matmul(_fusion(None), measure=measure, cache=tmp_path / "c.json", device=DEVICE)
    scheduled = schedule_matmul(_fusion(512, 512, 512))
    with pytest.raises(ScheduleError, match="already scheduled"):
        tune_matmul(scheduled, measure=measure, cache=tmp_path / "c.json", device=DEVICE)
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text("[1, 2")
    with pytest.raises(TuningCacheError, match=str(corrupt)):
        tune_matmul(_fusion(512, 512, 512), measure=measure, cache=corrupt, device=DEVICE)
    assert not measure.calls, "an unreadable cache fails before any timing"
    with pytest.raises(TypeError, match="3 results for 1 candidates|1 results for"):
        tune_matmul(_fusion(512, 512, 512), candidates=matmul_candidates(_fusion(512, 512, 512), 132)[:1],
                    measure=lambda f, c: [1.0, 2.0, 3.0], cache=tmp_path / "c.json", device=DEVICE)


def test_the_fastest_candidates_are_timed_again_and_the_fastest_there_wins(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture) -> None:
    """The CONFIRM fastest of the first round are measured again: a candidate the first round's noise favoured
    (0.20 ms, then 0.30) loses to the one that is faster in both (0.21, 0.22); the stored time is the second
    round's, and each candidate timed again keeps that time beside its first."""
    fusion = _fusion(512, 512, 512)
    candidates = matmul_candidates(fusion, 132)[:6]
    measure = FakeMeasure([0.20, 0.21, 0.5, 0.6, 0.23, 0.24], again={0: 0.30, 1: 0.22, 4: "skipped: LaunchError"})
    winner = tune_matmul(fusion, candidates=candidates, measure=measure, progress=print_progress,
                         cache=tmp_path / "c.json", device=DEVICE, sms=132)
    assert [n for _, n in measure.calls] == [6, 4], "the four fastest are timed again"
    assert winner == candidates[1]
    entry = TuningCache(tmp_path / "c.json").lookup(DEVICE, problem_key(fusion))
    assert entry is not None and entry.ms == 0.22 and entry.tflops == pytest.approx(2 * 512 ** 3 / 0.22 / 1e9)
    assert [t.confirm_ms for t in entry.tried] == [0.30, 0.22, None, None, None, 0.24]
    assert entry.tried[0].ms == 0.20, "the first round's time is kept"
    assert "then of 3 timed again" in winner.why.summary
    out = capsys.readouterr().out
    assert "  again: " in out and "(0.2200 ms)" in out


def test_confirm_1_times_each_candidate_once(tmp_path: Path) -> None:
    fusion = _fusion(512, 512, 512)
    candidates = matmul_candidates(fusion, 132)[:3]
    measure = FakeMeasure([0.3, 0.2, 0.25], again={1: 9.0})
    winner = tune_matmul(fusion, candidates=candidates, measure=measure, progress=None, cache=tmp_path / "c.json",
                         device=DEVICE, confirm=1)
    assert winner == candidates[1] and len(measure.calls) == 1
    with pytest.raises(TypeError, match="confirm must be a positive int"):
        tune_matmul(fusion, candidates=candidates, measure=FakeMeasure([0.3]), progress=None,
                    cache=tmp_path / "c.json", device=DEVICE, confirm=0)


@pytest.mark.gpu
def test_tuning_a_small_problem_on_the_gpu(tmp_path: Path) -> None:
    """512 x 512 x 512 bf16 with three candidates: every one builds, checks and times; the winner is stored
    for this GPU and, scheduled from the cache, matches torch.matmul."""
    from runtime import execute
    from runtime.tuning import gpu_name
    from tests.runtime.test_executor_gpu import torch_or_skip

    torch = torch_or_skip()
    fusion = _fusion(512, 512, 512)
    candidates = matmul_candidates(fusion)[:3]
    path = tmp_path / "cache.json"
    winner = tune_matmul(fusion, candidates=candidates, cache=path)
    entry = TuningCache(path).lookup(gpu_name(), problem_key(fusion))
    assert entry is not None and entry.params == winner and winner in candidates
    assert all(t.ms is not None and t.ms > 0 for t in entry.tried), entry.tried
    with tuning_cache.use(device=gpu_name(), path=path):
        scheduled = schedule_matmul(copy.deepcopy(fusion))
    assert scheduled.scheduler_choice.why.source == "tuned" and scheduled.scheduler_choice.params == winner
    a = torch.randn(512, 512, device="cuda").bfloat16()
    b = torch.randn(512, 512, device="cuda").bfloat16()
    (out,) = execute(scheduled, [a, b])
    expected = a.double() @ b.double()
    err = ((out.double() - expected).norm() / expected.norm()).item()
    torch_err = ((torch.matmul(a, b).double() - expected).norm() / expected.norm()).item()
    assert err < 2 * torch_err + 1e-3


def test_the_command_tunes_a_matmul_of_the_shape_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture) -> None:
    from runtime import tuning

    class Measure(FakeMeasure):
        def __init__(self, rounds: int) -> None:
            super().__init__([3.0, 1.0, 2.0])
    monkeypatch.setattr(tuning, "GpuMeasure", Measure)
    path = tmp_path / "cache.json"
    with tuning_cache.use(device=DEVICE):
        assert tuning.main(["1024x512x256", "--transpose-b", "--limit", "3", "--cache", str(path)]) == 0
    out = capsys.readouterr().out
    key = problem_key(tuning.matmul_fusion(1024, 512, 256, transpose_b=True))
    assert out.startswith(f"tuning {key}\n") and "B [K,N] K-major" in key
    assert out.rstrip().endswith("the fastest of 3 candidates, then of 3 timed again")
    assert TuningCache(path).lookup(DEVICE, key).ms == 1.0
    with tuning_cache.use(device=DEVICE):
        assert tuning.main(["1024x512x256", "--cache", str(path), "--batch", "0"]) == 2   # refused, a message
    assert "python -m runtime.tuning: ScheduleError" in capsys.readouterr().err
