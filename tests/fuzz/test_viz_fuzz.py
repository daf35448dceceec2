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


@pytest.mark.parametrize("argv", [["--templates", "nope"], ["--examples", "0"]])
def test_bad_arguments_are_refused(argv: list[str]) -> None:
    assert main(argv + ["--no-color"]) == 2
