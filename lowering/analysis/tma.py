"""TMA boxes: which axes of a TMA-loaded tensor form the box, the checks a box must pass, and the
tensor map (kernel parameter) each TMA-loaded tensor reads through.

A tensor made by ``cache_after(LoadStoreOpType.TMA)`` lives in shared memory; its Bulk axes
are the box one ``cp.async.bulk.tensor`` copies. Each Bulk axis must be the innermost part of
one dimension of the global tensor (the inner side of its splits), so a box is a dense tile
whose origin is the dimension's index with the Bulk index set to zero. The tensor's other
axes right of its compute-at position are serial loops that issue one copy each.

Rules (raised as ``LoweringError``), with the current target's limits (sm_90's in brackets):
1 <= rank <= ``max_rank`` (5), every box extent <= ``max_box`` (256), the innermost box row a multiple
of ``alignment`` bytes (16; exactly the swizzle span when swizzled), every box starting
``smem_alignment``-byte (128) aligned in shared memory (at a whole swizzle repeat when swizzled),
the Bulk axes innermost in the allocation in the global tensor's dimension order, and no thread-parallel axis (one elected
thread issues every copy of the block), but those left of the compute-at position of an unpipelined load: each index
there loads its own boxes (ping-pong warp groups, each loading the C tile of its own turn), issued by a thread elected
in the index's first warp (``TmaBox.issuers``, ``issuer_warp``), so each index must hold whole warps.

A load of a chain of views of a fusion input (pads, reshapes, permutes: ``fusion_ir.views``, ``IdModel.views``)
is a box of that input: its tensor map is the input's (its own extents, so past them TMA fills zeros: a pad
after an axis by zero), each Bulk axis covers a dense range of the input's dimensions traced through the views
(``ViewChain.span``: the inner part of a reshape's split, a merge of adjacent whole dimensions), and the box
coordinates are the tile's indices mapped back through the views. Refused: a pad by another value, before an
axis or of an axis a reshape made (``views.tma_refusal``), a Bulk axis that is not such a dense range, and a box
whose innermost dimension is not the input's contiguous one.

The global tensor's strides, but the innermost, must be multiples of 16 bytes (``cuTensorMapEncodeTiled``).
Strides are arguments, so each tensor map records that rule as ``LaunchRequirement``s the launch plan
checks (``stride_requirements``); where the tensor's extents are constants its contiguous strides are
known, and a tensor whose rows break the rule is refused here (``check_contiguous_strides``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from fusion_ir import IterDomain, MemoryType, ParallelType, TensorView
from fusion_ir.exprs import load_kind
from fusion_ir.iter_domain import innermost_root
from fusion_ir.scalar import Val
from fusion_ir.types import LoadStoreOpType, SmemSwizzle, StoreWait
from fusion_ir.views import ViewChain, tma_refusal
from target import Tma
from target import current as current_target

from ..errors import LoweringError
from ..kernel_ir import InputRule, LaunchRequirement, TensorMapParam
from .buffers import BufferPlan
from .id_model import IdModel
from .pipeline_axes import turn_axis


def _tma() -> Tma:
    """The current target's TMA rules (rank, box extents, row and shared-memory alignment)."""
    return current_target().tma


