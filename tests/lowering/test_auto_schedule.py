"""No silent one-thread kernels: lower, simulate, execute and viz schedule a fusion with no schedule at all (with an
AutoScheduleWarning), never touch a hand schedule, and keep one thread where the fusion asks for it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, ParallelType, ops
from fusion_ir.schedulers import PointwiseParams, TransposeParams
from fusion_ir.schedulers.auto import AutoScheduleWarning
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs


def _add(symbolic: bool = False, shape: tuple[int, int] = (37, 136)) -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2) if symbolic else fusion.add_input(shape=shape)
        b = fusion.add_input(ndim=1) if symbolic else fusion.add_input(shape=shape[1:])
        fusion.add_output(ops.add(a, ops.broadcast(b, [True, False])))
    return fusion


def _one_thread(kernel) -> bool:
    return [b.const_value() for b in kernel.block] == [1, 1, 1] and [g.const_value() for g in kernel.grid] == [1, 1, 1]


def test_lower_schedules_an_unscheduled_fusion_and_says_so() -> None:
    fusion = _add()
    with pytest.warns(AutoScheduleWarning, match=r"lower: the fusion had no schedule; schedule\(\) scheduled it "
                                                 r"with the pointwise scheduler: reference=T3, break_point=1"):
        kernel = lower(fusion)
    assert isinstance(fusion.scheduler_choice, PointwiseParams)
    assert not _one_thread(kernel)


def test_simulate_schedules_a_symbolic_fusion_at_the_inputs_shapes() -> None:
    fusion = _add(symbolic=True)
    inputs = random_inputs(fusion, [(37, 136), (136,)], 0)
    with pytest.warns(AutoScheduleWarning, match="vectorize=4"):
        outputs = simulate(fusion, inputs)
    assert fusion.scheduler_choice.vectorize == 4   # the sizes came from the inputs: 136 divides by 4
    assert_matches(_add(symbolic=True), inputs, outputs)


def test_a_hand_schedule_is_never_replaced() -> None:
    fusion = _add()
    (out,) = fusion.outputs
    out.split(1, 32)
    out.axis(2).parallelize(ParallelType.TIDx)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AutoScheduleWarning)
        kernel = lower(fusion)
    assert fusion.scheduler_choice is None
    assert [b.const_value() for b in kernel.block] == [32, 1, 1]


def test_auto_schedule_off_keeps_one_thread_without_a_warning() -> None:
    fusion = _add()
    fusion.auto_schedule = False
    with warnings.catch_warnings():
        warnings.simplefilter("error", AutoScheduleWarning)
        kernel = lower(fusion)
    assert _one_thread(kernel) and fusion.scheduler_choice is None


def test_a_fusion_no_scheduler_takes_runs_as_one_thread_with_every_reason() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 6))
        fusion.add_output(ops.sum(ops.transpose(x, 0, 1), [0, 1]))       # a full reduction: no scheduler's
    with pytest.warns(AutoScheduleWarning) as record:
        kernel = lower(fusion)
    text = str(record[0].message)
    assert "the fusion has no schedule and schedule: no scheduler takes this fusion" in text
    assert "pointwise: it takes pointwise ops" in text and "it runs unscheduled, every loop on one thread" in text
    assert _one_thread(kernel)
    inputs = random_inputs(fusion, [(4, 6)], 0)
    assert_matches(fusion, inputs, simulate(kernel, inputs))


def test_a_transpose_is_scheduled_with_shared_memory_tiles() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(40, 70), dtype=DataType.Float)
        fusion.add_output(ops.transpose(x, 0, 1))
    inputs = random_inputs(fusion, [(40, 70)], 0)
    with pytest.warns(AutoScheduleWarning, match="the transpose scheduler: reference=T1, tile=32"):
        (out,) = simulate(fusion, inputs)
    np.testing.assert_array_equal(out, inputs[0].T)
    assert isinstance(fusion.scheduler_choice, TransposeParams)
