"""Golden text of ``viz`` (no colour, 100 columns) for three examples: any change to what viz prints
shows up in review.

Set UPDATE_GOLDEN=1 to rewrite the files on purpose.
"""

import os
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"
SHOWS = "loops,dag,smem"


@pytest.mark.parametrize("name", ["seed_circular_buffer", "smem_staging", "softmax_like"])
def test_viz_text(name: str, viz) -> None:
    r = viz(name, "--show", SHOWS)
    assert r.code == 0, r.err
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(r.out)
    assert r.out == path.read_text(), f"viz {name} --show {SHOWS} changed; UPDATE_GOLDEN=1 rewrites {path}"
