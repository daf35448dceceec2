"""Evaluate a fusion's math with numpy in float64: the reference every schedule must match.

Floats compute in float64; integers and booleans compute as the generated CUDA does
(``fusion_ir.value_semantics``): booleans promote to integers and convert back (nonzero is true),
Int32 wraps at 32 bits, float-to-integer casts truncate, saturate and map NaN to 0.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .exprs import (
    BinaryOp,
    BroadcastOp,
    CastOp,
    FullOp,
    IotaOp,
    LoadStoreOp,
    MmaOp,
    PadOp,
    ReductionOp,
    RescaledSumOp,
    ScanOp,
    UnaryOp,
    ViewOp,
    WhereOp,
)
from .fusion import Fusion
from .scalar import Val
from .scalar_input import ScalarInput, stored_scalar
from .tensor_view import TensorView
from .types import DataType
from .value_semantics import to_bool, to_integer

UNARY = {
    "neg": np.negative, "exp": np.exp, "abs": np.abs, "relu": lambda x: np.maximum(x, 0),
    "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "log": np.log, "rsqrt": lambda x: 1 / np.sqrt(x),
    "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "erf": lambda x: erf(x), "silu": lambda x: x / (1 + np.exp(-x)), "log1p": np.log1p, "expm1": np.expm1,
    "logical_not": np.logical_not,
}
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "pow": np.power,
    "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal, "eq": np.equal,
    "ne": np.not_equal, "logical_and": np.logical_and, "logical_or": np.logical_or,
}
_ERF = np.vectorize(math.erf, otypes=[np.float64])


def erf(x: Any) -> np.ndarray:
    """The error function elementwise (numpy has none; ``math.erf`` is correctly rounded in float64)."""
    a = np.asarray(x, dtype=np.float64)
    return _ERF(a) if a.size else a


def extent_values(fusion: Fusion, inputs: Sequence[np.ndarray]) -> dict[str, int]:
    """Each symbolic extent of the fusion's inputs bound to its size in ``inputs`` (``i0`` -> 7)."""
    env: dict[str, int] = {}
    for tv, x in zip(fusion.inputs, inputs):
        for i, n in zip(tv.shape_ids, np.shape(x)):
            if i.extent.is_symbol:
                env.setdefault(str(i.extent.name), int(n))
    return env


def shape_of(tv: TensorView, extents: dict[str, int]) -> tuple[int, ...]:
    """``tv``'s shape (reduction axes dropped) for the bound extents."""
    return tuple(int(i.extent.evaluate(extents)) for i in tv.shape_ids)


def round_bf16(x: object) -> np.ndarray:
    """Round float32 values to bfloat16 precision (round to nearest even), kept as float32."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, rounded)


def as_stored(dtype: DataType, x: np.ndarray) -> np.ndarray:
    """``x`` as a ``dtype`` tensor holds it: bf16 and fp16 inputs given as float32 are rounded."""
    if dtype is DataType.BFloat16:
        return round_bf16(x)
    if dtype is DataType.Half:
        return np.asarray(x, dtype=np.float32).astype(np.float16)
    return x


def held(dtype: DataType, x: object) -> np.ndarray:
    """``x`` as a ``dtype`` tensor of the evaluation holds it: float64 for floats; for integers and
    booleans the value the device stores (``value_semantics``), computed on as int64 (a Bool as
    0 or 1, the int C++ promotes it to)."""
    if dtype.is_float:
        return np.asarray(x).astype(np.float64)
    if dtype is DataType.Bool:
        return to_bool(x).astype(np.int64)
    with np.errstate(over="ignore", invalid="ignore"):
        return to_integer(dtype, x).astype(np.int64)


def _float_if_pow(op: str, operands: list) -> list:
    """``pow`` computes in float (numpy refuses integers to negative integer powers)."""
    if op != "pow":
        return operands
    return [np.asarray(x, dtype=np.float64) for x in operands]


def scan(e: ScanOp, x: np.ndarray) -> np.ndarray:
    """``e``'s running reduction of ``x`` along its axis (exclusive: shifted by one, ``e.init`` first)."""
    fn = np.maximum.accumulate if e.op == "max" else np.cumsum
    r = fn(x, axis=e.axis)
    if not e.exclusive:
        return r
    first = np.full_like(np.take(r, [0], axis=e.axis), e.init)
    return np.concatenate([first, np.take(r, np.arange(r.shape[e.axis] - 1), axis=e.axis)], axis=e.axis)


