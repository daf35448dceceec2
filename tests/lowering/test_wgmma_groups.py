"""lowering/passes/wgmma_groups: how many wgmma groups a run leaves in flight where a circular-buffered operand
meets a single-stage one. A circular-buffered loop's release lag lets a run keep its group in flight only while no
shared operand it reads, other than that loop's stages, is written where the group stays in flight: a K loop
nested in the circular-buffered loop that reloads a single-stage tile every iteration retires each group before
the next load (the simulator reports the overwrite otherwise). The verifier's ``wgmma-in-flight`` rule catches a
run left in flight over such a tile."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from examples import attention, attention_wgmma, matmul_rescaled
from fusion_ir import DataType, Fusion, LoadStoreOpType, MemoryType, ParallelType, Pipelined, inline_most
from fusion_ir.online_softmax import online_softmax
from fusion_ir.scalar import Val
from fusion_ir.schedulers import schedule_mma_fragment
from fusion_ir.schedulers.attention_wgmma import schedule_on_tensor_cores
from fusion_ir.schedulers.mma_tiles import k_major_tile, n_major_tile
from fusion_ir.types import SmemSwizzle
from lowering import VerifyError, lower, verify
from lowering import kernel_ir as k
from lowering.passes import wgmma_groups
from runtime import simulate
from target import current as current_target
from tests.helpers import assert_matches, random_inputs
from tests.runtime.kir_builders import mutate

RESCALED = (2, 64, 64, 128)      # J, M, N, K: two J, two K tiles of 64
ATTENTION = (1, 1, 64, 128, 128)  # B, H, Sq, Skv, D: two key blocks, two chunks of D


def rescaled_a_over_j(prefetch: int | None) -> Fusion:
    """``matmul_rescaled`` with a_j's whole ``[64, K]`` tile loaded once per J (``prefetch`` not None: in two stages
    circular-buffered over J, read only by the wgmmas, so J's release lag is 1) and b_j's ``[64, 64]`` tile
    single-stage, loaded in the K loop inside J: a single-stage operand beside a circular-buffered one."""
    j, m, n, kk = RESCALED
    fusion = matmul_rescaled.fusion_of(j, m, n, kk)
    a, b, _ = fusion.inputs
    out = fusion.outputs[0]
    total = out.definition.inputs[0]
    mm, row_scale = total.definition.inputs
    wgmma = current_target().wgmma
    with fusion:
        a_s = a.cache_after(LoadStoreOpType.TMA)
        b_s = b.cache_after(LoadStoreOpType.TMA)
    for tv in (a_s, b_s):
        tv.set_memory_type(MemoryType.Shared)
    for tv in (mm, total):
        tv.set_memory_type(MemoryType.Local)
    mm.split(1, wgmma.m).split(3, n).split(5, matmul_rescaled.TK).split(6, wgmma.k_for(DataType.BFloat16.size))
    mm.reorder({0: 2, 1: 0, 2: 5, 3: 1, 4: 6, 5: 3, 6: 4})            # [Mo, No, J, Ko, Kr, M64, TN, K16]
    mm.axis(0).parallelize(ParallelType.BIDx)
    mm.axis(1).parallelize(ParallelType.BIDy)
    mm.axis(4).parallelize(ParallelType.Unroll)
    for axis in (5, 6, 7):
        mm.axis(axis).parallelize(ParallelType.Mma)
    a_s.compute_at(mm, 3)                                             # [Mo, bNo, J, M64, bTN, K]
    a_s.split(5, matmul_rescaled.TK)                                  # [Mo, bNo, J, M64, bTN, Ko, TK]
    a_s.reorder({5: 3, 3: 5})                                         # [Mo, bNo, J, Ko, bTN, M64, TK]
    a_s.axis(3).parallelize(ParallelType.Unroll)                      # a box per K tile
    k_major_tile(a_s, 5)
    b_s.compute_at(mm, 4)                                             # in the K loop
    n_major_tile(b_s, mn=5, broadcast=4, k=6, at=4)
    if prefetch is not None:
        a_s.circular_buffer(2, prefetch, Pipelined(uses_mbarrier_for_war=True))
    for tv in (row_scale, total):
        tv.split(1, wgmma.m).split(3, n)
        tv.reorder({0: 2, 1: 0, 2: 3, 3: 1})                          # [Mo, No, J, M64, TN]
    out.split(0, wgmma.m).split(2, n)
    out.reorder({1: 2, 2: 1})                                         # [Mo, No, M64, TN]
    for tv, fragment in ((row_scale, 3), (total, 3), (out, 2)):
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(1).parallelize(ParallelType.BIDy)
        schedule_mma_fragment(tv, fragment, vectorize=tv is out)
    inline_most(fusion, [mm, total, out])
    row_scale.compute_at(total, 4)
    return fusion


def _k_loop_waits(kernel: k.Kernel) -> list[int]:
    """The wgmma waits in the loops whose own statements load b_j's single-stage tile (the K loops)."""
    def loads_b(node: k.Node) -> bool:
        return isinstance(node, k.ElectSync) and any(isinstance(x, k.TmaLoad) and x.tensor_map.name == "tmap_T1"
                                                     for x in k.walk(node.body))
    loops = [n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop) and any(loads_b(x) for x in n.body)]
    return [x.pending for lp in loops for x in lp.body if isinstance(x, k.AsyncWait) and x.kind is k.AsyncKind.Wgmma]


