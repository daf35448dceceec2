"""set_swizzle / cache_after(TMA, swizzle=): only TMA loads, box rows of exactly the span, undone on error."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, ScheduleError, SmemSwizzle, ops


def _tma_tile(cols: int = 32, dtype: DataType = DataType.Float, swizzle: SmemSwizzle = SmemSwizzle.NONE):
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=dtype)
        out = ops.add(x, 1.0)
        fusion.add_output(out)
    out.split(1, cols)
    tile = x.cache_after(LoadStoreOpType.TMA, swizzle=swizzle)
    tile.compute_at(out, 2)
    return fusion, x, tile, out


def test_cache_after_sets_the_swizzle_and_the_transforms_show_it() -> None:
    _, _, tile, _ = _tma_tile(swizzle=SmemSwizzle.B128)
    assert tile.swizzle is SmemSwizzle.B128
    assert "swizzle: B128" in tile.transforms_string()


def test_swizzle_patterns_repeat_at_eight_times_the_span() -> None:
    assert [s.alignment for s in (SmemSwizzle.B32, SmemSwizzle.B64, SmemSwizzle.B128)] == [256, 512, 1024]
    assert SmemSwizzle.NONE.alignment == 0


def test_only_a_tma_load_is_swizzled() -> None:
    fusion, x, tile, out = _tma_tile()
    before = fusion.state_fingerprint()
    with pytest.raises(ScheduleError, match=rf"T{out.name}.*not loaded by TMA"):
        out.set_swizzle(SmemSwizzle.B64)
    assert fusion.state_fingerprint() == before


def test_a_box_row_over_the_span_is_refused_when_parallelized() -> None:
    fusion, _, tile, _ = _tma_tile(cols=64, swizzle=SmemSwizzle.B128)     # 64 floats = 256 B
    before = fusion.state_fingerprint()
    with pytest.raises(ScheduleError, match=rf"T{tile.name}.*256 bytes, but a row of .* exactly 128 bytes.* by 32"):
        tile.axis(2).parallelize(ParallelType.Bulk)
    assert fusion.state_fingerprint() == before
    assert tile.axis(2).parallel_type is ParallelType.Serial


def test_a_box_row_over_the_span_is_refused_when_swizzled() -> None:
    fusion, _, tile, _ = _tma_tile(cols=32)                                 # 32 floats = 128 B
    tile.axis(2).parallelize(ParallelType.Bulk)
    tile.set_swizzle(SmemSwizzle.B128)
    tile.set_swizzle(SmemSwizzle.NONE)
    before = fusion.state_fingerprint()
    with pytest.raises(ScheduleError, match=rf"T{tile.name}: set_swizzle: Bulk axis 2 .* exactly 64 bytes"):
        tile.set_swizzle(SmemSwizzle.B64)
    assert fusion.state_fingerprint() == before
    assert tile.swizzle is SmemSwizzle.NONE


def test_a_row_shorter_than_the_span_is_refused_too() -> None:
    # measured on an H100: a 64-byte row under a 128-byte swizzle overruns its buffer (TMA pads rows to the span)
    fusion, _, tile, _ = _tma_tile(cols=16, swizzle=SmemSwizzle.B128)
    with pytest.raises(ScheduleError, match=rf"T{tile.name}.*64 bytes, but a row of .* exactly 128 bytes"):
        tile.axis(2).parallelize(ParallelType.Bulk)


def test_a_half_box_row_of_64_fits_128_bytes() -> None:
    _, _, tile, _ = _tma_tile(cols=64, dtype=DataType.Half, swizzle=SmemSwizzle.B128)
    tile.axis(2).parallelize(ParallelType.Bulk)
    assert tile.axis(2).parallel_type is ParallelType.Bulk


def test_not_a_swizzle_mode() -> None:
    _, _, tile, _ = _tma_tile()
    with pytest.raises(ScheduleError, match="is not an SmemSwizzle"):
        tile.set_swizzle(128)
