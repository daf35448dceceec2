"""Mutations of a matmul whose A the compute warp groups load themselves (K = 100: 8-byte cp.async; K = 263:
plain 2-byte copies) into the tile the wgmma reads: each removes what orders those generic-proxy writes before
the MMAs (the proxy fence, the cp.async wait, the block sync after them), and the simulator must report it."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, ops
from fusion_ir.reference import evaluate
from fusion_ir.schedulers import MatmulParams, schedule_matmul
from lowering import kernel_ir as k
from lowering import lower
from runtime import SimulationError, simulate
from tests.helpers import random_inputs, rel_error
from tests.runtime.kir_builders import remove_nodes

SEEDS = (0, 1, 2)


def _kernel(k_extent: int) -> tuple[Fusion, k.Kernel, list]:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(72, k_extent), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(k_extent, 40), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, b))
    schedule_matmul(fusion, MatmulParams(tile=(64, 64, 32), stages=3, compute_warp_groups=1))
    return fusion, lower(fusion), random_inputs(fusion, [(72, k_extent), (k_extent, 40)], seed=3)


def _error(fusion: Fusion, kern: k.Kernel, inputs: list, seed: int) -> float:
    (out,) = simulate(kern, inputs, seed=seed)
    return rel_error(out, evaluate(fusion, inputs)[0])


def _fails_every_seed(fusion: Fusion, kern: k.Kernel, inputs: list, match: str) -> None:
    """Every seed reports ``match`` (a ``SimulationError``) or, for a wait removed, reads poison (NaN)."""
    for seed in SEEDS:
        try:
            err = _error(fusion, kern, inputs, seed)
        except SimulationError as e:
            assert any(m in str(e) for m in match.split("|")), str(e)
            continue
        assert "poison" in match and not err < 1e-3, f"seed {seed}: error {err}"


@pytest.mark.parametrize("k_extent", [100, 263])
def test_unmutated_kernels_match(k_extent: int) -> None:
    fusion, kern, inputs = _kernel(k_extent)
    for seed in SEEDS:
        assert _error(fusion, kern, inputs, seed) < 1e-5


@pytest.mark.parametrize("k_extent", [100, 263])
def test_missing_proxy_fence_is_reported(k_extent: int) -> None:
    fusion, kern, inputs = _kernel(k_extent)
    bad = remove_nodes(kern, k.FenceAsyncProxy)
    _fails_every_seed(fusion, bad, inputs, "missing fence.proxy.async: wgmma m64n64k16 into")


def test_missing_cp_async_wait_is_reported() -> None:
    fusion, kern, inputs = _kernel(100)
    bad = remove_nodes(kern, k.AsyncWait, lambda n: n.kind is k.AsyncKind.CpAsync)
    _fails_every_seed(fusion, bad, inputs, "missing fence.proxy.async|poison")


@pytest.mark.parametrize("k_extent", [100, 263])
def test_missing_block_sync_is_reported(k_extent: int) -> None:
    """Without the sync after the fence, another thread's writes are not published to the wgmma (and the next
    stage's copies may overwrite one a wgmma in flight still reads)."""
    fusion, kern, inputs = _kernel(k_extent)
    bad = remove_nodes(kern, k.BlockSync, lambda n: n.reason.startswith("RAW: stage"))
    _fails_every_seed(fusion, bad, inputs, "missing fence.proxy.async|still reads")
