"""The Hopper matmul scheduler: ``out = epilogue(a @ b)`` on tensor cores.

``schedule_matmul(fusion, MatmulParams(tile=(TM, TN, TK), stages=S, compute_warp_groups=W))``
turns a fusion whose output is ``ops.matmul(a, b)`` (a: [M, K], b: [K, N], row-major bf16 or
fp16, or ``ops.transpose`` of a [K, M] or [N, K] input), optionally followed by pointwise ops, into
this schedule (``docs/matmul.md`` draws the loop nest):

- the accumulator ``acc = a @ b`` (Local: registers) is ``[tiles..., Ko, Mw, Kr, Mr, M64, N, K16]``:
  the block's tile axes (``[Mo (BIDy), No (BIDx)]``, or ``[T / blocks, blocks (BIDx)]`` when
  persistent, or ``[T / blocks / W, W (TIDy), blocks (BIDx)]`` with ping-pong, which has no
  ``Mw``), ``Ko`` the serial loop over K tiles, ``Mw`` the compute warp group (TIDy), ``Kr``
  and ``Mr`` unrolled loops over the k16 steps and the 64-row pieces of a warp group's rows, and
  ``M64 x N x K16`` one ``wgmma.m64nNk16`` (ParallelType.Mma);
- A and B are loaded by TMA with a swizzle whose span is one row of their box (128 bytes for a
  64-deep K tile of A; 64-column chunks of B), circular-buffered ``stages`` deep over ``Ko``
  (Pipelined, or warp-specialized with a producer warp group). Each input is read in place in its own
  major order (``MatmulLayout``): a transpose of an input becomes that input's TMA load
  (``set_load_type``), K-major tiles are rows of TK, MN-major ones TK rows of 64-wide chunks. An
  operand whose rows are not 16-byte multiples (K = 263, ...) is loaded by the compute warp groups
  instead (cp.async or plain copies, ``MatmulProblem.loads``) into the same swizzled tile, its TMA
  layout kept as its allocation domain, in a Pipelined kernel two stages ahead (``docs/matmul.md``,
  "Any K and any row stride");
- the epilogue tensors are ``[tiles..., Mw, Mr, TIDx(128), N/8, 2, 2]``: the warp group's 128
  threads each hold the accumulator fragment of ``wgmma`` (``schedule_mma_fragment``); with
  ``tma_store`` the 16-bit result goes through stmatrix into a shared tile and TMA stores.
"""

from __future__ import annotations

from target import current as current_target

from ..circular_buffer import Pipelined, WarpSpecialized
from ..exprs import load_kind
from ..fusion import Fusion
from ..iter_domain import IterDomain, innermost_root
from ..tensor_view import TensorView
from ..types import DataType, LoadStoreOpType, MemoryType, ParallelType, ScheduleError, SmemSwizzle, StoreWait
from .matmul_choice import MatmulChoice
from .matmul_key import problem_key
from .matmul_params import MatmulParams, swizzle_by_span
from .matmul_problem import (
    TMA_LOADS,
    OperandLoad,
    epilogue_inputs,
    epilogue_tensors,
    epilogue_vectors,
    find_mma,
    matmul_problem,
    tma_rows,
    vector_tile,
    wgmma_operand_types,
)
from .matmul_smem import mn_chunk, shared_vector
from .matmul_why import given_why
from .suggest import suggest_matmul_params

__all__ = ["MatmulParams", "schedule_matmul", "schedule_mma_fragment"]


