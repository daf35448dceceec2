"""``lowering/running_axes.py`` and the lowering of scans, rescaled sums and pads: where a carry is initialized
and allocated, what a pad reads under which predicate, and the schedules refused with the tensor, the axis and
the rule."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, ParallelType, ScheduleError, inline_most, ops
from fusion_ir.op_pad import pad_to_multiple
from lowering import LoweringError, lower
from lowering.kir_printer import body_lines

F = DataType.Float


def _fusion(math, *shapes, ndim: int = 2):
    fusion = Fusion()
    with fusion:
        ins = [fusion.add_input(shape=s, dtype=F) for s in shapes] if shapes else [fusion.add_input(ndim=ndim, dtype=F)]
        outs = math(*ins)
        for o in outs if isinstance(outs, tuple) else (outs,):
            fusion.add_output(o)
    fusion.auto_schedule = False
    return fusion, outs


def _text(fusion: Fusion) -> str:
    return "\n".join(body_lines(lower(fusion).body, 0))


def test_carry_is_initialized_before_the_scan_loop_and_written_every_step() -> None:
    fusion, _ = _fusion(lambda x: ops.cumsum(x, 1, exclusive=True), (3, 5))
    lines = [line.strip() for line in _text(fusion).splitlines()]
    init = lines.index("T1_carry[0] = 0.0")
    loop = next(k for k, line in enumerate(lines) if line.startswith("FOR") and "{5}" in line)
    assert init < loop
    write = next(k for k, line in enumerate(lines) if line.startswith("T1[") and "T1_carry[0]" in line)
    step = lines.index(next(line for line in lines if line.startswith("T1_carry[0] add=")))
    assert loop < write < step          # exclusive: the element before the step


def test_carry_spans_the_axes_inside_the_scan_loop() -> None:
    fusion, _ = _fusion(lambda x: ops.cummax(x, 0), (6, 4))
    text = _text(fusion)
    assert "ALLOC T1_carry: Local float[4]" in text and "T1_carry[i1] = -inf" in text


def test_rescaled_sum_rescales_its_total_before_each_term() -> None:
    fusion, _ = _fusion(lambda x, s: ops.rescaled_sum(x, s, 1), (3, 5), (3, 5))
    text = _text(fusion)
    assert "T2[i0 * T2_stride0] = ((T2[i0 * T2_stride0] * T1[" in text
    assert "add=" not in text


def test_pad_reads_its_input_only_in_bounds() -> None:
    fusion, _ = _fusion(lambda x: ops.pad(x, [2, 1]), (3, 5))
    text = _text(fusion)
    assert "IF ((i1 - 2) >= 0) && ((i1 - 2) < 5):" in text and "ELSE:" in text


def test_producer_inlined_into_a_pad_is_predicated_on_its_own_extent() -> None:
    fusion, _ = _fusion(lambda x: pad_to_multiple(ops.exp(x), 1, 8), (3, 5))
    inline_most(fusion)
    text = _text(fusion)
    assert "IF i1 < 5:\n      T1[0] = exp(" in text, text


# ------------------------------------------------------------------ refused schedules
def test_scan_axis_on_threads_is_a_schedule_error() -> None:
    _, out = _fusion(lambda x: ops.cummax(x, 1), (4, 64))
    with pytest.raises(ScheduleError, match=r"T1.*axis 1 of cummax T1.*walked in order by one thread.*TIDx"):
        out.axis(1).parallelize(ParallelType.TIDx)


def test_split_scan_axis_on_blocks_is_a_schedule_error() -> None:
    _, out = _fusion(lambda x: ops.cumsum(x, 0), (64, 4))
    out.split(0, 16)
    with pytest.raises(ScheduleError, match=r"cumsum T1.*BIDx"):
        out.axis(0).parallelize(ParallelType.BIDx)


def test_rescaled_sum_on_threads_is_a_schedule_error() -> None:
    _, out = _fusion(lambda x, s: ops.rescaled_sum(x, s, 1), (4, 64), (4, 64))
    with pytest.raises(ScheduleError, match=r"rescaled_sum T2.*Serial or Unroll"):
        out.axis(1).parallelize(ParallelType.TIDx)


def test_rescaled_sum_refuses_rfactor() -> None:
    _, out = _fusion(lambda x, s: ops.rescaled_sum(x, s, 1), (4, 64), (4, 64))
    out.split(1, 8)
    with pytest.raises(ScheduleError, match=r"rfactor: T2 is a rescaled sum.*in order"):
        out.rfactor([2])


def test_binding_propagated_onto_the_scan_axis_is_a_lowering_error() -> None:
    """A consumer's TIDx reaches the scan's axis through the loop they share."""
    fusion, out = _fusion(lambda x: ops.neg(ops.cumsum(x, 1)), (4, 64))
    scan = out.definition.inputs[0]
    out.axis(1).parallelize(ParallelType.TIDx)
    scan.compute_at(out, 2)
    with pytest.raises(LoweringError, match=r"T1 \(cumsum along i\w+\{64\}\): its axis .* is bound to TIDx.*Serial "
                                            r"or Unroll"):
        lower(fusion)


def test_inner_piece_outside_the_outer_one_is_a_lowering_error() -> None:
    fusion, out = _fusion(lambda x: ops.cummax(x, 1), (4, 64))
    out.split(1, 8)
    out.reorder({1: 2})
    with pytest.raises(LoweringError, match=r"T1 \(cummax along .*\): its axis iS\d+\{8\} is a more significant piece "
                                            r".*keep the outer piece of each split left of the inner one"):
        lower(fusion)


def test_rescaled_sum_split_out_of_order_is_a_lowering_error() -> None:
    fusion, out = _fusion(lambda x, s: ops.rescaled_sum(x, s, 1), (4, 64), (4, 64))
    out.split(1, 8)
    out.reorder({1: 2})
    with pytest.raises(LoweringError, match=r"T2 \(rescaled_sum along .*\).*in order"):
        lower(fusion)


def test_scan_axis_merged_with_another_is_a_lowering_error() -> None:
    fusion, out = _fusion(lambda x: ops.cumsum(x, 1), (4, 64))
    out.merge(0, 1)
    with pytest.raises(LoweringError, match=r"T1 \(cumsum along .*\): its axis .* merges the running axis"):
        lower(fusion)


def test_symbolic_carry_is_a_lowering_error() -> None:
    fusion, _ = _fusion(lambda x: ops.cumsum(x, 0))
    with pytest.raises(LoweringError, match=r"T1: the carry of its scan spans \[iS\d+\{i1\}\].*symbolic"):
        lower(fusion)


def test_producer_inlined_into_a_shifted_pad_axis_is_a_lowering_error() -> None:
    fusion, _ = _fusion(lambda x: ops.pad(ops.exp(x), [2, 1]), (3, 5))
    inline_most(fusion)
    with pytest.raises(LoweringError, match=r"T1 is computed inside loop .* of pad T2, whose axis .* has 2 elements "
                                            r"padded before it.*element i - 2"):
        lower(fusion)
