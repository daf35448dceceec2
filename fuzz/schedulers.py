"""Fuzzing ``schedule()``: hypothesis draws pointwise and transpose fusions (op chains, inputs broadcast along
random axes with ops before the broadcast, casts, fp32/fp16/bf16/int32, constant or symbolic extents, sizes no
tile or vector divides; one in ten ends in a sum), schedules each with ``schedule(fusion, sizes)`` and simulates it
against numpy.

The property (``check``): ``schedule`` either refuses with a ``ScheduleError`` or gives a schedule that lowers and
matches numpy at the sizes it was scheduled for; a lowering error, a simulator error or a wrong result is a bug.
``SchedulerCase.script()`` prints a case as the Python that builds it, for a failure's report.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from fusion_ir import DataType, Fusion, ScheduleError, TensorView, ops
from fusion_ir.reference import evaluate
from fusion_ir.schedulers import schedule
from runtime import simulate
from runtime.inputs import random_inputs

UNARY = ("neg", "abs", "relu", "sin", "cos", "tanh", "sigmoid")
BINARY = ("add", "sub", "mul", "maximum", "minimum")
SCALARS = (0.5, 1.5, 2.0, 3)
DTYPES = (DataType.Float, DataType.Float, DataType.Half, DataType.BFloat16, DataType.Int32)
CASTS = (DataType.Float, DataType.Half, DataType.BFloat16)
MAX_ELEMENTS = 3000           # keeps one simulation well under a second
LOW_PRECISION = (DataType.Half, DataType.BFloat16)


@dataclass(frozen=True)
class InputDef:
    """An input carrying the reference axes ``axes`` (the others it is broadcast along), ``pre`` applied first."""

    axes: tuple[int, ...]
    dtype: DataType
    symbolic: bool
    pre: str | None = None


@dataclass(frozen=True)
class SchedulerCase:
    """``shape``: the output's axes (pointwise) or the input's (transpose, ``perm`` set); ``chain``: the ops after
    the first input (``("unary", name)``, ``("scalar", op, value)``, ``("binary", op, input)``, ``("cast", dtype)``,
    and now and then a last ``("sum", axis)``: no pointwise fusion, so a reduction scheduler's or a ScheduleError);
    ``also_output``: the chain step whose result is an output too (pointwise)."""

    shape: tuple[int, ...]
    inputs: tuple[InputDef, ...]
    chain: tuple[tuple, ...]
    perm: tuple[int, ...] | None = None
    also_output: int | None = None
    seed: int = 0

    @property
    def kind(self) -> str:
        return "transpose" if self.perm is not None else "pointwise"

    def input_shapes(self) -> list[tuple[int, ...]]:
        return [tuple(self.shape[a] for a in d.axes) for d in self.inputs]

    def build(self) -> Fusion:
        fusion = Fusion()
        rank = len(self.shape)
        with fusion:
            tvs = [fusion.add_input(ndim=len(d.axes), dtype=d.dtype) if d.symbolic else
                   fusion.add_input(shape=s, dtype=d.dtype) for d, s in zip(self.inputs, self.input_shapes())]
            full: dict[int, TensorView] = {}

            def operand(k: int) -> TensorView:
                if k not in full:
                    d, t = self.inputs[k], tvs[k]
                    if d.pre is not None:
                        t = getattr(ops, d.pre)(t)
                    if len(d.axes) < rank:
                        t = ops.broadcast(t, [a not in d.axes for a in range(rank)])
                    full[k] = t
                return full[k]

            cur = ops.permute(tvs[0], self.perm) if self.perm is not None else operand(0)
            outputs = []
            for n, step in enumerate(self.chain):
                cur = _step(cur, step, operand)
                if n == self.also_output:
                    outputs.append(cur)
            if cur.is_input:
                cur = ops.set(cur)
            for t in outputs:
                if t is not cur and not t.is_input:
                    fusion.add_output(t)
            fusion.add_output(cur)
        return fusion

    def script(self) -> str:
        lines = [f"# {self.kind} case, seed {self.seed}", f"shape = {self.shape}"]
        lines += [f"input {k}: axes {d.axes} {d.dtype.name}{' symbolic' if d.symbolic else ''}"
                  f"{f' then {d.pre}' if d.pre else ''}" for k, d in enumerate(self.inputs)]
        if self.perm is not None:
            lines.append(f"permute {self.perm}")
        lines += [f"step {n}: {step}" for n, step in enumerate(self.chain)]
        if self.also_output is not None:
            lines.append(f"step {self.also_output} is an output too")
        return "\n".join(lines)


def _step(cur: TensorView, step: tuple, operand) -> TensorView:
    kind = step[0]
    if kind == "unary":
        return getattr(ops, step[1])(cur)
    if kind == "scalar":
        return getattr(ops, step[1])(cur, step[2])
    if kind == "binary":
        return getattr(ops, step[1])(cur, operand(step[2]))
    if kind == "sum":
        return ops.sum(cur, step[1])
    return ops.cast(cur, step[1])


@st.composite
def _shape(draw: st.DrawFn, rank: int) -> tuple[int, ...]:
    small = st.sampled_from((1, 2, 3, 5, 7, 8, 16, 31, 33, 40, 64, 70))
    shape = tuple(draw(small) for _ in range(rank))
    while int(np.prod(shape)) > MAX_ELEMENTS:
        k = int(np.argmax(shape))
        shape = shape[:k] + (max(1, shape[k] // 2),) + shape[k + 1:]
    return shape


@st.composite
def pointwise_cases(draw: st.DrawFn) -> SchedulerCase:
    rank = draw(st.integers(1, 3))
    shape = draw(_shape(rank))
    first = InputDef(tuple(range(rank)), draw(st.sampled_from(DTYPES)), draw(st.booleans()))
    others = []
    for _ in range(draw(st.integers(0, 2))):
        axes = tuple(a for a in range(rank) if draw(st.booleans())) if rank > 1 else (0,)
        if not axes:
            axes = (rank - 1,)
        pre = draw(st.sampled_from((None, None, "neg", "abs", "sin")))
        others.append(InputDef(axes, draw(st.sampled_from(DTYPES)), draw(st.booleans()), pre))
    inputs = (first, *others)
    chain = tuple(draw(_steps(len(inputs), allow_binary=True)))
    if draw(st.integers(0, 9)) == 0:        # a reduction: another scheduler's fusion, or a ScheduleError
        chain += (("sum", draw(st.integers(0, rank - 1))),)
    also = draw(st.none() | st.integers(0, max(0, len(chain) - 2))) if len(chain) > 1 else None
    return SchedulerCase(shape, inputs, chain, None, also, draw(st.integers(0, 2**16)))


@st.composite
def transpose_cases(draw: st.DrawFn) -> SchedulerCase:
    rank = draw(st.integers(2, 3))
    shape = draw(_shape(rank))
    perm = tuple(draw(st.permutations(range(rank))))
    if perm == tuple(range(rank)):
        perm = tuple(reversed(perm))
    inputs = (InputDef(tuple(range(rank)), draw(st.sampled_from(DTYPES)), draw(st.booleans())),)
    chain = tuple(draw(_steps(1, allow_binary=False)))
    return SchedulerCase(shape, inputs, chain, perm, None, draw(st.integers(0, 2**16)))


@st.composite
def _steps(draw: st.DrawFn, inputs: int, allow_binary: bool) -> list[tuple]:
    kinds = ["unary", "scalar", "cast"] + (["binary", "binary"] if allow_binary and inputs > 1 else [])
    steps = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(kinds))
        if kind == "unary":
            steps.append(("unary", draw(st.sampled_from(UNARY))))
        elif kind == "scalar":
            steps.append(("scalar", draw(st.sampled_from(("add", "mul", "sub"))), draw(st.sampled_from(SCALARS))))
        elif kind == "binary":
            steps.append(("binary", draw(st.sampled_from(BINARY)), draw(st.integers(1, inputs - 1))))
        else:
            steps.append(("cast", draw(st.sampled_from(CASTS))))
    # every other input is read at least once
    for k in range(1, inputs):
        if not any(s[0] == "binary" and s[2] == k for s in steps):
            steps.append(("binary", draw(st.sampled_from(BINARY)), k))
    return steps


def scheduler_cases() -> st.SearchStrategy[SchedulerCase]:
    """Pointwise cases two times in three, transpose cases the rest."""
    return st.one_of(pointwise_cases(), pointwise_cases(), transpose_cases())


def within(actual: np.ndarray, expected: np.ndarray, fusion: Fusion) -> tuple[bool, str]:
    """float32 math: a relative error (2-norm) under 1e-5. With fp16 or bf16 anywhere (the device rounds every
    such intermediate to 8 or 11 bits, the float64 reference does not), each element within 5% of the largest
    magnitude (at least 1): a short chain of rounded ops, cancellation included, stays inside it."""
    a, e = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    if any(tv.dtype in LOW_PRECISION for tv in fusion.tensors):
        scale = max(1.0, float(np.abs(e).max(initial=0.0)))
        worst = float(np.abs(a - e).max(initial=0.0))
        return worst <= 0.05 * scale, f"largest difference {worst:.3e} > 5% of {scale:.3e}"
    denom = np.linalg.norm(e.ravel())
    err = float(np.linalg.norm((a - e).ravel()) / (denom if denom > 0 else 1.0))
    return err < 1e-5, f"relative error {err:.3e} >= 1e-5"


def check(case: SchedulerCase) -> str:
    """Schedule ``case`` at its sizes and simulate it against numpy; returns ``"declined: ..."`` for a ScheduleError,
    else the scheduler that took it. Raises AssertionError for a wrong result; any other error propagates."""
    fusion = case.build()
    shapes = case.input_shapes()
    try:
        params = schedule(fusion, sizes=shapes)
    except ScheduleError as e:
        return f"declined: {str(e).splitlines()[0]}"
    inputs = random_inputs(fusion, shapes, case.seed)
    actual = simulate(fusion, inputs)
    expected = evaluate(case.build(), inputs)
    for k, (a, e) in enumerate(zip(actual, expected)):
        a64, e64 = np.asarray(a, dtype=np.float64), np.asarray(e, dtype=np.float64)
        assert a64.shape == e64.shape, f"output {k}: shape {a64.shape} != {e64.shape}\n{case.script()}\n{params}"
        assert not np.isnan(a64).any(), f"output {k} has NaN (unwritten?)\n{case.script()}\n{params}"
        ok, why = within(a64, e64, fusion)
        assert ok, f"output {k}: {why}\n{case.script()}\n{params}"
    return params.scheduler
