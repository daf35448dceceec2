"""Stream-K matmuls in the simulator against numpy (examples/matmul_stream_k.py: a grid of a few blocks, so that
their ranges split tiles), the same bits in every block order (a split tile's partials are summed in block order,
whichever block arrives last), and the fix-up protocol's mutations reported (``lowering/stream_k.py``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import examples
from fusion_ir import DataType
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from runtime.errors import SimulationError
from tests.helpers import assert_matches, random_inputs

# (seed, interleave_blocks): blocks in lockstep, and dealt into groups that run ahead of each other
ORDERS = [(0, None), (1, 1), (2, 2), (3, 3)]

CASES = {
    # 6 tiles of 128 x 128, 16 K tiles each, 96 iterations over 5 or 7 blocks: every block's range splits tiles
    "200x264x1000 bf16, 5 blocks": ((200, 264, 1000), 5, {}),
    "200x264x1000 bf16, 7 blocks": ((200, 264, 1000), 7, {}),
    # 40 tiles of 5 K tiles (the last one ragged) over 7 blocks: segments of 1 to 5 K tiles, shorter than the
    # pipeline's prefetch, and tiles a block finishes alone
    "520x1000x264 fp16 bias relu, 7 blocks": ((520, 1000, 264), 7, {"epilogue": True, "dtype": DataType.Half}),
    "200x264x1000 bf16 bias relu, 3 blocks": ((200, 264, 1000), 3, {"epilogue": True}),
    "200x264x1000 bf16 out, TMA store, 7 blocks": ((200, 264, 1000), 7, {"out_dtype": DataType.BFloat16,
                                                                        "tma_store": True}),
    "300x520x712 128x256 tiles, 2 warp groups, 5 blocks": ((300, 520, 712), 5, {"tile": (128, 256, 64),
                                                                               "compute_warp_groups": 2,
                                                                               "stages": 4}),
    # warp-specialized: a producer warp group walks the block's range once (its stages counted from the range's
    # first iteration), the compute warp groups arrive on the semaphore with a named barrier
    "200x264x1000 bf16, warp-specialized, 5 blocks": ((200, 264, 1000), 5, {"warp_specialized": True}),
    "520x1000x264 fp16 bias relu, warp-specialized, 7 blocks": ((520, 1000, 264), 7, {
        "epilogue": True, "dtype": DataType.Half, "warp_specialized": True}),
    "300x512x712 128x256 tiles, warp-specialized, 2 warp groups, 7 blocks": ((300, 512, 712), 7, {
        "tile": (128, 256, 64), "compute_warp_groups": 2, "stages": 4, "warp_specialized": True}),
}


def _case(name: str, seed: int = 3) -> tuple[object, k.Kernel, list[np.ndarray]]:
    (m, n, kk), blocks, params = CASES[name]
    fusion = examples.load("matmul_stream_k").build(blocks=blocks, **params)
    shapes = [(m, kk), (kk, n)] + ([(n,)] if params.get("epilogue") else [])
    return fusion, lower(fusion), random_inputs(fusion, shapes, seed=seed)


@pytest.mark.parametrize("name", sorted(CASES))
def test_stream_k_matches_numpy_with_the_same_bits_in_every_block_order(name: str) -> None:
    fusion, kernel, inputs = _case(name)
    orders = ORDERS if "2 warp groups" not in name and "warp-specialized" not in name else ORDERS[:2]
    results = [simulate(kernel, inputs, seed=seed, interleave_blocks=order)[0] for seed, order in orders]
    sixteen_bit = any(w in name for w in ("fp16", "bias", "bf16 out"))
    assert_matches(fusion, inputs, [results[0]], tol=1e-2 if sixteen_bit else 1e-5)
    for r in results[1:]:
        assert np.array_equal(r.view(np.uint8), results[0].view(np.uint8))


def test_stream_k_matches_numpy_for_other_data() -> None:
    for seed in (11, 12):
        fusion, kernel, inputs = _case("200x264x1000 bf16, 7 blocks", seed=seed)
        assert_matches(fusion, inputs, [simulate(kernel, inputs, seed=seed, interleave_blocks=seed)[0]])


def test_every_block_taking_itself_for_the_last_is_reported() -> None:
    """Without the arrival (no flag at all) every block of a split tile sums the partials: it reads those of blocks
    that have not written or published them."""
    _, kernel, inputs = _case("200x264x1000 bf16, 5 blocks")
    mutant = _without(kernel, lambda n: isinstance(n, k.SemaphoreArrive))
    mutant = replace(mutant, body=k.rewrite(mutant.body, lambda n: _always_last(n)))
    with pytest.raises(SimulationError, match="a partial of another block: .*(no block wrote it yet|has not "
                                              "published it|does not come before)"):
        simulate(mutant, inputs)


def _always_last(n: k.Node):
    if isinstance(n, k.IfThenElse) and "last_T" in str(n.cond):
        return n.then_body
    return None


def _without(kernel: k.Kernel, drop) -> k.Kernel:
    return replace(kernel, body=k.rewrite(kernel.body, lambda n: () if drop(n) else None))


@pytest.mark.parametrize("seed,order", ORDERS)
def test_a_missing_fence_is_reported(seed: int, order: int | None) -> None:
    _, kernel, inputs = _case("200x264x1000 bf16, 5 blocks")
    mutant = _without(kernel, lambda n: isinstance(n, k.GridFence))
    with pytest.raises(SimulationError, match="wrote partials that no __threadfence ordered before the arrival"):
        simulate(mutant, inputs, seed=seed, interleave_blocks=order)


@pytest.mark.parametrize("seed,order", ORDERS)
def test_a_missing_barrier_before_the_arrival_is_reported(seed: int, order: int | None) -> None:
    _, kernel, inputs = _case("200x264x1000 bf16, 5 blocks")
    mutant = _without(kernel, lambda n: isinstance(n, k.BlockSync) and "before the arrival" in n.reason)
    with pytest.raises(SimulationError, match="no barrier|after its block arrived on the semaphore"):
        simulate(mutant, inputs, seed=seed, interleave_blocks=order)


@pytest.mark.parametrize("seed,order", ORDERS)
def test_a_segment_count_off_by_one_reads_unpublished_partials(seed: int, order: int | None) -> None:
    """The next-to-last block of a split tile taking itself for the last reads a partial not yet published
    (the flag acquired too early)."""
    _, kernel, inputs = _case("200x264x1000 bf16, 5 blocks")

    def early(n: k.Node):
        if isinstance(n, k.SemaphoreArrive):
            return replace(n, arrivals=n.arrivals - 1)
        return None

    mutant = replace(kernel, body=k.rewrite(kernel.body, early))
    with pytest.raises(SimulationError,
                       match="a partial of another block: .*(no block wrote it yet|has not published it|does not "
                             "come before)"):
        simulate(mutant, inputs, seed=seed, interleave_blocks=order)


@pytest.mark.parametrize("seed,order", ORDERS[:2])
def test_partials_read_before_the_arrival_are_reported(seed: int, order: int | None) -> None:
    """The sum hoisted out of the last block's branch (a flag read without its acquire): every block reads the
    others' partials whether or not they have published them."""
    _, kernel, inputs = _case("200x264x1000 bf16, 5 blocks")

    def hoist(body: tuple) -> tuple:
        out: list = []
        for n in body:
            if isinstance(n, k.IfThenElse) and "last_T" in str(n.cond):
                sums = [x for x in n.then_body if isinstance(x, k.IfThenElse)]
                out.extend(sums[:1])
                out.append(replace(n, then_body=tuple(x for x in n.then_body if x not in sums[:1])))
                continue
            kids = k.children(n)
            out.append(replace(n, **{name: hoist(sub) for name, sub in kids}) if kids else n)
        return tuple(out)

    mutant = replace(kernel, body=hoist(kernel.body))
    with pytest.raises(SimulationError, match="a partial of another block"):
        simulate(mutant, inputs, seed=seed, interleave_blocks=order)


