"""Hypothesis strategies for fuzz cases: random fusions and random schedules of them.

``cases()`` draws a ``Case`` (see ``case.py``): a random DAG of pointwise ops, broadcasts, casts and
up to three reductions over 1-3 inputs of rank 1-4 (float32, fp16, bf16, int32, int64, bool), sizes
from 0 to a few thousand on one axis (the total bounded), inputs that may be non-contiguous or hold
NaN and infinities, then a schedule drawn against the live fusion so that most calls are plausible,
with a share of invalid ones (axes out of range, bad factors, wrong types, illegal combinations),
32-bit indices, swizzles, TMA stores and their waits, 2-8 or "auto" stages. Schedules come from four
templates:

- ``guided``: caches, transforms of a reference tensor propagated with ``transform_like``,
  thread/block bindings propagated with ``parallelize_like``, then ``inline_most``;
- ``tma``: a TMA load computed inside a tiled output loop, Bulk axes, circular buffering;
- ``reduction``: a reduction split, rfactored and bound to threads and blocks;
- ``random``: any primitive on any tensor.

Each template is followed by a few random steps. Values keep an interval bound so that no
op overflows or leaves its domain: inputs are integers in [-4, 4], sqrt/log/rsqrt only see
values >= 1 (an ``abs``/``add`` is inserted in front when needed), every magnitude stays
under ``MAX_MAGNITUDE`` (fp16: under its largest value), and a value counts as exact only while
its type holds every integer of its range (bf16: 256, fp16: 2048). Known simulator-vs-reference
semantic gaps are not drawn (see ``KNOWN_GAPS``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from hypothesis import strategies as st

from fusion_ir import (
    DataType,
    Fusion,
    LoadStoreOpType,
    MemoryType,
    ParallelType,
    Pipelined,
    ScheduleError,
    TensorView,
    WarpSpecialized,
)
from fusion_ir.exprs import LoadStoreOp, ReductionOp
from fusion_ir.types import SmemSwizzle, promote

from .case import MAX_MAGNITUDE, Case, InputSpec, OpSpec, SizeRef, Step, TRef, apply_step, build

PT = ParallelType
# the largest size of one size class, by the fusion's rank (keeps the simulator fast)
MAX_SIZE = {1: 160, 2: 40, 3: 12, 4: 6}
# one size class of a "long" fusion goes up to LONG_SIZE, the others shrink so that a run has at most
# LONG_ELEMENTS elements
LONG_SIZE = 3000
LONG_ELEMENTS = 6000
INPUT_DTYPES = {DataType.Float: 10, DataType.Int32: 2, DataType.Half: 2, DataType.BFloat16: 2, DataType.Int64: 1,
                DataType.Bool: 1}
TMA_DTYPES = {DataType.Float: 6, DataType.Half: 2, DataType.BFloat16: 2, DataType.Int32: 1}
# integers a type holds exactly: integer-valued math in it is exact up to here
EXACT_LIMIT = {DataType.Float: 2.0**24, DataType.Half: 2048.0, DataType.BFloat16: 256.0,
               DataType.Int32: MAX_MAGNITUDE, DataType.Int64: MAX_MAGNITUDE, DataType.Bool: 1.0}
# Simulator-vs-reference (or simulator-vs-GPU) semantic gaps the generator does not draw, each a defect of
# its own: bool arithmetic (the reference adds bools as integers, a bool register saturates), int32
# overflow, casts of NaN/Inf or out-of-range floats to integers, and NaN through max/min/relu (numpy
# propagates NaN; the GPU's fmaxf/fminf drop it).
KNOWN_GAPS = ("bool arithmetic", "int overflow", "NaN/Inf cast to int", "NaN through max/min/relu")
NAN_DROPPING = ("maximum", "minimum", "relu", "max")
FACTORS = (1, 2, 3, 4, 5, 7, 8, 16, 32, 64, 128)
SCALARS = (1, 2, -3, 2.0, -1.0, 3.0, 0.5)
EXACT_UNARY = ("neg", "abs", "relu")
BOUNDED_UNARY = ("sin", "cos", "tanh", "sigmoid", "erf", "silu")
# drawn in place of ``exp`` and ``log`` now and then
GROWING_UNARY = ("exp", "expm1")
LOG_UNARY = ("log", "log1p")
COMPARE_OPS = ("lt", "le", "gt", "ge", "eq", "ne")
EXACT_BINARY = ("add", "sub", "mul", "maximum", "minimum")
INVALID_ARGS = (0, -2, 2.5, "1", None, True)

TEMPLATES = ("guided", "tma", "reduction", "random")
PRIMITIVES = ("split", "merge", "reorder", "compute_at", "inline_at", "inline_most", "transform_like",
              "transform_like_all", "parallelize_like", "parallelize_like_all", "cache_after", "cache_before",
              "set_memory_type", "parallelize", "circular_buffer", "rfactor", "set_swizzle", "set_store_wait",
              "set_index_type")
# how often the random template picks each primitive (shrinking prefers the first ones)
PRIMITIVE_WEIGHTS = {"split": 4, "merge": 2, "reorder": 1, "parallelize": 5, "inline_most": 2, "compute_at": 3,
                     "inline_at": 1, "cache_after": 2, "cache_before": 1, "set_memory_type": 2,
                     "circular_buffer": 2, "transform_like": 1, "transform_like_all": 1, "parallelize_like": 1,
                     "parallelize_like_all": 1, "rfactor": 1, "set_swizzle": 1, "set_store_wait": 1}
PARALLEL_WEIGHTS = {PT.TIDx: 8, PT.BIDx: 6, PT.Unroll: 4, PT.Vectorize: 4, PT.Bulk: 4, PT.TIDy: 3, PT.BIDy: 3,
                    PT.Serial: 2, PT.TIDz: 1, PT.BIDz: 1, PT.Mma: 1}


def weighted(weights: dict) -> st.SearchStrategy:
    return st.sampled_from([k for k, w in weights.items() for _ in range(w)])


def chance(draw: st.DrawFn, p: float) -> bool:
    """True with probability ``p``; shrinks to False."""
    return draw(st.integers(0, 99)) >= round(100 * (1 - p))


# ---------------------------------------------------------------- fusions
@dataclass(frozen=True)
class _Value:
    """What the generator knows of a tensor: axes (size class, or -1 for broadcast), type, range."""

    name: int
    sig: tuple[int, ...]
    dtype: DataType
    lo: float
    hi: float
    exact: bool
    is_input: bool = False

    @property
    def bound(self) -> float:
        return max(abs(self.lo), abs(self.hi))


class _Definition:
    def __init__(self, rank: int, class_max: tuple[int, ...], specials: bool = False) -> None:
        self.rank = rank
        self.class_max = class_max          # the largest size of each size class
        self.max_size = max(class_max)
        self.specials = specials            # inputs hold NaN and infinities: no NaN-dropping ops, no int casts
        self.inputs: list[InputSpec] = []
        self.ops: list[OpSpec] = []
        self.values: list[_Value] = []
        self.reductions = 0
        self.has_max = False
        self.divides_by_extent = False      # a mean: no size 0 (0 / 0)

    @property
    def has_reduction(self) -> bool:
        return self.reductions > 0

    def add_input(self, dims: tuple[int, ...], dtype: DataType, static: bool) -> None:
        lo = 0.0 if dtype is DataType.Bool else -4.0
        hi = 1.0 if dtype is DataType.Bool else 4.0
        self.values.append(_Value(self.tensors, dims, dtype, lo, hi, True, is_input=True))
        self.inputs.append(InputSpec(dims, dtype, static))

    @property
    def tensors(self) -> int:
        """How many tensors the fusion has so far: the next one's name."""
        return len(self.inputs) + len(self.ops)

    def add_op(self, fn: str, args: tuple, sig: tuple[int, ...], dtype: DataType, lo: float, hi: float,
               exact: bool, hidden: bool = False) -> _Value:
        """Record ``ops.<fn>(*args)``; ``hidden``: a step between two ops that later ops do not draw (its
        axes are no size classes, as a merged axis of a reshape)."""
        v = _Value(self.tensors, sig, dtype, lo, hi, exact and max(abs(lo), abs(hi)) <= EXACT_LIMIT[dtype])
        self.ops.append(OpSpec(fn, args))
        if not hidden:
            self.values.append(v)
        return v


