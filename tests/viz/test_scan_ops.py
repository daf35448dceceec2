"""viz on fusions of scans, rescaled sums and pads: every view shows them (the kernel IR's carry and rescaled
total, the CUDA), none crashes."""

from __future__ import annotations

from pathlib import Path

import pytest

SCRIPT = """
from tests.lowering.scan_cases import case


def build():
    return case({name!r}).build()
"""

VIEWS = ("fusion", "transforms", "loops", "kir", "passes", "cuda", "dag", "smem")


@pytest.mark.parametrize(("name", "shows"), [
    ("online_softmax", ("rescaled_sum(", "T2_carry[0] = -inf", "* T7[0]) + T11[0]")),
    ("pad_to_multiple_rows_on_threads", ("pad(", "ELSE:")),
    ("cumsum_split_serial", ("scan(", "T1_carry[0] add=")),
])
def test_every_view_of_a_scan_fusion(viz, tmp_path: Path, name: str, shows: tuple[str, ...]) -> None:
    script = tmp_path / f"{name}.py"
    script.write_text(SCRIPT.format(name=name))
    text = ""
    for view in VIEWS:
        result = viz(str(script), "--show", view)
        assert result.code == 0, f"--show {view}: {result.err}"
        text += result.out
    for needle in shows:
        assert needle in text, needle
