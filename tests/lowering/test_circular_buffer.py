"""TMA loads, mbarrier/token lifetime and Pipelined circular buffering.

Every schedule here is simulated against numpy (several seeds, sizes no box divides) and its
kernel IR is checked for the pipeline's structure; invalid boxes and pipelines raise
``LoweringError`` naming the tensor and the rule.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import examples
from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, Pipelined, WarpSpecialized, ops
from fusion_ir.scalar import Val
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from lowering.passes import circular_buffer as circular_buffer_pass
from codegen import to_cuda
from codegen.nvcc import compile_check, nvcc_available
from runtime import simulate
from runtime.errors import InputError
from tests.helpers import assert_matches, random_inputs
from tests.lowering.pipeline_cases import (SHORT_KINDS, SHORT_STAGES, pipeline_cases, short_pipeline,
                                           short_pipeline_shapes, short_trip_counts)

SEEDS = (0, 1, 2)


def run_and_check(build, shapes_list, seeds=SEEDS) -> None:
    for n, shapes in enumerate(shapes_list):
        for seed in seeds:
            fusion = build()
            kernel = lower(fusion)
            inputs = random_inputs(fusion, shapes, seed=1000 * n + seed)
            assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed))


def loops_by_stage(kernel: k.Kernel) -> list[k.ForLoop]:
    return [n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop) and n.stage is not None]


def stage_of(loop: k.ForLoop) -> str:
    return loop.stage.name


# ------------------------------------------------------------------ every pipeline schedule
CASES = list(pipeline_cases())


@pytest.mark.parametrize("build,shapes", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pipeline_matches_numpy_in_the_simulator(build, shapes) -> None:
    """Stages 2..6 with every prefetch, two TMA inputs, 2-D boxes, TMA into a block reduction,
    cp.async, registers and plain shared-memory loads; three seeds each (one lands copies lazily)."""
    run_and_check(build, shapes)


# ------------------------------------------------------------------ pipelines read by wgmma (release lag 1)
WGMMA_SIZE = (2, 64, 64, 192)     # J, M, N, K of matmul_rescaled: three K tiles per J


def wgmma_pipeline(stages: int, prefetch: int) -> Fusion:
    """``matmul_rescaled``'s a_j and b_j tiles in a ``Pipelined`` circular buffer over the K loop with mbarrier WAR
    guards: only the wgmmas read them, so each stage is released one iteration late."""
    fusion = examples.load("matmul_rescaled").build(*WGMMA_SIZE, tn=64, stages=1)
    mm = fusion.outputs[0].definition.inputs[0].definition.inputs[0]
    for tv in mm.definition.inputs:
        tv.circular_buffer(stages, prefetch, Pipelined(uses_mbarrier_for_war=True))
    return fusion


@pytest.mark.parametrize("stages,prefetch", [(2, 0), (2, 1), (3, 0), (3, 1), (3, 2)])
def test_wgmma_pipeline_matches_numpy_at_every_prefetch(stages: int, prefetch: int) -> None:
    """Before, prefetch 0 hung: the main loop issued iteration i + P's loads after its compute, as a late release
    needs, but at P = 0 those are iteration i's own, which its wait before the compute was waiting for."""
    fusion = wgmma_pipeline(stages, prefetch)
    kernel = lower(fusion)
    shapes = examples.load("matmul_rescaled").input_shapes(*WGMMA_SIZE)
    for seed in (0, 1):
        inputs = random_inputs(fusion, shapes, seed=seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=1e-2)