def schedule_matmul(fusion: Fusion, params: MatmulParams | None = None) -> Fusion:
    """Schedule every tensor of ``fusion`` (``out = epilogue(a @ b)``) for wgmma tensor cores;
    without ``params``, with ``suggest_matmul_params(fusion)`` (the current target's SMs: 132 on an H100;
    a tuned winner where the tuning cache has one for the installed device). Records the params and why
    they were chosen as ``fusion.scheduler_choice`` (``viz --show heuristics`` prints it)."""
    params = params if params is not None else suggest_matmul_params(fusion)
    if not isinstance(params, MatmulParams):
        raise ScheduleError(f"schedule_matmul: params must be MatmulParams, got {type(params).__name__}")
    mm = find_mma(fusion)
    a, b = mm.definition.inputs
    problem = matmul_problem(fusion, caller="schedule_matmul")   # sizes the fusion fixes: equal K, operand loads
    key = problem_key(fusion, problem)
    layout = problem.layout
    params.validate(a.dtype, problem.loaded_tiles, layout, problem.loads, outputs=problem.outputs)
    if params.index_type not in (DataType.Int32, DataType.Int64):
        raise ScheduleError(f"MatmulParams.index_type: {params.index_type!r} must be DataType.Int32 or DataType.Int64")
    if any(tv.compute_at_pos or len(tv.transforms) for tv in fusion.used_tensors() if not tv.is_input):
        raise ScheduleError("schedule_matmul: the fusion is already scheduled; schedule_matmul starts from an "
                            "unscheduled fusion")
    tm, tn, tk = params.tile
    w = params.compute_warp_groups
    wgmma = current_target().wgmma
    batch = problem.batch_axes
    max_z = current_target().max_grid[2]
    params.validate_split_k(problem.k_tiles(tk))
    if batch and params.split_k > 1:
        raise ScheduleError(f"MatmulParams.split_k: {params.split_k} with a batched matmul (T{mm.name}); the batch "
                            f"runs on blockIdx.z, which split-K's K ranges need: use split_k=1 for a batched matmul")
    if batch and params.stream_k:
        raise ScheduleError(f"MatmulParams.stream_k: True with a batched matmul (T{mm.name}); stream-K is implemented "
                            f"for one matrix (the batch would join the flattened tile index): use stream_k=False")
    if batch and not params.persistent and problem.batch is not None and problem.batch > max_z:
        raise ScheduleError(f"schedule_matmul: the batch of T{mm.name} ({problem.batch} matrices) runs on blockIdx.z, "
                            f"which takes at most {max_z} blocks; use persistent=True (the batch then joins the "
                            f"tile index)")
    with fusion.transaction():
        acc = mm.cache_before() if mm.is_output else mm
        acc.set_memory_type(MemoryType.Local)
        load_a, load_b = problem.loads
        a_s, b_s = _operand_tile(a, load_a), _operand_tile(b, load_b)

        # accumulator: [tiles..., Ko, Mw, Kr, Mr, M64, N, K16]; batch axes first, merged into one
        bt = _merge_batch(acc, batch)                       # [(B,) M, N, K]
        acc.split(bt, tm).split(bt + 2, tn).split(bt + 4, tk)   # [(B,) Mo, TM, No, TN, Ko, TK]
        acc.reorder({bt + 1: bt + 3, bt + 2: bt + 1, bt + 3: bt + 4, bt + 4: bt + 2})  # [(B,) Mo, No, Ko, TM, TN, TK]
        tiles = _tile_axes(acc, params, bt)                 # [tiles..., Ko, TM, TN, TK]
        tiles += _split_k(acc, params, tiles)               # split-K: [tiles..., S (BIDz), Ko / S, TM, TN, TK]
        if params.stream_k:                                 # [T, Ko, ...]: each block its range of T x Ko
            acc.stream_k(0, 1, blocks=params.blocks)
        if params.swap_ab:                                  # [tiles..., Ko, TN, TM, TK]: the instruction's rows
            acc.reorder({tiles + 1: tiles + 2})             # along N (C^T = B^T A^T); TM below reads TN
        acc.split(tiles + 1, wgmma.m)                       # [.., Ko, TM/64, M64, TN, TK]
        m = 0                                               # ping-pong: a warp group owns the tile's rows
        if not params.ping_pong:                            # cooperative: Mw warp groups share them
            acc.split(tiles + 1, w, inner_split=False)      # [.., Ko, Mw, Mr, M64, TN, TK]
            acc.axis(tiles + 1).parallelize(ParallelType.TIDy)
            m = 1
        k_step = wgmma.k_for(a.dtype.size)
        r = tiles + 1 + m                                   # Mr
        acc.split(r + 3, k_step)                            # [.., Ko, (Mw,) Mr, M64, TN, Kr, K16]
        acc.reorder({r + 3: r, r: r + 1, r + 1: r + 2, r + 2: r + 3})   # [.., Ko, (Mw,) Kr, Mr, M64, TN, K16]
        acc.axis(r).parallelize(ParallelType.Unroll)
        acc.axis(r + 1).parallelize(ParallelType.Unroll)
        for k in (r + 2, r + 3, r + 4):
            acc.axis(k).parallelize(ParallelType.Mma)

        # Operands, computed inside the tile and K loops; A lacks N and B lacks M, so each gains a
        # loop broadcast for the missing one. Each tile is laid out in its input's own major order
        # (``MatmulLayout``): K-major, rows of TK; MN-major, TK rows of each chunk of 64 M or N.
        a_s.compute_at(acc, tiles + 1)                      # [tiles, Ko, bN, TM, TK]
        _operand_order(a_s, tiles, k=a_s.logical[-1], mn_first=False)
        if layout.a_mn_major:
            _mn_major_tile(a_s, tiles, mn=tiles + 2, broadcast=tiles + 1, load=load_a, params=params)
        else:                                               # [tiles, Ko, bN, TM, TK]: one box per stage
            _k_major_tile(a_s, tiles, tk, load=load_a, params=params)
        b_s.compute_at(acc, tiles + 1)                      # [tiles, Ko, TN, bM, TK]
        _operand_order(b_s, tiles, k=b_s.logical[-2], mn_first=True)
        if layout.b_mn_major:
            _mn_major_tile(b_s, tiles, mn=tiles + 1, broadcast=tiles + 2, load=load_b, params=params)
        else:
            b_s.reorder({tiles + 1: tiles + 2})             # [tiles, Ko, bM, TN, TK]: one box per stage
            _k_major_tile(b_s, tiles, tk, load=load_b, params=params)

        _circular_buffer_operands(a_s, b_s, params, problem.tma_operands)
        _cluster(fusion, params, a_s, b_s)

        # epilogue: [tiles..., Mw, Mr, TIDx, N/8, 2, 2], every tensor inlined into its consumer
        staged = _stage_output(fusion, params) if params.tma_store else []
        loaded = _load_epilogue_inputs(fusion, acc, params)
        vectors = _load_epilogue_vectors(fusion, acc, params)
        for tv in epilogue_tensors(fusion, acc):
            if tv in staged:
                _schedule_staged_tensor(tv, params, batch)
            elif tv not in loaded and tv not in vectors:
                _schedule_epilogue_tensor(tv, params, batch)
        producer = params.epilogue_loads == "producer"
        for tv in loaded:
            _schedule_loaded_tile(tv, params, bt, sub_tiles=producer)
        for tv in vectors:
            _schedule_loaded_vector(tv, params, bt, sub_tiles=producer)
        if producer:
            _pipeline_epilogue_loads(loaded + vectors, params)
        _inline_epilogue(fusion, acc, operands=(a_s, b_s))
    fusion.set_index_type(params.index_type)
    why = params.why if params.why is not None else given_why(params)
    fusion.scheduler_choice = MatmulChoice(params, problem, key, why)
    return fusion


