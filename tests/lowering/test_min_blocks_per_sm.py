"""Fusion.set_min_blocks_per_sm: __launch_bounds__(threads, blocks) in the CUDA, refused by name where it cannot
hold (a symbolic block size, more threads than an SM holds, a value that is not a positive int)."""

from __future__ import annotations

import pytest

from codegen import to_cuda
from fusion_ir import DataType, Fusion, ParallelType, ScheduleError, ops
from lowering import lower
from lowering.errors import LoweringError


def _pointwise(threads: int | None) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.exp(x)
        fusion.add_output(out)
    if threads is None:
        out.split(0, 4, inner_split=False)         # [4, ceilDiv(I, 4)]: a symbolic thread count
        out.axis(1).parallelize(ParallelType.TIDx)
    else:
        out.split(0, threads)
        out.axis(0).parallelize(ParallelType.BIDx)
        out.axis(1).parallelize(ParallelType.TIDx)
    return fusion


def test_launch_bounds_name_the_blocks() -> None:
    fusion = _pointwise(256)
    fusion.set_min_blocks_per_sm(4)
    assert "__launch_bounds__(256, 4)" in to_cuda(lower(fusion))
    assert "__launch_bounds__(256, 1)" in to_cuda(lower(_pointwise(256)))


@pytest.mark.parametrize("blocks", [0, -1, True, 2.0, "2"])
def test_only_positive_ints(blocks: object) -> None:
    with pytest.raises(ScheduleError, match="set_min_blocks_per_sm"):
        _pointwise(256).set_min_blocks_per_sm(blocks)  # type: ignore[arg-type]


def test_more_threads_than_an_sm_holds() -> None:
    fusion = _pointwise(1024)
    fusion.set_min_blocks_per_sm(3)
    with pytest.raises(LoweringError, match="3 blocks of 1024 threads exceed the 2048 threads"):
        lower(fusion)


def test_a_symbolic_block_size() -> None:
    fusion = _pointwise(None)
    fusion.set_min_blocks_per_sm(2)
    with pytest.raises(LoweringError, match="constant number of threads"):
        lower(fusion)