def test_a_lagged_pipeline_at_prefetch_0_issues_its_loads_before_its_wait() -> None:
    kernel = lower(wgmma_pipeline(2, 0))
    (main,) = [lp for lp in loops_by_stage(kernel) if lp.stage is k.Stage.Main]
    assert not [lp for lp in loops_by_stage(kernel) if lp.stage in (k.Stage.Prologue, k.Stage.Epilogue)]
    order = [type(x) for x in main.body if isinstance(x, (k.ElectSync, k.MBarrierWaitParity, k.IfThenElse))]
    assert order[:2] == [k.ElectSync, k.MBarrierWaitParity]        # issue stage i % 2, then wait for it
    issue, wait = [x for x in main.body if isinstance(x, (k.ElectSync, k.MBarrierWaitParity))][:2]
    empty, full = issue.body[0], issue.body[1]
    assert isinstance(empty, k.MBarrierWaitParity) and str(empty.index) == f"({main.index} % 2) + 2"
    assert isinstance(full, k.MBarrierArriveExpectTx) and str(full.index) == str(wait.index) == f"{main.index} % 2"
    release = main.body[-1]             # iteration i - 1's stage, after the wait that retired its wgmmas
    assert isinstance(release, k.IfThenElse) and isinstance(release.then_body[0], k.MBarrierArrive)
    assert str(release.then_body[0].index) == f"(({main.index} - 1) % 2) + 2"


# ------------------------------------------------------------------ structure
def test_seed_circular_buffer_has_the_five_stages_in_order() -> None:
    kernel = lower(examples.load("seed_circular_buffer").build())
    assert [stage_of(lp) for lp in loops_by_stage(kernel)] == [
        "PrePrologue", "Prologue", "Main", "Epilogue", "PostEpilogue"]
    pre, prologue, main, epilogue, post = loops_by_stage(kernel)
    assert isinstance(pre.body[0], k.MBarrierInit) and isinstance(post.body[0], k.MBarrierInval)
    assert str(prologue.stop) == "min(2, ceilDiv(i0, 32))" and str(main.stop) == "ceilDiv(i0, 32) - 2"
    assert str(epilogue.start) == "max(ceilDiv(i0, 32) - 2, 0)"
    # main: the elected thread issues iteration i + 2, then every thread waits on stage i % 3
    issue, wait = main.body[0], main.body[1]
    assert isinstance(issue, k.ElectSync)
    arrive, load = issue.body
    assert isinstance(arrive, k.MBarrierArriveExpectTx) and str(arrive.index) == "(i1 + 2) % 3"
    assert str(arrive.tx_bytes) == "128"
    assert isinstance(load, k.TmaLoad) and [str(c) for c in load.coords] == ["(i1 + 2) * 32"]
    assert str(load.mbar_index) == "(i1 + 2) % 3"
    assert isinstance(wait, k.MBarrierWaitParity)
    assert (str(wait.index), str(wait.parity)) == ("i1 % 3", "(i1 / 3) % 2")
    assert not any(isinstance(n, k.TmaLoad) for n in k.walk(epilogue.body))


def test_one_mbarrier_array_guards_both_inputs_and_counts_every_byte() -> None:
    kernel = lower(examples.load("tma_add").build(stages=4, boxes=4))
    inits = [n for n in k.walk(kernel.body) if isinstance(n, k.MBarrierInit)]
    assert {n.mbar.name for n in inits} == {"T3_mbar"}
    main = next(lp for lp in loops_by_stage(kernel) if lp.stage is k.Stage.Main)
    arrive = next(n for n in k.walk(main.body) if isinstance(n, k.MBarrierArriveExpectTx))
    assert str(arrive.tx_bytes) == str(2 * 4 * 256 * 4)   # two inputs x 4 boxes x 256 floats
    loads = [n for n in k.walk(main.body) if isinstance(n, k.TmaLoad)]
    assert {n.tensor_map.name for n in loads} == {"tmap_T0", "tmap_T1"}
    assert {n.mbar.name for n in loads} == {"T3_mbar"}
    assert {m.name: m.box for m in kernel.tensor_maps} == {"tmap_T0": (256,), "tmap_T1": (256,)}


