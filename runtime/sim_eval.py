"""Evaluation in the simulator: index ``Val`` expressions and kernel IR values, per lane.

Index expressions are compiled to Python once per ``Val`` (``sim_values.compile_val``) and
evaluated on the context's symbols: Python ints where uniform, numpy arrays per lane otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fusion_ir.scalar import Val
from fusion_ir.value_semantics import promoted
from lowering import kernel_ir as k

from .errors import SimulationError
from .sim_memory import storage_dtype, to_dtype
from .sim_scheduler import Ctx
from .sim_values import BINARY, UNARY, compile_val, int_div


class Evaluation:
    """Per-lane values of index expressions and value trees for a ``Simulator``."""

    def _init_evaluation(self) -> None:
        self._compiled: dict[int, tuple[Val, Callable[[dict[str, Any]], Any]]] = {}

    def _value(self, v: k.Value, ctx: Ctx) -> Any:
        t = type(v)
        if t is k.Load:
            st = self._data_storage(v.buffer, f"a load of {v.buffer.name}")  # type: ignore[union-attr]
            idx = self._ev(v.index, ctx)  # type: ignore[union-attr]
            pos = st.positions(self.grid, ctx.lanes, idx,
                               lambda: f"a load of {v.buffer.name}[{v.index}]")  # type: ignore[union-attr]
            if st.wgmma_acc is not None:
                self._accumulator_load(st.wgmma_acc, pos, ctx.lanes)
            return st.read(pos)
        if t is k.Const:
            if v.dtype.is_float:  # type: ignore[union-attr]
                return to_dtype(v.dtype, np.float32(v.value))  # type: ignore[union-attr]
            return storage_dtype(v.dtype).type(v.value)  # type: ignore[union-attr]
        if t is k.UnaryValue:
            fn = UNARY.get(v.op)  # type: ignore[union-attr]
            if fn is None:
                raise SimulationError(f"unknown unary op {v.op!r}")  # type: ignore[union-attr]
            x = self._value(v.x, ctx)  # type: ignore[union-attr]
            if v.dtype.is_float:  # type: ignore[union-attr]
                return to_dtype(v.dtype, fn(np.asarray(x, dtype=np.float32)))  # type: ignore[union-attr]
            with np.errstate(over="ignore"):     # integers wrap (value_semantics)
                return to_dtype(v.dtype, fn(promoted(x)))  # type: ignore[union-attr]
        if t is k.BinaryValue:
            a, b = self._value(v.a, ctx), self._value(v.b, ctx)  # type: ignore[union-attr]
            if v.dtype.is_float:  # type: ignore[union-attr]
                a, b = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
                fn = BINARY.get(v.op)  # type: ignore[union-attr]
            else:
                fn = int_div if v.op == "div" else BINARY.get(v.op)  # type: ignore[union-attr]
            if fn is None:
                raise SimulationError(f"unknown binary op {v.op!r}")  # type: ignore[union-attr]
            if v.dtype.is_float:  # type: ignore[union-attr]
                return to_dtype(v.dtype, fn(a, b))  # type: ignore[union-attr]
            with np.errstate(over="ignore"):     # booleans compute as ints, integers wrap (value_semantics)
                return to_dtype(v.dtype, fn(promoted(a), promoted(b)))  # type: ignore[union-attr]
        if t is k.CastValue:
            return to_dtype(v.dtype, self._value(v.x, ctx))  # type: ignore[union-attr]
        raise SimulationError(f"the simulator cannot evaluate value {v!r:.200}")

    def _ev(self, v: Val, ctx: Ctx) -> Any:
        entry = self._compiled.get(id(v))
        if entry is None:
            entry = self._compiled[id(v)] = (v, compile_val(v))
        try:
            return entry[1](ctx.env)
        except KeyError as e:
            raise SimulationError(f"symbol {e.args[0]} is not bound while evaluating {v}") from None
        except ZeroDivisionError:
            raise SimulationError(f"division by zero while evaluating {v}") from None

    def _per_lane(self, v: Val, ctx: Ctx) -> np.ndarray:
        return np.broadcast_to(np.asarray(self._ev(v, ctx), dtype=np.int64), ctx.lanes.shape)
