"""The matmul tuner: ``tune_matmul(fusion)`` times candidate ``MatmulParams`` for the fusion's problem on
the GPU at hand and keeps the fastest in the tuning cache (``fusion_ir.schedulers.tuning_cache``), where
``schedule_matmul`` finds it for that device and problem.

The timer is injectable (``measure``): the default, ``GpuMeasure``, schedules a copy of the fusion per
candidate, lowers, compiles and checks it against the fusion's float64 reference on random inputs of the
problem's shape, then times every candidate that passed in interleaved rounds of batched launches
(``runtime.timing.interleaved_ms``: CUDA graphs with torch), rotating three input sets so L2 does not hold them; the median
per candidate. The ``CONFIRM`` fastest of that round are measured again, in rounds of their own, and the fastest there
wins: of twenty candidates timed once, the fastest is also the one the rounds' noise favoured most (groups of 4, 8 and
16 rows that a probe timed within 0.5 % of each other had each won by 2-7 % in one round).
A candidate that fails to schedule, compile or launch is skipped and one whose result is wrong is
rejected, each with the reason kept in the cache entry. Arrays: torch when it imports, else cupy.

``python -m runtime.tuning 4096x4096x4096 [--batch B] [--transpose-a] [--transpose-b] [--out bfloat16|float]
[--rounds N] [--limit N] [--cache PATH]`` tunes ``cast(a @ b, out)`` of bf16 operands of that shape.
"""

from __future__ import annotations

import copy
import datetime
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from fusion_ir import DataType, Fusion, ScalarInput, ScheduleError
from fusion_ir.schedulers.candidates import matmul_candidates
from fusion_ir.schedulers.matmul import schedule_matmul
from fusion_ir.schedulers.matmul_key import problem_key
from fusion_ir.schedulers.matmul_params import MatmulParams, with_why
from fusion_ir.schedulers.matmul_problem import MatmulProblem, matmul_problem
from fusion_ir.schedulers.matmul_why import params_name
from fusion_ir.schedulers.tuning_cache import (
    Tried,
    TunedEntry,
    TuningCache,
    TuningCacheError,
    current_device,
    tuned_why,
    use,
)
from target import current as current_target

from .errors import RuntimeFailure
from .timing import interleaved_ms

# A measurement per candidate, in order: milliseconds per launch, or why it has none (skipped, rejected)
Measure = Callable[[Fusion, Sequence[MatmulParams]], Sequence["float | str"]]
Progress = Callable[[Tried, int, int], None]

ROUNDS = 10            # interleaved timing rounds per candidate
CONFIRM = 4            # the first round's fastest candidates measured again; the fastest of those wins
BATCH_SECONDS = 2e-3   # device time of one timed batch of launches (at REFERENCE_TFLOPS)
REFERENCE_TFLOPS = 700.0


class TuningError(RuntimeFailure):
    """No candidate could be timed; the message lists each with its reason."""


def print_progress(tried: Tried, index: int, total: int) -> None:
    """The default progress: one line per candidate with its time and rate, or why it has none."""
    width = len(str(total))
    head = f"  [{index + 1:>{width}}/{total}] {tried.name:<48}"
    if tried.ms is not None:
        print(f"{head} {tried.ms:9.4f} ms {tried.tflops or 0:8.1f} TFLOP/s", flush=True)
    else:
        print(f"{head} {tried.error}", flush=True)


