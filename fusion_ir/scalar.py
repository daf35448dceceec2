"""Symbolic integer scalars: extents, indices and predicates.

A ``Val`` is an immutable expression tree over integer constants and named symbols
(``i0``, ``threadIdx.x``, loop indices). Construction folds constants and drops
identities, so ``ceilDiv(256, 32)`` is ``8`` and ``i0 * 1`` is ``i0``. The same type
carries the index and predicate expressions of the kernel IR.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Union

import numpy as np

IntLike = Union["Val", int]

_BINARY_SYMBOLS = {
    "add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%",
    "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=",
    "and": "&&", "or": "||", "xor": "^", "shl": "<<",
}
_FUNCTIONS = {"ceilDiv", "min", "max"}


@dataclass(frozen=True)
class Val:
    op: str                       # const | sym | add | sub | mul | div | mod | ceilDiv | min | max | lt .. | not
    args: tuple["Val", ...] = ()
    value: int | None = None      # for const
    name: str | None = None       # for sym

    # ---- construction -------------------------------------------------
    @staticmethod
    def const(value: int | bool) -> "Val":
        if isinstance(value, (bool, np.bool_)):
            return Val("const", value=int(bool(value)))
        if not isinstance(value, (int, np.integer)):
            raise TypeError(f"Val.const needs an integer, got {value!r}")
        return Val("const", value=int(value))

    @staticmethod
    def symbol(name: str) -> "Val":
        return Val("sym", name=name)

    @property
    def is_const(self) -> bool:
        return self.op == "const"

    @property
    def is_symbol(self) -> bool:
        return self.op == "sym"

    def const_value(self) -> int | None:
        return self.value if self.op == "const" else None

    # ---- arithmetic ---------------------------------------------------
    def __add__(self, other: IntLike) -> "Val":
        return _binary("add", self, as_val(other))

    def __radd__(self, other: IntLike) -> "Val":
        return _binary("add", as_val(other), self)

    def __sub__(self, other: IntLike) -> "Val":
        return _binary("sub", self, as_val(other))

    def __rsub__(self, other: IntLike) -> "Val":
        return _binary("sub", as_val(other), self)

    def __mul__(self, other: IntLike) -> "Val":
        return _binary("mul", self, as_val(other))

    def __rmul__(self, other: IntLike) -> "Val":
        return _binary("mul", as_val(other), self)

    def __floordiv__(self, other: IntLike) -> "Val":
        return _binary("div", self, as_val(other))

    def __mod__(self, other: IntLike) -> "Val":
        return _binary("mod", self, as_val(other))

    # ---- comparisons and logic (named, so == stays structural) --------
    def lt(self, other: IntLike) -> "Val":
        return _binary("lt", self, as_val(other))

    def le(self, other: IntLike) -> "Val":
        return _binary("le", self, as_val(other))

    def gt(self, other: IntLike) -> "Val":
        return _binary("gt", self, as_val(other))

    def ge(self, other: IntLike) -> "Val":
        return _binary("ge", self, as_val(other))

    def eq(self, other: IntLike) -> "Val":
        return _binary("eq", self, as_val(other))

    def ne(self, other: IntLike) -> "Val":
        return _binary("ne", self, as_val(other))

    def logical_and(self, other: IntLike) -> "Val":
        return _binary("and", self, as_val(other))

    def bit_xor(self, other: IntLike) -> "Val":
        """Bitwise exclusive or of two non-negative integers (shared-memory swizzles)."""
        return _binary("xor", self, as_val(other))

    def logical_or(self, other: IntLike) -> "Val":
        return _binary("or", self, as_val(other))

    def shl(self, other: IntLike) -> "Val":
        """A non-negative integer shifted left by ``other`` bits (a cluster's multicast mask of ranks)."""
        return _binary("shl", self, as_val(other))

    # ---- inspection ---------------------------------------------------
    def symbols(self) -> set[str]:
        if self.op == "sym":
            return {self.name}  # type: ignore[arg-type]
        out: set[str] = set()
        for a in self.args:
            out |= a.symbols()
        return out

    def substitute(self, mapping: Mapping[str, "Val"]) -> "Val":
        if self.op == "sym":
            return mapping.get(self.name, self)  # type: ignore[arg-type]
        if self.op == "const":
            return self
        args = [a.substitute(mapping) for a in self.args]
        return _rebuild(self.op, args)

    def evaluate(self, env: Mapping[str, Any]) -> Any:
        """Evaluate with symbols bound in ``env``; values may be ints or numpy arrays."""
        op = self.op
        if op == "const":
            return self.value
        if op == "sym":
            try:
                return env[self.name]  # type: ignore[index]
            except KeyError:
                raise KeyError(f"symbol {self.name} is not bound") from None
        if op == "not":
            return np.logical_not(self.args[0].evaluate(env))
        a = self.args[0].evaluate(env)
        b = self.args[1].evaluate(env)
        return _EVAL[op](a, b)

    def __str__(self) -> str:
        return _to_str(self, top=True)

    def __repr__(self) -> str:
        return f"Val({self})"

    def __bool__(self) -> bool:
        raise TypeError("a symbolic Val has no truth value; use const_value() or evaluate()")


def _c_div(a: Any, b: Any) -> Any:
    return a // b


_EVAL = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": _c_div,
    "mod": lambda a, b: a % b,
    "ceilDiv": lambda a, b: (a + b - 1) // b,
    "min": lambda a, b: np.minimum(a, b),
    "max": lambda a, b: np.maximum(a, b),
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "and": lambda a, b: np.logical_and(a, b),
    "or": lambda a, b: np.logical_or(a, b),
    "xor": lambda a, b: np.bitwise_xor(a, b),
    "shl": lambda a, b: np.left_shift(a, b),
}


