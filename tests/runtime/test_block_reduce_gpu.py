"""GPU tier: ``blockAllReduce`` (codegen/block_reduce.cuh) on the H100 for every path it takes: a segment
within one warp (shuffles only), a segment over several warps (shuffles, one shared slot per warp, a last
shuffle stage), columns on the lanes with the rows reduced by strided shuffles, and the shared-memory tree for
a segment of a non-power-of-two extent; sums and maxima against numpy.

``pytest -m gpu tests/runtime/test_block_reduce_gpu.py``
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from examples import _reduction_fusions as fusions
from fusion_ir.schedulers import reduction
from runtime import execute
from tests.helpers import assert_matches, random_inputs

pytestmark = pytest.mark.gpu

CASES = {
    "inner_1024_threads": ((64, 1 << 14), 1, {"threads_x": 1024, "threads_y": 1, "grid_splits": 1}),
    "inner_512_threads_split": ((8, 1 << 16), 1, {"threads_x": 512, "threads_y": 1, "grid_splits": 4}),
    "inner_warp_rows": ((64, 256), 1, {"threads_x": 32, "threads_y": 4, "grid_splits": 1}),
    "inner_half_warp_rows": ((64, 128), 1, {"threads_x": 16, "threads_y": 8, "grid_splits": 1}),
    "inner_tree_96": ((64, 96 * 4), 1, {"threads_x": 96, "threads_y": 1, "grid_splits": 1, "unroll": 1}),
    "outer_4_columns_64_rows": ((1024, 64), 0, {"threads_x": 4, "threads_y": 64, "grid_splits": 1}),
    "outer_32_columns_8_rows": ((512, 1024), 0, {"threads_x": 32, "threads_y": 8, "grid_splits": 2}),
    "outer_8_columns_2_rows": ((64, 256), 0, {"threads_x": 8, "threads_y": 2, "grid_splits": 1}),
    "outer_tree_3_rows": ((96, 512), 0, {"threads_x": 32, "threads_y": 3, "grid_splits": 1, "unroll": 1}),
}


@pytest.mark.parametrize("op", ["sum", "max"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_block_all_reduce_matches_numpy(name: str, op: str) -> None:
    shape, axis, params = CASES[name]
    fusion = fusions.reduction(shape, op, axis)
    reduction.SCHEDULER.apply(fusion, replace(reduction.SCHEDULER.suggest(fusion, None), **params))
    inputs = random_inputs(fusion, fusions.input_shapes(fusion), 3)
    assert_matches(fusion, inputs, execute(fusion, inputs), tol=1e-5)
