"""Predicate elimination: the bounds conditions a register computation leaves out.

A non-divisible split runs a tensor's loops past its extent, so every statement of the tensor is guarded by
its element being inside the tensor (``indexing_exprs.bounds_conditions``). A statement that writes registers
(a Local buffer) needs no such condition along an axis when computing the elements past the extent is
harmless, as in nvFuser's ``PredicateElimination``: it reads only Local or Shared buffers, each at a position
inside the buffer's allocation whatever the element (checked by interval arithmetic over the loops' ranges,
the predicates ignored), it writes its own buffer at a slot no element inside the tensor uses (every axis of
the allocation is one of its loop axes, indexed inside its extent), and the axis is not one it reduces or
scans along (the elements past the extent would be folded into the total). The registers of an element past
the extent then hold garbage that only elements past the extent read: any other element depends on elements
inside the tensor only, a reduction over the axis keeps its condition, and every write of Shared or Global
memory keeps its predicates.

Kept, whatever the axis: loads (a global read could fault; TMA and cp.async copies have their own bounds and
zero fill), circular-buffered tensors (issued at a shifted loop index), reads through views and pads, grid reductions, tensor-core statements (their own rules), tensors
computed in a pad's longer loops, integer division or remainder (garbage could divide by zero), and, for a
register A operand of a tensor-core matmul, the axes the matmul sums over (the Mma adds every register).

Reads: ``ids`` (loop groups, launch, views, pad bounds), ``buffers``, ``mma`` and ``circular`` analyses and
the kernel's loops (each loop index's range: the union of its loops' ``[start, stop)``).
Writes: ``PredicatePlan``.
Guarantees: an axis is in ``PredicatePlan.left_out(tv)`` only when the checks above passed; whenever one
cannot be decided (an unknown range, an index the analysis cannot place) the condition stays.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields, is_dataclass

from fusion_ir import IterDomain, MemoryType, TensorView
from fusion_ir.exprs import PadOp, load_kind
from fusion_ir.scalar import Val
from fusion_ir.types import LoadStoreOpType, ParallelType

from .. import index_math
from ..index_range import Interval, interval
from ..kernel_ir import BinaryValue, Buffer, ForLoop, Kernel, Load, Value, walk
from ..running_axes import root_ancestors, running_root, runs_along
from . import Analyses
from .id_model import PARALLEL_LAUNCH
from .mma import RegisterOperand

# integer operations garbage operands cannot make fault (a division or remainder by zero could)
SAFE_INTEGER_OPS = frozenset({"add", "sub", "mul", "maximum", "minimum", "logical_and", "logical_or"})


@dataclass(frozen=True)
class PredicatePlan:
    """Per tensor, the axes (root, or inner pieces of a non-divisible split) whose bounds conditions its
    statements writing Local buffers leave out; ``kept``: why a tensor with such conditions keeps them all."""

    left_out_axes: dict[TensorView, frozenset[IterDomain]] = field(default_factory=dict)
    kept: dict[TensorView, str] = field(default_factory=dict)

    def left_out(self, tv: TensorView) -> frozenset[IterDomain]:
        return self.left_out_axes.get(tv, frozenset())

    def describe(self) -> list[str]:
        """One line per tensor with bounds conditions: which it leaves out, or why it keeps them."""
        lines = []
        for tv, axes in sorted(self.left_out_axes.items(), key=lambda kv: kv[0].name):
            labels = ", ".join(sorted(i.label() for i in axes))
            lines.append(f"T{tv.name}: no bounds predicate along {labels} (registers, reads in bounds)")
        for tv, why in sorted(self.kept.items(), key=lambda kv: kv[0].name):
            lines.append(f"T{tv.name}: bounds predicate kept: {why}")
        return lines


def build(kernel: Kernel, a: Analyses) -> PredicatePlan:
    ranges = _index_ranges(kernel, a)
    folded = _mma_summed_axes(a)
    plan = PredicatePlan()
    for tv in a.buffers.buffers:
        if tv.definition is None or tv.is_input:
            continue
        candidates = _bounded_axes(tv, a)
        if not candidates:
            continue
        why = _why_kept(a, tv, ranges)
        if why is not None:
            plan.kept[tv] = why
            continue
        axes = frozenset(i for i in candidates if _droppable(tv, i, folded.get(tv, frozenset())))
        if axes:
            plan.left_out_axes[tv] = axes
        else:
            plan.kept[tv] = "every bounded axis is one it reduces or scans along"
    return plan


def _bounded_axes(tv: TensorView, a: Analyses) -> set[IterDomain]:
    """The axes ``bounds_conditions`` may guard: roots a non-divisible split pushes past their extent, the inner
    pieces that absorb such an overflow, and roots computed inside a pad's longer loops."""
    axes = set(index_math.roots_needing_predicate(tv)) | set(index_math.axes_needing_predicate(tv))
    axes |= set(a.ids.pad_bounded.get(tv, ()))
    return {i for i in axes if not i.is_broadcast}


def _droppable(tv: TensorView, axis: IterDomain, folded: frozenset[IterDomain]) -> bool:
    """Not an axis ``tv`` accumulates along, nor one a matmul reading it sums over."""
    roots = root_ancestors(axis)
    if axis.is_reduction or runs_along(tv, axis) or any(r.is_reduction or runs_along(tv, r) for r in roots):
        return False
    running = running_root(tv)
    if running is not None and running in roots:
        return False
    return not (roots & folded)


