"""codegen.expressions: int64 index printing, predicates, literals and conversions."""

from __future__ import annotations

import pytest

from codegen.expressions import cond_expr, convert, index_expr, literal, round_to, value_expr
from fusion_ir.scalar import Val, ceil_div, logical_not, vmax, vmin
from fusion_ir.types import DataType
from lowering import kernel_ir as k

TX, I0, I5 = Val.symbol("threadIdx.x"), Val.symbol("i0"), Val.symbol("i5")


def test_builtins_are_cast_to_int64_inside_arithmetic_only() -> None:
    assert index_expr(TX) == "threadIdx.x"
    assert index_expr(TX - 1) == "((int64_t)threadIdx.x) - 1"
    assert index_expr(Val.symbol("blockIdx.x") * 256 + TX) == "(((int64_t)blockIdx.x) * 256) + ((int64_t)threadIdx.x)"
    assert cond_expr(TX.ge(0)) == "((int64_t)threadIdx.x) >= 0"


def test_functions_and_operators() -> None:
    assert index_expr(ceil_div(I0, 128)) == "ceilDiv(i0, 128)"
    assert index_expr(vmin(I0, I5 * 4)) == "min64(i0, i5 * 4)"
    assert index_expr(vmax(I0, 3)) == "max64(i0, 3)"
    assert index_expr((I5 + 2) % 3) == "(i5 + 2) % 3"
    assert index_expr(I5 // 3) == "i5 / 3"
    assert index_expr(Val.const(2**40) * I5) == "1099511627776LL * i5"


def test_predicates() -> None:
    assert cond_expr(Val.const(1)) == "true"
    assert cond_expr(Val.const(0)) == "false"
    assert cond_expr(I5.lt(I0).logical_and(TX.eq(0))) == "(i5 < i0) && (((int64_t)threadIdx.x) == 0)"
    assert cond_expr(logical_not(I5.lt(I0))) == "!(i5 < i0)"
    assert cond_expr(I5.lt(I0).logical_or(I5.eq(3))) == "(i5 < i0) || (i5 == 3)"


def test_literals() -> None:
    assert literal(2, DataType.Int32) == "2"
    assert literal(2, DataType.Int64) == "2LL"
    assert literal(True, DataType.Bool) == "true"
    assert literal(0.5, DataType.Half) == "__float2half(0.5f)"
    assert literal(-0.0, DataType.Float) == "-0.0f"
    assert literal(-1.5, DataType.Float, top=False) == "(-1.5f)"
    assert literal(float("-inf"), DataType.Float) == "__uint_as_float(0xff800000u)"


def test_conversions() -> None:
    assert convert("x", DataType.Half, DataType.Float) == "__half2float(x)"
    assert convert("x", DataType.Float, DataType.BFloat16) == "__float2bfloat16(x)"
    assert convert("x", DataType.Half, DataType.BFloat16) == "__float2bfloat16(__half2float(x))"
    assert convert("x", DataType.Int32, DataType.Half) == "__float2half(static_cast<float>(x))"
    assert convert("x", DataType.Float, DataType.Int32) == "__float2int_rz(x)"     # saturates, NaN -> 0
    assert round_to(DataType.Half, 0.1) == pytest.approx(0.0999755859375)
    assert round_to(DataType.BFloat16, 0.1) == pytest.approx(0.10009765625)


def test_value_expressions() -> None:
    buf = k.Buffer("T3", DataType.Float, k.MemoryType.Local, Val.const(4))
    access = lambda b, idx: f"{b.name}[{idx}]"
    x = k.Load(buf, I5)
    f = DataType.Float
    assert value_expr(k.BinaryValue("sub", x, k.BinaryValue("mul", x, x, f), f), access) == "T3[i5] - (T3[i5] * T3[i5])"
    assert value_expr(k.UnaryValue("neg", k.UnaryValue("neg", x, f), f), access) == "-(-T3[i5])"
    assert value_expr(k.UnaryValue("sigmoid", x, f), access) == "1.0f / (1.0f + expf(-T3[i5]))"
    assert value_expr(k.BinaryValue("maximum", x, k.Const(0.0, f), f), access) == "fmaxf(T3[i5], 0.0f)"
    i32 = DataType.Int32
    assert value_expr(k.BinaryValue("maximum", k.CastValue(x, i32), k.Const(3, i32), i32), access) == \
        "__float2int_rz(T3[i5]) > 3 ? __float2int_rz(T3[i5]) : 3"
    assert value_expr(x, access, want=DataType.Half) == "__float2half(T3[i5])"
    assert value_expr(x, access, want=DataType.Int64) == "__float2ll_rz(T3[i5])"


def test_boolean_arithmetic_converts_back_to_bool_inside_an_expression() -> None:
    """``(int)(a + b)`` of booleans: without the conversion the C++ int sum (2) would leak out."""
    b = k.Load(k.Buffer("T4", DataType.Bool, k.MemoryType.Local, Val.const(4)), I5)
    access = lambda buf, idx: f"{buf.name}[{idx}]"
    total = k.BinaryValue("add", b, b, DataType.Bool)
    assert value_expr(k.CastValue(total, DataType.Int32), access) == \
        "static_cast<int>(static_cast<bool>(T4[i5] + T4[i5]))"
    assert value_expr(k.BinaryValue("mul", total, b, DataType.Bool), access) == \
        "static_cast<bool>(static_cast<bool>(T4[i5] + T4[i5]) * T4[i5])"


def test_a_builtin_given_a_name_prints_under_it_and_is_noted() -> None:
    from codegen.expressions import BuiltinNames, builtin_names

    ty = Val.symbol("threadIdx.y")
    names = BuiltinNames({"threadIdx.y": "tidY"})
    with builtin_names(names):
        assert index_expr(ty) == "tidY"
        assert index_expr(ty * 4096 + TX, "int") == "(((int)tidY) * 4096) + ((int)threadIdx.x)"
        assert names.used == {"threadIdx.y"}
    assert index_expr(ty * 2) == "((int64_t)threadIdx.y) * 2"      # outside the block: the builtin itself
