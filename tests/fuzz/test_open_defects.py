"""Cases the fuzzer found that still fail: each file in ``open_defects/`` is the fuzzer's reproducer
(a script run from the repository root). They are expected to fail until their defect is fixed; a
fixed one shows as XPASS, and then its file moves into ``test_regressions.py`` as a plain test.

- ``int_and_float_scalar_promotion``: an Int32 tensor plus a float scalar, then a division: the
  kernel and the reference promote differently.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted((Path(__file__).parent / "open_defects").glob("*.py"))


@pytest.mark.xfail(reason="an open defect the fuzzer found", strict=False)
@pytest.mark.parametrize("script", CASES, ids=[p.stem for p in CASES])
def test_open_defect_reproducer(script: Path) -> None:
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
