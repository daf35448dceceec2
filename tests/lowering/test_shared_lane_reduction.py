"""A lane-group reduction (``merge_lanes``) whose result is in Shared memory: each group's first lane writes the
result to the slot of its thread index, any thread reads it after a block barrier (a thread of another layout, or a
lane of the group other than the first), the reduced lanes at index 0. The row softmax of an accumulator fragment
(examples/matmul_row_softmax) with its row max and row sum in Shared memory, simulated against numpy; the layout
the attention kernel needs (a thread per row reading the row max) is examples/attention_wgmma."""

from __future__ import annotations

import numpy as np
import pytest

from examples import matmul_row_softmax
from fusion_ir import MemoryType
from lowering import lower
from runtime import simulate

SIZE = (200, 136, 128)      # M, K, N: a ragged last row tile


def _row_reductions(fusion):
    p = fusion.outputs[0].definition.inputs[0]
    e, lb = p.definition.inputs
    d = e.definition.inputs[0]
    mb = d.definition.inputs[1]
    return mb.definition.inputs[0], lb.definition.inputs[0]


@pytest.mark.parametrize("which", ["max", "sum", "both"])
def test_row_reductions_in_shared_memory_match_numpy(which: str) -> None:
    fusion = matmul_row_softmax.schedule(matmul_row_softmax.fusion_of(*SIZE))
    row_max, row_sum = _row_reductions(fusion)
    chosen = {"max": [row_max], "sum": [row_sum], "both": [row_max, row_sum]}[which]
    for tv in chosen:
        tv.set_memory_type(MemoryType.Shared)
    kernel = lower(fusion)
    text = str(kernel)
    for tv in chosen:
        assert f"ALLOC T{tv.name}: Shared float[256]" in text        # a slot per thread of TIDx, two rows each
    inputs = matmul_row_softmax.make_inputs(*SIZE, seed=4)
    (out,) = simulate(kernel, inputs, seed=4)
    err = np.abs(np.asarray(out, dtype=np.float64) - matmul_row_softmax.reference(*inputs)).max()
    assert err <= matmul_row_softmax.TOLERANCE, err
