"""Which kernel torch runs for each shape, and its time: ``python bench/probes/cublas_kernels.py [--relu|--gelu] MxNxK ...``.

Plain ``torch.matmul`` by default; ``--relu`` / ``--gelu`` time cuBLASLt's fused bias epilogue
(``torch._addmm_activation``) instead, the reference of the fused-epilogue bench.
"""
from __future__ import annotations

import sys

import torch
from torch.profiler import ProfilerActivity, profile


def main() -> None:
    args = sys.argv[1:]
    activation = next((a[2:] for a in args if a in ("--relu", "--gelu")), None)
    for text in (a for a in args if not a.startswith("--")):
        m, n, k = (int(x) for x in text.split("x"))
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)

        def call():
            if activation is None:
                return torch.matmul(a, b)
            return torch._addmm_activation(bias, a, b, use_gelu=activation == "gelu")

        for _ in range(3):
            call()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                call()
            torch.cuda.synchronize()
        for e in prof.key_averages():
            if e.device_type.name == "CUDA" or "gemm" in e.key or "nvjet" in e.key:
                us = e.device_time_total / max(1, e.count) if hasattr(e, "device_time_total") else 0.0
                print(f"{activation or 'plain':5s} {text:18s} {us:8.1f} us  x{e.count}  {e.key[:140]}")


if __name__ == "__main__":
    main()