def _cluster(fusion: Fusion, params: MatmulParams, a_s: TensorView, b_s: TensorView) -> None:
    """``params.cluster``: the blocks of a cluster are adjacent tiles along the tile axis bound to a block
    index (M: ``Mo`` on BIDy, N: ``No`` on BIDx), so the cluster is ``__cluster_dims__`` along that index and
    the operand that lacks the axis (B lacks M, A lacks N) is the same tile in every block of the cluster:
    it is multicast along that block index. A 2-D cluster ``(cm, cn)`` spans both: B is multicast along BIDy to
    the blocks of a cluster column, A along BIDx to those of a cluster row. Persistent: the cluster's blocks differ in their rank, BIDy
    (``_tile_axes``), and take the tiles of one cluster tile, which share that operand's tile."""
    cm, cn = params.cluster
    for tile, name in ((a_s, "A"), (b_s, "B")):
        if (cm > 1 or cn > 1) and load_kind(tile) is not LoadStoreOpType.TMA:
            raise ScheduleError(f"MatmulParams.cluster: {params.cluster} with operand {name} loaded by the compute "
                                f"warp groups (its rows are not 16-byte multiples); a cluster shares a tile by TMA "
                                f"multicast through the TMA pipeline's mbarriers: use cluster=(1, 1)")
    if params.persistent and cm * cn > 1:
        fusion.set_cluster_dims((1, cm * cn, 1))
        (b_s if cm > 1 else a_s).set_multicast(ParallelType.BIDy)
        return
    if cm * cn > 1:
        fusion.set_cluster_dims((cn, cm, 1))
    if cm > 1:
        b_s.set_multicast(ParallelType.BIDy)
    if cn > 1:
        a_s.set_multicast(ParallelType.BIDx)


def _operand_tile(operand: TensorView, load: OperandLoad) -> TensorView:
    """The shared tile an operand is loaded into (TMA, cp.async or plain copies: ``load``): a cache of the input,
    or, for a transpose of an input, the transpose itself made that load (``set_load_type``; a plain copy
    already is one), which reads the input in place in its own order."""
    if operand.is_input:
        tile = operand.cache_after(load.kind)
    elif load.kind is LoadStoreOpType.Set:
        tile = operand
    else:
        tile = operand.set_load_type(load.kind)
    if tile.memory_type is not MemoryType.Shared:
        tile.set_memory_type(MemoryType.Shared)
    return tile


def _operand_order(tv: TensorView, tiles: int, k: IterDomain, mn_first: bool) -> None:
    """An operand tile's axes right of ``[tiles, Ko]``, as ``compute_at`` left them in the accumulator's order: its
    loop broadcast, its M or N tile and its K tile ``k`` as ``[b, MN, TK]`` (A) or ``[MN, b, TK]`` (B, ``mn_first``),
    the order the layouts below start from whichever way the accumulator's rows run (``MatmulParams.swap_ab``)."""
    rest = tv.loop[tiles + 1:]
    (b,) = [i for i in rest if i.is_broadcast]
    (kk,) = [i for i in rest if innermost_root(i) is k]
    (mn,) = [i for i in rest if i is not b and i is not kk]
    order = [mn, b, kk] if mn_first else [b, mn, kk]
    tv.reorder({tv.loop.index(axis): tiles + 1 + j for j, axis in enumerate(order)})


def _k_major_tile(tv: TensorView, tiles: int, tk: int, load: OperandLoad = TMA_LOADS[0],
                  params: MatmulParams | None = None) -> None:
    """``[tiles, Ko, b, MN, TK]`` -> one TMA box of ``MN x TK`` per stage, rows of TK (one swizzle span); loaded
    by the compute warp groups (``load`` not TMA), the same layout spread over their threads (``_spread_load``)."""
    tv.set_swizzle(swizzle_by_span()[tk * tv.dtype.size])
    if not load.tma:
        assert params is not None
        _spread_load(tv, tiles, load, params)
        return
    tv.axis(tiles + 2).parallelize(ParallelType.Bulk)
    tv.axis(tiles + 3).parallelize(ParallelType.Bulk)