@pytest.mark.parametrize("prefetch", [None, 1, 0])
def test_single_stage_operand_beside_a_circular_buffered_one_matches_numpy(prefetch: int | None) -> None:
    """Before: the K loop inherited J's lag and kept a group reading b_j's tile in flight while the next K tile's
    TMA load overwrote it (the simulator's overwrite error); at prefetch 0 the block hung."""
    fusion = rescaled_a_over_j(prefetch)
    kernel = lower(fusion)
    assert _k_loop_waits(kernel) and set(_k_loop_waits(kernel)) == {0}
    inputs = random_inputs(fusion, matmul_rescaled.input_shapes(*RESCALED), seed=3)
    assert_matches(fusion, inputs, simulate(kernel, inputs, seed=0), tol=matmul_rescaled.TOLERANCE)


def test_a_group_left_in_flight_over_a_single_stage_tile_fails_verification() -> None:
    """The K loop's wait made to keep one group pending (what the lowering did): the loop's TMA load writes b_j's
    tile, which the pending group's wgmmas read at the same place every iteration."""
    kernel = lower(rescaled_a_over_j(1))
    verify(kernel)
    b_tile = next(n.dst.name for n in k.walk(kernel.body) if isinstance(n, k.TmaLoad)
                  and n.tensor_map.name == "tmap_T1")
    bad = mutate(kernel, lambda n: replace(n, pending=1) if isinstance(n, k.AsyncWait)
                 and n.kind is k.AsyncKind.Wgmma and n.pending == 0 else None)
    with pytest.raises(VerifyError, match=rf"wgmma group\(s\) in flight across iterations of loop .* read {b_tile} "
                                          rf"at the same place every iteration.*rule wgmma-in-flight"):
        verify(bad)


def test_a_group_left_in_flight_over_a_stage_ring_verifies() -> None:
    """A circular-buffered operand's offset moves with the loop: the matmul's K pipeline keeps its group in
    flight and verifies."""
    fusion = matmul_rescaled.build(*RESCALED, tn=64, stages=2)
    kernel = lower(fusion)
    assert 1 in [x.pending for x in k.walk(kernel.body) if isinstance(x, k.AsyncWait) and x.kind is k.AsyncKind.Wgmma]
    verify(kernel)


def attention_v_circular_buffered(prefetch: int | None, shape: tuple[int, ...] = ATTENTION) -> Fusion:
    """The tensor-core attention kernel (64 keys per block) with v_j's tile (the PV wgmma's B) in two stages over
    the key blocks (``prefetch`` None: as the scheduler leaves it, single-stage); k_j's tile stays single-stage,
    loaded per chunk of D in the QK^T wgmmas' K loop."""
    fusion = attention.fusion_of(*shape, causal=False)
    (record,) = online_softmax(fusion, 64)
    schedule_on_tensor_cores(fusion, record)
    if prefetch is not None:
        record.block_out.definition.inputs[1].circular_buffer(2, prefetch, Pipelined(uses_mbarrier_for_war=True))
    return fusion