def as_val(x: IntLike) -> Val:
    if isinstance(x, Val):
        return x
    return Val.const(x)


def ceil_div(a: IntLike, b: IntLike) -> Val:
    return _binary("ceilDiv", as_val(a), as_val(b))


def vmin(a: IntLike, b: IntLike) -> Val:
    return _binary("min", as_val(a), as_val(b))


def vmax(a: IntLike, b: IntLike) -> Val:
    return _binary("max", as_val(a), as_val(b))


def logical_not(a: Val) -> Val:
    if a.is_const:
        return Val.const(not a.value)
    if a.op == "not":
        return a.args[0]
    return Val("not", (a,))


def all_of(conds: list[Val]) -> Val:
    out = Val.const(True)
    for c in conds:
        out = out.logical_and(c)
    return out


TRUE = Val.const(1)


def _rebuild(op: str, args: list[Val]) -> Val:
    if op == "not":
        return logical_not(args[0])
    return _binary(op, args[0], args[1])


def _binary(op: str, a: Val, b: Val) -> Val:
    av, bv = a.const_value(), b.const_value()
    if av is not None and bv is not None:
        if op in ("div", "mod", "ceilDiv") and bv == 0:
            raise ZeroDivisionError(f"{op}({av}, 0)")
        return Val.const(int(_EVAL[op](av, bv)))
    simplified = _simplify(op, a, b, av, bv)
    if simplified is not None:
        return simplified
    return Val(op, (a, b))


def _simplify(op: str, a: Val, b: Val, av: int | None, bv: int | None) -> Val | None:
    if op == "add":
        if av == 0:
            return b
        if bv == 0:
            return a
        # (x + c1) + c2 -> x + (c1 + c2)
        if bv is not None and a.op == "add" and a.args[1].is_const:
            return a.args[0] + (a.args[1].value + bv)
    elif op == "sub":
        if bv == 0:
            return a
        if a == b:
            return Val.const(0)
    elif op == "mul":
        if av == 0 or bv == 0:
            return Val.const(0)
        if av == 1:
            return b
        if bv == 1:
            return a
        if bv is not None and a.op == "mul" and a.args[1].is_const:
            return a.args[0] * (a.args[1].value * bv)
    elif op == "div":
        if bv == 1:
            return a
        if av == 0:
            return Val.const(0)
        # (x * c) / c -> x
        if bv is not None and a.op == "mul" and a.args[1].const_value() == bv:
            return a.args[0]
    elif op == "mod":
        if bv == 1:
            return Val.const(0)
        if av == 0:
            return Val.const(0)
        if bv is not None and a.op == "mul" and a.args[1].const_value() == bv:
            return Val.const(0)
        # (x * (k d) + y) % d -> y % d: index values are never negative, so a multiple of d adds
        # nothing to the remainder (this keeps divisions by runtime extents out of offsets that only
        # need the position inside a tile)
        if bv is not None and bv > 0 and a.op == "add":
            terms = _addends(a)
            kept = [t for t in terms if not _multiple_of(t, bv)]
            if len(kept) < len(terms):
                rest = Val.const(0)
                for t in kept:
                    rest = rest + t
                return rest % bv
    elif op == "ceilDiv":
        if bv == 1:
            return a
    elif op == "and":
        if av is not None:
            return b if av else Val.const(0)
        if bv is not None:
            return a if bv else Val.const(0)
        if a == b:
            return a
    elif op == "or":
        if av is not None:
            return Val.const(1) if av else b
        if bv is not None:
            return Val.const(1) if bv else a
    elif op == "xor":
        if bv == 0:
            return a
        if av == 0:
            return b
    elif op == "shl":
        if bv == 0 or av == 0:
            return a
    elif op in ("min", "max") and a == b:
        return a
    return None


def _addends(v: Val) -> list[Val]:
    if v.op == "add":
        return _addends(v.args[0]) + _addends(v.args[1])
    return [v]


def _multiple_of(v: Val, d: int) -> bool:
    """True when ``v`` is a multiple of ``d`` for every value of its symbols."""
    c = v.const_value()
    if c is not None:
        return c % d == 0
    if v.op == "mul":
        return any(_multiple_of(x, d) for x in v.args)
    if v.op == "add":
        return all(_multiple_of(x, d) for x in v.args)
    return False


def _to_str(v: Val, top: bool = False) -> str:
    if v.op == "const":
        return str(v.value)
    if v.op == "sym":
        return v.name  # type: ignore[return-value]
    if v.op == "not":
        return f"!{_to_str(v.args[0])}"
    if v.op in _FUNCTIONS:
        return f"{v.op}({_to_str(v.args[0], True)}, {_to_str(v.args[1], True)})"
    text = f"{_to_str(v.args[0])} {_BINARY_SYMBOLS[v.op]} {_to_str(v.args[1])}"
    return text if top else f"({text})"
