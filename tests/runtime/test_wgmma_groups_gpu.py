"""GPU tier: a circular-buffered wgmma operand beside a single-stage one, and wgmma pipelines at prefetch 0, on the
H100. Attention with v_j's tile in two stages over the key blocks computes exactly what the kernel without them
does (a wgmma of the QK^T K loop left in flight over k_j's single-stage tile gave a 3x larger error; prefetch 0
hung); the rescaled matmul with a_j over J and b_j single-stage in the K loop, and the K pipeline at prefetch 0,
match numpy."""

from __future__ import annotations

import numpy as np
import pytest

from examples import attention_wgmma, matmul_rescaled
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs
from tests.lowering.test_circular_buffer import WGMMA_SIZE, wgmma_pipeline
from tests.lowering.test_wgmma_groups import RESCALED, attention_v_circular_buffered, rescaled_a_over_j

pytestmark = pytest.mark.gpu
SHAPE = (2, 4, 512, 1024, 128)     # B, H, Sq, Skv, D: 16 key blocks, two chunks of D


@pytest.mark.parametrize("prefetch", [1, 0])
def test_attention_with_v_circular_buffered_matches_the_kernel_without(prefetch: int) -> None:
    inputs = attention_wgmma.make_inputs(*SHAPE, seed=7)
    (base,) = execute(lower(attention_v_circular_buffered(None, SHAPE)), inputs)
    (out,) = execute(lower(attention_v_circular_buffered(prefetch, SHAPE)), inputs)
    want = attention_wgmma.reference(*inputs)
    scale = float(np.abs(want).max())
    err = float(np.abs(np.asarray(out, dtype=np.float64) - want).max()) / scale
    assert err <= attention_wgmma.TOLERANCE, err
    diff = float(np.abs(np.asarray(out, dtype=np.float64) - np.asarray(base, dtype=np.float64)).max()) / scale
    assert diff <= 1e-5, f"prefetch {prefetch}: {diff:.3e} from the kernel without the circular buffer"


@pytest.mark.parametrize("prefetch", [1, 0])
def test_single_stage_operand_beside_a_circular_buffered_one_matches_numpy(prefetch: int) -> None:
    fusion = rescaled_a_over_j(prefetch)
    inputs = random_inputs(fusion, matmul_rescaled.input_shapes(*RESCALED), seed=11)
    assert_matches(fusion, inputs, execute(lower(fusion), inputs), tol=matmul_rescaled.TOLERANCE)


@pytest.mark.parametrize("stages", [2, 3])
def test_wgmma_pipeline_at_prefetch_0_matches_numpy(stages: int) -> None:
    fusion = wgmma_pipeline(stages, 0)
    inputs = random_inputs(fusion, matmul_rescaled.input_shapes(*WGMMA_SIZE), seed=stages)
    assert_matches(fusion, inputs, execute(lower(fusion), inputs), tol=matmul_rescaled.TOLERANCE)
