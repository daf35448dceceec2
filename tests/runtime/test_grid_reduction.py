"""Grid reductions in the simulator against numpy: row sums split over blockIdx.z (examples/grid_reduction.py)
and split-K matmuls (examples/matmul_split_k.py), the same bits in every block order (the partials are
summed in split order, whichever block arrives last), and the protocol's mutations reported."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import examples
from fusion_ir import DataType
from fusion_ir.reference import round_bf16
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from runtime.errors import SimulationError
from tests.helpers import assert_matches, random_inputs
from tests.runtime.test_executor_fake_driver import fake  # noqa: F401  (the fake driver fixture)

# (seed, interleave_blocks): blocks in lockstep, and dealt into groups that run ahead of each other
ORDERS = [(0, None), (1, 1), (2, 2), (3, 3)]


@pytest.mark.parametrize("splits", [2, 3, 4])
def test_row_sums_match_numpy_with_the_same_bits_in_every_block_order(splits: int) -> None:
    fusion = examples.load("grid_reduction").build(splits=splits)
    kernel = lower(fusion)
    inputs = random_inputs(fusion, [(200, 1000)], seed=splits)
    results = [simulate(kernel, inputs, seed=seed, interleave_blocks=order)[0] for seed, order in ORDERS]
    assert_matches(fusion, inputs, [results[0]])
    for r in results[1:]:
        assert np.array_equal(r.view(np.uint32), results[0].view(np.uint32))


def _matmul(m: int, n: int, kk: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [round_bf16(rng.standard_normal(s).astype(np.float32)) for s in ((m, kk), (kk, n))]


@pytest.mark.parametrize("kk", [1000, 4096])
@pytest.mark.parametrize("split", [2, 3, 4])
def test_split_k_matmul_matches_numpy_with_the_same_bits_in_every_block_order(kk: int, split: int) -> None:
    fusion = examples.load("matmul_split_k").build(split_k=split)
    kernel = lower(fusion)
    m, n = 200, 264                  # tiles of 128 x 128 x 64 divide none of them
    for data_seed in ((0, 1) if kk < 4096 else (0,)):   # several seeds where a simulation is cheap
        inputs = _matmul(m, n, kk, 10 * kk + split + data_seed)
        orders = ORDERS if data_seed == 0 else ORDERS[:2]
        results = [simulate(kernel, inputs, seed=seed, interleave_blocks=order)[0] for seed, order in orders]
        assert_matches(fusion, inputs, [results[0]])
        for r in results[1:]:
            assert np.array_equal(r.view(np.uint32), results[0].view(np.uint32))


SPLIT_K_KINDS = {
    "warp-specialized": {"warp_specialized": True},
    "warp-specialized 128 x 256": {"warp_specialized": True, "tile": (128, 256, 64), "compute_warp_groups": 2,
                                   "stages": 4},
    "TMA store": {"tma_store": True, "out_dtype": DataType.BFloat16},
    "bias epilogue": {"epilogue": True},
}


@pytest.mark.parametrize("kind", sorted(SPLIT_K_KINDS))
def test_split_k_kinds_match_numpy_with_the_same_bits_in_every_block_order(kind: str) -> None:
    """The last block runs whichever epilogue: register stores, a fused bias, stmatrix and TMA stores; the
    warp-specialized kernel's producer warps have returned before the arrival."""
    params = SPLIT_K_KINDS[kind]
    fusion = examples.load("matmul_split_k").build(split_k=3, **params)
    kernel = lower(fusion)
    shapes = [(200, 1000), (1000, 264)] + ([(264,)] if params.get("epilogue") else [])
    inputs = random_inputs(fusion, shapes, seed=3)
    results = [simulate(kernel, inputs, seed=seed, interleave_blocks=order)[0] for seed, order in ORDERS[:3]]
    bf16 = "out_dtype" in params or params.get("epilogue")
    assert_matches(fusion, inputs, [results[0]], tol=1e-2 if bf16 else 1e-5)
    for r in results[1:]:
        assert np.array_equal(r, results[0])


def _without(kernel: k.Kernel, drop) -> k.Kernel:
    return replace(kernel, body=k.rewrite(kernel.body, lambda n: () if drop(n) else None))


def _row_sum_kernel() -> tuple[k.Kernel, list[np.ndarray]]:
    fusion = examples.load("grid_reduction").build()
    return lower(fusion), random_inputs(fusion, [(200, 1000)], seed=7)


