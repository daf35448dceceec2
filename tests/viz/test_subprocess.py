"""The ``viz`` command as a real process: ``python -m viz``, exit codes, stdout and stderr.

Most checks run in-process (test_cli.py); these few make sure the process itself behaves.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.nvcc import nvcc_available
from viz.cli import SHOWS

ROOT = Path(__file__).resolve().parents[2]


def viz_process(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "viz", *argv], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120, check=False)


def test_every_show_of_the_seed_circular_buffer_in_one_process() -> None:
    shows = [s for s in SHOWS if s != "resources" or nvcc_available()]
    p = viz_process("seed_circular_buffer", "--show", ",".join(shows), "--no-color", "--width", "100")
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    sections = dict(zip(shows, re.split(r"^─+ --show \w+ ─+$", p.stdout, flags=re.MULTILINE)[1:]))
    assert list(sections) == shows
    stages = [line.split()[-1] for line in sections["loops"].splitlines()
              if line.split() and line.split()[-1] in ("pre-prologue", "prologue", "main", "epilogue", "post-epilogue")]
    assert stages == ["pre-prologue", "prologue", "main", "epilogue", "post-epilogue"]
    assert re.search(r'extern "C" __global__ void .*fusion_kernel\(', sections["cuda"])
    assert re.search(r"│ T2_mbar +│ \d+-\d+ +│ [·█]+", sections["smem"])
    assert "load T2 <- (0)" in sections["pipeline"] and "wait parity 0" in sections["pipeline"]
    assert "load sub-DAG: T0, T2" in sections["dag"]
    if "resources" in sections:
        assert re.search(r"registers\s+│\s+\d+", sections["resources"])


def test_an_error_exits_2_with_a_short_message_and_no_traceback() -> None:
    p = viz_process("no_such_example", "--show", "loops")
    assert p.returncode == 2 and p.stdout == ""
    assert "unknown example 'no_such_example'" in p.stderr and "Traceback" not in p.stderr
    assert len(p.stderr.splitlines()) <= 4


def test_help_lists_every_show_and_what_each_format_writes_where() -> None:
    p = viz_process("--help")
    assert p.returncode == 0
    for show in SHOWS:
        assert re.search(rf"^  {show} +\S", p.stdout, re.MULTILINE)
    for fmt in ("text", "svg", "json", "dot"):
        assert re.search(rf"^  {fmt} +\S", p.stdout, re.MULTILINE)
    assert "--output FILE" in p.stdout and "exit status" in p.stdout


@pytest.mark.skipif(shutil.which("viz") is None, reason="the viz console script is not installed")
def test_console_script() -> None:
    p = subprocess.run(["viz", "--list", "--no-color"], capture_output=True, text=True, cwd=ROOT, timeout=120,
                       check=False)
    assert p.returncode == 0 and "seed_circular_buffer" in p.stdout


# Every show but ``resources``: that one runs nvcc, and every example's resources view is already
# checked in-process (tests/codegen/test_examples_compile.py, on the report of the example's compile
# gate) while the process path of ``--show resources`` is checked above on the seed kernel. Leaving
# it out here saves one nvcc run per example and loses nothing.
PROCESS_SHOWS = [s for s in SHOWS if s != "resources"]


@pytest.fixture(scope="module")
def every_example_every_show() -> dict[str, subprocess.CompletedProcess[str]]:
    """``python -m viz NAME --show ...`` (every show but resources) for every example, a few processes at a time."""
    from concurrent.futures import ThreadPoolExecutor

    import examples

    names = examples.names()
    shows = ",".join(PROCESS_SHOWS)
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        runs = pool.map(lambda n: viz_process(n, "--show", shows, "--no-color", "--width", "100"), names)
        return dict(zip(names, runs))


@pytest.mark.parametrize("name", __import__("examples").names())
def test_every_show_of_every_example_as_a_process(name: str, every_example_every_show) -> None:
    p = every_example_every_show[name]
    assert p.returncode == 0, p.stderr
    shows = PROCESS_SHOWS
    sections = dict(zip(re.findall(r"^─+ --show (\w+) ─+$", p.stdout, flags=re.MULTILINE),
                        re.split(r"^─+ --show \w+ ─+$", p.stdout, flags=re.MULTILINE)[1:]))
    assert [s for s in sections if s in shows] == shows
    assert "T0" in sections["fusion"] and "fusion_kernel" in sections["loops"]
    assert "KERNEL fusion_kernel(" in sections["kir"] and "launch" in sections["passes"]
    assert re.search(r'extern "C" __global__ void .*fusion_kernel\(', sections["cuda"])
    assert "T0" in sections["dag"]
    assert sections["smem"].strip() and sections["pipeline"].strip()