def test_war_is_a_block_sync_or_the_empty_mbarriers() -> None:
    synced = lower(examples.load("tma_add").build(stages=3))
    main = next(lp for lp in loops_by_stage(synced) if lp.stage is k.Stage.Main)
    assert isinstance(main.body[-1], k.BlockSync) and "WAR" in main.body[-1].reason

    kernel = lower(examples.load("tma_add").build(stages=3, war_mbarrier=True))
    mbar = next(n for n in k.walk(kernel.body) if isinstance(n, k.Allocate) and n.buffer.name == "T3_mbar")
    assert str(mbar.buffer.size) == "6"
    inits = [n for n in k.walk(kernel.body) if isinstance(n, k.MBarrierInit)]
    assert [(str(n.index), str(n.count)) for n in inits] == [("s1", "1"), ("s1 + 3", "256")]
    pre_arrive = [lp for lp in loops_by_stage(kernel) if lp.stage is k.Stage.PrePrologue][1]
    assert isinstance(pre_arrive.body[0], k.MBarrierArrive)
    main = next(lp for lp in loops_by_stage(kernel) if lp.stage is k.Stage.Main)
    assert not any(isinstance(n, k.BlockSync) for n in main.body)
    elect = main.body[0]
    assert isinstance(elect.body[0], k.MBarrierWaitParity) and str(elect.body[0].index) == "((i3 + 2) % 3) + 3"
    assert isinstance(main.body[-1], k.MBarrierArrive) and str(main.body[-1].index) == "(i3 % 3) + 3"


def test_parity_form_outside_circular_buffering() -> None:
    """One load per iteration of the column loop: every thread waits on the phase, the iteration's parity; no
    token and no block barrier between the wait and the read (only the WAR one at the end of the iteration)."""
    kernel = lower(examples.load("tma_token").build())
    top = kernel.body
    assert [type(n).__name__ for n in top[:3]] == ["Allocate", "ElectSync", "BlockSync"]
    (loop,) = [n for n in top if isinstance(n, k.ForLoop)]
    names = [type(n).__name__ for n in loop.body]
    assert names[:3] == ["Allocate", "ElectSync", "MBarrierWaitParity"] and names[-1] == "BlockSync"
    arrive, load = loop.body[1].body
    assert isinstance(arrive, k.MBarrierArriveExpectTx) and arrive.token is None and isinstance(load, k.TmaLoad)
    assert str(loop.body[2].parity) == f"{loop.index} % 2"
    assert [n.reason for n in k.walk(loop.body) if isinstance(n, k.BlockSync)] == ["WAR: T2 is rewritten next iteration"]
    assert not any(isinstance(n, (k.MBarrierWait, k.Allocate)) and "token" in str(n) for n in k.walk(top))
    run_and_check(examples.load("tma_token").build, [[(1, 4)], [(37, 212)]])


def test_the_parity_counts_every_loop_around_the_load() -> None:
    """Loops around the issue: the outermost counts from its start in steps of its step, an inner one with odd
    iterations counts, one with even iterations does not (its passes complete an even number of phases); an inner
    loop whose bounds read an outer index, or a branch around the issue, leaves no parity (the token form)."""
    from lowering.analysis.mbarriers import issue_parity

    i, j, m = Val.symbol("i"), Val.symbol("j"), Val.symbol("m")
    n = Val.symbol("n")

    def loop(index: Val, start, stop, step=1) -> k.ForLoop:
        return k.ForLoop(index, Val.const(start) if isinstance(start, int) else start,
                         Val.const(stop) if isinstance(stop, int) else stop, (),
                         step=Val.const(step) if isinstance(step, int) else step)

    assert str(issue_parity([])) == "0"
    assert str(issue_parity([loop(i, 0, n)])) == "i % 2"
    assert str(issue_parity([loop(i, 0, n), loop(j, 0, 3)])) == "(j + (i * 3)) % 2"
    assert str(issue_parity([loop(i, 0, n), loop(j, 0, 4)])) == "j % 2"
    assert issue_parity([loop(i, 0, n), loop(j, 0, 1), loop(m, 2, 4)]).evaluate({"i": 3, "j": 0, "m": 3}) == 1
    assert str(issue_parity([loop(i, Val.symbol("b"), n, Val.symbol("g"))])) == "((i - b) / g) % 2"
    assert issue_parity([loop(i, 0, n), loop(j, 0, i)]) is None       # the inner trip count changes with i
    assert issue_parity([loop(i, 0, n), loop(j, 0, 4, 2)]) is None
    assert issue_parity(None) is None
    # evaluated: the ordinal of the issue mod 2, over every iteration
    for loops, sizes in (([loop(i, 0, 5), loop(j, 0, 3)], (5, 3)), ([loop(i, 0, 4), loop(j, 1, 3)], (4, 2))):
        parity = issue_parity(loops)
        ordinal = 0
        for a in range(sizes[0]):
            for b in range(loops[1].start.const_value(), loops[1].stop.const_value()):
                assert parity.evaluate({"i": a, "j": b}) == ordinal % 2
                ordinal += 1