@pytest.mark.parametrize("seed,order", ORDERS)
def test_a_missing_fence_is_reported(seed: int, order: int | None) -> None:
    kernel, inputs = _row_sum_kernel()
    mutant = _without(kernel, lambda n: isinstance(n, k.GridFence))
    with pytest.raises(SimulationError, match="wrote partials that no __threadfence ordered before the arrival"):
        simulate(mutant, inputs, seed=seed, interleave_blocks=order)


@pytest.mark.parametrize("seed,order", ORDERS)
def test_a_missing_barrier_before_the_arrival_is_reported(seed: int, order: int | None) -> None:
    kernel, inputs = _row_sum_kernel()
    mutant = _without(kernel, lambda n: isinstance(n, k.BlockSync) and "before the arrival" in n.reason)
    with pytest.raises(SimulationError, match="no barrier|after its block arrived on the semaphore"):
        simulate(mutant, inputs, seed=seed, interleave_blocks=order)


@pytest.mark.parametrize("seed,order", ORDERS)
def test_a_last_block_test_off_by_one_reads_unpublished_partials(seed: int, order: int | None) -> None:
    """The block that arrives next to last taking itself for the last reads a partial not yet published."""
    kernel, inputs = _row_sum_kernel()

    def early(n: k.Node):
        if isinstance(n, k.SemaphoreArrive):
            return replace(n, arrivals=n.arrivals - 1)
        return None

    mutant = replace(kernel, body=k.rewrite(kernel.body, early))
    with pytest.raises(SimulationError, match="a partial of another block: .*(no block wrote it yet|has not published it|does not come before)"):
        simulate(mutant, inputs, seed=seed, interleave_blocks=order)


def test_a_split_k_matmul_without_its_fence_is_reported() -> None:
    kernel = lower(examples.load("matmul_split_k").build(split_k=2))
    mutant = _without(kernel, lambda n: isinstance(n, k.GridFence))
    with pytest.raises(SimulationError, match="no __threadfence"):
        simulate(mutant, _matmul(200, 264, 1000, 0))


def test_the_executor_passes_scratch_after_the_outputs_with_the_semaphores_zeroed(fake) -> None:  # noqa: F811
    """200 x 1000 row sums, 3 splits: a work buffer of 3 x 4 blocks x 1 slot x 64 threads floats and 4 semaphores."""
    from runtime import executor
    from tests.runtime.test_executor_fake_driver import int64s

    kernel, inputs = _row_sum_kernel()
    executor.execute(kernel, inputs)
    (launch,) = fake.launches
    assert launch["grid"] == (4, 1, 3)
    work, sem = (int64s(addr, 3) for addr in launch["params"][2:4])
    assert work[1:] == [3 * 4 * 64, 1] and sem[1:] == [4, 1]
    assert fake.memory[work[0]].size == 3 * 4 * 64 * 4 and fake.memory[sem[0]].size == 4 * 4
    zeroed = [args for name, args in fake.calls if name == "cuMemsetD8Async"]
    assert [(dst, value, n) for dst, value, n, _ in zeroed] == [(sem[0], 0, 16)]


def test_prepare_allocates_the_scratch_once_and_frees_it_with_the_launch(fake) -> None:  # noqa: F811
    """``prepare`` binds the kernel's scratch for every launch it makes (the semaphores zeroed once); dropping the
    returned launch frees it."""
    import gc

    from runtime import executor
    from tests.runtime.test_executor_validation import FakeDeviceArray

    kernel, inputs = _row_sum_kernel()
    allocs = [fake.cuMemAlloc(x.nbytes)[1] for x in inputs]
    out_ptr = fake.cuMemAlloc(4 * 200)[1]
    args = [FakeDeviceArray(x.shape, int(p)) for x, p in zip(inputs, allocs)]
    out = FakeDeviceArray((200,), int(out_ptr))
    fake.pointer_devices = {int(p): 0 for p in [*allocs, out_ptr]}
    launch = executor.prepare(kernel, args, [out])
    launch()
    launch()
    assert len(fake.launches) == 2
    assert [name for name, _ in fake.calls].count("cuMemsetD8Async") == 1
    freed_before = [name for name, _ in fake.calls].count("cuMemFree")
    del launch
    gc.collect()
    assert [name for name, _ in fake.calls].count("cuMemFree") == freed_before + 2     # work buffer and semaphores