def _mn_major_tile(tv: TensorView, tiles: int, mn: int, broadcast: int, load: OperandLoad = TMA_LOADS[0],
                   params: MatmulParams | None = None) -> None:
    """An operand tile whose M or N axis (at ``mn``, beside its loop broadcast at ``broadcast``, then TK) is
    contiguous: ``[tiles, Ko, MNc, b, TK, MNw]``, a TMA box of ``TK x MNw`` per chunk of ``MNw`` columns (one
    swizzle row, the widest whose elements divide the columns: 160 columns of bf16 are 5 chunks of 32 in 64-byte
    rows); loaded by the compute warp groups, the same layout spread over their threads."""
    columns = tv.loop[mn].extent.const_value()
    assert columns is not None
    w = mn_chunk(columns, tv.dtype.size)
    b, k = tv.loop[broadcast], tv.loop[tiles + 3]
    tv.split(mn, w)                                     # [tiles, Ko, .., MNc, MNw, .., TK]
    order = [tv.loop[mn], b, k, tv.loop[mn + 1]]
    tv.reorder({tv.loop.index(axis): tiles + 1 + j for j, axis in enumerate(order)})
    tv.set_swizzle(swizzle_by_span()[w * tv.dtype.size])
    if not load.tma:
        assert params is not None
        _spread_load(tv, tiles, load, params)
        return
    tv.axis(tiles + 1).parallelize(ParallelType.Unroll)
    tv.axis(tiles + 3).parallelize(ParallelType.Bulk)
    tv.axis(tiles + 4).parallelize(ParallelType.Bulk)


def _spread_load(tv: TensorView, tiles: int, load: OperandLoad, params: MatmulParams) -> None:
    """An operand tile the compute warp groups load themselves (cp.async of ``load.vector`` elements, or plain
    copies): its axes right of ``[tiles, Ko]`` but the loop broadcast, the layout a TMA box would have, become
    its allocation domain (the wgmma descriptors read the same swizzled rows); its loop then runs over them
    merged, ``[tiles, Ko, b, copies / threads (Serial), W (TIDy), 128 (TIDx), vector (Vectorize)]``, so
    consecutive threads copy consecutive vectors of a row. ``MatmulParams.validate_loads`` checked that the
    threads divide the copies."""
    inner = tv.loop[tiles + 1:]
    tv.set_allocation_domain([i for i in inner if not i.is_broadcast])
    (b,) = [i for i in inner if i.is_broadcast]
    tv.reorder({tv.loop.index(b): tiles + 1})           # [tiles, Ko, b, ..., row]
    x = tiles + 2
    vector = 1 if load.vector > 1 else 0
    if vector:
        tv.split(-1, load.vector)                       # [tiles, Ko, b, ..., row / v, v]: v consecutive elements
    while tv.ndim > x + 1 + vector:
        tv.merge(x, x + 1)                              # [tiles, Ko, b, E / v(, v)]
    tv.split(x, current_target().warp_group_size)       # [.., E / v / 128, 128(, v)]
    w = params.compute_warp_groups
    if w > 1:
        tv.split(x, w)                                  # [.., E / v / 128 / W, W, 128(, v)]
        tv.axis(x + 1).parallelize(ParallelType.TIDy)
    # the copies per thread stay a serial loop: unrolled, the 64 plain copies of a 256 x 64 tile per thread spill
    # the accumulators (tests/codegen/test_suggested_matmul_compile.py)
    tv.axis(-2 if load.vector > 1 else -1).parallelize(ParallelType.TIDx)
    if load.vector > 1:
        tv.axis(-1).parallelize(ParallelType.MisalignedVectorize if load.misaligned else ParallelType.Vectorize)


def _circular_buffer_operands(a_s: TensorView, b_s: TensorView, params: MatmulParams, tma_operands: bool) -> None:
    """The operands' pipeline over the K loop: TMA loads with mbarriers guarding the stages' reuse
    (Pipelined) or a producer warp group (warp-specialized); with an operand the compute warp groups load
    themselves, Pipelined with the loads two stages ahead, so the block sync of each iteration's wait
    orders the reuse of a stage the MMAs read (``CircularLoop.syncs_cover_lag``)."""
    if not tma_operands:
        for tv in (a_s, b_s):
            tv.circular_buffer(params.stages, prefetch=-2, type=Pipelined(uses_mbarrier_for_war=False))
        return
    pipeline = (WarpSpecialized(on=ParallelType.TIDy, num_registers=params.register_split)
                if params.warp_specialized else Pipelined(uses_mbarrier_for_war=True))
    for tv in (a_s, b_s):
        tv.circular_buffer(params.stages, type=pipeline)


def _stage_output(fusion: Fusion, params: MatmulParams) -> list[TensorView]:
    """``tma_store``: each output goes registers -> stmatrix -> shared tile -> TMA store (seed 000's epilogue);
    sub-tiled (``epilogue_tile``), through a ring of ``epilogue_stages`` staging tiles, the stores of one sub-tile
    waited for only before its tile is written again. Several outputs (a pre-activation and its activation) have a
    staging tile (ring) each.

    Returns the shared tiles and the outputs, which take the tile layout instead of the fragment one."""
    staged: list[TensorView] = []
    for out in fusion.outputs:
        if out.dtype not in wgmma_operand_types():
            raise ScheduleError(f"MatmulParams.tma_store: the output T{out.name} is {out.dtype.short_name}; stmatrix "
                                f"stores 16-bit elements (cast the result to bf16 or fp16)")
        if not tma_rows(out):
            n = out.shape_ids[-1].extent.const_value()
            raise ScheduleError(f"MatmulParams.tma_store: a row of the output T{out.name} holds N = {n} "
                                f"{out.dtype.short_name} elements, {n * out.dtype.size} bytes; a TMA store needs rows "
                                f"of a multiple of {current_target().tma.alignment} bytes: set tma_store=False (each "
                                f"thread stores its elements)")
    for out in list(fusion.outputs):
        tile = out.cache_before(LoadStoreOpType.TMAStore)     # shared tile, read by a TMA store
        tile.cache_before(LoadStoreOpType.StMatrix)           # registers in the fragment layout, stored by stmatrix
        if params.epilogue_tile is not None:       # a ring; "carried": across the tile loop
            carried = StoreWait.of(params.store_wait) is StoreWait.Carried
            out.set_store_wait(StoreWait.Carried if carried else StoreWait.Deferred, stages=params.epilogue_stages)
        else:
            out.set_store_wait(params.store_wait)
        staged += [tile, out]
    return staged