def test_token_form_where_the_loops_do_not_count_phases(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the phase cannot be counted from the loop indices, the elected thread keeps the token, waits on it,
    and the block syncs before the read."""
    from lowering.analysis import mbarriers

    monkeypatch.setattr(mbarriers, "issue_parity", lambda loops: None)
    kernel = lower(examples.load("tma_token").build())
    top = kernel.body
    names = [type(n).__name__ for n in top]
    assert names[:4] == ["Allocate", "Allocate", "ElectSync", "BlockSync"]
    assert names[-2:] == ["BlockSync", "ElectSync"]
    elect = next(n for n in k.walk(top) if isinstance(n, k.ElectSync) and len(n.body) == 3)
    arrive, load, wait = elect.body
    assert isinstance(arrive, k.MBarrierArriveExpectTx) and arrive.token is not None
    assert str(arrive.tx_bytes) == "1024"
    assert isinstance(load, k.TmaLoad) and load.tensor_map.box == (32, 8)
    assert isinstance(wait, k.MBarrierWait) and wait.token is arrive.token
    run_and_check(examples.load("tma_token").build, [[(1, 4)], [(37, 212)]])


def test_mbarriers_live_from_init_to_inval_and_are_never_shared() -> None:
    traced = lower(examples.load("seed_circular_buffer").build(), trace=True)
    lives = {buf.name: live for buf, live in traced.analyses.smem.lives.items()}
    mbar, tile = lives["T2_mbar"], lives["T2"]
    assert mbar.start < tile.start < tile.end <= mbar.end
    mb0, mb1 = mbar.offset.const_value(), mbar.offset.const_value() + 3 * 8
    t0, t1 = tile.offset.const_value(), tile.offset.const_value() + 3 * 32 * 4
    assert mb1 <= t0 or t1 <= mb0
    assert t0 % 128 == 0


def test_kernel_ir_after_the_circular_buffer_pass_prints_shifted_loads() -> None:
    traced = lower(examples.load("seed_double_buffer").build(), trace=True)
    text = str(traced.after("circular_buffer"))
    assert "// at i1 = i1 + 1" in text
    assert "// main" in text and "// epilogue" in text


def _circular_loop_renamed(traced, group: int | None = None) -> k.Kernel:
    """The kernel the circular-buffer pass reads, with its pipelined loop's index renamed (and its loop
    group replaced by ``group``, when given)."""
    (loop,) = traced.analyses.circular.loops.values()
    renamed = Val.symbol("renamed")

    def rename(node):
        if isinstance(node, k.ForLoop) and node.group == loop.group.number:
            node = k.substitute(node, {loop.index.name: renamed})
            return node if group is None else replace(node, group=group)
        return None

    kernel = traced.after("smem_reuse")
    return replace(kernel, body=k.rewrite(kernel.body, rename))


def test_the_circular_buffer_pass_finds_its_loop_by_loop_group_not_by_index_name() -> None:
    """A pass that renames the loop's index keeps its loop group: the pipeline still finds it, and a loop
    of another group is not taken for it, whatever its index is called."""
    traced = lower(examples.load("seed_double_buffer").build(), trace=True)
    renamed = circular_buffer_pass.run(_circular_loop_renamed(traced), traced.analyses)
    stages = [(lp.stage, lp.index.name) for lp in loops_by_stage(renamed)]
    assert (k.Stage.Main, "renamed") in stages and (k.Stage.Prologue, "renamed") in stages
    other = circular_buffer_pass.run(_circular_loop_renamed(traced, group=-1), traced.analyses)
    assert not any(lp.stage in (k.Stage.Prologue, k.Stage.Main) for lp in loops_by_stage(other))


# ------------------------------------------------------------------ loops shorter than the pipeline
@pytest.mark.parametrize("kind", SHORT_KINDS)
def test_a_pipeline_runs_any_trip_count_at_run_time(kind: str) -> None:
    """1, 2, S - 1, S and S + 1 iterations of a symbolic loop: the prologue issues only the
    iterations that exist, and the kernel has no fill check left to refuse the short ones."""
    fusion = short_pipeline(kind)
    kernel = lower(fusion)
    assert not [c for c in kernel.checks if "circular" in c.message], "no pipeline-fill refusal before launch"
    for trips in short_trip_counts():
        for seed in (0, 1):
            inputs = random_inputs(fusion, short_pipeline_shapes(kind, trips), seed=10 * trips + seed)
            assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed))


def test_the_prologue_and_epilogue_of_a_symbolic_loop_are_clamped_to_its_trip_count() -> None:
    loops = [n for n in k.walk(lower(short_pipeline("tma")).body) if isinstance(n, k.ForLoop) and n.stage]
    by_stage = {n.stage: n for n in loops}
    assert str(by_stage[k.Stage.Prologue].stop) == f"min({SHORT_STAGES - 1}, ceilDiv(i0, 128))"
    assert str(by_stage[k.Stage.Epilogue].start) == f"max(ceilDiv(i0, 128) - {SHORT_STAGES - 1}, 0)"


def test_plain_shared_loads_of_a_short_loop_get_the_sync_the_main_loop_would_give() -> None:
    """Other threads' plain stores into a stage are ordered by the main loop's block syncs; with at
    most P iterations it runs none, so the epilogue's reads are preceded by a sync of their own."""
    kernel = lower(short_pipeline("shared"))
    guarded = [n for n in k.walk(kernel.body) if isinstance(n, k.IfThenElse)
               and any(isinstance(x, k.BlockSync) for x in n.then_body)]
    assert [str(n.cond) for n in guarded] == [f"ceilDiv(i0, 128) <= {SHORT_STAGES - 1}"]
    assert not any(isinstance(n, k.IfThenElse) and any(isinstance(x, k.BlockSync) for x in n.then_body)
                   for n in k.walk(lower(short_pipeline("tma")).body)), "TMA waits in the epilogue itself"


