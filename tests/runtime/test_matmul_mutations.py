"""Mutations of the lowered wgmma matmul (examples/matmul_wgmma): each one breaks a fact the lowering
relies on, and the simulator must report it or give a wrong result. Pipelined and warp-specialized
persistent kernels, at a size with several k tiles and a ragged edge."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from examples import matmul_wgmma
from fusion_ir.scalar import Val
from fusion_ir.types import SmemSwizzle
from lowering import kernel_ir as k
from lowering import lower
from runtime import SimulationError, simulate
from tests.helpers import random_inputs, rel_error
from tests.runtime.kir_builders import mutate, remove_nodes

SHAPES = [(200, 256), (256, 264)]     # [M, K], [K, N]: 4 k tiles, a ragged M and N
MODES = {"pipelined": {}, "ws_persistent": {"warp_specialized": True, "persistent": True, "blocks": 3, "group_m": 2}}


def _kernel(mode: str) -> tuple:
    fusion = matmul_wgmma.build(tile=(128, 128, 64), stages=3, compute_warp_groups=1, **MODES[mode])
    return fusion, lower(fusion)


def _error(fusion, kern: k.Kernel, seed: int = 1) -> float:
    from fusion_ir.reference import evaluate

    inputs = random_inputs(fusion, SHAPES, seed=7)
    (out,) = simulate(kern, inputs, seed=seed)
    return rel_error(out, evaluate(fusion, inputs)[0])


def _mma(change):
    return lambda node: change(node) if isinstance(node, k.Mma) else None


@pytest.mark.parametrize("mode", sorted(MODES))
def test_unmutated_kernels_match(mode: str) -> None:
    fusion, kern = _kernel(mode)
    for seed in (0, 1, 2):
        assert _error(fusion, kern, seed) < 1e-5


@pytest.mark.parametrize("mode", sorted(MODES))
def test_wrong_swizzle_mode_fails(mode: str) -> None:
    fusion, kern = _kernel(mode)
    bad = mutate(kern, _mma(lambda n: replace(n, a=replace(n.a, swizzle=SmemSwizzle.B64))))
    with pytest.raises(SimulationError, match="swizzle"):
        _error(fusion, bad)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_wrong_stride_byte_offset_gives_wrong_numbers(mode: str) -> None:
    fusion, kern = _kernel(mode)
    bad = mutate(kern, _mma(lambda n: replace(n, a=replace(n.a, stride_bytes=512))))
    assert not _error(fusion, bad) < 1e-3


@pytest.mark.parametrize("mode", sorted(MODES))
def test_missing_fence_is_reported(mode: str) -> None:
    fusion, kern = _kernel(mode)
    with pytest.raises(SimulationError, match="missing wgmma.fence"):
        _error(fusion, remove_nodes(kern, k.WgmmaFence))


@pytest.mark.parametrize("mode", sorted(MODES))
def test_missing_final_wait_group_fails(mode: str) -> None:
    fusion, kern = _kernel(mode)
    bad = remove_nodes(kern, k.AsyncWait, lambda n: n.kind is k.AsyncKind.Wgmma and n.pending == 0)
    try:
        err = _error(fusion, bad)
    except SimulationError:
        return
    assert not err < 1e-3     # the epilogue read accumulators still in flight: poison


@pytest.mark.parametrize("mode", sorted(MODES))
def test_two_groups_in_flight_let_tma_overwrite_a_stage_a_wgmma_reads(mode: str) -> None:
    """wait_group 2 instead of 1: the stage released one iteration late may still be read."""
    fusion, kern = _kernel(mode)
    bad = mutate(kern, lambda n: replace(n, pending=2) if isinstance(n, k.AsyncWait) and n.kind is k.AsyncKind.Wgmma
                   and n.pending == 1 else None)
    with pytest.raises(SimulationError, match="wgmma"):
        for seed in (0, 1, 2):
            _error(fusion, bad, seed)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_wrong_fragment_mapping_in_the_epilogue_gives_wrong_numbers(mode: str) -> None:
    """The store reads registers 4 n8 + 2 j (+ 0, 1: one vector); reading the other row half is wrong."""
    fusion, kern = _kernel(mode)
    (store,) = [n for n in k.walk(kern.body) if isinstance(n, k.Assign) and n.buffer.is_param]
    assert store.vector == 2
    loops = [n for n in k.walk(kern.body) if isinstance(n, k.ForLoop) and n.unroll and n.stop.const_value() == 2]
    j = loops[-1].index
    index = store.value.index
    probe = {s: 1 for s in index.symbols()}
    assert index.evaluate({**probe, j.name: 1}) - index.evaluate({**probe, j.name: 0}) == 2   # j: the row half
    mutated = index.substitute({j.name: Val.const(1) - j})
    bad = mutate(kern, lambda n: replace(n, value=replace(n.value, index=mutated)) if n is store else None)
    assert not _error(fusion, bad) < 1e-3


def test_the_fused_epilogue_reads_the_fragment_it_holds() -> None:
    fusion = matmul_wgmma.build(tile=(128, 128, 64), stages=3, compute_warp_groups=1, epilogue=True,
                                warp_specialized=True, persistent=True, blocks=3)
    kern = lower(fusion)
    inputs = random_inputs(fusion, SHAPES + [(264,)], seed=3)
    (out,) = simulate(kern, inputs, seed=2)
    from fusion_ir.reference import evaluate

    assert rel_error(out, evaluate(fusion, inputs)[0]) < 1e-2      # a bf16 result
    assert np.isfinite(out).all()


def test_a_persistent_block_starts_every_tile_from_zero() -> None:
    """5 tiles over 3 blocks (2, 2, 1 each): the pipeline's stage and phase run on across a block's tiles
    while each tile's first wgmmas write the accumulators instead of adding to them (scale-d 0, in place of
    zeroing them: ``mma_init``); where only the first tile's do, exactly the blocks' second tiles carry their
    first tile's sums."""
    fusion = matmul_wgmma.build(tile=(128, 128, 64), stages=3, compute_warp_groups=1, warp_specialized=True,
                                persistent=True, blocks=3, group_m=1)
    kern = lower(fusion)
    shapes = [(128, 192), (192, 640)]          # one row of 5 column tiles
    inputs = random_inputs(fusion, shapes, seed=11)
    from fusion_ir.reference import evaluate

    (expected,) = evaluate(fusion, inputs)
    (out,) = simulate(kern, inputs, seed=1)
    assert rel_error(out, expected) < 1e-5
    firsts = [n for n in k.walk(kern.body) if isinstance(n, k.Mma) and n.accumulate is not None]
    assert firsts
    tiles = next(n for n in k.walk(kern.body) if isinstance(n, k.ForLoop) and n.stage is k.Stage.ComputeWarp)
    first_tile_only = mutate(kern, lambda n: replace(n, accumulate=n.accumulate.logical_or(tiles.index.ne(0)))
                             if n in firsts else None)
    (bad,) = simulate(first_tile_only, inputs, seed=1)
    wrong_tiles = [t for t in range(5) if not np.allclose(bad[:, 128 * t:128 * (t + 1)],
                                                          expected[:, 128 * t:128 * (t + 1)], rtol=1e-4, atol=1e-3)]
    assert wrong_tiles == [3, 4]               # tiles 3 and 4 are blocks 0 and 1's second tiles