def test_partials_written_after_the_arrival_are_reported() -> None:
    """The write of the partial moved after the arrival: the last block may sum before it lands."""
    _, kernel, inputs = _case("200x264x1000 bf16, 5 blocks")

    def late(body: tuple) -> tuple:
        out: list = []
        pending = None
        for n in body:
            if isinstance(n, k.IfThenElse) and any(isinstance(x, k.ForLoop) and "partials" in x.label
                                                   and isinstance(x.body[0], k.Assign) and x.body[0].buffer.name
                                                   .endswith("_work") for x in n.then_body):
                pending = n
                continue
            kids = k.children(n)
            out.append(replace(n, **{name: late(sub) for name, sub in kids}) if kids else n)
            if isinstance(n, k.SemaphoreArrive) and pending is not None:
                out.append(pending)
                pending = None
        return tuple(out)

    mutant = replace(kernel, body=late(kernel.body))
    with pytest.raises(SimulationError, match="writes partials after its block arrived|a partial of another block"):
        simulate(mutant, inputs)


@pytest.mark.parametrize("seed,order", ORDERS[:2])
def test_a_split_tiles_block_skipping_its_arrival_is_reported(seed: int, order: int | None) -> None:
    """Only a tile one block finishes alone skips the arrival; a block of a split tile that skips it takes itself for
    the last and reads partials nobody published to it."""
    from fusion_ir.scalar import Val

    _, kernel, inputs = _case("200x264x1000 bf16, 5 blocks")

    def skip(n: k.Node):
        if isinstance(n, k.SemaphoreArrive):
            return replace(n, skip=Val.const(1))
        return None

    mutant = replace(kernel, body=k.rewrite(kernel.body, skip))
    with pytest.raises(SimulationError, match="a partial of another block"):
        simulate(mutant, inputs, seed=seed, interleave_blocks=order)


