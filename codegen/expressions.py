"""Printing of index/predicate ``Val`` trees and of kernel-IR value expressions as C++.

Index arithmetic is in the kernel's index type: int64 unless the fusion asked for int32
(``Fusion.set_index_type``; the executor checks that the tensors fit). Builtins such as
``threadIdx.x`` are unsigned in CUDA, so inside any arithmetic or comparison they print as
``((int64_t)threadIdx.x)`` (``((int)threadIdx.x)``; as nvFuser prints
``((nvfuser_index_t)threadIdx.x)``): ``threadIdx.x - 1`` must not wrap and ``blockIdx.x * 256``
must not overflow 32 bits. Values compute in their own C type; 16-bit floats compute in float
with explicit conversions. Boolean arithmetic computes in ``int`` (C++ promotes) and converts back
with ``static_cast<bool>`` so that a nested expression sees a bool; float-to-integer conversions
are ``__float2int_rz``/``__float2ll_rz`` (truncate, saturate, NaN -> 0: ``fusion_ir.value_semantics``),
never a C cast, which is undefined out of range.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from fusion_ir.scalar import Val
from fusion_ir.types import DataType
from lowering.kernel_ir import (
    BinaryValue,
    CastValue,
    CompareValue,
    Const,
    Load,
    ScalarParam,
    ScalarValue,
    SelectValue,
    UnaryValue,
    Value,
)

from .errors import CodegenError

BUILTIN_SYMBOLS = frozenset(
    f"{base}.{axis}" for base in ("threadIdx", "blockIdx", "blockDim", "gridDim") for axis in "xyz"
)


class BuiltinNames:
    """Names under which some builtins are read while a kernel prints (``threadIdx.y`` as ``tidY``), and which were."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = dict(names)
        self.used: set[str] = set()

    def read(self, builtin: str) -> str:
        name = self.names.get(builtin)
        if name is None:
            return builtin
        self.used.add(builtin)
        return name


_BUILTIN_NAMES: ContextVar[BuiltinNames] = ContextVar("builtin_names", default=BuiltinNames({}))


@contextmanager
def builtin_names(names: BuiltinNames) -> Iterator[BuiltinNames]:
    """Within the block every expression printed reads each builtin of ``names`` by its given name."""
    token = _BUILTIN_NAMES.set(names)
    try:
        yield names
    finally:
        _BUILTIN_NAMES.reset(token)


def builtin(name: str) -> str:
    """The C text that reads builtin ``name`` (``threadIdx.y``, or its warp-uniform copy where one is declared)."""
    return _BUILTIN_NAMES.get().read(name)


_INFIX = {
    "add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%",
    "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=",
    "and": "&&", "or": "||", "xor": "^", "shl": "<<",
}
_FUNCTIONS = {"ceilDiv": "ceilDiv", "min": "min64", "max": "max64"}
_FUNCTIONS_32 = {"ceilDiv": "ceilDiv32", "min": "min32", "max": "max32"}

HALF_TYPES = (DataType.Half, DataType.BFloat16)
_TO_FLOAT = {DataType.Half: "__half2float", DataType.BFloat16: "__bfloat162float"}
_FROM_FLOAT = {DataType.Half: "__float2half", DataType.BFloat16: "__float2bfloat16"}
# cvt.rzi.s32.f32 / cvt.rzi.s64.f32: round toward zero, saturate, NaN -> 0
_FLOAT_TO_INT = {DataType.Int32: "__float2int_rz", DataType.Int64: "__float2ll_rz"}


# ---------------------------------------------------------------- indices and predicates
def index_expr(v: Val, ctype: str = "int64_t") -> str:
    """A C expression for an index or extent, in the index type ``ctype`` (``int64_t`` or ``int``)."""
    if v.is_symbol:
        name = str(v.name)
        return builtin(name) if name in BUILTIN_SYMBOLS else name  # a lone builtin needs no cast
    return _val(v, top=True, ctype=ctype)


def cond_expr(v: Val, ctype: str = "int64_t") -> str:
    """A C condition, without outer parentheses (for ``if (...)``)."""
    if v.is_const:
        return "true" if v.value else "false"
    return index_expr(v, ctype)


def _val(v: Val, top: bool, ctype: str = "int64_t") -> str:
    op = v.op
    if op == "const":
        text = _int_literal(int(v.value))  # type: ignore[arg-type]
        return text if top or v.value >= 0 else f"({text})"  # type: ignore[operator]
    if op == "sym":
        name = str(v.name)
        if name in BUILTIN_SYMBOLS:
            return f"(({ctype}){builtin(name)})"
        return name
    if op == "not":
        return f"!{_val(v.args[0], top=False, ctype=ctype)}"
    if op in _FUNCTIONS:
        fn = (_FUNCTIONS_32 if ctype == "int" else _FUNCTIONS)[op]
        return f"{fn}({_val(v.args[0], top=True, ctype=ctype)}, {_val(v.args[1], top=True, ctype=ctype)})"
    if op in _INFIX:
        text = f"{_val(v.args[0], top=False, ctype=ctype)} {_INFIX[op]} {_val(v.args[1], top=False, ctype=ctype)}"
        return text if top else f"({text})"
    raise CodegenError(f"codegen: unknown scalar op {op!r} in {v}")


