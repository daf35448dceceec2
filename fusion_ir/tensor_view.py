"""TensorView: a tensor of the fusion with its domains and the scheduling API.

Every scheduling method validates its arguments first and runs inside a fusion
transaction, so a call that raises ``ScheduleError`` leaves the fusion exactly as it was.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

from target import current as current_target

from . import replay
from .circular_buffer import AUTO, CircularBufferOptions, Pipelined, WarpSpecialized
from .exprs import (ASYNC_LOADS, BinaryOp, BroadcastOp, CastOp, Expr, LoadStoreOp, MmaOp, ReductionOp, UnaryOp, in_order,
                    is_view_expr, load_kind, view_source)
from .iter_domain import IterDomain, KnownTrue, Merge, Split, Transform, TripBound, innermost_root, made_from
from .persistent import first_unmappable_loop_axis
from .scalar import Val
from .types import (DataType, IterType, LoadStoreOpType, MemoryType, ParallelType, ScheduleError, SmemSwizzle,
                    StoreWait)

if TYPE_CHECKING:
    from .fusion import Fusion

_BYTES_PER_VECTOR = 16
_MISALIGNED_VECTOR_BYTES = (4, 8, 16)

# the writes that may lay a shared tensor out swizzled (each places its elements through the swizzle)
SWIZZLED_WRITERS = (LoadStoreOpType.TMA, LoadStoreOpType.CpAsync, LoadStoreOpType.Set, LoadStoreOpType.StMatrix)


class Axis:
    """``tv.axis(i)``: one loop axis of a tensor, parallelized through its tensor."""

    def __init__(self, tv: TensorView, index: int) -> None:
        self.tv = tv
        self.index = index
        self.id = tv.loop[index]

    def parallelize(self, parallel_type: ParallelType) -> Axis:
        """Bind this axis to ``parallel_type`` (see ``TensorView.parallelize``).

        The handle names an IterDomain, as ``tv->axis(i)`` does in nvFuser: after a reorder it
        follows the axis to its new index; after a transform that replaced it (split, merge,
        rfactor, the replay of compute_at) it is refused rather than applied to whatever axis now sits at its old index.
        """
        index = next((k for k, i in enumerate(self.tv.loop) if i is self.id), None)
        if index is None:
            raise self.tv._err(f"parallelize: the handle tv.axis({self.index}) to {self.id.label()} is stale: "
                               f"a split, merge, rfactor or compute_at has replaced that axis since; take tv.axis(i) again")
        self.index = index
        self.tv.parallelize(index, parallel_type)
        return self

    def __getattr__(self, name: str) -> Any:
        return getattr(self.id, name)

    def __str__(self) -> str:
        return self.id.label()

    def __repr__(self) -> str:
        return f"Axis(T{self.tv.name}, {self.index}, {self.id.label()})"


class TensorView:
    def __init__(self, fusion: Fusion, root: list[IterDomain], dtype: DataType,
                 memory_type: MemoryType = MemoryType.Local) -> None:
        self.fusion = fusion
        self.name = fusion.new_tensor_name()
        self.dtype = dtype
        self.memory_type = memory_type
        self.root: list[IterDomain] = list(root)
        self.logical: list[IterDomain] = list(root)
        self.loop: list[IterDomain] = list(root)
        self.transforms: list[Transform] = []
        self.definition: Expr | None = None
        self.compute_at_pos = 0
        self.circular_buffer_options: CircularBufferOptions | None = None
        self.swizzle = SmemSwizzle.NONE
        self.store_wait = StoreWait.AfterBoxes   # a TMA-store output: when its issuer waits for the tile's reads
        self.store_stages = 1                    # a TMA-store output: shared tiles its stores rotate through
        self.shared_reuse = True                 # a Shared buffer: may share memory with others (``set_shared_reuse``)
        # the serial loop axis whose iterations the warp groups along a thread dimension share, taking turns on
        # each tensor-core issue section of an iteration (``take_turns``)
        self.turns: tuple[IterDomain, ParallelType] | None = None
        # a tensor-core matmul issued one iteration late in this serial loop axis, after the next iteration's first
        # tensor-core section (``defer``)
        self.deferred: IterDomain | None = None
        # a TMA load whose tile the blocks of a cluster along this block index share (``set_multicast``)
        self.multicast: ParallelType | None = None
        # The axes a Shared tensor's buffer is laid out in (row-major), when not its loop axes right of the
        # compute-at position (nvFuser's allocation domain): ``set_allocation_domain``.
        self.allocation: list[IterDomain] | None = None
        # Loop broadcasts: an operand of a matmul lacks one of its consumer's dimensions (A has no N,
        # B no M). Computed inside loops over that dimension, it gains a broadcast axis standing for
        # it in its loop domain only (nvFuser's loop-domain broadcast), keyed by the consumer's root.
        self.loop_broadcasts: dict[IterDomain, IterDomain] = {}
        # Loop-only broadcast axes of a constant extent that ``broadcast_loop`` inserted (nvFuser's
        # ``TensorView::broadcast(axis, extent)``): the value does not vary along them; merged into a thread
        # axis, each of those threads computes its own copy.
        self.broadcast_loop_axes: list[IterDomain] = []
        # Made by ``cache_after`` or ``cache_before`` (a schedule's copy stage, not an ``ops.set`` of the definition)
        self.is_cache = False

    # ---- structure ------------------------------------------------------
    @property
    def ndim(self) -> int:
        """The number of loop axes."""
        return len(self.loop)

    def nDims(self) -> int:
        """The number of loop axes (nvFuser's spelling)."""
        return len(self.loop)

    def size(self, dim: int) -> Val:
        """The extent of logical axis ``dim`` (reduction axes not counted; negative counts from the end), a
        ``Val``: a constant, or a symbol the launch binds from the input shapes. Usable as a scalar operand
        of ``ops.div``, ``ops.mul``, ... (nvFuser's ``TensorView::axis(dim)->extent()`` / ``fd.ops.size``)."""
        ids = self.shape_ids
        if isinstance(dim, bool) or not isinstance(dim, int) or not -len(ids) <= dim < len(ids):
            raise ScheduleError(f"size: dim {dim!r} is out of range for T{self.name} of rank {len(ids)}; a dim is "
                                f"an int in [{-len(ids)}, {len(ids)}) (negative counts from the end)")
        return ids[dim].extent

    @property
    def is_input(self) -> bool:
        """True for a fusion input."""
        return self in self.fusion.inputs

    @property
    def is_output(self) -> bool:
        """True for a fusion output."""
        return self in self.fusion.outputs

    def uses(self) -> list[Expr]:
        """The expressions that read this tensor."""
        return [e for e in self.fusion.exprs if self in e.inputs]

    def consumers(self) -> list[TensorView]:
        """The tensors computed from this one."""
        return [e.output for e in self.uses()]

    def producers(self) -> list[TensorView]:
        """The tensors this one is computed from."""
        return [] if self.definition is None else self.definition.tensor_inputs()

    def ancestors(self) -> set[TensorView]:
        """Every tensor this one is computed from, directly or through others."""
        out: set[TensorView] = set()
        stack = self.producers()
        while stack:
            p = stack.pop()
            if p not in out:
                out.add(p)
                stack.extend(p.producers())
        return out

    @property
    def max_producer_pos(self) -> int:
        """The deepest compute-at position of a producer inlined into this tensor."""
        return max((p.compute_at_pos for p in self.producers()), default=0)

    @property
    def shape_ids(self) -> list[IterDomain]:
        """The logical axes that are materialized in memory (reduction axes dropped)."""
        return [i for i in self.logical if not i.is_reduction]

    @property
    def has_reduction(self) -> bool:
        """True when a logical axis is a reduction axis."""
        return any(i.is_reduction for i in self.logical)

    def axis(self, i: int) -> Axis:
        """Loop axis ``i`` (negative counts from the end), to parallelize or inspect."""
        return Axis(self, self._norm_axis(i, "axis"))

    # ---- printing -------------------------------------------------------
    def label(self) -> str:
        """The nvFuser-style name: ``T3_s_float``."""
        return f"T{self.name}_{self.memory_type.value}_{self.dtype.short_name}"

    def __str__(self) -> str:
        text = f"{self.label()}[{', '.join(i.label() for i in self.loop)}]"
        if self.compute_at_pos > 0:
            text += f" ca_pos({self.compute_at_pos})"
        if self.max_producer_pos > 0:
            text += f" produce_pos({self.max_producer_pos})"
        return text

    def __repr__(self) -> str:
        return str(self)

    def transforms_string(self) -> str:
        """Root, logical and loop domains with the splits and merges between them."""
        lines = [f"T{self.name}:"]
        lines.append(f" root domain : ({', '.join(i.label() for i in self.root)})")
        if self.logical != self.root:
            lines.append(f" logical domain : ({', '.join(i.label() for i in self.logical)})")
        for t in self.transforms:
            lines.append(f"  {t}")
        lines.append(f" loop domain : ({', '.join(i.label() for i in self.loop)})")
        if self.circular_buffer_options is not None:
            lines.append(f" {self.circular_buffer_options}")
        if self.swizzle is not SmemSwizzle.NONE:
            lines.append(f" swizzle: {self.swizzle.name}")
        if self.store_wait is not StoreWait.AfterBoxes:
            ring = f", {self.store_stages} stages" if self.store_stages > 1 else ""
            lines.append(f" store wait: {self.store_wait.value}{ring}")
        if not self.shared_reuse:
            lines.append(" shared memory: its own (no reuse)")
        if self.multicast is not None:
            lines.append(f" multicast: {self.multicast.name}")
        if self.allocation is not None:
            lines.append(f" allocation domain : ({', '.join(i.label() for i in self.allocation)})")
        return "\n".join(lines)

    def print_transforms(self) -> None:
        """Print ``transforms_string()``."""
        print(self.transforms_string())

    # ---- validation helpers --------------------------------------------
    def _err(self, msg: str) -> ScheduleError:
        return ScheduleError(f"T{self.name}: {msg}")

    def _norm_axis(self, i: Any, what: str) -> int:
        if isinstance(i, bool) or not isinstance(i, int):
            raise self._err(f"{what}: axis {i!r} is not an integer")
        n = len(self.loop)
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            raise self._err(f"{what}: axis {i} is out of range for a tensor with {n} loop axes")
        return j

    def _axis_desc(self, i: int) -> str:
        return f"axis {i} ({self.loop[i].label()})"

    def _check_fusion(self, other: TensorView, what: str) -> None:
        if not isinstance(other, TensorView):
            raise self._err(f"{what}: expected a TensorView, got {type(other).__name__}")
        if other.fusion is not self.fusion:
            raise self._err(f"{what}: T{other.name} belongs to another fusion than T{self.name}")

    def _check_outside_inlined(self, axes: Iterable[int], what: str) -> None:
        for a in axes:
            if a < self.compute_at_pos:
                raise self._err(f"{what}: {self._axis_desc(a)} is inside the compute-at position "
                                f"{self.compute_at_pos}; transform it before compute_at")
            if a < self.max_producer_pos:
                raise self._err(f"{what}: {self._axis_desc(a)} is inside the produce position "
                                f"{self.max_producer_pos} (a producer is computed at it)")

    def _inlined_desc(self) -> str:
        return f"compute-at position {self.compute_at_pos}, produce position {self.max_producer_pos}"

    def _check_not_input(self, what: str) -> None:
        if self.is_input:
            raise self._err(f"{what}: T{self.name} is a fusion input; inputs are not computed, "
                            f"schedule a cache of it (cache_after) instead")

    # ---- transforms -----------------------------------------------------
    def split(self, axis: int, factor: int, inner_split: bool = True) -> TensorView:
        """Split loop axis ``axis`` by ``factor``: ``[.., ceilDiv(n, f), f, ..]`` (inner) or ``[.., f, ceilDiv(n, f), ..]``."""
        a = self._norm_axis(axis, "split")
        if isinstance(factor, bool) or not isinstance(factor, int) or factor <= 0:
            raise self._err(f"split: factor {factor!r} for {self._axis_desc(a)} must be a positive integer")
        self._check_outside_inlined([a], "split")
        if self.loop[a].parallel_type is not ParallelType.Serial:
            # the parts of a split start unbound: the binding would be lost without a word
            raise self._err(f"split: {self._axis_desc(a)} is {self.loop[a].parallel_type.name}-parallel; "
                            f"split it before parallelizing")
        with self.fusion.transaction():
            s = replay.make_split(self.fusion, self.loop[a], factor, inner_split)
            replay.apply_transform(self.loop, s)
            self.transforms.append(s)
        return self

    def inner_split(self, axis: int, factor: int) -> TensorView:
        """``split(axis, factor)``: the inner axis has extent ``factor``."""
        return self.split(axis, factor, inner_split=True)

    def outer_split(self, axis: int, factor: int) -> TensorView:
        """``split(axis, factor, inner_split=False)``: the outer axis has extent ``factor``."""
        return self.split(axis, factor, inner_split=False)

    def merge(self, axis_o: int, axis_i: int | None = None) -> TensorView:
        """Merge loop axes ``axis_o`` and ``axis_i`` (default ``axis_o + 1``) into one."""
        a = self._norm_axis(axis_o, "merge")
        if axis_i is None and a == len(self.loop) - 1:
            raise self._err(f"merge: {self._axis_desc(a)} is the last loop axis; there is no axis {a + 1} "
                            f"to merge it with")
        b = self._norm_axis(a + 1 if axis_i is None else axis_i, "merge")
        if a == b:
            raise self._err(f"merge: cannot merge {self._axis_desc(a)} with itself")
        ida, idb = self.loop[a], self.loop[b]
        if {ida.iter_type, idb.iter_type} == {IterType.Reduction, IterType.Iteration}:
            raise self._err(f"merge: cannot merge reduction axis with iteration axis "
                            f"({self._axis_desc(a)} and {self._axis_desc(b)})")
        return self._merge(a, b, "merge")

    def merge_grouped(self, axis_o: int, axis_i: int, group: int) -> TensorView:
        """Merge loop axes ``axis_o`` and ``axis_i`` into one that walks them in grouped order (``GroupedMerge``):
        ``group`` consecutive indices of ``axis_o`` for each index of ``axis_i``, then the next ``group`` of
        ``axis_o``; the last group holds the indices left, so every index of the merged axis is one of the two
        axes' own (Triton's grouped tile order: ``group`` rows of tiles share each column's operand in L2). The
        merged axis takes the place of the first of the two. ``group`` 1 is ``merge(axis_o, axis_i)``."""
        a = self._norm_axis(axis_o, "merge_grouped")
        b = self._norm_axis(axis_i, "merge_grouped")
        if a == b:
            raise self._err(f"merge_grouped: cannot merge {self._axis_desc(a)} with itself")
        if isinstance(group, bool) or not isinstance(group, int) or group < 1:
            raise self._err(f"merge_grouped: group must be a positive int (indices of {self._axis_desc(a)} walked "
                            f"per index of {self._axis_desc(b)}), got {group!r}")
        for i in (a, b):
            if self.loop[i].is_reduction:
                raise self._err(f"merge_grouped: {self._axis_desc(i)} is a reduction axis; a grouped order walks "
                                f"iteration (or broadcast) axes")
        return self._merge(a, b, "merge_grouped", group)

    def merge_lanes(self, axis_o: int, axis_i: int | None = None) -> TensorView:
        """Merge iteration axis ``axis_o`` (the outer part) with reduction axis ``axis_i`` (default ``axis_o + 1``,
        the inner part) into one reduction axis, to be bound to TIDx: a reduction across lane groups.

        The threads that differ only in ``axis_i``'s part are ``axis_i``'s extent consecutive lanes of one warp (a
        power of two up to the warp size); they combine their values by warp shuffles (``shfl.xor``) and every
        one of them ends with the group's result, so a consumer reads it in registers. A row reduction of a wgmma
        accumulator fragment is one: the 4 lanes of a quad hold the column pairs of a row
        (``schedulers.schedule_mma_fragment`` of a reduction). ``merge`` refuses such a pair."""
        a = self._norm_axis(axis_o, "merge_lanes")
        if axis_i is None and a == len(self.loop) - 1:
            raise self._err(f"merge_lanes: {self._axis_desc(a)} is the last loop axis; there is no axis {a + 1} "
                            f"to merge it with")
        b = self._norm_axis(a + 1 if axis_i is None else axis_i, "merge_lanes")
        if a == b:
            raise self._err(f"merge_lanes: cannot merge {self._axis_desc(a)} with itself")
        ida, idb = self.loop[a], self.loop[b]
        if ida.iter_type is not IterType.Iteration or made_from(ida, lambda x: x.is_reduction):
            raise self._err(f"merge_lanes: the outer axis {self._axis_desc(a)} must be an iteration axis (the "
                            f"lane groups), made from no reduction axis")
        if not idb.is_reduction or made_from(idb, lambda x: x.iter_type is IterType.Iteration):
            raise self._err(f"merge_lanes: the inner axis {self._axis_desc(b)} must be a reduction axis (the lanes "
                            f"of a group), made from reduction axes only")
        lanes, warp = idb.extent.const_value(), current_target().warp_size
        if lanes is None or lanes < 2 or lanes > warp or lanes & (lanes - 1):
            raise self._err(f"merge_lanes: the inner axis {self._axis_desc(b)} must have a constant extent that is a "
                            f"power of two from 2 to the warp size ({warp}): its lanes reduce by warp shuffles")
        return self._merge(a, b, "merge_lanes")

    def broadcast_loop(self, axis: int, extent: int) -> TensorView:
        """Insert a loop-only broadcast axis of constant ``extent`` at loop position ``axis`` (``0..ndim``;
        negative counts from the end, ``-1`` appends), as nvFuser's ``TensorView::broadcast(axis, extent)``.

        The tensor's values do not vary along it; it joins the loop domain only, to be merged with other axes and
        bound to a thread index, so that each of ``extent`` threads computes the same value in its own registers.
        A per-row value of a wgmma accumulator fragment is one: ``[rows, b4]`` merged into TIDx lays it out as the
        fragment's rows with the quad's 4 lanes, ``TIDx = 4 * row + lane``, and every lane of the quad holds its
        row's value, read in registers by the fragment's threads (``lowering.analysis.id_model`` checks that the
        consumer's thread axis merges the same rows with as many lanes). The lowering requires the axis merged into
        an iteration axis bound to a thread index, and the tensor in Local memory."""
        n = len(self.loop)
        if isinstance(axis, bool) or not isinstance(axis, int) or not -n - 1 <= axis <= n:
            raise self._err(f"broadcast_loop: position {axis!r} must be an integer in [{-n - 1}, {n}] (where the new "
                            f"axis goes among {n} loop axes; negative counts from the end)")
        if isinstance(extent, bool) or not isinstance(extent, int) or extent < 1:
            raise self._err(f"broadcast_loop: extent {extent!r} must be a positive integer (a loop-only broadcast has "
                            f"a constant extent)")
        self._check_not_input("broadcast_loop")
        a = axis + n + 1 if axis < 0 else axis
        limit = max(self.compute_at_pos, self.max_producer_pos)
        if a < limit:
            raise self._err(f"broadcast_loop: position {axis} is inside the loops T{self.name} shares "
                            f"({self._inlined_desc()}); insert loop broadcasts before compute_at")
        with self.fusion.transaction():
            b = self.fusion.new_iter_domain(Val.const(extent), IterType.Broadcast)
            self.loop.insert(a, b)
            self.broadcast_loop_axes = self.broadcast_loop_axes + [b]
        return self

    def _merge(self, a: int, b: int, what: str, group: int | None = None) -> TensorView:
        ida, idb = self.loop[a], self.loop[b]
        self._check_outside_inlined([a, b], what)
        for i in (a, b):
            if self.loop[i].parallel_type is not ParallelType.Serial:
                # a merged axis starts unbound: the binding would be lost without a word
                raise self._err(f"{what}: {self._axis_desc(i)} is {self.loop[i].parallel_type.name}-parallel; "
                                f"merge it before parallelizing")
        with self.fusion.transaction():
            m = replay.make_merge(self.fusion, ida, idb, group)
            pos = min(a, b)
            rest = [i for k, i in enumerate(self.loop) if k not in (a, b)]
            rest.insert(pos, m.out)
            self.loop[:] = rest
            self.transforms.append(m)
        return self

    def reorder(self, old2new: dict[int, int]) -> TensorView:
        """Move loop axes: ``{old: new}``; the other axes keep their relative order."""
        n = len(self.loop)
        if not isinstance(old2new, dict):
            raise self._err(f"reorder: expected a dict {{old: new}}, got {type(old2new).__name__}")
        olds = [self._norm_axis(k, "reorder") for k in old2new]
        news = [self._norm_axis(v, "reorder") for v in old2new.values()]
        if len(set(olds)) != len(olds):
            raise self._err(f"reorder: map {old2new} is not a permutation (an old axis appears twice)")
        if len(set(news)) != len(news):
            raise self._err(f"reorder: map {old2new} is not a permutation (two axes go to one position)")
        perm: list[int | None] = [None] * n
        for o, nw in zip(olds, news):
            perm[nw] = o
        remaining = iter([k for k in range(n) if k not in olds])
        order = [p if p is not None else next(remaining) for p in perm]
        fixed = max(self.compute_at_pos, self.max_producer_pos)
        for pos in range(fixed):
            if order[pos] != pos:
                raise self._err(f"reorder: map {old2new} moves axes inside the compute-at/produce position {fixed}")
        with self.fusion.transaction():
            self.loop[:] = [self.loop[k] for k in order]
        return self

    # ---- parallelization ------------------------------------------------
    def parallelize(self, axis: int, parallel_type: ParallelType) -> TensorView:
        """Bind loop axis ``axis`` to a block, thread, Bulk, Vectorize, Unroll or Mma index."""
        a = self._norm_axis(axis, "parallelize")
        if not isinstance(parallel_type, ParallelType):
            raise self._err(f"parallelize: {parallel_type!r} is not a ParallelType")
        if self.is_input:
            raise self._err(f"parallelize: T{self.name} is a fusion input; it is not computed, so {self._axis_desc(a)} "
                            f"is no loop to bind: parallelize the tensors that read it (or a cache_after of it)")
        self._validate_parallel_type(a, parallel_type)
        with self.fusion.transaction():
            self.loop[a].parallel_type = parallel_type
            if parallel_type is ParallelType.Bulk:
                self._check_swizzle_span("parallelize")
        return self

    def bound_loop(self, axis: int, *, outer: int | IterDomain, scale: int, offset: int, divisor: int,
                   reason: str) -> TensorView:
        """Stop the serial loop of ``axis`` at ``min(extent, ceilDiv(max(0, index(outer) * scale + offset), divisor))``
        where ``outer`` is a block-parallel axis before it: each block skips the iterations past its bound. ``outer``
        may also be an IterDomain of the tensor's transforms that is no loop axis (a persistent kernel's query tile,
        merged into the tile index a grid-strided serial loop and a block index walk): its index is then computed from
        the loop axes it went into, which must all be before ``axis`` and bound to a block index or serial (outside
        the loop, uniform over a block).

        The caller has proved that the skipped iterations change nothing (``reason`` says how, e.g.
        ``online_softmax.bound_key_blocks``: key blocks every score of which a causal mask sets to -inf); this
        checks only that the loop can stop early: a serial loop inside a block index, the bound uniform over the
        block."""
        a = self._norm_axis(axis, "bound_loop")
        desc = self._axis_desc(a)
        if self.loop[a].parallel_type is not ParallelType.Serial:
            raise self._err(f"bound_loop: {desc} is bound to {self.loop[a].parallel_type.name}; only a serial loop "
                            f"can stop early (its trip count differs per block)")
        if isinstance(outer, IterDomain):
            outer_id = self._uniform_outer(outer, a, "bound_loop", f"the bound of {desc}")
        else:
            o = self._norm_axis(outer, "bound_loop")
            if o >= a or not self.loop[o].parallel_type.is_block:
                raise self._err(f"bound_loop: the bound of {desc} reads {self._axis_desc(o)}, which must be an axis "
                                f"before it bound to a block index (BIDx/y/z), so the trip count is one per block")
            outer_id = self.loop[o]
        for name, v, least in (("scale", scale, 0), ("offset", offset, None), ("divisor", divisor, 1)):
            if isinstance(v, bool) or not isinstance(v, int) or (least is not None and v < least):
                raise self._err(f"bound_loop: {name} {v!r} of the bound of {desc} must be an int"
                                + (f" >= {least}" if least is not None else ""))
        self.loop[a].trip_bound = TripBound(outer_id, scale, offset, divisor, reason)
        return self

    def stream_k(self, tiles: int, k: int, *, blocks: int) -> TensorView:
        """Run the reduction of this tensor over serial axis ``k`` (its K tiles), inside serial axis ``tiles`` (its
        output tiles), as stream-K over ``blocks`` blocks along blockIdx.x (``fusion_ir/stream_k.py``): each block
        takes a contiguous range of the flattened ``tiles x k`` iterations; the partials of a tile split between
        blocks are summed in block order by the last of them to finish, which alone computes what is computed from
        the tile. One stream-K decomposition per fusion."""
        from .stream_k import StreamK

        t, kk = self._norm_axis(tiles, "stream_k"), self._norm_axis(k, "stream_k")
        what = f"stream_k: T{self.name}"
        if isinstance(blocks, bool) or not isinstance(blocks, int) or blocks < 1:
            raise self._err(f"{what}: blocks {blocks!r} must be a positive int")
        if t >= kk:
            raise self._err(f"{what}: the tile axis {self._axis_desc(t)} must come before the K axis "
                            f"{self._axis_desc(kk)} (a block walks tiles, and the K tiles of each)")
        for a, role in ((t, "tile"), (kk, "K")):
            if self.loop[a].parallel_type is not ParallelType.Serial:
                raise self._err(f"{what}: the {role} axis {self._axis_desc(a)} is bound to "
                                f"{self.loop[a].parallel_type.name}; stream-K bounds its loop per block, so it must "
                                f"be a serial loop")
        if self.loop[t].is_reduction or not self.loop[kk].is_reduction:
            raise self._err(f"{what}: {self._axis_desc(kk)} must be a reduction axis and {self._axis_desc(t)} an "
                            f"iteration axis (stream-K splits a reduction's K tiles between blocks)")
        if any(i.parallel_type.is_block for i in self.loop):
            raise self._err(f"{what}: an axis is bound to a block index; stream-K's blocks are its own (blockIdx.x "
                            f"deals out the iterations)")
        if self.fusion.stream_k is not None and self.fusion.stream_k.tensor_name != self.name:
            raise self._err(f"{what}: the fusion already runs T{self.fusion.stream_k.tensor_name} as stream-K; one "
                            f"stream-K decomposition per fusion")
        self.fusion.stream_k = StreamK(self.name, self.loop[t], self.loop[kk], blocks)
        return self

    def _uniform_outer(self, outer: IterDomain, a: int, op: str, what: str) -> IterDomain:
        """``outer``, an IterDomain of this tensor's transforms that is no loop axis, when its index is uniform over a
        block and fixed during the loop of axis ``a``: the loop axes it went into (through splits and merges) are all
        before ``a`` and each bound to a block index or serial."""
        if any(outer is i for i in self.loop):
            raise self._err(f"{op}: {what} reads {outer.label()}, a loop axis: give its position instead")
        found = {id(outer)}
        known = {id(i) for t in self.transforms for i in (*t.inputs, *t.outputs)} | {id(i) for i in self.logical}
        if id(outer) not in known:
            raise self._err(f"{op}: {what} reads {outer.label()}, which is not an axis of T{self.name}'s transforms")
        for t in self.transforms:
            if any(id(i) in found for i in t.inputs):
                found |= {id(i) for i in t.outputs}
        into = [k for k, i in enumerate(self.loop) if id(i) in found]
        for k in into:
            pt = self.loop[k].parallel_type
            if k >= a or not (pt.is_block or pt is ParallelType.Serial):
                raise self._err(f"{op}: {what} reads {outer.label()}, which goes into {self._axis_desc(k)}: every loop "
                                f"axis it goes into must be before axis {a} and bound to a block index or serial, so "
                                f"its index is one per block and fixed during the loop")
        return outer

    def version_loop(self, axis: int, known_true: list[tuple[TensorView, int | IterDomain | None, int, int | Val, int]],
                     reason: str) -> TensorView:
        """Run the serial loop of ``axis`` in two ranges: first the iterations where every ``where`` of
        ``known_true`` takes its value branch, computed without their conditions (nor what only the conditions
        read), then the rest as written. Each entry ``(where, outer, scale, offset, divisor)`` says its condition is
        true in the iterations below ``floor(max(0, index(outer) * scale + offset) / divisor)`` (``outer`` a
        block-parallel axis before ``axis``; None with scale 0: the same for every block); the first range ends at
        the smallest.

        The caller has proved the conditions (``reason``, e.g. ``online_softmax.mask_only_where_needed``: the
        causal mask of the key blocks every row of a query tile sees whole); this checks that each entry is a where
        and the loop can be split per block."""
        a = self._norm_axis(axis, "version_loop")
        desc = self._axis_desc(a)
        if self.loop[a].parallel_type is not ParallelType.Serial:
            raise self._err(f"version_loop: {desc} is bound to {self.loop[a].parallel_type.name}; only a serial loop "
                            f"runs in two ranges")
        entries = []
        for where, outer, scale, offset, divisor in known_true:
            d = where.definition if isinstance(where, TensorView) else None
            if d is None or type(d).__name__ != "WhereOp":
                raise self._err(f"version_loop: {where!s} is not a where; the first range of {desc} computes a "
                                f"where's value branch in its place")
            if outer is None:
                if scale != 0:
                    raise self._err(f"version_loop: T{where.name}'s bound of {desc} has scale {scale} and no outer "
                                    f"axis; a bound without a block index has scale 0")
                outer_id = None
            elif isinstance(outer, IterDomain):
                outer_id = self._uniform_outer(outer, a, "version_loop", f"T{where.name}'s bound of {desc}")
            else:
                o = self._norm_axis(outer, "version_loop")
                if o >= a or not self.loop[o].parallel_type.is_block:
                    raise self._err(f"version_loop: T{where.name}'s bound of {desc} reads {self._axis_desc(o)}, which "
                                    f"must be an axis before it bound to a block index (BIDx/y/z)")
                outer_id = self.loop[o]
            if isinstance(divisor, bool) or not isinstance(divisor, int) or divisor < 1:
                raise self._err(f"version_loop: divisor {divisor!r} of T{where.name}'s bound must be an int >= 1")
            entries.append(KnownTrue(where, outer_id, scale, offset, divisor))
        self.loop[a].known_true = tuple(entries)
        return self

    def _validate_parallel_type(self, a: int, pt: ParallelType) -> None:
        i = self.loop[a]
        desc = self._axis_desc(a)
        if pt.is_grid_or_thread:
            for k, other in enumerate(self.loop):
                if k != a and other.parallel_type is pt:
                    raise self._err(f"parallelize: {desc} and {self._axis_desc(k)} are both bound to {pt.name}")
        if pt not in (ParallelType.Serial, ParallelType.Unroll) and self._on_running_axis(i):
            e = self.definition
            raise self._err(f"parallelize: {desc} is a piece of axis {e.axis} of {e.op_string()} T{self.name}, a "
                            f"running total walked in order by one thread; it cannot be bound to {pt.name} (only "
                            f"Serial or Unroll: bind another axis to threads and blocks)")
        if pt.is_block and i.is_reduction and pt is not ParallelType.BIDz:
            raise self._err(f"parallelize: reduction {desc} cannot be bound to {pt.name}; grid reductions "
                            f"(the blocks' partials summed by the last block to arrive) run on BIDz only")
        if pt is ParallelType.Bulk:
            if load_kind(self) not in (LoadStoreOpType.TMA, LoadStoreOpType.TMAStore, LoadStoreOpType.StMatrix):
                raise self._err(f"parallelize: Bulk on {desc} needs a tensor loaded by TMA "
                                f"(cache_after(LoadStoreOpType.TMA)), stored by TMA or written by stmatrix")
        if pt.never_inlined and a < self.compute_at_pos:
            raise self._err(f"parallelize: {desc} is inside the compute-at position {self.compute_at_pos}; "
                            f"{pt.name} axes are never inlined")
        if pt.never_inlined and a < self.max_producer_pos:
            raise self._err(f"parallelize: {desc} is inside the produce position {self.max_producer_pos} "
                            f"(a producer is computed inside it); {pt.name} axes are never inlined")
        if pt is not ParallelType.Serial:
            self._check_shared_loop_bindings(a, pt)
        if pt.vectorizes:
            width = i.extent.const_value()
            if width is None:
                raise self._err(f"parallelize: {pt.name} on {desc} needs a constant extent")
            nbytes = width * self.dtype.size
            if width & (width - 1) != 0:
                raise self._err(f"parallelize: {pt.name} width {width} on {desc} is not a power of two")
            if nbytes > _BYTES_PER_VECTOR:
                raise self._err(f"parallelize: {pt.name} width {width} on {desc} is {nbytes} bytes, "
                                f"over the {_BYTES_PER_VECTOR}-byte limit")
            if i.is_reduction:
                raise self._err(f"parallelize: {pt.name} on reduction {desc} is not supported")
        if pt is ParallelType.MisalignedVectorize:
            self._check_misaligned_vector(desc, i.extent.const_value())
        if pt is ParallelType.Mma and not isinstance(self.definition, MmaOp):
            raise self._err(f"parallelize: Mma on {desc} needs a tensor defined by matmul")

    def _check_misaligned_vector(self, desc: str, width: int) -> None:
        """A misaligned vector is a plain copy of a fusion input (aligned to one element only): its source is read
        as the aligned words covering the vector, shifted into place, so the vector must hold at least two elements
        of at most 4 bytes and be 4, 8 or 16 bytes (the lowering checks that it is stored into shared memory)."""
        d = self.definition
        source = d.inputs[0] if isinstance(d, LoadStoreOp) and d.inputs else None
        if load_kind(self) is not LoadStoreOpType.Set or not isinstance(source, TensorView) or not source.is_input:
            raise self._err(f"parallelize: MisalignedVectorize on {desc} needs a plain copy of a fusion input "
                            f"(cache_after(LoadStoreOpType.Set)); T{self.name} is not one")
        nbytes = width * self.dtype.size
        if width < 2 or self.dtype.size > 4 or nbytes not in _MISALIGNED_VECTOR_BYTES:
            raise self._err(f"parallelize: MisalignedVectorize on {desc} copies {width} x "
                            f"{self.dtype.short_name} = {nbytes} bytes; a misaligned vector is 4, 8 or 16 bytes of "
                            f"at least two elements of at most 4 bytes")

    def _on_running_axis(self, i: IterDomain) -> bool:
        """``i`` is made of the axis an order-dependent total (a scan, a rescaled sum) runs along."""
        if not in_order(self.definition):
            return False
        running = self.root[self.definition.axis]
        return made_from(i, lambda x: x is running)

    def _check_shared_loop_bindings(self, a: int, pt: ParallelType) -> None:
        """An axis that shares its loop with a producer's or consumer's axis (compute_at) takes one binding."""
        mine = self.loop[a]
        sharers: list[tuple[TensorView, IterDomain]] = []
        if a < self.compute_at_pos:
            for c in self.consumers():
                cid = replay.loop_map(self, c).get(mine)
                if cid is not None:
                    sharers.append((c, cid))
        for p in self.producers():
            mapping = replay.loop_map(p, self)
            sharers += [(p, pid) for pid in p.loop[:p.compute_at_pos] if mapping.get(pid) is mine]
        for other, oid in sharers:
            if oid.parallel_type not in (ParallelType.Serial, pt):
                raise self._err(f"parallelize: {self._axis_desc(a)} shares its loop with {oid.label()} of "
                                f"T{other.name} (compute_at), which is bound to {oid.parallel_type.name}; "
                                f"binding it to {pt.name} conflicts")

    def parallelize_like(self, reference: TensorView,
                         types: Iterable[ParallelType] | None = None) -> TensorView:
        """Copy ``reference``'s bindings onto the axes of this tensor that map to its axes."""
        self._check_fusion(reference, "parallelize_like")
        allowed = set(types) if types is not None else {
            ParallelType.BIDx, ParallelType.BIDy, ParallelType.BIDz,
            ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz, ParallelType.Unroll}
        mapping = replay.map_ids_between(reference, self)
        with self.fusion.transaction():
            for ref_id in reference.loop:
                mine = mapping.get(ref_id)
                if mine is None or mine not in self.loop or ref_id.parallel_type not in allowed:
                    continue
                self.parallelize(self.loop.index(mine), ref_id.parallel_type)
        return self

    def transform_like(self, reference: TensorView) -> TensorView:
        """Replay ``reference``'s splits, merges and order onto this tensor."""
        self._check_fusion(reference, "transform_like")
        if reference is self:
            return self
        if self.compute_at_pos > 0 or self.max_producer_pos > 0:
            raise self._err(f"transform_like: T{self.name} is already inlined ({self._inlined_desc()}); "
                            "propagate transforms before compute_at")
        id_map = replay.root_map_between(reference, self)
        with self.fusion.transaction():
            keep = [t for t in self.transforms if _is_logical_transform(self, t)]
            leaves = list(self.logical)
            new, m = replay.replay_transforms(self.fusion, reference.transforms, id_map, leaves,
                                              target=self, what="transform_like")
            ordered: list[IterDomain] = []
            for ref_id in reference.loop:
                mine = m.get(ref_id)
                if mine is not None and mine in leaves and mine not in ordered:
                    ordered.append(mine)
            ordered += [i for i in leaves if i not in ordered]
            self._carry_bindings([t for t in self.transforms if t not in keep], new, ordered, "transform_like",
                                 f"replaying T{reference.name}'s transforms remakes it")
            self.transforms = keep + new
            self.loop = ordered
            self.loop_broadcasts = {}    # replayed from the logical domain: no loop-only axes left
            self.broadcast_loop_axes = []
        return self

    # ---- inlining -------------------------------------------------------
    def compute_at(self, consumer: TensorView, pos: int) -> TensorView:
        """Compute this tensor inside the first ``pos`` loops of ``consumer`` (replaying its transforms)."""
        self._check_fusion(consumer, "compute_at")
        self._check_not_input("compute_at")
        if isinstance(pos, bool) or not isinstance(pos, int):
            raise self._err(f"compute_at: position {pos!r} is not an integer")
        path = self.fusion.tensors_between(self, consumer)
        if path is None:
            raise self._err(f"compute_at: T{consumer.name} is not a consumer of T{self.name}")
        n = consumer.ndim
        p = pos + n + 1 if pos < 0 else pos
        if not 0 <= p <= n:
            raise self._err(f"compute_at: position {pos} is out of range for consumer T{consumer.name} "
                            f"with {n} loop axes (valid: {-n - 1}..{n})")
        for k in range(p):
            cid = consumer.loop[k]
            if cid.parallel_type.never_inlined:
                raise self._err(f"compute_at: position {pos} is past {cid.parallel_type.name} axis {k} "
                                f"({cid.label()}) of T{consumer.name}; {cid.parallel_type.name} axes are never inlined")
        with self.fusion.transaction():
            # Replay nearest-to-consumer first so each tensor replays an already-updated consumer.
            chain = [t for t in self.fusion.topological_order() if t in path or t is self]
            for tv in reversed(chain):
                target = next(c for c in tv.consumers() if c is consumer or c in path)
                tv._replay_as_consumer(target, p)
                tv._check_shares_loops(target, p)
            for tv in chain:
                tv._check_off_path_consumers(path | {consumer}, consumer, p)
        return self

    def _check_shares_loops(self, consumer: TensorView, pos: int) -> None:
        """After the replay, each of the first ``pos`` loop axes is the consumer's (the loop map joins them), as the
        lowering requires: a replay that merged a loop broadcast standing for some of a consumer axis's parts only
        (the consumer's own broadcast axis after the last axis they share) makes an axis of another extent."""
        mapping = replay.loop_map(self, consumer)
        for k in range(pos):
            if mapping.get(self.loop[k]) is not consumer.loop[k]:
                raise self._err(f"compute_at: position {pos} needs axis {k} ({consumer.loop[k].label()}) of "
                                f"T{consumer.name}, and the replay of it onto T{self.name} gives "
                                f"{self.loop[k].label()}, which is not the same loop (it comes from axes T{self.name} "
                                f"lacks only in part); compute at position <= {k}")

    def _check_off_path_consumers(self, on_path: set[TensorView], consumer: TensorView, pos: int) -> None:
        """A tensor computed at ``pos`` shares those loops with every consumer, not only the one on the path."""
        for c in self.consumers():
            if c in on_path:
                continue
            mapping = replay.loop_map(self, c)
            for k in range(pos):
                if k >= c.ndim or mapping.get(self.loop[k]) is not c.loop[k]:
                    theirs = f"axis {k} ({c.loop[k].label()})" if k < c.ndim else f"no axis {k}"
                    raise self._err(f"compute_at: T{self.name} also feeds T{c.name}, whose loop {theirs} is not "
                                    f"T{self.name}'s {self._axis_desc(k)}; a tensor computed at position {pos} "
                                    f"must share those loops with all its consumers (schedule T{c.name} like "
                                    f"T{consumer.name} first, or compute at position <= {k})")

    def _replay_as_consumer(self, consumer: TensorView, pos: int) -> None:
        """Replay consumer's first ``pos`` loop axes onto self and inline self at ``pos``."""
        p2c = replay.producer_to_consumer_root(self, consumer)
        c2p = {c: p for p, c in p2c.items()}
        cone = replay.ancestors_transforms(consumer, consumer.loop[:pos])
        leaves = list(self.logical)
        # A consumer axis this tensor has no counterpart of (a matmul operand lacks the other operand's
        # dimension; a broadcast adds axes; a consumer's own loop broadcast): computed inside that
        # loop, this tensor is broadcast along it and gains a loop-only broadcast axis standing for it.
        # Outside a matmul only where the loop encloses axes the two share: a broadcast axis after the
        # last of them would only repeat this tensor's whole computation, so it stays an error.
        # Only the loop broadcasts this position needs stay: the loop domain is rebuilt from the
        # logical domain, so one an earlier, deeper compute_at gave and this one does not is gone.
        loop_broadcasts: dict[IterDomain, IterDomain] = {}
        for r in self._loop_broadcast_roots(consumer, pos, set(c2p)):
            b = self.loop_broadcasts.get(r)
            if b is None:
                b = self.fusion.new_iter_domain(Val.const(1), IterType.Broadcast)
            loop_broadcasts[r] = b
            c2p[r] = b
            leaves.insert(0, b)
        new, m = replay.replay_transforms(self.fusion, cone, c2p, leaves, target=self, what="compute_at")
        shared = []
        for k in range(pos):
            mine = m.get(consumer.loop[k])
            if mine is None or mine not in leaves or mine in shared:
                reds = [i for i in self.logical if i.is_reduction]
                why = (f" (T{self.name} has reduction axis {reds[0].label()}; reduction axes are never "
                       f"inlined)" if reds else "")
                if not reds and consumer.loop[k].is_broadcast:
                    why = (f" (a broadcast axis after the last axis they share: computed inside its loop, "
                           f"T{self.name} would only be repeated)")
                raise self._err(f"compute_at: position {pos} needs axis {k} ({consumer.loop[k].label()}) of "
                                f"T{consumer.name}, which has no counterpart in T{self.name}{why}; "
                                f"compute at position <= {k}")
            shared.append(mine)
        # Keep this tensor's own transforms of the axes the replay left alone; an axis shared with
        # the consumer keeps the consumer's form, so this tensor's own splits or merges of it go.
        kept = [t for t in self.transforms if _is_logical_transform(self, t)]
        for t in self.transforms:
            if t in kept or any(i in shared for i in t.inputs):
                continue
            if all(i in leaves for i in t.inputs):
                replay.apply_transform(leaves, t)
                kept.append(t)
        rest_from_consumer = [m[c] for c in consumer.loop[pos:] if m.get(c) in leaves]
        rest_old = [i for i in self.loop if i in leaves]
        rest = []
        for i in rest_from_consumer + rest_old + leaves:
            if i not in shared and i not in rest:
                rest.append(i)
        self._carry_bindings([t for t in self.transforms if t not in kept], new, shared + rest, "compute_at",
                             f"position {pos} replays T{consumer.name}'s transforms of it")
        for k, i in enumerate(shared):
            if i.is_reduction:
                raise self._err(f"compute_at: axis {k} ({i.label()}) is a reduction axis of T{self.name}; "
                                f"reduction axes are never inlined")
            if i.parallel_type.never_inlined:
                raise self._err(f"compute_at: axis {k} ({i.label()}) of T{self.name} is "
                                f"{i.parallel_type.name}-parallel; {i.parallel_type.name} axes are never inlined")
            cid = consumer.loop[k]
            cpt = cid.parallel_type
            if cpt is ParallelType.Serial:
                continue
            if i.parallel_type is not ParallelType.Serial and i.parallel_type is not cpt:
                raise self._err(f"compute_at: axis {k} ({i.label()}) of T{self.name} is bound to "
                                f"{i.parallel_type.name} but shares the loop of {cid.label()} of T{consumer.name}, "
                                f"bound to {cpt.name}; conflicting parallel bindings")
            i.parallel_type = cpt
        self.transforms = kept + new
        self.loop = shared + rest
        self.loop_broadcasts = loop_broadcasts
        self.broadcast_loop_axes = []   # the loop domain is rebuilt from the logical domain
        self.compute_at_pos = pos
        self._check_unique_bindings("compute_at")

    def _loop_broadcast_roots(self, consumer: TensorView, pos: int, mapped: set[IterDomain]) -> list[IterDomain]:
        """The consumer's root axes (and loop broadcasts) without a counterpart here that this tensor,
        computed at ``pos`` of ``consumer``, needs loop broadcasts for."""
        prefix = consumer.loop[:pos]
        needed = set(_leaf_ancestors(consumer, prefix))
        lone = [r for r in list(consumer.root) + list(consumer.loop_broadcasts.values())
                if r not in mapped and not r.is_reduction and r in needed]
        if isinstance(consumer.definition, MmaOp):
            return lone
        # a shared axis that is not made of lone axes alone, and the last of them
        lone_set = set(lone)
        sharing = [k for k, i in enumerate(prefix) if not _comes_from_only(consumer, i, lone_set)]
        if not sharing:
            return []
        inside = set(_leaf_ancestors(consumer, prefix[:sharing[-1] + 1]))
        return [r for r in lone if r in inside]

    def _carry_bindings(self, dropped: list[Transform], new: list[Transform], new_loop: list[IterDomain],
                        what: str, why: str) -> None:
        """Keep the bindings of loop axes that a replay (compute_at, transform_like) takes away: each goes to
        the axis a replayed transform makes in its place, the same split or merge of the same axes. An axis
        with none is refused rather than its binding (a Bulk box, thread index, ...) silently lost."""
        lost = [(k, i) for k, i in enumerate(self.loop) if i.parallel_type is not ParallelType.Serial
                and i not in new_loop]
        if not lost:
            return
        counterpart = replay.match_replayed(dropped, new)
        for k, i in lost:
            j = counterpart.get(i)
            if j is None or j not in new_loop:
                raise self._err(f"{what}: {self._axis_desc(k)} is {i.parallel_type.name}-parallel, but {why} "
                                f"differently and the binding would be lost; {what} first, then split and "
                                f"parallelize T{self.name}'s remaining axes")
            if j.parallel_type not in (ParallelType.Serial, i.parallel_type):
                raise self._err(f"{what}: {self._axis_desc(k)} is {i.parallel_type.name}-parallel, but its "
                                f"counterpart {j.label()} after the replay is bound to {j.parallel_type.name}; "
                                f"conflicting parallel bindings")
            j.parallel_type = i.parallel_type

    def _check_unique_bindings(self, what: str) -> None:
        """No two loop axes of one tensor may be bound to the same block or thread index."""
        seen: dict[ParallelType, int] = {}
        for k, i in enumerate(self.loop):
            pt = i.parallel_type
            if not pt.is_grid_or_thread:
                continue
            if pt in seen:
                raise self._err(f"{what}: {self._axis_desc(seen[pt])} and {self._axis_desc(k)} would both be "
                                f"bound to {pt.name}")
            seen[pt] = k

    def inline_at(self, pos: int) -> TensorView:
        """Share this tensor's first ``pos`` loops with its consumers (their transforms must already match)."""
        self._check_not_input("inline_at")
        if isinstance(pos, bool) or not isinstance(pos, int):
            raise self._err(f"inline_at: position {pos!r} is not an integer")
        n = self.ndim
        p = pos + n + 1 if pos < 0 else pos
        if not 0 <= p <= n:
            raise self._err(f"inline_at: position {pos} is out of range for {n} loop axes")
        if p > 0 and not self.consumers():
            raise self._err(f"inline_at: T{self.name} has no consumer to be inlined into")
        limit = self.max_inline_position()
        if p > limit:
            raise self._err(f"inline_at: position {p} is past the largest legal position {limit} "
                            f"({self._inline_block_reason(limit)})")
        bindings = self._bindings_from_consumers(p, "inline_at")
        with self.fusion.transaction():
            self.compute_at_pos = p
            for k, pt in bindings.items():
                self.loop[k].parallel_type = pt
            self._check_unique_bindings("inline_at")
        return self

    def _bindings_from_consumers(self, pos: int, what: str) -> dict[int, ParallelType]:
        """Parallel types the first ``pos`` loop axes take from the consumer axes they share loops with."""
        out: dict[int, ParallelType] = {}
        source: dict[int, str] = {}
        for c in self.consumers():
            mapping = replay.loop_map(self, c)
            for k in range(pos):
                mine = self.loop[k]
                cpt = mapping[mine].parallel_type
                if cpt is ParallelType.Serial:
                    continue
                have = out.get(k, mine.parallel_type)
                if have is not ParallelType.Serial and have is not cpt:
                    other = source.get(k, f"T{self.name}")
                    raise self._err(f"{what}: {self._axis_desc(k)} would share the loop of {mapping[mine].label()} "
                                    f"of T{c.name}, bound to {cpt.name}, but is bound to {have.name} by {other}; "
                                    f"conflicting parallel bindings")
                out[k] = cpt
                source[k] = f"T{c.name}"
        return out

    def _own_inline_stop(self) -> int:
        """The first loop axis that this tensor itself keeps out of any shared loop: a reduction, Bulk
        or Vectorize axis, or an axis it must hold whole as a persistent buffer."""
        persistent = first_unmappable_loop_axis(self)
        stop = len(self.loop) if persistent is None else persistent[0]
        for k, i in enumerate(self.loop[:stop]):
            if i.is_reduction or i.parallel_type.never_inlined:
                return k
        return stop

    def gain_loop_broadcasts(self) -> list[IterDomain]:
        """Give this tensor loop broadcasts for its consumer's broadcast axes it lacks in front of axes
        they share, so it can be inlined past them (what ``inline_most`` does first).

        ``out[i, j] = x[i, j] * broadcast(cast(w))[j]``: the cast's loops ``[j/128, 128]`` sit inside
        the broadcast's ``[b, j/128, 128]``; with a loop broadcast standing for ``b`` the cast's axes
        line up with the broadcast's, position by position, and it is computed inside the loop ``b``
        resolves to (``i``), as nvFuser's computeAt skips a consumer's broadcast axes. The consumer's
        transforms of those broadcast axes are replayed onto the loop broadcasts. Nothing changes for a
        tensor with several consumers or one already inlined or inlined into. Returns the new axes.
        """
        consumers = self.consumers()
        if self.is_input or len(consumers) != 1 or self.compute_at_pos > 0 or self.max_producer_pos > 0:
            return []
        consumer = consumers[0]
        mapped_roots = set(replay.producer_to_consumer_root(self, consumer).values())
        lone = {r for r in list(consumer.root) + list(consumer.loop_broadcasts.values())
                if r.is_broadcast and r not in mapped_roots}
        if not lone:
            return []
        mapping = replay.loop_map(self, consumer)
        stop = self._own_inline_stop()
        gaps: list[IterDomain] = []
        pending: list[IterDomain] = []
        j = 0
        for cid in consumer.loop:
            if j < stop and mapping.get(self.loop[j]) is cid:
                gaps += pending
                pending = []
                j += 1
            elif _comes_from_only(consumer, cid, lone):
                pending.append(cid)
            else:
                break
        if not gaps:
            return []
        with self.fusion.transaction():
            cone = replay.ancestors_transforms(consumer, gaps)
            c2p: dict[IterDomain, IterDomain] = {}
            leaves: list[IterDomain] = []
            for r in sorted(_leaf_ancestors(consumer, gaps), key=lambda i: i.name):
                b = self.loop_broadcasts.get(r)
                if b is None:
                    b = self.fusion.new_iter_domain(Val.const(1), IterType.Broadcast)
                    self.loop_broadcasts[r] = b
                c2p[r] = b
                leaves.append(b)
            new, m = replay.replay_transforms(self.fusion, cone, c2p, leaves, target=self, what="inline_most")
            loop: list[IterDomain] = []
            j = 0
            for cid in consumer.loop:
                if cid in gaps:
                    loop.append(m[cid])
                elif j < len(self.loop) and mapping.get(self.loop[j]) is cid:
                    loop.append(self.loop[j])
                    j += 1
                else:
                    break
            loop += [i for i in self.loop if i not in loop] + [i for i in leaves if i not in loop]
            self.transforms = self.transforms + new
            self.loop = loop
        return [m[g] for g in gaps]

    def max_inline_position(self) -> int:
        """Largest position whose axes map to every consumer's axes at the same positions."""
        consumers = self.consumers()
        if not consumers:
            return 0
        maps = [(c, replay.loop_map(self, c)) for c in consumers]
        stop = self._own_inline_stop()
        pos = 0
        for k, i in enumerate(self.loop[:stop]):
            ok = True
            for c, mp in maps:
                cid = mp.get(i)
                never_inlined = cid is not None and cid.parallel_type.never_inlined
                if k >= c.ndim or cid is not c.loop[k] or never_inlined:
                    ok = False
                    break
            if not ok:
                break
            pos = k + 1
        return pos

    def _inline_block_reason(self, limit: int) -> str:
        if limit >= self.ndim:
            return "all axes"
        i = self.loop[limit]
        if i.is_reduction:
            return f"axis {limit} ({i.label()}) is a reduction axis"
        if i.parallel_type.never_inlined:
            return f"axis {limit} ({i.label()}) is {i.parallel_type.name}-parallel"
        persistent = first_unmappable_loop_axis(self)
        if persistent is not None and persistent[0] == limit:
            return (f"axis {limit} ({i.label()}) cannot share a loop with all consumers: {persistent[1].describe(self)}, "
                    f"so T{self.name} is a persistent buffer")
        return f"axis {limit} ({i.label()}) does not map to its consumers' axis {limit}"

    # ---- caching and memory --------------------------------------------
    def cache_after(self, op_type: LoadStoreOpType = LoadStoreOpType.Set,
                    swizzle: SmemSwizzle = SmemSwizzle.NONE) -> TensorView:
        """Insert a copy of this tensor read by all its uses (a TMA or cp.async load, or a register cache);
        ``swizzle`` lays out a TMA copy (see ``set_swizzle``)."""
        if not isinstance(op_type, LoadStoreOpType):
            raise self._err(f"cache_after: {op_type!r} is not a LoadStoreOpType")
        if op_type in (LoadStoreOpType.TMAStore, LoadStoreOpType.StMatrix):
            raise self._err(f"cache_after: {op_type.name} is a store; use cache_before on an output")
        source = view_source(self)
        if source is not None and op_type in (LoadStoreOpType.TMA, LoadStoreOpType.CpAsync):
            self._check_view_load(source, op_type)
        elif op_type in (LoadStoreOpType.TMA, LoadStoreOpType.CpAsync) and self.memory_type is not MemoryType.Global:
            raise self._err(f"cache_after: a {op_type.name} load reads global memory, but T{self.name} "
                            f"is in {self.memory_type.name} memory")
        if op_type is LoadStoreOpType.TMA and not self.shape_ids:
            raise self._err(f"cache_after: T{self.name} is 0-D; a TMA load copies a box of a tensor with at least "
                            f"one dimension (use LoadStoreOpType.Set or CpAsync)")
        if self.compute_at_pos > 0:
            raise self._err(f"cache_after: T{self.name} is already inlined ({self._inlined_desc()}); "
                            f"cache before compute_at")
        uses = self.uses()
        global_loads = [u for u in uses if _reads_global_memory(u)]
        if global_loads:
            load = global_loads[0]
            raise self._err(f"cache_after: T{load.output.name} loads T{self.name} with {load.op_type.name}, which reads "
                            f"global memory; the new cache would become its source (cache T{self.name} once, or "
                            f"cache T{load.output.name} instead)")
        with self.fusion.transaction():
            mem = MemoryType.Shared if op_type in (LoadStoreOpType.TMA, LoadStoreOpType.CpAsync) else MemoryType.Local
            cache = self.fusion.new_tensor_like(self, memory_type=mem)
            cache.is_cache = True
            expr = LoadStoreOp(inputs=[self], outputs=[cache], op_type=op_type)
            for use in uses:
                use.inputs = [cache if x is self else x for x in use.inputs]
            self.fusion.insert_expr(expr)
            if swizzle is not SmemSwizzle.NONE:
                cache.set_swizzle(swizzle)
        return cache

    def _check_view_load(self, source: TensorView, op_type: LoadStoreOpType) -> None:
        """A TMA or cp.async load of a chain of views (pads, reshapes, permutes) of a fusion input reads that input
        through the views' index map (``fusion_ir.views``); the views themselves are never computed. What TMA
        cannot read (a pad by a value other than zero, ...) lowering refuses (``lowering/analysis/tma.py``)."""
        if source.memory_type is not MemoryType.Global:
            raise self._err(f"cache_after: a {op_type.name} load of T{self.name} reads its source "
                            f"T{source.name}, which is in {source.memory_type.name} memory")
        if self.is_output:
            raise self._err(f"cache_after: T{self.name} is a view of T{source.name} and a fusion output; a "
                            f"{op_type.name} load reads T{source.name} in place of the view, which is then "
                            f"never computed")

    def set_load_type(self, op_type: LoadStoreOpType, swizzle: SmemSwizzle = SmemSwizzle.NONE) -> TensorView:
        """Make the copy that defines this tensor (``ops.set``, ``ops.permute``, ``ops.transpose`` of a global
        tensor) a TMA load: it then reads its global input in place, box by box, into shared memory (nvFuser's
        ``LoadStoreOp::setOpType``), or a cp.async load (element by element, or vectors along the input's
        innermost dimension). A permuted copy stays permuted: TMA copies boxes in the input's own
        dimension order and this tensor's axes name them permuted, so ``transpose(b)`` of a ``[N, K]`` input is a
        ``[K, N]`` operand whose shared tile is laid out K-major, as ``b`` is. ``swizzle`` as in ``cache_after``."""
        if not isinstance(op_type, LoadStoreOpType):
            raise self._err(f"set_load_type: {op_type!r} is not a LoadStoreOpType")
        if op_type not in ASYNC_LOADS:
            raise self._err(f"set_load_type: {op_type.name} for T{self.name}; a copy becomes a TMA or cp.async load "
                            f"only (LoadStoreOpType.TMA, LoadStoreOpType.CpAsync); use cache_after for other loads")
        d = self.definition
        if not isinstance(d, LoadStoreOp) or d.op_type is not LoadStoreOpType.Set:
            how = ("a fusion input" if d is None else f"defined by a {d.op_type.name} copy"
                   if isinstance(d, LoadStoreOp) else type_name(d))
            raise self._err(f"set_load_type: T{self.name} is {how}; only a tensor defined by a plain copy (ops.set, "
                            f"ops.permute, ops.transpose) becomes a TMA load")
        (source,) = d.tensor_inputs()
        if source.memory_type is not MemoryType.Global:
            raise self._err(f"set_load_type: a TMA load reads global memory, but T{self.name} copies T{source.name}, "
                            f"which is in {source.memory_type.name} memory")
        if not self.shape_ids:
            raise self._err(f"set_load_type: T{self.name} is 0-D; a TMA load copies a box of a tensor with at least "
                            f"one dimension")
        if self.is_output:
            raise self._err(f"set_load_type: T{self.name} is a fusion output and stays in Global memory; a TMA "
                            f"load writes shared memory")
        if self.compute_at_pos > 0 or self.max_producer_pos > 0 or self.transforms:
            raise self._err(f"set_load_type: T{self.name} is already scheduled; set its load type first")
        with self.fusion.transaction():
            load = LoadStoreOp(inputs=[source], outputs=[self], op_type=op_type, permutation=d.permutation)
            self.fusion.exprs[self.fusion.exprs.index(d)] = load
            self.definition = load
            self.memory_type = MemoryType.Shared
            if swizzle is not SmemSwizzle.NONE:
                self.set_swizzle(swizzle)
        return self

    def set_swizzle(self, swizzle: SmemSwizzle) -> TensorView:
        """Have TMA write this shared tensor with a 32-, 64- or 128-byte swizzle (readers index through it).

        Rules: only a TMA load, a cp.async or plain copy into shared memory (each element, or vector of at most
        16 bytes, written at its swizzled place) or stmatrix writes a swizzled layout; a TMA box row (the Bulk axis of the innermost
        dimension) is exactly the swizzle span (TMA lays every swizzled row out at the full span, so a
        shorter row would overrun the buffer); elements divide the 16-byte chunks the swizzle moves.
        """
        if not isinstance(swizzle, SmemSwizzle):
            raise self._err(f"set_swizzle: {swizzle!r} is not an SmemSwizzle")
        if swizzle is not SmemSwizzle.NONE and load_kind(self) not in SWIZZLED_WRITERS:
            raise self._err(f"set_swizzle: T{self.name} is not loaded by TMA, cp.async or a plain copy, nor written by "
                            f"stmatrix; only those write a swizzled shared-memory layout "
                            f"(cache_after(LoadStoreOpType.TMA, swizzle=...))")
        if swizzle is not SmemSwizzle.NONE and self.memory_type is not MemoryType.Shared:
            raise self._err(f"set_swizzle: T{self.name} is in {self.memory_type.name} memory; a swizzle lays out "
                            f"shared memory")
        if swizzle is not SmemSwizzle.NONE and 16 % self.dtype.size:
            raise self._err(f"set_swizzle: T{self.name} has {self.dtype.size}-byte elements; a swizzle moves "
                            f"16-byte chunks, which they must divide")
        with self.fusion.transaction():
            self.swizzle = swizzle
            self._check_swizzle_span("set_swizzle")
        return self

    def set_multicast(self, along: ParallelType) -> TensorView:
        """The blocks of a thread-block cluster that differ only in the block index ``along`` (BIDx, BIDy or
        BIDz) load the same tile of this TMA-loaded tensor: each issues 1/n of every box (n: the cluster's
        extent along ``along``, ``Fusion.set_cluster_dims``) with ``.multicast::cluster``, which writes it
        into the shared memory of all n blocks. Lowering checks that the boxes do not depend on that block
        index and that the cluster spans it."""
        if along not in (ParallelType.BIDx, ParallelType.BIDy, ParallelType.BIDz):
            raise self._err(f"set_multicast: {along!r} is not a block index (BIDx, BIDy or BIDz); a multicast "
                            f"shares a tile between the blocks of a cluster along one block index")
        if load_kind(self) is not LoadStoreOpType.TMA:
            raise self._err(f"set_multicast: T{self.name} is not loaded by TMA; only a TMA load "
                            f"(cp.async.bulk.tensor) can multicast into the blocks of a cluster")
        self.multicast = along
        return self

    def set_allocation_domain(self, axes: list[IterDomain]) -> TensorView:
        """Lay this Shared tensor's buffer out row-major over ``axes`` (outermost first) instead of over its loop
        axes right of the compute-at position (nvFuser's ``setAllocationDomain``): the loads may then be spread
        over threads and vectors by further splits and merges while the buffer keeps the layout its readers
        expect (a wgmma operand tile: rows of one swizzle span).

        Rules: the tensor is in Shared memory; each axis is one of its own, from its transforms (root, loop or
        in between), none twice, none a reduction or broadcast; together they are exactly what the loop axes
        right of the compute-at position cover (every later split or merge divides evenly)."""
        if self.memory_type is not MemoryType.Shared:
            raise self._err(f"set_allocation_domain: T{self.name} is in {self.memory_type.name} memory; only a "
                            f"Shared buffer takes an allocation domain")
        known = set(self.root) | set(self.logical) | set(self.loop)
        for t in self.transforms:
            known.update(t.inputs)
            known.update(t.outputs)
        for k, i in enumerate(axes):
            if not isinstance(i, IterDomain) or i not in known:
                name = i.label() if isinstance(i, IterDomain) else repr(i)
                raise self._err(f"set_allocation_domain: axis {k} ({name}) is not an axis of T{self.name}'s "
                                f"transforms")
            if i.is_reduction or i.is_broadcast:
                raise self._err(f"set_allocation_domain: axis {k} ({i.label()}) of T{self.name} is a "
                                f"{'reduction' if i.is_reduction else 'broadcast'}; a buffer holds neither")
        if len(set(axes)) != len(axes):
            raise self._err(f"set_allocation_domain: T{self.name}'s axes "
                            f"[{', '.join(i.label() for i in axes)}] name an axis twice")
        with self.fusion.transaction():
            self.allocation = list(axes)
        return self

    def set_store_wait(self, wait: StoreWait | str, stages: int = 1) -> TensorView:
        """When the thread that issues this TMA-store output's boxes waits until they have read the shared tile.

        ``"after_boxes"`` (the default): once, right after it has issued and committed every box of the
        tile (``cp.async.bulk.wait_group.read 0``); the barrier at the end of the loop then lets the next
        iteration write the tile. ``"deferred"``: not until the loop's next iteration is about to write
        the tile again: the wait and then the barrier go right before that write, so the stores overlap
        what comes in between (the next tile's main loop), and one wait after the loop retires the last
        ones before the threads exit. Only a tensor written by ``cache_before(LoadStoreOpType.TMAStore)``
        has a store to wait for. ``wait`` is a ``StoreWait`` or its string.

        ``stages`` (with ``"deferred"``): the shared tile is a ring of that many tiles, iteration ``i`` of the
        innermost loop the tile is computed in writing tile ``i % stages``; the wait before a write lets the
        stores of the ``stages - 1`` iterations before it still read theirs (``cp.async.bulk.wait_group.read``
        of their groups), and one wait after the loop retires the rest. A sub-tiled epilogue's next sub-tile is
        computed and written while the previous ones are stored.

        ``"carried"``: as ``"deferred"``, and the last stores of the loop are carried into the next iteration of the
        loops around it (a persistent kernel's tile loop), whose first writes wait for them as for any other: one
        wait after the outermost such loop retires the rest. A loop around it carries them only where the ring's
        order goes on across its iterations (the inner loop's iterations a multiple of ``stages``) and it stores no
        other TMA-stored tensor (the tile, as a deferred one, is allocated outside it); elsewhere the wait stays where
        ``"deferred"`` puts it (``lowering/passes/store_waits.py``).
        """
        if load_kind(self) is not LoadStoreOpType.TMAStore:
            d = self.definition
            how = ("a fusion input" if d is None else f"defined by a {d.op_type.name} copy"
                   if isinstance(d, LoadStoreOp) else type_name(d))
            raise self._err(f"set_store_wait: T{self.name} is not written by a TMA store ({how}); only the output "
                            f"of cache_before(LoadStoreOpType.TMAStore) issues TMA stores to wait for")
        chosen = StoreWait.of(wait)
        if chosen is None:
            raise self._err(f"set_store_wait: {wait!r} for T{self.name} is not a store wait; use one of "
                            f"{StoreWait.choices()}")
        if isinstance(stages, bool) or not isinstance(stages, int) or stages < 1:
            raise self._err(f"set_store_wait: stages={stages!r} for T{self.name} must be a positive int (the shared "
                            f"tiles its stores rotate through)")
        if stages > 1 and not chosen.defers:
            raise self._err(f"set_store_wait: stages={stages} for T{self.name} with {chosen.value!r}; a ring of "
                            f"tiles needs the wait deferred to the next write (\"deferred\" or \"carried\"), or "
                            f"its stores would be waited for right after their boxes and the ring never used")
        with self.fusion.transaction():
            self.store_wait = chosen
            self.store_stages = stages
        return self

    def take_turns(self, axis: int, on: ParallelType = ParallelType.TIDy) -> TensorView:
        """The warp groups along ``on`` (each its own rows, all running every iteration of the serial loop at
        ``axis``) take turns on the tensor-core issue sections of each iteration: FlashAttention-3's ping-pong.

        In the loop's body, a section is a run of statements that issue wgmmas (fence, MMAs, commit); the lowering
        (``warp_group_turns``) puts a named-barrier wait for this group's turn before each section and an arrive
        that hands the turn to the next group after it (before the wait that retires the wgmmas), group 0 first.
        So one group's MMAs run while the other computes on CUDA cores (its softmax). The loop's bounds and the
        sections must be the same for every group (a group that skips a turn would deadlock the others)."""
        j = self._norm_axis(axis, "take_turns")
        i = self.loop[j]
        if not isinstance(on, ParallelType) or on not in (ParallelType.TIDy, ParallelType.TIDz):
            raise self._err(f"take_turns: on={on!r} must be ParallelType.TIDy or TIDz (the warp groups' index; "
                            f"TIDx holds a warp group's own threads)")
        if i.parallel_type is not ParallelType.Serial or i.is_broadcast:
            raise self._err(f"take_turns: {self._axis_desc(j)} is {i.parallel_type.name}; the warp groups take "
                            f"turns in the iterations of a serial loop")
        if not any(x.parallel_type is on for x in self.loop):
            raise self._err(f"take_turns: T{self.name} has no axis bound to {on.name}: the warp groups that take "
                            f"turns are its indices there")
        with self.fusion.transaction():
            self.turns = (i, on)
        return self

    def defer(self, axis: int) -> TensorView:
        """Issue this tensor-core matmul one iteration late in the serial loop at ``axis``: its wgmmas of iteration
        ``j`` run in iteration ``j + 1``, right after that iteration's first tensor-core section, and their wait is
        left for the first statement that needs them. FlashAttention-3's intra-warp-group overlap: ``p_j @ v_j``
        issued after ``q @ k_{j+1}^T`` runs on the tensor cores while the softmax of block ``j + 1`` runs on the CUDA
        cores. The last iteration's matmul runs after the loop.

        The lowering (``defer_matmuls``) moves the matmul's statement and checks that the move keeps every value:
        nothing between its old and new place may touch its accumulator or write its operands, so it must be the
        last statement of its iteration that uses them. Its operand stages stay in use one iteration longer
        (the pipeline's release lag becomes 1), so a circular buffer of its operands wants 3 stages to keep its loads
        an iteration ahead."""
        j = self._norm_axis(axis, "defer")
        i = self.loop[j]
        if not isinstance(self.definition, MmaOp):
            raise self._err(f"defer: T{self.name} is not a matmul ({type(self.definition).__name__}); only a "
                            f"tensor-core matmul's wgmmas are issued late")
        if i.parallel_type is not ParallelType.Serial or i.is_broadcast or i.is_reduction:
            raise self._err(f"defer: {self._axis_desc(j)} is not a serial loop over iterations (it is "
                            f"{i.parallel_type.name}{', a reduction' if i.is_reduction else ''}"
                            f"{', a broadcast' if i.is_broadcast else ''}); the matmul is issued an iteration late in "
                            f"a serial loop around it")
        with self.fusion.transaction():
            self.deferred = i
        return self

    def set_shared_reuse(self, allowed: bool) -> TensorView:
        """Whether this Shared tensor's buffer may share memory with buffers not live at the same time.

        True (the default): the lowering's shared-memory plan may put a buffer first written after this one's
        last use in its memory (or this one in a dead buffer's), with a block barrier before that first write
        (``smem_reuse``). False: the buffer keeps memory of its own for the whole kernel, and no such barrier
        is needed; for a kernel whose shared memory is far below what its occupancy allows, fewer barriers
        for a few more bytes (nvFuser's ``promoteReuse`` is the opposite hint)."""
        if not isinstance(allowed, bool):
            raise self._err(f"set_shared_reuse: allowed={allowed!r} for T{self.name} must be a bool")
        if self.memory_type is not MemoryType.Shared:
            raise self._err(f"set_shared_reuse: T{self.name} is in {self.memory_type.name} memory; only a Shared "
                            f"tensor's buffer is laid out in shared memory (set_memory_type(MemoryType.Shared) first)")
        with self.fusion.transaction():
            self.shared_reuse = allowed
        return self

    def _check_swizzle_span(self, call: str) -> None:
        """A swizzled box row (the Bulk axis split from the innermost dimension) is the swizzle span."""
        if self.swizzle is SmemSwizzle.NONE:
            return
        row = self._box_row_dim()
        if row is None:
            return
        for k, i in enumerate(self.loop):
            if i.parallel_type is not ParallelType.Bulk or row not in _root_ancestors(self, i):
                continue
            if innermost_root(i) is None:
                continue    # an outer part of the innermost dimension (chunks of rows) is not a row
            extent = i.extent.const_value()
            if extent is not None and extent * self.dtype.size != self.swizzle.span:
                raise self._err(f"{call}: Bulk {self._axis_desc(k)} makes a TMA box row of {extent} x "
                                f"{self.dtype.short_name} = {extent * self.dtype.size} bytes, but a row of "
                                f"T{self.name}'s {self.swizzle.name} swizzle is exactly {self.swizzle.span} bytes "
                                f"(TMA lays each swizzled row out at the full span); split the innermost axis by "
                                f"{self.swizzle.span // self.dtype.size}")

    def _box_row_dim(self) -> IterDomain | None:
        """The root axis a TMA box row runs along: the one the copied tensor's innermost axis maps to (the last
        root axis, or another one through a permuted copy or a view chain); None when there is none."""
        d = self.definition
        if isinstance(d, LoadStoreOp) and d.permutation is not None:
            (source,) = d.tensor_inputs()
            inner = source.shape_ids[-1]
            row = next(c for c, p in d.root_map(source).items() if p is inner)
            return None if row.is_broadcast else row
        if isinstance(d, LoadStoreOp) and self.is_cache and is_view_expr(d.inputs[0].definition):
            # a load of a chain of views: the axis that is the source's innermost dimension, index for index
            (end,) = d.tensor_inputs()
            for c, p in d.root_map(end).items():
                source, axis = _view_source_axis(end, p)
                if source is not None and axis is source.shape_ids[-1]:
                    return None if c.is_broadcast else c
            return None
        dims = [i for i in self.root if not i.is_reduction and not i.is_broadcast]
        return dims[-1] if dims else None

    def cache_before(self, op_type: LoadStoreOpType = LoadStoreOpType.Set) -> TensorView:
        """Compute this output into a new tensor, then copy it here (a store stage)."""
        self._check_not_input("cache_before")
        if not isinstance(op_type, LoadStoreOpType):
            raise self._err(f"cache_before: {op_type!r} is not a LoadStoreOpType")
        if op_type in (LoadStoreOpType.TMA, LoadStoreOpType.CpAsync):
            raise self._err(f"cache_before: {op_type.name} is a load; use cache_after on an input")
        if op_type is LoadStoreOpType.TMAStore and self.memory_type is not MemoryType.Global:
            raise self._err("cache_before: a TMAStore writes global memory; the tensor must be in Global memory")
        if op_type is LoadStoreOpType.TMAStore and not self.shape_ids:
            raise self._err(f"cache_before: T{self.name} is 0-D; a TMA store copies a box of a tensor with at least "
                            f"one dimension (store it with LoadStoreOpType.Set)")
        if self.compute_at_pos > 0 or self.max_producer_pos > 0:
            raise self._err(f"cache_before: T{self.name} is already inlined ({self._inlined_desc()}); "
                            f"cache before compute_at")
        with self.fusion.transaction():
            mem = MemoryType.Shared if op_type is LoadStoreOpType.TMAStore else MemoryType.Local
            cache = TensorView(self.fusion, [], self.dtype, memory_type=mem)
            cache.is_cache = True
            # The cache takes over this tensor's domain and definition; this tensor
            # becomes a copy of the cache and keeps its non-reduction transforms.
            cache.root, cache.logical, cache.loop = self.root, self.logical, self.loop
            cache.transforms = self.transforms
            cache.loop_broadcasts, self.loop_broadcasts = self.loop_broadcasts, {}
            old_loop = list(self.loop)
            fresh = {i: self.fusion.new_iter_domain(i.extent, i.iter_type, i.parallel_type)
                     for i in cache.logical if not i.is_reduction}
            self.root = list(fresh.values())
            self.logical = list(self.root)
            leaves = list(self.logical)
            self.transforms, m = replay.replay_transforms(self.fusion, cache.transforms, fresh, leaves)
            self.loop = [m[i] for i in old_loop if m.get(i) in leaves]
            self.loop += [i for i in leaves if i not in self.loop]
            for i in self.loop:
                src = next((k for k, v in m.items() if v is i), None)
                if src is not None:
                    i.parallel_type = src.parallel_type
            definition = self.definition
            definition.outputs = [cache]
            cache.definition = definition
            self.definition = None
            copy = LoadStoreOp(inputs=[cache], outputs=[self], op_type=op_type)
            self.fusion.insert_expr(copy)
            if not self.fusion.registered(cache):
                self.fusion.register_tensor(cache)
        return cache

    def set_memory_type(self, memory_type: MemoryType) -> TensorView:
        """Keep this tensor in Local (registers), Shared or Global memory."""
        if not isinstance(memory_type, MemoryType):
            raise self._err(f"set_memory_type: {memory_type!r} is not a MemoryType")
        if (self.is_input or self.is_output) and memory_type is not MemoryType.Global:
            role = "input" if self.is_input else "output"
            raise self._err(f"set_memory_type: T{self.name} is a fusion {role} and must stay in Global memory")
        global_loads = [u for u in self.uses() if _reads_global_memory(u)]
        if global_loads and memory_type is not MemoryType.Global:
            raise self._err(f"set_memory_type: T{global_loads[0].output.name} loads T{self.name} with "
                            f"{global_loads[0].op_type.name}, which reads global memory; T{self.name} must stay in "
                            f"Global memory")
        kind = load_kind(self)
        if kind in ASYNC_LOADS and memory_type is not MemoryType.Shared:
            raise self._err(f"set_memory_type: T{self.name} is loaded by {kind.name}, which writes Shared memory")
        if self.is_circular_buffered and memory_type is MemoryType.Global:
            raise self._err(f"set_memory_type: T{self.name} is circular-buffered, and a circular buffer lives in "
                            f"Shared or Local memory")
        with self.fusion.transaction():
            self.memory_type = memory_type
        return self

    # ---- circular buffering ---------------------------------------------
    def circular_buffer(self, stages: int | Literal["auto"], prefetch: int = -1,
                        type: Pipelined | WarpSpecialized | None = None) -> TensorView:
        """Load this tensor ``stages`` iterations deep, ``prefetch`` ahead (``Pipelined`` or ``WarpSpecialized``).

        ``stages="auto"``: the lowering picks the deepest pipeline that fits the shared memory the
        kernel's other buffers leave and the loop's trip count (``docs/pipelines.md``); a negative
        ``prefetch`` then counts back from that depth, a non-negative one is kept and makes the
        depth at least ``prefetch + 1``."""
        cb_type = Pipelined() if type is None else type
        d = self.definition
        if not isinstance(d, LoadStoreOp) or not d.tensor_inputs():
            kind = "a fusion input" if d is None else type_name(d)
            raise self._err(f"circular_buffer: only a tensor defined by a load/cache op can be circular-buffered; "
                            f"T{self.name} is {kind}")
        if self.memory_type is MemoryType.Global:
            role = "a fusion output" if self.is_output else "a tensor"
            raise self._err(f"circular_buffer: T{self.name} is {role} in Global memory; only a cache in Shared or "
                            f"Local memory (cache_after) is circular-buffered")
        auto = isinstance(stages, str) and stages == AUTO
        if not auto and (isinstance(stages, bool) or not isinstance(stages, int) or stages < 2):
            raise self._err(f"circular_buffer: stages must be an integer >= 2, got {stages!r} (or \"auto\": the "
                            f"deepest pipeline that fits)")
        if auto and (isinstance(prefetch, bool) or not isinstance(prefetch, int)):
            raise self._err(f"circular_buffer: prefetch {prefetch!r} must be an integer (with stages=\"auto\", a "
                            f"negative one counts back from the depth the lowering picks)")
        if not auto and (isinstance(prefetch, bool) or not isinstance(prefetch, int)
                         or not -stages <= prefetch < stages):
            raise self._err(f"circular_buffer: prefetch {prefetch!r} is outside [-stages, stages) "
                            f"= [{-stages}, {stages})")
        if not isinstance(cb_type, (Pipelined, WarpSpecialized)):
            raise self._err(f"circular_buffer: type must be Pipelined() or WarpSpecialized(...), got {cb_type!r}")
        if isinstance(cb_type, WarpSpecialized):
            _validate_warp_specialized(self, cb_type)
        normalized = prefetch + stages if not auto and prefetch < 0 else prefetch
        with self.fusion.transaction():
            self.circular_buffer_options = CircularBufferOptions(stages, normalized, cb_type)
        return self

    @property
    def is_circular_buffered(self) -> bool:
        """True once ``circular_buffer`` was called."""
        return self.circular_buffer_options is not None

    # ---- rfactor --------------------------------------------------------
    def rfactor(self, axes: int | Iterable[int]) -> TensorView:
        """Split this reduction: a partial tensor reduces ``axes``, this one reduces the rest of it."""
        from .rfactor import rfactor

        return rfactor(self, axes)


def type_name(expr: Expr) -> str:
    names = {UnaryOp: "defined by a unary op", BinaryOp: "defined by a binary op", CastOp: "defined by a cast",
             BroadcastOp: "defined by a broadcast", ReductionOp: "defined by a reduction", MmaOp: "defined by a matmul",
             LoadStoreOp: "defined by a load/store of a scalar"}
    return names.get(type(expr), type(expr).__name__)


def _root_ancestors(tv: TensorView, i: IterDomain) -> set[IterDomain]:
    stack, found = [i], set()
    while stack:
        x = stack.pop()
        if x in tv.root:
            found.add(x)
        elif x.definition is not None:
            stack.extend(x.definition.inputs)
    return found


def _leaf_ancestors(tv: TensorView, ids: list[IterDomain]) -> set[IterDomain]:
    """The axes that ``ids`` come from through ``tv``'s transforms (its root axes, or loop broadcasts)."""
    stack, found = list(ids), set()
    while stack:
        x = stack.pop()
        if x.definition is not None and x.definition in tv.transforms:
            stack.extend(x.definition.inputs)
        else:
            found.add(x)
    return found


def _comes_from_only(tv: TensorView, i: IterDomain, sources: set[IterDomain]) -> bool:
    """True when ``tv``'s axis ``i`` comes from axes of ``sources`` alone."""
    return _leaf_ancestors(tv, [i]) <= sources


def _reads_global_memory(expr: Expr) -> bool:
    """TMA and cp.async loads copy from global memory only."""
    return load_kind(expr.output) in ASYNC_LOADS


def _is_logical_transform(tv: TensorView, t: Transform) -> bool:
    """True for transforms that produce the logical domain from the root (rfactor tensors)."""
    if tv.logical == tv.root:
        return False
    logical_cone = replay.ancestors_transforms(tv, tv.logical)
    return t in logical_cone


def _validate_warp_specialized(tv: TensorView, ws: WarpSpecialized) -> None:
    if ws.on not in (ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz):
        on = ws.on.name if isinstance(ws.on, ParallelType) else repr(ws.on)
        raise tv._err(f"circular_buffer: WarpSpecialized(on={on}) must be on TIDx, TIDy or TIDz")
    if ws.num_registers is None:
        return
    regs = ws.num_registers
    is_int = [isinstance(r, int) and not isinstance(r, bool) for r in regs] if isinstance(regs, tuple) else []
    if not (len(is_int) == 2 and all(is_int)):
        raise tv._err(f"circular_buffer: num_registers must be a pair (decrease, increase) of integers, got {regs!r}")
    target = current_target()
    (lo, hi), step = target.setmaxnreg_range, target.setmaxnreg_step
    for which, r in zip(("decrease", "increase"), regs):
        if not lo <= r <= hi:
            raise tv._err(f"circular_buffer: num_registers {which} {r} is outside [{lo}, {hi}]")
        if r % step != 0:
            raise tv._err(f"circular_buffer: num_registers {which} {r} is not a multiple of {step}")
    if regs[0] > regs[1]:
        raise tv._err(f"circular_buffer: num_registers decrease {regs[0]} is greater than increase {regs[1]}")


_ = (Merge, Split)


def _view_source_axis(view: TensorView, axis: IterDomain) -> tuple[TensorView | None, IterDomain | None]:
    """The fusion input a chain of views (pads, reshapes, permutes) ending at ``view`` reads, with the dimension of
    it that ``view``'s logical ``axis`` is, index for index; (None, None) when a split or merge makes the axis or the
    chain starts at a computed tensor (``views.ViewChain.source_axis``, which reads tensors)."""
    x, t = axis, view
    while is_view_expr(t.definition):
        if x not in t.root:
            return None, None
        e = t.definition
        x = e.root_map(e.inputs[0])[x]
        t = e.inputs[0]
    return (t, x) if t.is_input else (None, None)
