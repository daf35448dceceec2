"""runtime/progress.py: a bar on stderr only when asked or when long work meets a terminal; callbacks see every step."""

from __future__ import annotations

import io

import pytest

from runtime.progress import reporting, wanted


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_callback_sees_the_start_and_every_step() -> None:
    seen: list[tuple[int, int]] = []
    with reporting(lambda d, t: seen.append((d, t)), 3, "work") as advance:
        advance(1)
        advance(2)
    assert seen == [(0, 3), (1, 3), (3, 3)]


def test_by_default_a_bar_only_for_long_work_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert not wanted(None, long=True)
    monkeypatch.setattr("sys.stderr", Tty())
    assert wanted(None, long=True) and not wanted(None, long=False)
    assert wanted(True, long=False) and not wanted(False, long=True)


def test_the_bar_never_writes_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    with reporting(True, 4, "work") as advance:
        for _ in range(4):
            advance()
    assert capsys.readouterr().out == ""
