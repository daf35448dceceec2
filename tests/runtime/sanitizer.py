"""compute-sanitizer for the GPU tier: where it is, and one check that a run under it is clean."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SANITIZER = shutil.which("compute-sanitizer") or next(
    (str(p) for p in Path("/usr/local").glob("cuda*/bin/compute-sanitizer") if p.exists()), None)


def assert_sanitizer_clean(tool: str, module: str, *args: str, timeout: int = 600) -> None:
    """``python -m module args`` under ``compute-sanitizer --tool tool`` exits 0, reports no error and says its
    results match numpy."""
    assert SANITIZER is not None
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([SANITIZER, "--tool", tool, "--error-exitcode", "3", sys.executable, "-m", module, *args],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout, check=False)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    # memcheck and synccheck print "ERROR SUMMARY: 0 errors"; racecheck "... hazards displayed (0 errors, ..."
    assert "ERROR SUMMARY: 0 errors" in log or "(0 errors, 0 warnings)" in log, log[-4000:]
    assert "matches numpy" in log
