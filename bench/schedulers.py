"""Auto-scheduled fusions (``schedule()``) against torch's kernels and a device-to-device copy, in the same rounds.

Each case is an unscheduled fusion at one size and dtype, the torch call that computes the same thing, and the
bytes it must move. The fusion is scheduled by ``fusion_ir.schedulers.schedule`` (the scheduler and its params are
printed and kept in the results), lowered, checked against torch once, then timed with torch's call and a copy of
the same bytes (``torch.Tensor.copy_``, the bandwidth bound) in interleaved rounds of CUDA-graph batches
(``runtime.timing.interleaved_ms``: 15 rounds, the median). GB/s counts the bytes each must read and write once.

``CASES`` is one list: the pointwise broadcast-add-cast chain and the 2-D transpose, at 4096 x 4096, 8192 x 8192
and 16384 x 4096, fp32 and bf16; then the cases of ``bench/schedulers_reduce_cases.py`` (softmax, log-softmax,
layer norm, RMS norm at hidden 1024 to 16384 in fp32 and bf16, softmax over the first axis, sum and max over the
last and the first axis), each against torch's own kernel for it. ``--dry-run`` (no GPU, no torch)
schedules and lowers every case and prints its params. ``--output PATH`` writes the results as JSON with the
device name and the date (the committed results will be bench/results/schedulers.json).

``python bench/schedulers.py [--cases NAMES] [--rounds 15] [--dry-run] [--output PATH]``
"""

from __future__ import annotations

import argparse
import datetime
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import schedulers_reduce_cases as reduction_cases
from bench.results_file import add_output_option, write_results
from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import HeuristicParams, schedule

SIZES = ((4096, 4096), (8192, 8192), (16384, 4096))
DTYPES = (DataType.Float, DataType.BFloat16)
TARGET_BATCH_MS = 3.0          # a CUDA-graph batch long enough that launch gaps do not show
MAX_REL_ERROR = 1e-2           # against torch's result (bf16 outputs round at 4e-3)
COPY_TARGET = 0.85             # of the copy's bandwidth: the target of a memory-bound case
ASSUMED_GBS = 3000.0           # to size a batch before anything is timed (an H100's HBM3, roughly)


@dataclass(frozen=True)
class Case:
    """``build()``: the unscheduled fusion; ``inputs(torch)``: its inputs on the device; ``reference(torch, inputs)``:
    torch's call computing its output; ``bytes``: what one run must read and write."""

    name: str
    shape: tuple[int, int]
    dtype: DataType
    build: Callable[[], Fusion]
    inputs: Callable[[Any], list[Any]]
    reference: Callable[[Any, list[Any]], Any]
    bytes: int


def _torch_dtype(torch: Any, dtype: DataType) -> Any:
    return {DataType.Float: torch.float32, DataType.BFloat16: torch.bfloat16}[dtype]


def _other(dtype: DataType) -> DataType:
    return DataType.BFloat16 if dtype is DataType.Float else DataType.Float


def broadcast_add_cast(shape: tuple[int, int], dtype: DataType) -> Case:
    """``cast(x + bias[None, :])`` to the other dtype (fp32 -> bf16, bf16 -> fp32): the pointwise scheduler."""
    rows, cols = shape
    out_dtype = _other(dtype)

    def build() -> Fusion:
        fusion = Fusion()
        with fusion:
            x = fusion.add_input(shape=shape, dtype=dtype)
            bias = fusion.add_input(shape=(cols,), dtype=dtype)
            fusion.add_output(ops.cast(ops.add(x, ops.broadcast(bias, [True, False])), out_dtype))
        return fusion

    def inputs(torch: Any) -> list[Any]:
        t = _torch_dtype(torch, dtype)
        return [torch.randn(rows, cols, device="cuda").to(t), torch.randn(cols, device="cuda").to(t)]

    def reference(torch: Any, xs: list[Any]) -> Any:
        return (xs[0] + xs[1]).to(_torch_dtype(torch, out_dtype))

    moved = rows * cols * (dtype.size + out_dtype.size) + cols * dtype.size
    return Case(f"broadcast-add-cast {rows}x{cols} {dtype.short_name}", shape, dtype, build, inputs, reference, moved)