def _int_literal(n: int) -> str:
    return str(n) if -(2**31) <= n < 2**31 else f"{n}LL"


# ---------------------------------------------------------------- values
Access = Callable[[object, Val], str]  # (buffer, index) -> C lvalue text


def value_expr(v: Value, access: Access, want: DataType | None = None) -> str:
    """C text of ``v``, converted to ``want`` when given."""
    text, dtype, _ = _value(v, access)
    if want is not None and want != dtype:
        return convert(text, dtype, want)
    return text


def value_dtype(v: Value) -> DataType:
    if isinstance(v, Load):
        return v.buffer.dtype
    if isinstance(v, ScalarParam):
        return v.param_dtype
    return v.dtype


# Each printer returns (text, dtype, composite): composite text needs parentheses as an operand.
def _value(v: Value, access: Access) -> tuple[str, DataType, bool]:
    if isinstance(v, Load):
        return access(v.buffer, v.index), v.buffer.dtype, False
    if isinstance(v, Const):
        text = literal(v.value, v.dtype)
        return text, v.dtype, text.startswith("-")
    if isinstance(v, CastValue):
        text, dtype, composite = _value(v.x, access)
        if dtype == v.dtype:
            return text, dtype, composite
        return convert(text, dtype, v.dtype), v.dtype, False
    if isinstance(v, ScalarParam):
        # a scalar parameter by value; a 16-bit one arrives as float (its value rounded on the host)
        return v.name, v.param_dtype, False
    if isinstance(v, ScalarValue):
        # an extent or a loop-index expression, in the index type; the caller notes its symbols
        return index_expr(v.value), v.dtype, not (v.value.is_symbol or v.value.is_const)
    if isinstance(v, UnaryValue):
        return _unary(v, access)
    if isinstance(v, BinaryValue):
        return _binary(v, access)
    if isinstance(v, CompareValue):
        compute = _compute_type(v.operand_dtype)
        _, ap = _operand(v.a, access, compute)
        _, bp = _operand(v.b, access, compute)
        return f"{ap} {_INFIX[v.op]} {bp}", DataType.Bool, True
    if isinstance(v, SelectValue):
        return _select(v, access)
    raise CodegenError(f"codegen: unknown value node {type(v).__name__}: {v!r}")


def _compute_type(dtype: DataType) -> DataType:
    """16-bit floats compute in float."""
    return DataType.Float if dtype in HALF_TYPES else dtype


def _operand(v: Value, access: Access, compute: DataType) -> tuple[str, str]:
    """(text, text usable as an operand of an infix operator) of ``v`` converted to ``compute``."""
    if isinstance(v, Const) and v.dtype in HALF_TYPES and compute == DataType.Float:
        # A 16-bit constant used in float math: its rounded value as a float literal.
        text = literal(round_to(v.dtype, float(v.value)), DataType.Float)
        return text, f"({text})" if text.startswith("-") else text
    text, dtype, composite = _value(v, access)
    if dtype != compute:
        text = convert(text, dtype, compute)
        composite = False
    return text, f"({text})" if composite else text


def round_to(dtype: DataType, value: float) -> float:
    """``value`` rounded to the nearest ``dtype`` (Half or BFloat16), as the device would store it."""
    if dtype == DataType.Half:
        with np.errstate(over="ignore"):
            return float(np.float16(value))
    if not math.isfinite(value):
        return value
    with np.errstate(over="ignore"):
        bits = int(np.array(value, dtype=np.float32).view(np.uint32))
    bits += 0x7FFF + ((bits >> 16) & 1)  # round to nearest even
    return float(np.array(bits & 0xFFFF0000, dtype=np.uint32).view(np.float32))


def _unary(v: UnaryValue, access: Access) -> tuple[str, DataType, bool]:
    compute = _compute_type(v.dtype)
    x, xp = _operand(v.x, access, compute)
    if compute == DataType.Float:
        text = {
            "neg": f"-{xp}",
            "exp": f"expf({x})",
            "exp_approx": f"exp2f(1.4426950408889634f * {xp})",   # within 2 ulp (lowering/precision.py)
            "abs": f"fabsf({x})",
            "relu": f"fmaxf({x}, 0.0f)",
            "sqrt": f"sqrtf({x})",
            "sin": f"sinf({x})",
            "cos": f"cosf({x})",
            "log": f"logf({x})",
            "rsqrt": f"rsqrtf({x})",
            "tanh": f"tanhf({x})",
            "tanh_approx": f"tanhApprox({x})",      # tanh.approx.f32 (lowering/precision.py)
            "sigmoid": f"1.0f / (1.0f + expf(-{xp}))",
            "erf": f"erff({x})",
            "silu": f"{xp} / (1.0f + expf(-{xp}))",
            "log1p": f"log1pf({x})",
            "expm1": f"expm1f({x})",
        }.get(v.op)
        composite = v.op in ("neg", "sigmoid", "silu")
    else:
        text = {"neg": f"-{xp}", "abs": f"{xp} < 0 ? -{xp} : {xp}", "relu": f"{xp} > 0 ? {xp} : 0",
                "logical_not": f"!{xp}"}.get(v.op)
        composite = True
    if text is None:
        raise CodegenError(f"codegen: unary op {v.op!r} is not supported on {v.dtype.name}; cast to Float first")
    if compute == DataType.Bool:
        return _as_bool(text)
    return _narrow(text, composite, compute, v.dtype)