def _load_epilogue_inputs(fusion: Fusion, acc: TensorView, params: MatmulParams) -> list[TensorView]:
    """An ``[M, N]`` input the epilogue reads (the ``C`` of ``alpha * acc + beta * C``) comes into a shared
    tile by TMA, one tile per output tile; returns those shared tiles."""
    loaded = epilogue_inputs(fusion, acc)
    for c in loaded:
        readers = c.consumers()
        if len(readers) != 1:
            names = ", ".join(f"T{r.name}" for r in readers)
            raise ScheduleError(f"schedule_matmul: the epilogue reads T{c.name} ([M, N]) in {len(readers)} places "
                                f"({names}); its tile is TMA-loaded once per output tile for one reader: read it "
                                f"once (compute the expression that uses it once and reuse the result)")
    return [c.cache_after(LoadStoreOpType.TMA) for c in loaded]


def _load_epilogue_vectors(fusion: Fusion, acc: TensorView, params: MatmulParams) -> list[TensorView]:
    """A vector the epilogue broadcasts over the tile (a bias ``[N]`` per column, or ``[M]`` per row) comes into
    shared memory by TMA, one box of the tile's columns (rows) per output tile, loaded at the tile's start and
    read from shared memory in the epilogue; returns those shared vectors. Ping-pong warp groups each load the vector
    of their own turn, into a part of their own: where a part is not a whole number of TMA alignment units
    (``shared_vector``), each thread reads it from global memory instead."""
    return [v.cache_after(LoadStoreOpType.TMA) for v in epilogue_vectors(fusion, acc)
            if shared_vector(params, vector_tile(v, acc))]


def _pipeline_epilogue_loads(loaded: list[TensorView], params: MatmulParams) -> None:
    """``epilogue_loads="producer"``: the epilogue inputs' shared copies, computed inside the sub-tile loop, are
    circular-buffered by the producer warp group over the tiles and their sub-tiles (a pipeline of its own beside
    the operands': ``docs/matmul.md``, "Epilogue inputs loaded by the producer"), a stage per sub-tile."""
    pipeline = WarpSpecialized(on=ParallelType.TIDy, num_registers=params.register_split)
    for tv in loaded:
        tv.circular_buffer(params.epilogue_load_stages(), prefetch=-1, type=pipeline)


def _schedule_loaded_vector(tv: TensorView, params: MatmulParams, batch: int, sub_tiles: bool = False) -> None:
    """An epilogue vector's shared copy, ``[tiles..., T]``: computed at the output tile, one TMA box of the tile's
    ``T`` columns (or rows); with ``sub_tiles``, computed inside the sub-tile loop, ``[tiles..., Ns, EN]``: a box of
    the sub-tile's columns (a vector of rows: the tile's rows in every sub-tile)."""
    (consumer,) = tv.consumers()
    tiles = _tile_count(params, batch) + (1 if sub_tiles else 0)
    tv.compute_at(consumer, tiles)
    for k in range(tiles, tv.ndim):
        if not tv.axis(k).is_broadcast:
            tv.axis(k).parallelize(ParallelType.Bulk)


def _schedule_loaded_tile(tv: TensorView, params: MatmulParams, batch: int, sub_tiles: bool = False) -> None:
    """An epilogue input's shared tile, ``[tiles..., Nc, TM, Nw]``: computed at the output tile (loaded
    once per tile, before the epilogue reads it), a TMA box of ``TM x Nw`` (one swizzle row wide) per
    column chunk ``Nc``; with ``sub_tiles``, computed inside the epilogue's sub-tile loop, ``[tiles..., Ns, TM, EN]``:
    one box of the sub-tile's ``TM x EN``."""
    (consumer,) = tv.consumers()
    tiles = _tile_count(params, batch)
    if sub_tiles:
        tv.compute_at(consumer, tiles + 1)       # [tiles, Ns, TM, EN]
        en = tv.loop[tiles + 2].extent.const_value()
        assert en is not None
        tv.axis(tiles + 1).parallelize(ParallelType.Bulk)
        tv.axis(tiles + 2).parallelize(ParallelType.Bulk)
        tv.set_swizzle(swizzle_by_span().get(en * tv.dtype.size, SmemSwizzle.NONE))
        return
    tv.compute_at(consumer, tiles)               # [tiles, TM, TN]
    nw = _swizzle_row(params, tv)
    tv.split(tiles + 1, nw)                      # [tiles, TM, Nc, Nw]
    tv.reorder({tiles: tiles + 1, tiles + 1: tiles})   # [tiles, Nc, TM, Nw]
    tv.axis(tiles).parallelize(ParallelType.Unroll)
    tv.axis(tiles + 1).parallelize(ParallelType.Bulk)
    tv.axis(tiles + 2).parallelize(ParallelType.Bulk)
    # a tile narrower than the narrowest swizzle row (N = 8 with a K-major B) is not swizzled
    tv.set_swizzle(swizzle_by_span().get(nw * tv.dtype.size, SmemSwizzle.NONE))


