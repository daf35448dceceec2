"""Median ``lower()`` time per example, and the simulator's time at each example's largest test size.

Prints the table; ``--output PATH`` also writes it as JSON with the machine and the date (the committed
results are bench/results/lowering_time.json). Target: pointwise examples lower in under 20 ms on a
2-core CPU machine; each simulation under 2 s. Needs no GPU.

``python bench/lowering_time.py [--examples a,b] [--repeats 15] [--output PATH]``
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import examples  # noqa: E402
from bench.results_file import add_output_option, write_results  # noqa: E402
from lowering import lower  # noqa: E402
from runtime import simulate  # noqa: E402
from runtime.inputs import positive_inputs  # noqa: E402
from runtime.progress import reporting  # noqa: E402


def median_lower_ms(name: str, repeats: int = 15) -> float:
    module = examples.load(name)
    times = []
    for _ in range(repeats):
        fusion = module.build()
        start = time.perf_counter()
        lower(fusion)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def simulate_s(name: str) -> float:
    module = examples.load(name)
    fusion = module.build()
    kernel = lower(fusion)
    inputs = positive_inputs(fusion, module.SIZES[-1], seed=0)
    start = time.perf_counter()
    simulate(kernel, inputs)
    return time.perf_counter() - start


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", metavar="A,B", help="comma-separated example names (default: every example)")
    parser.add_argument("--repeats", type=int, default=15, help="lower() runs per example (the median is reported)")
    add_output_option(parser, "lowering_time.json")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    names = args.examples.split(",") if args.examples else examples.names()
    rows = []
    with reporting(None, len(names), "examples") as advance:
        for name in names:
            rows.append({"example": name, "lower_ms": round(median_lower_ms(name, args.repeats), 2),
                         "simulate_s": round(simulate_s(name), 3)})
            advance()
    result = {"machine": f"{platform.node()} ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)",
              "date": datetime.date.today().isoformat(), "rows": rows}
    write_results(result, args.output)
    print(f"{'example':<24}{'lower (ms, median)':>20}{'simulate (s)':>14}")
    for r in rows:
        print(f"{r['example']:<24}{r['lower_ms']:>20.2f}{r['simulate_s']:>14.3f}")
    print(f"machine: {result['machine']}  date: {result['date']}")


if __name__ == "__main__":
    main()