def _why_kept(a: Analyses, tv: TensorView, ranges: dict[str, Interval | None]) -> str | None:
    """Why ``tv``'s Local statements keep every bounds condition, or None when none is needed."""
    e = tv.definition
    if tv in a.mma.tiles or tv in a.mma.staged or a.mma.computed_by_stmatrix(tv):
        return "a tensor-core statement"
    if a.buffers.after_grid_reduction(tv):
        return "a grid reduction or after one"
    if isinstance(e, PadOp):
        return "a pad reads its input only inside it"
    if tv in a.ids.pad_bounded:
        return "computed inside a pad's longer loops"
    if load_kind(tv) in (LoadStoreOpType.TMA, LoadStoreOpType.CpAsync):
        return f"a {load_kind(tv).name} load"
    if tv.circular_buffer_options is not None:
        return "circular-buffered: its loads are issued ahead, at a shifted loop index"
    written = [b for b in (a.buffers.accumulators.get(tv), a.buffers.buffers[tv])
               if b is not None and b.memory is MemoryType.Local and not b.is_param]
    if not written:
        return "writes no Local buffer"
    from ..indexing_exprs import compute_value, operand_value, own_indices, write_index

    idx = own_indices(a, tv)
    for buf in written:
        why = _write_unique(a, tv, buf, idx, ranges)
        if why is not None:
            return why
        if not _inside(write_index(a, tv, idx, buf), buf, ranges):
            return f"its write of {buf.name} may leave the buffer"
    for x in e.tensor_inputs():
        if x in a.ids.views:
            return f"reads T{x.name} through a view"
        buf = a.buffers.buffers.get(x)
        if buf is None or buf.is_param or buf.memory is MemoryType.Global:
            return f"reads T{x.name} from global memory"
        value = operand_value(a, x, tv, idx, tv.dtype)
        if not isinstance(value, Load) or not _inside(value.index, value.buffer, ranges):
            return f"its read of T{x.name} ({buf.name}) may leave the buffer"
    for v in _values(compute_value(a, tv, idx)):
        if isinstance(v, BinaryValue) and not v.dtype.is_float and v.op not in SAFE_INTEGER_OPS:
            return f"an integer {v.op} of an element past the extent could fault"
    return None


def _write_unique(a: Analyses, tv: TensorView, buf: Buffer, idx: dict[IterDomain, Val],
                  ranges: dict[str, Interval | None]) -> str | None:
    """Every element writes its own slot of ``buf``: each allocated axis is a loop axis of ``tv``, indexed inside
    its extent (an element past the tensor's extent cannot overwrite one inside it)."""
    for axis in a.buffers.ids_of(tv, buf):
        if not any(axis is i for i in tv.loop):
            return f"{buf.name} is allocated along {axis.label()}, not one of its loop axes"
        extent = axis.extent.const_value()
        span = interval(idx[axis], ranges) if axis in idx else None
        if extent is None or span is None or span[0] < 0 or span[1] >= extent:
            return f"its index of {buf.name} along {axis.label()} may leave the axis"
    return None


def _inside(index: Val, buf: Buffer, ranges: dict[str, Interval | None]) -> bool:
    size = buf.size.const_value()
    span = interval(index, ranges)
    return size is not None and span is not None and span[0] >= 0 and span[1] < size


def _index_ranges(kernel: Kernel, a: Analyses) -> dict[str, Interval | None]:
    """Each loop index's range (over all its loops: a pipeline's stage clones share an index), and each thread
    and block index's (a warp-specialized kernel's producer warp group may add one warp group of threads)."""
    ranges: dict[str, Interval | None] = {}
    padding = a.ids.launched_threads().const_value()
    block = a.ids.block_threads().const_value()
    extra = 0 if padding is None or block is None else padding - block
    for pt in PARALLEL_LAUNCH:
        n = a.ids.launch[pt].const_value()
        if n is not None and pt.is_thread:
            n += extra
        ranges[pt.cuda_index] = None if n is None else (0, max(n - 1, 0))
    loops: dict[str, list[Interval | None]] = {}
    for node in walk(kernel.body):
        if isinstance(node, ForLoop):
            start, stop = interval(node.start, ranges), interval(node.stop, ranges)
            span = None if start is None or stop is None else (start[0], max(stop[1] - 1, start[0]))
            loops.setdefault(str(node.index.name), []).append(span)
    for name, spans in loops.items():
        known = [s for s in spans if s is not None]
        ranges[name] = None if len(known) < len(spans) else (min(s[0] for s in known), max(s[1] for s in known))
    return ranges


def _mma_summed_axes(a: Analyses) -> dict[TensorView, frozenset[IterDomain]]:
    """Each register A operand of a tensor-core matmul, with its root axes the matmul sums over."""
    out: dict[TensorView, frozenset[IterDomain]] = {}
    for mm, tile in a.mma.tiles.items():
        if not isinstance(tile.a, RegisterOperand):
            continue
        operand = tile.a.tv
        if not any(operand is x for x in mm.definition.inputs) or list(operand.logical) != list(operand.root):
            out[operand] = frozenset(operand.root)      # cannot tell its summed axis: keep every condition
            continue
        mapping = mm.definition.root_map(operand)
        out[operand] = frozenset(p for c, p in mapping.items() if c.is_reduction)
    return out


def _values(v: Value) -> Iterator[Value]:
    """``v`` and every value nested in it."""
    yield v
    if not is_dataclass(v):
        return
    for f in fields(v):
        x = getattr(v, f.name)
        if is_dataclass(x) and not isinstance(x, (Buffer, Val, type)) and not isinstance(x, ParallelType):
            yield from _values(x)
