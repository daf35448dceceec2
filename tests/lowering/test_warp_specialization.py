"""Warp-specialized circular buffering: thread padding, the two branches and their sub-DAGs, the
pipeline across a persistent loop, and the schedules it refuses."""

from __future__ import annotations

import pytest

import examples
from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, ScheduleError, WarpSpecialized, ops
from fusion_ir.scalar import Val
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from lowering.passes.hoist_indices import inline_lets

WS = WarpSpecialized


def _branch(kernel: k.Kernel) -> k.IfThenElse:
    (branch,) = [n for n in k.walk(kernel.body) if isinstance(n, k.IfThenElse) and n.branch_threads is not None]
    return branch


def _nodes(body: tuple[k.Node, ...], kind: type) -> list:
    return [n for n in k.walk(body) if isinstance(n, kind)]


@pytest.mark.parametrize("name, block, compute", [("ws_seed_copy", (128, 2, 1), 128),
                                                  ("ws_tma_pointwise", (128, 3, 1), 256),
                                                  ("ws_row_reduction", (128, 2, 1), 128)])
def test_the_padded_dimension_adds_one_producer_warp_group(name: str, block: tuple, compute: int) -> None:
    kernel = lower(examples.load(name).build())
    assert tuple(b.const_value() for b in kernel.block) == block
    branch = _branch(kernel)
    assert [t.const_value() for t in branch.branch_threads] == [128, compute]
    assert str(branch.cond) == "threadIdx.y >= (blockDim.y - 1)"


def test_the_producer_branch_holds_the_loads_and_the_compute_branch_the_rest() -> None:
    kernel = lower(examples.load("ws_tma_pointwise").build())
    branch = _branch(kernel)
    producer, compute = branch.then_body, branch.else_body
    assert [type(n).__name__ for n in producer] == ["SetMaxNReg", "ElectSync", "Return"]
    assert producer[0] == k.SetMaxNReg(40, increase=False)
    assert producer[1].body[0].stage is k.Stage.AsyncWarp, "one election, around the producer's loop"
    assert len(_nodes(producer, k.TmaLoad)) == 2 and not _nodes(producer, k.Assign)
    (elect,) = _nodes(producer, k.ElectSync)
    assert elect.warp.const_value() == 256 // 32, "the first warp of the producer branch elects"
    assert [type(n).__name__ for n in elect.body[0].body] == ["MBarrierWaitParity", "MBarrierArriveExpectTx",
                                                             "TmaLoad", "TmaLoad"]
    assert compute[0] == k.SetMaxNReg(232, increase=True)
    assert compute[1].stage is k.Stage.PrePrologue and compute[2].stage is k.Stage.ComputeWarp
    assert not _nodes(compute, k.TmaLoad) and _nodes(compute, k.Assign)
    body = compute[2].body
    assert isinstance(body[0], k.MBarrierWaitParity) and isinstance(body[-1], k.MBarrierArrive)
    assert kernel.launch_bounds == 384


def test_empty_barriers_count_the_compute_threads_and_are_pre_arrived_by_them_only() -> None:
    kernel = lower(examples.load("ws_tma_pointwise").build())
    inits = _nodes(kernel.body, k.MBarrierInit)
    assert sorted(str(n.count) for n in inits) == ["1", "256"]
    branch = _branch(kernel)
    arrives_outside = [n for n in _nodes(kernel.body, k.MBarrierArrive) if n not in _nodes(branch.else_body,
                                                                                             k.MBarrierArrive)]
    assert not arrives_outside


def test_the_pipeline_runs_across_the_persistent_loop_and_the_k_loop() -> None:
    kernel = inline_lets(lower(examples.load("ws_persistent_row_sum").build()))
    branch = _branch(kernel)
    (load,) = _nodes(branch.then_body, k.TmaLoad)
    tile_loop = branch.then_body[-2]
    k_loop = next(n for n in k.walk(tile_loop.body) if isinstance(n, k.ForLoop))
    iteration = f"({tile_loop.index} * {k_loop.stop}) + {k_loop.index}"
    assert str(load.mbar_index) == f"({iteration}) % 4"
    waits = _nodes(branch.else_body, k.MBarrierWaitParity)
    assert str(waits[0].parity) == f"(({iteration}) / 4) % 2"
    # tiles past the end are skipped in both branches, before anything else of the iteration
    for side in (branch.then_body, branch.else_body):
        loop = next(n for n in side if isinstance(n, k.ForLoop) and n.stage in (k.Stage.AsyncWarp,
                                                                                  k.Stage.ComputeWarp))
        skip = loop.body[0]
        assert isinstance(skip, k.IfThenElse) and skip.then_body == (k.Continue(),)
        assert str(skip.cond) == f"(({loop.index} * 3) + blockIdx.x) >= i0"
    # the store has no k axis: it follows the k loop in the compute branch
    compute_loop = branch.else_body[-1]
    assert isinstance(compute_loop.body[-1], k.IfThenElse) and _nodes(compute_loop.body[-1:], k.Assign)
    (reduce,) = _nodes(branch.else_body, k.BlockReduce)
    assert reduce.barrier is not None and reduce.barrier.threads.const_value() == 128


