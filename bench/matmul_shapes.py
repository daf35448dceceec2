"""The matmuls a user writes, against torch.matmul on the same layouts: the rules' kernel and the tuned one.

Each problem is bf16 in, bf16 out, given as a user holds it: a ``[M, K]`` (or ``[K, M]`` for A^T), b ``[K, N]``
(or ``[N, K]``, nn.Linear's weight, for B^T), both with a leading batch axis when batched, or b 2-D and broadcast
over the batch. torch.matmul gets the same tensors through ``.transpose(-2, -1)`` views (cuBLAS reads them in
place, as ours does). For every problem:

- *rules*: ``suggest_matmul_params`` on a fusion of the problem's constant shape (the GPU's SM count);
- *tuned*: the fastest of the tuner's candidates (``matmul_candidates``: the rules' choice and its alternatives),
  all measured in the same interleaved rounds as the rules and torch.matmul, then the ``CONFIRM`` fastest measured
  again beside the rules' kernel and torch.matmul in rounds of their own, whose ratios the row reports: what
  ``tune_matmul`` would keep, without the first round's favour to the candidate its noise helped most; beside
  them the big one-tile-per-block candidates in both cluster shapes (``CLUSTERS``; the tuner tries one per tile).

Kernels are lowered from fusions of symbolic extents where both inputs' rows are 16-byte multiples (TMA), from
the problem's constant shape otherwise (the compute warp groups load that operand: "odd K" problems) and for the
persistent kernels, whose tile walk with runtime extents ran slower than the constant shape's (``Kernels``).

Every kernel is lowered once per operand form (plain, transposed, batched, broadcast: kernels take their extents
as arguments) and compiled once, all of them in parallel before the first launch. Every result is checked
against torch's float64 product first (outputs poisoned with NaN). Timing: ``runtime.timing.interleaved_ms``
(batches of about 3 ms of back-to-back launches, captured into a CUDA graph, rotating three input sets so L2 does
not hold them; 15 interleaved rounds; the median). The results carry the device name and the date.

``python bench/matmul_shapes.py [--problems NAME,...] [--rounds 15] [--output PATH]`` (committed:
bench/results/matmul_shapes.json); ``--stream-k`` also times stream-K kernels (``STREAM_K_TILES``, a grid of the SM
count) beside each problem's candidates. ``--dry-run`` (no GPU, no torch) suggests, lists the candidates and lowers
every kernel.
"""

from __future__ import annotations

import argparse
import datetime
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.matmul_common import check_error, describe, params_json, relative_error, tflops
from bench.results_file import add_output_option, write_results
from fusion_ir import Fusion, ScheduleError
from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
from fusion_ir.schedulers.candidates import matmul_candidates
from lowering import lower
from runtime.tuning import CONFIRM, matmul_fusion


@dataclass(frozen=True)
class Problem:
    """``[batch x] (M x K) @ (K x N)``; ``ta``/``tb``: the operand is given transposed; ``shared_b``: b is 2-D,
    broadcast over the batch."""

    name: str
    m: int
    n: int
    k: int
    batch: int | None = None
    ta: bool = False
    tb: bool = False
    shared_b: bool = False

    @property
    def form(self) -> tuple[bool, bool, bool, bool]:
        return (self.batch is not None, self.ta, self.tb, self.shared_b)

    @property
    def tma_rows(self) -> bool:
        """Whether both inputs' rows are 16-byte multiples (bf16: their innermost extents multiples of 8)."""
        a_row = self.m if self.ta else self.k
        b_row = self.k if self.tb else self.n
        return a_row % 8 == 0 and b_row % 8 == 0

    @property
    def flops_mnk(self) -> tuple[int, int, int]:
        return (self.m * (self.batch or 1), self.n, self.k)


