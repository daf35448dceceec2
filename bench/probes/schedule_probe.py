"""Probe: one benchmark case of bench/schedulers.py with its suggested params and variants of them, against
torch and a copy of the same bytes. ``python bench/probes/schedule_probe.py CASE 'NAME={"field": value}' ...``."""
from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch

from bench.schedulers import CASES
from fusion_ir.schedulers import schedule
from fusion_ir.schedulers.registry import SCHEDULERS
from lowering import lower
from runtime.executor import prepare
from runtime.timing import interleaved_ms

case = next(c for c in CASES if c.name == sys.argv[1])
variants = {"suggested": {}} | {a.split("=", 1)[0]: json.loads(a.split("=", 1)[1]) for a in sys.argv[2:]}
xs = case.inputs(torch)
expected = case.reference(torch, xs)
fns, names = [], []
for name, fields in variants.items():
    fusion = case.build()
    s = next(s for s in SCHEDULERS if s.decline(fusion, None) is None)
    params = replace(s.suggest(fusion, None), **fields)
    try:
        schedule(fusion, params=params)
        out = torch.full_like(expected, float("nan"))
        fn = prepare(lower(fusion), xs, [out])
        fn()
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        print(f"{name:12s} failed: {type(e).__name__}: {str(e)[:200]}")
        continue
    err = ((out.double() - expected.double()).norm() / expected.double().norm()).item()
    print(f"{name:12s} rel err {err:.1e}  {params.summary()}")
    fns.append(fn)
    names.append(name)
src = torch.empty(case.bytes // 2, dtype=torch.uint8, device="cuda")
dst = torch.empty_like(src)
ms = interleaved_ms(fns + [lambda: case.reference(torch, xs), lambda: dst.copy_(src)], 20, 15)
copy = ms[-1]
for n, t in zip(names + ["torch"], ms):
    print(f"{n:12s} {t * 1e3:8.1f} us  {case.bytes / t / 1e6:6.0f} GB/s  {copy / t:5.1%} of copy")
