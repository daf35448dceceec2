"""``TensorView.set_allocation_domain``: a Shared buffer laid out over given axes (here the ``[8, 64]`` rows of a
block's tile) while its loop runs over them merged and split onto the threads; the buffers analysis sizes it by
those axes, the indexing writes and reads it through them, and a domain that does not cover the loop axes is a
``LoweringError``."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, MemoryType, ParallelType, SmemSwizzle, ops
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from runtime import simulate


def _fusion(whole: bool = True, swizzle: bool = False) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(32, 64), dtype=DataType.Half)
        fusion.add_output(ops.add(ops.cast(x, DataType.Float), 1.0))
    out = fusion.outputs[0]
    out.split(0, 8)                                  # [4, 8, 64]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)       # each thread reads a column of the block's rows
    tile = x.cache_after()
    tile.set_memory_type(MemoryType.Shared)
    tile.compute_at(out, 1)                          # [4, 8, 64]
    tile.set_allocation_domain(tile.loop[1:] if whole else tile.loop[2:])
    if swizzle:
        tile.set_swizzle(SmemSwizzle.B128)           # rows of 64 halves: one 128-byte swizzle row
    tile.merge(1, 2)                                 # [4, 512]
    tile.split(1, 64)                                # [4, 8, 64]: consecutive threads write a row
    tile.axis(2).parallelize(ParallelType.TIDx)
    return fusion


@pytest.mark.parametrize("swizzle", [False, True])
def test_a_tile_laid_out_by_its_allocation_domain_matches_numpy(swizzle: bool) -> None:
    fusion = _fusion(swizzle=swizzle)
    kernel = lower(fusion)
    x = np.arange(32 * 64, dtype=np.float32).reshape(32, 64) % 251
    (out,) = simulate(kernel, [x.astype(np.float16)])
    np.testing.assert_array_equal(out, x + 1.0)
    (tile,) = [n.buffer for n in k.walk(kernel.body) if isinstance(n, k.Allocate) and n.buffer.memory is MemoryType.Shared]
    assert tile.size.const_value() == 8 * 64
    assert tile.swizzle is (SmemSwizzle.B128 if swizzle else SmemSwizzle.NONE)


def test_an_allocation_domain_that_does_not_cover_the_loop_is_refused() -> None:
    with pytest.raises(LoweringError, match=r"its allocation domain \[.*\] holds 64 elements but its loop axes right "
                                            r"of the compute-at position \[.*\] cover 512"):
        lower(_fusion(whole=False))
