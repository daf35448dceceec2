"""viz of a fusion with no schedule at all: scheduled by schedule() as lower would, the note above every view,
and --show heuristics prints the scheduler's params with their rules."""

from __future__ import annotations


def test_viz_shows_the_note_above_the_view(tmp_path, viz) -> None:
    target = tmp_path / "unscheduled.py"
    target.write_text("from fusion_ir import Fusion, ops\n\nSIZES = [[(8, 64)]]\n\n\ndef build():\n"
                      "    fusion = Fusion()\n    with fusion:\n        x = fusion.add_input(ndim=2)\n"
                      "        fusion.add_output(ops.exp(x))\n    return fusion\n")
    r = viz(str(target), "--show", "loops")
    assert r.code == 0, r.err
    text = " ".join(r.out.split())
    assert text.startswith("viz: the fusion had no schedule; schedule() scheduled it with the pointwise scheduler")
    r = viz(str(target), "--show", "heuristics")
    assert r.code == 0, r.err
    assert "scheduler: pointwise (schedule)" in r.out and "vectorize" in r.out and "16 bytes" in r.out
