"""fusion_ir/circular_buffer.py: circular-buffer options, ``stages="auto"`` and how its prefetch resolves."""

from __future__ import annotations

import pytest

from fusion_ir import CircularBufferOptions, DataType, Fusion, LoadStoreOpType, Pipelined, ScheduleError, ops


def tma_tile():
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        fusion.add_output(ops.add(x, 1.0))
    return x.cache_after(LoadStoreOpType.TMA)


def test_auto_keeps_the_prefetch_as_given() -> None:
    tile = tma_tile().circular_buffer("auto")
    opts = tile.circular_buffer_options
    assert opts.is_auto and (opts.stages, opts.prefetch) == ("auto", -1)
    assert str(opts) == "CircularBufferOptions{ stage=auto, prefetch=-1, type=Pipelined }"


@pytest.mark.parametrize("prefetch,least,at_5", [(-1, 2, 4), (-3, 3, 2), (0, 2, 0), (4, 5, 4), (1, 2, 1)])
def test_a_negative_prefetch_counts_back_from_the_depth(prefetch: int, least: int, at_5: int) -> None:
    opts = CircularBufferOptions("auto", prefetch, Pipelined())
    assert opts.min_stages == least
    resolved = opts.resolved(5)
    assert (resolved.stages, resolved.prefetch, resolved.is_auto) == (5, at_5, False)


def test_a_number_of_stages_is_not_auto() -> None:
    opts = tma_tile().circular_buffer(4, -1).circular_buffer_options
    assert not opts.is_auto and (opts.stages, opts.prefetch) == (4, 3)


@pytest.mark.parametrize("stages,prefetch,match", [
    ("Auto", -1, r"stages must be an integer >= 2, got 'Auto' \(or \"auto\""),
    ("auto", 1.5, r"prefetch 1.5 must be an integer \(with stages=\"auto\""),
    ("auto", True, r"prefetch True must be an integer"),
])
def test_bad_auto_arguments_are_refused(stages, prefetch, match: str) -> None:
    tile = tma_tile()
    with pytest.raises(ScheduleError, match=match):
        tile.circular_buffer(stages, prefetch)
    assert tile.circular_buffer_options is None
