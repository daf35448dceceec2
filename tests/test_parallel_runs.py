"""The test suite spreads over the CPU cores when pytest-xdist is installed (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import parallel_by_default

ROOT = Path(__file__).resolve().parents[1]


def config(**options: object) -> SimpleNamespace:
    defaults = {"numprocesses": None, "dist": "no", "tx": [], "usepdb": False, "collectonly": False, "markexpr": ""}
    return SimpleNamespace(option=SimpleNamespace(**{**defaults, **options}))


def test_a_plain_run_is_spread_over_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UPDATE_GOLDEN", raising=False)
    assert parallel_by_default(config())                           # python -m pytest -q
    assert parallel_by_default(config(markexpr="not slow"))


@pytest.mark.parametrize("options", [{"numprocesses": 0}, {"numprocesses": 4}, {"dist": "loadfile"},
                                     {"tx": ["popen"]}, {"usepdb": True}, {"collectonly": True},
                                     {"markexpr": "gpu"}, {"markexpr": "gpu and not slow"}])
def test_the_command_line_or_the_run_keeps_its_own_choice(options: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UPDATE_GOLDEN", raising=False)
    assert not parallel_by_default(config(**options))


def test_golden_rewrites_xdist_workers_and_runs_without_xdist_stay_in_one_process(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UPDATE_GOLDEN", "1")
    assert not parallel_by_default(config())
    monkeypatch.delenv("UPDATE_GOLDEN")
    worker = config()
    worker.workerinput = {"workerid": "gw0"}
    assert not parallel_by_default(worker)
    assert not parallel_by_default(SimpleNamespace(option=SimpleNamespace(markexpr="")))   # -p no:xdist


def test_the_test_extra_installs_xdist_and_the_readme_command_is_plain() -> None:
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "pytest-xdist" in project["optional-dependencies"]["test"]
    assert "```bash\npython -m pytest -q\n```" in (ROOT / "README.md").read_text()
    assert "addopts" not in (ROOT / "pyproject.toml").read_text()     # -n in addopts breaks runs without xdist