def _schedule_staged_tensor(tv: TensorView, params: MatmulParams, batch: int) -> None:
    """The shared tile and the output of a TMA-store epilogue: ``[tiles..., Nc, TM, Nw]``, one box of
    ``TM x Nw`` (one swizzle row wide) per column chunk ``Nc``."""
    # a box per chunk of one swizzle row; sub-tiled, a box per sub-tile
    nw = _swizzle_row(params, tv) if params.epilogue_tile is None or params.swap_ab else params.epilogue_tile[1]
    tiles = _output_tiles(tv, params, batch)     # [tiles, TM, TN]
    if params.epilogue_tile is not None and params.swap_ab:
        _schedule_swapped_sub_tiles(tv, params, tiles, nw)
        return
    tv.split(tiles + 1, nw)                      # [tiles, TM, Nc, Nw]
    tv.reorder({tiles: tiles + 1, tiles + 1: tiles})   # [tiles, Nc, TM, Nw]
    if params.epilogue_tile is not None:         # sub-tiles: Nc is their loop, the output's and the tile's
        tv.axis(tiles).parallelize(ParallelType.Unroll)
        tv.axis(tiles + 1).parallelize(ParallelType.Bulk)
        tv.axis(tiles + 2).parallelize(ParallelType.Bulk)
        if not tv.is_output:
            tv.set_swizzle(swizzle_by_span()[nw * tv.dtype.size])
        return
    if tv.is_output:                             # the TMA store: a box per chunk
        tv.axis(tiles).parallelize(ParallelType.Unroll)
        tv.axis(tiles + 1).parallelize(ParallelType.Bulk)
        tv.axis(tiles + 2).parallelize(ParallelType.Bulk)
        return
    for k in (tiles, tiles + 1, tiles + 2):      # the shared tile: stmatrix writes all of it at once
        tv.axis(k).parallelize(ParallelType.Bulk)
    # a tile narrower than the narrowest swizzle row (N = 8 with a K-major B) is not swizzled
    tv.set_swizzle(swizzle_by_span().get(nw * tv.dtype.size, SmemSwizzle.NONE))


def _schedule_swapped_sub_tiles(tv: TensorView, params: MatmulParams, tiles: int, nw: int) -> None:
    """Swapped sub-tiles (``swap_ab``, ``epilogue_tile=(EM, TN)``): ``[tiles, Ms, Nc, EM, Nw]``, the sub-tile loop
    ``Ms`` over EM of the tile's rows (the fragment's columns), each sub-tile a box of ``EM x Nw`` per column chunk
    ``Nc`` of one swizzle row; the shared tile holds one sub-tile's chunks."""
    assert params.epilogue_tile is not None
    tv.split(tiles, params.epilogue_tile[0])     # [tiles, Ms, EM, TN]
    tv.split(tiles + 2, nw)                      # [tiles, Ms, EM, Nc, Nw]
    tv.reorder({tiles + 1: tiles + 2, tiles + 2: tiles + 1})   # [tiles, Ms, Nc, EM, Nw]
    tv.axis(tiles).parallelize(ParallelType.Unroll)
    tv.axis(tiles + 1).parallelize(ParallelType.Unroll if tv.is_output else ParallelType.Bulk)
    tv.axis(tiles + 2).parallelize(ParallelType.Bulk)
    tv.axis(tiles + 3).parallelize(ParallelType.Bulk)
    if not tv.is_output:
        tv.set_swizzle(swizzle_by_span().get(nw * tv.dtype.size, SmemSwizzle.NONE))


def _swizzle_row(params: MatmulParams, tv: TensorView) -> int:
    """Columns of ``tv``'s tile in one box: one swizzle row, the widest whose elements divide the tile's N
    (``mn_chunk``; a box past the tile's last column would store into the next tile's); an N narrower than the
    narrowest row, all of it."""
    return mn_chunk(params.tile[1], tv.dtype.size)


def _tile_count(params: MatmulParams, batch: int = 0) -> int:
    """How many tile axes lead a tensor's loop domain (``_tile_axes``); ``batch``: 1 when a (merged) batch
    axis leads the output, which is a grid axis of its own unless the tiles are persistent."""
    if params.persistent:
        return 2 + (1 if params.ping_pong else 0) + (1 if params.cluster_size() > 1 else 0)
    if params.stream_k:
        return 1
    return (1 if params.grouped_grid else 2) + batch


def _merge_batch(tv: TensorView, batch: int) -> int:
    """Merge the ``batch`` leading (batch) axes of ``tv`` into one; returns how many batch axes lead now (0 or 1)."""
    for _ in range(batch - 1):
        tv.merge(0, 1)
    return 1 if batch else 0


