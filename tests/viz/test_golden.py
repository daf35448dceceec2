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


def test_readme_shows_the_svg_viz_made_of_the_seed_circular_buffer_loop_nest() -> None:
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    assert "](docs/viz_seed_circular_buffer.svg)" in readme
    svg = (root / "docs" / "viz_seed_circular_buffer.svg").read_text().replace("&#160;", " ")
    assert svg.startswith("<svg") and ">viz seed_circular_buffer --show loops</text>" in svg
    stages = [svg.find(f"  {s}</text>") for s in ("pre-prologue", "prologue", "main", "epilogue", "post-epilogue")]
    assert all(p > 0 for p in stages) and stages == sorted(stages)


def test_viz_pipeline_of_the_warp_specialized_attention(viz) -> None:
    """``viz attention_wgmma_ws --show pipeline``: the producer warp group and the two compute warp groups over the
    K/V stages (k_j and v_j on one full barrier per stage, released on the empty one counting 256 threads)."""
    r = viz("attention_wgmma_ws", "--show", "pipeline")
    assert r.code == 0, r.err
    assert "T53, T54 through 2 buffer stages" in r.out
    assert "producer: warps 8-11, compute wg0: warps 0-3, compute wg1: warps 4-7" in r.out
    assert "WAR init, count 256" in r.out and "load T53, T54" in r.out
    path = GOLDEN / "attention_wgmma_ws_pipeline.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(r.out)
    assert r.out == path.read_text(), f"viz attention_wgmma_ws --show pipeline changed; UPDATE_GOLDEN=1 rewrites {path}"
