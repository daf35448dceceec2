"""viz/target.py and viz/sizes.py: a user's file imports its siblings, its errors show their place in it, and a
malformed ``SIZES`` is refused with the form expected."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tests.viz.test_formats_and_errors import GOOD, write


def flat(err: str) -> str:
    """The error panel's text without its frame and without whitespace: a long path may wrap anywhere."""
    return "".join(err.replace("│", "").split())


def tight(text: str) -> str:
    return "".join(text.split())


def test_a_file_imports_a_module_beside_it(viz, tmp_path: Path) -> None:
    (tmp_path / "mylib_for_viz.py").write_text("TILE = 64\n")
    source = "import mylib_for_viz\n" + textwrap.dedent(GOOD).replace("y.split(0, 64)",
                                                                       "y.split(0, mylib_for_viz.TILE)")
    r = viz(write(tmp_path, "sibling.py", source), "--show", "fusion")
    assert r.code == 0, r.err
    assert "64" in r.out
    assert str(tmp_path) not in sys.path   # only while the file runs


def test_build_imports_a_module_beside_it_lazily(viz, tmp_path: Path) -> None:
    (tmp_path / "lazylib_for_viz.py").write_text("def tile():\n    return 32\n")
    source = textwrap.dedent(GOOD).replace("y.split(0, 64)",
                                           "import lazylib_for_viz\n    y.split(0, lazylib_for_viz.tile())")
    r = viz(write(tmp_path, "lazy.py", source), "--show", "fusion")
    assert r.code == 0, r.err


def test_a_dataclass_in_the_file_works(viz, tmp_path: Path) -> None:
    source = ("from __future__ import annotations\nfrom dataclasses import dataclass\n\n@dataclass\nclass Opts:\n"
              "    tile: int = 64\n" + textwrap.dedent(GOOD))
    assert viz(write(tmp_path, "with_dataclass.py", source), "--show", "fusion").code == 0


def line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(textwrap.dedent(source).splitlines(), start=1) if text in line)


def test_an_error_in_build_shows_the_file_the_line_and_the_exception(viz, tmp_path: Path) -> None:
    source = GOOD.replace("y.split(0, 64)", "y.split(3, 64)")
    path = write(tmp_path, "broken.py", source)
    r = viz(path, "--show", "fusion")
    assert r.code == 2 and r.out == ""
    err = flat(r.err)
    assert tight(f"{path}, line {line_of(source, 'y.split(3, 64)')}, in build") in err
    assert tight("y.split(3, 64)") in err
    assert tight("ScheduleError: T1") in err
    assert "tensor_view.py" not in err and "Traceback" not in err   # only the user's frames


def test_an_error_in_a_helper_of_the_file_shows_both_frames(viz, tmp_path: Path) -> None:
    source = textwrap.dedent(GOOD).replace("    y.split(0, 64)\n", "    schedule(y)\n") + \
        "\ndef schedule(y):\n    y.split(7, 64)\n"
    path = write(tmp_path, "helper.py", source)
    err = flat(viz(path, "--show", "fusion").err)
    build_at = tight(f"{path}, line {line_of(source, 'schedule(y)')}, in build")
    helper_at = tight(f"{path}, line {line_of(source, 'y.split(7, 64)')}, in schedule")
    assert err.index(build_at) < err.index(helper_at) < err.index("ScheduleError")


def test_an_error_at_import_shows_the_line(viz, tmp_path: Path) -> None:
    path = write(tmp_path, "at_import.py", "X = 1\nY = X / 0\ndef build():\n    pass\n")
    err = flat(viz(path).err)
    assert tight(f"{path}, line 2, in <module>") in err and tight("Y = X / 0") in err
    assert tight("ZeroDivisionError: division by zero") in err


def test_a_syntax_error_shows_the_line(viz, tmp_path: Path) -> None:
    path = write(tmp_path, "bad_syntax.py", "def build():\n    return (\n")
    r = viz(path)
    assert r.code == 2 and "SyntaxError" in r.err and tight(f"{path}, line") in flat(r.err)


def test_debug_raises_the_users_exception(tmp_path: Path) -> None:
    from fusion_ir import ScheduleError
    from viz.cli import main

    with pytest.raises(ScheduleError, match="T1"):
        main([write(tmp_path, "broken.py", GOOD.replace("y.split(0, 64)", "y.split(3, 64)")), "--debug"])


TMA = GOOD.replace("import DataType, Fusion, ParallelType, ops",
                   "import DataType, Fusion, LoadStoreOpType, ParallelType, ops")


@pytest.mark.parametrize(("sizes", "message"), [
    ("[(128, 256)]", "SIZES[0] is (128, 256), not a list of shapes (tuples)"),
    ("(128, 256)", "SIZES[0] is 128, not a list of shapes (tuples)"),
    ("[[(128, 256)]]", "SIZES[0]: the shape (128, 256) of T0 has 2 extents; T0 has rank 1"),
    ("[[(128,), (128,)]]", "SIZES[0] has 2 shapes for 1 inputs"),
    ("[[(1.5,)]]", "SIZES[0]: the shape (1.5,) of T0 is not a tuple of non-negative ints"),
    ("128", "SIZES is 128, not a list"),
])
def test_malformed_sizes_show_the_expected_form(viz, tmp_path: Path, sizes: str, message: str) -> None:
    r = viz(write(tmp_path, "sized.py", f"SIZES = {sizes}\n" + textwrap.dedent(GOOD)), "--show", "pipeline")
    err = flat(r.err)
    assert r.code == 2 and tight(message) in err, err
    assert tight("SIZES = [[(i0,)], ...]") in err and tight("not iterable") not in err


def test_well_formed_sizes_are_used(tmp_path: Path) -> None:
    from viz.subject import Subject

    subject = Subject(write(tmp_path, "sized_ok.py", "SIZES = [[(5,)], [[7]]]\n" + textwrap.dedent(GOOD)))
    assert subject.sizes == [[(5,)], [(7,)]]


def test_the_expected_form_names_each_inputs_extents() -> None:
    from examples import matmul_wgmma
    from viz.sizes import expected_form

    form = expected_form(matmul_wgmma.build())
    assert "T0 of rank 2, T1 of rank 2" in form and "SIZES = [[(" in form
