"""Attention forward (examples/attention, scheduled by ``schedule()``) against torch's flash and cuDNN attention,
measured in the same rounds.

Each case is ``softmax(q @ k^T / sqrt(D)) @ v`` on bf16 ``[B, H, S, D]`` q, k and v with a bf16 result, causal (torch's
``is_causal``, top-left aligned) or not, at ``S`` = 1024 to 16384 and ``D`` = 64 and 128; the batch fills the GPU
with 16384 tokens (``B * S = 16384``) and the heads with 2048 channels (``H * D``: 32 heads of 64, 16 of 128). The
references are ``torch.nn.functional.scaled_dot_product_attention`` under
``sdpa_kernel(SDPBackend.FLASH_ATTENTION)`` and under ``sdpa_kernel(SDPBackend.CUDNN_ATTENTION)``; a backend that
refuses a case is recorded as unavailable with torch's reason. Ours: ``examples.attention.fusion_of(...)`` at the case's
sizes, ``fusion_ir.schedulers.schedule(fusion, sizes=...)`` (the tensor-core kernel for D 64 and 128), ``lower`` and
``runtime.executor.prepare``; beside it ``ours_cuda_cores``, the same fusion on the attention scheduler's CUDA-core
path (``AttentionParams(tensor_cores=False)``); where no scheduler takes the fusion the row says "refused: <reason>"
and the references are still timed.

Every kernel's result is checked first on fresh random inputs (its output poisoned with NaN) against torch's
float64 math on the first batch's first two heads (relative error); ours must be within twice flash attention's
error plus 1e-3 (``MAX_REL_ERROR`` where flash is unavailable). Timing: CUDA-graph batches of about 3 ms
(``runtime.timing.interleaved_ms``), rotating three input sets so L2 does not hold them, 15 interleaved rounds in
which each kernel of the case times one batch in turn, the median. TFLOP/s counts ``4 * B * H * Sq * Skv * D``
(two matmuls), half of it for causal; ``ours/flash`` and ``ours/cudnn`` are ours' TFLOP/s over theirs.

``--dry-run`` (no GPU, no torch) builds and schedules every case and prints it. ``--output PATH`` writes the results
as JSON with the device name and the date (the committed results will be bench/results/attention.json).

``python bench/attention.py [--cases NAMES] [--rounds 15] [--dry-run] [--output PATH]``
"""

from __future__ import annotations

import argparse
import datetime
import math
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results_file import add_output_option, write_results
from examples import attention
from fusion_ir import Fusion
from fusion_ir.schedulers import AttentionParams, HeuristicParams, schedule

TOKENS = 16384                     # batch * seq: every case fills the GPU with the same number of queries
CHANNELS = 2048                    # heads * head_dim
SEQS = (1024, 2048, 4096, 8192, 16384)
HEAD_DIMS = (64, 128)
ROUNDS = 15
TARGET_BATCH_MS = 3.0              # a CUDA-graph batch long enough that launch gaps do not show
ASSUMED_TFLOPS = 400.0             # to size a batch before anything is timed (an H100's attention, roughly)
MAX_REL_ERROR = 1e-2               # ours' bound where flash attention is unavailable (a bf16 result rounds at 4e-3)
CHECKED_HEADS = 2                  # the float64 check covers batch 0, these many heads
CHECK_ROWS = 1024                  # queries per float64 chunk (an [H, rows, Skv] float64 score block at a time)
BACKENDS = ("flash", "cudnn")      # the references: SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION
OURS = {"ours": None,              # ours: the scheduler's suggestion; ours_cuda_cores: its CUDA-core path
        "ours_cuda_cores": AttentionParams(block_q=64, block_kv=32, tensor_cores=False)}


