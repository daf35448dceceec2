"""Where a benchmark's JSON goes: nowhere unless ``--output PATH`` names a file.

Running a benchmark only prints its table, so trying one never rewrites the committed results in
``bench/results/``; ``--output bench/results/NAME.json`` refreshes them on purpose.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def add_output_option(parser: argparse.ArgumentParser, committed: str) -> None:
    """``--output PATH``, whose help names the committed results file ``bench/results/<committed>``."""
    parser.add_argument("--output", metavar="PATH", default=None,
                        help=f"write the results as JSON to PATH (default: print the table only; the committed "
                             f"results are bench/results/{committed})")


def write_results(result: dict[str, Any], output: str | None) -> None:
    """Write ``result`` as indented JSON to ``output`` when given (its folder made if missing)."""
    if output is None:
        return
    path = Path(output)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