@dataclass(frozen=True)
class TmaBox:
    tv: TensorView
    source: TensorView                      # the global tensor read
    dims: tuple[IterDomain, ...]            # tv's root axis for each global dimension, outermost first
    bulk: tuple[IterDomain | None, ...]     # the Bulk axis of each dimension (None: box extent 1)
    box: tuple[int, ...]                    # box extents, outermost first
    issue_loops: tuple[IterDomain, ...]     # serial axes right of the compute-at position: one copy each
    shared: TensorView | None = None        # a TMA store's shared-memory source (``tv`` is the output)
    # a load of a chain of views of ``source``: ``dims`` are the source's own dimensions, and a box's coordinates
    # are ``tv``'s indices mapped back through the views (``fusion_ir.views``)
    view: ViewChain | None = None
    # a TMA store's thread dimensions its shared tile is computed inside: each index there stores its
    # own boxes (ping-pong warp groups), issued by a thread elected among the threads with that index
    issuers: tuple[ParallelType, ...] = ()
    # a TMA store: the warp whose elected thread issues its boxes (``ElectSync.warp``; the first warp of
    # the threads with this thread's issuer indices), and when that thread waits for their reads of the
    # shared tile (``TensorView.set_store_wait``; the ``store_waits`` pass)
    issuer_warp: Val = field(default_factory=lambda: Val.const(0))
    wait: StoreWait = StoreWait.AfterBoxes
    stages: int = 1                          # a TMA store: tiles of its ring (``TensorView.set_store_wait``)

    @property
    def box_bytes(self) -> int:
        n = 1
        for b in self.box:
            n *= b
        return n * self.tv.dtype.size

    def copies(self, inside: IterDomain | None = None) -> Val:
        """Copies issued per compute-at iteration: the product of the issue loops' extents; with ``inside`` (an axis
        of the tensor), per iteration of that loop: the issue loops right of it only."""
        loops = self.issue_loops
        if inside is not None:
            loops = tuple(i for i in loops if self.tv.loop.index(i) > self.tv.loop.index(inside))
        n = Val.const(1)
        for i in loops:
            n = n * i.extent
        return n

    def tx_bytes(self) -> Val:
        return self.copies() * self.box_bytes

    def origin(self, idx: dict[IterDomain, Val]) -> dict[IterDomain, Val]:
        """``idx`` (the tensor's own indices) with every Bulk index zero: where its box starts."""
        zero = {idx[b].name: Val.const(0) for b in self.bulk if b is not None and b in idx and idx[b].op == "sym"}
        return {k: v.substitute(zero) for k, v in idx.items()}

    def coords(self, origin: dict[IterDomain, Val]) -> tuple[Val, ...]:
        """Box origin in each global dimension, outermost first, from ``origin`` indices."""
        if self.view is None:
            return tuple(origin[r] for r in self.dims)
        end = {p: origin[c] for c, p in self.tv.definition.root_map(self.view.end).items()}
        at = self.view.source_indices(end)
        return tuple(at[r] for r in self.dims)


@dataclass
class TmaInfo:
    boxes: dict[TensorView, TmaBox] = field(default_factory=dict)            # TMA loads, by shared tensor
    stores: dict[TensorView, TmaBox] = field(default_factory=dict)           # TMA stores, by output
    tensor_maps: dict[TensorView, TensorMapParam] = field(default_factory=dict)

    def requirements(self) -> tuple[LaunchRequirement, ...]:
        """The stride rule of every tensor map's tensor, once per tensor and dimension."""
        out: dict[tuple[str, str], LaunchRequirement] = {}
        for tmap in self.tensor_maps.values():
            for req in stride_requirements(tmap):
                out.setdefault((req.tensor, str(req.holds)), req)
        return tuple(out.values())


def build(ids: IdModel, buffers: BufferPlan) -> TmaInfo:
    info = TmaInfo()
    for tv in ids.tensors:
        kind = load_kind(tv)
        if kind is LoadStoreOpType.TMA:
            box = analyze(ids, buffers, tv)
            info.boxes[tv] = box
            info.tensor_maps[tv] = _tensor_map(info, buffers, box, tv.swizzle)
        elif kind is LoadStoreOpType.TMAStore:
            box = analyze_store(ids, buffers, tv)
            info.stores[tv] = box
            info.tensor_maps[tv] = _tensor_map(info, buffers, box, box.shared.swizzle)
    for tmap in info.tensor_maps.values():
        check_contiguous_strides(tmap)
    return info


def stride_rule() -> str:
    """The TMA stride rule as lowering and the launch state it, with the target's alignment."""
    return f"TMA needs strides that are multiples of {_tma().alignment} bytes"


