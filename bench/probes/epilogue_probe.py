"""Probe fused matmul epilogues: each variant checked against float64 torch, timed with torch's ways in the same
interleaved rounds, ready for ncu.

``python bench/probes/epilogue_probe.py time|ncu KIND M N K NAME=JSON ...``: KIND is bias_relu, bias_gelu,
alpha_beta, residual or plain; each NAME=JSON is a MatmulParams as keyword JSON; ``rules`` alone is the
suggestion. Prints one line per kernel: ms, TFLOP/s and the ratio of the first torch reference's time to its."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import json

from bench.matmul import launches_per_batch
from bench.matmul_common import params_from_json
from examples import matmul_epilogue
from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul
from lowering import lower
from runtime.executor import prepare
from runtime.timing import interleaved_ms

ALPHA, BETA = matmul_epilogue.ALPHA, matmul_epilogue.BETA


def params_of(text: str) -> MatmulParams | None:
    """``rules``: None (the suggestion); otherwise MatmulParams keyword JSON (``"index_type": "Int32"``)."""
    if text == "rules":
        return None
    fields = json.loads(text)
    fields.setdefault("tile", [128, 256, 64])
    for key in ("epilogue_tile", "register_split"):
        if fields.get(key) is not None:
            fields[key] = tuple(fields[key])
    return MatmulParams(**params_from_json(fields))


def build(kind: str, m: int, n: int, k: int) -> Fusion:
    """examples/matmul_epilogue's fusion of ``kind`` at constant sizes; ``plain``: the matmul alone, cast to bf16."""
    if kind != "plain":
        return matmul_epilogue.fusion_of(kind, (m, n, k))
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(m, k), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(k, n), dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.matmul(a, b), DataType.BFloat16))
    return fusion


def main() -> None:
    import torch

    mode, kind, m, n, k = sys.argv[1], sys.argv[2], *(int(x) for x in sys.argv[3:6])
    variants = dict(a.split("=", 1) for a in sys.argv[6:])
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(n, device="cuda")
    c = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    mm = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    acc = a.double() @ b.double()
    gelu = torch.nn.functional.gelu
    extra: list = []
    if kind == "bias_relu":
        ref, extra = torch.relu(acc + bias.double()), [bias]
        refs = {"addmm_act": lambda: torch._addmm_activation(bias.bfloat16(), a, b, use_gelu=False),
                "unfused": lambda: torch.relu_(torch.add(torch.matmul(a, b, out=mm), bias.bfloat16(), out=out))}
    elif kind == "bias_gelu":
        ref, extra = gelu(acc + bias.double(), approximate="tanh"), [bias]
        refs = {"addmm_act": lambda: torch._addmm_activation(bias.bfloat16(), a, b, use_gelu=True),
                "unfused": lambda: gelu(torch.add(torch.matmul(a, b, out=mm), bias.bfloat16(), out=out),
                                        approximate="tanh")}
    elif kind == "alpha_beta":
        ref, extra = ALPHA * acc + BETA * c.double(), [c, ALPHA, BETA]
        refs = {"addmm": lambda: torch.addmm(c, a, b, beta=BETA, alpha=ALPHA, out=out)}
    elif kind == "residual":
        ref, extra = acc + c.double(), [c]
        refs = {"addmm": lambda: torch.addmm(c, a, b, out=out),
                "unfused": lambda: torch.add(torch.matmul(a, b, out=mm), c, out=out)}
    else:
        ref, refs = acc, {"matmul": lambda: torch.matmul(a, b, out=out)}
    refs["matmul"] = lambda: torch.matmul(a, b, out=mm)
    fns = dict(refs)
    for name, text in variants.items():
        res = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        try:
            kernel = lower(schedule_matmul(build(kind, m, n, k), params_of(text)))
        except Exception as e:  # noqa: BLE001
            print(f"{name:12s} FAILED {type(e).__name__}: {str(e)[:300]}", flush=True)
            continue
        fn = prepare(kernel, [a, b, *extra], [res])
        fn()
        torch.cuda.synchronize()
        err = ((res.double() - ref).norm() / ref.norm()).item()
        print(f"{name:12s} rel err {err:.2e}", flush=True)
        fns[name] = fn
    if mode == "ncu":
        for name, fn in fns.items():
            if name not in refs:
                fn(); fn()
        torch.cuda.synchronize()
        return
    batch = launches_per_batch(m, n, k)
    times = interleaved_ms(list(fns.values()), batch=batch, rounds=11)
    flops = 2 * m * n * k
    print(f"{kind} {m}x{n}x{k} ({torch.cuda.get_device_name()})")
    for name, ms in zip(fns, times):
        print(f"  {name:12s} {ms:8.4f} ms {flops / ms / 1e9:8.1f} TFLOP/s  ratio {times[0] / ms:5.3f}")


if __name__ == "__main__":
    main()