# ---------------------------------------------------------------- refused schedules
def _copy(n_inputs: int = 1, kind: LoadStoreOpType = LoadStoreOpType.TMA, tidx: int = 128,
          ws: WarpSpecialized = WS(), share: bool = False) -> Fusion:
    fusion = Fusion()
    with fusion:
        xs = [fusion.add_input(ndim=1, dtype=DataType.Float) for _ in range(n_inputs)]
        outs = [ops.set(x) for x in xs]
        for o in outs:
            fusion.add_output(o)
    for x, out in zip(xs, outs):
        out.split(0, tidx)
        out.axis(1).parallelize(ParallelType.TIDx)
        tile = x.cache_after(kind)
        tile.compute_at(out, 1)
        if kind is LoadStoreOpType.TMA:
            tile.axis(1).parallelize(ParallelType.Bulk)
        else:
            tile.axis(1).parallelize(ParallelType.TIDx)
        tile.circular_buffer(3, type=ws)
    return fusion


CATALOG = [
    ("not TMA", lambda: _copy(kind=LoadStoreOpType.CpAsync), r"T\d+: warp-specialized circular buffering "
     r"pipelines TMA loads.*loaded by CpAsync"),
    ("five loops", lambda: _copy(5), r"5 warp-specialized circular-buffer loops .* at most 4"),
    ("two loops", lambda: _copy(2), r"2 warp-specialized circular-buffer loops .* one producer branch per kernel"),
    ("cannot pad", lambda: _copy(tidx=256), r"pads TIDy .* the other thread dimensions .* divides 128; the block "
     r"is TIDx = 256"),
    ("registers per warp group", lambda: _copy(tidx=32, ws=WS(num_registers=(40, 232))),
     r"register sharing .* whole warp groups of 128 threads; it has 32"),
    ("register file", lambda: examples.load("ws_tma_pointwise").build(registers=(256, 256)),
     r"num_registers=\(256, 256\) gives the block 128 x 256 \+ 256 x 256 = 98304 registers, over the 65536"),
    ("not outermost", lambda: _two_d_copy(on=ParallelType.TIDx),
     r"WarpSpecialized\(on=TIDx\) must pad the outermost thread dimension .* TIDy is used"),
]


@pytest.mark.parametrize("name, build, message", CATALOG, ids=[row[0] for row in CATALOG])
def test_refused_schedules(name: str, build, message: str) -> None:
    fusion = build()
    with pytest.raises(LoweringError, match=message):
        lower(fusion)


