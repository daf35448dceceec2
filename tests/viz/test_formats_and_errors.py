"""viz/view.py and the error panel: svg, json, dot and text to stdout or --output; exit code 2 with a short message."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.viz.test_cli import in_order


def test_svg_to_a_file_is_the_terminal_picture(viz, tmp_path: Path) -> None:
    out = tmp_path / "loops.svg"
    r = viz("seed_circular_buffer", "--format", "svg", "--output", str(out), plain=False)
    assert r.code == 0 and r.out == ""
    svg = out.read_text()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    text = svg.replace("&#160;", " ")
    assert ">viz seed_circular_buffer --show loops</text>" in text
    assert in_order(text, [f"  {stage}</text>" for stage in ("pre-prologue", "prologue", "main", "epilogue",
                                                             "post-epilogue")])


def test_svg_json_and_dot_go_to_stdout_without_output(viz) -> None:
    assert viz("pointwise_2d", "--format", "svg").out.startswith("<svg")
    doc = json.loads(viz("pointwise_2d", "--show", "smem", "--format", "json").out)
    assert doc["show"] == "smem" and doc["target"] == "pointwise_2d" and doc["buffers"] == []
    assert viz("pointwise_2d", "--show", "dag", "--format", "dot").out.startswith("digraph fusion {")


def test_text_to_a_file_is_plain(viz, tmp_path: Path) -> None:
    out = tmp_path / "loops.txt"
    r = viz("seed_circular_buffer", "--output", str(out), plain=False)
    assert r.code == 0 and r.out == ""
    text = out.read_text()
    assert "\x1b[" not in text and "main" in text and text == viz("seed_circular_buffer").out


def write(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


GOOD = """
    from fusion_ir import DataType, Fusion, ParallelType, ops

    def build():
        fusion = Fusion()
        with fusion:
            x = fusion.add_input(ndim=1, dtype=DataType.Float)
            y = ops.relu(x)
            fusion.add_output(y)
        y.split(0, 64)
        y.axis(1).parallelize(ParallelType.TIDx)
        return fusion
"""


def test_a_file_with_build_or_a_module_level_fusion(viz, tmp_path: Path) -> None:
    r = viz(write(tmp_path, "mine.py", GOOD), "--show", "loops")
    assert r.code == 0 and "for i" in r.out
    module_level = textwrap.dedent(GOOD).replace("def build():", "def make():") + "\nfusion = make()\n"
    r = viz(write(tmp_path, "other.py", module_level), "--show", "fusion")
    assert r.code == 0 and "relu" in r.out


@pytest.mark.parametrize(("argv", "message"), [
    (["no_such_example"], "unknown example 'no_such_example'"),
    (["missing.py"], "no such file: missing.py"),
    (["pointwise_2d", "--show", "nope"], "unknown --show 'nope'"),
    (["pointwise_2d", "--show", "kir", "--pass", "nope"], "unknown --pass 'nope'; passes are persistent_buffers, id_graph"),
    (["pointwise_2d", "--show", "cuda", "--pass", "syncs"], "--pass applies to --show kir, loops, passes"),
    (["pointwise_2d", "--show", "loops", "--format", "dot"], "--format dot is for one graph"),
    (["pointwise_2d", "--format", "png"], "unknown --format 'png'"),
    ([], "give a TARGET"),
])
def test_usage_errors_are_a_red_panel_and_exit_code_2(viz, argv: list[str], message: str) -> None:
    r = viz(*argv)
    assert r.code == 2 and r.out == ""
    assert message in " ".join(r.err.replace("│", " ").split()) and "Traceback" not in r.err
    assert r.err.lstrip().startswith("╭") and " viz " in r.err.splitlines()[0]


@pytest.mark.parametrize(("source", "show", "message"), [
    ("x = 1\n", "loops", "defines neither build() nor a module-level `fusion`"),
    ("def build():\n    return 3\n", "loops", "build() returned int, not a Fusion"),
    (GOOD.replace("y.split(0, 64)", "y.split(3, 64)"), "fusion", "ScheduleError: T1"),
    (GOOD.replace("fusion.add_output(y)", "pass"), "loops", "the fusion has no outputs"),
    ("raise RuntimeError('broken module')\ndef build():\n    pass\n", "fusion", "RuntimeError: broken module"),
])
def test_target_schedule_and_lowering_errors(viz, tmp_path: Path, source: str, show: str, message: str) -> None:
    r = viz(write(tmp_path, "target.py", source), "--show", show)
    assert r.code == 2 and r.out == ""
    assert message in " ".join(r.err.replace("│", " ").split())


def test_debug_raises_instead(tmp_path: Path) -> None:
    from viz.cli import main

    with pytest.raises(Exception, match="defines neither build"):
        main([write(tmp_path, "target.py", "x = 1\n"), "--debug"])


def test_fuzz_subcommand_is_handed_to_viz_fuzz_when_present(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util
    import sys
    import types

    from viz.cli import main

    seen: list[list[str]] = []
    fake = types.ModuleType("viz.fuzz")
    fake.main = lambda argv: seen.append(argv) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "viz.fuzz", fake)
    monkeypatch.setattr(sys.modules["viz"], "fuzz", fake, raising=False)  # once imported, `from . import` reads this
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object() if name == "viz.fuzz" else None)
    assert main(["fuzz", "--seeds", "3"]) == 0
    assert seen == [["--seeds", "3"]]


def test_messages_with_brackets_are_printed_as_they_are(viz, tmp_path: Path) -> None:
    source = "def build():\n    raise ValueError('T2_mbar[i1 % 3] and [bold]x[/bold]')\n"
    r = viz(write(tmp_path, "target.py", source))
    assert r.code == 2 and "ValueError: T2_mbar[i1 % 3] and [bold]x[/bold]" in r.err
    assert "[M, K] @ [K, N]" in viz("--list").out