def transpose_2d(shape: tuple[int, int], dtype: DataType) -> Case:
    """``x.T`` made contiguous: the transpose scheduler."""
    rows, cols = shape

    def build() -> Fusion:
        fusion = Fusion()
        with fusion:
            x = fusion.add_input(shape=shape, dtype=dtype)
            fusion.add_output(ops.transpose(x, 0, 1))
        return fusion

    def inputs(torch: Any) -> list[Any]:
        return [torch.randn(rows, cols, device="cuda").to(_torch_dtype(torch, dtype))]

    def reference(torch: Any, xs: list[Any]) -> Any:
        return xs[0].t().contiguous()

    return Case(f"transpose {rows}x{cols} {dtype.short_name}", shape, dtype, build, inputs, reference,
                2 * rows * cols * dtype.size)


def _from_reduction_case(case: Any) -> Case:
    """A case of ``bench/schedulers_reduce_cases.py`` (softmax, log-softmax, layer and RMS norm, sum and max over
    either axis) as a case of this benchmark, against its reference: torch's own kernel for it."""
    dtype = reduction_cases.DTYPES[case.dtype]
    fusion = case.build()
    out_bytes = sum(math.prod(i.extent.const_value() for i in tv.shape_ids) * tv.dtype.size for tv in fusion.outputs)
    in_bytes = sum(math.prod(shape) * dtype.size for shape in case.shapes)

    def inputs(torch: Any, shapes: tuple = case.shapes) -> list[Any]:
        t = _torch_dtype(torch, dtype)
        return [torch.randn(*shape, device="cuda").to(t) for shape in shapes]

    return Case(case.name.replace("_float32", " fp32").replace("_bfloat16", " bf16"), tuple(case.shapes[0]), dtype,
                case.build, inputs, lambda torch, xs, reference=case.reference: reference(*xs),
                in_bytes + out_bytes)


CASES: list[Case] = [make(shape, dtype) for make in (broadcast_add_cast, transpose_2d)
                     for dtype in DTYPES for shape in SIZES] + [_from_reduction_case(c) for c in reduction_cases.CASES]


def plan(cases: list[Case]) -> list[tuple[Case, HeuristicParams | None, Any, str | None]]:
    """Each case scheduled and lowered: (case, params, kernel, error)."""
    from lowering import lower

    out = []
    for case in cases:
        fusion = case.build()
        try:
            params = schedule(fusion)
            out.append((case, params, lower(fusion), None))
        except Exception as e:  # noqa: BLE001 - reported per case
            out.append((case, None, None, f"{type(e).__name__}: {e}"[:300]))
    return out


def dry_run(cases: list[Case]) -> None:
    planned = plan(cases)
    for case, params, _, error in planned:
        print(f"{case.name:<36} {error if error is not None else params.summary()}")
    failed = sum(1 for *_, error in planned if error is not None)
    print(f"{len(planned) - failed} cases lowered, {failed} failed")


