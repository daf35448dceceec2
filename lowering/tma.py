"""TMA boxes: which axes of a TMA-loaded tensor form the box, and the checks a box must pass.

A tensor made by ``cache_after(LoadStoreOpType.TMA)`` lives in shared memory; its Bulk axes
are the box one ``cp.async.bulk.tensor`` copies. Each Bulk axis must be the innermost part of
one dimension of the global tensor (the inner side of its splits), so a box is a dense tile
whose origin is the dimension's index with the Bulk index set to zero. The tensor's other
axes right of its compute-at position are serial loops that issue one copy each.

Rules (checked here, raised as ``LoweringError``): rank <= 5, every box extent <= 256, the
innermost box row a multiple of 16 bytes, every box starting 128-byte aligned in shared
memory, the Bulk axes innermost in the allocation in the global tensor's dimension order,
and no thread-parallel axis (one elected thread issues every copy of the block).
"""

from __future__ import annotations

from dataclasses import dataclass

from fusion_ir import IterDomain, ParallelType, TensorView
from fusion_ir.exprs import LoadStoreOp
from fusion_ir.iter_domain import Split
from fusion_ir.scalar import Val
from fusion_ir.types import LoadStoreOpType

from .context import LoweringContext
from .errors import LoweringError
from .kernel_ir import Buffer, TensorMapParam

MAX_RANK = 5
MAX_BOX = 256
ROW_BYTES = 16
SMEM_ALIGN = 128


@dataclass(frozen=True)
class TmaBox:
    tv: TensorView
    source: TensorView                      # the global tensor read
    dims: tuple[IterDomain, ...]            # tv's root axis for each global dimension, outermost first
    bulk: tuple[IterDomain | None, ...]     # the Bulk axis of each dimension (None: box extent 1)
    box: tuple[int, ...]                    # box extents, outermost first
    issue_loops: tuple[IterDomain, ...]     # serial axes right of the compute-at position: one copy each

    @property
    def box_bytes(self) -> int:
        n = 1
        for b in self.box:
            n *= b
        return n * self.tv.dtype.size

    def copies(self) -> Val:
        """Copies issued per compute-at iteration: the product of the issue loops' extents."""
        n = Val.const(1)
        for i in self.issue_loops:
            n = n * i.extent
        return n

    def tx_bytes(self) -> Val:
        return self.copies() * self.box_bytes


def is_tma_load(tv: TensorView) -> bool:
    d = tv.definition
    return isinstance(d, LoadStoreOp) and d.op_type is LoadStoreOpType.TMA


def analyze(ctx: LoweringContext, tv: TensorView) -> TmaBox:
    """The box of ``tv``; raises ``LoweringError`` naming the axis and the rule it breaks."""
    name = f"T{tv.name}"
    source = tv.definition.inputs[0]
    if not source.is_input:
        raise LoweringError(f"{name} is loaded by TMA from T{source.name}, which is not a fusion input; TMA reads "
                            f"a global tensor")
    root_of = {p: c for c, p in tv.definition.root_map(source).items()}
    dims = tuple(root_of[p] for p in source.shape_ids)
    if len(dims) > MAX_RANK:
        raise LoweringError(f"{name}: a TMA box has at most {MAX_RANK} dimensions; T{source.name} has {len(dims)}")

    issue: list[IterDomain] = []
    for k, i in enumerate(tv.loop):
        pt = ctx.group(i).parallel_type
        if i.is_broadcast or i.is_reduction:
            continue
        if pt.is_thread:
            where = "left of" if k < tv.compute_at_pos else "right of"
            raise LoweringError(f"{name} is loaded by TMA, which one elected thread issues per block, but its axis "
                                f"{i.label()} {where} the compute-at position is {pt.name}; keep thread-parallel "
                                f"axes out of a TMA-loaded tensor (compute it outside them)")
        if k >= tv.compute_at_pos and pt not in (ParallelType.Bulk, ParallelType.Serial, ParallelType.Unroll):
            raise LoweringError(f"{name}: axis {i.label()} is {pt.name}; a TMA-loaded tensor's axes right of its "
                                f"compute-at position are Bulk (the box) or serial loops that issue one box each")
        if k >= tv.compute_at_pos and pt is not ParallelType.Bulk:
            issue.append(i)
    bulk_axes = [i for i in tv.loop if ctx.group(i).parallel_type is ParallelType.Bulk]
    if not bulk_axes:
        raise LoweringError(f"{name} is loaded by TMA but has no Bulk axis; parallelize the axes of the box with "
                            f"ParallelType.Bulk")
    bulk: dict[IterDomain, IterDomain] = {}
    for b in bulk_axes:
        root = _innermost_root(tv, b)
        if root not in dims:
            raise LoweringError(f"{name}: Bulk axis {b.label()} comes from {root.label()}, which is not a "
                                f"dimension of T{source.name}")
        if root in bulk:
            raise LoweringError(f"{name}: Bulk axes {bulk[root].label()} and {b.label()} both come from "
                                f"{root.label()}; a TMA box has one extent per dimension (merge them or make one "
                                f"serial)")
        extent = b.extent.const_value()
        if extent is None:
            raise LoweringError(f"{name}: Bulk axis {b.label()} has symbolic extent {b.extent}; TMA box extents are "
                                f"compile-time constants (split by a constant)")
        if not 1 <= extent <= MAX_BOX:
            raise LoweringError(f"{name}: Bulk axis {b.label()} has extent {extent}; a TMA box extent must be in "
                                f"[1, {MAX_BOX}]")
        bulk[root] = b
    box = tuple(bulk[r].extent.const_value() if r in bulk else 1 for r in dims)
    row = box[-1] * tv.dtype.size
    if row % ROW_BYTES:
        raise LoweringError(f"{name}: the innermost TMA box row is {box[-1]} x {tv.dtype.short_name} = {row} bytes; "
                            f"it must be a multiple of {ROW_BYTES} bytes")

    result = TmaBox(tv, source, dims, tuple(bulk.get(r) for r in dims), box, tuple(issue))
    _check_layout(ctx, result)
    return result


