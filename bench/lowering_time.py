"""Median ``lower()`` time per example, and the simulator's time at each example's largest test size.

Every scheduled example of ``examples/`` is measured (``examples.scheduled_names()``: one of
``examples.UNSCHEDULED`` would lower to one thread and simulate for minutes); tests/docs checks that the
committed results file has a row for each. Prints the table; ``--output PATH`` also writes it as JSON
with the machine, the date, whether a GPU was present (this runs on the CPU either way) and the load
average while it ran, since other work on the machine slows the figures (the committed results are
bench/results/lowering_time.json). Target: pointwise examples lower in under 20 ms on a 2-core CPU
machine; each simulation under 2 s. Needs no GPU.

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


def median_lower_ms(name: str, repeats: int = 15) -> tuple[float, float]:
    """Median wall-clock and median CPU time (this process) of ``lower()``, in ms.

    On a shared machine the wall clock counts the time other processes held the cores; the CPU
    time does not, so it is the figure to compare across runs.
    """
    module = examples.load(name)
    wall, cpu = [], []
    for _ in range(repeats):
        fusion = module.build()
        start, start_cpu = time.perf_counter(), time.process_time()
        lower(fusion)
        wall.append((time.perf_counter() - start) * 1e3)
        cpu.append((time.process_time() - start_cpu) * 1e3)
    return statistics.median(wall), statistics.median(cpu)


def simulate_s(name: str) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one simulation at the example's largest test size."""
    module = examples.load(name)
    fusion = module.build()
    kernel = lower(fusion)
    inputs = positive_inputs(fusion, module.SIZES[-1], seed=0)
    start, start_cpu = time.perf_counter(), time.process_time()
    simulate(kernel, inputs)
    return time.perf_counter() - start, time.process_time() - start_cpu


def gpu_present() -> bool:
    try:
        from runtime.driver import gpu_available
    except ImportError:
        return False
    return gpu_available()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", metavar="A,B", help="comma-separated example names (default: every example)")
    parser.add_argument("--repeats", type=int, default=15, help="lower() runs per example (the median is reported)")
    add_output_option(parser, "lowering_time.json")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    names = args.examples.split(",") if args.examples else examples.scheduled_names()
    load_before = os.getloadavg()[0]
    rows = []
    with reporting(None, len(names), "examples") as advance:
        for name in names:
            lower_wall, lower_cpu = median_lower_ms(name, args.repeats)
            sim_wall, sim_cpu = simulate_s(name)
            rows.append({"example": name, "lower_ms": round(lower_wall, 2), "lower_cpu_ms": round(lower_cpu, 2),
                         "simulate_s": round(sim_wall, 3), "simulate_cpu_s": round(sim_cpu, 3)})
            advance()
    lower_ms = [r["lower_ms"] for r in rows]
    lower_cpu_ms = [r["lower_cpu_ms"] for r in rows]
    result = {"machine": f"{platform.node()} ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)",
              "gpu": "present" if gpu_present() else "none (CPU only)",
              "date": datetime.date.today().isoformat(),
              "load_average": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
              "examples": len(rows),
              "lower_ms": {"min": min(lower_ms), "median": statistics.median(lower_ms), "max": max(lower_ms)},
              "lower_cpu_ms": {"min": min(lower_cpu_ms), "median": statistics.median(lower_cpu_ms),
                               "max": max(lower_cpu_ms)},
              "simulate_s_max": max(r["simulate_s"] for r in rows),
              "simulate_cpu_s_max": max(r["simulate_cpu_s"] for r in rows),
              "rows": rows}
    write_results(result, args.output)
    print(f"{'example':<24}{'lower ms (wall)':>16}{'(cpu)':>9}{'simulate s (wall)':>19}{'(cpu)':>9}")
    for r in rows:
        print(f"{r['example']:<24}{r['lower_ms']:>16.2f}{r['lower_cpu_ms']:>9.2f}{r['simulate_s']:>19.3f}"
              f"{r['simulate_cpu_s']:>9.3f}")
    for clock, key, sim in (("wall", "lower_ms", "simulate_s_max"), ("cpu", "lower_cpu_ms", "simulate_cpu_s_max")):
        spread = result[key]
        print(f"{clock:>4}: {len(rows)} examples; lower() median {spread['min']:.2f} to {spread['max']:.2f} ms "
              f"(median of medians {spread['median']:.2f} ms); slowest simulation {result[sim]:.3f} s")
    print(f"machine: {result['machine']}, GPU {result['gpu']}  date: {result['date']}  "
          f"load average {result['load_average']['before']} -> {result['load_average']['after']}")


if __name__ == "__main__":
    main()
