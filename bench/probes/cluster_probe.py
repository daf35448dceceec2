"""Probe: the same 128x256 warp-specialized tile with and without a cluster of 2, timed and ready for ncu.

``python bench/probes/cluster_probe.py [time|ncu] [M N K]``: ``time`` checks each variant against torch and times
them with torch.matmul in interleaved rounds; ``ncu`` launches each variant twice (for ``--launch-skip``)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch

from bench.matmul import launches_per_batch
from fusion_ir.schedulers import MatmulParams, schedule_matmul
from lowering import lower
from runtime.executor import prepare
from runtime.timing import interleaved_ms
from runtime.tuning import matmul_fusion

mode = sys.argv[1] if len(sys.argv) > 1 else "time"
M, N, K = (int(x) for x in sys.argv[2:5]) if len(sys.argv) > 4 else (4096, 4096, 4096)
base = dict(tile=(128, 256, 64), stages=4, compute_warp_groups=2, warp_specialized=True, tma_store=True)
variants = {
    "none": MatmulParams(**base),
    "c2x1": MatmulParams(**base, cluster=(2, 1)),
    "c1x2": MatmulParams(**base, cluster=(1, 2)),
    "persist": MatmulParams(**base | dict(stages=3), persistent=True),
}
torch.manual_seed(0)
a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
ref = (a.double() @ b.double())
fns = {}
for name, p in variants.items():
    out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel = lower(schedule_matmul(matmul_fusion(None, None, None), p))
    fn = prepare(kernel, [a, b], [out])
    fn()
    torch.cuda.synchronize()
    err = ((out.double() - ref).norm() / ref.norm()).item()
    print(f"{name:8s} rel err {err:.2e}", flush=True)
    fns[name] = fn
if mode == "ncu":
    for name, fn in fns.items():
        fn(); fn()
    torch.cuda.synchronize()
    sys.exit(0)
names = list(fns)
flop = 2 * M * N * K
batch = launches_per_batch(M, N, K)
ms = interleaved_ms([fns[n] for n in names] + [lambda: torch.matmul(a, b)], batch, 15)
t = ms[-1]
print(f"torch {t*1e3:.1f} us  {flop / t / 1e9:.0f} TFLOP/s")
for n, x in zip(names, ms):
    print(f"{n:8s} {x*1e3:8.1f} us  {flop / x / 1e9:5.0f} TFLOP/s  ratio {t / x:.3f}")
