"""Schedules the IR accepts but the lowering cannot implement are errors that say why, never silent fallbacks."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, inline_most, ops
from lowering import LoweringError, lower


def _pointwise() -> tuple[Fusion, object]:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.add(x, 1.0)
        fusion.add_output(out)
    return fusion, out


def test_a_tma_store_without_a_box_is_refused() -> None:
    fusion, out = _pointwise()
    out.cache_before(LoadStoreOpType.TMAStore)
    with pytest.raises(LoweringError, match=rf"T{out.name}: the TMA store box row is 4 bytes; it must be a multiple"):
        lower(fusion)


def test_stmatrix_into_global_memory_is_refused() -> None:
    fusion, out = _pointwise()
    out.cache_before(LoadStoreOpType.StMatrix)
    with pytest.raises(LoweringError, match=rf"T{out.name} is written by stmatrix, which stores to shared memory"):
        lower(fusion)


def test_stmatrix_of_anything_but_a_wgmma_fragment_is_refused() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        out = ops.set(x)
        fusion.add_output(out)
    out.split(0, 8).split(2, 64)
    tile = out.cache_before(LoadStoreOpType.TMAStore)
    tile.cache_before(LoadStoreOpType.StMatrix)
    inline_most(fusion)
    with pytest.raises(LoweringError, match=rf"T{tile.name}: stmatrix stores the fragment of one wgmma accumulator"):
        lower(fusion)


def test_misplaced_mma_axes_are_refused() -> None:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.Half)
        b = fusion.add_input(ndim=2, dtype=DataType.Half)
        c = ops.matmul(a, b)
        fusion.add_output(c)
    c.axis(0).parallelize(ParallelType.Mma)
    with pytest.raises(LoweringError, match=rf"T{c.name}: the Mma axes must be its three innermost loop axes"):
        lower(fusion)