def rescaled_sum(x: np.ndarray, scale: np.ndarray, axis: int) -> np.ndarray:
    """``acc = acc * scale[j] + x[j]`` along ``axis`` from zero (``scale`` may broadcast against ``x``)."""
    x, scale = np.broadcast_arrays(x, scale)
    acc = np.zeros(np.take(x, 0, axis=axis).shape)
    with np.errstate(over="ignore", invalid="ignore"):
        for j in range(x.shape[axis]):
            acc = acc * np.take(scale, j, axis=axis) + np.take(x, j, axis=axis)
    return acc


def evaluate(fusion: Fusion, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Outputs of ``fusion`` for ``inputs`` from the inputs as their tensors hold them (bf16 and fp16
    inputs rounded to their precision): float outputs in float64, integer and boolean outputs in
    their own numpy dtype."""
    if len(inputs) != len(fusion.inputs):
        raise ValueError(f"expected {len(fusion.inputs)} inputs, got {len(inputs)}")
    env: dict[TensorView, np.ndarray] = {}
    extents = extent_values(fusion, inputs)
    for tv, x in zip(fusion.inputs, inputs):
        if isinstance(tv, ScalarInput):
            env[tv] = held(tv.dtype, stored_scalar(tv.dtype, x, str(tv)))
            continue
        env[tv] = held(tv.dtype, as_stored(tv.dtype, np.asarray(x)))

    def get(x: object) -> object:
        if isinstance(x, ScalarInput):
            return env[x]
        if isinstance(x, Val):
            return int(x.evaluate(extents))
        return env[x] if isinstance(x, TensorView) else x

    for e in fusion.exprs:
        out = e.output
        ins = [get(x) for x in e.inputs]
        if isinstance(e, LoadStoreOp):
            r = ins[0] if e.permutation is None else np.transpose(ins[0], e.permutation)
        elif isinstance(e, UnaryOp):
            r = UNARY[e.op](ins[0])
        elif isinstance(e, CastOp):
            r = ins[0]
        elif isinstance(e, BinaryOp):
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                r = BINARY[e.op](*_float_if_pow(e.op, ins))
        elif isinstance(e, WhereOp):
            r = np.where(np.asarray(ins[0]) != 0, ins[1], ins[2])
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
            r = ins[0]  # an rfactor partial: its consumer reduces the original axes
        elif isinstance(e, ReductionOp):
            fn = np.sum if e.op == "sum" else np.max
            r = fn(ins[0], axis=e.axes)
        elif isinstance(e, MmaOp):
            r = ins[0] @ ins[1]
        elif isinstance(e, PadOp):
            widths = [(int(b.evaluate(extents)), int(a.evaluate(extents))) for b, a in e.pads]
            r = np.pad(np.asarray(ins[0]), widths, constant_values=e.value)
        elif isinstance(e, ScanOp):
            r = scan(e, np.asarray(ins[0], dtype=np.float64 if out.dtype.is_float else None))
        elif isinstance(e, RescaledSumOp):
            r = rescaled_sum(*(np.asarray(x, dtype=np.float64) for x in ins), e.axis)
        else:
            raise TypeError(type(e).__name__)
        env[out] = held(out.dtype, r)
    return [env[o] if o.dtype.is_float else env[o].astype(np.dtype(o.dtype.numpy_name)) for o in fusion.outputs]
