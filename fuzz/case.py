"""A fuzz case as plain data: the fusion definition, the schedule steps and the run sizes.

A ``Case`` can be built into a live ``Fusion`` (``build``), replayed step by step
(``apply_step``), given inputs (``make_inputs``), compared against numpy (``compare``) and
printed as a runnable Python script (``to_script``). Tensors are referred to by name
(``TRef(3)`` is ``T3``): names are handed out in creation order and a call that fails
hands none out, so a replay creates exactly the tensors the generator saw.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import fusion_ir
from fusion_ir import DataType, Fusion, Pipelined, TensorView, WarpSpecialized, ops

# Magnitude every value of a case stays under: integer-valued float32 math is exact below 2**24,
# and int32 math cannot overflow.
MAX_MAGNITUDE = 1.0e6


@dataclass(frozen=True)
class TRef:
    """A tensor by name: ``TRef(3)`` is ``T3``, printed as the variable ``t3``."""

    name: int


@dataclass(frozen=True)
class SizeRef:
    """The extent of logical axis ``dim`` of tensor ``T<name>`` as a scalar operand: ``t<name>.size(dim)``."""

    name: int
    dim: int


@dataclass(frozen=True)
class InputSpec:
    """``fusion.add_input``: ``dims`` names a size class per axis; ``static`` uses ``shape=``."""

    dims: tuple[int, ...]
    dtype: DataType
    static: bool = False


@dataclass(frozen=True)
class OpSpec:
    """``ops.<fn>(*args)``, defining the next tensor."""

    fn: str
    args: tuple[Any, ...]


@dataclass(frozen=True)
class Step:
    """One scheduling call. ``kind`` is the primitive; ``target`` is None for fusion-wide calls.

    ``result`` is the name of the tensor the call returned when it made a new one
    (``cache_after``, ``cache_before``, ``rfactor``), filled in by the generator.
    """

    kind: str
    target: TRef | None
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()
    result: int | None = None


@dataclass(frozen=True)
class Case:
    inputs: tuple[InputSpec, ...]
    ops: tuple[OpSpec, ...]
    outputs: tuple[int, ...]
    steps: tuple[Step, ...]
    sizes: tuple[tuple[int, ...], ...]   # per run: the size of each size class
    seed: int = 0
    exact: bool = True                   # integer-valued math: outputs must match exactly
    notes: tuple[str, ...] = field(default=(), compare=False)
    specials: bool = False               # float inputs hold a few NaN, +Inf and -Inf
    strided: bool = False                # inputs are non-contiguous views (every other element of a larger array)
    interleave: int | None = None        # simulate with blocks interleaved at random, from this seed

    def input_shapes(self, run: int) -> list[tuple[int, ...]]:
        sizes = self.sizes[run]
        return [tuple(sizes[d] for d in spec.dims) for spec in self.inputs]


# ---------------------------------------------------------------- building and replay
def build(case: Case) -> Fusion:
    """The unscheduled fusion of ``case``; it runs the schedule drawn, an empty one as one thread
    (``auto_schedule`` off: lowering does not replace it with ``schedule()``'s)."""
    fusion = Fusion()
    fusion.auto_schedule = False
    with fusion:
        for k, spec in enumerate(case.inputs):
            if spec.static:
                shape = tuple(case.sizes[0][d] for d in spec.dims)
                tv = fusion.add_input(shape=shape, dtype=spec.dtype)
            else:
                tv = fusion.add_input(ndim=len(spec.dims), dtype=spec.dtype)
            assert tv.name == k, f"input {k} was named T{tv.name}"
        for k, op in enumerate(case.ops):
            tv = getattr(ops, op.fn)(*resolve(fusion, op.args))
            expected = len(case.inputs) + k
            assert tv.name == expected, f"op {k} ({op.fn}) was named T{tv.name}, expected T{expected}"
        for name in case.outputs:
            fusion.add_output(tensor(fusion, name))
    return fusion


def tensor(fusion: Fusion, name: int) -> TensorView:
    for tv in fusion.tensors:
        if tv.name == name:
            return tv
    raise KeyError(f"the fusion has no tensor T{name}")


def resolve(fusion: Fusion, value: Any) -> Any:
    if isinstance(value, TRef):
        return tensor(fusion, value.name)
    if isinstance(value, SizeRef):
        return tensor(fusion, value.name).size(value.dim)
    if isinstance(value, tuple):
        return tuple(resolve(fusion, v) for v in value)
    if isinstance(value, list):
        return [resolve(fusion, v) for v in value]
    if isinstance(value, dict):
        return {k: resolve(fusion, v) for k, v in value.items()}
    return value


def apply_step(fusion: Fusion, step: Step) -> TensorView | None:
    """Make the scheduling call ``step`` describes; returns what the call returned if it is a new tensor."""
    args = resolve(fusion, step.args)
    kwargs = {k: resolve(fusion, v) for k, v in step.kwargs}
    if step.kind == "inline_most":
        fusion_ir.inline_most(fusion, *args, **kwargs)
        return None
    if step.kind == "set_index_type":
        fusion.set_index_type(*args, **kwargs)
        return None
    if step.kind == "transform_like_all":
        fusion_ir.transform_like(*args, **kwargs)
        return None
    if step.kind == "parallelize_like_all":
        fusion_ir.parallelize_like(*args, **kwargs)
        return None
    assert step.target is not None, step
    tv = tensor(fusion, step.target.name)
    if step.kind == "parallelize":
        axis, parallel_type = args
        tv.axis(axis).parallelize(parallel_type)
        return None
    result = getattr(tv, step.kind)(*args, **kwargs)
    if isinstance(result, TensorView) and result is not tv:
        return result
    return None


# ---------------------------------------------------------------- inputs and comparison
SPECIAL_VALUES = (np.nan, np.inf, -np.inf)


def make_inputs(case: Case, run: int) -> list[np.ndarray]:
    """Fresh inputs of ``case``'s run ``run`` (see ``case_inputs``)."""
    dtypes = [spec.dtype.numpy_name for spec in case.inputs]
    return case_inputs(case.input_shapes(run), dtypes, [case.seed, run], specials=case.specials,
                       strided=case.strided)


def case_inputs(shapes: list[tuple[int, ...]], dtypes: list[str], seed: list[int], *, specials: bool = False,
                strided: bool = False) -> list[np.ndarray]:
    """Integer-valued inputs in [-4, 4] (exact in every float and integer type; bools are 0 or 1).

    ``specials``: about one float element in 16 is NaN, +Inf or -Inf. ``strided``: each array is a
    view of every other element of a larger one, so it is not contiguous (the runtime's host rule
    copies it). bfloat16 inputs are float32 arrays (numpy has no bfloat16), as ``simulate`` takes them.
    """
    rng = np.random.default_rng(seed)
    arrays = []
    for shape, dtype in zip(shapes, dtypes):
        if dtype == "bool":
            values = rng.integers(0, 2, size=shape).astype(bool)
        else:
            values = rng.integers(-4, 5, size=shape).astype(np.float64)
            if specials and dtype in ("float32", "float16", "bfloat16"):
                hit = rng.random(size=shape) < 1 / 16
                values[hit] = rng.choice(SPECIAL_VALUES, size=int(hit.sum()))
            values = values.astype(np.float32 if dtype == "bfloat16" else np.dtype(dtype))
        if strided and values.ndim:
            wide = np.zeros(tuple(2 * d for d in values.shape), values.dtype)
            view = wide[tuple(slice(None, None, 2) for _ in values.shape)]
            view[...] = values
            values = view
        arrays.append(values)
    return arrays


def compare(case: Case, actual: list[np.ndarray], expected: list[np.ndarray],
            noise: list[np.ndarray] | None = None) -> str | None:
    """None when ``actual`` matches ``expected`` (numpy in float64); otherwise what differs.

    Exact cases must match bit for bit. Others pass when the error is within
    ``1e-5`` of the reference's norm or within 20x of what float32 rounding alone
    gives (``noise``: the same math evaluated in float32).
    """
    if len(actual) != len(expected):
        return f"{len(actual)} outputs, expected {len(expected)}"
    for k, (a, e) in enumerate(zip(actual, expected)):
        a = np.asarray(a)
        e = np.asarray(e)
        if a.shape != e.shape:
            return f"output {k}: shape {a.shape}, expected {e.shape}"
        want_float = e.dtype.kind == "f"
        if (a.dtype.kind == "f") != want_float:
            return f"output {k}: dtype {a.dtype}, expected a {'float' if want_float else 'integer'} array"
        a64 = a.astype(np.float64)
        e64 = e.astype(np.float64)
        for what, test in (("NaN", np.isnan), ("+Inf", np.isposinf), ("-Inf", np.isneginf)):
            bad = test(a64) != test(e64)
            if bad.any():
                return f"output {k}: {what} at {_first(bad)} (got {a64[_first(bad)]}, expected {e64[_first(bad)]})"
        a64 = np.where(np.isfinite(a64), a64, 0.0)
        e64 = np.where(np.isfinite(e64), e64, 0.0)
        if case.exact or not want_float:
            wrong = a64 != e64
            if wrong.any():
                at = _first(wrong)
                return (f"output {k}: {int(wrong.sum())} of {wrong.size} elements differ; first at {at}: "
                        f"got {a64[at]}, expected {e64[at]}")
            continue
        diff = float(np.linalg.norm((a64 - e64).ravel()))
        scale = float(np.linalg.norm(e64.ravel()))
        floor = 0.0
        if noise is not None:
            floor = 20.0 * float(np.linalg.norm((np.asarray(noise[k], np.float64) - e64).ravel()))
        if diff > 1e-5 * scale + floor + 1e-6:
            at = _first(np.abs(a64 - e64) == np.abs(a64 - e64).max())
            return (f"output {k}: error norm {diff:.3e} over reference norm {scale:.3e} (noise floor {floor:.1e}); "
                    f"worst at {at}: got {a64[at]}, expected {e64[at]}")
    return None


def _first(mask: np.ndarray) -> tuple[int, ...]:
    idx = np.argwhere(mask)
    return tuple(int(i) for i in idx[0]) if idx.size else ()


def evaluate_float32(case: Case, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The case's math in float32, each tensor rounded to its own dtype (fp16, bf16) as the kernel
    stores it (ints stay int64): how far rounding alone moves the result from the float64 reference."""
    from fusion_ir.exprs import (
        BinaryOp,
        BroadcastOp,
        CastOp,
        FullOp,
        IotaOp,
        LoadStoreOp,
        ReductionOp,
        UnaryOp,
        ViewOp,
        WhereOp,
    )
    from fusion_ir.reference import BINARY, UNARY, as_stored

    fusion = build(case)
    env: dict[Any, Any] = {}

    def held(dtype: DataType, x: Any) -> Any:
        if not dtype.is_float:
            return np.asarray(x).astype(np.int64)
        return np.asarray(as_stored(dtype, np.asarray(x, np.float32)), np.float32)

    for tv, x in zip(fusion.inputs, inputs):
        env[tv] = held(tv.dtype, x)

    from fusion_ir.reference import extent_values, shape_of
    from fusion_ir.scalar import Val

    extents = extent_values(fusion, inputs)

    def get(v: Any) -> Any:
        if isinstance(v, TensorView):
            return env[v]
        if isinstance(v, Val):
            return int(v.evaluate(extents))
        return np.float32(v) if isinstance(v, float) else v

    with np.errstate(all="ignore"):
        for e in fusion.exprs:
            out = e.output
            ins = [get(x) for x in e.inputs]
            if isinstance(e, LoadStoreOp):
                r = ins[0] if e.permutation is None else np.transpose(ins[0], e.permutation)
            elif isinstance(e, UnaryOp):
                r = UNARY[e.op](np.asarray(ins[0], np.float32) if out.dtype.is_float else ins[0])
            elif isinstance(e, CastOp):
                r = ins[0] if e.dtype.is_float else np.trunc(ins[0])
            elif isinstance(e, BinaryOp):
                a, b = ins
                if out.dtype.is_float:
                    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
                r = BINARY[e.op](a, b)
            elif isinstance(e, WhereOp):
                c, a, b = ins
                if out.dtype.is_float:
                    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
                r = np.where(np.asarray(c) != 0, a, b)
            elif isinstance(e, ViewOp):
                r = np.reshape(ins[0], shape_of(out, extents))
            elif isinstance(e, FullOp):
                r = np.full(shape_of(out, extents), e.value)
            elif isinstance(e, IotaOp):
                r = e.start + np.arange(shape_of(out, extents)[0]) * e.step
            elif isinstance(e, BroadcastOp):
                r = ins[0]
                for k, flag in enumerate(e.is_broadcast_dims):
                    if flag:
                        r = np.expand_dims(r, k)
            elif isinstance(e, ReductionOp) and e.rfactor_partial:
                r = ins[0]
            elif isinstance(e, ReductionOp):
                r = (np.sum if e.op == "sum" else np.max)(ins[0], axis=e.axes)
            else:
                raise ValueError(f"unknown expression {type(e).__name__}")
            env[out] = held(out.dtype, r)
    return [env[o] for o in fusion.outputs]


# ---------------------------------------------------------------- printing
def code(value: Any) -> str:
    """Python source for a step or op argument."""
    if isinstance(value, TRef):
        return f"t{value.name}"
    if isinstance(value, SizeRef):
        return f"t{value.name}.size({value.dim})"
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, Pipelined):
        return "Pipelined(uses_mbarrier_for_war=True)" if value.uses_mbarrier_for_war else "Pipelined()"
    if isinstance(value, WarpSpecialized):
        regs = "" if value.num_registers is None else f", num_registers={value.num_registers!r}"
        return f"WarpSpecialized(on={code(value.on)}{regs})"
    if isinstance(value, list):
        return "[" + ", ".join(code(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(code(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{code(k)}: {code(v)}" for k, v in value.items()) + "}"
    return repr(value)


def call_code(step: Step) -> str:
    """The scheduling call as one Python expression (no assignment)."""
    args = [code(a) for a in step.args] + [f"{k}={code(v)}" for k, v in step.kwargs]
    if step.kind == "inline_most":
        return f"inline_most({', '.join(['fusion'] + args)})"
    if step.kind == "set_index_type":
        return f"fusion.set_index_type({', '.join(args)})"
    if step.kind == "transform_like_all":
        return f"transform_like({', '.join(args)})"
    if step.kind == "parallelize_like_all":
        return f"parallelize_like({', '.join(args)})"
    assert step.target is not None
    target = code(step.target)
    if step.kind == "parallelize":
        axis, parallel_type = step.args
        return f"{target}.axis({code(axis)}).parallelize({code(parallel_type)})"
    return f"{target}.{step.kind}({', '.join(args)})"


def step_code(step: Step) -> str:
    call = call_code(step)
    return call if step.result is None else f"t{step.result} = {call}"


def definition_code(case: Case) -> list[str]:
    lines = ["fusion = Fusion()", "fusion.auto_schedule = False   # the schedule drawn, even an empty one", "with fusion:"]
    for k, spec in enumerate(case.inputs):
        if spec.static:
            shape = tuple(case.sizes[0][d] for d in spec.dims)
            lines.append(f"    t{k} = fusion.add_input(shape={shape!r}, dtype={code(spec.dtype)})")
        else:
            lines.append(f"    t{k} = fusion.add_input(ndim={len(spec.dims)}, dtype={code(spec.dtype)})")
    for k, op in enumerate(case.ops):
        name = len(case.inputs) + k
        lines.append(f"    t{name} = ops.{op.fn}({', '.join(code(a) for a in op.args)})")
    for name in case.outputs:
        lines.append(f"    fusion.add_output(t{name})")
    return lines


SCRIPT_HEADER = '''\
import numpy as np

from fusion_ir import (DataType, Fusion, LoadStoreOpType, MemoryType, ParallelType, Pipelined, ScheduleError,
                       SmemSwizzle, WarpSpecialized, inline_most, ops, parallelize_like, transform_like)
from fusion_ir.reference import evaluate
from fuzz.case import case_inputs
from lowering import lower
from runtime import simulate


def rejected(call):
    """A call the schedule API must reject with ScheduleError, leaving the fusion unchanged."""
    before = fusion.state_fingerprint()
    try:
        call()
    except ScheduleError as e:
        print(f"rejected (ok): {e}")
    else:
        raise AssertionError("the call was expected to raise ScheduleError")
    assert fusion.state_fingerprint() == before, "a rejected call changed the fusion"
'''


def to_script(case: Case, outcomes: list[str] | None = None, title: str = "") -> str:
    """A runnable script: build the fusion, apply the schedule, lower, simulate and compare with numpy.

    ``outcomes`` gives, per step, ``"ok"`` or the name of the exception it raised; steps that
    raised ``ScheduleError`` are wrapped in ``rejected(...)``.
    """
    lines = [f'"""{title or "A fuzz case"}', "",
             "Run from the repository root: python3 THIS_FILE.py", '"""', SCRIPT_HEADER]
    lines += definition_code(case)
    lines.append("")
    for k, step in enumerate(case.steps):
        outcome = outcomes[k] if outcomes is not None and k < len(outcomes) else "ok"
        if outcome == "ScheduleError":
            lines.append(f"rejected(lambda: {call_code(step)})")
        elif outcome == "ok":
            lines.append(step_code(step))
        else:
            lines.append(f"{step_code(step)}  # raised {outcome}")
    shapes = [case.input_shapes(run) for run in range(len(case.sizes))]
    dtypes = [spec.dtype.numpy_name for spec in case.inputs]
    interleave = "" if case.interleave is None else f", interleave_blocks={case.interleave}"
    lines += [
        "",
        "print(fusion)",
        "kernel = lower(fusion)",
        "print(kernel)",
        f"EXACT = {case.exact!r}  # integer-valued math: must match numpy exactly",
        f"for run, shapes in enumerate({shapes!r}):",
        f"    inputs = case_inputs(shapes, {dtypes!r}, [{case.seed}, run], specials={case.specials!r}, "
        f"strided={case.strided!r})",
        f"    outputs = simulate(kernel, inputs, seed={case.seed} + run{interleave})",
        "    for k, (got, want) in enumerate(zip(outputs, evaluate(fusion, inputs))):",
        "        if EXACT or want.dtype.kind != 'f':",
        "            np.testing.assert_array_equal(got, want, err_msg=f'run {run}, output {k}')",
        "        else:",
        "            error = np.linalg.norm((got - want).ravel()) / max(np.linalg.norm(want.ravel()), 1e-30)",
        "            assert error < 1e-4, f'run {run}, output {k}: relative error {error:.3e}'",
        "print('matches numpy')",
    ]
    return "\n".join(lines) + "\n"
