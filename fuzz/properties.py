"""The fuzz properties, as functions of a ``Case`` that raise ``PropertyFailure`` and count coverage.

1. ``check_schedule``: every scheduling call succeeds or raises ``ScheduleError`` (whose message
   names a tensor) and a failed call leaves the fusion unchanged; after every call each loop
   domain is its root domain transformed by its history. ``check_lowering``: ``lower`` succeeds
   or raises ``LoweringError`` and never changes the fusion.
2. ``check_simulation``: a kernel that lowers gives numpy's result in the simulator at every
   run size (with the blocks interleaved at random when the case says so), or refuses the sizes
   with an ``InputError`` whose ``rule`` is a size rule and whose ``subject`` names the tensor; a
   circular-buffered loop shorter than its pipeline runs like any other. Any other ``InputError``
   (an unbound symbol, a dtype the kernel did not declare) is a failure.
3. ``check_compiles``: a kernel that lowers compiles for sm_90a with nvcc, without warnings.
4. ``check_gpu``: a kernel that lowers gives numpy's result on the GPU.

``Stats`` counts what ran: examples, calls per primitive and outcome, lowering outcomes per
pass, kernel IR node kinds, simulated/compiled/GPU kernels and runtime outcomes.
"""

from __future__ import annotations

import hashlib
import re
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fusion_ir import Fusion, Pipelined, ScheduleError, WarpSpecialized
from fusion_ir.reference import evaluate
from lowering import LoweringError, VerifyError, lower
from lowering import kernel_ir as kir
from runtime import InputError
from target import DEFAULT_TARGET

from .case import Case, Step, apply_step, build, compare, evaluate_float32, make_inputs, to_script
from .known_defects import known_defect

MAX_THREADS_PER_BLOCK = DEFAULT_TARGET.max_threads_per_block
# launches with more lanes than this are not simulated (the simulator is a CPU interpreter)
MAX_SIMULATED_LANES = 1 << 16
# nor kernels whose loops execute more statements than this per thread times warps per block
MAX_SIMULATED_WORK = 300_000