def test_a_constant_loop_shorter_than_the_stages_runs() -> None:
    fusion = examples.load("tma_add").build(stages=4, tiles=3)
    kernel = lower(fusion)
    prologue = next(n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop) and n.stage is k.Stage.Prologue)
    assert prologue.stop.const_value() == 3                  # min(P, n) folded
    for shape in ((1,), (3 * 4 * 256 - 9,), (5000,)):
        inputs = random_inputs(fusion, [shape, shape], seed=shape[0])
        assert_matches(fusion, inputs, simulate(kernel, inputs))


@pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")
@pytest.mark.parametrize("kind", SHORT_KINDS)
def test_short_pipelines_compile_for_sm90a(kind: str) -> None:
    compile_check(to_cuda(lower(short_pipeline(kind))))


# ------------------------------------------------------------------ invalid boxes and pipelines
def tma_1d(factor: int = 32, dtype: DataType = DataType.Float, stages: int | None = 2, bulk: bool = True,
           threads: bool = False) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=dtype)
        out = ops.set(x)
        fusion.add_output(out)
    out.split(0, factor)
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 1)
    if bulk:
        tile.axis(1).parallelize(ParallelType.Bulk)
    if threads:
        tile.axis(1).parallelize(ParallelType.TIDx)
    if stages is not None:
        tile.circular_buffer(stages)
    return fusion


def tma_2d(order: str = "rows_cols", merge: bool = False) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.set(x)
        fusion.add_output(out)
    out.split(1, 32)
    out.split(0, 8)
    out.reorder({1: 2})          # [i0/8, i1/32, 8, 32]
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 2)
    if merge:
        tile.merge(2)            # [i0/8, i1/32, 8*32]
        tile.axis(2).parallelize(ParallelType.Bulk)
        return fusion
    if order == "cols_rows":
        tile.reorder({2: 3})     # [.., 32, 8]: the column box before the row box
    tile.axis(2).parallelize(ParallelType.Bulk)
    tile.axis(3).parallelize(ParallelType.Bulk)
    return fusion