def _innermost_root(tv: TensorView, b: IterDomain) -> IterDomain:
    """The root axis ``b`` is the innermost part of; raises unless ``b`` is the inner side of splits."""
    x = b
    while x not in tv.root:
        d = x.definition
        if not isinstance(d, Split) or x is not d.inner:
            raise LoweringError(f"T{tv.name}: Bulk axis {b.label()} is not the innermost part of one dimension "
                                f"(it must be the inner output of splits, never merged or an outer part), so it "
                                f"cannot be a dense TMA box")
        x = d.input
    return x


def _check_layout(ctx: LoweringContext, info: TmaBox) -> None:
    tv = info.tv
    ids = ctx.alloc_ids[tv]
    present = [b for b in info.bulk if b is not None]
    tail = ids[len(ids) - len(present):] if present else []
    if list(tail) != present:
        order = ", ".join(b.label() for b in present)
        raise LoweringError(f"T{tv.name}: TMA writes each box densely, so its Bulk axes ({order}) must be the "
                            f"innermost allocated axes of T{tv.name}, in the dimension order of T{info.source.name}; "
                            f"reorder T{tv.name}")
    boxes = Val.const(1)
    for i in ids[:len(ids) - len(present)]:
        boxes = boxes * i.extent
    stages = tv.circular_buffer_options.stages if tv.circular_buffer_options is not None else 1
    boxes = boxes * stages
    if info.box_bytes % SMEM_ALIGN and boxes.const_value() != 1:
        raise LoweringError(f"T{tv.name}: every TMA box must start {SMEM_ALIGN}-byte aligned in shared memory, but a "
                            f"box is {info.box_bytes} bytes and T{tv.name} holds {boxes} of them; make the box a "
                            f"multiple of {SMEM_ALIGN} bytes")


def tensor_map(ctx: LoweringContext, info: TmaBox) -> TensorMapParam:
    """The kernel parameter describing ``info.source`` with this box (one per TMA-loaded tensor)."""
    tv = info.tv
    if tv in ctx.tensor_maps:
        return ctx.tensor_maps[tv]
    base = f"tmap_T{info.source.name}"
    taken = {m.name for m in ctx.tensor_maps.values()}
    name = base if base not in taken else f"{base}_T{tv.name}"
    param: Buffer = ctx.buffers[info.source]
    tmap = TensorMapParam(name, param, tuple(reversed(info.box)))
    ctx.tensor_maps[tv] = tmap
    return tmap


def box_origin(info: TmaBox, idx: dict[IterDomain, Val]) -> dict[IterDomain, Val]:
    """``idx`` (a tensor's own indices) with every Bulk index zero: where its box starts."""
    zero = {idx[b].name: Val.const(0) for b in info.bulk if b is not None and b in idx and idx[b].op == "sym"}
    return {k: v.substitute(zero) for k, v in idx.items()}


def coords(info: TmaBox, origin: dict[IterDomain, Val]) -> tuple[Val, ...]:
    """Box origin in each global dimension, outermost first, from ``box_origin`` indices."""
    return tuple(origin[r] for r in info.dims)