def stride_requirements(tmap: TensorMapParam) -> tuple[LaunchRequirement, ...]:
    """TMA's stride rule on ``tmap``'s tensor, one requirement per dimension but the innermost: its stride in
    bytes a multiple of 16, checked at launch on the arguments' strides."""
    buf = tmap.tensor
    size = buf.dtype.size
    out = []
    for d, stride in enumerate(buf.strides[:-1]):
        nbytes = stride * size
        shown = ((f"{buf.name} has a stride of {{}} bytes in dimension {d}", nbytes),
                 (f"{stride} = {{}} elements of {size} bytes", stride))
        out.append(LaunchRequirement(buf.name, stride_rule(), (nbytes % _tma().alignment).eq(0), shown,
                                      InputRule.TMA_LAYOUT))
    return tuple(out)


def check_contiguous_strides(tmap: TensorMapParam) -> None:
    """Refuse a TMA tensor whose constant extents give it contiguous strides that break the stride rule."""
    buf = tmap.tensor
    size = buf.dtype.size
    row_bytes = _tma().alignment
    for d in range(len(buf.shape) - 1):
        inner = Val.const(1)
        for extent in buf.shape[d + 1:]:
            inner = inner * extent
        elements = inner.const_value()
        if elements is None or elements * size % row_bytes == 0:
            continue
        shape = ", ".join(str(e) for e in buf.shape)
        multiple = row_bytes // math.gcd(row_bytes, size)
        raise LoweringError(f"{buf.name}: {stride_rule()} (its tensor map {tmap.name}), but {buf.name} [{shape}] "
                            f"of {buf.dtype.short_name} has a stride of {elements} x {size} = {elements * size} "
                            f"bytes in dimension {d}; pad the extents after dimension {d} to a multiple of "
                            f"{multiple} elements")


def analyze_store(ids: IdModel, buffers: BufferPlan, out: TensorView) -> TmaBox:
    """The box of a TMA store ``out = TMAStore(tile)``: ``out``'s Bulk axes, read from ``tile`` in shared
    memory (its Bulk axes innermost in the same order, a row of its swizzle span when swizzled)."""
    name = f"T{out.name}"
    if not out.root:
        raise LoweringError(f"{name} is 0-D but written by a TMA store; a TMA box needs at least one dimension")
    tile = out.definition.inputs[0]
    if tile.memory_type is not MemoryType.Shared:
        raise LoweringError(f"{name} is written by a TMA store from T{tile.name}, which is in "
                            f"{tile.memory_type.name} memory; a TMA store reads shared memory")
    dims = tuple(out.root)
    bulk: dict[IterDomain, IterDomain] = {}
    issue: list[IterDomain] = []
    issuers: list[ParallelType] = []
    for k, i in enumerate(out.loop):
        pt = ids.group(i).parallel_type
        if pt.is_thread and k < tile.compute_at_pos:
            issuers.append(pt)      # a thread index the tile is computed inside: each stores its own boxes
        elif pt is ParallelType.Bulk:
            root = _innermost_root(out, i)
            if root in bulk:
                raise LoweringError(f"{name}: Bulk axes {bulk[root].label()} and {i.label()} both come from "
                                    f"{root.label()}; a TMA box has one extent per dimension")
            bulk[root] = i
        elif pt.is_thread:
            raise LoweringError(f"{name} is written by a TMA store, which one elected thread issues; its axis "
                                f"{i.label()} is {pt.name} (only the loops T{tile.name} is computed inside may be)")
        elif k >= out.compute_at_pos and not pt.is_block and not i.is_broadcast:
            issue.append(i)
    box_extents = []
    for r in dims:
        extent = bulk[r].extent.const_value() if r in bulk else 1
        if extent is None or not 1 <= extent <= _tma().max_box:
            raise LoweringError(f"{name}: the TMA store box extent of {r.label()} is {bulk[r].extent}; it must be "
                                f"a constant in [1, {_tma().max_box}]")
        box_extents.append(extent)
    row = box_extents[-1] * out.dtype.size
    if row % _tma().alignment or (tile.swizzle is not SmemSwizzle.NONE and row != tile.swizzle.span):
        raise LoweringError(f"{name}: the TMA store box row is {row} bytes; it must be a multiple of "
                            f"{_tma().alignment} bytes and exactly the {tile.swizzle.name} swizzle span of T{tile.name} when swizzled")
    result = TmaBox(out, out, dims, tuple(bulk.get(r) for r in dims), tuple(box_extents), tuple(issue),
                    shared=tile, issuers=tuple(issuers), issuer_warp=first_warp(ids, tuple(issuers)),
                    wait=out.store_wait, stages=out.store_stages)
    tile_axes = buffers.alloc_ids[tile]
    inner = [i.extent.const_value() for i in tile_axes[len(tile_axes) - len(bulk):]]
    if inner != [e for r, e in zip(dims, box_extents) if r in bulk]:
        raise LoweringError(f"{name}: TMA stores T{tile.name} box by box, so its innermost allocated axes "
                            f"[{', '.join(i.label() for i in tile_axes)}] must be the box "
                            f"{' x '.join(str(e) for e in box_extents)}")
    return result