def _two_d_copy(on: ParallelType) -> Fusion:
    """Tiles of 4 rows x 32 columns on TIDy x TIDx."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.set(x)
        fusion.add_output(out)
    out.split(1, 32)
    out.split(0, 4)                     # [ceilDiv(i0, 4), 4, ceilDiv(i1, 32), 32]
    out.reorder({1: 2})                 # [ceilDiv(i0, 4), ceilDiv(i1, 32), 4, 32]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDy)
    out.axis(3).parallelize(ParallelType.TIDx)
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 2)
    tile.axis(2).parallelize(ParallelType.Bulk)
    tile.axis(3).parallelize(ParallelType.Bulk)
    tile.circular_buffer(2, type=WS(on=on))
    return fusion


def test_padding_the_outermost_dimension_lowers() -> None:
    kernel = lower(_two_d_copy(ParallelType.TIDy))
    assert tuple(b.const_value() for b in kernel.block) == (32, 8, 1)   # 4 rows + a warp group of 4 x 32


def test_register_counts_are_checked_when_scheduled() -> None:
    fusion = _copy(ws=WS())
    tile = fusion.inputs[0].uses()[0].output
    with pytest.raises(ScheduleError, match="not a multiple of 8"):
        tile.circular_buffer(3, type=WS(num_registers=(44, 232)))


def test_waits_right_before_the_warp_split_move_into_the_compute_branch() -> None:
    """A phase wait right before the warp split for a load issued once (not the pipeline's) moves to the compute
    branch, after its setmaxnreg: the producer reads none of those tiles and starts its loads at once. A pipeline's
    own wait and a statement between them stay."""
    from lowering.passes.circular_buffer import _waits_into_compute
    from tests.runtime.kir_builders import c, for_, if_, shared

    once = shared("T5_mbar", 1, DataType.Int64)
    other = shared("T6_mbar", 1, DataType.Int64)
    pipeline = shared("T7_mbar", 4, DataType.Int64)
    compute_loop = for_("i0", 0, 4, [], stage=k.Stage.ComputeWarp)
    split = if_(Val.symbol("threadIdx.y").ge(c(1)), [k.Return()],
                [k.SetMaxNReg(240, increase=True), compute_loop])
    wait_once, wait_other = k.MBarrierWaitParity(once, c(0), c(0)), k.MBarrierWaitParity(other, c(0), c(0))
    wait_pipeline = k.MBarrierWaitParity(pipeline, c(0), c(0))
    body = (wait_pipeline, wait_once, wait_other, split)
    out = _waits_into_compute(body, [split], {"T7_mbar"})
    assert out[0] == wait_pipeline and len(out) == 2
    assert out[1].then_body == split.then_body
    assert out[1].else_body == (k.SetMaxNReg(240, increase=True), wait_once, wait_other, compute_loop)
    # a statement between the wait and the split keeps the wait where it is
    sync = k.BlockSync("init")
    kept = _waits_into_compute((wait_once, sync, split), [split], {"T7_mbar"})
    assert kept == (wait_once, sync, split)


def test_the_attention_producer_starts_without_waiting_for_q() -> None:
    """The warp-specialized attention kernel: q's tile (loaded once before the key blocks) is waited for by the
    compute warp groups only, in their branch."""
    kernel = lower(examples.load("attention_wgmma_ws").build())
    (split,) = [n for n in k.walk(kernel.body) if isinstance(n, k.IfThenElse) and n.branch_threads is not None]
    before = kernel.body[:kernel.body.index(split)]
    pipelines = {n.mbar.name for n in k.walk(kernel.body)
                 if isinstance(n, k.TmaLoad) and n.tensor_map.name != "tmap_T0"}   # k_j's and v_j's
    assert not any(isinstance(n, k.MBarrierWaitParity) for n in before)
    assert not any(isinstance(n, k.MBarrierWaitParity) and n.mbar.name not in pipelines
                   for n in k.walk(split.then_body))
    assert isinstance(split.else_body[1], k.MBarrierWaitParity) and split.else_body[1].mbar.name not in pipelines


def test_the_producer_issues_a_once_loaded_operand_of_the_loop() -> None:
    """q's tile, loaded once before the key blocks and read by the loop's matmuls, is issued by the producer's elected
    thread first in its branch (so the producer issues every TMA load the loop reads); an epilogue's C tile, read
    only after the mainloop (``epilogue_loads="consumer"``), stays issued before the warp split."""
    kernel = lower(examples.load("attention_wgmma_ws").build())
    (split,) = [n for n in kernel.body if isinstance(n, k.IfThenElse) and n.branch_threads is not None]
    before = kernel.body[:kernel.body.index(split)]
    assert not any(isinstance(n, k.TmaLoad) for n in k.walk(before))
    first = next(n for n in split.then_body if not isinstance(n, k.SetMaxNReg))
    assert isinstance(first, k.ElectSync) and str(first.warp) == "8"
    assert [n.tensor_map.name for n in k.walk(first.body) if isinstance(n, k.TmaLoad)] == ["tmap_T0"]
    assert not any(isinstance(n, k.TmaLoad) for n in k.walk(split.else_body))

    matmul = lower(examples.load("matmul_epilogue").build("alpha_beta", epilogue_tile=(128, 64), persistent=False))
    (split,) = [n for n in matmul.body if isinstance(n, k.IfThenElse) and n.branch_threads is not None]
    before = matmul.body[:matmul.body.index(split)]
    assert [n.tensor_map.name for n in k.walk(before) if isinstance(n, k.TmaLoad)] == ["tmap_T2"]   # C