def _tile_axes(tv: TensorView, params: MatmulParams, batch: int = 0) -> int:
    """Turn the leading [(B,) Mo, No] of ``tv`` into the block's tile axes; returns how many there are.

    Not persistent: ``[Mo (BIDy), No (BIDx)]``, a block per tile, and a batch axis before them on BIDz.
    Persistent: ``[T / B, B (BIDx)]`` over the ``T`` tiles in grouped order (``group_m`` row tiles share a
    column of B before the next column, the last group the rows left: ``_group_tiles``; with ``raster="n"`` the
    same with rows and columns exchanged), the batch outermost (``T`` counts the tiles of every batch); each of the
    ``B = params.blocks`` blocks walks tiles ``blockIdx.x, blockIdx.x + B, ...``. Ping-pong:
    ``[T / B / W, W (TIDy), B (BIDx)]``, the block's tiles dealt to its W compute warp groups in turn.
    Persistent in clusters of ``C`` blocks (``params.cluster``): the walk is over cluster tiles, ``C`` adjacent
    tiles along M (``(C, 1)``) or N (``(1, C)``) that share the other operand's tile, ``[T' / (B / C), B / C (BIDx),
    C (BIDy)]``: the ``B / C`` clusters (blockIdx.x) walk the ``T'`` cluster tiles in grouped order, the same in
    every block of a cluster, and the block of rank ``blockIdx.y`` takes the rank's tile of each (``group_m``
    counts tile rows or columns, whole cluster tiles along the raster's direction).
    """
    if params.stream_k:                      # [T]: the tiles row by row, a serial loop over each block's range
        tv.merge(batch, batch + 1)
        return _tile_count(params, batch)
    if not params.persistent:
        if batch:
            tv.axis(0).parallelize(ParallelType.BIDz)
        if params.grouped_grid:              # [(B,) T (BIDx)]: a block per tile, the tiles in grouped order
            _group_tiles(tv, batch, params.group_m, params.raster)
            tv.axis(batch).parallelize(ParallelType.BIDx)
        else:
            tv.axis(batch).parallelize(ParallelType.BIDy)
            tv.axis(batch + 1).parallelize(ParallelType.BIDx)
        return _tile_count(params, batch)
    cm, cn = params.cluster
    size = cm * cn
    g = params.group_m
    if cm > 1:                               # [(B,) Mo / C, No, C]: a cluster tile's rows innermost
        tv.split(batch, cm)
        tv.reorder({batch + 1: batch + 2, batch + 2: batch + 1})
        g = g // cm if params.raster == "m" else g
    elif cn > 1:                             # [(B,) Mo, No / C, C]
        tv.split(batch + 1, cn)
        g = g // cn if params.raster == "n" else g
    _group_tiles(tv, batch, g, params.raster)
    if batch:
        tv.merge(0, 1)                       # [B T, ...]: the batch's tiles one after the other
    tv.split(0, params.blocks // size)       # [T / B, B, (C,) ...]
    tv.axis(1).parallelize(ParallelType.BIDx)
    if size > 1:
        tv.axis(2).parallelize(ParallelType.BIDy)   # the block's rank in its cluster
    if not params.ping_pong:
        return _tile_count(params)
    # ping-pong: the block's j-th tile goes to warp group j % W: [T / B / W, W (TIDy), B (BIDx)(, C (BIDy))]
    tv.split(0, params.compute_warp_groups)
    tv.axis(1).parallelize(ParallelType.TIDy)
    return _tile_count(params)


def _group_tiles(tv: TensorView, at: int, g: int, raster: str) -> None:
    """``[.., Mo, No, ..]`` (at ``at``) -> ``[.., T, ..]``, the tiles in grouped order (``merge_grouped``): ``g`` row
    tiles down a column before the next column (``raster="m"``), or ``g`` column tiles along a row (``"n"``); the
    last group holds the rows (columns) left, so ``T`` counts the problem's tiles and no more."""
    if g == 1:
        tv.merge(at, at + 1)                 # row after row
    elif raster == "n":
        tv.merge_grouped(at + 1, at, g)
    else:
        tv.merge_grouped(at, at + 1, g)


def _split_k(acc: TensorView, params: MatmulParams, tiles: int) -> int:
    """Split-K: the accumulator's K-tile loop (at ``tiles``) becomes ``[S (BIDz), Ko / S]``, each of the ``S =
    params.split_k`` blocks of an output tile accumulating the partial sum of one range of K tiles; the
    lowering sums the ranges' partials in order in the last block (a grid reduction,
    ``lowering/grid_reduction.py``), which alone runs the epilogue. Returns the tile axes added (0 or 1)."""
    if params.split_k == 1:
        return 0
    acc.split(tiles, params.split_k, inner_split=False)   # [tiles..., S, ceilDiv(Ko, S), ...]
    acc.axis(tiles).parallelize(ParallelType.BIDz)
    return 1


def _output_tiles(tv: TensorView, params: MatmulParams, batch: int) -> int:
    """``[B..., M, N]`` -> ``[tiles..., TM, TN]``; returns how many tile axes lead."""
    if tv.ndim != 2 + batch:
        shape = "[" + "B, " * batch + "M, N]"
        if batch:
            raise ScheduleError(f"schedule_matmul: epilogue tensor T{tv.name} has {tv.ndim} axes; the epilogue of a "
                                f"batched matmul is {shape}: broadcast an [M, N] or [N] input over the batch first "
                                f"and compute on the broadcast (every epilogue tensor is laid out as the batched "
                                f"accumulator's fragment)")
        raise ScheduleError(f"schedule_matmul: epilogue tensor T{tv.name} has {tv.ndim} axes; the epilogue is "
                            f"{shape} (broadcast a bias to {shape} before adding it)")
    tm, tn, _ = params.tile
    bt = _merge_batch(tv, batch)                 # [(B,) M, N]
    tv.split(bt, tm).split(bt + 2, tn)           # [(B,) Mo, TM, No, TN]
    tv.reorder({bt + 1: bt + 2, bt + 2: bt + 1}) # [(B,) Mo, No, TM, TN]
    return _tile_axes(tv, params, bt)


def _schedule_epilogue_tensor(tv: TensorView, params: MatmulParams, batch: int) -> None:
    tiles = _output_tiles(tv, params, batch)
    if params.epilogue_tile is not None:         # sub-tiles: [tiles, Ns, TM, EN], the fragment over EN
        if params.swap_ab:                       # swapped: [tiles, Ms, EM, TN], the fragment's columns over EM
            tv.split(tiles, params.epilogue_tile[0])
        else:
            tv.split(tiles + 1, params.epilogue_tile[1])
            tv.reorder({tiles: tiles + 1, tiles + 1: tiles})
        tv.axis(tiles).parallelize(ParallelType.Unroll)
        tiles += 1
    if params.swap_ab:                           # [tiles, TN, TM]: the fragment's rows along N, as the accumulator's
        tv.reorder({tiles: tiles + 1})
    tv.split(tiles, current_target().wgmma.m)    # [.., Mr, M64, TN]
    if not params.ping_pong:                     # cooperative: [.., Mw, Mr, M64, TN]
        tv.split(tiles, params.compute_warp_groups, inner_split=False)
        tv.axis(tiles).parallelize(ParallelType.TIDy)
        tiles += 1
    tv.axis(tiles).parallelize(ParallelType.Unroll)
    # the output: 2-element stores, when every row starts on a pair (N even) and a thread's pair is two columns of
    # a row (swapped, it is two rows of a column)
    schedule_mma_fragment(tv, tiles + 1, vectorize=tv.is_output and _rows_of_pairs(tv) and not params.swap_ab)


def _rows_of_pairs(tv: TensorView) -> bool:
    """Every row of ``tv`` (a symbolic N: the runtime checks) starts on a 2-element boundary."""
    n = tv.shape_ids[-1].extent.const_value()
    return n is None or n % 2 == 0


def _inline_epilogue(fusion: Fusion, acc: TensorView, operands: tuple[TensorView, ...] = ()) -> None:
    """The accumulator shares the tile loops with the epilogue (its K loop stays its own); the
    epilogue tensors are inlined into each other (the operand tiles stay at their K loop)."""
    from ..inlining import inline_most

    inline_most(fusion, [tv for tv in fusion.used_tensors() if not tv.is_input and tv not in operands
                         and load_kind(tv) is not LoadStoreOpType.TMA])


def schedule_mma_fragment(tv: TensorView, axis: int, vectorize: bool = False) -> TensorView:
    """Lay axes ``axis`` (64 rows) and ``axis + 1`` (N columns) of ``tv`` out as a wgmma accumulator
    fragment: ``[TIDx(128), N/8, 2, 2]``, the 128 threads of a warp group each holding ``N / 2``
    elements in the order of ``wgmma.m64nNk16``'s accumulators (``lowering.layout.wgmma_accumulator``).

    Row ``16 w + 8 j + l / 4`` and column ``8 i + 2 (l % 4) + c`` belong to lane ``l`` of warp
    ``w``, register ``4 i + 2 j + c``: the splits below name those pieces and the merge makes
    ``w, l / 4, l % 4`` one thread index.

    Of a reduction over the columns (``max(s, -1)`` of an accumulator or of a pointwise consumer of one) the
    same layout reduces a row in registers: each thread its registers ``i, c`` of the row, then the 4 lanes of
    the quad ``l / 4`` by warp shuffles (the column pairs ``l % 4`` merged into TIDx by ``merge_lanes``), so
    every thread holding the row ends with the row's result.
    """
    a = axis if axis >= 0 else axis + tv.ndim
    rows, cols = tv.loop[a].extent.const_value(), tv.loop[a + 1].extent.const_value() if a + 1 < tv.ndim else None
    wgmma = current_target().wgmma
    if rows != wgmma.m or cols is None or cols % wgmma.n_step:
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
        if tv.loop[a + 1].is_reduction:
            tv.merge_lanes(a, a + 1)   # [w r q, i, j2, c2]: a row's 4 column pairs reduce across the quad
        else:
            tv.merge(a, a + 1)         # [w r q, i, j2, c2]
        tv.axis(a).parallelize(ParallelType.TIDx)
        tv.axis(a + 1).parallelize(ParallelType.Unroll)
        tv.axis(a + 2).parallelize(ParallelType.Unroll)
        # a thread's two adjacent columns: with ``vectorize``, one store of both
        tv.axis(a + 3).parallelize(ParallelType.Vectorize if vectorize else ParallelType.Unroll)
    return tv