def first_warp(ids: IdModel, dims: tuple[ParallelType, ...]) -> Val:
    """The first warp of the threads whose indices on ``dims`` are this thread's (warp 0 for none)."""
    linear, stride = Val.const(0), Val.const(1)
    for pt in (ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz):
        if pt in dims:
            linear = linear + Val.symbol(pt.cuda_index) * stride
        stride = stride * ids.launch[pt]
    return linear // 32


def _check_issuers(ids: IdModel, name: str, issuers: tuple[ParallelType, ...]) -> None:
    """A load each index of ``issuers`` issues for itself is issued by a thread elected in that index's first warp,
    so each index's threads must be whole warps: the issuers are the outermost thread dimensions launched and the
    threads inside one index (the extents of the dimensions before them) a constant multiple of the warp size."""
    if not issuers:
        return
    order = (ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz)
    first = min(order.index(pt) for pt in issuers)
    outer = [pt for pt in order[first:] if pt not in issuers and ids.launch[pt].const_value() != 1]
    inner = Val.const(1)
    for pt in order[:first]:
        inner = inner * ids.launch[pt]
    threads, warp = inner.const_value(), current_target().warp_size
    if not outer and threads is not None and threads % warp == 0:
        return
    why = (f"the thread dimension {outer[0].name} is outside them" if outer
           else f"one index holds {inner} threads, not a multiple of {warp}")
    dims = ", ".join(pt.name for pt in issuers)
    raise LoweringError(f"{name} is loaded by TMA per index of {dims} (computed inside those thread axes), each "
                        f"index's copies issued by a thread elected in its first warp, so each index must hold whole "
                        f"warps, but {why}; keep thread-parallel axes out of a TMA-loaded tensor (compute it outside "
                        f"them)")


