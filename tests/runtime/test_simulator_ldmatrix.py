"""runtime.simulate executes ldmatrix (a warp's 8 x 8 matrices from shared memory to registers) as the PTX
description says, the mirror of stmatrix: lane 8 m + r gives row r of matrix m, and register m of lane l receives
row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1. Broken addresses and registers must fail."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fusion_ir.reference import round_bf16
from fusion_ir.scalar import Val
from fusion_ir.types import DataType
from lowering import kernel_ir as k
from runtime import SimulationError, simulate
from tests.runtime.kir_builders import (
    BX,
    TX,
    assign,
    c,
    for_,
    global_1d,
    if_,
    insert_after,
    kernel,
    load,
    local,
    shared,
    sym,
)

BF16, F16 = DataType.BFloat16, DataType.Half
LANE = TX % 32


def ldmatrix_reference(tile: np.ndarray, addr: np.ndarray, count: int) -> np.ndarray:
    """Each lane's ``2 count`` registers after one warp's ``ldmatrix.x{count}`` from ``tile``, straight from the
    PTX description: ``addr`` [32] the lanes' row addresses; returns [32 lanes, 2 count]."""
    regs = np.empty((32, 2 * count), tile.dtype)
    for lane in range(32):
        r, q = divmod(lane, 4)
        for m in range(count):
            row = addr[8 * m + r]
            regs[lane, 2 * m:2 * m + 2] = tile[row + 2 * q:row + 2 * q + 2]
    return regs


def small_kernel(count: int, dtype: DataType = BF16, address: Val | None = None, blocks: int = 2) -> k.Kernel:
    """One warp per block: every lane copies T0[block] into a shared T1, one ldmatrix reads rows at ``address``
    (default: a permutation of the rows, 8 elements apart) into the lane's registers T3, and lane l writes its
    registers to T2[block][l][:]."""
    regs, size = 2 * count, 64 * count
    x, y = global_1d("T0", dtype=dtype), global_1d("T2", dtype=dtype)
    tile, frag = shared("T1", size, dtype), local("T3", regs, dtype)
    if address is None:
        address = (LANE * 5 + 3) % (8 * count) * 8
    e = sym("e")
    body: list[k.Node] = [
        k.Allocate(tile), k.Allocate(frag),
        for_("e", 0, 2 * count, [assign(tile, e * 32 + TX, load(x, BX * size + e * 32 + TX))], unroll=True),
        k.BlockSync("RAW: the tile is written"),
        k.LdMatrix(frag, c(0), tile, address, count),
        for_("e", 0, regs, [assign(y, (BX * 32 + TX) * regs + e, load(frag, e))], unroll=True),
    ]
    return kernel(body, [x], [y], (blocks,), (32,))


def small_inputs(count: int, blocks: int = 2, dtype: DataType = BF16) -> np.ndarray:
    x = np.random.default_rng(count).standard_normal(blocks * 64 * count).astype(np.float32)
    return x.astype(np.float16) if dtype is F16 else round_bf16(x)


@pytest.mark.parametrize("dtype", [BF16, F16])
@pytest.mark.parametrize("count", [1, 2, 4])
def test_ldmatrix_matches_the_ptx_description(count: int, dtype: DataType) -> None:
    x = small_inputs(count, dtype=dtype)
    (y,) = simulate(small_kernel(count, dtype), [x])
    addr = (np.arange(32) * 5 + 3) % (8 * count) * 8
    for b in range(2):
        tile = x.reshape(2, -1)[b].astype(np.float32)
        np.testing.assert_array_equal(y.reshape(2, 32, 2 * count)[b].astype(np.float32),
                                      ldmatrix_reference(tile, addr, count))


def test_ldmatrix_reads_what_stmatrix_wrote() -> None:
    """ldmatrix, stmatrix of those registers at the same row addresses, and ldmatrix again: the tile and every
    lane's registers come back as they were."""
    count = 4
    base = small_kernel(count)
    ld = next(n for n in k.walk(base.body) if isinstance(n, k.LdMatrix))
    frag2 = local("T4", 2 * count, BF16)
    kern = insert_after(base, k.BlockSync, [
        k.Allocate(frag2), k.LdMatrix(frag2, c(0), ld.src, ld.src_index, count),
        k.BlockSync("WAR: the tile is rewritten"), k.StMatrix(ld.src, ld.src_index, frag2, c(0), count),
        k.BlockSync("RAW: the tile is rewritten")], where=lambda n: n.reason == "RAW: the tile is written")
    x = small_inputs(count)
    np.testing.assert_array_equal(simulate(kern, [x])[0], simulate(base, [x])[0])


@pytest.mark.parametrize(("change", "match"), [
    (lambda n: replace(n, count=3), r"3 matrices; ldmatrix loads 1, 2 or 4"),
    (lambda n: replace(n, src_index=n.src_index + 4), r"not 16-byte aligned"),
    (lambda n: replace(n, src_index=n.src_index + 8 * 32), r"out-of-bounds access T1\[.*ldmatrix"),
    (lambda n: replace(n, dst_index=c(1)), r"registers T3\[1:9\] \(8 elements for x4\) are out of bounds"),
])
def test_ldmatrix_errors(change: object, match: str) -> None:
    kern = small_kernel(4)
    broken = replace(kern, body=k.rewrite(kern.body, lambda n: change(n) if isinstance(n, k.LdMatrix) else None))
    with pytest.raises(SimulationError, match=match):
        simulate(broken, [small_inputs(4)])


def test_ldmatrix_by_part_of_a_warp_is_an_error_naming_ldmatrix() -> None:
    kern = small_kernel(2)
    broken = replace(kern, body=k.rewrite(kern.body, lambda n: (if_(LANE.lt(c(16)), [n]),)
                                          if isinstance(n, k.LdMatrix) else None))
    with pytest.raises(SimulationError, match=r"only 16 of the 32 threads of warp 0 of block \(0, 0, 0\) execute it; "
                                              r"ldmatrix.sync.aligned"):
        simulate(broken, [small_inputs(2)])