def tune_matmul(fusion: Fusion, *, candidates: Sequence[MatmulParams] | None = None, measure: Measure | None = None,
                progress: Progress | None = print_progress, cache: TuningCache | str | Path | None = None,
                device: str | None = None, sms: int | None = None, confirm: int = CONFIRM) -> MatmulParams:
    """Time ``candidates`` (default: ``matmul_candidates(fusion, sms)``) for ``fusion``'s matmul with ``measure``
    (default: ``GpuMeasure()`` on this GPU), report each through ``progress`` (None: quiet), store the
    fastest in ``cache`` (default: ``TuningCache()``, the file of ``FUSION_TUNING_CACHE``) under ``device``
    (default: the installed tuning device, else the GPU's name) and return it, carrying the entry as ``why``.
    The ``confirm`` fastest (``CONFIRM``; 1: none) are measured again and the fastest of that round wins, its time
    the one stored; a candidate that fails there keeps its first time and does not win.

    ``fusion`` must be unscheduled and of constant shapes; it is not changed (each candidate schedules a
    copy). ``sms``: the GPU's SM count (default: the device's, else the target's). Raises ``TuningError``
    when no candidate could be timed and ``TuningCacheError`` for a cache file it cannot read or write
    (checked before any timing)."""
    if not isinstance(confirm, int) or isinstance(confirm, bool) or confirm < 1:
        raise TypeError(f"tune_matmul: confirm must be a positive int (candidates timed again), got {confirm!r}")
    problem = _constant_problem(fusion)
    store = cache if isinstance(cache, TuningCache) else TuningCache(cache)
    store.entries()                                   # an unreadable cache fails now, not after the timing
    device = device if device is not None else current_device()
    if device is None:
        device = gpu_name()
    if sms is None:
        from .sm_count import sm_count

        sms = sm_count(default=current_target().sm_count)
    cands = list(candidates) if candidates is not None else matmul_candidates(problem, sms)
    bad = [c for c in cands if not isinstance(c, MatmulParams)]
    if bad or not cands:
        raise TypeError(f"tune_matmul: candidates must be a non-empty list of MatmulParams, got {bad or cands!r}")
    measure = measure if measure is not None else GpuMeasure()
    results = _measured(measure, fusion, cands)
    flop = 2 * problem.m * problem.n * problem.k * problem.batch      # type: ignore[operator]
    tried = []
    for index, (params, result) in enumerate(zip(cands, results)):
        if isinstance(result, str):
            entry = Tried(params_name(params), error=result)
        else:
            entry = Tried(params_name(params), ms=float(result), tflops=flop / float(result) / 1e9)
        tried.append(entry)
        if progress is not None:
            progress(entry, index, len(cands))
    timed = [(t.ms, k) for k, t in enumerate(tried) if t.ms is not None]
    if not timed:
        reasons = "\n".join(f"  {t.name}: {t.error}" for t in tried)
        raise TuningError(f"tune_matmul: no candidate ran for {problem_key(fusion, problem)}:\n{reasons}")
    _, best = min(timed)
    ms = tried[best].ms
    top = [k for _, k in sorted(timed)[:confirm]]
    if len(top) > 1:
        for k, result in zip(top, _measured(measure, fusion, [cands[k] for k in top])):
            if not isinstance(result, str):
                tried[k] = replace(tried[k], confirm_ms=float(result))
        confirmed = [(tried[k].confirm_ms, k) for k in top if tried[k].confirm_ms is not None]
        if confirmed:
            ms, best = min(confirmed)                               # type: ignore[type-var]
            if progress is print_progress:
                print("  again: " + ", ".join(f"{tried[k].name} {tried[k].confirm_ms:.4f} ms" for k in top
                                               if tried[k].confirm_ms is not None), flush=True)
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    entry = TunedEntry(device, problem_key(fusion, problem), cands[best], ms, flop / ms / 1e9,   # type: ignore
                       date, tuple(tried))
    store.store(entry)
    if progress is print_progress:
        print(f"  winner: {tried[best].name} ({ms:.4f} ms); stored for {device!r} in {store.path}", flush=True)
    return with_why(replace(cands[best]), tuned_why(entry))


def _measured(measure: Measure, fusion: Fusion, candidates: list[MatmulParams]) -> list[float | str]:
    """``measure``'s results for ``candidates``, one each (a TypeError otherwise)."""
    results = list(measure(fusion, candidates))
    if len(results) != len(candidates):
        raise TypeError(f"tune_matmul: measure returned {len(results)} results for {len(candidates)} candidates")
    return results


