"""What the generators draw (every type, rank, size kind and schedule option the product has), the inputs they
make, and the simulation property's refusal rule: only an InputError of a size rule naming a tensor is a size
refusal; anything else fails, except the defects ``fuzz/known_defects.py`` lists."""

from __future__ import annotations

import runpy

import numpy as np
import pytest
from hypothesis import given, settings

import runtime
from fusion_ir import DataType, ParallelType
from fuzz.case import Case, InputSpec, OpSpec, Step, TRef, case_inputs, compare, evaluate_float32, to_script
from fuzz.known_defects import known_defect
from fuzz.properties import PropertyFailure, Stats, case_features, check_lowering, check_schedule, check_simulation
from fuzz.strategies import cases
from lowering.kernel_ir import InputRule
from runtime import InputError

PT = ParallelType


def test_the_generators_reach_every_type_rank_size_kind_and_option() -> None:
    seen: set[str] = set()

    @settings(max_examples=400, derandomize=True, database=None, deadline=None)
    @given(case=cases())
    def collect(case: Case) -> None:
        seen.update(case_features(case))

    collect()
    wanted = {"input float", "input half", "input bfloat16", "input int", "input int64_t", "input bool",
              "rank 1", "rank 2", "rank 3", "rank 4", "2 reductions", "an axis over 160", "a 0-size axis",
              "NaN/Inf inputs", "non-contiguous inputs", "blocks interleaved", "32-bit indices",
              "stages 'auto'", "stages 5-8", "circular buffer Pipelined",
              "circular buffer WarpSpecialized on TIDy, with register sharing",
              "circular buffer WarpSpecialized on TIDy, without register sharing",
              "swizzle B128", "store wait deferred"}
    assert wanted <= seen, f"never drawn: {sorted(wanted - seen)}"


def test_case_inputs_hold_bools_specials_and_strides() -> None:
    flag, half, bf16 = case_inputs([(4, 5), (64,), (64,)], ["bool", "float16", "bfloat16"], [1, 0], specials=True,
                                   strided=True)
    assert flag.dtype == np.bool_ and not flag.flags.c_contiguous
    assert half.dtype == np.float16 and bf16.dtype == np.float32     # bf16 as float32 values
    assert np.isnan(half).any() or np.isinf(half).any()
    assert np.all(np.isin(flag, [False, True]))


def test_compare_catches_an_infinity_where_a_finite_value_was_expected() -> None:
    case = Case((InputSpec((0,), DataType.Float),), (OpSpec("exp", (TRef(0),)),), (1,), (), ((3,),), exact=False)
    expected = [np.array([1.0, 2.0, np.inf])]
    assert compare(case, [np.array([1.0, 2.0, np.inf], np.float32)], expected) is None
    assert "+Inf" in compare(case, [np.array([1.0, np.inf, np.inf], np.float32)], expected)
    assert "Inf at (2,)" in compare(case, [np.array([1.0, 2.0, -np.inf], np.float32)], expected)


def test_the_float32_evaluation_rounds_each_tensor_to_its_type() -> None:
    case = Case((InputSpec((0,), DataType.Float),), (OpSpec("cast", (TRef(0), DataType.BFloat16)),), (1,), (),
                ((1,),), exact=False)
    (rounded,) = evaluate_float32(case, [np.array([1.0 + 2**-10], np.float32)])
    assert rounded[0] == 1.0      # bf16 keeps 8 bits of mantissa


def _lowered_case(specials: bool = False, strided: bool = False, interleave: int | None = None) -> Case:
    return Case(inputs=(InputSpec((0,), DataType.Float),), ops=(OpSpec("add", (TRef(0), 1.0)),), outputs=(1,),
                steps=(Step("split", TRef(1), (0, 32)), Step("parallelize", TRef(1), (0, PT.BIDx)),
                       Step("parallelize", TRef(1), (1, PT.TIDx))),
                sizes=((100,), (7,)), seed=5, exact=True, specials=specials, strided=strided, interleave=interleave)


def _check(case: Case, stats: Stats) -> None:
    fusion, outcomes = check_schedule(case, stats)
    kernel = check_lowering(case, fusion, outcomes, stats)
    assert kernel is not None
    check_simulation(case, fusion, kernel, outcomes, stats)


def test_specials_strides_and_interleaved_blocks_match_numpy_and_replay_as_a_script(tmp_path) -> None:
    stats = Stats()
    case = _lowered_case(specials=True, strided=True, interleave=3)
    _check(case, stats)
    assert stats.runs["matched numpy"] == 2
    script = tmp_path / "case.py"
    script.write_text(to_script(case))
    runpy.run_path(str(script), run_name="__main__")


@pytest.mark.parametrize("rule, subject, refused", [
    (InputRule.VECTOR_DIVISIBLE, "T1", True),
    (InputRule.PIPELINE_FILL, "T2", True),
    (InputRule.VECTOR_DIVISIBLE, None, False),     # a size rule, but about no tensor
    (InputRule.UNBOUND_SYMBOL, None, False),       # the kernel needs a size no input gives
    (InputRule.DTYPE, "T0", False),
])
def test_only_a_size_rule_about_a_tensor_is_a_size_refusal(monkeypatch: pytest.MonkeyPatch, rule, subject,
                                                            refused) -> None:
    def refuse(kernel, inputs, seed=0, trace=None, interleave_blocks=None):
        raise InputError("refused", rule, subject)

    monkeypatch.setattr(runtime, "simulate", refuse)
    stats = Stats()
    if refused:
        _check(_lowered_case(), stats)
        assert stats.runs[f"refused: {rule.value}"] == 2
    else:
        with pytest.raises(PropertyFailure, match=rf"InputError that is no size refusal \(rule: {rule.value}"):
            _check(_lowered_case(), stats)


def test_known_defects_are_counted_and_fixed_ones_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    from fuzz import known_defects

    empty_block = runtime.LaunchError("kernel k: grid (1, 1, 1), block (0, 1, 1): a block has 1 to 1024 threads")
    assert known_defect(empty_block) is None          # fixed: the launch floors the block at one thread
    monkeypatch.setitem(known_defects.DEFECTS, "empty block", lambda e: "block (0, 1, 1)" in str(e))
    assert known_defect(empty_block) == "empty block"
    assert known_defect(runtime.LaunchError("kernel k: grid (1, 1, 1), block (2048, 1, 1): ...")) is None

    def let_in_smem(kernel, inputs, seed=0, trace=None, interleave_blocks=None):
        raise InputError("kernel.smem_bytes: symbol h0 is not bound (from h0 * 4); it is not an extent or stride of "
                         "any input", InputRule.UNBOUND_SYMBOL)

    # a size that reads a value the kernel computes is a lowering defect again, not a size refusal
    assert known_defect(InputError("kernel.smem_bytes: symbol h0 is not bound", InputRule.UNBOUND_SYMBOL)) is None
    monkeypatch.setattr(runtime, "simulate", let_in_smem)
    with pytest.raises(PropertyFailure, match="no size refusal"):
        _check(_lowered_case(), Stats())


def test_a_fusion_wide_index_type_step_replays_and_prints() -> None:
    case = _lowered_case()
    case = Case(case.inputs, case.ops, case.outputs, (Step("set_index_type", None, (DataType.Int32,)),) + case.steps,
                case.sizes, seed=case.seed)
    fusion, outcomes = check_schedule(case, Stats())
    assert fusion.index_type is DataType.Int32 and outcomes[0] == "ok"
    assert "fusion.set_index_type(DataType.Int32)" in to_script(case)
