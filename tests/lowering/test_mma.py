"""The mma analysis, Mma indexing and the wgmma_groups pass: structure of a lowered wgmma matmul."""

from __future__ import annotations

from dataclasses import replace

import pytest

from examples import matmul_wgmma
from fusion_ir import DataType, Fusion, MemoryType, ParallelType, SmemSwizzle, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from fusion_ir.scalar import Val
from lowering.kernel_ir import Stage
from lowering.passes import wgmma_groups


def _main_loop(kernel: k.Kernel) -> k.ForLoop:
    return next(n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop) and n.stage is Stage.Main)


def test_descriptors_of_a_128x256x64_tile() -> None:
    traced = lower(matmul_wgmma.build(tile=(128, 256, 64), stages=4), trace=True)
    (tile,) = traced.analyses.mma.tiles.values()
    assert tile.shape == (64, 256, 16)
    assert (tile.a.mn_major, tile.a.stride_bytes, tile.a.swizzle) == (False, 1024, SmemSwizzle.B128)
    assert (tile.b.mn_major, tile.b.leading_bytes, tile.b.stride_bytes) == (True, 64 * 128, 1024)
    mmas = [n for n in k.walk(traced.kernel.body) if isinstance(n, k.Mma)]
    assert {m.shape for m in mmas} == {(64, 256, 16)} and {m.dtype for m in mmas} == {DataType.BFloat16}
    main = _main_loop(traced.kernel)
    kr = next(n for n in main.body if isinstance(n, k.ForLoop))
    mr = kr.body[0]
    mma = mr.body[0]
    env = {main.index.name: 5, kr.index.name: 2, mr.index.name: 0, "threadIdx.y": 1, "blockIdx.y": 3,
           "blockIdx.x": 7}
    # k tile 5 is in stage 1 (8192 elements of A per stage); warp group 1 reads rows 64..127 of it;
    # the k16 step 2 starts 32 elements into each 64-element row
    assert mma.a.offset.evaluate(env) == 1 * 8192 + 64 * 64 + 32
    # B's stage 1 (16384 elements), k rows 32.. of the first 64-column chunk
    assert mma.b.offset.evaluate(env) == 1 * 16384 + 32 * 64
    assert mma.acc_index.evaluate(env) == 0


def test_mma_runs_are_fenced_committed_and_waited() -> None:
    """Main loop: wait full, fence, MMAs, commit, wait_group 1 (one group in flight), release the stage the
    previous iteration's MMAs read, then load ahead into it; a wait_group 0 after the loops."""
    kernel = lower(matmul_wgmma.build(tile=(128, 128, 64), stages=3, compute_warp_groups=1))
    body = _main_loop(kernel).body
    kinds = [type(n).__name__ for n in body]
    fence = kinds.index("WgmmaFence")
    assert kinds[fence - 1] == "MBarrierWaitParity"
    assert kinds[fence + 1] == "ForLoop" and all(isinstance(m, (k.Mma, k.ForLoop)) for m in k.walk(body[fence + 1].body))
    assert body[fence + 2] == k.AsyncCommit(k.AsyncKind.Wgmma) and body[fence + 3] == k.AsyncWait(k.AsyncKind.Wgmma, 1)
    release = body[fence + 4]
    assert isinstance(release, k.IfThenElse) and isinstance(release.then_body[0], k.MBarrierArrive)
    assert isinstance(body[fence + 5], k.ElectSync)            # the next load comes after the release
    top = [type(n).__name__ for n in kernel.body]
    main = next(j for j, n in enumerate(kernel.body) if isinstance(n, k.ForLoop) and n.stage is Stage.Main)
    assert kernel.body[main + 1] == k.AsyncWait(k.AsyncKind.Wgmma, 0)
    assert top.count("AsyncWait") == 2                          # after the main and the epilogue loop


def test_wgmma_groups_take_the_release_lag_of_the_loop_group_whatever_its_index_is_called() -> None:
    """The pass finds the circular-buffered loop a run of MMAs is in by its loop group: renaming the loop's
    index (as a pass may) keeps the wait_group 1 that the stage released one iteration late relies on."""
    traced = lower(matmul_wgmma.build(tile=(128, 128, 64), stages=3, compute_warp_groups=1), trace=True)
    (loop,) = traced.analyses.circular.loops.values()
    indexed = traced.after("indexing")
    renamed = replace(indexed, body=k.substitute(indexed.body, {loop.index.name: Val.symbol("renamed")}))
    main = _main_loop(wgmma_groups.run(renamed, traced.analyses))
    assert main.index.name == "renamed"
    assert k.AsyncWait(k.AsyncKind.Wgmma, 1) in main.body


def test_accumulator_is_a_fragment_of_registers() -> None:
    traced = lower(matmul_wgmma.build(tile=(128, 128, 64), stages=2, compute_warp_groups=1), trace=True)
    (tv,) = traced.analyses.mma.tiles
    acc = traced.analyses.buffers.buffers[tv]
    assert acc.memory is MemoryType.Local and acc.size.const_value() == 2 * 64   # two 64-row pieces x N/2
    reads = [n for n in k.walk(traced.kernel.body) if isinstance(n, k.Assign) and n.buffer.is_param]
    assert reads and all(r.value.buffer is acc for r in reads)
    assert all(not (r.value.index.symbols() & {"threadIdx.x", "threadIdx.y"}) for r in reads)


def test_short_k_lowers_with_a_clamped_prologue() -> None:
    kernel = lower(matmul_wgmma.build(stages=5, tile=(128, 128, 64)))
    prologue = next(n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop) and n.stage is Stage.Prologue)
    assert str(prologue.stop).startswith("min(4,")
    assert not any("fill" in c.message for c in kernel.checks)


