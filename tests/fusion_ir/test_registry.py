"""fusion_ir.schedulers.schedule: the registry's order, its errors with every scheduler's reason, the params= path,
and what it records on the fusion."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, ParallelType, ScheduleError, ops
from fusion_ir.schedulers import (
    SCHEDULERS,
    HeuristicParams,
    MatmulHeuristic,
    MatmulParams,
    PointwiseParams,
    TransposeParams,
    registry,
    schedule,
)
from fusion_ir.schedulers.protocol import FunctionScheduler
from runtime import simulate
from tests.helpers import assert_matches


def _pointwise(shape: tuple[int, ...] = (8, 64)) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape)
        fusion.add_output(ops.exp(ops.mul(x, 2.0)))
    return fusion


def _transpose(shape: tuple[int, int] = (40, 72)) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape)
        fusion.add_output(ops.transpose(x, 0, 1))
    return fusion


def _matmul() -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(256, 128), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(128, 256), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, b))
    return fusion


def _full_reduction() -> Fusion:
    """A sum over every axis: no registered scheduler takes it (the reduction scheduler reduces one axis)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(8, 64))
        y = ops.exp(x)
        fusion.add_output(ops.sum(y, [0, 1]))
    return fusion


def test_the_registry_is_a_tuple_in_nvfusers_order() -> None:
    names = [s.name for s in SCHEDULERS]
    assert isinstance(registry.SCHEDULERS, tuple)
    assert names[:2] == ["attention", "matmul"] and names[-2:] == ["transpose", "pointwise"]
    assert set(names) <= {"attention", "matmul", "reduction", "normalization", "transpose", "pointwise"}


@pytest.mark.parametrize(("build", "scheduler", "kind"), [
    (_pointwise, "pointwise", PointwiseParams),
    (_transpose, "transpose", TransposeParams),
    (_matmul, "matmul", MatmulHeuristic),
])
def test_the_first_scheduler_that_takes_a_fusion_schedules_it(build, scheduler: str, kind: type) -> None:
    fusion = build()
    params = schedule(fusion)
    assert isinstance(params, kind) and params.scheduler == scheduler
    assert fusion.scheduler_choice is params
    assert f"({scheduler} scheduler)" in str(params)


def test_order_decides_between_schedulers_that_both_take_a_fusion(monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[str] = []

    def make(name: str) -> FunctionScheduler:
        def apply(fusion: Fusion, params: HeuristicParams) -> None:
            taken.append(name)
        return FunctionScheduler(name, lambda f, s: None, lambda f, s: HeuristicParams(name), apply)
    monkeypatch.setattr(registry, "SCHEDULERS", (make("first"), make("second")))
    assert schedule(_pointwise()).scheduler == "first"
    assert taken == ["first"]


def test_a_fusion_no_scheduler_takes_lists_every_reason() -> None:
    fusion = _full_reduction()
    before = fusion.state_fingerprint()
    with pytest.raises(ScheduleError) as info:
        schedule(fusion)
    text = str(info.value)
    assert "no scheduler takes this fusion" in text
    assert "matmul: the fusion has no matmul" in text
    assert "transpose: the fusion has no permute" in text
    assert "reduction: T2 reduces every axis" in text and "normalization: T2 reduces every axis" in text
    assert "pointwise: it takes pointwise ops, casts, copies and broadcasts only; T2 = sum(...) is a reduction" in text
    assert "(it would take T1, computed before that)" in text
    assert fusion.state_fingerprint() == before and fusion.scheduler_choice is None


def test_a_scheduled_fusion_is_refused_and_left_as_it_is() -> None:
    fusion = _pointwise()
    (out,) = fusion.outputs
    out.split(1, 32)
    with pytest.raises(ScheduleError, match=r"already scheduled \(T2 has 1 transforms\).*never replaces a hand"):
        schedule(fusion)
    assert len(out.loop) == 3 and fusion.scheduler_choice is None


def test_params_are_applied_by_the_scheduler_they_name() -> None:
    fusion = _pointwise((8, 64))
    given = PointwiseParams(reference="T2", vectorize=2, threads=32, unroll=2, why={"threads": "given"})
    assert schedule(fusion, params=given) is given
    (out,) = fusion.outputs
    assert [i.parallel_type for i in out.loop] == [ParallelType.BIDx, ParallelType.Unroll, ParallelType.TIDx,
                                                   ParallelType.Vectorize]
    assert [i.extent.const_value() for i in out.loop] == [4, 2, 32, 2]
    x = [np.random.default_rng(0).random((8, 64), dtype=np.float32)]
    assert_matches(_pointwise((8, 64)), x, simulate(fusion, x))


def test_params_of_a_scheduler_that_declines_the_fusion_are_refused() -> None:
    fusion = _pointwise()
    with pytest.raises(ScheduleError, match="the transpose scheduler named by the params declines the fusion: the "
                                            "fusion has no permute"):
        schedule(fusion, params=TransposeParams(reference="T2"))
    with pytest.raises(ScheduleError, match=r"no scheduler is named 'tiled' \(registered: attention, matmul, .*pointwise\)"):
        schedule(fusion, params=HeuristicParams("tiled"))
    with pytest.raises(ScheduleError, match="params must be a scheduler's HeuristicParams"):
        schedule(fusion, params={"vectorize": 4})   # type: ignore[arg-type]
    assert fusion.scheduler_choice is None


def test_bad_params_are_refused_by_name_and_undone() -> None:
    fusion = _pointwise()
    before = fusion.state_fingerprint()
    with pytest.raises(ScheduleError, match=r"PointwiseParams.vectorize: 3 must be a power of two"):
        schedule(fusion, params=PointwiseParams(reference="T2", vectorize=3))
    with pytest.raises(ScheduleError, match=r"PointwiseParams.reference: 'T9' is not an output of the fusion"):
        schedule(fusion, params=PointwiseParams(reference="T9"))
    assert fusion.state_fingerprint() == before


def test_matmul_params_go_to_the_matmul_scheduler_and_print_their_rules() -> None:
    fusion = _matmul()
    params = schedule(fusion, params=MatmulParams(tile=(128, 128, 64), stages=2, compute_warp_groups=1))
    assert isinstance(params, MatmulHeuristic) and params.choice is not None
    assert params.choice.why.source == "given"
    suggested = schedule(_matmul())
    text = str(suggested)
    assert text.startswith("MatmulHeuristic (matmul scheduler): ") and "  tile = " in text and "# rule" in text
    assert suggested.summary().startswith("the matmul scheduler: ")


def test_symbolic_sizes_need_sizes_only_for_the_heuristic() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        fusion.add_output(ops.relu(x))
    unknown = schedule(fusion)
    assert unknown.vectorize == 1 and "sizes unknown" in unknown.why["vectorize"]
    sized = Fusion()
    with sized:
        x = sized.add_input(ndim=2)
        sized.add_output(ops.relu(x))
    assert schedule(sized, sizes=[(6, 40)]).vectorize == 4
    with pytest.raises(ScheduleError, match=r"sizes has 2 shapes but the fusion has 1 inputs"):
        schedule(_pointwise(), sizes=[(8, 64), (8, 64)])


def test_every_scheduler_is_registered_in_nvfusers_order() -> None:
    assert [s.name for s in registry.SCHEDULERS] == ["attention", "matmul", "reduction", "normalization", "transpose",
                                                      "pointwise"]