def _max_magnitude(dtype: DataType) -> float:
    return 60000.0 if dtype is DataType.Half else MAX_MAGNITUDE


def _numeric(d: _Definition, x: _Value) -> _Value:
    """``x``, cast from bool to int32 first: the generator does no bool arithmetic (a known gap)."""
    if x.dtype is not DataType.Bool:
        return x
    return d.add_op("cast", (TRef(x.name), DataType.Int32), x.sig, DataType.Int32, x.lo, x.hi, x.exact)


def _unary(d: _Definition, fn: str, x: _Value) -> _Value:
    """Apply ``fn`` to ``x``, first moving ``x`` into the op's domain if needed."""
    x = _numeric(d, x)
    if d.specials and fn in NAN_DROPPING:
        fn = "neg"
    if fn in GROWING_UNARY and x.hi > (8 if x.dtype is not DataType.Half else 6):
        fn = "tanh"
    if fn == "log1p" and x.lo < 0:
        x = _unary(d, "abs", x)
    if fn in ("sqrt", "log", "rsqrt") and x.lo < 1:
        if x.lo < 0:
            x = _unary(d, "abs", x)
        x = _binary_scalar(d, "add", x, 1.0, scalar_first=False)
    dtype = x.dtype if fn in EXACT_UNARY or x.dtype.is_float else DataType.Float
    lo, hi = _unary_interval(fn, x.lo, x.hi)
    return d.add_op(fn, (TRef(x.name),), x.sig, dtype, lo, hi, x.exact and fn in EXACT_UNARY)