def _constant_problem(fusion: Fusion) -> MatmulProblem:
    if any(tv.compute_at_pos or tv.transforms for tv in fusion.used_tensors() if not tv.is_input):
        raise ScheduleError("tune_matmul: the fusion is already scheduled; tune an unscheduled fusion (each "
                            "candidate schedules a copy)")
    problem = matmul_problem(fusion, caller="tune_matmul")
    if None in (problem.m, problem.n, problem.k, problem.batch):
        names = ", ".join(f"T{tv.name}" for tv in fusion.inputs)
        raise ScheduleError(f"tune_matmul: the matmul's sizes are symbolic (inputs {names}); tuning times one "
                            f"problem: give the inputs constant shapes (fusion.add_input(shape=...))")
    return problem


def gpu_name(ordinal: int = 0) -> str:
    """The driver's name of device ``ordinal`` (``NoGpuError`` without a GPU), the tuning cache's device key."""
    from . import driver

    return driver.device(ordinal).name


@contextmanager
def use_this_gpu(ordinal: int = 0) -> Iterator[str]:
    """Inside the block, schedules use the tuning cache's winners for this GPU (its name, from the driver)."""
    name = gpu_name(ordinal)
    with use(device=name):
        yield name


# ---- the default measure: build, check and time each candidate on the GPU -------------------------
class GpuMeasure:
    """``measure`` for ``tune_matmul`` on this GPU (see the module's text); ``log`` gets a line per build."""

    def __init__(self, *, rounds: int = ROUNDS, seed: int = 0, sets: int = 3,
                 log: Callable[[str], None] | None = None) -> None:
        self.rounds, self.seed, self.sets = rounds, seed, sets
        self.log = log if log is not None else (lambda text: print(text, file=sys.stderr, flush=True))

    def __call__(self, fusion: Fusion, candidates: Sequence[MatmulParams]) -> list[float | str]:
        from fusion_ir.reference import evaluate

        problem = matmul_problem(fusion, caller="tune_matmul")
        arrays = Arrays()
        rng = np.random.default_rng(self.seed)
        # a scalar input gets a value in [0.5, 2) (a Python float, passed by value), a tensor random normals
        host = [[float(rng.uniform(0.5, 2.0)) if isinstance(tv, ScalarInput)
                 else rng.standard_normal(_shape(tv)).astype(np.float32) for tv in fusion.inputs]
                for _ in range(self.sets)]
        sets = [[x if isinstance(tv, ScalarInput) else arrays.upload(x, tv.dtype)
                 for x, tv in zip(inputs, fusion.inputs)] for inputs in host]
        exact = [x if isinstance(x, float) else arrays.to_host(x) for x in sets[0]]   # the values the device holds
        if len(fusion.outputs) != 1:
            raise ScheduleError(f"tune_matmul: the fusion has {len(fusion.outputs)} outputs; the tuner checks a "
                                f"matmul with one output")
        (out_tv,) = fusion.outputs
        expected = evaluate(fusion, exact)[0]
        limit = 2 * relative_error(_rounded(expected, out_tv.dtype), expected) + 1e-3
        out = arrays.empty(_shape(out_tv), out_tv.dtype)
        results: list[float | str] = []
        launches = []
        for k, params in enumerate(candidates):
            self.log(f"  building {k + 1}/{len(candidates)}: {params_name(params)}")
            try:
                launch = self._build(fusion, params, sets, out, arrays, expected, limit)
            except Exception as e:  # noqa: BLE001 - a candidate that fails is skipped with its reason, not fatal
                results.append(f"skipped: {type(e).__name__}: {_first_line(e)}")
                continue
            if isinstance(launch, str):
                results.append(launch)
                continue
            results.append(float("nan"))                            # timed below
            launches.append((k, launch))
        if launches:
            flop = 2 * problem.m * problem.n * problem.k * problem.batch   # type: ignore[operator]
            batch = max(1, round(BATCH_SECONDS * REFERENCE_TFLOPS * 1e12 / flop))
            medians = interleaved_ms([launch for _, launch in launches], batch, self.rounds)
            for (k, _), ms in zip(launches, medians):
                results[k] = ms
        return results

    def _build(self, fusion: Fusion, params: MatmulParams, sets: list, out: Any, arrays: Arrays,
               expected: np.ndarray, limit: float) -> Callable[[], None] | str:
        """A launch rotating over the input sets, or why the candidate is rejected (a wrong result)."""
        from lowering import lower

        from .executor import execute, prepare

        kernel = lower(schedule_matmul(copy.deepcopy(fusion), params))
        arrays.fill_nan(out)
        execute(kernel, sets[0], outputs=[out])
        arrays.synchronize()
        err = relative_error(arrays.to_host(out), expected)
        if not err < limit:
            return f"rejected: relative error {err:.2e} over {limit:.2e} (twice the output dtype's rounding + 1e-3)"
        fns = [prepare(kernel, inputs, [out]) for inputs in sets]
        state = {"k": 0}

        def launch() -> None:
            fns[state["k"] % len(fns)]()
            state["k"] += 1
        return launch


