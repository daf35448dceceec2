"""bench/schedulers_reduce_cases.py: every case builds, is taken by its scheduler (and declined by the other),
schedules from the suggested parameters and lowers, on the CPU, without running."""

from __future__ import annotations

import pytest

from bench import schedulers_reduce_cases as cases
from examples import _reduction_fusions as fusions
from fusion_ir import DataType
from lowering import lower
from tests.runtime.test_reduction_schedulers_gpu import NAMES as GPU_NAMES

OTHER = {"reduction": "normalization", "normalization": "reduction"}


def test_the_cases_cover_what_the_benchmark_compares() -> None:
    names = [c.name for c in cases.CASES]
    assert len(names) == len(set(names))
    for kind in ("softmax", "log_softmax", "layer_norm", "rms_norm"):
        for dtype in ("float32", "bfloat16"):
            hidden = {c.shapes[0][1] for c in cases.CASES if c.name.startswith(f"{kind}_") and c.dtype == dtype
                      and "dim0" not in c.name}
            assert hidden == {1024, 4096, 16384}, (kind, dtype, hidden)
    for op in ("sum", "max"):
        for axis in (0, 1):
            assert len([n for n in names if n.startswith(f"{op}_dim{axis}_")]) == 3
    assert set(GPU_NAMES) <= set(names)


@pytest.mark.parametrize("case", cases.CASES, ids=lambda c: c.name)
def test_case_builds_schedules_and_lowers(case: cases.Case) -> None:
    fusion = case.build()
    assert fusions.input_shapes(fusion) == [tuple(s) for s in case.shapes]
    assert fusion.inputs[0].dtype is cases.DTYPES[case.dtype]
    assert cases.SCHEDULERS[case.scheduler].decline(fusion, None) is None
    assert cases.SCHEDULERS[OTHER[case.scheduler]].decline(fusion, None) is not None
    assert callable(case.reference)
    kernel = lower(cases.schedule(case))
    assert kernel is not None
    if case.dtype == "bfloat16":
        assert all(tv.dtype is DataType.BFloat16 for tv in fusion.inputs)