INVALID = [
    ("box over 256", lambda: tma_1d(factor=512), "extent 512; a TMA box extent must be in \\[1, 256\\]"),
    ("row under 16 bytes", lambda: tma_1d(factor=2, stages=None), "2 x float = 8 bytes; it must be a multiple of 16"),
    ("box not 128-byte aligned", lambda: tma_1d(factor=8), "box is 32 bytes and T2 holds 2 of them"),
    ("no Bulk axis", lambda: tma_1d(bulk=False, stages=None), "has no Bulk axis"),
    ("thread axis", lambda: tma_1d(bulk=False, threads=True, stages=None), "one elected thread issues"),
    ("merged box", lambda: tma_2d(merge=True), "not the innermost part of one dimension"),
    ("box order", lambda: tma_2d(order="cols_rows"), "must be the innermost allocated axes of T2, in the dimension"),
]


@pytest.mark.parametrize("build,match", [(b, m) for _, b, m in INVALID], ids=[n for n, _, _ in INVALID])
def test_invalid_tma_boxes_are_lowering_errors(build, match: str) -> None:
    fusion = build()
    before = fusion.state_fingerprint()
    with pytest.raises(LoweringError, match=match):
        lower(fusion)
    assert fusion.state_fingerprint() == before


def test_an_outer_split_part_cannot_be_the_box() -> None:
    fusion = tma_1d(factor=128, bulk=False, stages=None)
    tile = fusion.used_tensors()[1]
    tile.split(1, 4)                                   # [.., 32, 4]
    tile.axis(1).parallelize(ParallelType.Bulk)        # the 32 is strided by 4: not a dense box
    with pytest.raises(LoweringError, match="Bulk axis .* is not the innermost part"):
        lower(fusion)


def test_a_rank_6_tensor_is_not_a_tma_box() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=6, dtype=DataType.Float)
        out = ops.set(x)
        fusion.add_output(out)
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.axis(5).parallelize(ParallelType.Bulk)
    with pytest.raises(LoweringError, match="at most 5 dimensions"):
        lower(fusion)


def test_tma_strides_and_alignment_are_checked_at_run_time() -> None:
    fusion = examples.load("tma_token").build()
    kernel = lower(fusion)
    inputs = random_inputs(fusion, [(8, 30)], seed=0)   # rows of 120 bytes
    with pytest.raises(InputError, match="multiples of 16 bytes"):
        simulate(kernel, inputs)


def test_loads_sharing_a_loop_must_agree_on_the_pipeline() -> None:
    fusion = examples.load("tma_add").build(stages=3)
    a_tile = [tv for tv in fusion.used_tensors() if tv.is_circular_buffered][0]
    a_tile.circular_buffer(4)
    with pytest.raises(LoweringError, match="same loop .* with different options"):
        lower(fusion)


def test_mbarrier_war_needs_tma() -> None:
    fusion = examples.load("cp_async_pipeline").build()
    tile = [tv for tv in fusion.used_tensors() if tv.is_circular_buffered][0]
    tile.circular_buffer(3, 2, Pipelined(uses_mbarrier_for_war=True))
    with pytest.raises(LoweringError, match="uses_mbarrier_for_war=True\\) guards TMA loads"):
        lower(fusion)


def test_warp_specialization_of_a_block_too_wide_to_pad_is_refused_clearly() -> None:
    fusion = examples.load("tma_add").build()     # 256 threads on TIDx: no room for a 128-thread producer on TIDy
    for tv in fusion.used_tensors():
        if tv.is_circular_buffered:
            tv.circular_buffer(4, 3, WarpSpecialized(ParallelType.TIDy))
    with pytest.raises(LoweringError, match=r"pads TIDy .* divides 128; the block is TIDx = 256"):
        lower(fusion)


def test_a_circular_buffered_tensor_must_read_a_fusion_input() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        y = ops.mul(x, 2.0)
        out = ops.add(y, 1.0)
        fusion.add_output(out)
    cache = y.cache_after()
    out.split(0, 32)
    out.split(0, 4)
    out.axis(2).parallelize(ParallelType.TIDx)
    y.compute_at(out, 2)
    cache.compute_at(out, 2)
    cache.circular_buffer(2)
    with pytest.raises(LoweringError, match="circular buffering prefetches loads of fusion inputs"):
        lower(fusion)
