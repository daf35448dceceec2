"""Run the ``viz`` command in-process and capture what it prints."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from viz.cli import main

WIDTH = "100"


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def viz(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """``viz(*argv)``: run ``viz.cli.main`` with plain 100-column output; exit code, stdout and stderr."""

    def run(*argv: str, plain: bool = True) -> Result:
        capsys.readouterr()
        extra = ["--no-color", "--width", WIDTH] if plain else []
        code = main([*argv, *extra])
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run