def _binary(v: BinaryValue, access: Access) -> tuple[str, DataType, bool]:
    compute = _compute_type(v.dtype)
    a, ap = _operand(v.a, access, compute)
    b, bp = _operand(v.b, access, compute)
    if v.op in ("maximum", "minimum") and compute == DataType.Float:
        return _narrow(f"{'fmaxf' if v.op == 'maximum' else 'fminf'}({a}, {b})", False, compute, v.dtype)
    if v.op == "pow" and compute == DataType.Float:
        return _narrow(f"powf({a}, {b})", False, compute, v.dtype)
    if v.op in ("maximum", "minimum"):
        text = f"{ap} {'>' if v.op == 'maximum' else '<'} {bp} ? {ap} : {bp}"
    elif v.op in ("add", "sub", "mul", "div"):
        text = f"{ap} {_INFIX[v.op]} {bp}"
    elif v.op in ("logical_and", "logical_or"):
        text = f"{ap} {'&&' if v.op == 'logical_and' else '||'} {bp}"
    else:
        raise CodegenError(f"codegen: unknown binary op {v.op!r}")
    if compute == DataType.Bool:
        return _as_bool(text)
    return _narrow(text, True, compute, v.dtype)


def _select(v: SelectValue, access: Access) -> tuple[str, DataType, bool]:
    compute = _compute_type(v.dtype)
    _, cp = _operand(v.cond, access, DataType.Bool)
    _, ap = _operand(v.a, access, compute)
    _, bp = _operand(v.b, access, compute)
    return _narrow(f"{cp} ? {ap} : {bp}", True, compute, v.dtype)


def _as_bool(text: str) -> tuple[str, DataType, bool]:
    """Boolean arithmetic is ``int`` arithmetic in C++: converted back so an enclosing expression
    (a cast, another op) sees the bool, nonzero being true."""
    return f"static_cast<bool>({text})", DataType.Bool, False


def _narrow(text: str, composite: bool, compute: DataType, dtype: DataType) -> tuple[str, DataType, bool]:
    if compute == dtype:
        return text, dtype, composite
    return convert(text, compute, dtype), dtype, False


def convert(text: str, src: DataType, dst: DataType) -> str:
    """C text converting ``text`` (any expression) of type ``src`` to ``dst``."""
    if src == dst:
        return text
    if src in HALF_TYPES:
        text = f"{_TO_FLOAT[src]}({text})"
        src = DataType.Float
        if dst == DataType.Float:
            return text
    if dst in HALF_TYPES:
        if src != DataType.Float:
            text = f"static_cast<float>({text})"
        return f"{_FROM_FLOAT[dst]}({text})"
    if src == DataType.Float and dst in _FLOAT_TO_INT:
        return f"{_FLOAT_TO_INT[dst]}({text})"
    return f"static_cast<{dst.ctype}>({text})"


def literal(value: float, dtype: DataType, top: bool = True) -> str:
    """A C literal of ``dtype``; non-finite floats are written through their bit patterns."""
    if dtype == DataType.Bool:
        return "true" if value else "false"
    if dtype == DataType.Int32:
        text = str(int(value))
    elif dtype == DataType.Int64:
        text = f"{int(value)}LL"
    elif dtype.is_float:
        text = _float_literal(float(value))
        if dtype in HALF_TYPES:
            return f"{_FROM_FLOAT[dtype]}({text})"
    else:
        raise CodegenError(f"codegen: no literal for {dtype.name}")
    if text.startswith("-") and not top:
        return f"({text})"
    return text


def _float_literal(f: float) -> str:
    if math.isnan(f):
        return "__uint_as_float(0x7fffffffu)"
    with np.errstate(over="ignore"):
        f32 = np.float32(f)
    if np.isinf(f32):
        return "__uint_as_float(0x7f800000u)" if f32 > 0 else "__uint_as_float(0xff800000u)"
    if f32 == 0:
        return "-0.0f" if math.copysign(1.0, f) < 0 else "0.0f"
    text = repr(f)
    if "." not in text and "e" not in text:
        text += ".0"
    return text + "f"
