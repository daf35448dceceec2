"""The Hopper matmul scheduler: ``out = epilogue(a @ b)`` on tensor cores.

``schedule_matmul(fusion, MatmulParams(tile=(TM, TN, TK), stages=S, compute_warp_groups=W))``
turns a fusion whose output is ``ops.matmul(a, b)`` (a: [M, K], b: [K, N], row-major bf16 or
fp16), optionally followed by pointwise ops, into this schedule (``docs/matmul.md`` draws the
loop nest):

- the accumulator ``acc = a @ b`` (Local: registers) is ``[tiles..., Ko, Mw, Kr, Mr, M64, N, K16]``:
  the block's tile axes (``[Mo (BIDy), No (BIDx)]``, or ``[T / blocks, blocks (BIDx)]`` when
  persistent, or ``[T / blocks / W, W (TIDy), blocks (BIDx)]`` with ping-pong, which has no
  ``Mw``), ``Ko`` the serial loop over K tiles, ``Mw`` the compute warp group (TIDy), ``Kr``
  and ``Mr`` unrolled loops over the k16 steps and the 64-row pieces of a warp group's rows, and
  ``M64 x N x K16`` one ``wgmma.m64nNk16`` (ParallelType.Mma);
- A and B are loaded by TMA with a swizzle whose span is one row of their box (128 bytes for a
  64-deep K tile of A; 64-column chunks of B), circular-buffered ``stages`` deep over ``Ko``
  (Pipelined, or warp-specialized with a producer warp group);
- the epilogue tensors are ``[tiles..., Mw, Mr, TIDx(128), N/8, 2, 2]``: the warp group's 128
  threads each hold the accumulator fragment of ``wgmma`` (``schedule_mma_fragment``); with
  ``tma_store`` the 16-bit result goes through stmatrix into a shared tile and TMA stores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..circular_buffer import AUTO, Pipelined, WarpSpecialized
from ..exprs import MmaOp, load_kind
from ..fusion import Fusion
from ..tensor_view import STORE_WAITS, TensorView
from ..types import DataType, LoadStoreOpType, MemoryType, ParallelType, ScheduleError, SmemSwizzle

WGMMA_M = 64
WGMMA_K_BYTES = 32              # one wgmma's K is 16 bf16/fp16 elements
MAX_WGMMA_N = 256
MAX_BOX = 256                   # the largest extent of a TMA box
WARP_GROUP = 128
SWIZZLE_BY_SPAN = {32: SmemSwizzle.B32, 64: SmemSwizzle.B64, 128: SmemSwizzle.B128}
SMEM_LIMIT = 232_448            # bytes of shared memory a block may use on sm_90 (227 KiB)
# fp32 accumulators per thread that leave room for addresses and the epilogue in the 232 registers
# of a compute warp group (a ping-pong group's 128 x 192 tile: no spills with register stores)
MAX_ACCUMULATORS = 192
OPERAND_TYPES = (DataType.BFloat16, DataType.Half)
H100_SMS = 132
REGISTER_FILE = 65536           # 32-bit registers of an SM


@dataclass(frozen=True)
class MatmulParams:
    """How ``schedule_matmul`` tiles a matmul.

    ``tile``: the block's (M, N, K) tile; ``stages``: depth of the A/B circular buffer (``"auto"``:
    the deepest that fits the shared memory the kernel's other buffers leave, picked at lowering);
    ``compute_warp_groups``: warp groups sharing the tile's rows (each owns TM / W rows, in
    pieces of 64); ``warp_specialized``: a producer warp group issues the loads (``register_split``:
    its and the compute warp groups' ``setmaxnreg``); ``persistent``: ``blocks`` resident blocks walk
    the tiles in grouped order (``group_m``); ``tma_store``: the epilogue of seed 000 (stmatrix, TMA
    store); ``ping_pong``: each compute warp group takes its own tile (the block's tiles dealt in
    turn) and their mainloops and epilogues alternate, one's epilogue under the other's mainloop.
    """

    tile: tuple[int, int, int] = (128, 256, 64)
    stages: int | Literal["auto"] = 4
    compute_warp_groups: int = 2
    warp_specialized: bool = False
    persistent: bool = False
    ping_pong: bool = False
    blocks: int = H100_SMS                       # persistent: resident blocks (runtime.sm_count() of the GPU)
    group_m: int = 8                             # persistent: row tiles walked per column of B (L2 reuse)
    register_split: tuple[int, int] | None = (40, 232)   # warp-specialized: producer, compute registers
    tma_store: bool = False                      # the epilogue: stmatrix into shared memory, then a TMA store
    index_type: DataType = DataType.Int64        # the kernel's index arithmetic (Int32: tensors under 2**31 elements)
    store_wait: str = "after_boxes"              # tma_store: when the stores' reads of the tile are waited for

    def validate(self, dtype: DataType = DataType.BFloat16, loaded: int = 0) -> None:
        """Raise ``ScheduleError`` naming the parameter and the rule it breaks (``loaded``: as in
        ``smem_bytes``)."""
        if not (isinstance(self.tile, tuple) and len(self.tile) == 3 and all(isinstance(x, int) and x > 0
                                                                                for x in self.tile)):
            raise ScheduleError(f"MatmulParams.tile: {self.tile!r} must be three positive ints (M, N, K)")
        tm, tn, tk = self.tile
        w = self.compute_warp_groups
        if not isinstance(w, int) or w < 1:
            raise ScheduleError(f"MatmulParams.compute_warp_groups: {w!r} must be a positive int")
        sharing = self.tile_sharers()
        if tm % (WGMMA_M * sharing):
            raise ScheduleError(f"MatmulParams.tile: M {tm} is not a multiple of {WGMMA_M} per warp group "
                                f"({sharing} compute warp groups share a tile: a multiple of {WGMMA_M * sharing}); "
                                f"each warp group issues wgmma.m64nNk16 on whole 64-row pieces")
        if tm > MAX_BOX:
            raise ScheduleError(f"MatmulParams.tile: M {tm} is over {MAX_BOX}; one TMA box loads the tile's rows of A "
                                f"and a box extent is at most {MAX_BOX}")
        if tn % 8 or tn > MAX_WGMMA_N:
            raise ScheduleError(f"MatmulParams.tile: N {tn} must be a multiple of 8 and at most {MAX_WGMMA_N} "
                                f"(wgmma.m64nNk16 has N = 8, 16, ..., 256)")
        k_step = WGMMA_K_BYTES // dtype.size
        if tk % k_step:
            raise ScheduleError(f"MatmulParams.tile: K {tk} is not a multiple of {k_step} (one wgmma consumes "
                                f"K = {k_step} of {dtype.short_name})")
        a_row = tk * dtype.size
        if a_row not in SWIZZLE_BY_SPAN:
            raise ScheduleError(f"MatmulParams.tile: K {tk} makes a row of A's K-major tile {a_row} bytes, but a "
                                f"row is exactly one swizzle span (32, 64 or 128 bytes: K = "
                                f"{', '.join(str(s // dtype.size) for s in SWIZZLE_BY_SPAN)}); the swizzle span "
                                f"is exceeded")
        b_row = tn * dtype.size
        if tn % (128 // dtype.size) and b_row not in SWIZZLE_BY_SPAN:
            raise ScheduleError(f"MatmulParams.tile: N {tn} makes a row of B's N-major tile {b_row} bytes; B is "
                                f"laid out in swizzle rows of 32, 64 or 128 bytes, so N must be "
                                f"{', '.join(str(s // dtype.size) for s in SWIZZLE_BY_SPAN)} or a multiple of "
                                f"{128 // dtype.size}")
        auto = isinstance(self.stages, str) and self.stages == AUTO
        if not auto and (not isinstance(self.stages, int) or isinstance(self.stages, bool) or self.stages < 2):
            raise ScheduleError(f"MatmulParams.stages: {self.stages!r} must be an int >= 2 (a circular buffer "
                                f"needs a stage to load while another is read) or \"auto\"")
        if self.tile_regs() > MAX_ACCUMULATORS:
            raise ScheduleError(f"MatmulParams.tile: each thread would hold {self.tile_regs()} fp32 accumulators "
                                f"({tm} x {tn} over {self.tile_sharers()} warp groups of {WARP_GROUP} threads); at "
                                f"most {MAX_ACCUMULATORS} fit in registers: use a smaller tile"
                                f"{'' if self.ping_pong else ' or more compute_warp_groups'}")
        smem = self.smem_bytes(dtype, loaded)
        if smem > SMEM_LIMIT:
            staged = " and the output tile" if self.tma_store else ""
            staged += " and the epilogue's TMA-loaded tile of C" if loaded else ""
            depth = "even the 2 stages of \"auto\"" if auto else f"{self.stages} stages"
            raise ScheduleError(f"MatmulParams.stages: {depth} of A ({tm} x {tk}) and B ({tk} x {tn}) "
                                f"{dtype.short_name} tiles{staged} need {smem} bytes of shared memory, over the "
                                f"{SMEM_LIMIT}-byte limit of a block; use fewer stages or a smaller tile")
        if self.ping_pong and not (self.warp_specialized and self.persistent):
            raise ScheduleError("MatmulParams.ping_pong: ping-pong warp groups take turns on the tiles of a "
                                "persistent warp-specialized kernel; set warp_specialized=True and persistent=True")
        if self.ping_pong and w < 2:
            raise ScheduleError(f"MatmulParams.compute_warp_groups: {w} with ping_pong=True; ping-pong needs at least "
                                f"2 compute warp groups to alternate")
        if self.store_wait not in STORE_WAITS or (self.store_wait != STORE_WAITS[0] and not self.tma_store):
            raise ScheduleError(f"MatmulParams.store_wait: {self.store_wait!r} must be one of "
                                f"{', '.join(repr(x) for x in STORE_WAITS)} (TensorView.set_store_wait), and "
                                f"other than {STORE_WAITS[0]!r} only with tma_store=True")
        for name in ("blocks", "group_m"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ScheduleError(f"MatmulParams.{name}: {value!r} must be a positive int")
        regs = self.register_split
        if regs is not None and not (isinstance(regs, tuple) and len(regs) == 2 and all(
                isinstance(r, int) and 24 <= r <= 256 and r % 8 == 0 for r in regs)):
            raise ScheduleError(f"MatmulParams.register_split: {regs!r} must be None or (producer, compute) "
                                f"register counts, multiples of 8 in [24, 256] (setmaxnreg)")
        if self.warp_specialized and regs is not None:
            total = WARP_GROUP * regs[0] + WARP_GROUP * w * regs[1]
            if total > REGISTER_FILE:
                raise ScheduleError(f"MatmulParams.register_split: {regs} gives a producer and {w} compute warp "
                                    f"groups {total} registers, over the {REGISTER_FILE} of an SM; lower the "
                                    f"compute count or use fewer compute_warp_groups")

    def tile_sharers(self) -> int:
        """Compute warp groups that share one tile: all of them (cooperative), or one (ping-pong)."""
        return 1 if self.ping_pong else self.compute_warp_groups

    def tile_regs(self) -> int:
        tm, tn, _ = self.tile
        return tm * tn // (WARP_GROUP * self.tile_sharers())

    def smem_bytes(self, dtype: DataType, loaded: int = 0) -> int:
        """Shared memory the kernel takes (with ``stages="auto"``: at its shallowest, 2 stages).
        ``loaded``: bytes per output element of the ``[M, N]`` inputs the epilogue reads (C), TMA-loaded
        into a tile each."""
        tm, tn, tk = self.tile
        stages = 2 if self.stages == AUTO else self.stages
        stage = (tm * tk + tk * tn) * dtype.size
        barriers = 2 * 8 * stages
        # the 16-bit output tile the TMA store reads: ping-pong groups take turns on one, unless the
        # store's wait is deferred past the turn (then one per group)
        per_group = self.ping_pong and self.store_wait == "deferred"
        staging = tm * tn * 2 * (self.compute_warp_groups if per_group else 1) if self.tma_store else 0
        staging += tm * tn * loaded     # C's tile: read inside the stmatrix loop, so never shared with staging
        return stages * stage + staging + barriers + 1024   # + the swizzle alignment of the first tile


def _find_mma(fusion: Fusion) -> TensorView:
    mmas = [e for e in fusion.exprs if isinstance(e, MmaOp)]
    if len(mmas) != 1:
        raise ScheduleError(f"schedule_matmul: the fusion has {len(mmas)} matmuls; it schedules exactly one")
    mm = mmas[0].output
    a, b = mmas[0].inputs
    for name, tv in (("a", a), ("b", b)):
        if not tv.is_input:
            raise ScheduleError(f"schedule_matmul: operand {name} (T{tv.name}) of the matmul must be a fusion input "
                                f"(TMA loads it from global memory)")
        if tv.dtype not in OPERAND_TYPES:
            raise ScheduleError(f"schedule_matmul: operand {name} (T{tv.name}) is {tv.dtype.short_name}; wgmma takes "
                                f"bf16 or fp16 operands")
    if a.dtype is not b.dtype:
        raise ScheduleError(f"schedule_matmul: operands T{a.name} ({a.dtype.short_name}) and T{b.name} "
                            f"({b.dtype.short_name}) must have the same dtype")
    return mm


def _epilogue(fusion: Fusion, acc: TensorView) -> list[TensorView]:
    """Tensors computed from the accumulator and the tensors they read besides it (a broadcast
    bias), in topological order; all pointwise."""
    after: set[TensorView] = set()
    for tv in fusion.topological_order():
        if any(p is acc or p in after for p in tv.producers()):
            after.add(tv)
    beside: set[TensorView] = set()             # what they read besides the accumulator, back to the inputs
    stack = [p for tv in after for p in tv.producers() if p is not acc and p not in after]
    while stack:
        p = stack.pop()
        if p.is_input or p in beside:
            continue
        beside.add(p)
        stack.extend(p.producers())
    out = [tv for tv in fusion.topological_order() if tv in after or tv in beside]
    for tv in out:
        if tv.has_reduction:
            raise ScheduleError(f"schedule_matmul: T{tv.name} is a reduction; the matmul epilogue takes pointwise "
                                f"ops only")
    return out


def schedule_matmul(fusion: Fusion, params: MatmulParams | None = None) -> Fusion:
    """Schedule every tensor of ``fusion`` (``out = epilogue(a @ b)``) for wgmma tensor cores;
    without ``params``, with ``suggest_matmul_params(fusion)`` (an H100's 132 SMs)."""
    from .suggest import matmul_problem, suggest_matmul_params  # suggest imports this module

    params = params if params is not None else suggest_matmul_params(fusion)
    if not isinstance(params, MatmulParams):
        raise ScheduleError(f"schedule_matmul: params must be MatmulParams, got {type(params).__name__}")
    mm = _find_mma(fusion)
    a, b = mm.definition.inputs
    problem = matmul_problem(fusion, caller="schedule_matmul")   # sizes the fusion fixes: equal K, 16-byte TMA rows
    params.validate(a.dtype, problem.loaded)
    if params.index_type not in (DataType.Int32, DataType.Int64):
        raise ScheduleError(f"MatmulParams.index_type: {params.index_type!r} must be DataType.Int32 or DataType.Int64")
    if any(tv.compute_at_pos or len(tv.transforms) for tv in fusion.used_tensors() if not tv.is_input):
        raise ScheduleError("schedule_matmul: the fusion is already scheduled; schedule_matmul starts from an "
                            "unscheduled fusion")
    tm, tn, tk = params.tile
    w = params.compute_warp_groups
    with fusion.transaction():
        acc = mm.cache_before() if mm.is_output else mm
        acc.set_memory_type(MemoryType.Local)
        a_s = a.cache_after(LoadStoreOpType.TMA)
        b_s = b.cache_after(LoadStoreOpType.TMA)

        # accumulator: [tiles..., Ko, Mw, Kr, Mr, M64, N, K16]
        acc.split(0, tm).split(2, tn).split(4, tk)          # [Mo, TM, No, TN, Ko, TK]
        acc.reorder({1: 3, 2: 1, 3: 4, 4: 2})               # [Mo, No, Ko, TM, TN, TK]
        tiles = _tile_axes(acc, params)                     # [tiles..., Ko, TM, TN, TK]
        acc.split(tiles + 1, WGMMA_M)                       # [.., Ko, TM/64, M64, TN, TK]
        m = 0                                               # ping-pong: a warp group owns the tile's rows
        if not params.ping_pong:                            # cooperative: Mw warp groups share them
            acc.split(tiles + 1, w, inner_split=False)      # [.., Ko, Mw, Mr, M64, TN, TK]
            acc.axis(tiles + 1).parallelize(ParallelType.TIDy)
            m = 1
        k_step = WGMMA_K_BYTES // a.dtype.size
        r = tiles + 1 + m                                   # Mr
        acc.split(r + 3, k_step)                            # [.., Ko, (Mw,) Mr, M64, TN, Kr, K16]
        acc.reorder({r + 3: r, r: r + 1, r + 1: r + 2, r + 2: r + 3})   # [.., Ko, (Mw,) Kr, Mr, M64, TN, K16]
        acc.axis(r).parallelize(ParallelType.Unroll)
        acc.axis(r + 1).parallelize(ParallelType.Unroll)
        for k in (r + 2, r + 3, r + 4):
            acc.axis(k).parallelize(ParallelType.Mma)

        # Operands, computed inside the tile and K loops; A lacks N and B lacks M, so each gains a
        # loop broadcast for the missing one. A: [tiles, Ko, bN, TM, TK], one box per stage.
        a_s.compute_at(acc, tiles + 1)
        a_s.axis(tiles + 2).parallelize(ParallelType.Bulk)
        a_s.axis(tiles + 3).parallelize(ParallelType.Bulk)
        a_s.set_swizzle(SWIZZLE_BY_SPAN[tk * a.dtype.size])
        # B: [tiles, Ko, Nc, bM, TK, Nw]: a box per chunk of Nw columns (one swizzle row)
        nw = min(tn, 128 // b.dtype.size)
        b_s.compute_at(acc, tiles + 1)                      # [tiles, Ko, TN, bM, TK]
        b_s.split(tiles + 1, nw)                            # [tiles, Ko, Nc, Nw, bM, TK]
        b_s.reorder({tiles + 2: tiles + 4, tiles + 3: tiles + 2, tiles + 4: tiles + 3})
        b_s.axis(tiles + 1).parallelize(ParallelType.Unroll)
        b_s.axis(tiles + 3).parallelize(ParallelType.Bulk)
        b_s.axis(tiles + 4).parallelize(ParallelType.Bulk)
        b_s.set_swizzle(SWIZZLE_BY_SPAN[nw * b.dtype.size])

        pipeline = (WarpSpecialized(on=ParallelType.TIDy, num_registers=params.register_split)
                    if params.warp_specialized else Pipelined(uses_mbarrier_for_war=True))
        for tv in (a_s, b_s):
            tv.circular_buffer(params.stages, type=pipeline)

        # epilogue: [tiles..., Mw, Mr, TIDx, N/8, 2, 2], every tensor inlined into its consumer
        staged = _stage_output(fusion, params.store_wait) if params.tma_store else []
        loaded = _load_epilogue_inputs(fusion, acc, params)
        for tv in _epilogue(fusion, acc):
            if tv in staged:
                _schedule_staged_tensor(tv, params)
            elif tv not in loaded:
                _schedule_epilogue_tensor(tv, params)
        for tv in loaded:
            _schedule_loaded_tile(tv, params)
        _inline_epilogue(fusion, acc)
    fusion.set_index_type(params.index_type)
    return fusion


def _stage_output(fusion: Fusion, store_wait: str = STORE_WAITS[0]) -> list[TensorView]:
    """``tma_store``: the output goes registers -> stmatrix -> shared tile -> TMA store (seed 000's epilogue).

    Returns the shared tile and the output, which take the tile layout instead of the fragment one."""
    (out,) = fusion.outputs
    if out.dtype not in OPERAND_TYPES:
        raise ScheduleError(f"MatmulParams.tma_store: the output T{out.name} is {out.dtype.short_name}; stmatrix "
                            f"stores 16-bit elements (cast the result to bf16 or fp16)")
    tile = out.cache_before(LoadStoreOpType.TMAStore)     # shared tile, read by the TMA store
    tile.cache_before(LoadStoreOpType.StMatrix)           # registers in the fragment layout, stored by stmatrix
    out.set_store_wait(store_wait)
    return [tile, out]


def epilogue_inputs(fusion: Fusion, acc: TensorView) -> list[TensorView]:
    """The ``[M, N]`` fusion inputs the epilogue of ``acc`` reads (C)."""
    found: list[TensorView] = []
    for tv in _epilogue(fusion, acc):
        for p in tv.producers():
            if p.is_input and p.ndim == 2 and not any(i.is_broadcast for i in p.logical) and p not in found:
                found.append(p)
    return found


def broadcast_epilogue_inputs(fusion: Fusion, acc: TensorView) -> list[TensorView]:
    """The other fusion inputs the epilogue of ``acc`` reads: a bias row or column, broadcast over the tile."""
    loaded = epilogue_inputs(fusion, acc)
    found: list[TensorView] = []
    for tv in _epilogue(fusion, acc):
        for p in tv.producers():
            if p.is_input and p not in loaded and p not in found and p not in acc.definition.inputs:
                found.append(p)
    return found


def _load_epilogue_inputs(fusion: Fusion, acc: TensorView, params: MatmulParams) -> list[TensorView]:
    """An ``[M, N]`` input the epilogue reads (the ``C`` of ``alpha * acc + beta * C``) comes into a shared
    tile by TMA, one tile per output tile; returns those shared tiles."""
    loaded = epilogue_inputs(fusion, acc)
    if loaded and params.ping_pong:
        raise ScheduleError(f"MatmulParams.ping_pong: the epilogue reads T{loaded[0].name} ([M, N]), which is "
                            f"TMA-loaded once per output tile; ping-pong warp groups would each load the tile of "
                            f"their own turn, which is not implemented: use the cooperative arrangement "
                            f"(ping_pong=False)")
    return [c.cache_after(LoadStoreOpType.TMA) for c in loaded]


def _schedule_loaded_tile(tv: TensorView, params: MatmulParams) -> None:
    """An epilogue input's shared tile, ``[tiles..., Nc, TM, Nw]``: computed at the output tile (loaded
    once per tile, before the epilogue reads it), a TMA box of ``TM x Nw`` (one swizzle row wide) per
    column chunk ``Nc``."""
    (consumer,) = tv.consumers()
    tiles = _tile_count(params)
    tv.compute_at(consumer, tiles)               # [tiles, TM, TN]
    nw = min(params.tile[1], 128 // tv.dtype.size)
    tv.split(tiles + 1, nw)                      # [tiles, TM, Nc, Nw]
    tv.reorder({tiles: tiles + 1, tiles + 1: tiles})   # [tiles, Nc, TM, Nw]
    tv.axis(tiles).parallelize(ParallelType.Unroll)
    tv.axis(tiles + 1).parallelize(ParallelType.Bulk)
    tv.axis(tiles + 2).parallelize(ParallelType.Bulk)
    tv.set_swizzle(SWIZZLE_BY_SPAN[nw * tv.dtype.size])


def _schedule_staged_tensor(tv: TensorView, params: MatmulParams) -> None:
    """The shared tile and the output of a TMA-store epilogue: ``[tiles..., Nc, TM, Nw]``, one box of
    ``TM x Nw`` (one swizzle row wide) per column chunk ``Nc``."""
    nw = min(params.tile[1], 128 // tv.dtype.size)
    tiles = _output_tiles(tv, params)            # [tiles, TM, TN]
    tv.split(tiles + 1, nw)                      # [tiles, TM, Nc, Nw]
    tv.reorder({tiles: tiles + 1, tiles + 1: tiles})   # [tiles, Nc, TM, Nw]
    if tv.is_output:                             # the TMA store: a box per chunk
        tv.axis(tiles).parallelize(ParallelType.Unroll)
        tv.axis(tiles + 1).parallelize(ParallelType.Bulk)
        tv.axis(tiles + 2).parallelize(ParallelType.Bulk)
        return
    for k in (tiles, tiles + 1, tiles + 2):      # the shared tile: stmatrix writes all of it at once
        tv.axis(k).parallelize(ParallelType.Bulk)
    tv.set_swizzle(SWIZZLE_BY_SPAN[nw * tv.dtype.size])


def _tile_count(params: MatmulParams) -> int:
    """How many tile axes lead a tensor's loop domain (``_tile_axes``)."""
    return 3 if params.ping_pong else 2


def _tile_axes(tv: TensorView, params: MatmulParams) -> int:
    """Turn the leading [Mo, No] of ``tv`` into the block's tile axes; returns how many there are.

    Not persistent: ``[Mo (BIDy), No (BIDx)]``, a block per tile. Persistent: ``[T / B, B (BIDx)]``
    over the ``T`` tiles in grouped order (``group_m`` row tiles share a column of B before the
    next column: tile ``t`` is row ``(t / (No g)) g + t % g``, column ``(t / g) % No``); each of the
    ``B = params.blocks`` blocks walks tiles ``blockIdx.x, blockIdx.x + B, ...``. Ping-pong:
    ``[T / B / W, W (TIDy), B (BIDx)]``, the block's tiles dealt to its W compute warp groups in turn.
    """
    if not params.persistent:
        tv.axis(0).parallelize(ParallelType.BIDy)
        tv.axis(1).parallelize(ParallelType.BIDx)
        return _tile_count(params)
    g = params.group_m
    if g > 1:
        tv.split(0, g)                       # [Mo/g, g, No, ...]
        tv.reorder({1: 2, 2: 1})             # [Mo/g, No, g, ...]
        tv.merge(0, 1).merge(0, 1)           # [T, ...]
    else:
        tv.merge(0, 1)
    tv.split(0, params.blocks)               # [T / B, B, ...]
    tv.axis(1).parallelize(ParallelType.BIDx)
    if not params.ping_pong:
        return _tile_count(params)
    # ping-pong: the block's j-th tile goes to warp group j % W: [T / B / W, W (TIDy), B (BIDx)]
    tv.split(0, params.compute_warp_groups)
    tv.axis(1).parallelize(ParallelType.TIDy)
    return _tile_count(params)


def _output_tiles(tv: TensorView, params: MatmulParams) -> int:
    """``[M, N]`` -> ``[tiles..., TM, TN]``; returns how many tile axes lead."""
    if tv.ndim != 2:
        raise ScheduleError(f"schedule_matmul: epilogue tensor T{tv.name} has {tv.ndim} axes; the epilogue is "
                            f"[M, N] (broadcast a bias to [M, N] before adding it)")
    tm, tn, _ = params.tile
    tv.split(0, tm).split(2, tn)                 # [Mo, TM, No, TN]
    tv.reorder({1: 2, 2: 1})                     # [Mo, No, TM, TN]
    return _tile_axes(tv, params)


def _schedule_epilogue_tensor(tv: TensorView, params: MatmulParams) -> None:
    tiles = _output_tiles(tv, params)
    tv.split(tiles, WGMMA_M)                     # [.., Mr, M64, TN]
    if not params.ping_pong:                     # cooperative: [.., Mw, Mr, M64, TN]
        tv.split(tiles, params.compute_warp_groups, inner_split=False)
        tv.axis(tiles).parallelize(ParallelType.TIDy)
        tiles += 1
    tv.axis(tiles).parallelize(ParallelType.Unroll)
    schedule_mma_fragment(tv, tiles + 1, vectorize=tv.is_output)   # the output: 2-element stores


def _inline_epilogue(fusion: Fusion, acc: TensorView) -> None:
    """The accumulator shares the tile loops with the epilogue (its K loop stays its own); the
    epilogue tensors are inlined into each other."""
    from ..inlining import inline_most

    inline_most(fusion, [tv for tv in fusion.used_tensors() if not tv.is_input
                         and load_kind(tv) is not LoadStoreOpType.TMA])


def schedule_mma_fragment(tv: TensorView, axis: int, vectorize: bool = False) -> TensorView:
    """Lay axes ``axis`` (64 rows) and ``axis + 1`` (N columns) of ``tv`` out as a wgmma accumulator
    fragment: ``[TIDx(128), N/8, 2, 2]``, the 128 threads of a warp group each holding ``N / 2``
    elements in the order of ``wgmma.m64nNk16``'s accumulators (``lowering.layout.wgmma_accumulator``).

    Row ``16 w + 8 j + l / 4`` and column ``8 i + 2 (l % 4) + c`` belong to lane ``l`` of warp
    ``w``, register ``4 i + 2 j + c``: the splits below name those pieces and the merge makes
    ``w, l / 4, l % 4`` one thread index.
    """
    a = axis if axis >= 0 else axis + tv.ndim
    rows, cols = tv.loop[a].extent.const_value(), tv.loop[a + 1].extent.const_value() if a + 1 < tv.ndim else None
    if rows != WGMMA_M or cols is None or cols % 8:
        raise ScheduleError(f"schedule_mma_fragment: T{tv.name} axes {a} and {a + 1} must be 64 rows and a "
                            f"multiple of 8 columns (a wgmma accumulator tile); they are {tv.loop[a].label()} and "
                            f"{tv.loop[a + 1].label() if a + 1 < tv.ndim else 'missing'}")
    if a + 2 != tv.ndim:
        raise ScheduleError(f"schedule_mma_fragment: the fragment axes {a} and {a + 1} of T{tv.name} must be its "
                            f"innermost axes")
    with tv.fusion.transaction():
        tv.split(a, 16)            # [w4, m16, n]
        tv.split(a + 1, 8)         # [w4, j2, r8, n]
        tv.split(a + 3, 8)         # [w4, j2, r8, i, n8]
        tv.split(a + 4, 2)         # [w4, j2, r8, i, q4, c2]
        tv.reorder({a + 1: a + 4, a + 2: a + 1, a + 3: a + 3, a + 4: a + 2})  # [w4, r8, q4, i, j2, c2]
        tv.merge(a, a + 1)         # [w r, q4, i, j2, c2]
        tv.merge(a, a + 1)         # [w r q, i, j2, c2]
        tv.axis(a).parallelize(ParallelType.TIDx)
        tv.axis(a + 1).parallelize(ParallelType.Unroll)
        tv.axis(a + 2).parallelize(ParallelType.Unroll)
        # a thread's two adjacent columns: with ``vectorize``, one store of both
        tv.axis(a + 3).parallelize(ParallelType.Vectorize if vectorize else ParallelType.Unroll)
    return tv
