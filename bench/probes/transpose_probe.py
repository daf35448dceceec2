"""Probe: the transpose scheduler's bf16 tile with each store vector width, against torch and a copy.

``python bench/probes/transpose_probe.py [ROWS COLS]``."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch

from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import schedule
from fusion_ir.schedulers.transpose import suggest
from lowering import lower
from runtime.executor import prepare
from runtime.timing import interleaved_ms

rows, cols = (int(x) for x in sys.argv[1:3]) if len(sys.argv) > 2 else (8192, 8192)


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(rows, cols), dtype=DataType.BFloat16)
        fusion.add_output(ops.transpose(x, 0, 1))
    return fusion


x = torch.randn(rows, cols, device="cuda").to(torch.bfloat16)
fns, names = [], []
for store in (1, 2, 4, 8):
    for load in (8, 4):
        fusion = build()
        params = replace(suggest(fusion, None), vectorize_store=store, vectorize_load=load)
        schedule(fusion, params=params)
        out = torch.empty(cols, rows, device="cuda", dtype=torch.bfloat16)
        fn = prepare(lower(fusion), [x], [out])
        fn()
        torch.cuda.synchronize()
        assert torch.equal(out, x.t().contiguous()), (store, load)
        fns.append(fn)
        names.append(f"load {load} store {store}")
src = torch.empty(rows * cols * 2, dtype=torch.uint8, device="cuda")
dst = torch.empty_like(src)
ms = interleaved_ms(fns + [lambda: x.t().contiguous(), lambda: dst.copy_(src)], 30, 15)
copy = ms[-1]
for n, t in zip(names + ["torch"], ms):
    print(f"{n:18s} {t * 1e3:8.1f} us  {2 * rows * cols * 2 / t / 1e6:6.0f} GB/s  {copy / t:5.1%} of copy")
