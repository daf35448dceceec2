"""``MatmulParams.split_k``: the accumulator's K-tile loop split over blockIdx.z, and the combinations refused."""

from __future__ import annotations

import pytest

import examples
from fusion_ir import DataType, Fusion, ParallelType, ScheduleError, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul


def _matmul(m: int = 200, n: int = 264, k: int = 1000, batch: bool = False) -> Fusion:
    fusion = Fusion()
    lead = (2,) if batch else ()
    with fusion:
        a = fusion.add_input(shape=lead + (m, k), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=lead + (k, n), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, b))
    return fusion


def test_the_k_loop_splits_over_bidz() -> None:
    fusion = examples.load("matmul_split_k").build(split_k=4)
    (acc,) = [tv for tv in fusion.used_tensors() if tv.definition is not None and type(tv.definition).__name__ ==
              "MmaOp"]
    # [Mo (BIDy), No (BIDx), S (BIDz, reduction), Ko / S, ...]
    assert [acc.loop[k].parallel_type for k in range(3)] == [ParallelType.BIDy, ParallelType.BIDx, ParallelType.BIDz]
    assert acc.loop[2].is_reduction and acc.loop[2].extent.const_value() == 4
    assert acc.loop[3].is_reduction


PARAMS = {"tile": (128, 128, 64), "stages": 2, "compute_warp_groups": 1}


@pytest.mark.parametrize("split_k,message", [
    (0, r"MatmulParams.split_k: 0 must be a positive int"),
    (True, r"MatmulParams.split_k: True must be a positive int"),
    (17, r"MatmulParams.split_k: 17 splits of 16 K tiles \(of 64\); each split needs at least one K tile"),
])
def test_invalid_split_k_is_refused(split_k: object, message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        schedule_matmul(_matmul(k=1000), MatmulParams(split_k=split_k, **PARAMS))  # type: ignore[arg-type]


def test_split_k_with_a_persistent_kernel_is_refused() -> None:
    with pytest.raises(ScheduleError, match=r"MatmulParams.split_k: 2 with persistent=True"):
        MatmulParams(split_k=2, persistent=True, **PARAMS).validate()


def test_split_k_with_a_warp_specialized_kernel_is_valid() -> None:
    MatmulParams(split_k=2, warp_specialized=True, **PARAMS).validate()


def test_split_k_of_a_batched_matmul_is_refused() -> None:
    with pytest.raises(ScheduleError, match=r"MatmulParams.split_k: 2 with a batched matmul .* blockIdx.z"):
        schedule_matmul(_matmul(batch=True), MatmulParams(split_k=2, **PARAMS))
