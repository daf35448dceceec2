"""``lowering/analysis/tma.py``: an unpipelined TMA load computed inside a thread axis is issued per index there
(``TmaBox.issuers``), by a thread elected in the index's first warp, on a token barrier of the index's own, and
waited for by the index's threads only where a barrier per index is enough; each index must hold whole warps."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, ops
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from runtime import simulate

WIDTH = 256
ROWS = 7                # odd: the last block's second row is past the end


def _rows_by_tidy(threads_x: int) -> Fusion:
    """``out = a + 1`` over [R, 256]: a block per 2 rows, a row per TIDy index, its 256 columns over ``threads_x``
    threads; ``a``'s row is TMA-loaded inside the TIDy axis (each TIDy index loads its own row)."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(ROWS, WIDTH), dtype=DataType.Float)
        out = ops.add(a, 1.0)
        fusion.add_output(out)
    out.split(0, 2)                                 # [R / 2, 2, 256]
    out.split(2, threads_x)                         # [R / 2, 2, 256 / tx, tx]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDy)
    out.axis(3).parallelize(ParallelType.TIDx)
    tile = a.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 2)                         # [R / 2, 2, 256]: inside the TIDy axis
    tile.axis(2).parallelize(ParallelType.Bulk)
    return fusion


def test_each_thread_index_loads_its_own_box_on_its_own_barrier() -> None:
    fusion = _rows_by_tidy(threads_x=64)            # 2 warps per row
    kernel = lower(fusion)
    (load,) = [n for n in k.walk(kernel.body) if isinstance(n, k.TmaLoad)]
    assert load.mbar.size.const_value() == 2 and load.dst.size.const_value() == 2 * WIDTH
    elect = [n for n in k.walk(kernel.body) if isinstance(n, k.ElectSync) and load in k.walk(n.body)]
    assert len(elect) == 1 and elect[0].warp.const_value() is None   # the index's first warp, not warp 0
    a = np.random.default_rng(3).standard_normal((ROWS, WIDTH)).astype(np.float32)
    for seed in range(3):
        (out,) = simulate(kernel, [a], seed=seed)
        np.testing.assert_allclose(out, a + 1.0, rtol=1e-6)


@pytest.mark.parametrize("threads_x", [16, 48])
def test_an_index_of_part_of_a_warp_is_refused(threads_x: int) -> None:
    with pytest.raises(LoweringError, match=r"loaded by TMA per index of TIDy.*whole warps.*not a multiple of 32"):
        lower(_rows_by_tidy(threads_x))
