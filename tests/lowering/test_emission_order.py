"""lowering.emission_order: two reductions of one cached input share its loops, whichever output comes first."""

from __future__ import annotations

from fusion_ir import DataType, Fusion, ParallelType, inline_most, ops, parallelize_like, transform_like
from lowering import lower
from lowering.emission_order import emission_order
from runtime import simulate
from tests.helpers import assert_matches, random_inputs


def _two_reductions_of_one_cache() -> Fusion:
    """``sum(|x|) * c`` and ``max(x)``: the register cache of x is inlined into both reductions' serial loops;
    the first output's epilogue (the multiply) comes between the two reductions in the outputs' order."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(9, 200), dtype=DataType.Float)
        fusion.add_output(ops.mul(ops.sum(ops.abs(x), [1]), 0.5))
        fusion.add_output(ops.max(x, [1]))
    cache = x.cache_after()
    ref = fusion.outputs[1]
    ref.split(1, 32)                       # [I0, rS, r32]
    transform_like(ref)
    ref.axis(0).parallelize(ParallelType.BIDx)
    ref.axis(2).parallelize(ParallelType.TIDx)
    parallelize_like(ref)
    for r in [t for t in fusion.used_tensors() if type(t.definition).__name__ == "ReductionOp"]:
        r.rfactor([1])
    inline_most(fusion)
    assert cache.compute_at_pos == 3        # inside both partials' serial loops
    return fusion


def test_the_second_reduction_follows_the_first_inside_the_shared_loops() -> None:
    fusion = _two_reductions_of_one_cache()
    order = emission_order(fusion.used_tensors())
    partials = [t for t in order if getattr(t.definition, "rfactor_partial", False)]
    assert len(partials) == 2
    first, second = (order.index(p) for p in partials)
    between = order[first + 1:second]
    assert between == [], f"{between} emitted between the two partial reductions would close their shared loop"


def test_the_two_reductions_lower_and_match_numpy() -> None:
    fusion = _two_reductions_of_one_cache()
    inputs = random_inputs(fusion, [(9, 200)], 3)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs))