@dataclass(frozen=True)
class Case:
    batch: int
    heads: int
    seq: int
    head_dim: int
    causal: bool

    @property
    def name(self) -> str:
        mask = "causal" if self.causal else "full"
        return f"seq{self.seq} d{self.head_dim} {mask} b{self.batch} h{self.heads}"

    @property
    def shapes(self) -> list[tuple[int, ...]]:
        """q, k and v."""
        return attention.input_shapes(self.batch, self.heads, self.seq, self.seq, self.head_dim)

    @property
    def flops(self) -> float:
        """``4 * B * H * Sq * Skv * D``: two matmuls of ``2 * Sq * Skv * D`` each; half of them where causal."""
        full = 4 * self.batch * self.heads * self.seq * self.seq * self.head_dim
        return full / 2 if self.causal else float(full)

    def build(self) -> Fusion:
        return attention.fusion_of(self.batch, self.heads, self.seq, self.seq, self.head_dim, causal=self.causal)


CASES = [Case(TOKENS // seq, CHANNELS // head_dim, seq, head_dim, causal)
         for head_dim in HEAD_DIMS for seq in SEQS for causal in (False, True)]


def tflops(flops: float, ms: float) -> float:
    return flops / ms / 1e9


def plan(case: Case, given: HeuristicParams | None = None) -> tuple[HeuristicParams | None, Any, str | None]:
    """Ours for ``case`` (with ``given`` params, else the suggestion): (params, kernel, None) scheduled and lowered,
    or (None, None, "refused: <reason>")."""
    from lowering import lower

    fusion = case.build()
    try:
        params = schedule(fusion, sizes=case.shapes, params=given)
        return params, lower(fusion), None
    except Exception as e:  # noqa: BLE001 - reported per case (a fusion the scheduler declines)
        return None, None, f"refused: {type(e).__name__}: {_one_line(str(e))}"[:400]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def dry_run(cases: list[Case]) -> None:
    refused = 0
    for case in cases:
        params, _, error = plan(case)
        refused += error is not None
        ours = error if error is not None else params.summary()
        print(f"{case.name:<30} {case.flops / 1e12:>7.2f} TFLOP   ours: {ours}")
    print(f"{len(cases)} cases, {len(cases) - refused} scheduled and lowered, {refused} refused; references: "
          f"SDPA under {', '.join(BACKENDS)} (on a GPU)")


# ---------------------------------------------------------------- on the GPU (torch)
def sdpa(torch: Any, backend: str, q: Any, k: Any, v: Any, causal: bool) -> Any:
    """torch's SDPA restricted to one backend; a RuntimeError (with torch's warnings saying why) where it refuses."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    chosen = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    with sdpa_kernel(chosen):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)


def float64_reference(torch: Any, q: Any, k: Any, v: Any, causal: bool) -> Any:
    """Batch 0, heads ``[0, CHECKED_HEADS)`` of the attention in float64, ``CHECK_ROWS`` queries at a time."""
    q, k, v = (x[0, :CHECKED_HEADS].double() for x in (q, k, v))
    seq_q, seq_kv, head_dim = q.shape[-2], k.shape[-2], q.shape[-1]
    out = torch.empty_like(q)
    keys = torch.arange(seq_kv, device=q.device)
    for start in range(0, seq_q, CHECK_ROWS):
        rows = slice(start, min(start + CHECK_ROWS, seq_q))
        s = q[:, rows] @ k.transpose(-2, -1) / math.sqrt(head_dim)
        if causal:
            queries = torch.arange(rows.start, rows.stop, device=q.device)
            s = s.masked_fill(keys[None, :] > queries[:, None], float("-inf"))
        out[:, rows] = torch.softmax(s, dim=-1) @ v
    return out


def relative_error(out: Any, expected: Any) -> float:
    """‖out − expected‖ / ‖expected‖ over the checked heads, in float64 (NaN where an element was not written)."""
    got = out[0, :CHECKED_HEADS].double()
    return ((got - expected).norm() / expected.norm()).item()


def random_set(torch: Any, case: Case) -> tuple[Any, Any, Any]:
    return tuple(torch.randn(*shape, device="cuda", dtype=torch.bfloat16) for shape in case.shapes)


def rotating(fn_for: Callable[[tuple], Callable[[], object]], sets: list[tuple]) -> Callable[[], None]:
    """A launch that cycles through input sets, so repeated runs do not find them in L2."""
    fns = [fn_for(s) for s in sets]
    state = {"k": 0}

    def run() -> None:
        fns[state["k"] % len(fns)]()
        state["k"] += 1
    return run


def reference_run(torch: Any, backend: str, case: Case, check: tuple, expected: Any) -> tuple[float | None, str]:
    """One checked run of a backend on the check inputs: (relative error, "") or (None, why it is unavailable)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = sdpa(torch, backend, *check, case.causal)
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - torch refuses with a RuntimeError (an older torch: no such backend)
            said = [_one_line(str(w.message)) for w in caught]
            return None, f"unavailable: {_one_line(str(e))}" + (f" ({'; '.join(said)})" if said else "")
    return relative_error(out, expected), ""


def measure_case(torch: Any, case: Case, rounds: int, ours: tuple[str, ...] = tuple(OURS)) -> dict:
    from runtime.executor import prepare
    from runtime.timing import interleaved_ms

    row: dict[str, Any] = {"case": case.name, "batch": case.batch, "heads": case.heads, "seq": case.seq,
                           "head_dim": case.head_dim, "causal": case.causal, "flops": case.flops}
    check = random_set(torch, case)              # fresh inputs for the checks, apart from the timed ones
    expected = float64_reference(torch, *check, case.causal)
    sets = [random_set(torch, case) for _ in range(3)]
    out = torch.empty(case.shapes[0], device="cuda", dtype=torch.bfloat16)
    timed: list[tuple[str, Callable[[], None]]] = []
    for backend in BACKENDS:
        err, why = reference_run(torch, backend, case, check, expected)
        if err is None:
            row[backend] = {"unavailable": why[len("unavailable: "):]}
            continue
        row[backend] = {"rel_error": err}
        timed.append((backend, rotating(lambda s, b=backend: (lambda: sdpa(torch, b, *s, case.causal)), sets)))
    for name in ours:
        params, kernel, error = plan(case, OURS[name])
        if error is not None:
            row[name] = {"refused": error[len("refused: "):]}
            continue
        try:
            out.fill_(float("nan"))
            prepare(kernel, list(check), [out])()
            torch.cuda.synchronize()
            err = relative_error(out, expected)
            flash_err = row["flash"].get("rel_error")
            bound = 2 * flash_err + 1e-3 if flash_err is not None else MAX_REL_ERROR
            if not err < bound:                  # NaN (an unwritten element) included
                flash = f"{flash_err:.2e}" if flash_err is not None else "unavailable"
                raise AssertionError(f"relative error {err:.2e} over {bound:.2e} (flash attention: {flash})")
            row[name] = {"scheduler": params.scheduler, "params": params.summary(), "rel_error": err}
            timed.append((name, rotating(lambda s, k=kernel: prepare(k, list(s), [out]), sets)))
        except Exception as e:  # noqa: BLE001 - a kernel that fails is reported, not fatal
            row[name] = {"error": f"{type(e).__name__}: {_one_line(str(e))}"[:400]}
    if not timed:
        return row
    batch = max(1, round(TARGET_BATCH_MS / (case.flops / ASSUMED_TFLOPS / 1e9)))
    try:
        times = interleaved_ms([fn for _, fn in timed], batch, rounds)
    except Exception as e:  # noqa: BLE001 - a call torch cannot capture into a graph: timed from the host instead
        row["timing"] = f"host launches (graph capture failed: {type(e).__name__}: {_one_line(str(e))})"[:400]
        times = interleaved_ms([fn for _, fn in timed], batch, rounds, graphs=False)
    for (name, _), ms in zip(timed, times):
        row[name].update({"ms": ms, "TFLOP/s": tflops(case.flops, ms)})
    for backend in BACKENDS:
        if "ms" in row["ours"] and "ms" in row[backend]:
            row[f"ours/{backend}"] = row[backend]["ms"] / row["ours"]["ms"]
    return row


def measure(cases: list[Case], rounds: int, ours: tuple[str, ...] = tuple(OURS)) -> dict:
    import torch

    from runtime.progress import reporting

    torch.manual_seed(0)
    rows = []
    with reporting(None, len(cases), "cases") as advance:
        for case in cases:
            rows.append(measure_case(torch, case, rounds, ours))
            torch.cuda.empty_cache()
            advance(1)
    return {"device": torch.cuda.get_device_name(), "date": datetime.date.today().isoformat(),
            "torch": torch.__version__,
            "timing": f"median of {rounds} interleaved rounds of ~{TARGET_BATCH_MS:.0f} ms CUDA-graph batches "
                      f"(runtime.timing), three input sets in rotation; TFLOP/s of 4*B*H*Sq*Skv*D, halved for causal",
            "rows": rows}


def _cell(entry: dict) -> str:
    if "TFLOP/s" in entry:
        return f"{entry['TFLOP/s']:>7.1f}"
    return {"unavailable": "n/a", "refused": "refused", "error": "FAILED"}.get(next(iter(entry)), "-")


def table(result: dict) -> list[str]:
    """The short table: TFLOP/s of each and ours' ratios; the reasons of the cells without a figure below it."""
    lines = [f"device: {result['device']}   date: {result['date']}   {result['timing']}",
             (f"{'case':<30}{'flash':>8}{'cudnn':>8}{'ours':>8}{'ours/flash':>11}{'ours/cudnn':>11}"
              f"{'ours CUDA cores':>16}   (TFLOP/s)")]
    notes: dict[str, str] = {}
    for r in result["rows"]:
        ratios = "".join(f"{r[f'ours/{b}']:>11.2f}" if f"ours/{b}" in r else f"{'-':>11}" for b in BACKENDS)
        slow = _cell(r["ours_cuda_cores"]) if "ours_cuda_cores" in r else "-"
        lines.append(f"{r['case']:<30}{_cell(r['flash']):>8}{_cell(r['cudnn']):>8}{_cell(r['ours']):>8}{ratios}"
                     f"{slow:>16}")
        for name in (*BACKENDS, *OURS):
            if name not in r:
                continue                         # results written before the column existed
            kind, why = next(iter(r[name].items()))
            if kind in ("unavailable", "refused", "error"):
                notes.setdefault(f"{name} {kind}: {why}", r["case"])
    lines += [f"  {note}   (first: {case})" for note, case in notes.items()]
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", help="comma-separated substrings of case names, e.g. 'seq4096 d128' "
                                        "(default: every case)")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--dry-run", action="store_true", help="build and schedule every case and print it; no GPU")
    parser.add_argument("--ours", help=f"comma-separated kernels of ours to time, of {', '.join(OURS)} (default: all; "
                                        f"the CUDA-core kernel takes seconds a launch at 16384 keys)")
    add_output_option(parser, "attention.json")
    args = parser.parse_args(argv)
    cases = CASES
    if args.cases:
        wanted = [w.strip() for w in args.cases.split(",")]
        cases = [c for c in CASES if any(w in c.name for w in wanted)]
    if args.dry_run:
        dry_run(cases)
        return
    try:
        import torch  # noqa: F401
    except ImportError:
        raise SystemExit("bench/attention.py needs torch and a GPU (--dry-run needs neither)") from None
    ours = tuple(OURS) if not args.ours else tuple(w.strip() for w in args.ours.split(","))
    unknown = [w for w in ours if w not in OURS]
    if unknown:
        raise SystemExit(f"--ours: {', '.join(unknown)} is not one of {', '.join(OURS)}")
    result = measure(cases, args.rounds, ours)
    write_results(result, args.output)
    print("\n".join(table(result)))


if __name__ == "__main__":
    main()
