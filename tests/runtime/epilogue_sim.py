"""Shared by the epilogue ring tests: run ``examples/matmul_epilogue`` kernels in the simulator against numpy."""

from __future__ import annotations

from examples import matmul_epilogue
from fusion_ir.reference import evaluate
from lowering import kernel_ir as k
from runtime import simulate
from tests.helpers import rel_error

SIZE = (256, 512, 192)          # M, N, K: with 2 blocks every block (warp group) stages several tiles
REWRITTEN = r"staging tile rewritten before the store's read finished"
EXITS = r"exits while the TMA store from T\d+ issued by .* may still read T\d+"


def run_seeds(fusion, kernel: k.Kernel, kind: str = "bias_gelu", seeds=range(4)) -> None:
    """Simulate ``kernel`` at ``SIZE`` under each seed and compare with the fusion's reference."""
    m, n, kk = SIZE
    for seed in seeds:
        inputs = matmul_epilogue.make_inputs(fusion, kind, m, n, kk, seed=seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        err = rel_error(out, evaluate(fusion, inputs)[0])
        assert err < matmul_epilogue.TOLERANCE, f"wrong result: relative error {err:.3g} (seed {seed})"
