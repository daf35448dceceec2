"""Median ``lower()`` time per example, and the simulator's time at each example's largest test size.

Writes bench/results/lowering_time.json with the machine and the date. Target: pointwise
examples lower in under 20 ms on a 2-core CPU machine; each simulation under 2 s.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import examples
from lowering import lower
from runtime import simulate
from runtime.inputs import positive_inputs


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


def main() -> None:
    rows = []
    for name in examples.names():
        rows.append({"example": name, "lower_ms": round(median_lower_ms(name), 2),
                     "simulate_s": round(simulate_s(name), 3)})
    result = {"machine": f"{platform.node()} ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)",
              "date": datetime.date.today().isoformat(), "rows": rows}
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "lowering_time.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"{'example':<24}{'lower (ms, median)':>20}{'simulate (s)':>14}")
    for r in rows:
        print(f"{r['example']:<24}{r['lower_ms']:>20.2f}{r['simulate_s']:>14.3f}")
    print(f"machine: {result['machine']}  date: {result['date']}")


if __name__ == "__main__":
    main()