P = Problem
PROBLEMS = [
    # squares
    P("square 1024", 1024, 1024, 1024), P("square 2048", 2048, 2048, 2048), P("square 4096", 4096, 4096, 4096),
    P("square 8192", 8192, 8192, 8192), P("square 16384", 16384, 16384, 16384),
    # small K
    P("small-K 4096x4096x128", 4096, 4096, 128), P("small-K 8192x8192x256", 8192, 8192, 256),
    P("small-K 8192x8192x512", 8192, 8192, 512), P("small-K 16384x4096x512", 16384, 4096, 512),
    # large K
    P("large-K 1024x1024x32768", 1024, 1024, 32768), P("large-K 2048x2048x16384", 2048, 2048, 16384),
    P("large-K 4096x4096x16384", 4096, 4096, 16384), P("large-K 512x8192x16384", 512, 8192, 16384),
    # skinny
    P("skinny M=128", 128, 8192, 8192), P("skinny N=256", 8192, 256, 8192),
    P("skinny 16384x512x4096", 16384, 512, 4096), P("skinny 512x16384x4096", 512, 16384, 4096),
    # batched (LLM-like)
    P("batched 8x2048x2048x128", 2048, 2048, 128, batch=8),
    P("batched 32x2048x128x2048 (P V)", 2048, 128, 2048, batch=32),
    P("batched 64x2048x2048x128 B^T (Q K^T)", 2048, 2048, 128, batch=64, tb=True),
    P("batched 16x1024x1024x1024, shared B", 1024, 1024, 1024, batch=16, shared_b=True),
    # transposed B: nn.Linear's weight
    P("B^T 4096^3", 4096, 4096, 4096, tb=True), P("B^T 4096x14336x4096 (MLP up)", 4096, 14336, 4096, tb=True),
    P("B^T 4096x4096x14336 (MLP down)", 4096, 4096, 14336, tb=True),
    P("A^T 4096^3", 4096, 4096, 4096, ta=True),
    # not multiples of 64
    P("odd 4000x3000x2000", 4000, 3000, 2000), P("odd 5000x7000x3000", 5000, 7000, 3000),
    P("odd 1234x4568x888", 1234, 4568, 888), P("odd 3000x3000x3000 B^T", 3000, 3000, 3000, tb=True),
    # rows TMA cannot copy: the compute warp groups load the operand (cp.async or plain copies)
    P("odd K 4096x4096x1001", 4096, 4096, 1001), P("odd K 2000x3000x262", 2000, 3000, 262),
]


def problem_fusion(p: Problem | None = None, form: tuple[bool, bool, bool, bool] | None = None) -> Fusion:
    """``cast(a @ b, bf16)`` of ``p``'s constant shape, or of symbolic extents in ``form`` (one kernel per form)."""
    batched, ta, tb, shared_b = p.form if p is not None else form  # type: ignore[union-attr]
    m, n, k, batch = (p.m, p.n, p.k, p.batch) if p is not None else (None, None, None, None)
    return matmul_fusion(m, n, k, batch=batch, batched=batched, transpose_a=ta, transpose_b=tb, shared_b=shared_b)


# clusters of two blocks sharing an operand's tile by TMA multicast (half its L2 reads): each one-tile-per-block
# big-tile candidate of the tuner is timed in clusters (2, 1) and (1, 2) too
CLUSTERS = ((2, 1), (1, 2))
CLUSTERED_BIG_TILES = ((128, 256, 64), (256, 128, 64))


# ``--stream-k``: stream-K kernels (MatmulParams.stream_k, Pipelined, a grid of the SM count) beside the candidates:
# the rules' arrangement around a pinned stream_k=True, and each tile here with its warp groups and stages (not among
# the tuner's candidates: unmeasured yet)
STREAM_K_TILES = (((128, 256, 64), 2, 4), ((128, 128, 64), 1, 6))


def stream_k_candidates(p: Problem, rules: MatmulParams, sms: int) -> list[MatmulParams]:
    """Stream-K kernels for ``p`` (none for a batch, or for rows TMA cannot copy: stream-K refuses them): the rules'
    arrangement around a pinned ``stream_k=True``, then ``STREAM_K_TILES``."""
    if p.batch is not None or not p.tma_rows:
        return []
    out = [suggest_matmul_params(problem_fusion(p), sms=sms, stream_k=True)]
    out += [MatmulParams(tile=tile, compute_warp_groups=w, stages=stages, warp_specialized=False,
                         tma_store=rules.tma_store, index_type=rules.index_type, stream_k=True, blocks=sms)
            for tile, w, stages in STREAM_K_TILES]
    return list(dict.fromkeys(out))


def candidates(p: Problem, rules: MatmulParams, sms: int, stream_k: bool = False) -> list[MatmulParams]:
    """What is timed for ``p``: the tuner's candidates (``matmul_candidates``: the rules' choice first), then the
    big-tile ones that run a tile per block in clusters of two (``CLUSTERS``), then with ``stream_k`` the stream-K
    kernels (``stream_k_candidates``)."""
    found = matmul_candidates(problem_fusion(p), sms=sms)
    out = [rules] + [c for c in found if c != rules]
    clustered = [replace(c, cluster=cluster) for c in out for cluster in CLUSTERS
                 if c.tile in CLUSTERED_BIG_TILES and c.warp_specialized and not c.persistent and c.cluster == (1, 1)
                 and c.split_k == 1 and not c.grouped_grid]      # a cluster orders its blocks its own way
    out += [c for c in clustered if c not in out]
    if stream_k:
        out += [c for c in stream_k_candidates(p, rules, sms) if c not in out]
    return out


