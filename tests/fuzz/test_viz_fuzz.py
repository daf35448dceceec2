"""``viz fuzz``: counts what it ran, and on a failure prints and saves the shrunk case as a script."""

from __future__ import annotations

import json

import pytest

from fuzz import properties
from lowering.pipeline import PASS_NAMES
from viz.cli import main as viz_main
from viz.fuzz import main


def test_a_clean_run_prints_the_coverage_tables(tmp_path, capsys) -> None:
    stats = tmp_path / "counts.json"
    code = main(["--examples", "8", "--seed", "1", "--no-color", "--width", "140", "--json", str(stats)])
    out = capsys.readouterr().out
    assert code == 0, out
    for title in ("fuzz summary", "primitive coverage", "pass coverage", "kernel IR node", "no failures in 8 examples"):
        assert title in out
    counts = json.loads(stats.read_text())
    assert counts["examples"] == 8
    assert sum(counts["schedules"].values()) == 8
    assert set(counts["passes"]) <= set(PASS_NAMES) | {"before the passes"}


def test_viz_dispatches_fuzz(capsys) -> None:
    assert viz_main(["fuzz", "--examples", "2", "--no-color", "--no-simulate"]) == 0
    assert "no failures in 2 examples" in capsys.readouterr().out


def test_a_failure_is_shrunk_printed_and_saved(tmp_path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    def fails_on_any_split(case, *args, **kwargs):
        if any(step.kind == "split" for step in case.steps):
            raise properties.PropertyFailure("2 simulate", "planted failure", case)

    monkeypatch.setattr(properties, "check_simulation", fails_on_any_split)
    code = main(["--examples", "200", "--seed", "2", "--no-color", "--width", "140", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "planted failure" in out
    (saved,) = tmp_path.glob("fuzz_failure_*.py")
    script = saved.read_text()
    compile(script, str(saved), "exec")
    # shrinking leaves few scheduling calls; every one the planted failure does not need is gone
    schedule = script.split("fusion.add_output")[-1].split("print(fusion)")[0]
    assert ".split(" in schedule
    assert len([line for line in schedule.splitlines() if line.strip()]) <= 10


def test_workers_split_the_examples_and_merge_the_counts(tmp_path, capsys) -> None:
    stats = tmp_path / "counts.json"
    code = main(["--examples", "6", "--workers", "2", "--seed", "4", "--no-color", "--width", "140", "--no-simulate",
                 "--json", str(stats)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "no failures in 6 examples (seed 4, 2 workers)" in out
    assert json.loads(stats.read_text())["examples"] == 6


def test_a_failure_in_a_worker_is_reported_and_saved(tmp_path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    def fails_on_any_split(case, *args, **kwargs):
        if any(step.kind == "split" for step in case.steps):
            raise properties.PropertyFailure("2 simulate", "planted failure", case)

    monkeypatch.setattr(properties, "check_simulation", fails_on_any_split)   # forked workers inherit it
    code = main(["--examples", "60", "--workers", "2", "--seed", "2", "--no-color", "--width", "140", "--no-shrink",
                 "--templates", "guided", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "planted failure" in out
    assert list(tmp_path.glob("fuzz_failure_*.py"))


def test_the_matmul_template_runs_the_matmul_property(tmp_path, capsys) -> None:
    stats = tmp_path / "counts.json"
    code = main(["--examples", "3", "--templates", "matmul", "--seed", "1", "--no-color", "--width", "140",
                 "--no-simulate", "--json", str(stats)])
    out = capsys.readouterr().out
    assert code == 0, out
    counts = json.loads(stats.read_text())
    assert counts["templates"] == {"matmul": 3}


@pytest.mark.parametrize("argv", [["--templates", "nope"], ["--examples", "0"], ["--workers", "0"]])
def test_bad_arguments_are_refused(argv: list[str]) -> None:
    assert main(argv + ["--no-color"]) == 2
