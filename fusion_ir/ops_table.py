"""The op table of docs/tutorial.md, printed from the docstrings of ``fusion_ir.ops``.

``python -m fusion_ir.ops_table`` prints it; ``python -m fusion_ir.ops_table --write docs/tutorial.md``
replaces the table between the ``BEGIN`` and ``END`` markers of that file. tests/docs checks that the
tutorial holds exactly this table, so a new op without a row fails a test.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

from . import ops

BEGIN = "<!-- BEGIN ops table: python -m fusion_ir.ops_table --write docs/tutorial.md -->"
END = "<!-- END ops table -->"


def public_ops() -> list[str]:
    """Every public function defined in ``fusion_ir.ops``, in the order of ``ops.__all__``."""
    defined = {name for name, f in vars(ops).items()
               if inspect.isfunction(f) and _is_op_module(f.__module__) and not name.startswith("_")}
    missing = sorted(defined - set(ops.__all__))
    if missing:
        raise ValueError(f"fusion_ir/ops.py defines {missing} but leaves them out of ops.__all__")
    return [name for name in ops.__all__ if name in defined]


def _is_op_module(module: str) -> bool:
    """``fusion_ir.ops`` or one of the op-family modules it re-exports (``fusion_ir.op_math``, ...)."""
    return module == ops.__name__ or (module.startswith("fusion_ir.op_") and module != "fusion_ir.op_core")


def summary(name: str) -> str:
    """The first line of the op's docstring; every op has one."""
    doc = inspect.getdoc(getattr(ops, name))
    if not doc:
        raise ValueError(f"ops.{name} has no docstring; give it a one-line summary for the op table")
    line = doc.splitlines()[0].replace("``", "`")
    if "|" in line:
        raise ValueError(f"ops.{name}: the first docstring line {line!r} has a '|', which splits a markdown row")
    return line


def call(name: str) -> str:
    parameters = ", ".join(inspect.signature(getattr(ops, name)).parameters)
    return f"ops.{name}({parameters})"


def ops_table() -> str:
    """The markdown table, one row per op, with its markers."""
    rows = [f"| `{call(name)}` | {summary(name)} |" for name in public_ops()]
    return "\n".join([BEGIN, "| op | what it computes |", "| --- | --- |", *rows, END]) + "\n"


def replace_table(text: str, path: str = "the document") -> str:
    """``text`` with the table between the markers regenerated."""
    if BEGIN not in text or END not in text:
        raise ValueError(f"{path} has no op table markers ({BEGIN!r} ... {END!r})")
    start = text.index(BEGIN)
    end = text.index(END, start) + len(END) + 1
    return text[:start] + ops_table() + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", metavar="FILE", help="replace the table between the markers of FILE")
    args = parser.parse_args(argv)
    if args.write is None:
        sys.stdout.write(ops_table())
        return 0
    path = Path(args.write)
    path.write_text(replace_table(path.read_text(), args.write))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
