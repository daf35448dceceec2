"""schedule_matmul and MatmulParams: the schedule it builds and the parameters it refuses."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, MemoryType, ParallelType, ScheduleError, SmemSwizzle, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul, schedule_mma_fragment


def _matmul(dtype: DataType = DataType.BFloat16) -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=dtype)
        b = fusion.add_input(ndim=2, dtype=dtype)
        fusion.add_output(ops.matmul(a, b))
    return fusion


def _acc(fusion: Fusion):
    return next(e.output for e in fusion.exprs if type(e).__name__ == "MmaOp")


def test_accumulator_schedule() -> None:
    fusion = schedule_matmul(_matmul(), MatmulParams(tile=(128, 256, 64), stages=4, compute_warp_groups=2))
    acc = _acc(fusion)
    assert acc.memory_type is MemoryType.Local
    assert [i.parallel_type for i in acc.loop] == [
        ParallelType.BIDy, ParallelType.BIDx, ParallelType.Serial, ParallelType.TIDy, ParallelType.Unroll,
        ParallelType.Unroll, ParallelType.Mma, ParallelType.Mma, ParallelType.Mma]
    assert [i.extent.const_value() for i in acc.loop[3:]] == [2, 4, 1, 64, 256, 16]
    a_s, b_s = acc.definition.inputs
    assert a_s.swizzle is SmemSwizzle.B128 and b_s.swizzle is SmemSwizzle.B128
    assert a_s.circular_buffer_options.stages == 4 and b_s.circular_buffer_options.stages == 4
    out = fusion.outputs[0]
    assert [i.parallel_type for i in out.loop][-4:] == [ParallelType.TIDx] + [ParallelType.Unroll] * 2 + [
        ParallelType.Vectorize]
    assert [i.extent.const_value() for i in out.loop][-4:] == [128, 32, 2, 2]


def test_operands_gain_loop_broadcasts_for_the_dimension_they_lack() -> None:
    fusion = schedule_matmul(_matmul(), MatmulParams())
    acc = _acc(fusion)
    a_s, b_s = acc.definition.inputs
    n_root, m_root = acc.root[1], acc.root[0]
    assert list(a_s.loop_broadcasts) == [n_root] and list(b_s.loop_broadcasts) == [m_root]
    assert a_s.compute_at_pos == b_s.compute_at_pos == 3


def test_persistent_warp_specialized_schedule() -> None:
    fusion = schedule_matmul(_matmul(), MatmulParams(warp_specialized=True, persistent=True, blocks=132, group_m=4))
    acc = _acc(fusion)
    assert [i.parallel_type for i in acc.loop[:3]] == [ParallelType.Serial, ParallelType.BIDx, ParallelType.Serial]
    assert acc.loop[1].extent.const_value() == 132
    a_s, _ = acc.definition.inputs
    ws = a_s.circular_buffer_options.type
    assert ws.on is ParallelType.TIDy and ws.num_registers == (40, 232)
    out = fusion.outputs[0]
    assert out.loop[1].parallel_type is ParallelType.BIDx and acc.compute_at_pos == 2


def test_small_k_tile_uses_a_narrower_swizzle() -> None:
    fusion = schedule_matmul(_matmul(), MatmulParams(tile=(64, 32, 32), stages=2, compute_warp_groups=1))
    a_s, b_s = _acc(fusion).definition.inputs
    assert a_s.swizzle is SmemSwizzle.B64 and b_s.swizzle is SmemSwizzle.B64


@pytest.mark.parametrize("params,match", [
    (MatmulParams(tile=(96, 256, 64)), r"tile: M 96 is not a multiple of 64 per warp group"),
    (MatmulParams(tile=(64, 256, 64), compute_warp_groups=2), r"M 64 is not a multiple of 64 per warp group"),
    (MatmulParams(tile=(384, 64, 64), compute_warp_groups=3), r"tile: M 384 is over 256"),
    (MatmulParams(tile=(128, 264, 64)), r"N 264 must be a multiple of 8 and at most 256"),
    (MatmulParams(tile=(128, 100, 64)), r"N 100 must be a multiple of 8"),
    (MatmulParams(tile=(128, 256, 24)), r"K 24 is not a multiple of 16"),
    (MatmulParams(tile=(128, 256, 128)), r"swizzle span is exceeded"),
    (MatmulParams(tile=(128, 136, 64)), r"N 136 makes a row of B's N-major tile"),
    (MatmulParams(stages=1), r"stages: 1 must be an int >= 2"),
    (MatmulParams(stages=5), r"stages: 5 stages .* over the 232448-byte limit"),
    (MatmulParams(stages="Auto"), r"stages: 'Auto' must be an int >= 2 .* or \"auto\""),
    # persistent and warp-specialized: the output tile lives beside the operands' stages
    (MatmulParams(tile=(256, 256, 64), compute_warp_groups=4, stages="auto", tma_store=True, warp_specialized=True,
                  persistent=True, register_split=None),
     r"stages: even the 2 stages of \"auto\" of A \(256 x 64\) and B \(64 x 256\) .* over the 232448-byte limit"),
    (MatmulParams(tile=(128, 256, 64), compute_warp_groups=1), r"256 fp32 accumulators"),
    (MatmulParams(compute_warp_groups=0), r"compute_warp_groups: 0 must be a positive int"),
    (MatmulParams(tile=(128, 256)), r"tile: \(128, 256\) must be three positive ints"),
    (MatmulParams(tile=(128, 128, 64), ping_pong=True),
     r"MatmulParams.ping_pong: ping-pong warp groups take turns on the tiles of a persistent warp-specialized"),
    (MatmulParams(tile=(128, 128, 64), ping_pong=True, warp_specialized=True, persistent=True,
                  compute_warp_groups=1), r"compute_warp_groups: 1 with ping_pong=True"),
    (MatmulParams(ping_pong=True, warp_specialized=True, persistent=True),
     r"256 fp32 accumulators \(128 x 256 over 1 warp groups"),
    (MatmulParams(tile=(128, 128, 64), stages=7, ping_pong=True, warp_specialized=True, persistent=True,
                  tma_store=True), r"stages: 7 stages .* tiles and the output tile need"),
    # ping-pong groups take turns on one staging tile, but a deferred store wait needs one each
    (MatmulParams(tile=(128, 128, 64), stages=6, ping_pong=True, warp_specialized=True, persistent=True,
                  tma_store=True, store_wait="deferred"), r"stages: 6 stages .* tiles and the output tile need"),
    (MatmulParams(persistent=True, blocks=0), r"MatmulParams.blocks: 0 must be a positive int"),
    (MatmulParams(persistent=True, group_m=True), r"MatmulParams.group_m: True must be a positive int"),
    (MatmulParams(warp_specialized=True, register_split=(40, 230)), r"MatmulParams.register_split"),
    (MatmulParams(tile=(192, 64, 64), compute_warp_groups=3, warp_specialized=True),
     r"register_split: \(40, 232\) gives a producer and 3 compute warp groups 94208 registers"),
    # one wgmma.m64n256k16 over the register cap of 512 threads: ptxas refused it ("Insufficient registers (128)")
    (MatmulParams(tile=(192, 256, 64), compute_warp_groups=3, warp_specialized=True, register_split=(40, 152)),
     r"tile: N 256 on 3 compute warp groups and a producer \(512 threads\); one wgmma.m64n256k16 needs 154"),
    (MatmulParams(tile=(64, 160, 64), compute_warp_groups=4, warp_specialized=True, persistent=True, ping_pong=True,
                  register_split=(40, 112)), r"needs 106 registers a thread .* over the 96 a thread of 640"),
    # ping-pong 128 x 128 on three warp groups: 128 accumulators a thread at setmaxnreg 152 spilled 1.3 KB
    (MatmulParams(tile=(128, 128, 64), compute_warp_groups=3, warp_specialized=True, persistent=True, ping_pong=True,
                  register_split=(40, 152)), r"register_split: \(40, 152\) leaves a compute thread 152 registers"),
])
def test_invalid_params_are_refused(params: MatmulParams, match: str) -> None:
    fusion = _matmul()
    before = str(fusion)
    with pytest.raises(ScheduleError, match=match):
        schedule_matmul(fusion, params)
    assert str(fusion) == before


def test_operand_rules() -> None:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.Float)
        b = fusion.add_input(ndim=2, dtype=DataType.Float)
        fusion.add_output(ops.matmul(a, b))
    with pytest.raises(ScheduleError, match=r"operand a \(T0\) is float; wgmma takes bf16 or fp16"):
        schedule_matmul(fusion)
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=2, dtype=DataType.Half)
        fusion.add_output(ops.matmul(a, b))
    with pytest.raises(ScheduleError, match=r"must have the same dtype"):
        schedule_matmul(fusion)
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        fusion.add_output(ops.exp(a))
    with pytest.raises(ScheduleError, match=r"the fusion has 0 matmuls"):
        schedule_matmul(fusion)


def test_already_scheduled_fusion_is_refused() -> None:
    fusion = _matmul()
    fusion.outputs[0].split(0, 64)
    with pytest.raises(ScheduleError, match=r"already scheduled"):
        schedule_matmul(fusion)


def test_fragment_schedule_checks_its_axes() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.set(x)
        fusion.add_output(out)
    out.split(0, 32)
    with pytest.raises(ScheduleError, match=r"must be 64 rows and a multiple of 8 columns"):
        schedule_mma_fragment(out, 1)


def test_auto_stages_pass_through_to_circular_buffer() -> None:
    """``stages="auto"`` is validated at its shallowest (2 stages) and left for the lowering to pick."""
    params = MatmulParams(tile=(128, 256, 64), stages="auto")
    params.validate()
    assert params.smem_bytes(DataType.BFloat16) == MatmulParams(stages=2).smem_bytes(DataType.BFloat16)
    fusion = schedule_matmul(_matmul(), params)
    buffered = [tv for tv in fusion.used_tensors() if tv.circular_buffer_options is not None]
    assert len(buffered) == 2
    assert all(tv.circular_buffer_options.is_auto and tv.circular_buffer_options.prefetch == -1 for tv in buffered)


def test_an_epilogue_input_read_twice_is_refused_naming_its_readers() -> None:
    """relu(acc + C) + C: C's tile is loaded once per output tile for one reader; reading it twice was a
    bare ValueError from unpacking its consumers, and the fusion is left as it was."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(256, 128), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(128, 256), dtype=DataType.BFloat16)
        c = fusion.add_input(shape=(256, 256), dtype=DataType.Float)
        fusion.add_output(ops.add(ops.relu(ops.add(ops.matmul(a, b), c)), c))
    before = fusion.state_fingerprint()
    with pytest.raises(ScheduleError, match=r"schedule_matmul: the epilogue reads T2 \(\[M, N\]\) in 2 places"):
        schedule_matmul(fusion, MatmulParams(tile=(128, 128, 64), stages=2))
    assert fusion.state_fingerprint() == before