class Kernels:
    """One lowered kernel per (form, params), or per (problem, params) for a problem of rows TMA cannot copy (its
    operands are loaded by the compute warp groups, which needs the sizes) and for a persistent kernel: its walk
    over the tiles with runtime extents ran far slower than the kernel ``schedule_matmul`` lowers for the constant
    shape a user's fusion has (H100, 2026-11-27, the rules' persistent 256 x 128 at 4096^3: 0.90 of cuBLAS against
    0.99; 8192 x 8192 x 1024: 0.86 against 0.94; a tile per block ran the same either way)."""

    def __init__(self) -> None:
        self.kernels: dict[tuple, object] = {}
        self.errors: dict[tuple, str] = {}

    @staticmethod
    def key(p: Problem, params: MatmulParams) -> tuple:
        return (p.form if p.tma_rows and not params.persistent else p, params)

    def get(self, p: Problem, params: MatmulParams):
        key = self.key(p, params)
        if key not in self.kernels and key not in self.errors:
            fusion = problem_fusion(form=p.form) if key[0] == p.form else problem_fusion(p)
            try:
                self.kernels[key] = lower(schedule_matmul(fusion, params))
            except Exception as e:  # noqa: BLE001 - reported per candidate
                self.errors[key] = f"{type(e).__name__}: {e}"[:300]
        return self.kernels.get(key)


def plan(problems: list[Problem], sms: int, stream_k: bool = False) -> tuple[dict[Problem, tuple], Kernels]:
    """Each problem's rules and candidates, and every kernel lowered."""
    kernels = Kernels()
    chosen: dict[Problem, tuple] = {}
    for p in problems:
        try:
            rules = suggest_matmul_params(problem_fusion(p), sms=sms)
        except ScheduleError as e:
            chosen[p] = (None, [], f"ScheduleError: {e}")
            continue
        cands = candidates(p, rules, sms, stream_k=stream_k)
        for c in cands:
            kernels.get(p, c)
        chosen[p] = (rules, cands, None)
    return chosen, kernels


