"""The rules' parameters for each problem, one line each: ``M N K [--ta] [--tb]``, a tab, the ``MatmulParams`` as
keyword JSON (what ``matmul_probe.py`` takes as ``NAME=JSON``), for the checkout it runs in.

``python bench/probes/rules_json.py --shapes 4096x4096x4096,90x1376x10880:bt [--sms 132]``: run it in a worktree
of an earlier revision (``git worktree add /tmp/before REV``; ``PYTHONPATH=/tmp/before python
/tmp/before/bench/probes/rules_json.py ...``) to time that revision's rules against today's in the same rounds:
``matmul_probe.py time M N K --rotate --symbolic rules=rules "before=JSON"``. Plain products and the ``:at`` /
``:bt`` forms of ``bench/matmul_shapes.py --shapes``; no GPU."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.matmul_common import params_json
from bench.matmul_shapes import problem_of
from fusion_ir.schedulers import suggest_matmul_params
from runtime.tuning import matmul_fusion


def lines(shapes: str, sms: int) -> list[str]:
    """One ``M N K [--ta] [--tb]<TAB>JSON`` line a problem of ``shapes`` (``--shapes``'s syntax, plain products)."""
    out = []
    for spec in shapes.split(","):
        problem = problem_of(spec)
        if problem.batch is not None:
            raise SystemExit(f"rules_json: {spec!r} is batched; matmul_probe.py times plain products only")
        fusion = matmul_fusion(problem.m, problem.n, problem.k, transpose_a=problem.ta, transpose_b=problem.tb)
        params = suggest_matmul_params(fusion, sms=sms)
        flags = "".join(f" --{name}" for name, on in (("ta", problem.ta), ("tb", problem.tb)) if on)
        out.append(f"{problem.m} {problem.n} {problem.k}{flags}\t{json.dumps(params_json(params), separators=(',', ':'))}")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", required=True, help="comma-separated MxNxK, each with :at, :bt or :at+bt")
    parser.add_argument("--sms", type=int, default=132, help="the SM count to suggest for (the H100's 132)")
    args = parser.parse_args(argv)
    print("\n".join(lines(args.shapes, args.sms)))


if __name__ == "__main__":
    main()