class PropertyFailure(AssertionError):
    """A property does not hold for ``case``; ``script`` reproduces it."""

    def __init__(self, prop: str, message: str, case: Any, outcomes: list[str] | None = None) -> None:
        self.prop = prop
        self.message = message
        self.case = case
        self.outcomes = outcomes
        title = f"Fuzz failure of property {prop}: {message.splitlines()[0]}"
        self.script = case.to_script(title) if hasattr(case, "to_script") else to_script(case, outcomes, title=title)
        super().__init__(f"[{prop}] {message}\n\n--- reproducer ---\n{self.script}")

    def save(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha1(self.script.encode()).hexdigest()[:8]
        path = directory / f"fuzz_failure_{self.prop.replace(' ', '_')}_{digest}.py"
        path.write_text(self.script)
        return path


@dataclass
class Stats:
    examples: int = 0
    calls: Counter = field(default_factory=Counter)          # (primitive, "ok" | "ScheduleError")
    variants: Counter = field(default_factory=Counter)       # (primitive and its option, "ok" | "ScheduleError")
    templates: Counter = field(default_factory=Counter)
    schedules: Counter = field(default_factory=Counter)      # "all calls ok" / "some call rejected"
    lowering: Counter = field(default_factory=Counter)       # "lowered" / "LoweringError"
    passes: Counter = field(default_factory=Counter)         # (pass, "ran" | "changed" | "LoweringError")
    nodes: Counter = field(default_factory=Counter)          # kernel IR node kinds in lowered kernels
    runs: Counter = field(default_factory=Counter)           # simulator run outcomes
    features: Counter = field(default_factory=Counter)       # what the cases held: types, ranks, sizes, options
    kernels_simulated: int = 0
    kernels_compiled: int = 0
    kernels_on_gpu: int = 0

    def merge(self, other: Stats) -> None:
        for name, value in vars(other).items():
            if isinstance(value, Counter):
                getattr(self, name).update(value)
            else:
                setattr(self, name, getattr(self, name) + value)


# ---------------------------------------------------------------- property 1
def check_schedule(case: Case, stats: Stats | None = None) -> tuple[Fusion, list[str]]:
    """Replay the schedule; every call succeeds or raises ScheduleError without changing the fusion."""
    stats = stats if stats is not None else Stats()
    stats.examples += 1
    if case.notes:
        stats.templates[case.notes[0]] += 1
    stats.features.update(case_features(case))
    fusion = build(case)
    outcomes: list[str] = []
    for k, step in enumerate(case.steps):
        before = fusion.state_fingerprint()
        variant = _variant(fusion, step)
        try:
            result = apply_step(fusion, step)
        except ScheduleError as e:
            outcomes.append("ScheduleError")
            stats.calls[(step.kind, "ScheduleError")] += 1
            if variant is not None:
                stats.variants[(variant, "ScheduleError")] += 1
            if not re.search(r"\bT\d+", str(e)):
                raise PropertyFailure("1 schedule", f"step {k} ({step.kind}) raised ScheduleError whose message names "
                                      f"no tensor: {e!r}", case, outcomes) from e
            after = fusion.state_fingerprint()
            if after != before:
                raise PropertyFailure("1 schedule", f"step {k} ({step.kind}) raised ScheduleError but changed the "
                                      f"fusion:\n{_diff(before, after)}", case, outcomes) from e
            continue
        except Exception as e:  # the property
            outcomes.append(type(e).__name__)
            raise PropertyFailure("1 schedule", f"step {k} ({step.kind}) raised {type(e).__name__}: {e}\n"
                                  f"{_short_traceback(e)}", case, outcomes) from e
        outcomes.append("ok")
        stats.calls[(step.kind, "ok")] += 1
        if variant is not None:
            stats.variants[(variant, "ok")] += 1
        problem = domain_problem(fusion)
        if problem is not None:
            raise PropertyFailure("1 schedule", f"step {k} ({step.kind}) left an inconsistent domain: {problem}",
                                  case, outcomes)
        made = None if result is None else result.name
        if made != step.result:
            raise PropertyFailure("1 schedule", f"step {k} ({step.kind}) made T{made}, but the generator saw "
                                  f"T{step.result}: replay is not deterministic", case, outcomes)
    stats.schedules["all calls ok" if all(o == "ok" for o in outcomes) else "some call rejected"] += 1
    return fusion, outcomes


def case_features(case: Case) -> set[str]:
    """The things a case holds that the coverage table counts (each once per case)."""
    found = {f"input {spec.dtype.short_name}" for spec in case.inputs}
    rank = max((len(spec.dims) for spec in case.inputs), default=0)
    found.add(f"rank {rank}")
    reductions = sum(op.fn in ("sum", "max") for op in case.ops)
    if reductions:
        found.add(f"{reductions} reduction{'s' if reductions > 1 else ''}")
    sizes = [n for run in case.sizes for n in run]
    if sizes and max(sizes) > 160:
        found.add("an axis over 160")
    if 0 in sizes:
        found.add("a 0-size axis")
    for flag, name in ((case.specials, "NaN/Inf inputs"), (case.strided, "non-contiguous inputs"),
                       (case.interleave is not None, "blocks interleaved")):
        if flag:
            found.add(name)
    for step in case.steps:
        kwargs = dict(step.kwargs)
        if step.kind == "set_index_type":
            found.add("32-bit indices")
        if step.kind == "circular_buffer" and step.args:
            stages = step.args[0]
            found.add("stages 'auto'" if stages == "auto" else "stages 5-8" if isinstance(stages, int)
                      and 5 <= stages <= 8 else "stages 2-4" if isinstance(stages, int) and 2 <= stages <= 4
                      else "stages invalid")
            cb_type = kwargs.get("type")
            if isinstance(cb_type, WarpSpecialized):
                regs = "with" if cb_type.num_registers is not None else "without"
                found.add(f"circular buffer WarpSpecialized on {cb_type.on.name}, {regs} register sharing")
            elif isinstance(cb_type, Pipelined):
                found.add(f"circular buffer Pipelined{' (mbarrier WAR)' if cb_type.uses_mbarrier_for_war else ''}")
        if step.kind == "set_swizzle" and step.args:
            found.add(f"swizzle {getattr(step.args[0], 'name', step.args[0])}")
        if step.kind == "set_store_wait" and step.args:
            found.add(f"store wait {step.args[0]}")
    return found


def _variant(fusion: Fusion, step: Step) -> str | None:
    """The option of a call worth counting on its own: the parallel type, load type, circular-buffer kind."""
    from fusion_ir import LoadStoreOp, Pipelined, WarpSpecialized

    from .case import tensor

    args = dict(enumerate(step.args)) | dict(step.kwargs)
    if step.kind == "parallelize" and len(step.args) == 2:
        return f"parallelize {getattr(step.args[1], 'name', step.args[1])}"
    if step.kind in ("cache_after", "cache_before") and step.args:
        return f"{step.kind} {getattr(step.args[0], 'name', step.args[0])}"
    if step.kind == "split":
        return "split outer" if dict(step.kwargs).get("inner_split") is False else "split inner"
    if step.kind != "circular_buffer" or step.target is None:
        return None
    try:
        d = tensor(fusion, step.target.name).definition
    except KeyError:
        return None
    load = f"a {d.op_type.name} load" if isinstance(d, LoadStoreOp) else "no load"
    cb_type = args.get("type", Pipelined())
    kind = type(cb_type).__name__ if isinstance(cb_type, (Pipelined, WarpSpecialized)) else "bad type"
    return f"circular_buffer {kind} of {load}"


def domain_problem(fusion: Fusion) -> str | None:
    """Why some tensor's loop domain is not its root domain (and loop broadcasts) transformed by its history, or None."""
    for tv in fusion.tensors:
        leaves = list(tv.loop_broadcasts.values()) + list(tv.root)
        for t in tv.transforms:
            missing = [i for i in t.inputs if i not in leaves]
            if missing:
                return f"T{tv.name}: transform '{t}' reads {missing[0].label()}, which is not a current axis"
            at = leaves.index(t.inputs[0])
            leaves = [i for i in leaves if i not in t.inputs]
            leaves[at:at] = list(t.outputs)
        if len(set(tv.loop)) != len(tv.loop) or set(tv.loop) != set(leaves):
            return (f"T{tv.name}: loop domain ({', '.join(i.label() for i in tv.loop)}) is not what its transforms "
                    f"make of its root ({', '.join(i.label() for i in leaves)})")
        if not 0 <= tv.compute_at_pos <= len(tv.loop):
            return f"T{tv.name}: compute-at position {tv.compute_at_pos} is outside its {len(tv.loop)} loop axes"
    return None


def check_lowering(case: Case, fusion: Fusion, outcomes: list[str],
                   stats: Stats | None = None) -> kir.Kernel | None:
    """``lower`` succeeds or raises LoweringError (never VerifyError: a pass that breaks a kernel-IR rule is a
    lowering bug), and leaves the fusion as it was."""
    stats = stats if stats is not None else Stats()
    before = fusion.state_fingerprint()
    try:
        traced = lower(fusion, trace=True)
    except VerifyError as e:
        raise PropertyFailure("1 lower", f"pass {_failing_pass(e)} produced kernel IR that breaks a rule: {e}",
                              case, outcomes) from e
    except LoweringError as e:
        stats.lowering["LoweringError"] += 1
        stats.passes[(_failing_pass(e), "LoweringError")] += 1
        _check_unchanged(case, fusion, before, outcomes, "lower raised LoweringError")
        return None
    except Exception as e:  # the property
        defect = known_defect(e)
        if defect is not None:
            stats.lowering[f"known defect: {defect}"] += 1
            return None
        raise PropertyFailure("1 lower", f"lower raised {type(e).__name__} in pass {_failing_pass(e)}: {e}\n"
                              f"{_short_traceback(e)}", case, outcomes) from e
    _check_unchanged(case, fusion, before, outcomes, "lower")
    stats.lowering["lowered"] += 1
    previous = None
    for record in traced.passes:
        stats.passes[(record.name, "ran")] += 1
        if previous is not None and record.kernel != previous:
            stats.passes[(record.name, "changed")] += 1
        previous = record.kernel
    kernel = traced.kernel
    for node in kir.walk(kernel.body):
        stats.nodes[type(node).__name__] += 1
        if isinstance(node, kir.ForLoop) and node.stage is not None:
            stats.nodes[f"ForLoop[{node.stage.value}]"] += 1
    if kernel.tensor_maps:
        stats.nodes["TensorMapParam"] += len(kernel.tensor_maps)
    return kernel


def _check_unchanged(case: Case, fusion: Fusion, before: str, outcomes: list[str], what: str) -> None:
    after = fusion.state_fingerprint()
    if after != before:
        raise PropertyFailure("1 lower", f"{what} changed the fusion:\n{_diff(before, after)}", case, outcomes)


def _failing_pass(e: BaseException) -> str:
    """The pipeline step the exception came out of."""
    step = getattr(e, "lowering_step", None)
    return step if step is not None else "before the passes"


def _short_traceback(e: BaseException) -> str:
    frames = traceback.extract_tb(e.__traceback__)[-4:]
    return "".join(traceback.format_list(frames))


def _diff(before: str, after: str) -> str:
    import difflib

    return "\n".join(difflib.unified_diff(before.splitlines(), after.splitlines(), "before", "after", lineterm="",
                                          n=1))


# ---------------------------------------------------------------- property 2
def reference(case: Case, fusion: Fusion, inputs: list[np.ndarray], outcomes: list[str]) -> list[np.ndarray]:
    """numpy's outputs for the unscheduled math, checked against the scheduled fusion's own math."""
    with np.errstate(all="ignore"):   # NaN and Inf inputs
        expected = evaluate(build(case), inputs)
    try:
        with np.errstate(all="ignore"):
            scheduled = evaluate(fusion, inputs)
    except Exception as e:  # the property
        raise PropertyFailure("2 simulate", f"reference.evaluate of the scheduled fusion raised {type(e).__name__}: "
                              f"{e}\n{_short_traceback(e)}", case, outcomes) from e
    problem = compare(case, scheduled, expected)
    if problem is not None:
        raise PropertyFailure("2 simulate", f"the schedule changed the fusion's math (reference.evaluate of the "
                              f"scheduled fusion): {problem}", case, outcomes)
    return expected


def launch_lanes(kernel: kir.Kernel, inputs: list[np.ndarray]) -> tuple[int, int] | None:
    """(threads per block, total threads) of the launch for ``inputs``; None if the sizes are refused."""
    try:
        env = kernel.symbol_env(inputs)
        grid, block = kernel.launch_dims(env)
    except Exception:  # noqa: BLE001 - the simulator reports bad sizes itself
        return None
    threads = block[0] * block[1] * block[2]
    return threads, threads * grid[0] * grid[1] * grid[2]


def simulation_work(kernel: kir.Kernel, inputs: list[np.ndarray]) -> int | None:
    """Statements one thread executes (loops expanded) times the warps of a block; None if unknown."""
    try:
        env = kernel.symbol_env(inputs)
        _, block = kernel.launch_dims(env)
    except Exception:  # noqa: BLE001 - the simulator reports bad sizes itself
        return None
    warps = -(-block[0] * block[1] * block[2] // 32)

    def cost(body: tuple) -> tuple[int, int]:
        """(statements, async copies issued)"""
        total, copies = 0, 0
        for node in body:
            if isinstance(node, kir.ForLoop):
                try:
                    trips = max(int(node.stop.evaluate(env)) - int(node.start.evaluate(env)), 0)
                except Exception:  # noqa: BLE001 - bounds that depend on outer loop indices
                    trips = 1
                step = node.step.const_value() or 1
                trips = -(-trips // max(step, 1))
                n, c = cost(node.body)
                total, copies = total + 1 + trips * n, copies + trips * c
            else:
                total += 1
                copies += isinstance(node, (kir.CpAsync, kir.TmaLoad))
                for _, sub in kir.children(node):
                    n, c = cost(sub)
                    total, copies = total + n, copies + c
        return total, copies

    statements, copies = cost(kernel.body)
    # every statement visits each copy still in flight (runtime/sim_async.py)
    return (statements + statements * copies // 64) * warps


def check_simulation(case: Case, fusion: Fusion, kernel: kir.Kernel, outcomes: list[str],
                     stats: Stats | None = None) -> None:
    from runtime import DeadlockError, SimulationError, simulate

    stats = stats if stats is not None else Stats()
    simulated = False
    for run in range(len(case.sizes)):
        inputs = make_inputs(case, run)
        expected = reference(case, fusion, inputs, outcomes)
        lanes = launch_lanes(kernel, inputs)
        if lanes is not None and lanes[0] > MAX_THREADS_PER_BLOCK:
            stats.runs["launch limit (> 1024 threads)"] += 1
            continue
        if lanes is not None and lanes[1] > MAX_SIMULATED_LANES:
            stats.runs["not simulated (too many threads)"] += 1
            continue
        work = simulation_work(kernel, inputs)
        if work is not None and work > MAX_SIMULATED_WORK:
            stats.runs["not simulated (too much work)"] += 1
            continue
        try:
            actual = simulate(kernel, inputs, seed=case.seed + run, interleave_blocks=case.interleave)
        except InputError as e:
            defect = known_defect(e)
            if defect is not None:
                stats.runs[f"known defect: {defect}"] += 1
                continue
            if not e.rule.is_size_rule or e.subject is None:
                raise PropertyFailure("2 simulate", f"run {run} (input shapes {case.input_shapes(run)}): InputError "
                                      f"that is no size refusal (rule: {e.rule.value}, about: {e.subject}): {e}",
                                      case, outcomes) from e
            stats.runs[f"refused: {e.rule.value}"] += 1
            continue
        except (DeadlockError, SimulationError) as e:
            raise PropertyFailure("2 simulate", f"run {run} (input shapes {case.input_shapes(run)}): "
                                  f"{type(e).__name__}: {e}", case, outcomes) from e
        except Exception as e:  # the property
            defect = known_defect(e)
            if defect is not None:
                stats.runs[f"known defect: {defect}"] += 1
                continue
            raise PropertyFailure("2 simulate", f"run {run} (input shapes {case.input_shapes(run)}): the simulator "
                                  f"raised {type(e).__name__}: {e}\n{_short_traceback(e)}", case, outcomes) from e
        simulated = True
        noise = None if case.exact else evaluate_float32(case, inputs)
        problem = compare(case, actual, expected, noise)
        if problem is not None:
            raise PropertyFailure("2 simulate", f"run {run} (input shapes {case.input_shapes(run)}): {problem}",
                                  case, outcomes)
        stats.runs["matched numpy"] += 1
        if case.interleave is not None and lanes is not None and lanes[1] > lanes[0]:
            stats.runs["matched numpy, blocks interleaved"] += 1
    if simulated:
        stats.kernels_simulated += 1




# ---------------------------------------------------------------- property 3
def check_compiles(case: Case, kernel: kir.Kernel, outcomes: list[str], stats: Stats | None = None) -> None:
    from codegen import compile_check, to_cuda

    stats = stats if stats is not None else Stats()
    try:
        source = to_cuda(kernel)
    except Exception as e:  # the property
        raise PropertyFailure("3 nvcc", f"to_cuda raised {type(e).__name__}: {e}\n{_short_traceback(e)}",
                              case, outcomes) from e
    try:
        compile_check(source)
    except Exception as e:  # the property
        raise PropertyFailure("3 nvcc", f"{type(e).__name__}: {e}", case, outcomes) from e
    stats.kernels_compiled += 1


# ---------------------------------------------------------------- property 4
class GpuWorker:
    """One child process that runs kernels on the GPU, replaced after a kernel fails.

    A kernel that faults leaves its process unable to use the GPU (a driver rule), so fuzzed
    kernels run away from the test process: the error comes back as the same exception and the
    next kernel gets a fresh process (see ``runtime.execute_isolated``), while a healthy process
    is reused across kernels to keep the per-kernel cost at one launch.
    """

    _pool = None
    timeout_s = 120.0

    @classmethod
    def execute(cls, kernel: kir.Kernel, inputs: list[np.ndarray], run: Any = None) -> list[np.ndarray]:
        """``run(kernel, inputs)`` in the worker; ``run`` is ``runtime.execute`` unless given (tests)."""
        import multiprocessing

        if run is None:
            from runtime import execute as run
        if cls._pool is None:
            cls._pool = multiprocessing.get_context("spawn").Pool(1)
        try:
            return cls._pool.apply_async(run, (kernel, inputs)).get(timeout=cls.timeout_s)
        except InputError:
            raise
        except BaseException:
            cls.close()
            raise

    @classmethod
    def close(cls) -> None:
        if cls._pool is not None:
            cls._pool.terminate()
            cls._pool = None


def check_gpu(case: Case, fusion: Fusion, kernel: kir.Kernel, outcomes: list[str], stats: Stats | None = None) -> None:
    stats = stats if stats is not None else Stats()
    ran = False
    for run in range(len(case.sizes)):
        inputs = make_inputs(case, run)
        expected = reference(case, fusion, inputs, outcomes)
        lanes = launch_lanes(kernel, inputs)
        if lanes is not None and lanes[0] > MAX_THREADS_PER_BLOCK:
            continue
        try:
            actual = GpuWorker.execute(kernel, inputs)
        except InputError as e:
            if known_defect(e) is None and (not e.rule.is_size_rule or e.subject is None):
                raise PropertyFailure("4 gpu", f"run {run} (input shapes {case.input_shapes(run)}): InputError "
                                      f"that is no size refusal (rule: {e.rule.value}): {e}", case, outcomes) from e
            continue
        except Exception as e:  # the property
            raise PropertyFailure("4 gpu", f"run {run} (input shapes {case.input_shapes(run)}): "
                                  f"{type(e).__name__}: {e}", case, outcomes) from e
        ran = True
        noise = None if case.exact else evaluate_float32(case, inputs)
        problem = compare(case, actual, expected, noise)
        if problem is not None:
            raise PropertyFailure("4 gpu", f"run {run} (input shapes {case.input_shapes(run)}): {problem}",
                                  case, outcomes)
    if ran:
        stats.kernels_on_gpu += 1


# ---------------------------------------------------------------- all of them
def run_case(case: Case, stats: Stats | None = None, *, simulate: bool = True, compile: bool = False,
             gpu: bool = False) -> kir.Kernel | None:
    """Check every selected property on ``case``; returns the kernel if it lowered."""
    stats = stats if stats is not None else Stats()
    fusion, outcomes = check_schedule(case, stats)
    kernel = check_lowering(case, fusion, outcomes, stats)
    if kernel is None:
        return None
    if simulate:
        check_simulation(case, fusion, kernel, outcomes, stats)
    if compile:
        check_compiles(case, kernel, outcomes, stats)
    if gpu:
        check_gpu(case, fusion, kernel, outcomes, stats)
    return kernel

