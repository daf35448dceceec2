"""fp32 a + b over 2^28 elements with the vectorized schedule, against torch's device-to-device copy.

Counts 12 bytes per element for the kernel (two reads, one write) and 8 for the copy (one read,
one write). Times each launch alone with CUDA events after warm-up (``runtime.executor.prepare``
binds the arguments once, so no host-side checks sit between the events) and reports medians. Needs
torch and a GPU. ``--output PATH`` also writes the results as JSON with the device name and the date (the
committed results are bench/results/pointwise.json).

``python bench/pointwise.py [--output PATH]``
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import examples  # noqa: E402
from bench.results_file import add_output_option, write_results  # noqa: E402
from lowering import lower  # noqa: E402
from runtime import execute  # noqa: E402
from runtime.executor import prepare  # noqa: E402
from runtime.progress import reporting  # noqa: E402

N = 1 << 28


def median_ms(fn, repeats: int = 30, warmup: int = 5) -> float:
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_output_option(parser, "pointwise.json")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    import torch

    a = torch.rand(N, device="cuda") + 0.5
    b = torch.rand(N, device="cuda") - 0.25
    out = torch.full((N,), float("nan"), device="cuda")
    rows = []
    dst = torch.empty_like(a)
    copy_ms = median_ms(lambda: dst.copy_(a))
    copy_gbs = 8 * N / copy_ms / 1e6
    rows.append(("torch copy (reference)", copy_ms, copy_gbs, 1.0))
    configs = [(128, 4), (256, 4), (128, 2)]
    with reporting(None, len(configs), "schedules") as advance:
        for threads, vector in configs:
            kernel = lower(examples.load("pointwise_vectorized").build(threads=threads, vector=vector))
            execute(kernel, [a, b], outputs=[out])
            torch.cuda.synchronize()
            err = ((out.double() - (a.double() + b.double())).norm() / (a.double() + b.double()).norm()).item()
            assert err < 1e-6, f"wrong result: relative error {err}"
            ms = median_ms(prepare(kernel, [a, b], [out]))
            gbs = 12 * N / ms / 1e6
            rows.append((f"a + b, {threads} threads x vector {vector}", ms, gbs, gbs / copy_gbs))
            advance()
    device = torch.cuda.get_device_name()
    date = datetime.date.today().isoformat()
    result = {"device": device, "date": date, "elements": N,
              "rows": [{"name": r[0], "ms": r[1], "GB/s": r[2], "of_copy": r[3]} for r in rows]}
    write_results(result, args.output)
    print(f"device: {device}   date: {date}   elements: 2^28   (CUDA events around one launch, median of 30)")
    print(f"{'kernel':<32}{'median ms':>10}{'GB/s':>10}{'of copy':>9}")
    for name, ms, gbs, frac in rows:
        print(f"{name:<32}{ms:>10.3f}{gbs:>10.0f}{frac:>9.1%}")


if __name__ == "__main__":
    main()
