"""Fuzzing ``schedule()``: hypothesis draws a fusion of every class the registry schedules, schedules it with
``schedule(fusion, sizes)`` and simulates it against numpy:

- pointwise and transpose: op chains, inputs broadcast along random axes with ops before the broadcast, casts,
  fp32/fp16/bf16/int32, constant or symbolic extents, sizes no tile or vector divides (one pointwise case in ten
  ends in a sum);
- reduction: a pointwise chain on one or two inputs of a 2-D domain (fp32/fp16/bf16), cast to float, then
  ``sum``, ``max``, ``mean`` (``ops.mean`` or ``sum * (1/N)``) or ``var_mean``'s variance over the last or the
  first axis, then pointwise ops on the reduced result, often a reduced axis of hundreds or thousands of elements
  (one case in eight of 8192 to 16384 rows or columns, a few wide: an outer grid reduction);
- normalization: softmax, log-softmax (with or without the max subtracted, a divide or a reciprocal), layer norm
  (mean by ``ops.mean`` or ``sum * (1/N)``, optional 1-D weight and bias broadcast along the rows, optional mean
  and inverse std outputs) and RMS norm over the last or the first axis, fp32 or bf16, cast back.

The property (``check``): ``schedule`` either refuses with a ``ScheduleError`` or gives a schedule that lowers and
matches numpy at the sizes it was scheduled for; a lowering error, a simulator error or a wrong result is a bug.
``SchedulerCase.script()`` prints a case as the Python that builds it, for a failure's report.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from hypothesis import strategies as st

from fusion_ir import DataType, Fusion, ScheduleError, TensorView, ops
from fusion_ir.reference import evaluate
from fusion_ir.schedulers import schedule
from runtime import simulate
from runtime.inputs import random_inputs
from target import H100, Target, use

UNARY = ("neg", "abs", "relu", "sin", "cos", "tanh", "sigmoid")
BINARY = ("add", "sub", "mul", "maximum", "minimum")
SCALARS = (0.5, 1.5, 2.0, 3)
DTYPES = (DataType.Float, DataType.Float, DataType.Half, DataType.BFloat16, DataType.Int32)
CASTS = (DataType.Float, DataType.Half, DataType.BFloat16)
MAX_ELEMENTS = 3000           # keeps one simulation well under a second
LOW_PRECISION = (DataType.Half, DataType.BFloat16)
REDUCE_DTYPES = (DataType.Float, DataType.Float, DataType.Half, DataType.BFloat16)
NORM_DTYPES = (DataType.Float, DataType.BFloat16)
REDUCTIONS = ("sum", "max", "mean", "mean_scale", "var")
NORMALIZATIONS = ("softmax", "log_softmax", "layer_norm", "rms_norm")
# after a reduction only ops that do not shrink a value: a rounded sum stays within `within`'s bound of its scale
TAME_UNARY = ("neg", "abs", "relu")
REDUCED_EXTENTS = (1, 2, 3, 7, 8, 31, 33, 64, 100, 127, 257, 300, 513, 1000, 1024, 1500, 2048, 2560, 3000)
# one reduction case in eight: a reduced axis long enough for an outer grid reduction (256 threads down the rows,
# 16 rows each per split), a few columns; a reduction simulates such a kernel in a fraction of a second
LONG_REDUCED_EXTENTS = (8192, 9000, 16384)
MAX_LONG_ELEMENTS = 16384
# a reduction of more elements computes in float from its inputs: N bf16-rounded intermediates move a sum by about
# sqrt(N) * 2^-9 of their size, past `within`'s 5% of the result (3000 of them: 0.1 of a sum of 1.8)
ROUNDED_REDUCED = 64
EPS = 1e-5


@dataclass(frozen=True)
class Reduce:
    """What follows the pre-chain of a reduction or normalization case: ``op`` (one of ``REDUCTIONS`` or
    ``NORMALIZATIONS``) over ``axis`` of the 2-D domain, computed in float; ``flags``: ``"mean_op"`` (a norm's
    means by ``ops.mean``, else ``sum * (1/N)``), ``"no_max"`` (softmax without the max subtracted),
    ``"recip"`` (softmax multiplies by the sum's reciprocal), ``"stats"`` (layer norm also outputs the mean and the
    inverse std), ``"bessel"`` (var with correction 1); ``weight``/``bias``: the input index of a 1-D input
    along ``axis`` broadcast along the other; ``out_dtype``: the result's type (a cast back when not float);
    ``post``: pointwise steps on the result."""

    op: str
    axis: int
    out_dtype: DataType = DataType.Float
    flags: tuple[str, ...] = ()
    weight: int | None = None
    bias: int | None = None
    post: tuple[tuple, ...] = ()


@dataclass(frozen=True)
class InputDef:
    """An input carrying the reference axes ``axes`` (the others it is broadcast along), ``pre`` applied first."""

    axes: tuple[int, ...]
    dtype: DataType
    symbolic: bool
    pre: str | None = None


@dataclass(frozen=True)
class Gpu:
    """A made-up GPU the case is scheduled, lowered and simulated for (``target.use``): H100 with fewer or more
    SMs, fewer threads, registers or bytes of shared memory per block, so that small fusions reach grid splits,
    shared-memory persistent buffers and the refusals of buffers that fit nowhere."""

    sm_count: int
    max_threads_per_block: int
    registers_per_block: int
    smem_per_block: int

    def target(self) -> Target:
        return replace(H100, name="fuzz GPU", sm_count=self.sm_count, max_threads_per_block=self.max_threads_per_block,
                       registers_per_block=self.registers_per_block, smem_per_block=self.smem_per_block)


@dataclass(frozen=True)
class SchedulerCase:
    """``shape``: the output's axes (pointwise), the 2-D domain (reduction, normalization) or the first input's
    (``perm`` set: transpose, or a reduction of the transposed input); ``chain``: the ops after the first input
    (``("unary", name)``, ``("scalar", op, value)``, ``("binary", op, input)``, ``("cast", dtype)``, and now and then
    a last ``("sum", axis)``: no pointwise fusion, so a reduction scheduler's or a ScheduleError); ``also_output``:
    the chain step whose result is an output too (pointwise); ``reduce``: the reduction or normalization after the
    chain; ``gpu``: a made-up target (None: H100)."""

    shape: tuple[int, ...]
    inputs: tuple[InputDef, ...]
    chain: tuple[tuple, ...]
    perm: tuple[int, ...] | None = None
    also_output: int | None = None
    seed: int = 0
    reduce: Reduce | None = None
    gpu: Gpu | None = None

    @property
    def kind(self) -> str:
        """The class drawn (the scheduler meant to take it, if any takes it)."""
        if self.reduce is not None:
            return "normalization" if self.reduce.op in NORMALIZATIONS else "reduction"
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
            if self.reduce is not None:
                domain = self.shape if self.perm is None else tuple(self.shape[p] for p in self.perm)
                cur, stats = _reduce(cur, self.reduce, domain[self.reduce.axis], operand)
                outputs += stats
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
        if self.gpu is not None:
            lines.append(f"for {self.gpu}")
        if self.reduce is not None:
            r = self.reduce
            lines.append(f"then {r.op} over axis {r.axis} in float{f' {list(r.flags)}' if r.flags else ''}"
                         f"{f' weight input {r.weight}' if r.weight is not None else ''}"
                         f"{f' bias input {r.bias}' if r.bias is not None else ''}, result {r.out_dtype.name}")
            lines += [f"post {n}: {step}" for n, step in enumerate(r.post)]
        lines.append(f"# rebuild: {self!r}")
        return re.sub(r"<DataType[.](\w+): [^>]*>", r"DataType.\1", "\n".join(lines))


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


def _reduce(cur: TensorView, r: Reduce, n: int, operand) -> tuple[TensorView, list[TensorView]]:
    """``r`` applied to the 2-D ``cur`` (``n``: the reduced extent); returns the result and extra outputs."""
    y = cur if cur.dtype is DataType.Float else ops.cast(cur, DataType.Float)
    a = r.axis

    def back(t: TensorView) -> TensorView:
        return ops.broadcast(t, [a == 0, a == 1])

    def mean(t: TensorView) -> TensorView:
        return ops.mean(t, a) if "mean_op" in r.flags else ops.mul(ops.sum(t, [a]), 1.0 / n)

    stats: list[TensorView] = []
    if r.op in ("sum", "max"):
        out = getattr(ops, r.op)(y, [a])
    elif r.op == "mean":
        out = ops.mean(y, a)
    elif r.op == "mean_scale":
        out = ops.mul(ops.sum(y, [a]), 1.0 / n)
    elif r.op == "var":
        out = ops.var_mean(y, a, correction=1 if "bessel" in r.flags else 0)[0]
    elif r.op in ("softmax", "log_softmax"):
        shifted = y if "no_max" in r.flags else ops.sub(y, back(ops.max(y, [a])))
        e = ops.exp(shifted)
        total = ops.sum(e, [a])
        if r.op == "log_softmax":
            out = ops.sub(shifted, back(ops.log(total)))
        elif "recip" in r.flags:
            out = ops.mul(e, back(ops.div(1.0, total)))
        else:
            out = ops.div(e, back(total))
    elif r.op == "layer_norm":
        m = mean(y)
        centred = ops.sub(y, back(m))
        inv_std = ops.rsqrt(ops.add(mean(ops.mul(centred, centred)), EPS))
        out = ops.mul(centred, back(inv_std))
        if "stats" in r.flags:
            stats = [m, inv_std]
    else:                                   # rms_norm
        out = ops.mul(y, back(ops.rsqrt(ops.add(mean(ops.mul(y, y)), EPS))))
    if r.weight is not None:
        out = ops.mul(out, operand(r.weight))
    if r.bias is not None:
        out = ops.add(out, operand(r.bias))
    if r.out_dtype is not DataType.Float:
        out = ops.cast(out, r.out_dtype)
    for step in r.post:
        out = _step(out, step, operand)
    return out, stats


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


def _one_in(n: int) -> st.SearchStrategy[bool]:
    """True about once in ``n`` draws (hypothesis draws the ends of an integer range far more often)."""
    return st.sampled_from((False,) * (n - 1) + (True,))


@st.composite
def _domain(draw: st.DrawFn) -> tuple[tuple[int, int], int]:
    """A 2-D shape and the axis to reduce: the reduced extent often hundreds, the kept one shrunk to fit."""
    axis = draw(st.integers(0, 1))
    long = draw(_one_in(8))
    reduced = draw(st.sampled_from(LONG_REDUCED_EXTENTS if long else REDUCED_EXTENTS))
    kept = draw(st.sampled_from((1, 2, 3, 5, 7, 8, 16, 31, 33, 40, 64, 70)))
    kept = max(1, min(kept, (MAX_LONG_ELEMENTS if long else MAX_ELEMENTS) // reduced))
    return ((kept, reduced) if axis == 1 else (reduced, kept)), axis


@st.composite
def _pre_inputs(draw: st.DrawFn, dtypes: tuple[DataType, ...], most: int,
                pre: tuple[str | None, ...] = (None, None, "neg", "abs", "sin")) -> tuple[InputDef, ...]:
    first = InputDef((0, 1), draw(st.sampled_from(dtypes)), draw(st.booleans()))
    others = []
    for _ in range(draw(st.integers(0, most))):
        axes = draw(st.sampled_from(((0, 1), (0, 1), (0,), (1,))))
        pre_op = draw(st.sampled_from(pre))
        others.append(InputDef(axes, draw(st.sampled_from(dtypes)), draw(st.booleans()), pre_op))
    return (first, *others)


@st.composite
def _post(draw: st.DrawFn) -> tuple[tuple, ...]:
    """Pointwise steps after a reduction: at most one scalar add or sub (an add then a sub cancels a small
    result's digits, 1e-4 softmax values kept 1e-3 of their precision through ``+ 0.5 - 0.5``)."""
    steps: list[tuple] = []
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(("unary", "add", "mul", "sub")))
        if kind == "unary" or (kind != "mul" and any(s[1] in ("add", "sub") for s in steps)):
            steps.append(("unary", draw(st.sampled_from(TAME_UNARY))))
        else:
            steps.append(("scalar", kind, draw(st.sampled_from(SCALARS))))
    return tuple(steps)


def _in_float(inputs: tuple[InputDef, ...], steps: list[tuple]) -> tuple[tuple[InputDef, ...], tuple[tuple, ...]]:
    """The chain computed in float from the first input on, the other inputs' ``pre`` ops exact (neg, abs) or
    none: no fp16 or bf16 intermediate the float64 reference does not round."""
    exact = tuple(d if d.pre in (None, "neg", "abs") else InputDef(d.axes, d.dtype, d.symbolic) for d in inputs)
    cast = (("cast", DataType.Float),) if inputs[0].dtype is not DataType.Float else ()
    return exact, cast + tuple(s for s in steps if s[0] != "cast")


@st.composite
def reduction_cases(draw: st.DrawFn) -> SchedulerCase:
    """A pointwise chain on one or two inputs of a 2-D domain, then a reduction over the last or first axis."""
    shape, axis = draw(_domain())
    inputs = draw(_pre_inputs(REDUCE_DTYPES, 1))
    chain = tuple(draw(_steps(len(inputs), allow_binary=True)))
    if shape[axis] > ROUNDED_REDUCED:
        inputs, chain = _in_float(inputs, list(chain))
    op = draw(st.sampled_from(REDUCTIONS))
    flags = ("bessel",) if op == "var" and shape[axis] > 1 and draw(st.booleans()) else ()
    low = [d.dtype for d in inputs if d.dtype in LOW_PRECISION]
    out_dtype = draw(st.sampled_from((DataType.Float, low[0]))) if low else DataType.Float
    reduce = Reduce(op, axis, out_dtype, flags, post=draw(_post()))
    return _maybe_permuted(draw, SchedulerCase(shape, inputs, chain, None, None, draw(st.integers(0, 2**16)),
                                               reduce, draw(_gpu())))


def _maybe_permuted(draw: st.DrawFn, case: SchedulerCase) -> SchedulerCase:
    """One case in eight reads its first input transposed (``shape`` is then the input's, reversed), alone."""
    if not draw(_one_in(8)):
        return case
    first = case.inputs[0]
    chain = tuple(s for s in case.chain if s[0] != "binary")
    reduce = case.reduce
    if reduce is not None and (reduce.weight is not None or reduce.bias is not None):
        reduce = replace(reduce, weight=None, bias=None)
    return replace(case, shape=case.shape[::-1], inputs=(first,), chain=chain, perm=(1, 0), reduce=reduce)


@st.composite
def normalization_cases(draw: st.DrawFn) -> SchedulerCase:
    """Softmax, log-softmax, layer norm or RMS norm over the last or first axis, after a short chain."""
    shape, axis = draw(_domain())
    dtype = draw(st.sampled_from(NORM_DTYPES))
    inputs = draw(_pre_inputs((dtype,), 1))
    # in float from the start: a normalization divides by a spread that a rounded chain may all but cancel
    # no maximum/minimum: clamped against a broadcast value, a column can be all but constant, and layer norm
    # divides float32's rounding of its mean by a spread of almost nothing (8 rows: 2e-5 relative)
    steps = [s if s[0] != "binary" or s[1] not in ("maximum", "minimum") else ("binary", "mul", s[2])
             for s in draw(_steps(len(inputs), allow_binary=True)) if s[0] != "cast"][:3]
    steps += [("binary", "add", k) for k in range(1, len(inputs)) if not any(
        s[0] == "binary" and s[2] == k for s in steps)]
    inputs, chain = _in_float(inputs, steps)
    op = draw(st.sampled_from(NORMALIZATIONS))
    flags: list[str] = []
    weight = bias = None
    if op in ("softmax", "log_softmax"):
        flags += [f for f in ("no_max", "recip") if draw(_one_in(4))]
        if op == "log_softmax" and shape[axis] == 1 and "no_max" in flags:
            flags.remove("no_max")   # y - log(exp(y)): a float32 rounding of 0, no relative error bounds it
    else:
        if draw(st.booleans()):
            flags.append("mean_op")
        if op == "layer_norm" and draw(_one_in(4)):
            flags.append("stats")
        if draw(st.booleans()):
            weight = len(inputs)
            inputs += (InputDef((axis,), dtype, draw(st.booleans())),)
        if op == "layer_norm" and draw(st.booleans()):
            bias = len(inputs)
            inputs += (InputDef((axis,), dtype, draw(st.booleans())),)
    out_dtype = draw(st.sampled_from((DataType.Float, dtype)))
    reduce = Reduce(op, axis, out_dtype, tuple(flags), weight, bias, draw(_post()))
    return _maybe_permuted(draw, SchedulerCase(shape, inputs, chain, None, None, draw(st.integers(0, 2**16)),
                                               reduce, draw(_gpu())))


@st.composite
def _gpu(draw: st.DrawFn) -> Gpu | None:
    """H100 half of the time, else a GPU with some limits drawn small (or many SMs: more grid splits)."""
    if draw(st.booleans()):
        return None
    return Gpu(draw(st.sampled_from((1, 4, 132, 1024))), draw(st.sampled_from((128, 256, 1024))),
               draw(st.sampled_from((4096, 16384, 65536))), draw(st.sampled_from((2048, 16384, 227 * 1024))))


def scheduler_cases() -> st.SearchStrategy[SchedulerCase]:
    """Pointwise cases two times in six, transpose, reduction and normalization cases one in six each and one
    more normalization (the scheduler with the most to get wrong)."""
    return st.one_of(pointwise_cases(), pointwise_cases(), transpose_cases(), reduction_cases(),
                     normalization_cases(), normalization_cases())


def within(actual: np.ndarray, expected: np.ndarray, fusion: Fusion) -> tuple[bool, str]:
    """float32 math: a relative error (2-norm) under 1e-5; fp16 and bf16 inputs count as float32 (the reference
    holds them exactly). With an fp16 or bf16 result or intermediate (the device rounds each to 8 or 11 bits, the
    float64 reference does not), each element within 5% of the largest magnitude (at least 1): a short chain of
    rounded ops, cancellation included, or a reduction of at most ``ROUNDED_REDUCED`` rounded values stays
    inside it."""
    a, e = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    if any(tv.dtype in LOW_PRECISION and not tv.is_input for tv in fusion.tensors):
        scale = max(1.0, float(np.abs(e).max(initial=0.0)))
        worst = float(np.abs(a - e).max(initial=0.0))
        return worst <= 0.05 * scale, f"largest difference {worst:.3e} > 5% of {scale:.3e}"
    denom = np.linalg.norm(e.ravel())
    err = float(np.linalg.norm((a - e).ravel()) / (denom if denom > 0 else 1.0))
    return err < 1e-5, f"relative error {err:.3e} >= 1e-5"


def check(case: SchedulerCase, on_params: Callable[[object], None] | None = None) -> str:
    """Schedule ``case`` at its sizes (for its ``gpu`` if it has one) and simulate it against numpy; returns
    ``"declined: ..."`` for a ScheduleError, else the scheduler that took it (``on_params`` sees its params).
    Raises AssertionError for a wrong result; any other error propagates."""
    with use(case.gpu.target()) if case.gpu is not None else contextlib.nullcontext():
        return _check(case, on_params)


def _check(case: SchedulerCase, on_params: Callable[[object], None] | None) -> str:
    fusion = case.build()
    shapes = case.input_shapes()
    try:
        params = schedule(fusion, sizes=shapes)
    except ScheduleError as e:
        return f"declined: {str(e).splitlines()[0]}"
    if on_params is not None:
        on_params(params)
    inputs = random_inputs(fusion, shapes, case.seed)
    actual = simulate(fusion, inputs)
    expected = evaluate(case.build(), inputs)
    magnitude = _summed_magnitude(case, inputs)
    for k, (a, e) in enumerate(zip(actual, expected)):
        a64, e64 = np.asarray(a, dtype=np.float64), np.asarray(e, dtype=np.float64)
        assert a64.shape == e64.shape, f"output {k}: shape {a64.shape} != {e64.shape}\n{case.script()}\n{params}"
        assert not np.isnan(a64).any(), f"output {k} has NaN (unwritten?)\n{case.script()}\n{params}"
        ok, why = within(a64, e64, fusion)
        if not ok and magnitude is not None and k == len(actual) - 1:
            ok, why = within_sum(a64, e64, magnitude)
        assert ok, f"output {k}: {why}\n{case.script()}\n{params}"
    return params.scheduler


def _summed_magnitude(case: SchedulerCase, inputs: list[np.ndarray]) -> np.ndarray | None:
    """For a sum, mean or max case, the same reduction of the terms' magnitudes (float64), scaled as the result's
    pointwise steps scale it: what float32 rounding of the result is proportional to (a max of values that cancel
    to almost nothing, ``sin(x) - 1.5 + 0.5`` near ``pi / 2``, keeps the rounding of its terms). None for other
    cases."""
    r = case.reduce
    if r is None or r.op not in ("sum", "mean", "mean_scale", "max"):
        return None
    post = tuple(("scalar", "mul", abs(s[2])) for s in r.post if s[0] == "scalar" and s[1] == "mul")
    terms = replace(case, chain=case.chain + (("unary", "abs"),),
                    reduce=replace(r, out_dtype=DataType.Float, post=post))
    return np.asarray(evaluate(terms.build(), inputs)[-1], dtype=np.float64)


def within_sum(actual: np.ndarray, expected: np.ndarray, magnitude: np.ndarray) -> tuple[bool, str]:
    """float32 sums (and maxima): each element within 1e-5 of itself plus 1e-6 of the sum (the maximum) of its
    terms' magnitudes (a result that cancels to almost nothing, or a post-op that cancels it, keeps float32's
    absolute error, not its relative one); a term lost or counted twice is off by a term, far beyond it."""
    bound = 1e-5 * np.abs(expected) + 1e-6 * magnitude
    excess = np.abs(actual - expected) - bound
    worst = int(np.argmax(excess))
    if excess.flat[worst] <= 0:
        return True, ""
    return False, (f"element {tuple(int(i) for i in np.unravel_index(worst, expected.shape))}: {actual.flat[worst]:.9g} vs "
                   f"{expected.flat[worst]:.9g}, over 1e-5 of it + 1e-6 of its terms' magnitudes "
                   f"{magnitude.flat[worst]:.6g}")