def _shape(tv: Any) -> tuple[int, ...]:
    shape = tuple(i.extent.const_value() for i in tv.shape_ids)
    if None in shape:
        raise ScheduleError(f"tune_matmul: T{tv.name} has a symbolic extent; tuning needs constant shapes")
    return shape  # type: ignore[return-value]


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:300] if text else ""


def relative_error(out: np.ndarray, expected: np.ndarray) -> float:
    """‖out − expected‖ / ‖expected‖ in float64 (NaN anywhere: NaN, which fails every check)."""
    out64 = np.asarray(out, dtype=np.float64)
    return float(np.linalg.norm(out64 - expected) / np.linalg.norm(expected))


def _rounded(x: np.ndarray, dtype: DataType) -> np.ndarray:
    """``x`` rounded to ``dtype`` as the kernel's output stores it (the error any kernel must make)."""
    from fusion_ir.reference import round_bf16

    if dtype is DataType.BFloat16:
        return round_bf16(x.astype(np.float32)).astype(np.float64)
    if dtype is DataType.Half:
        return x.astype(np.float16).astype(np.float64)
    return x.astype(np.float32).astype(np.float64)


class Arrays:
    """Device arrays through torch, or cupy when torch does not import (cupy has no bfloat16)."""

    def __init__(self) -> None:
        try:
            import torch
        except ImportError:
            torch = None
        self.torch = torch
        if torch is None:
            import cupy

            self.cupy = cupy

    def _torch_dtype(self, dtype: DataType) -> Any:
        t = self.torch
        return {DataType.Float: t.float32, DataType.Half: t.float16, DataType.BFloat16: t.bfloat16,
                DataType.Int32: t.int32}[dtype]

    def _cupy_dtype(self, dtype: DataType) -> Any:
        if dtype is DataType.BFloat16:
            raise RuntimeFailure("tune_matmul: bfloat16 inputs need torch (cupy has no bfloat16); install torch")
        return {DataType.Float: np.float32, DataType.Half: np.float16, DataType.Int32: np.int32}[dtype]

    def upload(self, x: np.ndarray, dtype: DataType) -> Any:
        if self.torch is not None:
            return self.torch.from_numpy(x).to("cuda").to(self._torch_dtype(dtype))
        return self.cupy.asarray(x.astype(self._cupy_dtype(dtype)))

    def empty(self, shape: tuple[int, ...], dtype: DataType) -> Any:
        if self.torch is not None:
            return self.torch.empty(shape, device="cuda", dtype=self._torch_dtype(dtype))
        return self.cupy.empty(shape, dtype=self._cupy_dtype(dtype))

    def fill_nan(self, x: Any) -> None:
        if self.torch is not None:
            x.fill_(float("nan"))
        else:
            x.fill(np.nan)

    def to_host(self, x: Any) -> np.ndarray:
        """Float32 (or int) host copy of the values ``x`` holds."""
        if self.torch is not None:
            return (x.float() if x.is_floating_point() else x).cpu().numpy()
        host = self.cupy.asnumpy(x)
        return host.astype(np.float32) if host.dtype.kind == "f" else host

    def synchronize(self) -> None:
        if self.torch is not None:
            self.torch.cuda.synchronize()
        else:
            self.cupy.cuda.Device().synchronize()


