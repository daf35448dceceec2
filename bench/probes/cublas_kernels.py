"""Which kernel torch.matmul runs for each shape, and its time: ``python bench/probes/cublas_kernels.py MxNxK ...``."""
from __future__ import annotations

import sys

import torch
from torch.profiler import ProfilerActivity, profile


def main() -> None:
    for text in sys.argv[1:]:
        m, n, k = (int(x) for x in text.split("x"))
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        for _ in range(3):
            torch.matmul(a, b)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                torch.matmul(a, b)
            torch.cuda.synchronize()
        for e in prof.key_averages():
            if e.device_type.name == "CUDA" or "gemm" in e.key or "nvjet" in e.key:
                us = e.device_time_total / max(1, e.count) if hasattr(e, "device_time_total") else 0.0
                print(f"{text:18s} {us:8.1f} us  x{e.count}  {e.key[:140]}")


if __name__ == "__main__":
    main()
