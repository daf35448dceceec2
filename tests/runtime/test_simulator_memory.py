"""The simulator's memory and mbarrier models: shared-memory placement and aliasing, barrier phases."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir.types import DataType, MemoryType
from lowering import kernel_ir as k
from runtime import SimulationError, simulate
from runtime.sim_mbarrier import MBarrierArray
from tests.runtime.kir_builders import BX, INT64, TX, assign, c, elect, fconst, global_1d, kernel, load, shared, sym


def mbarriers(size: int = 2, blocks: int = 1) -> MBarrierArray:
    return MBarrierArray(k.Buffer("T9", DataType.Int64, MemoryType.Shared, c(size)), blocks, size)


def test_phase_completes_after_all_arrivals_and_transactions() -> None:
    mb = mbarriers()
    keys = np.array([0])
    mb.init(keys, np.array([2]))
    assert mb.arrive(keys, np.array([256]), "arriveExpectTx").size == 0
    assert mb.arrive(keys, None, "arrive").size == 0          # arrivals done, 256 bytes outstanding
    assert mb.complete_tx(keys, 128).size == 0
    np.testing.assert_array_equal(mb.complete_tx(keys, 128), [0])
    assert mb.phase[0] == 1 and mb.pending[0] == 2           # next phase expects the init count again
    assert mb.phase[1] == 0                                   # the other barrier is untouched


def test_bytes_landing_before_expect_tx_still_complete_the_phase() -> None:
    mb = mbarriers()
    keys = np.array([1])
    mb.init(keys, np.array([1]))
    assert mb.complete_tx(keys, 512).size == 0               # tx-count -512: the copy was faster
    np.testing.assert_array_equal(mb.arrive(keys, np.array([512]), "arriveExpectTx"), [1])


def test_over_arrival_and_use_before_init_are_errors() -> None:
    mb = mbarriers()
    with pytest.raises(SimulationError, match=r"mbarrier T9\[0\] of block 0, which is not initialized"):
        mb.arrive(np.array([0]), None, "mbarrier::arrive")
    mb.init(np.array([0]), np.array([1]))
    mb.tx[0] = 64  # keeps the phase open after one arrival
    with pytest.raises(SimulationError, match="more arrivals on mbarrier T9\\[0\\] of block 0 in phase 0 than its "
                                              "arrival count 1"):
        mb.arrive(np.array([0, 0]), None, "mbarrier::arrive")
    mb.inval(np.array([1 - 1]))
    with pytest.raises(SimulationError, match="was invalidated"):
        mb.check_live(np.array([0]), "mbarrier::waitParity")


def aliasing_kernel(b_offset: int) -> k.Kernel:
    """A (128 floats at byte 0) is written, then B (placed at ``b_offset``) is written, then A is read."""
    out = global_1d("T1")
    a, b = shared("T2", 128), shared("T3", 128)
    body = [
        k.Allocate(a, c(0)), k.Allocate(b, c(b_offset)),
        assign(a, TX, fconst(1.0)),
        k.BlockSync("RAW"),
        assign(b, TX, fconst(2.0)),
        k.BlockSync("RAW"),
        assign(out, BX * 128 + TX, load(a, TX)),
    ]
    return kernel(body, [global_1d("T0")], [out], (2,), (128,), smem=1024)


def test_shared_memory_reused_while_live_reads_poison() -> None:
    (y,) = simulate(aliasing_kernel(b_offset=512), [np.zeros(256, np.float32)])
    np.testing.assert_array_equal(y, 1.0)          # disjoint bytes: A keeps its values
    (y,) = simulate(aliasing_kernel(b_offset=256), [np.zeros(256, np.float32)])
    per_block = y.reshape(2, 128)
    assert np.isnan(per_block[:, 64:]).all()       # B's first 256 bytes overwrote A's second half
    np.testing.assert_array_equal(per_block[:, :64], 1.0)


def test_mbarrier_memory_reused_while_live_is_an_error() -> None:
    out, data, mbar = global_1d("T1"), shared("T2", 128), shared("T3", 1, INT64)
    body = [
        k.Allocate(mbar, c(0)), k.Allocate(data, c(0)),
        elect([k.MBarrierInit(mbar, c(0), c(1))]),
        k.BlockSync("init"),
        assign(data, TX, fconst(1.0)),       # overwrites the barrier's 8 bytes
        k.BlockSync("RAW"),
        elect([k.MBarrierArrive(mbar, c(0))]),
        assign(out, TX, load(data, TX)),
    ]
    kern = kernel(body, [global_1d("T0")], [out], (1,), (128,), smem=512)
    with pytest.raises(SimulationError, match=r"mbarrier T3\[0\] of block 0, which was overwritten by a write to T2"):
        simulate(kern, [np.zeros(128, np.float32)])


def test_shared_memory_placement_is_checked() -> None:
    out, a = global_1d("T1"), shared("T2", 128)
    misaligned = kernel([k.Allocate(a, c(8)), assign(out, TX, fconst(0.0))], [global_1d("T0")], [out], (1,), (32,),
                        smem=1024)
    with pytest.raises(SimulationError, match="byte offset 8 is not aligned to 16 bytes"):
        simulate(misaligned, [np.zeros(32, np.float32)])
    too_big = kernel([k.Allocate(a, c(16)), assign(out, TX, fconst(0.0))], [global_1d("T0")], [out], (1,), (32,),
                     smem=512)
    with pytest.raises(SimulationError, match=r"bytes \[16, 528\) exceed the kernel's 512 bytes"):
        simulate(too_big, [np.zeros(32, np.float32)])


def test_reallocation_in_a_loop_poisons_again() -> None:
    out, tmp = global_1d("T1"), k.Buffer("T2", DataType.Float, MemoryType.Local, c(1))
    loop = k.ForLoop(sym("i3"), c(0), c(2), (
        k.Allocate(tmp),
        k.IfThenElse(sym("i3").eq(0), (assign(tmp, 0, fconst(7.0)),)),
        assign(out, TX * 2 + sym("i3"), load(tmp, 0)),
    ))
    kern = kernel([loop], [global_1d("T0")], [out], (1,), (32,))
    (y,) = simulate(kern, [np.zeros(64, np.float32)])
    np.testing.assert_array_equal(y[0::2], 7.0)
    assert np.isnan(y[1::2]).all()                 # the second iteration's fresh register was never written