def analyze(ids: IdModel, buffers: BufferPlan, tv: TensorView) -> TmaBox:
    """The box of ``tv``; raises ``LoweringError`` naming the axis and the rule it breaks."""
    name = f"T{tv.name}"
    source = tv.definition.inputs[0]
    view = ids.views.get(source)
    if view is not None:
        why = tma_refusal(view)
        if why is not None:
            raise LoweringError(f"{name} is loaded by TMA from T{source.name}, a view of T{view.source.name} that TMA "
                                f"cannot read: {why}")
        source = view.source
        dims = tuple(source.shape_ids)
    elif not source.is_input:
        raise LoweringError(f"{name} is loaded by TMA from T{source.name}, which is not a fusion input (nor a chain "
                            f"of pads, reshapes and permutes of one, read by nothing else); TMA reads a global tensor")
    else:
        root_of = {p: c for c, p in tv.definition.root_map(source).items()}
        dims = tuple(root_of[p] for p in source.shape_ids)
    if not dims:
        raise LoweringError(f"{name} is loaded by TMA from T{source.name}, which is 0-D; a TMA box needs at least "
                            f"one dimension")
    if len(dims) > _tma().max_rank:
        raise LoweringError(f"{name}: a TMA box has at most {_tma().max_rank} dimensions; T{source.name} has "
                            f"{len(dims)}")

    issue: list[IterDomain] = []
    issuers: list[ParallelType] = []
    turn = turn_axis(ids, tv)
    for k, i in enumerate(tv.loop):
        pt = ids.group(i).parallel_type
        if i.is_broadcast or i.is_reduction or i is turn:
            continue    # the producer walks a turn axis as a serial loop
        if pt.is_thread and k < tv.compute_at_pos and tv.circular_buffer_options is None:
            issuers.append(pt)      # a thread index the tile is computed inside: each loads its own boxes
            continue
        if pt.is_thread:
            where = "left of" if k < tv.compute_at_pos else "right of"
            raise LoweringError(f"{name} is loaded by TMA, which one elected thread issues per block (or per index "
                                f"of the thread axes an unpipelined load is computed inside), but its axis "
                                f"{i.label()} {where} the compute-at position is {pt.name}; keep thread-parallel "
                                f"axes out of a TMA-loaded tensor (compute it outside them)")
        if pt.is_block:
            continue    # each block loads its own boxes
        if k >= tv.compute_at_pos and pt not in (ParallelType.Bulk, ParallelType.Serial, ParallelType.Unroll):
            raise LoweringError(f"{name}: axis {i.label()} is {pt.name}; a TMA-loaded tensor's axes right of its "
                                f"compute-at position are Bulk (the box), block indices or serial loops that issue "
                                f"one box each")
        if k >= tv.compute_at_pos and pt is not ParallelType.Bulk:
            issue.append(i)
    _check_issuers(ids, name, tuple(issuers))
    bulk_axes = [i for i in tv.loop if ids.group(i).parallel_type is ParallelType.Bulk]
    if not bulk_axes:
        raise LoweringError(f"{name} is loaded by TMA but has no Bulk axis; parallelize the axes of the box with "
                            f"ParallelType.Bulk")
    bulk: dict[IterDomain, IterDomain] = {}
    extents: dict[IterDomain, int] = {}
    for b in bulk_axes:
        root = _innermost_root(tv, b)
        extent = b.extent.const_value()
        if extent is None:
            raise LoweringError(f"{name}: Bulk axis {b.label()} has symbolic extent {b.extent}; TMA box extents are "
                                f"compile-time constants (split by a constant)")
        if not 1 <= extent <= _tma().max_box:
            raise LoweringError(f"{name}: Bulk axis {b.label()} has extent {extent}; a TMA box extent must be in "
                                f"[1, {_tma().max_box}]")
        if view is not None:
            spans = _view_span(tv, view, b, root, extent)
        elif root not in dims:
            raise LoweringError(f"{name}: Bulk axis {b.label()} comes from {root.label()}, which is not a "
                                f"dimension of T{source.name}")
        else:
            spans = [(root, extent)]
        for dim, width in spans:
            if dim in bulk:
                raise LoweringError(f"{name}: Bulk axes {bulk[dim].label()} and {b.label()} both come from "
                                    f"{dim.label()}; a TMA box has one extent per dimension (merge them or make "
                                    f"one serial)")
            bulk[dim] = b
            extents[dim] = width
    box = tuple(extents.get(r, 1) for r in dims)
    if view is not None and dims[-1] not in bulk and len(bulk) > 0:
        raise LoweringError(f"{name}: TMA reads rows of T{source.name}'s contiguous dimension {dims[-1].label()} "
                            f"(its last), but no Bulk axis of {name} runs along it (its Bulk axes run along "
                            f"{', '.join(d.label() for d in dims if d in bulk)}); make the box's innermost axis the "
                            f"one that is {dims[-1].label()} through the views")
    row = box[-1] * tv.dtype.size
    if row % _tma().alignment:
        raise LoweringError(f"{name}: the innermost TMA box row is {box[-1]} x {tv.dtype.short_name} = {row} bytes; "
                            f"it must be a multiple of {_tma().alignment} bytes")
    if tv.swizzle is not SmemSwizzle.NONE and row != tv.swizzle.span:
        raise LoweringError(f"{name}: the innermost TMA box row is {row} bytes, but a row of its {tv.swizzle.name} "
                            f"swizzle is exactly {tv.swizzle.span} bytes (TMA lays each swizzled row out at the "
                            f"full span)")

    result = TmaBox(tv, source, dims, tuple(bulk.get(r) for r in dims), box, tuple(issue), view=view,
                    issuers=tuple(issuers), issuer_warp=first_warp(ids, tuple(issuers)))
    _check_layout(buffers, result)
    return result


