"""fp32 a + b over 2^28 elements, both inputs loaded by TMA through a circular-buffered pipeline
(examples/tma_add.py), for stages 2..6 and a few tile shapes, Pipelined and warp-specialized,
against torch's device-to-device copy.

Counts 12 bytes per element for the kernel (two reads, one write) and 8 for the copy (one read,
one write). Times each launch alone with CUDA events after warm-up and reports medians; checks
every schedule's result first (relative error in float64, output poisoned with NaN before the
run). Needs torch and a GPU. ``--output PATH`` also writes the results as JSON with the device name and
the date (the committed results are bench/results/tma_pointwise.json).

``python bench/tma_pointwise.py [--output PATH]``
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import examples  # noqa: E402
from bench.pointwise import median_ms  # noqa: E402
from bench.results_file import add_output_option, write_results  # noqa: E402
from lowering import lower  # noqa: E402
from runtime import execute  # noqa: E402
from runtime.executor import prepare  # noqa: E402
from runtime.progress import reporting  # noqa: E402

N = 1 << 28
# (boxes of 256 floats per stage and input, tiles per block)
SHAPES = [(4, 8), (2, 16), (4, 32)]
WS_SHAPES = [(4, 8), (2, 16), (4, 32), (8, 16)]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_output_option(parser, "tma_pointwise.json")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    import torch

    a = torch.rand(N, device="cuda") + 0.5
    b = torch.rand(N, device="cuda") - 0.25
    expected = a.double() + b.double()
    out = torch.empty(N, device="cuda")
    dst = torch.empty_like(a)
    copy_ms = median_ms(lambda: dst.copy_(a))
    copy_gbs = 8 * N / copy_ms / 1e6
    rows = [("torch copy (reference)", copy_ms, copy_gbs, 1.0)]
    configs = [(s, boxes, tiles, "") for boxes, tiles in SHAPES for s in range(2, 7)]
    configs += [(s, 4, 32, "war") for s in (3, 4)]
    configs += [(s, boxes, tiles, "ws") for boxes, tiles in WS_SHAPES for s in (2, 4, 6)]
    with reporting(None, len(configs), "schedules") as advance:
        for stages, boxes, tiles, kind in configs:
            kernel = lower(examples.load("tma_add").build(stages=stages, boxes=boxes, tiles=tiles,
                                                          war_mbarrier=kind == "war", warp_specialized=kind == "ws"))
            out.fill_(float("nan"))
            execute(kernel, [a, b], outputs=[out])
            torch.cuda.synchronize()
            err = ((out.double() - expected).norm() / expected.norm()).item()
            assert err < 1e-6, (f"wrong result for stages {stages}, boxes {boxes}, tiles {tiles}: relative error "
                                f"{err}")
            ms = median_ms(prepare(kernel, [a, b], [out]))
            gbs = 12 * N / ms / 1e6
            suffix = {"": "", "war": ", mbarrier WAR", "ws": ", warp-specialized"}[kind]
            rows.append((f"TMA {stages} stages, {boxes}x1KiB x {tiles} tiles{suffix}", ms, gbs, gbs / copy_gbs))
            advance()
    device = torch.cuda.get_device_name()
    date = datetime.date.today().isoformat()
    best = max(rows[1:], key=lambda r: r[2])
    result = {"device": device, "date": date, "elements": N, "best": best[0], "best_of_copy": best[3],
              "rows": [{"name": r[0], "ms": r[1], "GB/s": r[2], "of_copy": r[3]} for r in rows]}
    write_results(result, args.output)
    print(f"device: {device}   date: {date}   elements: 2^28   (CUDA events around one launch, median of 30)")
    print(f"{'kernel':<60}{'median ms':>10}{'GB/s':>10}{'of copy':>9}")
    for name, ms, gbs, frac in rows:
        print(f"{name:<60}{ms:>10.3f}{gbs:>10.0f}{frac:>9.1%}")
    ws = [r for r in rows if "warp-specialized" in r[0]]
    if ws:
        best_ws = max(ws, key=lambda r: r[2])
        print(f"best warp-specialized: {best_ws[0]} at {best_ws[3]:.1%} of copy")
    print(f"best: {best[0]} at {best[3]:.1%} of copy")


if __name__ == "__main__":
    main()
