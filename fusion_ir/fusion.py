"""Fusion: the container of tensors and expressions, its dataflow graph and printing."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import networkx as nx

from target import current as current_target

from .exprs import Expr
from .iter_domain import IterDomain
from .scalar import Val
from .scalar_input import ScalarInput
from .stream_k import StreamK
from .tensor_view import TensorView
from .types import DataType, IterType, MemoryType, ParallelType, ScheduleError

_current = threading.local()


@dataclass(frozen=True)
class ExtentConstraint:
    """Two extents a definition declared equal (both operands of an add, the K of a matmul), checked at run
    time: ``message`` says which, ``subject`` names the tensor a refusal is about (``T3``, the first the
    message names), so no reader has to find it in the text."""

    a: Val
    b: Val
    message: str
    subject: str | None = None


class Fusion:
    def __init__(self) -> None:
        self.exprs: list[Expr] = []
        # tensors and scalar inputs in the order they were added: the order ``execute`` takes them in
        self.inputs: list[TensorView | ScalarInput] = []
        self.outputs: list[TensorView] = []
        self._tensors: list[TensorView] = []
        self._next_tensor = 0
        self._next_id = 0
        self._next_scalar = 0
        self._in_transaction = False
        # Extents the definition declared equal (e.g. both operands of an add); checked at run time.
        self.extent_constraints: list[ExtentConstraint] = []
        # The C type of the kernel's index arithmetic (nvFuser's index type): Int64, or Int32 when
        # every tensor the kernel is launched on has fewer than 2**31 elements (checked at launch).
        self.index_type: DataType = DataType.Int64
        # What a scheduler chose for this fusion and why (``schedule_matmul``: a ``MatmulChoice``), for viz
        self.scheduler_choice: object | None = None
        # ``lower``, ``simulate``, ``execute`` and ``viz`` schedule a fusion with no schedule at all
        # (``fusion_ir.schedulers.schedule``) unless this is False: a fusion meant to run as one thread.
        self.auto_schedule = True
        # Blocks per thread-block cluster along (x, y, z) (``set_cluster_dims``); (1, 1, 1): no clusters.
        self.cluster_dims: tuple[int, int, int] = (1, 1, 1)
        # Blocks each SM must be able to hold at once (``set_min_blocks_per_sm``): caps registers per thread.
        self.min_blocks_per_sm: int = 1
        # A reduction run as stream-K over a fixed grid (``TensorView.stream_k``, ``fusion_ir/stream_k.py``); None: none.
        self.stream_k: StreamK | None = None

    def set_min_blocks_per_sm(self, blocks: int) -> None:
        """Compile so that ``blocks`` blocks fit on one SM at once (``__launch_bounds__(threads, blocks)``):
        ptxas caps each thread's registers at the register file / (``blocks`` x threads), so a streaming kernel
        whose constant loops nvcc unrolls in full keeps enough warps to overlap one block's reduction with
        another's loads. 1 (the default) leaves ptxas every register it wants."""
        if isinstance(blocks, bool) or not isinstance(blocks, int) or blocks < 1:
            raise ScheduleError(f"Fusion.set_min_blocks_per_sm: {blocks!r} must be a positive int")
        self.min_blocks_per_sm = blocks

    def set_cluster_dims(self, dims: tuple[int, int, int]) -> None:
        """Launch the kernel in thread-block clusters of ``dims`` blocks along (x, y, z)
        (``__cluster_dims__``): the blocks of a cluster run at once on one GPC and reach each other's
        shared memory (TMA multicast, ``TensorView.set_multicast``; remote mbarrier arrives). The grid
        is rounded up to a multiple of ``dims``; the extra blocks' tiles are out of bounds."""
        if not (isinstance(dims, tuple) and len(dims) == 3
                and all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in dims)):
            raise ScheduleError(f"Fusion.set_cluster_dims: {dims!r} must be three positive ints (x, y, z)")
        size = dims[0] * dims[1] * dims[2]
        limit = current_target().max_cluster_size
        if size > limit:
            raise ScheduleError(f"Fusion.set_cluster_dims: a cluster of {dims} has {size} blocks, over the "
                                f"portable limit of {limit} blocks (target max_cluster_size)")
        self.cluster_dims = dims

    def set_index_type(self, index_type: DataType) -> None:
        """Index arithmetic in ``index_type`` (``DataType.Int32`` or ``DataType.Int64``).

        32-bit indices make loop and address arithmetic cheaper (no 64-bit multiplies and
        divisions); the executor refuses a launch whose tensors do not fit them.
        """
        if index_type not in (DataType.Int32, DataType.Int64):
            raise ScheduleError(f"Fusion.set_index_type: {index_type!r} must be DataType.Int32 or DataType.Int64")
        self.index_type = index_type

    # ---- context --------------------------------------------------------
    def __enter__(self) -> Fusion:  # noqa: PYI034 - Fusion is never subclassed
        stack = getattr(_current, "stack", [])
        stack.append(self)
        _current.stack = stack
        return self

    def __exit__(self, *exc: object) -> None:
        _current.stack.pop()

    @staticmethod
    def current() -> Fusion:
        """The fusion of the innermost ``with fusion:`` block."""
        stack = getattr(_current, "stack", [])
        if not stack:
            raise ScheduleError("no active fusion: define ops inside `with fusion:`")
        return stack[-1]

    # ---- naming ---------------------------------------------------------
    def new_tensor_name(self) -> int:
        n = self._next_tensor
        self._next_tensor += 1
        return n

    def new_iter_domain(self, extent: Val, iter_type: IterType = IterType.Iteration,
                        parallel_type: ParallelType = ParallelType.Serial) -> IterDomain:
        i = IterDomain(extent, iter_type, parallel_type, name=self._next_id)
        self._next_id += 1
        return i

    def new_extent(self) -> Val:
        v = Val.symbol(f"i{self._next_scalar}")
        self._next_scalar += 1
        return v

    # ---- building -------------------------------------------------------
    def register_tensor(self, tv: TensorView) -> None:
        self._tensors.append(tv)

    def registered(self, tv: TensorView) -> bool:
        return tv in self._tensors

    @property
    def tensors(self) -> list[TensorView]:
        return list(self._tensors)

    def new_tensor(self, root: list[IterDomain], dtype: DataType,
                   memory_type: MemoryType = MemoryType.Local) -> TensorView:
        tv = TensorView(self, root, dtype, memory_type)
        self.register_tensor(tv)
        return tv

    def new_tensor_like(self, src: TensorView, memory_type: MemoryType = MemoryType.Local,
                        dtype: DataType | None = None) -> TensorView:
        """A fresh tensor with src's materialized shape (reduction axes dropped)."""
        root = [self.new_iter_domain(i.extent, i.iter_type) for i in src.shape_ids]
        return self.new_tensor(root, dtype or src.dtype, memory_type)

    def add_input(self, ndim: int | None = None, shape: Sequence[int] | None = None,
                  dtype: DataType = DataType.Float) -> TensorView:
        """A new input with ``ndim`` symbolic extents or a ``shape`` (-1 for a symbolic extent, as nvFuser's)."""
        if (ndim is None) == (shape is None):
            raise ScheduleError("add_input: give exactly one of ndim= or shape=")
        if not isinstance(dtype, DataType):
            raise ScheduleError(f"add_input: dtype {dtype!r} is not a DataType")
        if shape is not None:
            if not all(isinstance(s, int) and not isinstance(s, bool) and (s > 0 or s == -1) for s in shape):
                raise ScheduleError(f"add_input: shape {tuple(shape)} must hold positive integers (or -1 for a "
                                    f"symbolic extent)")
            extents = [self.new_extent() if s == -1 else Val.const(s) for s in shape]
        else:
            if isinstance(ndim, bool) or not isinstance(ndim, int) or ndim < 0:
                raise ScheduleError(f"add_input: ndim {ndim!r} must be a non-negative integer")
            extents = [self.new_extent() for _ in range(ndim)]
        root = [self.new_iter_domain(e) for e in extents]
        tv = self.new_tensor(root, dtype, MemoryType.Global)
        self.inputs.append(tv)
        return tv

    def add_scalar_input(self, dtype: DataType = DataType.Float) -> ScalarInput:
        """A new input holding one value of ``dtype``, given at launch (a Python number where ``execute`` and
        ``simulate`` take this input) and passed to the kernel by value (nvFuser's ``fd.define_scalar``).
        Elementwise ops take it as an operand like a Python number, broadcast over the tensor operands."""
        if not isinstance(dtype, DataType):
            raise ScheduleError(f"add_scalar_input: dtype {dtype!r} is not a DataType")
        scalar = ScalarInput(self, self.new_tensor_name(), dtype)
        self.inputs.append(scalar)
        return scalar

    @property
    def tensor_inputs(self) -> list[TensorView]:
        """The inputs that are tensors, in order (``inputs`` less the scalar inputs)."""
        return [x for x in self.inputs if isinstance(x, TensorView)]

    @property
    def scalar_inputs(self) -> list[ScalarInput]:
        """The scalar inputs (``add_scalar_input``), in order."""
        return [x for x in self.inputs if isinstance(x, ScalarInput)]

    def add_output(self, tv: TensorView) -> TensorView:
        """Mark ``tv`` as an output (it moves to Global memory)."""
        if isinstance(tv, ScalarInput):
            raise ScheduleError(f"add_output: {tv} is a scalar input; outputs are computed tensors "
                                f"(e.g. ops.mul(t, {tv}))")
        if not isinstance(tv, TensorView) or tv.fusion is not self:
            raise ScheduleError(f"add_output: {tv!r} is not a tensor of this fusion")
        if tv.is_input:
            raise ScheduleError(f"add_output: T{tv.name} is a fusion input; outputs must be computed")
        if tv.is_output:
            raise ScheduleError(f"add_output: T{tv.name} is already an output")
        tv.memory_type = MemoryType.Global
        self.outputs.append(tv)
        return tv

    def add_expr(self, expr: Expr) -> Expr:
        for tv in expr.outputs:
            tv.definition = expr
        self.exprs.append(expr)
        return expr

    def insert_expr(self, expr: Expr) -> None:
        """Add an expression and keep ``exprs`` in topological order."""
        for tv in expr.outputs:
            tv.definition = expr
            if not self.registered(tv):
                self.register_tensor(tv)
        self.exprs.append(expr)
        self.exprs[:] = self._sorted_exprs()

    # ---- dataflow -------------------------------------------------------
    def graph(self) -> nx.DiGraph:
        """The dataflow graph: an edge from each input of an expression to its output."""
        g = nx.DiGraph()
        for tv in self._tensors:
            g.add_node(tv)
        for e in self.exprs:
            for i in e.tensor_inputs():
                g.add_edge(i, e.output, expr=e)
        return g

    def _sorted_exprs(self) -> list[Expr]:
        g = nx.DiGraph()
        for e in self.exprs:
            g.add_node(e)
        producer = {e.output: e for e in self.exprs}
        for e in self.exprs:
            for i in e.tensor_inputs():
                if i in producer:
                    g.add_edge(producer[i], e)
        index = {e: k for k, e in enumerate(self.exprs)}
        return list(nx.lexicographical_topological_sort(g, key=lambda e: index[e]))

    def topological_order(self) -> list[TensorView]:
        """Every tensor, producers before consumers."""
        index = {tv: k for k, tv in enumerate(self._tensors)}
        return list(nx.lexicographical_topological_sort(self.graph(), key=lambda t: index[t]))

    def replace_uses(self, old: TensorView, new: TensorView) -> None:
        """Every expression reading ``old`` reads ``new`` instead; an output ``old`` is replaced by ``new`` (a rewrite
        of the fusion, before any schedule: ``fusion_ir.online_softmax``)."""
        for e in self.exprs:
            if old in e.inputs:
                e.inputs = [new if x is old else x for x in e.inputs]
        if old in self.outputs:
            self.outputs[self.outputs.index(old)] = new
            new.memory_type = old.memory_type

    def remove_dead(self) -> None:
        """Drop the expressions and tensors on no path to an output (inputs stay); ``exprs`` stays topological."""
        live = set(self.used_tensors()) | set(self.inputs)
        self.exprs[:] = [e for e in self.exprs if e.output in live]
        self.exprs[:] = self._sorted_exprs()
        self._tensors[:] = [t for t in self._tensors if t in live]

    def used_tensors(self) -> list[TensorView]:
        """Tensors that are inputs, outputs, or on a path to an output."""
        g = self.graph()
        live: set[TensorView] = set(self.tensor_inputs)
        for out in self.outputs:
            live.add(out)
            live |= nx.ancestors(g, out)
        return [t for t in self.topological_order() if t in live]

    def tensors_between(self, producer: TensorView, consumer: TensorView) -> set[TensorView] | None:
        """Tensors strictly between producer and consumer, or None if consumer is not downstream."""
        g = self.graph()
        if producer is consumer or not nx.has_path(g, producer, consumer):
            return None
        return (nx.descendants(g, producer) & nx.ancestors(g, consumer)) - {producer, consumer}

    # ---- transactions ---------------------------------------------------
    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Undo every change made inside the block if it raises."""
        if self._in_transaction:
            yield
            return
        snapshot = self._snapshot()
        self._in_transaction = True
        try:
            yield
        except BaseException:
            self._restore(snapshot)
            raise
        finally:
            self._in_transaction = False

    def _snapshot(self) -> dict:
        ids: set[IterDomain] = set()
        tvs = {}
        for tv in self._tensors:
            tvs[tv] = (list(tv.root), list(tv.logical), list(tv.loop), list(tv.transforms), tv.definition,
                       tv.compute_at_pos, tv.memory_type, tv.circular_buffer_options, tv.dtype, tv.swizzle,
                       dict(tv.loop_broadcasts), tv.store_wait, tv.store_stages, tv.allocation,
                       list(tv.broadcast_loop_axes), tv.shared_reuse, tv.turns, tv.deferred)
            ids.update(tv.root, tv.logical, tv.loop)
            for t in tv.transforms:
                ids.update(t.inputs)
                ids.update(t.outputs)
        return {
            "fusion": (list(self.exprs), list(self.inputs), list(self.outputs), list(self._tensors),
                       self._next_tensor, self._next_id, self._next_scalar, list(self.extent_constraints)),
            "exprs": {e: (list(e.inputs), list(e.outputs)) for e in self.exprs},
            "tvs": tvs,
            "ids": {i: (i.parallel_type, i.iter_type, i.trip_bound, i.known_true) for i in ids},
            "stream_k": self.stream_k,
        }

    def _restore(self, s: dict) -> None:
        (self.exprs, self.inputs, self.outputs, self._tensors, self._next_tensor, self._next_id,
         self._next_scalar, self.extent_constraints) = s["fusion"]
        for e, (ins, outs) in s["exprs"].items():
            e.inputs, e.outputs = ins, outs
        for tv, st in s["tvs"].items():
            (tv.root, tv.logical, tv.loop, tv.transforms, tv.definition, tv.compute_at_pos,
             tv.memory_type, tv.circular_buffer_options, tv.dtype, tv.swizzle, tv.loop_broadcasts,
             tv.store_wait, tv.store_stages, tv.allocation, tv.broadcast_loop_axes, tv.shared_reuse, tv.turns,
             tv.deferred) = st
        for i, (pt, it, bound, known) in s["ids"].items():
            i.parallel_type, i.iter_type, i.trip_bound, i.known_true = pt, it, bound, known
        self.stream_k = s["stream_k"]

    def state_fingerprint(self) -> str:
        """A text that changes whenever any schedule state changes (for tests)."""
        parts = [str(self), f"next names: T{self._next_tensor} id{self._next_id} i{self._next_scalar}"]
        for tv in self._tensors:
            parts.append(tv.transforms_string())
            parts.append(str([(i.name, i.parallel_type.name, i.iter_type.name, str(i.trip_bound),
                               [str(k) for k in i.known_true]) for i in tv.loop]))
            parts.append(f"{tv.memory_type} {tv.compute_at_pos} {tv.circular_buffer_options} {tv.swizzle} {tv.store_wait.value} {tv.store_stages}"
                         f" {tv.shared_reuse} {tv.turns} {tv.deferred}"
                         f" {[i.name for i in tv.allocation] if tv.allocation is not None else None}")
        return "\n".join(parts)

    # ---- printing -------------------------------------------------------
    def math_string(self) -> str:
        """The fusion in nvFuser notation (what ``print(fusion)`` shows)."""
        from .printer import fusion_math

        return fusion_math(self)

    def __str__(self) -> str:
        return self.math_string()

    def print_math(self) -> None:
        """Print ``math_string()``."""
        print(self.math_string())

    def print_transforms(self) -> None:
        """Print every computed tensor's transforms."""
        for tv in self.used_tensors():
            if not tv.is_input:
                tv.print_transforms()