def measure(problems: list[Problem], rounds: int, stream_k: bool = False) -> dict:
    import torch

    from bench.matmul import launches_per_batch, rotating
    from runtime.executor import compile_kernels, prepare
    from runtime.sm_count import sm_count
    from runtime.timing import interleaved_ms

    sms = sm_count()
    t0 = time.perf_counter()
    chosen, kernels = plan(problems, sms, stream_k=stream_k)
    t_lower = time.perf_counter() - t0
    compile_kernels(list(kernels.kernels.values()), watchdog_s=None)
    t_compile = time.perf_counter() - t0 - t_lower
    print(f"lowered {len(kernels.kernels)} kernels in {t_lower:.0f} s, compiled in {t_compile:.0f} s", flush=True)
    torch.manual_seed(0)
    _warm_up(torch)
    rows = []
    for p in problems:
        rules, cands, error = chosen[p]
        row: dict = {"problem": p.name, "shape": [p.m, p.n, p.k], "batch": p.batch, "transpose_a": p.ta,
                     "transpose_b": p.tb, "shared_b": p.shared_b}
        sets, expected, out, torch_err, views = _inputs(torch, p)
        ref = rotating(lambda s: (lambda: torch.matmul(*views(s), out=out)), sets)
        if error is not None:
            (ref_ms,) = interleaved_ms([ref], launches_per_batch(*p.flops_mnk), rounds)
            rows.append({**row, "torch_ms": ref_ms, "error": error})
            continue
        entries: dict[MatmulParams, dict] = {}
        launches = {}
        for c in cands:
            entry = entries[c] = {"name": describe(c), "params": params_json(c)}
            kernel = kernels.get(p, c)
            if kernel is None:
                entry["error"] = kernels.errors[kernels.key(p, c)]
                continue
            try:
                launch = prepare(kernel, list(sets[0]), [out])
                out.fill_(float("nan"))
                launch()
                torch.cuda.synchronize()
                err = relative_error(out, expected)
                check_error(err, torch_err)
            except Exception as e:  # noqa: BLE001 - a candidate that fails is reported, not fatal
                entry["error"] = f"{type(e).__name__}: {e}"[:300]
                continue
            entry["rel_error"] = err
            launches[c] = rotating(lambda s, kernel=kernel: prepare(kernel, list(s), [out]), sets)
        keys = list(launches)
        medians = interleaved_ms([ref] + [launches[c] for c in keys], launches_per_batch(*p.flops_mnk), rounds)
        ref_ms = medians[0]
        for c, ms in zip(keys, medians[1:]):
            entries[c].update(ms=ms, tflops=tflops(*p.flops_mnk, ms), ratio=ref_ms / ms)
        timed = [c for c in cands if "ms" in entries[c]]
        if rules in timed and len(timed) > 1:
            # as the tuner does (runtime.tuning.CONFIRM): the first round's fastest timed again beside the rules' and
            # torch, in rounds of their own; the row's ratios are that round's, so the fastest of many candidates is
            # not the one the first round's noise favoured most
            again = sorted(timed, key=lambda c: entries[c]["ms"])[:CONFIRM]
            again += [rules] if rules not in again else []
            medians = interleaved_ms([ref] + [launches[c] for c in again], launches_per_batch(*p.flops_mnk), rounds)
            ref_ms = medians[0]
            for c, ms in zip(again, medians[1:]):
                entries[c].update(confirm_ms=ms, confirm_ratio=ref_ms / ms)
            timed = again
        again_timed = "confirm_ms" in entries[rules]
        ratio, milliseconds = ("confirm_ratio", "confirm_ms") if again_timed else ("ratio", "ms")
        row.update(torch_ms=ref_ms, torch_tflops=tflops(*p.flops_mnk, ref_ms), candidates=list(entries.values()))
        if rules in timed and timed:
            best = min(timed, key=lambda c: entries[c][milliseconds])
            row.update(rules=entries[rules]["name"], rules_ratio=entries[rules][ratio], tuned=entries[best]["name"],
                       tuned_ratio=entries[best][ratio],
                       rules_over_tuned=entries[best][milliseconds] / entries[rules][milliseconds])
        else:
            row["error"] = entries[rules].get("error", "the rules' kernel did not run")
        rows.append(row)
        print(_line(row), flush=True)
        torch.cuda.empty_cache()
    return {"device": torch.cuda.get_device_name(), "date": datetime.date.today().isoformat(), "sms": sms,
            "timing": f"median of {rounds} interleaved rounds of ~3 ms CUDA-graph batches (runtime.timing)",
            "summary": summary(rows), "rows": rows}


def _inputs(torch, p: Problem):
    lead = () if p.batch is None else (p.batch,)
    sets = []
    for _ in range(3):
        a = torch.randn(*lead, *((p.k, p.m) if p.ta else (p.m, p.k)), device="cuda").bfloat16()
        b_lead = () if p.shared_b else lead
        b = torch.randn(*b_lead, *((p.n, p.k) if p.tb else (p.k, p.n)), device="cuda").bfloat16()
        sets.append((a, b))

    def views(s):
        a, b = s
        return (a.transpose(-2, -1) if p.ta else a), (b.transpose(-2, -1) if p.tb else b)
    av, bv = views(sets[0])
    expected = av.double() @ bv.double()
    out = torch.empty(*lead, p.m, p.n, device="cuda", dtype=torch.bfloat16)
    torch_err = relative_error(torch.matmul(av, bv), expected)
    return sets, expected, out, torch_err, views


def _warm_up(torch, seconds: float = 2.0) -> None:
    a = torch.randn(8192, 8192, device="cuda").bfloat16()
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(10):
            torch.matmul(a, a)
        torch.cuda.synchronize()


def summary(rows: list[dict]) -> dict:
    ok = [r for r in rows if "tuned_ratio" in r]
    if not ok:
        return {}
    def geo(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs))
    return {"problems": len(rows), "measured": len(ok),
            "tuned_geomean": geo([r["tuned_ratio"] for r in ok]), "tuned_min": min(r["tuned_ratio"] for r in ok),
            "rules_geomean": geo([r["rules_ratio"] for r in ok]), "rules_min": min(r["rules_ratio"] for r in ok),
            "rules_over_tuned_geomean": geo([r["rules_over_tuned"] for r in ok]),
            "rules_over_tuned_min": min(r["rules_over_tuned"] for r in ok)}


def _line(r: dict) -> str:
    if "error" in r and "tuned_ratio" not in r:
        return f"{r['problem']:<40} FAILED {r['error'][:90]}"
    return (f"{r['problem']:<40}{r['torch_tflops']:>7.0f}{r['rules_ratio']:>7.2f}{r['tuned_ratio']:>7.2f}"
            f"{r['rules_over_tuned']:>7.2f}   {r['rules']} | {r['tuned']}")


