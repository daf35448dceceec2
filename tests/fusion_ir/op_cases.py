"""Small scheduled fusions, one or more per op of the op families beyond the basic ones (comparisons,
logical ops, ``where``, unary math, ``pow``, ``clamp``, ``mean``, ``var_mean``, ``iota``, ``full``,
``reshape``), with inputs. Shared by the simulator tests, the nvcc compile tests and the GPU tier."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fusion_ir import DataType, Fusion, ParallelType, TensorView, inline_most, ops, parallelize_like, transform_like

F, H, B, I32 = DataType.Float, DataType.Half, DataType.Bool, DataType.Int32


@dataclass(frozen=True)
class OpCase:
    name: str
    group: str                                # logic, math, reduction, factory, reshape
    build: Callable[[], Fusion]
    shapes: tuple[tuple[int, ...], ...]       # one input shape per input
    tol: float | tuple[float, ...] = 1e-5     # relative error against the float64 reference (per output)
    offset: float = 0.0                       # added to float inputs (var_mean's stability check)

    def tolerance(self, output: int) -> float:
        return self.tol[output] if isinstance(self.tol, tuple) else self.tol

    def inputs(self, fusion: Fusion, seed: int) -> list[np.ndarray]:
        """Fresh inputs: floats from a normal distribution (a third of them rounded to halves, so that
        comparisons meet equal values), booleans at random, small integers."""
        rng = np.random.default_rng(seed)
        out = []
        for tv, shape in zip(fusion.inputs, self.shapes):
            if tv.dtype is B:
                out.append(rng.integers(0, 2, size=shape).astype(bool))
            elif tv.dtype is I32:
                out.append(rng.integers(-8, 8, size=shape).astype(np.int32))
            else:
                x = rng.standard_normal(shape)
                x = np.where(rng.random(shape) < 0.3, np.round(x * 2) / 2, x) + self.offset
                out.append(x.astype(np.dtype(tv.dtype.numpy_name)))
        return out


def pointwise(dtypes: tuple[DataType, ...], math: Callable[..., TensorView | tuple[TensorView, ...]],
              ranks: tuple[int, ...] | None = None,
              shapes: tuple[tuple[int, ...], ...] | None = None) -> Callable[[], Fusion]:
    """``math`` of inputs of ``dtypes`` (2-D unless ``ranks`` says otherwise; of constant ``shapes`` when
    given); the first output tiled [BIDx rows, serial, TIDx 32], every tensor transformed and inlined
    like it."""

    def build() -> Fusion:
        fusion = Fusion()
        with fusion:
            if shapes is not None:
                ins = [fusion.add_input(shape=shape, dtype=d) for d, shape in zip(dtypes, shapes)]
            else:
                ins = [fusion.add_input(ndim=r, dtype=d) for d, r in zip(dtypes, ranks or (2,) * len(dtypes))]
            outs = math(*ins)
            outs = outs if isinstance(outs, tuple) else (outs,)
            for o in outs:
                fusion.add_output(o)
        ref = outs[0]
        ref.split(-1, 32)
        transform_like(ref)
        ref.axis(0).parallelize(ParallelType.BIDx)
        ref.axis(-1).parallelize(ParallelType.TIDx)
        parallelize_like(ref)
        inline_most(fusion)
        return fusion

    return build


def row_normalization(math: Callable[[TensorView], tuple[TensorView, ...]], per_thread: int = 4,
                      hidden: int | None = None, persistent: bool = False) -> Callable[[], Fusion]:
    """``math`` of a 2-D Float input whose row statistics broadcast back over the row: a block per row,
    each thread keeping ``per_thread`` elements (layer norm's schedule, ``examples/layer_norm.py``);
    ``persistent``: the input is read once into a register cache that every pass over the row reads."""

    def build() -> Fusion:
        fusion = Fusion()
        with fusion:
            x = (fusion.add_input(ndim=2, dtype=F) if hidden is None
                 else fusion.add_input(shape=(5, hidden), dtype=F))
            outs = math(x)
            for o in outs:
                fusion.add_output(o)
        if persistent:
            x.cache_after()
        ref = outs[0]
        if len(ref.loop) < 2:           # a statistic: schedule the reduction it divides
            ref = ref.definition.tensor_inputs()[0]
        ref.split(1, per_thread, inner_split=False)
        transform_like(ref)
        ref.axis(0).parallelize(ParallelType.BIDx)
        ref.axis(2).parallelize(ParallelType.TIDx)
        parallelize_like(ref)
        inline_most(fusion)
        return fusion

    return build


def _compare(name: str) -> OpCase:
    fn = getattr(ops, name)
    return OpCase(name, "logic", pointwise((F, H), lambda x, y: (fn(x, y), fn(x, 0.5))), ((5, 37), (5, 37)))


CASES: list[OpCase] = [
    *(_compare(n) for n in ("lt", "le", "gt", "ge", "eq", "ne")),
    OpCase("compare_int_with_float_scalar", "logic", pointwise((I32,), lambda x: ops.lt(x, 0.5)), ((3, 45),)),
    OpCase("logical_and_or", "logic",
           pointwise((F, B), lambda x, b: (ops.logical_and(ops.gt(x, 0.0), b), ops.logical_or(b, x))),
           ((4, 33), (4, 33))),
    OpCase("logical_not", "logic", pointwise((B, F), lambda b, x: (ops.logical_not(b), ops.logical_not(x))),
           ((4, 33), (4, 33))),
    OpCase("where_tensors", "logic", pointwise((F, F), lambda x, y: ops.where(ops.ge(x, y), x, y)),
           ((6, 70), (6, 70))),
    OpCase("where_scalars_and_broadcast", "logic",
           pointwise((F, B), lambda x, b: ops.where(ops.broadcast(b, [False, True]), -1.0e4, x), ranks=(2, 1)),
           ((6, 70), (6,))),
    OpCase("where_half_and_bool_result", "logic",
           pointwise((H, B, B), lambda h, p, q: (ops.where(p, h, 2), ops.where(ops.gt(h, 0.0), p, q))),
           ((3, 40), (3, 40), (3, 40))),
    OpCase("erf", "math", pointwise((F,), ops.erf), ((5, 37),), tol=1e-6),
    OpCase("silu", "math", pointwise((F,), ops.silu), ((5, 37),), tol=1e-6),
    OpCase("log1p", "math", pointwise((F,), lambda x: ops.log1p(ops.abs(x))), ((5, 37),), tol=1e-6),
    OpCase("expm1", "math", pointwise((F,), ops.expm1), ((5, 37),), tol=1e-6),
    OpCase("erf_of_half", "math", pointwise((H,), ops.erf), ((5, 37),), tol=1e-3),
    OpCase("pow_tensor_exponent", "math", pointwise((F, F), lambda x, y: ops.pow(ops.add(ops.abs(x), 0.5), y)),
           ((5, 37), (5, 37)), tol=1e-6),
    OpCase("pow_scalar_exponent_and_base", "math",
           pointwise((F,), lambda x: (ops.pow(x, 2), ops.pow(2.0, x), ops.pow(x, 3.0))), ((5, 37),), tol=1e-6),
    OpCase("pow_of_int", "math", pointwise((I32,), lambda x: ops.pow(x, 2)), ((5, 37),)),
    OpCase("clamp", "math", pointwise((F,), lambda x: (ops.clamp(x, -0.5, 0.75), ops.clamp(x, None, 0.0))),
           ((5, 37),)),
    OpCase("clamp_int", "math", pointwise((I32,), lambda x: ops.clamp(x, -3, 4)), ((5, 37),)),
]


def _normalize(x: TensorView) -> tuple[TensorView, ...]:
    """Layer norm's core from ``var_mean``: ``(x - mean) * rsqrt(var + eps)``, with var and mean."""
    var, m = ops.var_mean(x, [1], correction=0)
    rstd = ops.rsqrt(ops.add(var, 1e-5))
    y = ops.mul(ops.sub(x, ops.broadcast(m, [False, True])), ops.broadcast(rstd, [False, True]))
    return y, var, m


def _var_mean(axes: list[int], correction: int = 1) -> Callable[[TensorView], TensorView | tuple[TensorView, ...]]:
    return lambda x: ops.var_mean(x, axes, correction)


CASES += [
    # an offset keeps the means away from 0, where a float32 sum's rounding is all of the (tiny) result
    OpCase("mean_inner", "reduction", row_normalization(lambda x: (ops.mean(x, [1]),)), ((5, 300),), offset=2.0),
    OpCase("mean_negative_dim_constant_extent", "reduction",
           row_normalization(lambda x: (ops.mean(x, -1),), hidden=77), ((5, 77),), offset=2.0),
    OpCase("mean_all_axes_serial", "reduction", lambda: _serial(lambda x: ops.mean(x, [0, -1])), ((3, 19),),
           offset=2.0),
    OpCase("mean_of_int", "reduction", lambda: _serial(lambda x: ops.mean(x, [1]), I32), ((4, 21),)),
    OpCase("size_as_scalar_operand", "reduction",
           pointwise((F,), lambda x: ops.add(ops.mul(x, x.size(1)), x.size(0))), ((3, 45),)),
    OpCase("var_mean_offset_1e4", "reduction", row_normalization(lambda x: ops.var_mean(x, [1])), ((6, 300),),
           tol=1e-5, offset=1.0e4),
    # (x - mean) of float32 values near 1e4 is off by up to 1e4 * 2^-24 * a few: the normalized output cannot
    # be better than 1e-3; the variance and mean still match to 1e-5
    OpCase("var_mean_persistent_normalize", "reduction", row_normalization(_normalize, persistent=True),
           ((5, 203),), tol=(2e-3, 1e-5, 1e-6), offset=1.0e4),
    OpCase("var_mean_population_constant_extent", "reduction",
           row_normalization(lambda x: ops.var_mean(x, 1, correction=0), hidden=100), ((5, 100),), offset=100.0),
    # reduced over the outer axis: the mean of each column waits in a register array of the constant width
    OpCase("var_mean_outer_serial", "reduction", lambda: _serial(_var_mean([0]), shape=(37, 6)), ((37, 6),),
           offset=1.0e3),
]


def _serial(math: Callable[[TensorView], TensorView | tuple[TensorView, ...]], dtype: DataType = F,
            shape: tuple[int, int] | None = None) -> Fusion:
    """``math`` of a 2-D input (symbolic extents, or ``shape``) in serial loops of one thread, every tensor
    inlined as far as it goes."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=dtype) if shape is None else fusion.add_input(shape=shape, dtype=dtype)
        outs = math(x)
        for o in outs if isinstance(outs, tuple) else (outs,):
            fusion.add_output(o)
    inline_most(fusion)
    return fusion


def _causal_mask(x: TensorView) -> TensorView:
    """``where(row >= col, x, -inf)`` from two iotas broadcast against ``x``."""
    rows = ops.broadcast(ops.iota(x.size(0)), [False, True])
    cols = ops.broadcast(ops.iota(x.size(1)), [True, False])
    return ops.where(ops.ge(rows, cols), x, float("-inf"))


def _no_inputs() -> Fusion:
    """An iota and a full of constant extents, a fusion of no inputs, on one block of threads."""
    fusion = Fusion()
    with fusion:
        ramp = ops.iota(100, start=3, step=-2, dtype=DataType.Int64)
        out = ops.add(ramp, ops.full([100], 7, DataType.Int64))
        fusion.add_output(out)
    out.split(0, 32)
    transform_like(out)
    out.axis(1).parallelize(ParallelType.TIDx)
    parallelize_like(out)
    inline_most(fusion)
    return fusion


CASES += [
    OpCase("iota_causal_mask", "factory", pointwise((F,), _causal_mask), ((37, 45),)),
    OpCase("iota_float_start_step", "factory",
           pointwise((F,), lambda x: ops.mul(x, ops.broadcast(ops.iota(x.size(1), 0.5, 0.25, DataType.Float),
                                                              [True, False]))), ((3, 70),)),
    OpCase("iota_and_full_without_inputs", "factory", _no_inputs, ()),
    OpCase("full_of_input_extents", "factory",
           pointwise((F,), lambda x: ops.add(x, ops.full([x.size(0), x.size(1)], 0.5, DataType.Float))), ((6, 33),)),
    OpCase("full_bool_and_int", "factory",
           pointwise((B,), lambda b: (ops.logical_and(b, ops.full([b.size(0), b.size(1)], True, DataType.Bool)),
                                      ops.add(ops.cast(b, DataType.Int32),
                                              ops.full([b.size(0), b.size(1)], -4, DataType.Int32)))),
           ((5, 40),)),
]


CASES += [
    OpCase("reshape_merge_symbolic", "reshape",
           pointwise((F,), lambda x: ops.exp(ops.reshape(x, [x.size(0), -1])), ranks=(3,)), ((4, 5, 7),), tol=1e-6),
    OpCase("reshape_split_by_constants", "reshape",
           pointwise((F,), lambda x: ops.reshape(ops.neg(x), [5, 3, 4, 7]), shapes=((5, 12, 7),)), ((5, 12, 7),)),
    OpCase("reshape_merge_then_split", "reshape",
           pointwise((F, F), lambda x, y: ops.add(ops.reshape(x, [4, 6]), y), shapes=((6, 4), (4, 6))),
           ((6, 4), (4, 6))),
    OpCase("reshape_unit_axes_and_minus_one", "reshape",
           pointwise((F,), lambda x: ops.reshape(ops.abs(x), [1, 5, -1, 3]), shapes=((5, 12),)), ((5, 12),)),
    OpCase("reshape_of_a_reduction", "reshape",
           lambda: _serial(lambda x: ops.reshape(ops.sum(x, [1]), [2, 3]), shape=(6, 9)), ((6, 9),), offset=1.0),
]


def case(name: str) -> OpCase:
    return next(c for c in CASES if c.name == name)
