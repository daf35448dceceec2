"""``viz TARGET [--show WHAT] [--pass NAME]``: print a fusion at any stage of lowering."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table

from .target import TargetError, load_fusion

SHOWS = ("fusion", "transforms", "loops", "kir", "passes", "cuda")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="viz", description="See how a scheduled fusion lowers to a CUDA kernel.")
    p.add_argument("target", nargs="?", help="an example name (see --list) or a Python file with build()")
    p.add_argument("--show", default="loops", help=f"what to show: {', '.join(SHOWS)} (default: loops)")
    p.add_argument("--pass", dest="pass_name", default=None, help="with --show kir: the pass to stop after")
    p.add_argument("--list", action="store_true", help="list the examples")
    p.add_argument("--no-color", action="store_true", help="plain text")
    p.add_argument("--width", type=int, default=None, help="console width")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = Console(no_color=args.no_color, width=args.width, highlight=not args.no_color,
                      force_terminal=False if args.no_color else None)
    try:
        return run(args, console)
    except Exception as e:  # noqa: BLE001 - every failure becomes a short message
        if args.debug:
            raise
        Console(stderr=True, no_color=args.no_color).print(
            Panel(f"{type(e).__name__}: {e}", title="viz", border_style="red"))
        return 2


def run(args: argparse.Namespace, console: Console) -> int:
    if args.list:
        import examples

        table = Table("example", "description")
        for name in examples.names():
            table.add_row(name, getattr(examples.load(name), "DESCRIPTION", ""))
        console.print(table)
        return 0
    if args.target is None:
        raise TargetError("give a TARGET (an example name or a .py file), or --list")
    if args.show not in SHOWS:
        raise TargetError(f"unknown --show {args.show!r}; choose one of {', '.join(SHOWS)}")
    fusion = load_fusion(args.target)
    if args.show == "fusion":
        console.print(str(fusion), markup=False)
        return 0
    if args.show == "transforms":
        for tv in fusion.used_tensors():
            if not tv.is_input:
                console.print(tv.transforms_string(), markup=False)
        return 0
    from lowering import lower
    from lowering.pipeline import PASS_NAMES

    traced = lower(fusion, trace=True)
    if args.show == "passes":
        table = Table("pass", "time (ms)", "kernel IR lines")
        for rec in traced.passes:
            table.add_row(rec.name, f"{rec.seconds * 1e3:.2f}", str(len(str(rec.kernel).splitlines())))
        console.print(table)
        return 0
    if args.show == "kir":
        if args.pass_name is not None and args.pass_name not in PASS_NAMES:
            raise TargetError(f"unknown --pass {args.pass_name!r}; passes are {', '.join(PASS_NAMES)}")
        kernel = traced.after(args.pass_name) if args.pass_name else traced.kernel
        console.print(str(kernel), markup=False)
        return 0
    if args.show == "loops":
        from .loops import loop_tree

        console.print(loop_tree(traced.kernel))
        return 0
    if args.show == "cuda":
        from codegen import to_cuda

        source = to_cuda(traced.kernel)
        if args.no_color:
            console.print(source, markup=False)
        else:
            console.print(Syntax(source, "cuda", line_numbers=False))
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