def _tma_store_kernel() -> tuple:
    from fusion_ir import DataType

    fusion = matmul_wgmma.build(tile=(128, 128, 64), stages=3, compute_warp_groups=1, warp_specialized=True,
                                persistent=True, blocks=3, tma_store=True, out_dtype=DataType.BFloat16)
    return fusion, lower(fusion)


def test_the_tma_store_epilogue_matches() -> None:
    fusion, kern = _tma_store_kernel()
    for seed in (0, 1, 2):
        assert _error(fusion, kern, seed) < 1e-2        # a bf16 result


def test_a_tma_store_without_the_async_proxy_fence_is_reported() -> None:
    fusion, kern = _tma_store_kernel()
    with pytest.raises(SimulationError, match="fence.proxy.async"):
        _error(fusion, remove_nodes(kern, k.FenceAsyncProxy))


def test_a_tile_rewritten_before_its_store_has_read_it_is_reported() -> None:
    """Without the store's wait (and the barrier after it), the next tile's stmatrix overwrites the tile."""
    fusion, kern = _tma_store_kernel()
    bad = remove_nodes(kern, k.AsyncWait, lambda n: n.kind is k.AsyncKind.Bulk)
    with pytest.raises(SimulationError, match="TMA store"):
        for seed in (0, 1, 2):
            _error(fusion, bad, seed)
