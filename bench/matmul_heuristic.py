"""How close ``suggest_matmul_params`` comes to the best of a sweep, shape by shape, on the GPU.

For each shape (bf16 in, bf16 out): torch.matmul (cuBLAS), the suggested ``MatmulParams``
(``suggest_matmul_params`` on a fusion of that shape, ``sms`` = the GPU's SM count) and a sweep of
candidate ``MatmulParams``. Every kernel is lowered once from a fusion of symbolic extents and
compiled once (a kernel is shape-generic: its extents are arguments), then run on every shape.
Each result is checked first against torch's float64 matmul of the same inputs (outputs poisoned
with NaN first). Timing is bench/matmul.py's: CUDA events around batches of about 3 ms of
back-to-back launches, rotating three input sets so L2 does not hold them, in 15 rounds in which
every kernel of the shape (torch.matmul included) times one batch in turn; the median per kernel,
after a warm-up of the GPU. Reports per shape the best swept TFLOP/s, the suggested TFLOP/s,
suggested / best (the target is >= 0.90) and both against torch.matmul, with the device name and the
date. The whole run takes about a minute on an H100 (compiles included).

``python bench/matmul_heuristic.py [--wide] [--shapes MxNxK,...] [--extra JSON] [--rounds 15] [--output PATH]``
prints the table; ``--output PATH`` also writes the results as JSON (the committed ones are
bench/results/matmul_heuristic.json, and matmul_heuristic_wide.json for ``--wide``).
``--dry-run`` needs no GPU (nor torch): it suggests params for every shape, lowers every config and
plans its launch on every shape (grid, shared memory, TMA descriptors) as the executor would.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.matmul_common import (
    check_error,
    describe,
    params_from_json,
    params_json,
    problem_inputs,
    relative_error,
    tflops,
)
from bench.results_file import add_output_option, write_results
from fusion_ir import DataType, Fusion, ScheduleError
from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
from lowering import lower
from runtime.tuning import matmul_fusion as tuning_fusion
from runtime.progress import reporting

# 12 measured shapes (M, N, K), and the classes they stand for
SHAPES = [
    (8192, 8192, 8192), (4096, 4096, 4096), (2048, 2048, 2048),          # squares
    (16384, 1024, 4096), (1024, 16384, 4096),                            # tall and wide
    (8192, 8192, 512), (4096, 4096, 256),                                # small K
    (2048, 2048, 16384), (1024, 1024, 32768),                            # large K, few tiles
    (4000, 3000, 2000), (5000, 7000, 3000), (1234, 4568, 888),           # not multiples of 128
]
# shapes the kernel cannot run: the suggestion's ScheduleError is reported beside torch.matmul
# K and N not multiples of 8: rows TMA cannot copy, loaded by the compute warp groups (docs/matmul.md, "Any K and
# any row stride"); its kernels are built for the constant shape (a symbolic one assumes TMA's rows)
UNSUPPORTED = [(1234, 4567, 891)]

WS = {"warp_specialized": True}
I32 = {"index_type": DataType.Int32}
# the sweep: the arrangements the suggestion picks from (the first four) and others it does not pick
SWEEP = [
    {"tile": (256, 128, 64), "stages": 4, "compute_warp_groups": 2, **WS},
    {"tile": (128, 256, 64), "stages": 3, "compute_warp_groups": 2, "tma_store": True, "persistent": True, **WS,
     **I32},
    {"tile": (64, 128, 64), "stages": 8, "compute_warp_groups": 1, **WS},
    {"tile": (128, 128, 64), "stages": 4, "compute_warp_groups": 2, **WS},
    {"tile": (128, 256, 64), "stages": 3, "compute_warp_groups": 2, "tma_store": True, "persistent": True, **WS},
    {"tile": (256, 128, 64), "stages": 3, "compute_warp_groups": 2, "tma_store": True, **WS},
    {"tile": (128, 256, 64), "stages": 4, "compute_warp_groups": 2, **WS},
    {"tile": (128, 256, 64), "stages": 3, "compute_warp_groups": 2, "tma_store": True, **WS},
    {"tile": (128, 256, 64), "stages": 4, "compute_warp_groups": 2},
    {"tile": (128, 128, 64), "stages": 4, "compute_warp_groups": 2, "tma_store": True, "persistent": True,
     "ping_pong": True, **WS, **I32},
]
# --wide: more arrangements (the measurements behind the rules)
WIDE = SWEEP + [
    {"tile": (256, 128, 64), "stages": 3, "compute_warp_groups": 2, "tma_store": True, "persistent": True, **WS},
    {"tile": (128, 256, 64), "stages": 4, "compute_warp_groups": 2, "persistent": True, **WS},
    {"tile": (128, 128, 64), "stages": 6, "compute_warp_groups": 2, **WS},
    {"tile": (128, 128, 64), "stages": 6, "compute_warp_groups": 2, "tma_store": True, **WS},
    {"tile": (128, 128, 64), "stages": 6, "compute_warp_groups": 2, "tma_store": True, "persistent": True, **WS},
    {"tile": (128, 128, 64), "stages": 6, "compute_warp_groups": 1, **WS},
    {"tile": (128, 64, 64), "stages": 8, "compute_warp_groups": 2, **WS},
    {"tile": (128, 64, 64), "stages": 8, "compute_warp_groups": 2, "tma_store": True, **WS},
    {"tile": (64, 256, 64), "stages": 5, "compute_warp_groups": 1, **WS},
    {"tile": (128, 128, 64), "stages": 3, "compute_warp_groups": 2},
    # 32-bit index arithmetic
    {"tile": (256, 128, 64), "stages": 4, "compute_warp_groups": 2, **WS, **I32},
    {"tile": (256, 128, 64), "stages": 3, "compute_warp_groups": 2, "tma_store": True, **WS, **I32},
    {"tile": (128, 256, 64), "stages": 3, "compute_warp_groups": 2, "tma_store": True, **WS, **I32},
    {"tile": (128, 256, 64), "stages": 3, "compute_warp_groups": 2, "tma_store": True, "persistent": True, **WS,
     **I32},
    {"tile": (256, 128, 64), "stages": 3, "compute_warp_groups": 2, "tma_store": True, "persistent": True, **WS,
     **I32},
    {"tile": (128, 256, 64), "stages": 4, "compute_warp_groups": 2, "persistent": True, **WS, **I32},
    {"tile": (64, 128, 64), "stages": 8, "compute_warp_groups": 1, **WS, **I32},
    {"tile": (128, 128, 64), "stages": 4, "compute_warp_groups": 2, "tma_store": True, "persistent": True,
     "ping_pong": True, **WS, **I32},
]


def matmul_fusion(shape: tuple[int, int, int] | None = None) -> Fusion:
    """bf16 ``cast(a @ b, bf16)``: of the given (M, N, K), or of symbolic extents (``shape=None``)."""
    return tuning_fusion(*(shape if shape is not None else (None, None, None)))


class Kernels:
    """One lowered kernel per ``MatmulParams``, lowered on first use (the executor caches the compile)."""

    def __init__(self) -> None:
        self.kernels: dict[tuple, object] = {}

    def get(self, params: MatmulParams, shape: tuple[int, int, int] | None = None):
        """``shape``: build the kernel for these constant sizes (the shapes of ``UNSUPPORTED``)."""
        shape = shape if shape in UNSUPPORTED else None
        if (params, shape) not in self.kernels:
            self.kernels[(params, shape)] = lower(schedule_matmul(matmul_fusion(shape), params))
        return self.kernels[(params, shape)]


def suggestion(shape: tuple[int, int, int], sms: int) -> MatmulParams | ScheduleError:
    try:
        return suggest_matmul_params(matmul_fusion(shape), sms=sms)
    except ScheduleError as e:
        return e


def dry_run(shapes: list[tuple[int, int, int]], sweep: list[MatmulParams], sms: int) -> None:
    """Everything but the GPU: suggest, lower, and plan each launch as the executor would."""
    from codegen import to_cuda
    from runtime.arrays import ArrayArg, ArrayKind
    from runtime.launch_plan import plan_launch

    kernels = Kernels()
    start = time.perf_counter()
    with reporting(None, len(shapes + UNSUPPORTED), "shapes") as advance:
        for shape in shapes + UNSUPPORTED:
            m, n, k = shape
            suggested = suggestion(shape, sms)
            if isinstance(suggested, ScheduleError):
                print(f"{m}x{n}x{k}: {suggested}")
                advance()
                continue
            plans = []
            for params in [suggested, *sweep]:
                try:
                    kernel = kernels.get(params, shape)
                except ScheduleError as e:      # a swept arrangement that cannot load the shape's rows
                    plans.append(f"refused: {e}"[:80])
                    continue
                to_cuda(kernel)
                args = [ArrayArg(ArrayKind.Torch, None, (m, k), (k, 1), "bfloat16", 2),
                        ArrayArg(ArrayKind.Torch, None, (k, n), (n, 1), "bfloat16", 2)]
                out = ArrayArg(ArrayKind.Torch, None, (m, n), (n, 1), "bfloat16", 2)
                plan = plan_launch(kernel, args, [out])
                plans.append(f"grid {plan.grid[0]}x{plan.grid[1]} smem {plan.smem_bytes // 1024}K")
            print(f"{m}x{n}x{k}: suggested {describe(suggested)} ({plans[0]}); {len(sweep)} swept configs planned")
            advance()
    print(f"dry run: {len(kernels.kernels)} kernels lowered, {len(shapes)} shapes planned in "
          f"{time.perf_counter() - start:.1f} s")


class Gpu:
    """The GPU side: torch, the executor and bench/matmul.py's timing helpers, imported only here."""

    def __init__(self, rounds: int) -> None:
        import torch

        from bench.matmul import interleaved_ms, launches_per_batch, rotating
        from runtime import execute
        from runtime.executor import prepare
        from runtime.sm_count import sm_count

        self.torch, self.rotating = torch, rotating
        self.interleaved_ms, self.launches_per_batch = interleaved_ms, launches_per_batch
        self.execute, self.prepare = execute, prepare
        self.sms = sm_count()
        self.rounds = rounds
        self.kernels = Kernels()

    def warm_up(self, seconds: float = 2.0) -> None:
        """Run large products until the clocks are up, before the first measurement."""
        torch = self.torch
        a = torch.randn(8192, 8192, device="cuda").bfloat16()
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            for _ in range(10):
                torch.matmul(a, a)
            torch.cuda.synchronize()

    def check(self, params: MatmulParams, sets: list, out, expected, torch_err: float,
              shape: tuple[int, int, int] | None = None) -> object:
        """The kernel of ``params``, its result checked against float64 (the output poisoned first)."""
        kernel = self.kernels.get(params, shape)
        out.fill_(float("nan"))
        self.execute(kernel, list(sets[0]), outputs=[out])
        self.torch.cuda.synchronize()
        err = relative_error(out, expected)
        check_error(err, torch_err)
        return kernel, err

    def shape_row(self, shape: tuple[int, int, int], sweep: list[MatmulParams]) -> dict:
        """torch.matmul, the suggestion and the sweep on one shape, timed in interleaved rounds."""
        torch = self.torch
        m, n, k = shape
        sets, expected, out, torch_err = problem_inputs(torch, m, n, k)
        row: dict = {"shape": [m, n, k]}
        suggested = suggestion(shape, self.sms)
        configs = list(sweep)
        if isinstance(suggested, ScheduleError):
            row["suggested"] = {"error": f"ScheduleError: {suggested}"}
            configs = []
        elif suggested not in configs:
            configs.append(suggested)
        entries: dict[MatmulParams, dict] = {}
        launches: dict[MatmulParams | None, object] = {None: lambda s: (lambda: torch.matmul(s[0], s[1], out=out))}
        for params in configs:
            entries[params] = {"name": describe(params)}
            try:
                kernel, err = self.check(params, sets, out, expected, torch_err, shape)
            except Exception as e:  # noqa: BLE001 - a config that fails is reported, not fatal
                entries[params]["error"] = f"{type(e).__name__}: {e}"[:300]
                continue
            entries[params]["rel_error"] = err
            launches[params] = lambda s, kernel=kernel: self.prepare(kernel, [s[0], s[1]], [out])
        keys = list(launches)
        medians = self.interleaved_ms([self.rotating(launches[key], sets) for key in keys],
                                      self.launches_per_batch(m, n, k), self.rounds)
        ms = dict(zip(keys, medians))
        row["torch"] = {"ms": ms[None], "TFLOP/s": tflops(m, n, k, ms[None])}
        for params, entry in entries.items():
            if params in ms:
                entry.update({"ms": ms[params], "TFLOP/s": tflops(m, n, k, ms[params])})
        if isinstance(suggested, ScheduleError):
            return row
        row["sweep"] = [entries[p] for p in sweep]
        row["suggested"] = {**entries[suggested], "params": params_json(suggested)}
        ok = [e for e in row["sweep"] if "TFLOP/s" in e]
        if ok and "TFLOP/s" in row["suggested"]:
            best = max(ok, key=lambda e: e["TFLOP/s"])
            row["best"] = best["name"]
            row["ratio_suggested_best"] = row["suggested"]["TFLOP/s"] / best["TFLOP/s"]
            row["ratio_suggested_torch"] = row["suggested"]["TFLOP/s"] / row["torch"]["TFLOP/s"]
            row["ratio_best_torch"] = best["TFLOP/s"] / row["torch"]["TFLOP/s"]
        return row


