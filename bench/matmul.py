"""bf16 matmul on tensor cores (examples/matmul_wgmma.py, scheduled by schedule_matmul) against
torch.matmul, measured in the same run.

For each shape: torch.matmul (cuBLAS) of bf16 inputs with a bf16 result, then each
``MatmulParams`` configuration with a bf16 result (the accumulators cast in the epilogue, so both
write the same bytes). Every kernel's result is checked first against torch's float64 matmul of
the same inputs (relative error; outputs poisoned with NaN first). Timing: CUDA events around a
batch of back-to-back launches (about 3 ms), rotating three input sets so L2 does not hold them;
15 rounds in which every kernel of the shape, torch.matmul included, times one batch in turn;
the median per kernel. Interleaving puts the GPU's clock and temperature drift on all kernels
alike (timing one kernel after another moved ratios by up to 10 % between identical runs).
Beside them a plain Triton matmul with a few autotuned configurations (bench/triton_matmul.py), the
peer a user would write instead. The results carry the device name and the date.

Fused epilogues (examples/matmul_epilogue, scheduled with the suggested parameters): ``relu(a @ b + bias)``
and ``gelu(a @ b + bias)`` against torch's cuBLASLt-fused ``torch._addmm_activation`` (the ratio's reference)
and torch.matmul followed by torch's own bias add and activation; ``alpha (a @ b) + beta C`` (alpha, beta kernel
arguments) and ``a @ b + C`` against ``torch.addmm`` (the reference: cuBLAS scales and adds C itself) and torch's
unfused chain; the same kernel of ours without the epilogue (a plain matmul of the same ``MatmulParams``: the
row's ``over_plain`` is the fused kernel's time over it) and torch.matmul alone, all timed in the same
interleaved rounds, at 4096^3, 8192^3 and 8192 x 8192 x 2048 (``--epilogues-only``; beside the configurations
at the shapes of 4096^3 work or more otherwise).

``python bench/matmul.py [--quick] [--shapes 4096x4096x4096,...] [--configs 0,6] [--epilogues-only]
[--epilogue-loads producer,consumer] [--output PATH]``: ``--epilogue-loads`` times the suggested fused kernel once
per ``MatmulParams.epilogue_loads`` value (the producer warp group or the compute warp groups loading C and the
bias) in the same rounds; ``--quick`` runs 8192^3 only, with three configurations. Needs torch and a GPU. The
table is printed; ``--output PATH`` also writes the results as JSON (the committed ones are
bench/results/matmul.json for the whole run and bench/results/matmul_epilogue.json for ``--epilogues-only``).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

try:
    import torch
except ImportError:   # --help works without torch; a run says it needs it
    torch = None

from bench.matmul_common import (check_error, describe, params_from_json, params_json, problem_inputs,
                                 relative_error, tflops)
from bench.results_file import add_output_option, write_results
from bench.triton_matmul import matmul as triton_matmul
from examples import matmul_epilogue, matmul_wgmma
from fusion_ir import DataType
from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
from lowering import lower
from runtime import execute
from runtime.executor import prepare
from runtime.progress import reporting
from runtime.sm_count import sm_count
from runtime.timing import interleaved_ms

SHAPES = [(8192, 8192, 8192), (6144, 6144, 6144), (4096, 4096, 4096), (8192, 8192, 1024)]
# MatmulParams of each configuration measured (blocks of a persistent one: the GPU's SM count)
CONFIGS = [
    {"tile": (128, 256, 64), "stages": 4, "compute_warp_groups": 2},
    {"tile": (128, 256, 64), "stages": 4, "compute_warp_groups": 2, "warp_specialized": True},
    {"tile": (256, 128, 64), "stages": 4, "compute_warp_groups": 2, "warp_specialized": True},
    {"tile": (128, 256, 64), "stages": 4, "compute_warp_groups": 2, "warp_specialized": True, "persistent": True,
     "index_type": "Int32"},
    {"tile": (128, 256, 64), "stages": 3, "compute_warp_groups": 2, "warp_specialized": True, "tma_store": True},
    {"tile": (128, 256, 64), "stages": 3, "compute_warp_groups": 2, "warp_specialized": True, "persistent": True,
     "tma_store": True, "index_type": "Int32"},
    {"tile": (128, 128, 64), "stages": 4, "compute_warp_groups": 2, "warp_specialized": True, "persistent": True,
     "ping_pong": True, "index_type": "Int32"},
    {"tile": (64, 256, 64), "stages": 5, "compute_warp_groups": 2, "warp_specialized": True, "persistent": True,
     "ping_pong": True, "index_type": "Int32"},
    {"tile": (128, 128, 64), "stages": 4, "compute_warp_groups": 2, "warp_specialized": True, "persistent": True,
     "ping_pong": True, "tma_store": True, "index_type": "Int32"},
    {"tile": (128, 192, 64), "stages": 4, "compute_warp_groups": 2, "warp_specialized": True, "persistent": True,
     "ping_pong": True, "index_type": "Int32"},
    {"tile": (128, 192, 64), "stages": 4, "compute_warp_groups": 2, "warp_specialized": True, "persistent": True,
     "ping_pong": True, "tma_store": True, "index_type": "Int32"},
]
ROUNDS = 15   # interleaved timing rounds per shape
QUICK = CONFIGS[:1] + CONFIGS[2:3] + CONFIGS[5:6]


BATCH_S = 3e-3                 # the work of one timed batch
MIN_LAUNCH_S = 3e-6            # a launch takes at least this, whatever its work (a tiny problem's batch stays ~3 ms)


def launches_per_batch(m: int, n: int, k: int) -> int:
    """Launches in one timed batch: about 3 ms of work at 700 TFLOP/s, each launch counted at least
    ``MIN_LAUNCH_S`` (68 MFLOP would otherwise be 31,000 launches, a graph that takes minutes to capture and run)."""
    return max(1, round(BATCH_S / max(2 * m * n * k / 700e12, MIN_LAUNCH_S)))


def rotating(fn_for, sets):
    """A launch that cycles through input sets, so repeated runs do not find them in L2."""
    fns = [fn_for(s) for s in sets]
    state = {"k": 0}

    def run():
        fns[state["k"] % len(fns)]()
        state["k"] += 1
    return run


EPILOGUE_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 2048)]


def epilogue_rows(m: int, n: int, k: int, loads: tuple[str, ...] = ()) -> list[dict]:
    """Each fused epilogue of examples/matmul_epilogue, scheduled with the suggested parameters, against torch's
    fused kernel (the ratio's reference: cuBLASLt's ``torch._addmm_activation`` for a bias and an activation,
    ``torch.addmm`` for C), torch's unfused chain, the same kernel of ours without the epilogue (a plain matmul
    with the same ``MatmulParams``) and torch.matmul alone, all in the same interleaved rounds. ``loads``: the
    suggestion once per ``MatmulParams.epilogue_loads`` value given ("producer", "consumer"), timed side by side;
    empty: the suggestion as it is."""
    rows: list[dict] = []
    sets = [(torch.randn(m, k, device="cuda").bfloat16(), torch.randn(k, n, device="cuda").bfloat16(),
             torch.randn(n, device="cuda"), torch.randn(m, n, device="cuda").bfloat16()) for _ in range(3)]
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    mm = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    gelu = torch.nn.functional.gelu
    alpha, beta = matmul_epilogue.ALPHA, matmul_epilogue.BETA

    def unfused(s, activation):
        """torch.matmul, then torch's bias add and activation: three kernels; returns the result."""
        bias = s[2].bfloat16()

        def run():
            torch.matmul(s[0], s[1], out=mm)
            torch.add(mm, bias, out=out)
            return torch.relu_(out) if activation == "relu" else gelu(out, approximate="tanh")
        return run

    def lt_fused(s, use_gelu):
        bias = s[2].bfloat16()
        return lambda: torch._addmm_activation(bias, s[0], s[1], use_gelu=use_gelu)

    torch_ways = {
        "bias_relu": [("torch._addmm_activation (cuBLASLt relu epilogue)", lambda s: lt_fused(s, False)),
                      ("torch.matmul + bias add + relu", lambda s: unfused(s, "relu"))],
        "bias_gelu": [("torch._addmm_activation (cuBLASLt gelu epilogue)", lambda s: lt_fused(s, True)),
                      ("torch.matmul + bias add + gelu(tanh)", lambda s: unfused(s, "gelu"))],
        "alpha_beta": [("torch.addmm(C, a, b, beta, alpha)",
                        lambda s: (lambda: torch.addmm(s[3], s[0], s[1], beta=beta, alpha=alpha, out=out))),
                       ("torch.matmul, then alpha * . + beta * C",
                        lambda s: (lambda: torch.add(torch.mul(torch.matmul(s[0], s[1], out=mm), alpha), s[3],
                                                     alpha=beta, out=out)))],
        "residual": [("torch.addmm(C, a, b)", lambda s: (lambda: torch.addmm(s[3], s[0], s[1], out=out))),
                     ("torch.matmul + add", lambda s: (lambda: torch.add(torch.matmul(s[0], s[1], out=mm), s[3],
                                                                         out=out)))],
    }

    def extra(kind: str, s) -> list:
        return [s[3], alpha, beta] if kind == "alpha_beta" else [s[3]] if kind == "residual" else [s[2]]

    a, b, bias, c = sets[0]
    a64, b64 = a.double(), b.double()
    for kind in matmul_epilogue.KINDS:
        acc = a64 @ b64
        if kind == "alpha_beta":
            expected = alpha * acc + beta * c.double()
        elif kind == "residual":
            expected = acc + c.double()
        else:
            biased = acc + bias.double()
            expected = torch.relu(biased) if kind == "bias_relu" else gelu(biased, approximate="tanh")
        torch_err = relative_error(torch_ways[kind][1][1](sets[0])(), expected)   # torch's unfused way, in bf16
        candidates = [(label, rotating(way, sets), None) for label, way in torch_ways[kind]]
        fused: dict[str, MatmulParams] = {}          # label -> params of each fused kernel timed
        plain_kernel = None
        for mode in loads or (None,):
            try:
                fusion = matmul_epilogue.fusion_of(kind, (m, n, k))
                params = suggest_matmul_params(fusion, sms=sm_count())
                if mode is not None:
                    params = dataclasses.replace(params, epilogue_loads=mode)
                schedule_matmul(fusion, params)
                kernel = lower(fusion)
                out.fill_(float("nan"))
                execute(kernel, [a, b, *extra(kind, sets[0])], outputs=[out])
                torch.cuda.synchronize()
                err = relative_error(out, expected)
                check_error(err, torch_err)
                if plain_kernel is None:
                    plain = matmul_wgmma.build(out_dtype=DataType.BFloat16, shape=(m, n, k), **{
                        f.name: getattr(params, f.name) for f in dataclasses.fields(params)
                        if f.name != "epilogue_loads"})
                    plain_kernel = lower(plain)
            except Exception as e:  # noqa: BLE001  (a kernel that fails is reported, not fatal)
                rows.append({"shape": [m, n, k], "epilogue": kind, "name": f"fused (suggested, {mode or 'as is'})",
                             "error": f"{type(e).__name__}: {e}"[:300]})
                continue
            label = f"fused, suggested: {describe(params)}" + (f", epilogue_loads={mode}" if mode else "")
            fused[label] = params
            candidates.append((label, rotating(lambda s, kind=kind, kernel=kernel: prepare(
                kernel, [s[0], s[1], *extra(kind, s)], [out]), sets), err))
        if plain_kernel is None:
            continue
        candidates.append(("the same kernel without the epilogue", rotating(
            lambda s, plain_kernel=plain_kernel: prepare(plain_kernel, [s[0], s[1]], [mm]), sets), None))
        candidates.append(("torch.matmul alone", rotating(lambda s: (lambda: torch.matmul(s[0], s[1], out=mm)),
                                                            sets), None))
        times = interleaved_ms([fn for _, fn, _ in candidates], batch=launches_per_batch(m, n, k))
        for (label, _, err), ms in zip(candidates, times):
            row = {"shape": [m, n, k], "epilogue": kind, "name": label, "ms": ms, "TFLOP/s": tflops(m, n, k, ms),
                   "ratio": times[0] / ms}
            if label in fused:
                row["params"] = params_json(fused[label])
                row["over_plain"] = ms / times[-2]            # the epilogue's cost over the same kernel without it
            if err is not None:
                row["rel_error"] = err
            rows.append(row)
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="8192^3 only, three configurations")
    parser.add_argument("--shapes", help="comma-separated MxNxK (default: all of SHAPES)")
    parser.add_argument("--configs", help="comma-separated indices into CONFIGS (default: all)")
    parser.add_argument("--extra", help="a JSON list of further MatmulParams dicts to measure (tile as a list)")
    parser.add_argument("--epilogues-only", action="store_true", help="measure the fused epilogues only")
    parser.add_argument("--epilogue-loads", help="comma-separated MatmulParams.epilogue_loads values (producer, "
                                                 "consumer): the suggested fused kernel once per value, timed in "
                                                 "the same rounds (default: the suggestion as it is)")
    add_output_option(parser, "matmul.json")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if torch is None:
        raise SystemExit("bench/matmul.py needs torch (and a GPU)")
    shapes = SHAPES[:1] if args.quick else EPILOGUE_SHAPES if args.epilogues_only else SHAPES
    configs = QUICK if args.quick else CONFIGS
    if args.shapes:
        shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
    if args.configs:
        configs = [CONFIGS[int(i)] for i in args.configs.split(",")]
    if args.extra:
        configs = configs + json.loads(args.extra)
    torch.manual_seed(0)
    rows = []
    with reporting(None, len(shapes), "shapes") as advance:
        for m, n, k in shapes:
            if args.epilogues_only or m * n * k >= 4096 ** 3:
                rows += epilogue_rows(m, n, k, tuple(args.epilogue_loads.split(",")) if args.epilogue_loads
                                      else ())
            if args.epilogues_only:
                advance()
                continue
            sets, expected, out, torch_err = problem_inputs(torch, m, n, k)
            a, b = sets[0]
            # (name, launch, relative error): every candidate is checked first, then all are timed together
            candidates = [("torch.matmul (cuBLAS)",
                           rotating(lambda s: (lambda: torch.matmul(s[0], s[1], out=out)), sets), None)]
            if triton_matmul(a, b, out) is not None:
                triton_err = relative_error(out, expected)
                candidates.append(("Triton (bench/triton_matmul.py, autotuned)",
                                   rotating(lambda s: (lambda: triton_matmul(s[0], s[1], out)), sets), triton_err))
            for config in configs:
                fields = params_from_json(config)
                if fields.get("persistent"):
                    fields["blocks"] = sm_count()
                name = describe(MatmulParams(**fields))
                try:
                    fusion = matmul_wgmma.build(out_dtype=DataType.BFloat16, **fields)
                    kernel = lower(fusion)
                    out.fill_(float("nan"))
                    execute(kernel, [a, b], outputs=[out])
                    torch.cuda.synchronize()
                    err = relative_error(out, expected)
                    check_error(err, torch_err)
                    launch = rotating(lambda s, kernel=kernel: prepare(kernel, [s[0], s[1]], [out]), sets)
                    candidates.append((name, launch, err))
                except Exception as e:  # a config that fails is reported, not fatal
                    rows.append({"shape": [m, n, k], "name": name, "error": f"{type(e).__name__}: {e}"[:300]})
            times = interleaved_ms([fn for _, fn, _ in candidates], batch=launches_per_batch(m, n, k))
            ref_ms = times[0]
            for (name, _, err), ms in zip(candidates, times):
                row = {"shape": [m, n, k], "name": name, "ms": ms, "TFLOP/s": tflops(m, n, k, ms),
                       "ratio": ref_ms / ms}
                if err is not None:
                    row["rel_error"] = err
                rows.append(row)
            advance()
    device = torch.cuda.get_device_name()
    date = datetime.date.today().isoformat()
    result = {"device": device, "date": date, "rows": rows}
    write_results(result, args.output)
    print(f"device: {device}   date: {date}   bf16 in, bf16 out, fp32 accumulate; median of {ROUNDS} interleaved rounds")
    print(f"{'shape':<18}{'kernel':<52}{'ms':>8}{'TFLOP/s':>9}{'ratio':>7}   (ratio: torch.matmul time / time)")
    for r in rows:
        if "epilogue" in r and r["name"].startswith("torch") and r["ratio"] == 1.0:
            print(f"  {r['epilogue']} (ratio: {r['name']} time / time)")
        shape = "x".join(str(x) for x in r["shape"])
        if "error" in r:
            print(f"{shape:<18}{r['name']:<52}  FAILED {r['error'][:120]}")
            continue
        over = f"   epilogue +{100 * (r['over_plain'] - 1):.1f} %" if "over_plain" in r else ""
        print(f"{shape:<18}{r['name'][:50]:<52}{r['ms']:>8.3f}{r['TFLOP/s']:>9.1f}{r['ratio']:>7.2f}{over}")


if __name__ == "__main__":
    main()
