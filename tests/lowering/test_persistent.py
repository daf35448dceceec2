"""Persistent loops: a tile axis split by the number of blocks walks tiles with a grid stride; tiles
past the end are skipped, and reductions under the loop keep their partials inside it."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, Pipelined, WarpSpecialized, ops
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from runtime.inputs import random_inputs
from tests.helpers import assert_matches

BLOCKS = 3


def row_sum(load: str) -> Fusion:
    """Row sums, rows walked by ``BLOCKS`` persistent blocks; the row tiles plain, Pipelined or WS."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.sum(x, [1])
        fusion.add_output(out)
    out.split(1, 128)
    out.split(0, BLOCKS)                      # [ceilDiv(i0, 3), 3, r ceilDiv(i1, 128), r 128]
    out.axis(1).parallelize(ParallelType.BIDx)
    out.axis(3).parallelize(ParallelType.TIDx)
    if load == "plain":
        return fusion
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 3)
    tile.axis(3).parallelize(ParallelType.Bulk)
    tile.circular_buffer(3, type=Pipelined() if load == "pipelined" else WarpSpecialized(on=ParallelType.TIDy))
    return fusion


def _skips(kernel: k.Kernel) -> list[k.IfThenElse]:
    return [n for n in k.walk(kernel.body) if isinstance(n, k.IfThenElse) and n.then_body == (k.Continue(),)]


@pytest.mark.parametrize("load", ["plain", "pipelined", "warp_specialized"])
@pytest.mark.parametrize("shape", [(7, 384), (10, 1000), (2, 260)])
def test_a_sum_under_a_persistent_loop_lowers_and_matches(load: str, shape: tuple[int, int]) -> None:
    fusion = row_sum(load)
    kernel = lower(fusion)
    (acc,) = [n for n in k.walk(kernel.body) if isinstance(n, k.Allocate) and n.buffer.name.endswith("_acc")]
    assert acc.buffer.size.const_value() == 1, "one row's partial per thread, allocated inside the tile loop"
    for seed in range(2):
        inputs = random_inputs(fusion, [shape], seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed))


def test_tiles_past_the_end_are_skipped_where_nothing_is_issued_ahead() -> None:
    assert [str(s.cond) for s in _skips(lower(row_sum("plain")))] == ["((i2 * 3) + blockIdx.x) >= i0"]
    assert len(_skips(lower(row_sum("warp_specialized")))) == 2          # in both branches
    # the Pipelined k loop sits inside the tile loop: the whole tile iteration is skipped
    assert len(_skips(lower(row_sum("pipelined")))) == 1


def test_a_divisible_split_has_no_tail_to_skip() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(12, 256), dtype=DataType.Float)
        out = ops.sum(x, [1])
        fusion.add_output(out)
    out.split(1, 128)
    out.split(0, BLOCKS)
    out.axis(1).parallelize(ParallelType.BIDx)
    out.axis(3).parallelize(ParallelType.TIDx)
    assert not _skips(lower(fusion))


@pytest.mark.parametrize("n", [96 * 3, 1000, 4099])
def test_a_pipelined_persistent_loop_runs_its_tail_instead_of_skipping_it(n: int) -> None:
    """Skipping the tail would skip loads issued ahead that the epilogue waits for: the pipeline runs
    it, TMA fills the boxes past the end with zeros and the predicates keep them out."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.set(x)
        fusion.add_output(out)
    out.split(0, 32)
    out.split(0, BLOCKS)                      # [ceilDiv(ceilDiv(i0, 32), 3), 3, 32]
    out.axis(1).parallelize(ParallelType.BIDx)
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 2)
    tile.axis(2).parallelize(ParallelType.Bulk)
    tile.circular_buffer(2)
    kernel = lower(fusion)
    assert not _skips(kernel)
    for seed in range(3):
        inputs = random_inputs(fusion, [(n,)], seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed))


@pytest.mark.parametrize("blocks, skipped", [(2, True), (3, False)])
def test_ping_pong_skips_a_warp_groups_slot_past_the_end_where_the_blocks_divide_the_tiles(
        blocks: int, skipped: bool) -> None:
    """6 tiles of 64 x 128 (constant extents) over ``blocks`` blocks: with 2, each block has 3 tiles for its 2
    warp groups, so the second group's second turn is past the end although 2 divides 6; it is skipped (computing it
    on zero-filled loads ran a whole extra tile per block). With 3 blocks each group has one tile: nothing to skip."""
    from examples import matmul_wgmma
    from fusion_ir.reference import evaluate
    from tests.helpers import random_inputs as inputs_of
    from tests.helpers import rel_error

    shape = (192, 256, 128)                   # 3 x 2 tiles of 64 x 128, 2 K tiles
    fusion = matmul_wgmma.build(tile=(64, 128, 64), stages=2, compute_warp_groups=2, warp_specialized=True,
                                persistent=True, ping_pong=True, blocks=blocks, group_m=1, shape=shape)
    kernel = lower(fusion)
    skips = _skips(kernel)
    assert len(skips) == (2 if skipped else 0)               # the producer's and the compute warp groups' loops
    inputs = inputs_of(fusion, [(192, 128), (128, 256)], seed=3)
    (out,) = simulate(kernel, inputs, seed=1)
    assert rel_error(out, evaluate(fusion, inputs)[0]) < 1e-2