@pytest.mark.parametrize("prefetch", [1, 0])
def test_attention_with_v_circular_buffered_matches_numpy(prefetch: int) -> None:
    """Before: QK^T's K loop kept a group reading k_j's tile in flight across the next chunk's load (prefetch 1, a
    3x larger error on the H100), and the block hung at prefetch 0."""
    kernel = lower(attention_v_circular_buffered(prefetch))
    inputs = attention_wgmma.make_inputs(*ATTENTION, seed=1)
    (out,) = simulate(kernel, inputs, seed=0)
    want = attention_wgmma.reference(*inputs)
    err = float(np.abs(np.asarray(out, dtype=np.float64) - want).max() / np.abs(want).max())
    assert err <= attention_wgmma.TOLERANCE, err


def _tile(name: str) -> k.Buffer:
    return k.Buffer(name, DataType.BFloat16, MemoryType.Shared, Val.const(4096))


def _operand(name: str) -> k.MatrixDescriptor:
    return k.MatrixDescriptor(_tile(name), Val.const(0), 16, 128, SmemSwizzle.NONE, False)


@pytest.mark.parametrize("written,at,pending", [("T9", 8192, 1), ("T9", 4096, 0), ("T1", 8192, 0), ("T3", 8192, 1)])
def test_a_run_keeps_its_group_in_flight_unless_its_statement_list_writes_an_operand(written: str, at: int,
                                                                                     pending: int) -> None:
    """Lag 1 with T3 a stage of the circular-buffered loop: a write into T1 (the run's other operand), or into T9
    placed where T1 lies (bytes [0, 8192)), retires the group; T9 elsewhere or a write into the stage T3 do not."""
    acc = k.Buffer("T2", DataType.Float, MemoryType.Local, Val.const(32))
    mma = k.Mma(acc, Val.const(0), _operand("T1"), _operand("T3"), (64, 64, 16), DataType.BFloat16)
    write = k.Assign(_tile(written), Val.const(0), k.Const(0.0, DataType.BFloat16))
    memory = {"T1": {(0, 8192)}, "T3": {(16384, 24576)}, "T9": {(at, at + 8192)}}
    no_loops = SimpleNamespace(circular=SimpleNamespace(loop_for=lambda node: None))
    lag = wgmma_groups.Lag(1, frozenset({"T3"}), memory)
    out, in_flight = wgmma_groups._grouped((mma, write), no_loops, lag)
    assert out[2:4] == (k.AsyncCommit(k.AsyncKind.Wgmma), k.AsyncWait(k.AsyncKind.Wgmma, pending))
    assert in_flight is (pending > 0)


def test_a_pipeline_whose_matmuls_sum_inside_an_iteration_releases_its_own_stage() -> None:
    """a_j circular-buffered over J, read by wgmmas that sum over K inside each J iteration: their groups are
    retired in the iteration (wait_group 0), so the iteration releases its own stage at its end (release lag 0), and
    the load ``prefetch`` ahead may refill it at once; the matmul's K pipeline (K its reduction) keeps lag 1."""
    kernel = lower(rescaled_a_over_j(1))
    (main,) = [n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop) and n.stage is k.Stage.Main]
    releases = [n for n in k.walk(main.body) if isinstance(n, k.MBarrierArrive)]
    assert releases and all(f"{main.index} - 1" not in str(n.index) for n in releases), [str(n.index) for n in releases]
    waits = [n.pending for n in k.walk(main.body) if isinstance(n, k.AsyncWait) and n.kind is k.AsyncKind.Wgmma]
    assert waits and set(waits) == {0}
    k_pipeline = lower(matmul_rescaled.build(*RESCALED, tn=64, stages=2))
    lagged = [n for n in k.walk(k_pipeline.body) if isinstance(n, k.MBarrierArrive) and "- 1" in str(n.index)]
    assert lagged
