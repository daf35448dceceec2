"""Launch requirements (``Kernel.launch_requirements``): rules on the arguments lowering records and the launch plan
checks. TMA's 16-byte stride rule is one: refused at ``lower()`` when constant extents break it, recorded otherwise."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, ops
from fusion_ir.scalar import Val
from lowering import LoweringError, lower
from lowering.kernel_ir import LaunchRequirement
from runtime import InputError, simulate
from runtime.arrays import ArrayArg, ArrayKind
from runtime.launch_plan import plan_launch
from tests.helpers import assert_matches, random_inputs


def tile_2d(shape: tuple[int, int] | None = None, dtype: DataType = DataType.Float) -> Fusion:
    """8 x 32 TMA boxes of a 2-D input, one block per 8 rows (no circular buffering)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape, dtype=dtype) if shape is not None else fusion.add_input(ndim=2, dtype=dtype)
        out = ops.add(x, 1.0)
        fusion.add_output(out)
    out.split(1, 32)
    out.split(0, 8)
    out.reorder({1: 2})
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDy)
    out.axis(3).parallelize(ParallelType.TIDx)
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 2)
    tile.axis(2).parallelize(ParallelType.Bulk)
    tile.axis(3).parallelize(ParallelType.Bulk)
    return fusion


def arg(shape: tuple[int, ...]) -> ArrayArg:
    a = np.zeros(shape, dtype=np.float32)
    return ArrayArg(ArrayKind.Numpy, a, a.shape, tuple(s // 4 for s in a.strides), "float32", 4)


def test_constant_extents_that_break_the_stride_rule_are_refused_at_lower() -> None:
    with pytest.raises(LoweringError, match=r"T0: TMA needs strides that are multiples of 16 bytes \(its tensor map "
                                            r"tmap_T0\), but T0 \[64, 1001\] of float has a stride of 1001 x 4 = 4004 "
                                            r"bytes in dimension 0; pad the extents after dimension 0 to a multiple "
                                            r"of 4 elements"):
        lower(tile_2d((64, 1001)))


def test_half_rows_need_a_multiple_of_8_elements() -> None:
    with pytest.raises(LoweringError, match=r"a stride of 100 x 2 = 200 bytes .* multiple of 8 elements"):
        lower(tile_2d((64, 100), DataType.Half))


def test_constant_extents_that_meet_it_lower_and_still_record_it() -> None:
    kernel = lower(tile_2d((64, 1024)))
    (req,) = kernel.launch_requirements
    assert req.tensor == "T0" and req.rule == "TMA needs strides that are multiples of 16 bytes"


def test_symbolic_extents_record_the_rule_and_the_launch_plan_checks_it() -> None:
    kernel = lower(tile_2d())
    (req,) = kernel.launch_requirements
    assert req.holds.symbols() == {"T0_stride0"}
    assert req.check({"T0_stride0": 36}) is None
    assert req.check({"T0_stride0": 35}) == ("T0: TMA needs strides that are multiples of 16 bytes; T0 has a stride "
                                             "of 140 bytes in dimension 0, T0_stride0 = 35 elements of 4 bytes")
    plan_launch(kernel, [arg((16, 36))])
    with pytest.raises(InputError, match=r"T0: TMA needs strides that are multiples of 16 bytes; T0 has a stride of "
                                         r"140 bytes in dimension 0"):
        plan_launch(kernel, [arg((16, 35))])


def test_the_simulator_checks_the_recorded_rule_and_runs_what_meets_it() -> None:
    fusion = tile_2d()
    kernel = lower(fusion)
    with pytest.raises(InputError, match="multiples of 16 bytes"):
        simulate(kernel, random_inputs(fusion, [(9, 30)], seed=0))
    inputs = random_inputs(fusion, [(9, 44)], seed=0)
    assert_matches(fusion, inputs, simulate(kernel, inputs))


def test_the_launch_plan_checks_what_lowering_recorded_not_its_own_rules() -> None:
    kernel = lower(tile_2d())
    bare = replace(kernel, launch_requirements=())
    plan_launch(bare, [arg((16, 35))])   # nothing recorded, nothing checked
    even = LaunchRequirement("T0", "an even number of rows", (Val.symbol("i0") % 2).eq(0))
    with pytest.raises(InputError, match=r"^T0: an even number of rows; i0 = 5$"):
        plan_launch(replace(bare, launch_requirements=(even,)), [arg((5, 36))])


def test_a_one_dimensional_tma_tensor_has_no_stride_rule() -> None:
    import examples

    assert lower(examples.load("tma_add").build()).launch_requirements == ()


def test_the_kernel_ir_listing_shows_each_requirement() -> None:
    text = str(lower(tile_2d()))
    assert "  REQUIRE ((T0_stride0 * 4) % 16) == 0  // T0: TMA needs strides that are multiples of 16 bytes" in text
