"""Evaluation in the simulator: index ``Val`` expressions and kernel IR values, per lane.

Index expressions are compiled to Python once per ``Val`` (``sim_values.compile_val``) and
evaluated on the context's symbols: Python ints where uniform, numpy arrays per lane otherwise. ``Let``
binds a symbol in the symbols of its scope.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fusion_ir.scalar import Val
from fusion_ir.types import DataType
from fusion_ir.value_semantics import promoted
from lowering import kernel_ir as k

from .errors import SimulationError
from .sim_memory import Grid, Memory, storage_dtype, to_dtype
from .sim_tasks import Ctx, Handler
from .sim_values import BINARY, COMPARE, UNARY, compile_val, int_div
from .sim_wgmma_state import WgmmaState


class Evaluator:
    """Per-lane values of index expressions and value trees: loads read ``memory``, and a load of wgmma
    accumulator registers is recorded for ``wgmma``'s fence check."""

    def __init__(self, grid: Grid, memory: Memory, wgmma: WgmmaState) -> None:
        self.grid = grid
        self.memory = memory
        self.wgmma = wgmma
        self._compiled: dict[int, tuple[Val, Callable[[dict[str, Any]], Any]]] = {}

    def handles(self) -> dict[type, Handler]:
        return {k.Let: self.let}

    def let(self, node: k.Let, ctx: Ctx, i: int) -> None:
        """Bind the name in this scope's symbols (again on each pass through the scope); a loop's body
        sees it through its copy of them."""
        ctx.env[node.name] = self.ev(node.value, ctx)

    def value(self, v: k.Value, ctx: Ctx) -> Any:
        t = type(v)
        if t is k.Load:
            st = self.memory.data_storage(v.buffer, f"a load of {v.buffer.name}")  # type: ignore[union-attr]
            idx = self.ev(v.index, ctx)  # type: ignore[union-attr]
            pos = st.positions(self.grid, ctx.lanes, idx,
                               lambda: f"a load of {v.buffer.name}[{v.index}]")  # type: ignore[union-attr]
            if st.wgmma_acc is not None:
                self.wgmma.accumulator_load(st.wgmma_acc, pos, ctx.lanes)
            if st.grid_sync is not None:
                st.grid_sync.partial_read(st, pos, ctx.lanes, lambda: f"a load of {v.buffer.name}[{v.index}]")
            return st.read(pos)
        if t is k.Const:
            if v.dtype.is_float:  # type: ignore[union-attr]
                return to_dtype(v.dtype, np.float32(v.value))  # type: ignore[union-attr]
            return storage_dtype(v.dtype).type(v.value)  # type: ignore[union-attr]
        if t is k.UnaryValue:
            fn = UNARY.get(v.op)  # type: ignore[union-attr]
            if fn is None:
                raise SimulationError(f"unknown unary op {v.op!r}")  # type: ignore[union-attr]
            x = self.value(v.x, ctx)  # type: ignore[union-attr]
            if v.dtype.is_float:  # type: ignore[union-attr]
                return to_dtype(v.dtype, fn(np.asarray(x, dtype=np.float32)))  # type: ignore[union-attr]
            with np.errstate(over="ignore"):     # integers wrap (value_semantics)
                return to_dtype(v.dtype, fn(promoted(x)))  # type: ignore[union-attr]
        if t is k.BinaryValue:
            a, b = self.value(v.a, ctx), self.value(v.b, ctx)  # type: ignore[union-attr]
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
            return to_dtype(v.dtype, self.value(v.x, ctx))  # type: ignore[union-attr]
        if t is k.ScalarParam:
            return to_dtype(v.dtype, ctx.env[v.name])  # type: ignore[union-attr]
        if t is k.ScalarValue:
            return to_dtype(v.dtype, self.ev(v.value, ctx))  # type: ignore[union-attr]
        if t is k.CompareValue:
            return self._compare(v, ctx)  # type: ignore[arg-type]
        if t is k.SelectValue:
            cond = to_dtype(DataType.Bool, self.value(v.cond, ctx))  # type: ignore[union-attr]
            a = to_dtype(v.dtype, self.value(v.a, ctx))  # type: ignore[union-attr]
            b = to_dtype(v.dtype, self.value(v.b, ctx))  # type: ignore[union-attr]
            return np.where(cond, a, b).astype(storage_dtype(v.dtype))  # type: ignore[union-attr]
        raise SimulationError(f"the simulator cannot evaluate value {v!r:.200}")

    def _compare(self, v: k.CompareValue, ctx: Ctx) -> Any:
        """Both operands converted to the comparison's type (16-bit floats compare as float), then compared."""
        a, b = self.value(v.a, ctx), self.value(v.b, ctx)
        if v.operand_dtype.is_float:
            a, b = to_dtype(v.operand_dtype, a), to_dtype(v.operand_dtype, b)
        else:
            a, b = promoted(to_dtype(v.operand_dtype, a)), promoted(to_dtype(v.operand_dtype, b))
        return np.asarray(COMPARE[v.op](a, b))

    def ev(self, v: Val, ctx: Ctx) -> Any:
        entry = self._compiled.get(id(v))
        if entry is None:
            entry = self._compiled[id(v)] = (v, compile_val(v))
        try:
            return entry[1](ctx.env)
        except KeyError as e:
            raise SimulationError(f"symbol {e.args[0]} is not bound while evaluating {v}") from None
        except ZeroDivisionError:
            raise SimulationError(f"division by zero while evaluating {v}") from None

    def per_lane(self, v: Val, ctx: Ctx) -> np.ndarray:
        return np.broadcast_to(np.asarray(self.ev(v, ctx), dtype=np.int64), ctx.lanes.shape)
