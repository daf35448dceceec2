"""``ops.cummax``, ``ops.cumsum``, ``ops.rescaled_sum`` and ``ops.pad`` in the fusion IR: shapes, printing, the
numpy reference, and the errors that name the tensor and the rule."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.op_pad import pad_to_multiple
from fusion_ir.reference import evaluate


def _fusion(build, *shapes, dtype=DataType.Float):
    fusion = Fusion()
    with fusion:
        ins = [fusion.add_input(shape=s, dtype=dtype) for s in shapes]
        for out in build(*ins):
            fusion.add_output(out)
    return fusion


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_scans_match_numpy(axis: int, exclusive: bool) -> None:
    fusion = _fusion(lambda x: [ops.cummax(x, axis, exclusive), ops.cumsum(x, axis, exclusive)], (4, 7))
    x = np.random.default_rng(axis + 3).standard_normal((4, 7))
    mx, sm = evaluate(fusion, [x])
    want_max, want_sum = np.maximum.accumulate(x, axis=axis), np.cumsum(x, axis=axis)
    if exclusive:
        shift = [(0, 0), (0, 0)]
        shift[axis % 2] = (1, 0)
        cut = [slice(None)] * 2
        cut[axis % 2] = slice(0, -1)
        want_max = np.pad(want_max[tuple(cut)], shift, constant_values=-np.inf)
        want_sum = np.pad(want_sum[tuple(cut)], shift)
    assert mx.shape == sm.shape == (4, 7)
    np.testing.assert_allclose(mx, want_max)
    np.testing.assert_allclose(sm, want_sum)


def test_rescaled_sum_is_the_online_recurrence() -> None:
    fusion = _fusion(lambda x, s: [ops.rescaled_sum(x, s, 1)], (3, 6), (3, 6))
    rng = np.random.default_rng(1)
    x, s = rng.standard_normal((3, 6)), rng.random((3, 6))
    (out,) = evaluate(fusion, [x, s])
    want = sum(x[:, j] * np.prod(s[:, j + 1:], axis=1) for j in range(6))
    np.testing.assert_allclose(out, want)
    assert fusion.outputs[0].root[1].is_reduction and len(fusion.outputs[0].shape_ids) == 1


def test_rescaled_sum_with_a_broadcast_scale_is_the_softmax_accumulator() -> None:
    """``o = rescaled_sum(p_j @ v_j, exp(m_{j-1} - m_j))``: the scale of a row broadcast over the head dim."""
    def build(x, s):
        return [ops.rescaled_sum(x, ops.broadcast(s, [False, False, True]), 0)]
    fusion = _fusion(build, (5, 3, 4), (5, 3))
    rng = np.random.default_rng(2)
    x, s = rng.standard_normal((5, 3, 4)), rng.random((5, 3))
    (out,) = evaluate(fusion, [x, s])
    acc = np.zeros((3, 4))
    for j in range(5):
        acc = acc * s[j][:, None] + x[j]
    np.testing.assert_allclose(out, acc)


def test_pad_matches_torch_widths() -> None:
    fusion = _fusion(lambda x: [ops.pad(x, [1, 2, 0, 3], value=-1.5)], (2, 5))
    x = np.random.default_rng(3).standard_normal((2, 5))
    (out,) = evaluate(fusion, [x])
    np.testing.assert_allclose(out, np.pad(x, [(0, 3), (1, 2)], constant_values=-1.5))
    assert [i.extent.const_value() for i in fusion.outputs[0].shape_ids] == [5, 8]


def test_pad_to_a_multiple_splits_by_reshape_for_symbolic_extents() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        p = pad_to_multiple(x, 1, 64, value=0.0)
        fusion.add_output(ops.reshape(p, [x.size(0), -1, 64]))
    assert "ceilDiv" in str(fusion.outputs[0].shape_ids[1].extent)
    x = np.random.default_rng(4).standard_normal((3, 100))
    (out,) = evaluate(fusion, [x])
    assert out.shape == (3, 2, 64)
    np.testing.assert_allclose(out.reshape(3, 128)[:, :100], x)
    assert not out.reshape(3, 128)[:, 100:].any()


def test_printing_names_each_op() -> None:
    fusion = _fusion(lambda x, s: [ops.cummax(x, 1, exclusive=True), ops.rescaled_sum(x, s, 0), ops.pad(x, [0, 1])],
                     (3, 4), (3, 4))
    text = str(fusion)
    assert "scan( T0_g_float[iS0{3}, iS1{4}], op = max, axis = 1, exclusive, initial value = -inf )" in text
    assert "rescaled_sum(T0_g_float" in text and "scale = T1_g_float" in text
    assert "pad( T0_g_float[iS0{3}, iS1{4}], widths = {{0, 0}, {0, 1}}" in text


@pytest.mark.parametrize("build, message", [
    (lambda x, s: ops.cummax(x, 2), "cummax: axis 2 is not an axis of T0 of rank 2"),
    (lambda x, s: ops.cumsum(x, 0, exclusive=1), "cumsum: exclusive 1 must be a bool"),
    (lambda x, s: ops.rescaled_sum(x, ops.sum(s, 1), 1), "rescaled_sum: scale T2 has rank 1 and x T0 rank 2"),
    (lambda x, s: ops.rescaled_sum(x, ops.broadcast(ops.sum(s, 1), [False, True]), 1),
     "axis 1 of scale T3 is a broadcast axis"),
    (lambda x, s: ops.rescaled_sum(ops.cast(x, DataType.Int32), s, 1), "it sums floats"),
    (lambda x, s: ops.pad(x, [1]), "pad: pad_widths has 1 entries; give an even number"),
    (lambda x, s: ops.pad(x, [1, -2]), "pad: pad_widths.1. -2 must be a non-negative int"),
    (lambda x, s: ops.pad(x, [0, 1, 0, 1, 0, 1]), "at most 4"),
])
def test_errors_name_the_tensor_and_the_rule(build, message: str) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(3, 4), dtype=DataType.Float)
        s = fusion.add_input(shape=(3, 4), dtype=DataType.Float)
        with pytest.raises(ScheduleError, match=message.replace("(", r"\(").replace(")", r"\)")):
            build(x, s)
