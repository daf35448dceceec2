"""Probe one problem's kernels: each variant checked against torch, timed with torch.matmul, ready for ncu.

``python bench/probes/matmul_probe.py time|ncu M N K [--tb] [--ta] [--rotate] NAME=JSON ...``: each NAME=JSON is a
MatmulParams as keyword JSON (``'t192={"tile":[192,192,64],"compute_warp_groups":3,...}'``); ``rules`` alone
is the suggestion, ``pin:JSON`` the suggestion with those fields pinned; a ``"blocks_per_sm"`` key sets
``Fusion.set_min_blocks_per_sm``. ``--symbolic``: the kernels lowered for
runtime extents (as ``bench/matmul_shapes.py`` lowers TMA problems), the suggestion still the shape's. ``--hot``: 10 s of
cuBLAS first (the GPU at its power limit). ``--rotate``: each launch takes the
next of three input sets (as ``bench/matmul_shapes.py`` times), so the operands are not found in L2. ``ncu`` launches each variant
twice after its check launch."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch

from bench.matmul import launches_per_batch
from fusion_ir import DataType
from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
from lowering import lower
from runtime.executor import prepare
from runtime.timing import interleaved_ms
from runtime.tuning import matmul_fusion


def fields_of(text: str) -> dict:
    """MatmulParams fields from keyword JSON (tuples for the tuple fields, "i32" / "i64" for the index type)."""
    d = json.loads(text)
    d.pop("blocks_per_sm", None)
    for key in ("tile", "cluster", "register_split", "epilogue_tile"):
        if key in d and d[key] is not None:
            d[key] = tuple(d[key])
    if "index_type" in d:
        d["index_type"] = DataType.Int32 if d["index_type"] in ("i32", "Int32") else DataType.Int64
    return d


def params_of(text: str) -> MatmulParams | None:
    if text == "rules":
        return None
    return MatmulParams(**fields_of(text))


def _with_prefetch(to_cuda, prefetched: set[int]):
    """``to_cuda`` that adds a prefetch.tensormap of every tensor map at the kernel's top for the kernels whose ids
    are in ``prefetched`` (the ``_pf`` variants)."""
    import re

    def emit(kernel):
        src = to_cuda(kernel)
        if id(kernel) not in prefetched:
            return src
        names = re.findall(r"const __grid_constant__ TensorMap (\w+)", src)
        lines = "".join(f'    asm volatile("prefetch.tensormap [%0];" :: "l"(reinterpret_cast<uint64_t>(&{n}))'
                        f' : "memory");\n' for n in names)
        block = "  if (threadIdx.x == 0 && threadIdx.y == 0) {\n" + lines + "  }\n"
        return re.sub(r"(extern __shared__[^\n]*\n)", lambda m: m.group(1) + block, src, count=1)
    return emit


def _rotating(launches: list) -> object:
    """One launch after another of ``launches`` in turn."""
    state = [0]

    def run() -> None:
        launches[state[0] % len(launches)]()
        state[0] += 1
    return run


def main() -> None:
    mode, m, n, k = sys.argv[1], *(int(x) for x in sys.argv[2:5])
    flags = [a for a in sys.argv[5:] if a.startswith("--")]
    ta, tb = "--ta" in flags, "--tb" in flags
    variants = dict(a.split("=", 1) for a in sys.argv[5:] if not a.startswith("--"))
    torch.manual_seed(0)
    a = torch.randn(*((k, m) if ta else (m, k)), device="cuda", dtype=torch.bfloat16)
    b = torch.randn(*((n, k) if tb else (k, n)), device="cuda", dtype=torch.bfloat16)
    av, bv = (a.t() if ta else a), (b.t() if tb else b)
    ref = av.double() @ bv.double()
    fns, kernels = {}, {}
    prefetched: set[int] = set()
    if any(name.endswith("_pf") for name in variants):
        import runtime.executor as ex
        ex.to_cuda = _with_prefetch(ex.to_cuda, prefetched)
    for name, text in variants.items():
        out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        params = (suggest_matmul_params(matmul_fusion(m, n, k, transpose_a=ta, transpose_b=tb), **fields_of(text[4:]))
                  if text.startswith("pin:") else params_of(text))
        if "--symbolic" in flags:            # as bench/matmul_shapes.py lowers: one kernel of runtime extents
            params = params or suggest_matmul_params(matmul_fusion(m, n, k, transpose_a=ta, transpose_b=tb))
            fusion = matmul_fusion(None, None, None, transpose_a=ta, transpose_b=tb)
        else:
            fusion = matmul_fusion(m, n, k, transpose_a=ta, transpose_b=tb)
        schedule_matmul(fusion, params)
        if text != "rules" and not text.startswith("pin:") and "blocks_per_sm" in json.loads(text):
            # __launch_bounds__' minimum blocks per SM
            fusion.set_min_blocks_per_sm(json.loads(text)["blocks_per_sm"])
        kernel = lower(fusion)
        if name.endswith("_pf"):
            prefetched.add(id(kernel))
        fn = prepare(kernel, [a, b], [out])
        fn()
        torch.cuda.synchronize()
        err = ((out.double() - ref).norm() / ref.norm()).item()
        print(f"{name:10s} rel err {err:.2e}", flush=True)
        fns[name], kernels[name] = fn, kernel
    if mode == "ncu":
        for fn in fns.values():
            fn(); fn()
        torch.cuda.synchronize()
        return
    flop = 2 * m * n * k
    batch = launches_per_batch(m, n, k)
    runs = list(fns.values()) + [lambda: torch.matmul(av, bv)]
    if "--rotate" in flags:                  # three input sets in turn: the operands come from DRAM, not L2
        sets = [(a, b)] + [(torch.randn_like(a), torch.randn_like(b)) for _ in range(2)]
        out = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
        runs = [_rotating([prepare(kernels[name], [x, y], [out]) for x, y in sets]) for name in fns]
        runs.append(_rotating([lambda x=x, y=y: torch.matmul(x.t() if ta else x, y.t() if tb else y, out=out)
                               for x, y in sets]))
    if "--hot" in flags:                     # as bench/matmul_shapes.py: seconds of cuBLAS first (power, clocks)
        x = torch.randn(8192, 8192, device="cuda").bfloat16()
        end = time.perf_counter() + 10
        while time.perf_counter() < end:
            for _ in range(10):
                torch.matmul(x, x)
            torch.cuda.synchronize()
    ms = interleaved_ms(runs, batch, 15)
    t = ms[-1]
    print(f"torch      {t * 1e3:8.1f} us  {flop / t / 1e9:5.0f} TFLOP/s")
    for name, x in zip(fns, ms):
        print(f"{name:10s} {x * 1e3:8.1f} us  {flop / x / 1e9:5.0f} TFLOP/s  ratio {t / x:.3f}")


if __name__ == "__main__":
    main()