def test_a_missing_semaphore_reset_is_reported() -> None:
    """The next launch reuses the semaphores, zeroed once (``runtime.executor.prepare``)."""
    _, kernel, inputs = _case("200x264x1000 bf16, 5 blocks")
    mutant = _without(kernel, lambda n: isinstance(n, k.Assign) and n.buffer.name.endswith("_sem"))
    with pytest.raises(SimulationError, match=r"ends with T\d+_sem\[\d+\] = \d+ .* is not put back to 0"):
        simulate(mutant, inputs)


def test_the_launch_is_the_stream_k_grid_with_its_scratch() -> None:
    """7 blocks along x; a work buffer of 7 blocks x 2 partial tiles x 128 registers x 128 threads floats, and a
    semaphore per output tile (6), zeroed."""
    _, kernel, _ = _case("200x264x1000 bf16, 7 blocks")
    assert [d.const_value() for d in kernel.grid] == [7, 1, 1]
    work, sem = kernel.scratch
    assert work.buffer.size.const_value() == 7 * 2 * 128 * 128 and not work.zeroed
    assert sem.buffer.size.evaluate({"i0": 200, "i3": 264}) == 6 and sem.zeroed    # M and N are symbolic


def test_the_warp_specialized_kernel_counts_the_blocks_range_from_its_first_iteration() -> None:
    """Warp-specialized: producer and compute warp groups count stages from the block's first iteration (its
    range's start subtracted), the compute warp groups release a segment's stages from the segment's own first K
    tile on, and arrive on the semaphore with a named barrier over their threads."""
    _, kernel, _ = _case("200x264x1000 bf16, warp-specialized, 5 blocks")
    text = str(kernel)
    assert "AsyncWarp" in text and "ComputeWarp" in text
    arrivals = [x for x in k.walk(kernel.body) if isinstance(x, k.SemaphoreArrive)]
    assert arrivals and all(a.barrier is not None and str(a.barrier.threads) == "128" for a in arrivals)


def test_a_warp_specialized_segment_releasing_before_its_first_k_tile_is_reported() -> None:
    """The compute warp groups' lagged release guarded from K tile 0 instead of the segment's first: a segment
    starting inside a tile releases the stage of the block's previous iteration a second time (and at the block's
    first, a stage before its range), so the producer refills a stage still read, or waits on a phase that
    never completes."""
    fusion, kernel, inputs = _case("200x264x1000 bf16, warp-specialized, 5 blocks")

    def from_zero(n: k.Node):
        if isinstance(n, k.IfThenElse) and n.cond.op == "ge" and len(n.then_body) == 1 \
                and isinstance(n.then_body[0], k.MBarrierArrive) and n.cond.args[1].const_value() is None:
            return (replace(n, cond=n.cond.args[0].ge(0)),)
        return None
    mutated = replace(kernel, body=k.rewrite(kernel.body, from_zero))
    assert str(mutated) != str(kernel)
    try:
        (out,) = simulate(mutated, inputs, seed=0)
    except SimulationError:
        return
    with pytest.raises(AssertionError):
        assert_matches(fusion, inputs, [out])