def _view_span(tv: TensorView, view: ViewChain, b: IterDomain, root: IterDomain,
               extent: int) -> list[tuple[IterDomain, int]]:
    """The dimensions of ``view``'s source (and the extent along each) that Bulk axis ``b`` of ``tv`` (of ``extent``,
    the inner part of ``tv``'s root axis ``root``) covers through the views; raises where they are not a dense
    range of the source."""
    end_axis = tv.definition.root_map(view.end)[root]
    span = view.span(end_axis, extent)
    if isinstance(span, str):
        raise LoweringError(f"T{tv.name}: Bulk axis {b.label()} reads {extent} consecutive elements of "
                            f"{end_axis.label()} of T{view.end.name}, a view of T{view.source.name}, which are not "
                            f"a dense box of T{view.source.name}: {span}")
    return span


def _innermost_root(tv: TensorView, b: IterDomain) -> IterDomain:
    """The root axis ``b`` is the innermost part of; raises unless ``b`` is the inner side of splits."""
    root = innermost_root(b)
    if root is None:
        raise LoweringError(f"T{tv.name}: Bulk axis {b.label()} is not the innermost part of one dimension "
                            f"(it must be the inner output of splits, never merged or an outer part), so it "
                            f"cannot be a dense TMA box")
    return root


def _check_layout(buffers: BufferPlan, info: TmaBox) -> None:
    tv = info.tv
    axes = buffers.alloc_ids[tv]
    present = list(dict.fromkeys(b for b in info.bulk if b is not None))     # a merged Bulk axis spans two
    tail = axes[len(axes) - len(present):] if present else []
    if list(tail) != present:
        order = ", ".join(b.label() for b in present)
        raise LoweringError(f"T{tv.name}: TMA writes each box densely, so its Bulk axes ({order}) must be the "
                            f"innermost allocated axes of T{tv.name}, in the dimension order of T{info.source.name}; "
                            f"reorder T{tv.name}")
    boxes = Val.const(1)
    for i in axes[:len(axes) - len(present)]:
        boxes = boxes * i.extent
    boxes = boxes * buffers.stages.get(tv, 1)
    align = max(_tma().smem_alignment, tv.swizzle.alignment)
    what = "" if tv.swizzle is SmemSwizzle.NONE else f" (a whole repeat of its {tv.swizzle.name} swizzle)"
    if info.box_bytes % align and boxes.const_value() != 1:
        raise LoweringError(f"T{tv.name}: every TMA box must start {align}-byte aligned in shared memory{what}, but a "
                            f"box is {info.box_bytes} bytes and T{tv.name} holds {boxes} of them; make the box a "
                            f"multiple of {align} bytes")


def _tensor_map(info: TmaInfo, buffers: BufferPlan, box: TmaBox, swizzle: SmemSwizzle) -> TensorMapParam:
    """The kernel parameter describing ``box.source`` with this box (one per TMA-loaded or -stored tensor)."""
    base = f"tmap_T{box.source.name}"
    taken = {m.name for m in info.tensor_maps.values()}
    name = base if base not in taken else f"{base}_T{box.tv.name}"
    return TensorMapParam(name, buffers.buffers[box.source], tuple(reversed(box.box)), swizzle=swizzle)
