"""Symbolic integer scalars: folding, identities, printing and evaluation (fusion_ir/scalar.py)."""

import numpy as np
import pytest

from fusion_ir import Val, ceil_div
from fusion_ir.scalar import all_of, as_val, logical_not, vmax, vmin

i0 = Val.symbol("i0")
i1 = Val.symbol("i1")


def test_constants_fold():
    assert ceil_div(256, 32) == Val.const(8)
    assert ceil_div(257, 32) == Val.const(9)
    assert Val.const(3) * 4 + 1 == Val.const(13)
    assert Val.const(7) // 2 == Val.const(3)
    assert Val.const(7) % 4 == Val.const(3)
    assert vmin(3, 5) == Val.const(3) and vmax(3, 5) == Val.const(5)
    assert Val.const(2).lt(3) == Val.const(1)


def test_identities_are_dropped():
    assert i0 * 1 == i0
    assert 1 * i0 == i0
    assert i0 + 0 == i0
    assert i0 - 0 == i0
    assert i0 * 0 == Val.const(0)
    assert i0 - i0 == Val.const(0)
    assert i0 // 1 == i0
    assert i0 % 1 == Val.const(0)
    assert ceil_div(i0, 1) == i0
    assert (i0 * 8) // 8 == i0
    assert (i0 * 8) % 8 == Val.const(0)


def test_constant_chains_combine():
    assert (i0 + 2) + 3 == i0 + 5
    assert (i0 * 2) * 4 == i0 * 8


def test_logic_folds():
    assert Val.const(1).logical_and(i0.lt(4)) == i0.lt(4)
    assert Val.const(0).logical_and(i0.lt(4)) == Val.const(0)
    assert Val.const(1).logical_or(i0.lt(4)) == Val.const(1)
    assert logical_not(logical_not(i0.lt(4))) == i0.lt(4)
    assert logical_not(Val.const(0)) == Val.const(1)
    assert all_of([]) == Val.const(1)
    assert all_of([i0.lt(4), i0.lt(4)]) == i0.lt(4)


def test_printing_is_exact():
    assert str(ceil_div(i1, 256)) == "ceilDiv(i1, 256)"
    assert str(i0 * i1) == "i0 * i1"
    assert str((i0 + 1) * 2) == "(i0 + 1) * 2"
    assert str(ceil_div(i0 * i1, 128)) == "ceilDiv(i0 * i1, 128)"
    assert str(i0.lt(ceil_div(i1, 4)).logical_and(i1.ge(0))) == "(i0 < ceilDiv(i1, 4)) && (i1 >= 0)"
    assert str(logical_not(i0.eq(0))) == "!(i0 == 0)"
    assert str(vmin(i0, 16)) == "min(i0, 16)"
    assert repr(i0 + 1) == "Val(i0 + 1)"


def test_evaluate_binds_symbols():
    e = ceil_div(i0 * i1, 256) + i0 % 3
    assert e.evaluate({"i0": 10, "i1": 100}) == (1000 + 255) // 256 + 1
    idx = np.arange(6)
    got = (Val.symbol("t") * 2).lt(7).evaluate({"t": idx})
    assert got.tolist() == [True, True, True, True, False, False]


def test_evaluate_unbound_symbol_names_it():
    with pytest.raises(KeyError, match="i1"):
        (i0 + i1).evaluate({"i0": 1})


def test_substitute_refolds():
    e = ceil_div(i1, 256) * i0
    assert e.substitute({"i1": Val.const(1024)}) == Val.const(4) * i0
    assert e.substitute({"i1": Val.const(1024), "i0": Val.const(2)}) == Val.const(8)
    assert e.symbols() == {"i0", "i1"}


def test_structural_equality_and_hash():
    assert ceil_div(i1, 256) == ceil_div(Val.symbol("i1"), 256)
    assert len({ceil_div(i1, 256), ceil_div(Val.symbol("i1"), 256)}) == 1
    assert i0 + 1 != i1 + 1


def test_truth_value_is_refused():
    with pytest.raises(TypeError):
        bool(i0.lt(3))


def test_bad_constants_and_division_by_zero():
    with pytest.raises(TypeError):
        Val.const(1.5)
    with pytest.raises(ZeroDivisionError):
        ceil_div(4, 0)
    assert as_val(True) == Val.const(1)
    assert Val.const(np.int64(4)).const_value() == 4


def test_a_multiple_of_the_modulus_adds_nothing_to_the_remainder() -> None:
    x, y = Val.symbol("x"), Val.symbol("y")
    assert str(((x // 3) * 128 + y * 64) % 128) == "(y * 64) % 128"
    assert str((x * 64 + y * 16) % 64) == "(y * 16) % 64"
    assert ((x * 4 + 2) % 4).const_value() == 2
    assert str((x * 6 + y) % 4) == "((x * 6) + y) % 4"       # 6 x is not a multiple of 4
    for xv in range(5):
        for yv in range(5):
            env = {"x": xv, "y": yv}
            assert ((x * 8 + y * 3 + 5) % 4).evaluate(env) == (xv * 8 + yv * 3 + 5) % 4


def test_a_left_shift_folds_drops_its_identities_prints_and_evaluates():
    """``shl``: a cluster's multicast mask shifted by the block's rank (``3 << ((blockIdx.y % 2) * 2)``)."""
    assert Val.const(3).shl(2) == Val.const(12)
    assert i0.shl(0) == i0 and Val.const(0).shl(i0) == Val.const(0)
    mask = Val.const(3).shl((i0 % 2) * 2)
    assert str(mask) == "3 << ((i0 % 2) * 2)"
    assert mask.evaluate({"i0": 3}) == 12
    assert list(mask.evaluate({"i0": np.array([0, 1, 2])})) == [3, 12, 3]
    assert mask.substitute({"i0": Val.const(1)}) == Val.const(12)
