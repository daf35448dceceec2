"""Mutations of the attention kernel's K/V pipeline (``examples/attention_wgmma.build(..., stages=2,
warp_specialized=...)``): each removes or breaks a barrier operation the pipeline adds over the key-block loop (the
compute warp groups' release of a stage on its "empty" barrier, their wait on the "full" one, its parity; the
Pipelined loop's wait before the producer-side refill), and the simulator must report it: a deadlock, a poisoned
read, a stage overwritten while read, or a wrong result."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from examples import attention_wgmma
from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from lowering import lower
from runtime import SimulationError, simulate
from runtime.errors import DeadlockError
from tests.runtime.kir_builders import mutate

SHAPE = (1, 1, 100, 333, 64)    # ragged: one block of 2 x 64 rows, 6 key blocks of 64 (the last partial)
SEEDS = (0, 3)


def _kernel(ws: bool, w: int = 2) -> k.Kernel:
    return lower(attention_wgmma.build(*SHAPE, causal=False, block_kv=64, stages=2, warp_specialized=ws,
                                       compute_warp_groups=w))


def _failure(kernel: k.Kernel, seed: int) -> str | None:
    inputs = attention_wgmma.make_inputs(*SHAPE, seed=seed)
    try:
        (out,) = simulate(kernel, inputs, seed=seed)
    except SimulationError as e:
        return f"{type(e).__name__}: {e}"
    want = attention_wgmma.reference(*inputs)
    with np.errstate(invalid="ignore"):
        err = float(np.abs(np.asarray(out, np.float64) - want).max() / np.abs(want).max())
    return None if err <= attention_wgmma.TOLERANCE else f"wrong result: {err}"


def _full_and_empty(kernel: k.Kernel) -> k.Buffer:
    """The pipeline's barrier array: the full barriers of its stages, then the empty ones."""
    loads = [n for n in k.walk(kernel.body) if isinstance(n, k.TmaLoad) and n.tensor_map.name == "tmap_T1"]
    return loads[0].mbar


def _is_empty_arrive(node: k.Node, mbar: k.Buffer) -> bool:
    return isinstance(node, k.MBarrierArrive) and node.mbar == mbar


def _in_compute(kernel: k.Kernel, fn, stages: tuple[k.Stage, ...]) -> k.Kernel:
    """Apply ``fn`` to the statements of the compute loops (each range) only."""
    def loop(node):
        if isinstance(node, k.ForLoop) and node.stage in stages:
            return dataclasses.replace(node, body=k.rewrite(node.body, fn))
        return None
    return mutate(kernel, loop)


COMPUTE = {True: (k.Stage.ComputeWarp,), False: (k.Stage.Main, k.Stage.Epilogue)}


@pytest.mark.parametrize("ws", [True, False], ids=["warp_specialized", "pipelined"])
def test_unmutated_kernels_match(ws: bool) -> None:
    kernel = _kernel(ws)
    assert all(_failure(kernel, seed) is None for seed in SEEDS)


@pytest.mark.parametrize("ws", [True, False], ids=["warp_specialized", "pipelined"])
def test_a_stage_never_released_deadlocks(ws: bool) -> None:
    """Without the compute warp groups' arrive on a stage's "empty" barrier (in the key-block loop), the refill of
    that stage (the producer's, or the elected thread's of the Pipelined loop) waits forever."""
    kernel = _kernel(ws)
    mbar = _full_and_empty(kernel)
    bad = _in_compute(kernel, lambda n: () if _is_empty_arrive(n, mbar) else None, COMPUTE[ws])
    failure = _failure(bad, 0)
    assert failure is not None and failure.startswith(DeadlockError.__name__) and mbar.name in failure, failure


@pytest.mark.parametrize("ws", [True, False], ids=["warp_specialized", "pipelined"])
def test_a_full_wait_off_by_one_phase_is_reported(ws: bool) -> None:
    """The compute side's wait on a stage's "full" barrier for the other parity: the first one returns before the
    copy landed (a poisoned read) or a later one waits for a phase that never comes."""
    kernel = _kernel(ws)
    mbar = _full_and_empty(kernel)
    bad = _in_compute(kernel, lambda n: dataclasses.replace(n, parity=(n.parity + 1) % 2)
                      if isinstance(n, k.MBarrierWaitParity) and n.mbar == mbar
                      and "+" not in str(n.index) else None, COMPUTE[ws])
    assert all(_failure(bad, seed) is not None for seed in SEEDS)


@pytest.mark.parametrize("ws", [True, False], ids=["warp_specialized", "pipelined"])
def test_a_dropped_full_wait_reads_a_stage_before_it_landed(ws: bool) -> None:
    kernel = _kernel(ws)
    mbar = _full_and_empty(kernel)
    bad = _in_compute(kernel, lambda n: () if isinstance(n, k.MBarrierWaitParity) and n.mbar == mbar
                      and "+" not in str(n.index) else None, COMPUTE[ws])
    assert all(_failure(bad, seed) is not None for seed in SEEDS)


def test_an_empty_barrier_counting_one_warp_group_lets_the_producer_overwrite() -> None:
    """The "empty" barrier counts both compute warp groups' 256 threads (they share the stage): counting 128, the
    first group's arrivals complete the phase and the producer refills the stage the second group still reads."""
    kernel = _kernel(True)
    mbar = _full_and_empty(kernel)
    bad = mutate(kernel, lambda n: dataclasses.replace(n, count=Val.const(128))
                 if isinstance(n, k.MBarrierInit) and n.mbar == mbar and str(n.count) == "256" else None)
    assert any(_failure(bad, seed) is not None for seed in SEEDS)
