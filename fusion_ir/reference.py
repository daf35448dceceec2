"""Evaluate a fusion's math with numpy in float64: the reference every schedule must match.

Floats compute in float64; integers and booleans compute as the generated CUDA does
(``fusion_ir.value_semantics``): booleans promote to integers and convert back (nonzero is true),
Int32 wraps at 32 bits, float-to-integer casts truncate, saturate and map NaN to 0.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .exprs import BinaryOp, BroadcastOp, CastOp, LoadStoreOp, MmaOp, ReductionOp, UnaryOp
from .fusion import Fusion
from .tensor_view import TensorView
from .types import DataType
from .value_semantics import to_bool, to_integer

UNARY = {
    "neg": np.negative, "exp": np.exp, "abs": np.abs, "relu": lambda x: np.maximum(x, 0),
    "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "log": np.log, "rsqrt": lambda x: 1 / np.sqrt(x),
    "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
}
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "maximum": np.maximum, "minimum": np.minimum,
}


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


def evaluate(fusion: Fusion, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Outputs of ``fusion`` for ``inputs`` from the inputs as their tensors hold them (bf16 and fp16
    inputs rounded to their precision): float outputs in float64, integer and boolean outputs in
    their own numpy dtype."""
    if len(inputs) != len(fusion.inputs):
        raise ValueError(f"expected {len(fusion.inputs)} inputs, got {len(inputs)}")
    env: dict[TensorView, np.ndarray] = {}
    for tv, x in zip(fusion.inputs, inputs):
        env[tv] = held(tv.dtype, as_stored(tv.dtype, np.asarray(x)))

    def get(x: object) -> object:
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
            with np.errstate(over="ignore"):
                r = BINARY[e.op](ins[0], ins[1])
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
        else:
            raise TypeError(type(e).__name__)
        env[out] = held(out.dtype, r)
    return [env[o] if o.dtype.is_float else env[o].astype(np.dtype(o.dtype.numpy_name)) for o in fusion.outputs]