def _unary_interval(fn: str, lo: float, hi: float) -> tuple[float, float]:
    """The range of ``fn`` over [lo, hi] (sqrt, log and rsqrt only see lo >= 1)."""
    if fn == "neg":
        return -hi, -lo
    if fn == "abs":
        return (0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
    if fn == "relu":
        return max(lo, 0.0), max(hi, 0.0)
    if fn == "exp":
        return math.exp(lo), math.exp(hi)
    if fn == "expm1":
        return math.expm1(lo), math.expm1(hi)
    if fn == "log1p":
        return math.log1p(lo), math.log1p(hi)
    if fn == "erf":
        return math.erf(lo), math.erf(hi)
    if fn == "silu":        # smallest at x = -1.2785: -0.2785
        silu = [v / (1 + math.exp(-v)) if v > -700 else 0.0 for v in (lo, hi)]    # exp(700+) overflows
        return (-0.2785 if lo <= -1.2785 <= hi else min(silu)), max(silu)
    if fn == "sqrt":
        return math.sqrt(lo), math.sqrt(hi)
    if fn == "log":
        return math.log(lo), math.log(hi)
    if fn == "rsqrt":
        return 1 / math.sqrt(hi), 1 / math.sqrt(lo)
    if fn == "tanh":
        return math.tanh(lo), math.tanh(hi)
    if fn == "sigmoid":
        return 0.0, 1.0
    return -1.0, 1.0  # sin, cos


def _promote(a: DataType, b: DataType, fn: str) -> DataType:
    """What ``ops`` makes of a binary op's operand types."""
    out = promote(a, b)
    return DataType.Float if fn in ("div", "pow") and not out.is_float else out


def _interval(fn: str, a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    if fn == "add":
        return a[0] + b[0], a[1] + b[1]
    if fn == "sub":
        return a[0] - b[1], a[1] - b[0]
    if fn == "mul":
        p = [x * y for x in a for y in b]
        return min(p), max(p)
    if fn == "div":  # only with |b| >= 0.5 everywhere
        m = max(abs(a[0]), abs(a[1])) / min(abs(b[0]), abs(b[1]))
        return -m, m
    if fn == "maximum":
        return max(a[0], b[0]), max(a[1], b[1])
    return min(a[0], b[0]), min(a[1], b[1])


def _scalar_dtype(s: object) -> DataType:
    return DataType.Int32 if isinstance(s, int) else DataType.Float


def _binary_scalar(d: _Definition, fn: str, x: _Value, s: float, scalar_first: bool) -> _Value:
    x = _numeric(d, x)
    if d.specials and fn in NAN_DROPPING:
        fn = "add"
    if fn == "div" and (scalar_first and x.lo <= 0 <= x.hi):
        scalar_first = False
    sv = (float(s), float(s))
    lo, hi = _interval(fn, sv, (x.lo, x.hi)) if scalar_first else _interval(fn, (x.lo, x.hi), sv)
    if fn == "div" and scalar_first:  # s / x with |x| >= 1: |result| <= |s|
        lo, hi = -abs(s), abs(s)
    exact = x.exact and fn in EXACT_BINARY and float(s).is_integer()
    args = (s, TRef(x.name)) if scalar_first else (TRef(x.name), s)
    return d.add_op(fn, args, x.sig, _promote(x.dtype, _scalar_dtype(s), fn), lo, hi, exact)


def _compatible(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return len(a) == len(b) and all(x == y or x == -1 or y == -1 for x, y in zip(a, b))


def _joined(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x if x != -1 else y for x, y in zip(a, b))


def _reduced_count(d: _Definition, x: _Value, axes: list[int]) -> int:
    n = 1
    for k in axes:
        n *= 1 if x.sig[k] == -1 else d.class_max[x.sig[k]]
    return n


def _reduce(d: _Definition, draw: st.DrawFn, x: _Value, axes: list[int]) -> bool:
    """Add a sum or max of ``x`` over ``axes`` if its result stays in range; True if added."""
    x = _numeric(d, x)
    fn = draw(st.sampled_from(("sum", "max", "mean")))
    if d.specials:
        fn = "sum"
    if fn == "mean":
        _mean(d, x, axes)
        return True
    n = _reduced_count(d, x, axes) if fn == "sum" else 1
    lo, hi = min(x.lo, n * x.lo), max(x.hi, n * x.hi)
    if max(abs(lo), abs(hi)) > _max_magnitude(x.dtype):
        return False
    sig = tuple(c for k, c in enumerate(x.sig) if k not in axes)
    d.add_op(fn, (TRef(x.name), axes), sig, x.dtype, lo, hi, x.exact)
    d.reductions += 1
    d.has_max |= fn == "max"
    return True


def _mean(d: _Definition, x: _Value, axes: list[int]) -> None:
    """``ops.mean`` as the ops it is made of (a case names one tensor per op): the sum, divided by the
    extent of each reduced axis in turn, each a scalar the kernel reads from the launch's sizes."""
    n = _reduced_count(d, x, axes)
    lo, hi = min(x.lo, n * x.lo), max(x.hi, n * x.hi)
    sig = tuple(c for k, c in enumerate(x.sig) if k not in axes)
    s = d.add_op("sum", (TRef(x.name), axes), sig, x.dtype, lo, hi, x.exact)
    d.reductions += 1
    d.divides_by_extent = True
    for k in axes:
        dtype = _promote(s.dtype, DataType.Int64, "div")
        s = d.add_op("div", (TRef(s.name), SizeRef(x.name, k)), sig, dtype, lo, hi, False)


def _class_max(draw: st.DrawFn, rank: int) -> tuple[int, ...]:
    """The largest size of each size class: all ``MAX_SIZE[rank]``, or one long class and the others small."""
    if not chance(draw, 0.15):
        return (MAX_SIZE[rank],) * rank
    long = draw(st.integers(0, rank - 1))
    extent = draw(st.integers(256, LONG_SIZE))
    rest = max(1, int((LONG_ELEMENTS / extent) ** (1 / max(rank - 1, 1))))
    return tuple(extent if c == long else min(rest, MAX_SIZE[rank]) for c in range(rank))


@st.composite
def definitions(draw: st.DrawFn, with_reduction: bool = False, pointwise: bool = False,
                specials: bool = False) -> tuple[_Definition, bool]:
    """A random fusion: its inputs, ops and the generator's knowledge of every value.

    ``pointwise``: 1-D or 2-D inputs of full rank and 1-3 pointwise ops (what a TMA schedule tiles).
    ``specials``: the inputs will hold NaN and infinities, so no op that treats NaN differently on
    the GPU and in numpy is drawn.
    """
    rank = draw(st.integers(1, 2 if pointwise else 4))
    d = _Definition(rank, _class_max(draw, rank), specials)
    static = chance(draw, 0.25)
    max_reductions = draw(st.sampled_from((1, 1, 2, 3)))
    for _ in range(draw(st.integers(1, 3))):
        dims = tuple(range(rank))
        if rank > 1 and not pointwise and chance(draw, 0.3):
            keep = draw(st.lists(st.sampled_from(dims), min_size=1, max_size=rank - 1, unique=True))
            dims = tuple(sorted(keep))
        dtype = draw(weighted(TMA_DTYPES if pointwise else INPUT_DTYPES))
        d.add_input(dims, dtype, static)

    kinds = ("unary", "binary", "scalar", "set", "cast", "binary") if pointwise else (
        "unary", "binary", "scalar", "broadcast", "reduction", "cast", "set", "unary", "binary", "binary", "more")
    for _ in range(draw(st.integers(1, 3 if pointwise else 7))):
        kind = draw(st.sampled_from(kinds))
        if kind == "more":      # one kind for the newer ops, so the older kinds keep their share
            kind = draw(st.sampled_from(("compare", "where", "logical", "clamp", "pow", "factory", "reshape")))
        x = draw(st.sampled_from(d.values))
        if kind == "unary":
            fn = draw(st.sampled_from(EXACT_UNARY + ("exp", "sqrt", "log", "rsqrt") + BOUNDED_UNARY
                                      + ("expm1", "log1p")))
            _unary(d, fn, x)
        elif kind in ("compare", "where", "logical", "clamp", "pow"):
            _logic_or_math(d, draw, kind, x)
        elif kind == "factory":
            _factory(d, draw, x)
        elif kind == "reshape" and static:
            _reshape_round_trip(d, draw, x)
        elif kind in ("binary", "scalar"):
            fn = draw(st.sampled_from(EXACT_BINARY + ("div",)))
            partners = [v for v in d.values if _compatible(v.sig, x.sig)]
            if d.specials and fn in NAN_DROPPING:
                fn = "add"
            if kind == "binary" and partners:
                y = _numeric(d, draw(st.sampled_from(partners)))
                x = _numeric(d, x)
                if fn == "div" and not (y.lo >= 1 or y.hi <= -1):
                    y = _binary_scalar(d, "add", _unary(d, "abs", y), 1, scalar_first=False)
                lo, hi = _interval(fn, (x.lo, x.hi), (y.lo, y.hi))
                if max(abs(lo), abs(hi)) > _max_magnitude(_promote(x.dtype, y.dtype, fn)):
                    _unary(d, "tanh", x)
                    continue
                d.add_op(fn, (TRef(x.name), TRef(y.name)), _joined(x.sig, y.sig), _promote(x.dtype, y.dtype, fn),
                         lo, hi, x.exact and y.exact and fn in EXACT_BINARY)
            else:
                s = draw(st.sampled_from(SCALARS))
                first = chance(draw, 0.2)
                if fn == "div" and not first and abs(s) < 0.5:
                    s = 2
                if x.bound * 3 > _max_magnitude(x.dtype):
                    _unary(d, "tanh", x)
                    continue
                _binary_scalar(d, fn, x, s, scalar_first=first)
        elif kind == "broadcast":
            if len(x.sig) < rank and -1 not in x.sig and not chance(draw, 0.2):
                # line the value up with the full-rank tensors: broadcast the size classes it lacks
                flags = [c not in x.sig for c in range(rank)]
                sig = [c if c in x.sig else -1 for c in range(rank)]
            else:
                if len(x.sig) >= 4:
                    continue
                at = draw(st.integers(0, len(x.sig)))
                sig = list(x.sig[:at]) + [-1] + list(x.sig[at:])
                flags = [False] * len(x.sig)
                flags.insert(at, True)
            d.add_op("broadcast", (TRef(x.name), flags), tuple(sig), x.dtype, x.lo, x.hi, x.exact)
        elif kind == "reduction":
            if d.reductions >= max_reductions or not x.sig:
                continue
            real = [k for k, c in enumerate(x.sig) if c != -1] or list(range(len(x.sig)))
            pool = list(range(len(x.sig))) if chance(draw, 0.1) else real
            axes = sorted(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True)))
            _reduce(d, draw, x, axes)
        elif kind == "cast":
            _cast(d, draw, x)
        else:
            d.add_op("set", (TRef(x.name),), x.sig, x.dtype, x.lo, x.hi, x.exact)
    if with_reduction and not d.has_reduction:
        x = max(d.values, key=lambda v: (len(v.sig), v.name))
        real = [k for k, c in enumerate(x.sig) if c != -1]
        if real:
            _reduce(d, draw, x, [real[-1]] if chance(draw, 0.7) else real)
    if not d.ops:
        _unary(d, "neg", d.values[0])
    return d, static


def _compare(d: _Definition, draw: st.DrawFn, x: _Value) -> _Value:
    """A comparison of an exact value with an exact partner or a scalar: a Bool neither rounding nor the
    order of evaluation can flip."""
    exact = [v for v in d.values if v.exact]
    x = _numeric(d, x if x.exact else draw(st.sampled_from(exact)))
    fn = draw(st.sampled_from(COMPARE_OPS))
    partners = [v for v in exact if _compatible(v.sig, x.sig) and v.dtype is not DataType.Bool]
    if partners and chance(draw, 0.6):
        y = draw(st.sampled_from(partners))
        return d.add_op(fn, (TRef(x.name), TRef(y.name)), _joined(x.sig, y.sig), DataType.Bool, 0.0, 1.0, True)
    s = draw(st.sampled_from((0, 1, -2, 0.5, 2.0)))
    return d.add_op(fn, (TRef(x.name), s), x.sig, DataType.Bool, 0.0, 1.0, True)


def _logic_or_math(d: _Definition, draw: st.DrawFn, kind: str, x: _Value) -> None:
    """``kind``: a comparison, ``where``, a logical op of Bool values, ``clamp`` or ``pow`` by a scalar."""
    if kind == "compare":
        _compare(d, draw, x)
    elif kind == "logical":
        bools = [v for v in d.values if v.dtype is DataType.Bool] or [_compare(d, draw, x)]
        a = draw(st.sampled_from(bools))
        fn = draw(st.sampled_from(("logical_and", "logical_or", "logical_not")))
        if fn == "logical_not":
            d.add_op(fn, (TRef(a.name),), a.sig, DataType.Bool, 0.0, 1.0, True)
            return
        partners = [v for v in bools if _compatible(v.sig, a.sig)]
        b = draw(st.sampled_from(partners))
        d.add_op(fn, (TRef(a.name), TRef(b.name)), _joined(a.sig, b.sig), DataType.Bool, 0.0, 1.0, True)
    elif kind == "where":
        x = _numeric(d, x)
        conds = [v for v in d.values if v.dtype is DataType.Bool and _compatible(v.sig, x.sig) and v.exact]
        cond = draw(st.sampled_from(conds)) if conds else _compare(d, draw, x)
        if not _compatible(cond.sig, x.sig):
            return
        s = draw(st.sampled_from(SCALARS))
        lo, hi = min(x.lo, float(s)), max(x.hi, float(s))
        d.add_op("where", (TRef(cond.name), TRef(x.name), s), _joined(cond.sig, x.sig),
                 _promote(x.dtype, _scalar_dtype(s), "where"), lo, hi, x.exact and float(s).is_integer())
    elif kind == "clamp":
        _clamp(d, draw, x)
    else:
        x = _numeric(d, x)
        e = draw(st.sampled_from((2, 3, 2.0)))
        if x.bound ** e * 3 > _max_magnitude(x.dtype):
            x = _unary(d, "tanh", x)
        lo, hi = (0.0, x.bound ** 2) if e != 3 else (x.lo ** 3, x.hi ** 3)
        # powf is not correctly rounded (2 ulp): never exact, even of integers
        d.add_op("pow", (TRef(x.name), e), x.sig, _promote(x.dtype, _scalar_dtype(e), "pow"), lo, hi, False)


def _clamp(d: _Definition, draw: st.DrawFn, x: _Value) -> None:
    """``ops.clamp`` of an exact value, drawn as the ops it is made of (a case names one tensor per op):
    ``where(gt(x, hi), hi, x)``, then ``where(lt(., lo), lo, .)``. Exact, so that no comparison flips."""
    exact = [v for v in d.values if v.exact]
    x = _numeric(d, x if x.exact else draw(st.sampled_from(exact)))
    lo_b, hi_b = sorted(draw(st.lists(st.sampled_from((-2, -1.0, 0, 0.5, 1, 3.0)), min_size=2, max_size=2)))
    for fn, bound in (("gt", hi_b), ("lt", lo_b)):
        cond = d.add_op(fn, (TRef(x.name), bound), x.sig, DataType.Bool, 0.0, 1.0, True)
        lo, hi = (min(x.lo, bound), min(x.hi, bound)) if fn == "gt" else (max(x.lo, bound), max(x.hi, bound))
        x = d.add_op("where", (TRef(cond.name), bound, TRef(x.name)), x.sig,
                     _promote(x.dtype, _scalar_dtype(bound), "where"), lo, hi, x.exact and float(bound).is_integer())


def _factory(d: _Definition, draw: st.DrawFn, x: _Value) -> None:
    """A tensor of no input with extents of ``x`` (``t.size(k)``): a ``full`` of ``x``'s shape, or an
    ``iota`` along one of its axes (a later broadcast lines it up with the others)."""
    if not x.sig or -1 in x.sig:        # a broadcast axis has extent 1, which a full axis would not broadcast
        return
    if chance(draw, 0.5):
        value, dtype = draw(st.sampled_from(((0, DataType.Int32), (3, DataType.Int32), (2.0, DataType.Float),
                                             (-0.5, DataType.Float), (True, DataType.Bool))))
        shape = [SizeRef(x.name, k) for k in range(len(x.sig))]
        d.add_op("full", (shape, value, dtype), x.sig, dtype, float(value), float(value), True)
        return
    k = draw(st.integers(0, len(x.sig) - 1))
    start, step = draw(st.sampled_from((0, -3, 2))), draw(st.sampled_from((1, 2, -1)))
    ends = (start, start + (d.class_max[x.sig[k]] - 1) * step)
    d.add_op("iota", (SizeRef(x.name, k), start, step, DataType.Int32), (x.sig[k],), DataType.Int32,
             float(min(ends)), float(max(ends)), True)


def _reshape_round_trip(d: _Definition, draw: st.DrawFn, x: _Value) -> None:
    """Two ``reshape``s of a fusion of constant sizes: adjacent axes ``k, k+1`` merged, then split back
    into their extents (``t.size(k)``), a value of ``x``'s shape reached through merges and splits. The
    merged step is hidden: its merged axis is no size class."""
    if len(x.sig) < 2 or -1 in x.sig:
        return
    k = draw(st.integers(0, len(x.sig) - 2))
    sizes = [SizeRef(x.name, j) for j in range(len(x.sig))]
    merged_shape = sizes[:k] + [-1] + sizes[k + 2:]
    merged = d.add_op("reshape", (TRef(x.name), merged_shape), x.sig[:k] + x.sig[k + 1:], x.dtype, x.lo, x.hi,
                      x.exact, hidden=True)
    d.add_op("reshape", (TRef(merged.name), sizes), x.sig, x.dtype, x.lo, x.hi, x.exact)


def _cast(d: _Definition, draw: st.DrawFn, x: _Value) -> None:
    """A cast to a type that holds ``x``'s values: ints of exact floats (not with NaN around), floats."""
    if x.dtype is DataType.Bool:
        to = draw(st.sampled_from((DataType.Int32, DataType.Float, DataType.Int64)))
    elif x.dtype.is_float and x.exact and not d.specials:
        to = draw(st.sampled_from((DataType.Int32, DataType.Int32, DataType.Int64)))
    else:
        floats = [DataType.Float, DataType.Float, DataType.BFloat16]
        if x.bound <= 60000 and not d.specials:    # fp16 overflow to Inf: the reference does not round casts
            floats.append(DataType.Half)
        to = draw(st.sampled_from(floats))
    d.add_op("cast", (TRef(x.name), to), x.sig, to, x.lo, x.hi, x.exact)


def _sizes(draw: st.DrawFn, d: _Definition, static: bool) -> tuple[tuple[int, ...], ...]:
    """Sizes per run and size class; now and then one class is 0 (not under a max: numpy has no identity)."""
    small = st.sampled_from((1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33))
    runs = 1 if static else 2
    sizes = []
    for _ in range(runs):
        run = [min(draw(st.one_of(small, st.integers(1, top))), top) for top in d.class_max]
        if not d.has_max and not d.divides_by_extent and not static and chance(draw, 0.04):
            run[draw(st.integers(0, d.rank - 1))] = 0
        sizes.append(tuple(run))
    return tuple(sizes)


# ---------------------------------------------------------------- schedules
class _Scheduler:
    """Draws steps against a live fusion and records them."""

    def __init__(self, draw: st.DrawFn, fusion: Fusion) -> None:
        self.draw = draw
        self.fusion = fusion
        self.steps: list[Step] = []
        self.outcomes: list[str] = []

    def do(self, kind: str, target: TensorView | None, *args: object, **kwargs: object) -> TensorView | None:
        step = Step(kind, None if target is None else TRef(target.name), tuple(_refs(a) for a in args),
                    tuple((k, _refs(v)) for k, v in kwargs.items()))
        try:
            result = apply_step(self.fusion, step)
        except ScheduleError:
            self.steps.append(step)
            self.outcomes.append("ScheduleError")
            return None
        except Exception as e:  # noqa: BLE001 - recorded; the property test reports it
            self.steps.append(step)
            self.outcomes.append(type(e).__name__)
            return None
        if result is not None:
            step = replace(step, result=result.name)
        self.steps.append(step)
        self.outcomes.append("ok")
        return result

    # ---- what to act on
    def live(self) -> list[TensorView]:
        try:
            return self.fusion.used_tensors()
        except Exception:  # noqa: BLE001 - a broken fusion; the property test reports it
            return list(self.fusion.tensors)

    def computed(self) -> list[TensorView]:
        return [t for t in self.live() if not t.is_input] or self.live()

    def pick(self, pool: list[TensorView]) -> TensorView:
        return self.draw(st.sampled_from(sorted(pool, key=lambda t: t.name)))

    def target(self, p_input: float = 0.05) -> TensorView:
        return self.pick(self.live() if chance(self.draw, p_input) else self.computed())

    def axis(self, tv: TensorView, p_invalid: float = 0.05) -> object:
        n = tv.ndim
        if chance(self.draw, p_invalid) or n == 0:
            return self.draw(st.sampled_from((n, -n - 1, n + 3, "0", None)))
        return self.draw(st.integers(-n, n - 1))

    def factor(self) -> object:
        if chance(self.draw, 0.04):
            return self.draw(st.sampled_from(INVALID_ARGS))
        return self.draw(st.one_of(st.sampled_from(FACTORS), st.sampled_from(FACTORS), st.integers(1, 200)))

    def parallel_type(self) -> ParallelType:
        return self.draw(weighted(PARALLEL_WEIGHTS))

    # ---- one random step
    def random_step(self) -> None:
        draw = self.draw
        kind = draw(weighted(PRIMITIVE_WEIGHTS))
        if kind == "split":
            tv = self.target()
            self.do("split", tv, self.axis(tv), self.factor(), inner_split=not chance(draw, 0.3))
        elif kind == "merge":
            tv = self.target()
            if chance(draw, 0.5):
                self.do("merge", tv, self.axis(tv))
            else:
                self.do("merge", tv, self.axis(tv), self.axis(tv))
        elif kind == "reorder":
            tv = self.target()
            n = tv.ndim
            if n == 0:
                self.do("reorder", tv, {0: 0})
                return
            olds = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
            news = draw(st.permutations(olds))
            mapping = dict(zip(olds, news))
            if chance(draw, 0.05):
                mapping = {olds[0]: n + 1} if chance(draw, 0.5) else {**mapping, -1: news[0]}
            self.do("reorder", tv, mapping)
        elif kind == "compute_at":
            tv = self.target()
            downstream = self.downstream(tv)
            consumer = self.pick(downstream) if downstream and not chance(draw, 0.1) else self.pick(self.live())
            m = consumer.ndim
            pos = draw(st.integers(-m - 1, m)) if not chance(draw, 0.05) else draw(st.sampled_from((m + 1, 1.5)))
            self.do("compute_at", tv, consumer, pos)
        elif kind == "inline_at":
            tv = self.target()
            self.do("inline_at", tv, draw(st.integers(-tv.ndim - 1, tv.ndim)))
        elif kind == "inline_most":
            if chance(draw, 0.3):
                chosen = draw(st.lists(st.sampled_from(sorted(self.live(), key=lambda t: t.name)), min_size=1,
                                       max_size=3, unique=True))
                self.do("inline_most", None, chosen)
            else:
                self.do("inline_most", None)
        elif kind in ("transform_like", "parallelize_like"):
            self.do(kind, self.target(), self.pick(self.computed()))
        elif kind in ("transform_like_all", "parallelize_like_all"):
            self.do(kind, None, self.pick(self.computed()))
        elif kind == "cache_after":
            inputs = [t for t in self.live() if t.is_input]
            tv = self.pick(inputs) if inputs and chance(draw, 0.7) else self.target()
            self.do("cache_after", tv, self.load_type())
        elif kind == "cache_before":
            outputs = [t for t in self.live() if t.is_output]
            tv = self.pick(outputs) if outputs and chance(draw, 0.8) else self.target()
            op = draw(st.sampled_from((LoadStoreOpType.Set,) * 6 + (LoadStoreOpType.TMAStore,
                                                                    LoadStoreOpType.TMA)))
            self.do("cache_before", tv, op)
        elif kind == "set_memory_type":
            mt = draw(st.sampled_from((MemoryType.Shared, MemoryType.Shared, MemoryType.Local, MemoryType.Global)))
            self.do("set_memory_type", self.target(), mt)
        elif kind == "parallelize":
            tv = self.target()
            self.do("parallelize", tv, self.axis(tv, 0.03), self.parallel_type())
        elif kind == "circular_buffer":
            loads = [t for t in self.live() if isinstance(t.definition, LoadStoreOp)]
            tv = self.pick(loads) if loads and chance(draw, 0.85) else self.target()
            self.circular_buffer(tv)
        elif kind == "set_swizzle":
            loads = [t for t in self.live() if isinstance(t.definition, LoadStoreOp)]
            tv = self.pick(loads) if loads and chance(draw, 0.8) else self.target()
            self.do("set_swizzle", tv, draw(st.sampled_from(tuple(SmemSwizzle) + ("B128",))))
        elif kind == "set_store_wait":
            stored = [t for t in self.live() if t.is_output and isinstance(t.definition, LoadStoreOp)]
            tv = self.pick(stored) if stored and chance(draw, 0.8) else self.target()
            self.do("set_store_wait", tv, draw(st.sampled_from(("after_boxes", "deferred", "deferred", "never"))))
        elif kind == "rfactor":
            reductions = [t for t in self.live() if isinstance(t.definition, ReductionOp)]
            tv = self.pick(reductions) if reductions and chance(draw, 0.9) else self.target()
            red = [k for k, i in enumerate(tv.loop) if i.is_reduction] or [0]
            axes = draw(st.lists(st.sampled_from(red), min_size=1, max_size=len(red), unique=True))
            self.do("rfactor", tv, axes)

    def downstream(self, tv: TensorView) -> list[TensorView]:
        try:
            g = self.fusion.graph()
            import networkx as nx

            return [t for t in nx.descendants(g, tv) if t in self.live()]
        except Exception:  # noqa: BLE001
            return []

    def load_type(self) -> LoadStoreOpType:
        return self.draw(st.sampled_from((LoadStoreOpType.Set,) * 4 + (LoadStoreOpType.TMA,) * 3
                                         + (LoadStoreOpType.CpAsync,) * 2
                                         + (LoadStoreOpType.TMAStore, LoadStoreOpType.StMatrix)))

    def circular_buffer(self, tv: TensorView) -> None:
        draw = self.draw
        stages: object = draw(st.sampled_from((2, 2, 3, 3, 4, 4, 5, 6, 8)))
        if chance(draw, 0.15):
            stages = "auto"
        elif chance(draw, 0.05):
            stages = draw(st.sampled_from((1, 0, 2.0, "deep")))
        s = stages if isinstance(stages, int) and stages > 0 else 2
        prefetch = draw(st.integers(-s, s - 1)) if not chance(draw, 0.05) else draw(st.sampled_from((s, -s - 1)))
        cb_type = draw(st.sampled_from((
            Pipelined(), Pipelined(), Pipelined(), Pipelined(uses_mbarrier_for_war=True),
            WarpSpecialized(on=PT.TIDy), WarpSpecialized(on=PT.TIDy, num_registers=(40, 232)),
            WarpSpecialized(on=PT.TIDx), WarpSpecialized(on=PT.BIDx), WarpSpecialized(num_registers=(41, 232)))))
        if chance(draw, 0.2):
            self.do("circular_buffer", tv, stages)
        else:
            self.do("circular_buffer", tv, stages, prefetch, type=cb_type)

    # ---- templates
    def guided(self) -> None:
        draw = self.draw
        for tv in [t for t in self.live() if t.is_input]:
            if chance(draw, 0.3):
                self.do("cache_after", tv, draw(st.sampled_from((LoadStoreOpType.Set, LoadStoreOpType.Set,
                                                                 LoadStoreOpType.TMA, LoadStoreOpType.CpAsync))))
        outputs = [t for t in self.live() if t.is_output]
        for tv in outputs:
            if chance(draw, 0.2):
                self.do("cache_before", tv)
        reductions = [t for t in self.live() if isinstance(t.definition, ReductionOp)]
        ref = self.pick(reductions) if reductions and chance(draw, 0.5) else self.pick(outputs or self.computed())
        for _ in range(draw(st.integers(0, 3))):
            what = draw(st.sampled_from(("split", "split", "split", "merge", "reorder")))
            if what == "split":
                self.do("split", ref, self.axis(ref, 0.02), self.factor(), inner_split=not chance(draw, 0.2))
            elif what == "merge" and ref.ndim >= 2:
                self.do("merge", ref, draw(st.integers(0, ref.ndim - 2)))
            elif what == "reorder" and ref.ndim >= 2:
                self.do("reorder", ref, {0: ref.ndim - 1})
        vector = ref.ndim > 0 and chance(draw, 0.3)
        if vector:   # a short constant innermost axis, as for 16-byte vector loads and stores
            self.do("split", ref, -1, draw(st.sampled_from((2, 4))))
        if chance(draw, 0.85):
            self.do("transform_like_all", None, ref)
        if ref.ndim > 0:
            choices = [PT.BIDx, PT.TIDx, PT.BIDy, PT.TIDy, PT.Unroll, PT.Vectorize, PT.Serial]
            for k in range(ref.ndim - 1 if vector else ref.ndim):
                if chance(draw, 0.55):
                    self.do("parallelize", ref, k, draw(st.sampled_from(choices)))
        if chance(draw, 0.8):
            self.do("parallelize_like_all", None, ref)
        if vector:
            for tv in [t for t in self.computed() if t.ndim and t.loop[-1].extent == ref.loop[-1].extent]:
                if chance(draw, 0.6):
                    self.do("parallelize", tv, -1, PT.Vectorize)
        if reductions and chance(draw, 0.2):
            red = [k for k, i in enumerate(reductions[0].loop) if i.is_reduction]
            if len(red) > 1:
                self.do("rfactor", reductions[0], red[:1])
        if chance(draw, 0.85):
            self.do("inline_most", None)

    def tma(self) -> None:
        """A tiled output whose input is loaded by TMA (or cp.async) inside the tile loop, circular-buffered."""
        draw = self.draw
        outputs = [t for t in self.live() if t.is_output]
        if not outputs:
            return
        out = self.pick(outputs)
        upstream = [t for t in self.upstream(out) if t.is_input]
        if not upstream or out.ndim == 0:
            return
        source = self.pick(upstream)
        op = LoadStoreOpType.TMA if not chance(draw, 0.2) else LoadStoreOpType.CpAsync
        cache = self.do("cache_after", source, op)
        if chance(draw, 0.25):     # stage the output in shared memory and store it with TMA
            staged = self.do("cache_before", out, LoadStoreOpType.TMAStore)
            if staged is not None and chance(draw, 0.6):
                self.do("set_store_wait", out, draw(st.sampled_from(("after_boxes", "deferred"))))
        # [BIDx tiles, serial tiles, box]: the serial loop is the one the cache is circular-buffered on
        box = draw(st.sampled_from((32, 32, 32, 32, 16, 8, 4, 128)))
        self.do("split", out, -1, box)
        if out.ndim == 2 or chance(draw, 0.3):
            self.do("split", out, 0, draw(st.sampled_from((2, 3, 4, 8))))
        if chance(draw, 0.8):
            self.do("transform_like_all", None, out)
        if out.ndim >= 3 or chance(draw, 0.5):
            self.do("parallelize", out, 0, PT.BIDx)
        self.do("parallelize", out, -1, PT.TIDx)
        if chance(draw, 0.7):
            self.do("parallelize_like_all", None, out)
        if cache is None:
            return
        n = out.ndim
        pos = n - 1 if not chance(draw, 0.15) else draw(st.integers(1, max(n - 1, 1)))
        self.do("compute_at", cache, out, pos)
        for k in range(cache.compute_at_pos, cache.ndim):
            if op is LoadStoreOpType.TMA and not chance(draw, 0.1):
                self.do("parallelize", cache, k, PT.Bulk)
            elif op is LoadStoreOpType.CpAsync and chance(draw, 0.5):
                self.do("parallelize", cache, k, PT.TIDx)
        if op is LoadStoreOpType.TMA and chance(draw, 0.3):
            # the swizzle whose row is the box row (mostly), so the span rule holds
            row = box * cache.dtype.size
            fits = [z for z in SmemSwizzle if z.value == row]
            choice = fits[0] if fits and not chance(draw, 0.2) else draw(st.sampled_from(tuple(SmemSwizzle)))
            self.do("set_swizzle", cache, choice)
        if chance(draw, 0.8):
            self.do("inline_most", None)
        if chance(draw, 0.85):
            self.circular_buffer(cache)

    def reduction(self) -> None:
        """A reduction split, rfactored and bound to threads, with its inputs and outputs scheduled like it."""
        draw = self.draw
        reductions = [t for t in self.live() if isinstance(t.definition, ReductionOp)]
        if not reductions:
            self.guided()
            return
        red = self.pick(reductions)
        axes = [k for k, i in enumerate(red.loop) if i.is_reduction]
        if not axes:
            return
        axis = draw(st.sampled_from(axes))
        self.do("split", red, axis, draw(st.sampled_from((2, 4, 8, 16, 32, 64))),
                inner_split=not chance(draw, 0.3))
        if chance(draw, 0.7):
            self.do("rfactor", red, [axis if chance(draw, 0.5) else axis + 1])
        red_axes = [k for k, i in enumerate(red.loop) if i.is_reduction]
        if red_axes:
            self.do("parallelize", red, red_axes[-1], PT.TIDx if not chance(draw, 0.2) else PT.TIDy)
        iteration = [k for k, i in enumerate(red.loop) if not i.is_reduction and not i.is_broadcast]
        if iteration and chance(draw, 0.8):
            self.do("parallelize", red, iteration[0], PT.BIDx)
        if chance(draw, 0.6):
            self.do("transform_like_all", None, red)
        if chance(draw, 0.8):
            self.do("parallelize_like_all", None, red)
        if chance(draw, 0.85):
            self.do("inline_most", None)

    def upstream(self, tv: TensorView) -> list[TensorView]:
        try:
            import networkx as nx

            return sorted(nx.ancestors(self.fusion.graph(), tv), key=lambda t: t.name)
        except Exception:  # noqa: BLE001
            return []


def _refs(value: object) -> object:
    if isinstance(value, TensorView):
        return TRef(value.name)
    if isinstance(value, list):
        return [_refs(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_refs(v) for v in value)
    if isinstance(value, dict):
        return {k: _refs(v) for k, v in value.items()}
    return value


@st.composite
def cases(draw: st.DrawFn, templates: tuple[str, ...] = TEMPLATES, max_random_steps: int = 6) -> Case:
    """A fusion, a schedule of it (valid and invalid calls) and the sizes to run it at."""
    template = draw(st.sampled_from(templates))
    d, static = draw(definitions(with_reduction=template == "reduction", pointwise=template == "tma",
                                 specials=chance(draw, 0.1)))
    sizes = _sizes(draw, d, static)
    exact = all(v.exact for v in d.values)
    outputs = [d.values[-1].name]
    others = [v.name for v in d.values if not v.is_input and v.name not in outputs]
    if others and chance(draw, 0.25):
        outputs.append(draw(st.sampled_from(others)))
    case = Case(tuple(d.inputs), tuple(d.ops), tuple(outputs), (), sizes,
                seed=draw(st.integers(0, 2**31 - 1)), exact=exact, specials=d.specials,
                strided=chance(draw, 0.15),
                interleave=draw(st.integers(0, 2**16)) if chance(draw, 0.2) else None)
    scheduler = _Scheduler(draw, build(case))
    if chance(draw, 0.25):
        scheduler.do("set_index_type", None, DataType.Int32)
    if template == "guided":
        scheduler.guided()
    elif template == "tma":
        scheduler.tma()
    elif template == "reduction":
        scheduler.reduction()
    for _ in range(draw(st.integers(0, max_random_steps))):
        scheduler.random_step()
    if chance(draw, 0.3):
        scheduler.do("inline_most", None)
    return replace(case, steps=tuple(scheduler.steps), notes=(template,))