def measure(shapes: list[tuple[int, int, int]], sweep: list[MatmulParams], rounds: int) -> dict:
    gpu = Gpu(rounds)
    sweep = [replace(p, blocks=gpu.sms) for p in sweep]
    gpu.torch.manual_seed(0)
    gpu.warm_up()
    rows = []
    with reporting(None, len(shapes + UNSUPPORTED), "shapes") as advance:
        for shape in shapes + UNSUPPORTED:
            rows.append(gpu.shape_row(shape, sweep))
            gpu.torch.cuda.empty_cache()
            advance()
    return {"device": gpu.torch.cuda.get_device_name(), "date": datetime.date.today().isoformat(), "sms": gpu.sms,
            "timing": f"median of {rounds} interleaved rounds of ~3 ms batches (bench/matmul.py)", "rows": rows}


def print_table(result: dict) -> None:
    print(f"device: {result['device']}   date: {result['date']}   bf16 in, bf16 out; {result['timing']}; "
          f"ratios of TFLOP/s")
    print(f"{'shape':<18}{'torch':>7}{'best':>7}{'sugg.':>7}{'s/best':>8}{'s/torch':>8}   suggested | best swept")
    for r in result["rows"]:
        shape = "x".join(str(x) for x in r["shape"])
        s = r["suggested"]
        if "ratio_suggested_best" not in r:
            print(f"{shape:<18}{r['torch']['TFLOP/s']:>7.0f}   {s.get('error', 'failed')[:110]}")
            continue
        best = max(e["TFLOP/s"] for e in r["sweep"] if "TFLOP/s" in e)
        print(f"{shape:<18}{r['torch']['TFLOP/s']:>7.0f}{best:>7.0f}{s['TFLOP/s']:>7.0f}"
              f"{r['ratio_suggested_best']:>8.2f}{r['ratio_suggested_torch']:>8.2f}   {s['name']} | {r['best']}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dry-run", action="store_true", help="lower and plan every config on every shape; no GPU")
    parser.add_argument("--wide", action="store_true", help="sweep more arrangements (the cost model's fit)")
    parser.add_argument("--shapes", help="comma-separated MxNxK (default: the 12 of SHAPES)")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved timing rounds per shape")
    parser.add_argument("--extra", help="a JSON list of further MatmulParams dicts to sweep (tile as a list, "
                                        "index_type as \"Int32\")")
    parser.add_argument("--sms", type=int, default=132, help="--dry-run: the SM count to suggest for")
    add_output_option(parser, "matmul_heuristic.json")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    shapes = SHAPES
    if args.shapes:
        shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]  # type: ignore[misc]
    configs = WIDE if args.wide else SWEEP
    if args.extra:
        configs = configs + [params_from_json(c) for c in json.loads(args.extra)]
    sweep = list(dict.fromkeys(MatmulParams(**c) for c in configs))
    if args.dry_run:
        dry_run(shapes, sweep, args.sms)
        return
    result = measure(shapes, sweep, args.rounds)
    print_table(result)
    write_results(result, args.output)


if __name__ == "__main__":
    main()
