"""Schedules the IR accepts but the lowering does not implement yet are errors, never silent fallbacks."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, ops
from lowering import LoweringError, lower


def _pointwise() -> tuple[Fusion, object]:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.add(x, 1.0)
        fusion.add_output(out)
    return fusion, out


@pytest.mark.parametrize("op_type", [LoadStoreOpType.TMAStore, LoadStoreOpType.StMatrix])
def test_store_caches_are_refused(op_type: LoadStoreOpType) -> None:
    fusion, out = _pointwise()
    out.cache_before(op_type)
    with pytest.raises(LoweringError, match=rf"T{out.name} is written by a {op_type.name} copy.*does not implement"):
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
