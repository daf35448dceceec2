"""Mutations of the persistent attention kernel (``examples/attention_wgmma.build(..., persistent=True, blocks=3)``):
a block walks several tiles, so what one tile leaves in shared memory and in the pipeline's barriers meets the next
tile. The K/V pipeline's barriers not initialized again per tile (their phases then carry over the previous tile's
trip count): the simulator must report it. (q's next tile needs no barrier of its own: the block barriers of the last
key block, or the pipeline's before its barriers' inval, already order the wgmmas that read it before its load.)"""

from __future__ import annotations

import numpy as np
import pytest

from examples import attention_wgmma
from lowering import kernel_ir as k
from lowering import lower
from runtime import SimulationError, simulate
from tests.runtime.kir_builders import mutate

SHAPE = (1, 2, 200, 200, 64)    # 8 tiles of 64 query rows, 1 to 4 key blocks of 64 each (causal)
SEEDS = (0, 3)


def _kernel(stages: int) -> k.Kernel:
    return lower(attention_wgmma.build(*SHAPE, causal=True, block_kv=64, stages=stages, persistent=True, blocks=3))


def _failure(kernel: k.Kernel, seed: int) -> str | None:
    inputs = attention_wgmma.make_inputs(*SHAPE, seed=seed)
    try:
        (out,) = simulate(kernel, inputs, seed=seed)
    except SimulationError as e:
        return f"{type(e).__name__}: {e}"
    want = attention_wgmma.reference(*inputs, causal=True)
    with np.errstate(invalid="ignore"):
        err = float(np.abs(np.asarray(out, np.float64) - want).max() / np.abs(want).max())
    return None if err <= attention_wgmma.TOLERANCE else f"wrong result: {err}"


def _tile_loop(kernel: k.Kernel) -> k.ForLoop:
    (loop,) = [n for n in kernel.body if isinstance(n, k.ForLoop)]
    return loop


@pytest.mark.parametrize("stages", [1, 2])
def test_unmutated_kernels_match(stages: int) -> None:
    kernel = _kernel(stages)
    assert all(_failure(kernel, seed) is None for seed in SEEDS)


def test_pipeline_barriers_not_initialized_per_tile_are_caught() -> None:
    """The K/V pipeline's mbarriers are initialized (and invalidated) per tile: its stage and parity count from the
    key-block index, which restarts per tile. Initialized once for the first tile only (and never invalidated), the
    next tile's waits read the phases the previous tile's trip count left."""
    kernel = _kernel(2)
    loop = _tile_loop(kernel)
    first = loop.index.eq(0)

    def once(node):
        if isinstance(node, k.ForLoop) and node.stage is k.Stage.PrePrologue:
            return (k.IfThenElse(first, (node,)),)
        if isinstance(node, k.ForLoop) and node.stage is k.Stage.PostEpilogue:
            return ()
        return None

    bad = mutate(kernel, once)
    assert any(_failure(bad, seed) is not None for seed in SEEDS)
