"""GPU tier: kernels whose pipelines were given ``stages="auto"`` match numpy on the H100, at the depth the
lowering picked (lowering/analysis/pipeline_depth.py): limited by shared memory and by the trip count."""

from __future__ import annotations

import pytest

from lowering import lower
from runtime import execute
from target import H100
from tests.helpers import assert_matches, random_inputs
from tests.lowering.test_pipeline_depth import AUTO_KERNELS

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("build,shapes_list,tol", [c[1:] for c in AUTO_KERNELS], ids=[c[0] for c in AUTO_KERNELS])
def test_auto_kernels_match_numpy_on_the_gpu(build, shapes_list, tol) -> None:
    fusion = build()
    traced = lower(fusion, trace=True)
    assert traced.analyses.depths.chosen
    assert traced.kernel.smem_bytes.const_value() <= H100.smem_per_block
    for n, shapes in enumerate(shapes_list):
        inputs = random_inputs(fusion, shapes, seed=7000 + n)
        assert_matches(fusion, inputs, execute(traced.kernel, inputs), tol=tol)


@pytest.mark.parametrize("params", [{}, {"warp_specialized": True, "persistent": True, "blocks": 5},
                                    {"tma_store": True}],
                         ids=["pipelined", "ws_persistent", "tma_store"])
def test_an_auto_matmul_matches_numpy_on_the_gpu(params: dict) -> None:
    from examples import matmul_wgmma
    from fusion_ir import DataType

    if params.get("tma_store"):
        params = dict(params, out_dtype=DataType.BFloat16)
    fusion = matmul_wgmma.build(stages="auto", **params)
    kernel = lower(fusion)
    for n, shapes in enumerate(matmul_wgmma.SIZES + [[(256, 1024), (1024, 512)]]):
        inputs = random_inputs(fusion, shapes, seed=7100 + n)
        assert_matches(fusion, inputs, execute(kernel, inputs), tol=1e-2 if "out_dtype" in params else 1e-5)