def print_table(result: dict) -> None:
    print(f"device: {result['device']}   date: {result['date']}   bf16 in, bf16 out; {result['timing']}")
    print(f"{'problem':<40}{'torch':>7}{'rules':>7}{'tuned':>7}{'r/t':>7}   rules | tuned  (ratios: torch ms / ours)")
    for r in result["rows"]:
        print(_line(r))
    s = result["summary"]
    if s:
        print(f"tuned: geomean {s['tuned_geomean']:.3f}, min {s['tuned_min']:.2f};  rules: geomean "
              f"{s['rules_geomean']:.3f}, min {s['rules_min']:.2f};  rules / tuned: geomean "
              f"{s['rules_over_tuned_geomean']:.3f}, min {s['rules_over_tuned_min']:.2f}  "
              f"({s['measured']} of {s['problems']} problems)")


def dry_run(problems: list[Problem], sms: int, stream_k: bool = False) -> None:
    chosen, kernels = plan(problems, sms, stream_k=stream_k)
    for p in problems:
        rules, cands, error = chosen[p]
        if error is not None:
            print(f"{p.name:<40} {error[:100]}")
            continue
        failed = [describe(c) for c in cands if kernels.key(p, c) in kernels.errors]
        print(f"{p.name:<40} rules {describe(rules)}; {len(cands)} candidates"
              + (f"; not lowered: {', '.join(failed)}" if failed else ""))
    print(f"{len(kernels.kernels)} kernels lowered, {len(kernels.errors)} failed")
    for key, e in kernels.errors.items():
        print(f"  {describe(key[1])} {key[0]}: {e[:150]}")


def problem_of(spec: str) -> Problem:
    """``MxNxK`` (plain), ``BxMxNxK`` (batched), each with forms after a colon, joined by ``+``: ``shared`` (batched
    only: B 2-D, broadcast over the batch), ``at`` (A given as [K, M]), ``bt`` (B given as [N, K], as nn.Linear
    stores it): ``4096x11008x4096:bt``, ``8x1024x1024x512:shared+bt``."""
    dims, colon, tail = spec.partition(":")
    forms = tail.split("+") if colon else []
    try:
        sizes = [int(x) for x in dims.split("x")]
    except ValueError:
        sizes = []
    known = {"shared", "at", "bt"}
    if (len(sizes) not in (3, 4) or any(f not in known for f in forms) or len(set(forms)) != len(forms)
            or ("shared" in forms and len(sizes) != 4)):
        raise SystemExit(f"--shapes: {spec!r} is not MxNxK or BxMxNxK with forms among :shared (batched only), :at "
                         f"and :bt joined by +")
    ta, tb = "at" in forms, "bt" in forms
    if len(sizes) == 3:
        return Problem(spec, *sizes, ta=ta, tb=tb)
    b, m, n, k = sizes
    return Problem(spec, m, n, k, batch=b, ta=ta, tb=tb, shared_b="shared" in forms)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", help="comma-separated problem names, or substrings of them")
    parser.add_argument("--shapes", help="comma-separated MxNxK (plain A @ B) or BxMxNxK (batched) problems instead "
                                         "of the list, each with forms after a colon joined by +: shared (B "
                                         "broadcast over the batch), at (A given transposed), bt (B given "
                                         "transposed): 4096x11008x4096:bt")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--dry-run", action="store_true", help="suggest, list candidates and lower; no GPU")
    parser.add_argument("--sms", type=int, default=132, help="--dry-run: the SM count to suggest for")
    parser.add_argument("--stream-k", action="store_true",
                        help="also time stream-K kernels (MatmulParams.stream_k; STREAM_K_TILES) of each problem")
    add_output_option(parser, "matmul_shapes.json")
    args = parser.parse_args(argv)
    problems = PROBLEMS
    if args.problems:
        wanted = [w.strip() for w in args.problems.split(",")]
        problems = [p for p in PROBLEMS if any(w in p.name for w in wanted)]
    if args.shapes:
        problems = [problem_of(s) for s in args.shapes.split(",")]
    if args.dry_run:
        dry_run(problems, args.sms, stream_k=args.stream_k)
        return
    result = measure(problems, args.rounds, stream_k=args.stream_k)
    write_results(result, args.output)
    print_table(result)


if __name__ == "__main__":
    main()