def measure(cases: list[Case], rounds: int) -> dict:
    import torch

    from runtime.executor import compile_kernels, prepare
    from runtime.timing import interleaved_ms

    planned = plan(cases)
    compile_kernels([k for _, _, k, _ in planned if k is not None], watchdog_s=None)
    torch.manual_seed(0)
    rows = []
    for case, params, kernel, error in planned:
        row: dict[str, Any] = {"case": case.name, "shape": list(case.shape), "dtype": case.dtype.short_name,
                               "bytes": case.bytes}
        if error is not None:
            rows.append({**row, "error": error})
            print(f"{case.name:<36} {error}", flush=True)
            continue
        xs = case.inputs(torch)
        expected = case.reference(torch, xs)
        out = torch.empty_like(expected)
        launch = prepare(kernel, xs, [out])
        out.fill_(float("nan"))
        launch()
        torch.cuda.synchronize()
        err = ((out.double() - expected.double()).norm() / expected.double().norm()).item()
        if not err < MAX_REL_ERROR:                  # NaN (an unwritten element) included
            rows.append({**row, "error": f"wrong result: relative error {err:.2e} against torch's"})
            print(f"{case.name:<36} wrong result: relative error {err:.2e}", flush=True)
            continue
        copy_src = torch.empty(case.bytes // 2, dtype=torch.uint8, device="cuda")
        copy_dst = torch.empty_like(copy_src)
        batch = max(1, int(TARGET_BATCH_MS / (case.bytes / ASSUMED_GBS / 1e6)))
        ours, ref, copy = interleaved_ms([launch, lambda c=case, xs=xs: c.reference(torch, xs),
                                          lambda dst=copy_dst, src=copy_src: dst.copy_(src)], batch, rounds)
        row.update(scheduler=params.scheduler, params=params.summary(), rel_error=err, ms=ours, torch_ms=ref,
                   copy_ms=copy, gbs=case.bytes / ours / 1e6, torch_gbs=case.bytes / ref / 1e6,
                   copy_gbs=case.bytes / copy / 1e6, of_torch=ref / ours, of_copy=copy / ours)
        rows.append(row)
        print(_line(row), flush=True)
    return {"device": torch.cuda.get_device_name(), "date": datetime.date.today().isoformat(),
            "timing": f"median of {rounds} interleaved rounds of ~{TARGET_BATCH_MS:.0f} ms CUDA-graph batches "
                      f"(runtime.timing); the copy moves the same bytes", "summary": summary(rows), "rows": rows}


def summary(rows: list[dict]) -> dict:
    """The geometric mean and the lowest of ours / torch, and the cases under 1.0 of torch or under
    ``COPY_TARGET`` of the copy's bandwidth (every case here is memory-bound: a few flops per byte)."""
    timed = [r for r in rows if "of_torch" in r]
    if not timed:
        return {"cases": len(rows), "timed": 0}
    return {"cases": len(rows), "timed": len(timed), "failed": [r["case"] for r in rows if "error" in r],
            "of_torch_geomean": math.exp(sum(math.log(r["of_torch"]) for r in timed) / len(timed)),
            "of_torch_min": min(r["of_torch"] for r in timed),
            "of_copy_min": min(r["of_copy"] for r in timed),
            "under_torch": [r["case"] for r in timed if r["of_torch"] < 1.0],
            "under_copy_target": [r["case"] for r in timed if r["of_copy"] < COPY_TARGET]}


def _line(r: dict) -> str:
    return (f"{r['case']:<36} {r['ms']:>8.3f} ms {r['gbs']:>7.0f} GB/s   torch {r['torch_gbs']:>6.0f}   "
            f"copy {r['copy_gbs']:>6.0f}   {r['of_torch']:>5.2f}x torch  {r['of_copy']:>5.1%} of copy")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", help="comma-separated substrings of case names (default: every case)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--dry-run", action="store_true", help="schedule and lower every case; no GPU")
    add_output_option(parser, "schedulers.json")
    args = parser.parse_args(argv)
    cases = CASES
    if args.cases:
        wanted = [w.strip() for w in args.cases.split(",")]
        cases = [c for c in CASES if any(w in c.name for w in wanted)]
    if args.dry_run:
        dry_run(cases)
        return
    result = measure(cases, args.rounds)
    write_results(result, args.output)
    print(f"device: {result['device']}   date: {result['date']}   {result['timing']}")
    s = result["summary"]
    if s.get("timed"):
        print(f"ours / torch: geomean {s['of_torch_geomean']:.2f}, lowest {s['of_torch_min']:.2f}; lowest of copy "
              f"{s['of_copy_min']:.0%}; under 1.0 of torch: {', '.join(s['under_torch']) or 'none'}; under "
              f"{COPY_TARGET:.0%} of copy: {', '.join(s['under_copy_target']) or 'none'}")


if __name__ == "__main__":
    main()
