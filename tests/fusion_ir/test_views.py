"""``fusion_ir.views``: a chain of pads, reshapes and permutes of a fusion input as an index map of that input."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import Fusion, LoadStoreOpType, ops
from fusion_ir.op_pad import pad, pad_to_multiple
from fusion_ir.reference import evaluate
from fusion_ir.scalar import Val
from fusion_ir.views import seen_through, tma_refusal, view_chain


def _blocked(shape: tuple[int, ...] = (2, 3, 37, 8), value: float = 0.0) -> Fusion:
    fusion = Fusion()
    with fusion:
        k = fusion.add_input(shape=shape)
        padded = pad_to_multiple(k, 2, 32, value)
        split = ops.reshape(padded, [shape[0], shape[1], -1, 32, shape[3]])
        fusion.add_output(ops.permute(split, [2, 0, 1, 3, 4]))
    return fusion


def _element(chain, idx: tuple[int, ...], x: np.ndarray) -> float:
    """The end's element at ``idx`` through the chain's map, evaluated."""
    at = {i: Val.const(v) for i, v in zip(chain.end.logical, idx)}
    src = chain.source_indices(at)
    fills = chain.fills(at)
    for cond, fill in fills:
        if not cond.const_value():
            return fill
    return float(x[tuple(int(src[d].const_value()) for d in chain.source.logical)])


def test_the_map_of_blocked_keys_is_the_reference_element_for_element() -> None:
    fusion = _blocked()
    (end,) = fusion.outputs
    chain = view_chain(end)
    assert chain is not None and chain.source is fusion.inputs[0]
    assert [type(e).__name__ for e in chain.exprs] == ["PadOp", "ViewOp", "LoadStoreOp"]
    x = np.random.default_rng(0).standard_normal((2, 3, 37, 8)).astype(np.float32)
    (expected,) = evaluate(fusion, [x])
    for idx in [(0, 0, 0, 0, 0), (1, 1, 2, 4, 7), (1, 0, 1, 4, 3), (1, 1, 2, 5, 0), (1, 1, 2, 31, 7)]:
        assert _element(chain, idx, x) == expected[idx]


def test_a_pad_before_shifts_the_index_and_the_outermost_pad_decides_the_value() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(5,))
        fusion.add_output(pad(pad(x, [2, 1], value=7.0), [1, 0], value=-1.0))     # [-1, 7, 7, x0..x4, 7]
    (end,) = fusion.outputs
    chain = view_chain(end)
    data = np.arange(5, dtype=np.float32)
    (expected,) = evaluate(fusion, [data])
    assert [_element(chain, (i,), data) for i in range(9)] == list(expected)
    assert tma_refusal(chain).startswith("T1 pads with 7.0")


def test_tma_refusal_names_the_pad_and_its_rule() -> None:
    (end,) = _blocked(value=-1.0).outputs
    assert tma_refusal(view_chain(end)).startswith("T1 pads with -1.0")
    (end,) = _blocked().outputs
    assert tma_refusal(view_chain(end)) is None


def test_a_span_through_a_split_and_a_permute_is_a_range_of_the_key_dimension() -> None:
    (end,) = _blocked().outputs
    chain = view_chain(end)
    k = chain.source
    assert chain.span(end.logical[3], 32) == [(k.logical[2], 32)]
    assert chain.span(end.logical[3], 16) == [(k.logical[2], 16)]
    assert chain.span(end.logical[4], 8) == [(k.logical[3], 8)]
    assert "outer part of a split" in chain.span(end.logical[0], 2)
    assert "must divide" in chain.span(end.logical[3], 24)


def test_only_a_chain_of_views_of_an_input_is_a_view_chain() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 8))
        computed = ops.reshape(ops.neg(x), [2, 32, 8])
        fusion.add_output(ops.mul(computed, 2.0))
    assert view_chain(computed) is None
    assert view_chain(x) is None


@pytest.mark.parametrize("kind", [LoadStoreOpType.TMA, LoadStoreOpType.CpAsync])
def test_views_read_only_by_loads_are_seen_through(kind: LoadStoreOpType) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 8))
        view = ops.reshape(x, [2, 32, 8])
        out = ops.mul(view, 2.0)
        fusion.add_output(out)
    used = fusion.used_tensors()
    assert seen_through(used, lambda t: t.consumers()) == {}          # read by the product: computed
    view.cache_after(kind)
    used = fusion.used_tensors()
    assert list(seen_through(used, lambda t: t.consumers())) == [view]