# ---- python -m runtime.tuning ------------------------------------------------------------------
def matmul_fusion(m: int | None, n: int | None, k: int | None, *, batch: int | None = None, batched: bool = False,
                  transpose_a: bool = False, transpose_b: bool = False, shared_b: bool = False,
                  out: DataType | None = DataType.BFloat16) -> Fusion:
    """``cast(a @ b, out)`` of bf16 operands of (M, N, K) (``out=None``: the float accumulator), or of symbolic
    extents when M, N and K are None; with a leading batch axis of ``batch`` (symbolic: ``batched``), b 2-D and
    broadcast over the batch with ``shared_b``; inputs transposed (a given ``[K, M]``, b ``[N, K]``)."""
    from fusion_ir import ops

    fusion = Fusion()
    lead = batch is not None or batched
    with fusion:
        def operand(rows: int | None, cols: int | None, transposed: bool, leads: bool):
            nd = 3 if leads else 2
            if rows is None or cols is None:
                tv = fusion.add_input(ndim=nd, dtype=DataType.BFloat16)
            else:
                shape = (cols, rows) if transposed else (rows, cols)
                tv = fusion.add_input(shape=((batch,) if leads else ()) + shape, dtype=DataType.BFloat16)
            return ops.transpose(tv, nd - 2, nd - 1) if transposed else tv
        a = operand(m, k, transpose_a, lead)
        b = operand(k, n, transpose_b, lead and not shared_b)
        c = ops.matmul(a, b)
        fusion.add_output(c if out is None else ops.cast(c, out))
    return fusion


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m runtime.tuning", description="Tune a bf16 matmul on this GPU "
                                     "and keep the winner in the tuning cache")
    parser.add_argument("shape", help="MxNxK, e.g. 4096x4096x4096")
    parser.add_argument("--batch", type=int, default=None, help="a leading batch axis of this extent")
    parser.add_argument("--transpose-a", action="store_true", help="a is given [K, M]")
    parser.add_argument("--transpose-b", action="store_true", help="b is given [N, K]")
    parser.add_argument("--out", default="bfloat16", choices=["bfloat16", "half", "float"], help="output dtype")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="interleaved timing rounds")
    parser.add_argument("--limit", type=int, default=None, help="time only the first N candidates")
    parser.add_argument("--cache", default=None, help="the cache file (default: $FUSION_TUNING_CACHE or "
                        "~/.cache/fusion_playground/matmul_tuning.json)")
    args = parser.parse_args(argv)
    try:
        m, n, k = (int(x) for x in args.shape.lower().split("x"))
    except ValueError:
        parser.error(f"shape {args.shape!r} must be MxNxK, e.g. 4096x4096x4096")
    out = {"bfloat16": DataType.BFloat16, "half": DataType.Half, "float": None}[args.out]
    try:
        fusion = matmul_fusion(m, n, k, batch=args.batch, transpose_a=args.transpose_a,
                               transpose_b=args.transpose_b, out=out)
        candidates = None
        if args.limit is not None:
            from .sm_count import sm_count

            candidates = matmul_candidates(fusion, sm_count(default=current_target().sm_count))[:args.limit]
        print(f"tuning {problem_key(fusion)}", flush=True)
        winner = tune_matmul(fusion, candidates=candidates, measure=GpuMeasure(rounds=args.rounds), cache=args.cache)
    except (RuntimeFailure, ScheduleError, TuningCacheError) as e:
        print(f"python -m runtime.tuning: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    print(winner.why.summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
