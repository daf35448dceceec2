"""Transposed and batched bf16 matmuls (examples/matmul_wgmma with ``transpose_a``, ``transpose_b``, ``batch``)
against torch.matmul on the same layouts, measured in the same interleaved rounds.

Each case gives the inputs as a user holds them: a ``[M, K]`` or ``[K, M]``, b ``[K, N]`` or ``[N, K]`` (the
``nn.Linear`` weight), both with a leading batch axis when batched; torch.matmul gets the same tensors through
``.transpose(-2, -1)`` views (cuBLAS reads them in place, as ours does). One schedule for every case: the
persistent, warp-specialized 128 x 256 x 64 kernel with a TMA store (``bench/matmul.py``'s seed-000
configuration); no tuning. Every result is checked against torch's float64 product first (outputs poisoned with
NaN). Timing as ``bench/matmul.py``: batches of back-to-back launches rotating three input sets, 15 interleaved
rounds, the median. The results carry the device name and the date.

``python bench/matmul_layouts.py [--output PATH]`` (committed: bench/results/matmul_layouts.json).
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

try:
    import torch
except ImportError:
    torch = None

from bench.matmul import interleaved_ms, launches_per_batch, rotating
from bench.matmul_common import check_error, relative_error, tflops
from bench.results_file import add_output_option, write_results
from examples import matmul_wgmma
from fusion_ir import DataType
from lowering import lower
from runtime import execute
from runtime.executor import prepare
from runtime.sm_count import sm_count

CONFIG = {"tile": (128, 256, 64), "stages": 3, "compute_warp_groups": 2, "warp_specialized": True,
          "persistent": True, "tma_store": True}
# (batch or None, m, n, k, transpose_a, transpose_b)
CASES = [
    (None, 4096, 4096, 4096, False, False),
    (None, 4096, 4096, 4096, False, True),
    (None, 4096, 4096, 4096, True, False),
    (None, 4096, 4096, 4096, True, True),
    (8, 2048, 2048, 128, False, False),
    (8, 2048, 2048, 2048, False, True),
    (32, 1024, 1024, 1024, False, False),
]


def _inputs(batch: int | None, m: int, n: int, k: int, ta: bool, tb: bool) -> list[tuple]:
    lead = () if batch is None else (batch,)
    out = []
    for _ in range(3):
        a = torch.randn(*lead, *((k, m) if ta else (m, k)), device="cuda").bfloat16()
        b = torch.randn(*lead, *((n, k) if tb else (k, n)), device="cuda").bfloat16()
        out.append((a, b))
    return out


def _views(a, b, ta: bool, tb: bool) -> tuple:
    return (a.transpose(-2, -1) if ta else a), (b.transpose(-2, -1) if tb else b)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_output_option(parser, "matmul_layouts.json")
    args = parser.parse_args(argv)
    if torch is None:
        raise SystemExit("bench/matmul_layouts.py needs torch (and a GPU)")
    torch.manual_seed(0)
    rows = []
    for batch, m, n, k, ta, tb in CASES:
        sets = _inputs(batch, m, n, k, ta, tb)
        av, bv = _views(*sets[0], ta, tb)
        expected = av.double() @ bv.double()
        out = torch.empty(*(() if batch is None else (batch,)), m, n, device="cuda", dtype=torch.bfloat16)
        torch_err = relative_error(torch.matmul(av, bv), expected)
        name = f"{'' if batch is None else f'{batch} x '}{m}x{n}x{k} {'A^T' if ta else 'A'} @ {'B^T' if tb else 'B'}"
        fields = dict(CONFIG, blocks=sm_count())
        row = {"case": name, "batch": batch, "shape": [m, n, k], "transpose_a": ta, "transpose_b": tb}
        try:
            fusion = matmul_wgmma.build(out_dtype=DataType.BFloat16, transpose_a=ta, transpose_b=tb,
                                        batch=batch is not None, **fields)
            kernel = lower(fusion)
            out.fill_(float("nan"))
            execute(kernel, list(sets[0]), outputs=[out])
            torch.cuda.synchronize()
            err = relative_error(out, expected)
            check_error(err, torch_err)
        except Exception as e:  # a case that fails is reported, not fatal
            rows.append({**row, "error": f"{type(e).__name__}: {e}"[:300]})
            continue
        ours = rotating(lambda s, kernel=kernel: prepare(kernel, [s[0], s[1]], [out]), sets)
        ref = rotating(lambda s: (lambda: torch.matmul(*_views(s[0], s[1], ta, tb), out=out)), sets)
        flops_mnk = (m * (batch or 1), n, k)
        ref_ms, our_ms = interleaved_ms([ref, ours], batch=launches_per_batch(*flops_mnk))
        rows.append({**row, "torch_ms": ref_ms, "ms": our_ms, "TFLOP/s": tflops(*flops_mnk, our_ms),
                     "ratio": ref_ms / our_ms, "rel_error": err})
    device = torch.cuda.get_device_name()
    date = datetime.date.today().isoformat()
    write_results({"device": device, "date": date, "config": {k: list(v) if isinstance(v, tuple) else v
                                                              for k, v in CONFIG.items()}, "rows": rows}, args.output)
    print(f"device: {device}   date: {date}   bf16, one schedule (persistent WS 128x256x64, TMA store), untuned")
    print(f"{'case':<34}{'torch ms':>10}{'ours ms':>10}{'TFLOP/s':>9}{'ratio':>7}")
    for r in rows:
        if "error" in r:
            print(f"{r['case']:<34}  FAILED {r['error'][:100]}")
            continue
        print(f"{r['case']:<34}{r['torch_ms']:>10.3f}{r['ms']:>10.3f}{r['TFLOP/s']:>9.1f}{r['ratio']:>7.2f}")


if __name__ == "__main__":
    main()