def _manual(reader_schedule) -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, b))
    schedule_matmul(fusion, MatmulParams(tile=(64, 64, 64), stages=2, compute_warp_groups=1))
    reader_schedule(fusion)
    return fusion


def test_reader_outside_the_fragment_layout_is_refused() -> None:
    def serial_register_loop(fusion: Fusion) -> None:
        fusion.outputs[0].axis(-1).parallelize(ParallelType.Serial)

    with pytest.raises(LoweringError, match=r"fragment axis .* must be an unrolled loop axis"):
        lower(_manual(serial_register_loop))


def test_loop_order_of_the_fragment_does_not_matter() -> None:
    fusion = _manual(lambda f: f.outputs[0].reorder({-1: -2}))
    reads = [n for n in k.walk(lower(fusion).body) if isinstance(n, k.Assign) and n.buffer.is_param]
    assert len(reads) == 1


def test_unswizzled_operand_is_refused() -> None:
    def unswizzle(fusion: Fusion) -> None:
        acc = next(e.output for e in fusion.exprs if type(e).__name__ == "MmaOp")
        acc.definition.inputs[0].set_swizzle(SmemSwizzle.NONE)

    with pytest.raises(LoweringError, match=r"operand A \(T\d+\) is not swizzled"):
        lower(_manual(unswizzle))


# ------------------------------------------------------------------ operand layouts
# (transpose_a, transpose_b) -> (A: mn_major, leading, stride), (B: ...) for a 128 x 128 x 64 bf16 tile
LAYOUTS = {
    (False, False): ((False, 16, 1024), (True, 64 * 128, 1024)),      # A [M, K] K-major, B [K, N] N-major
    (False, True): ((False, 16, 1024), (False, 16, 1024)),            # B given [N, K]: K-major (nn.Linear)
    (True, False): ((True, 64 * 128, 1024), (True, 64 * 128, 1024)),  # A given [K, M]: M-major, chunks of 64 M
    (True, True): ((True, 64 * 128, 1024), (False, 16, 1024)),
}


@pytest.mark.parametrize("transpose_a,transpose_b", sorted(LAYOUTS), ids=lambda x: "T" if x else "N")
def test_descriptors_of_each_operand_layout(transpose_a: bool, transpose_b: bool) -> None:
    """Each operand's tile keeps its input's major order; the descriptors say so, and the start of piece ``mr``,
    k16 step ``kr`` of stage ``s``: K-major, 64 rows of 64 k per piece and 16 k to the right per step; MN-major,
    a chunk of TK x 64 per 64 rows or columns and 16 k rows down per step."""
    traced = lower(matmul_wgmma.build(tile=(128, 128, 64), stages=3, compute_warp_groups=1,
                                      transpose_a=transpose_a, transpose_b=transpose_b), trace=True)
    (tile,) = traced.analyses.mma.tiles.values()
    want_a, want_b = LAYOUTS[(transpose_a, transpose_b)]
    for layout, want in ((tile.a, want_a), (tile.b, want_b)):
        assert (layout.mn_major, layout.leading_bytes, layout.stride_bytes) == want
        assert layout.swizzle is SmemSwizzle.B128
    main = _main_loop(traced.kernel)
    kr = next(n for n in main.body if isinstance(n, k.ForLoop))
    mr = kr.body[0]
    (mma,) = [n for n in k.walk(mr.body) if isinstance(n, k.Mma)]
    assert (mma.a.mn_major, mma.b.mn_major) == (want_a[0], want_b[0])
    env = {main.index.name: 5, kr.index.name: 2, mr.index.name: 1, "threadIdx.y": 0, "blockIdx.y": 3,
           "blockIdx.x": 7}
    stage = 2 * 128 * 64                       # k tile 5 is in stage 2 of 3
    a_piece = 64 * 64                          # piece 1: the second chunk of 64 M, or rows 64.. of 64 k
    a_step = 16 * 64 if transpose_a else 16
    b_step = 16 * 64 if not transpose_b else 16
    assert mma.a.offset.evaluate(env) == stage + a_piece + 2 * a_step
    assert mma.b.offset.evaluate(env) == stage + 2 * b_step


@pytest.mark.parametrize("transpose_a,transpose_b", sorted(LAYOUTS), ids=lambda x: "T" if x else "N")
def test_the_transpose_bits_of_the_wgmma_are_the_operands_majors(transpose_a: bool, transpose_b: bool) -> None:
    from codegen import to_cuda

    cuda = to_cuda(lower(matmul_wgmma.build(tile=(64, 64, 64), stages=2, compute_warp_groups=1,
                                            transpose_a=transpose_a, transpose_b=transpose_b)))
    assert f"wgmma::mmaM64N64K16F32Bf16<{int(transpose_a)}, {int(not transpose_b)}>(" in cuda


def test_the_tma_boxes_of_transposed_operands_are_in_the_inputs_order() -> None:
    """a [K, M] and b [N, K] are read in place: A's boxes are TK x 64 (K rows of a chunk of 64 M), B's one box
    TN x TK; each tensor map is over the input's own dimensions, innermost first."""
    traced = lower(matmul_wgmma.build(tile=(128, 128, 64), stages=3, compute_warp_groups=1, transpose_a=True,
                                      transpose_b=True), trace=True)
    boxes = {box.source.name: box for box in traced.analyses.tma.boxes.values()}
    assert boxes[0].box == (64, 64) and len(boxes[0].issue_loops) == 1     # 2 chunks of 64 M per stage
    assert boxes[1].box == (128, 64) and not boxes[1].issue_loops
    maps = {m.tensor.name: m.box for m in traced.analyses.tma.tensor_maps.values()}
    assert maps == {"T0": (64, 64), "T1": (64, 128)}
