"""The CUDA of a warp-specialized persistent kernel has seed 000's shape, statement by statement."""

from __future__ import annotations

import pytest

import examples
from codegen import to_cuda
from codegen.nvcc import compile_check, nvcc_available
from lowering import lower
from tests.codegen.test_cuda import assert_in_order, body_of


def _source() -> str:
    return to_cuda(lower(examples.load("ws_persistent_row_sum").build(registers=(40, 232))))


def test_persistent_row_sum_follows_the_seed() -> None:
    assert_in_order(
        _source(),
        "__launch_bounds__(256, 1)",
        "mbarrier::init(toSmem(&T2_mbar[s0]), 1);", "mbarrier::init(toSmem(&T2_mbar[s0 + 4]), 128);",
        "__syncthreads();",
        # producer warp group
        "if (((int64_t)threadIdx.y) >= (((int64_t)blockDim.y) - 1)) {",
        "decreaseRegisters<40>();",
        "const int64_t h0 = ceilDiv(i1, 128);",                          # k tiles, divided once
        "for (int64_t i2 = 0; i2 < ceilDiv(i0, 3); ++i2) {",            # the tile loop
        "continue;",                                                     # tiles past the end
        "if (threadIdx.x == 0 && threadIdx.y == 1) {",                   # first producer warp elects, once a tile
        "const int64_t h1 = i2 * h0;",                                   # the tile's first pipeline iteration
        "for (int64_t i4 = 0; i4 < h0; ++i4) {",                         # the k loop
        "mbarrier::waitParity(toSmem(&T2_mbar[((h1 + i4) % 4) + 4])",    # wait empty
        "mbarrier::arriveExpectTx(toSmem(&T2_mbar[(h1 + i4) % 4]), 512);",
        "Hopper::cpAsyncBulkTensorTileG2S(",
        "return;",
        # compute warp group
        "} else {",
        "increaseRegisters<232>();",
        "mbarrier::arrive(toSmem(&T2_mbar[s0 + 4]));",                   # every stage starts empty
        "const int64_t h2 = ceilDiv(i1, 128);",
        "for (int64_t i2 = 0; i2 < ceilDiv(i0, 3); ++i2) {",
        "continue;",
        "const int64_t h3 = i2 * h2;",
        "for (int64_t i4 = 0; i4 < h2; ++i4) {",
        "mbarrier::waitParity(toSmem(&T2_mbar[(h3 + i4) % 4])",           # wait full
        "T1_acc[0] = T1_acc[0] + T2[",                                    # compute
        "mbarrier::arrive(toSmem(&T2_mbar[((h3 + i4) % 4) + 4]));",       # release
        "blockAllReduce<true, false, false, 128, 2, 1>(", ", 1, 128);",  # named barrier of the compute branch
        "T1.data[",                                                      # the store, after the k loop
        "mbarrier::inval(",
    )


def test_no_block_wide_barrier_inside_the_branches() -> None:
    body = body_of(_source())
    inside = body[body.index("decreaseRegisters"):body.rindex("__syncthreads();  // every wait on T2_mbar")]
    assert "__syncthreads" not in inside


@pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")
@pytest.mark.parametrize("name", ["ws_seed_copy", "ws_tma_pointwise", "ws_row_reduction", "ws_persistent_row_sum"])
def test_register_sharing_is_honoured_by_ptxas(name: str) -> None:
    build = examples.load(name).build
    kernel = lower(build(registers=(40, 232)) if name != "ws_row_reduction" else build())
    resources = compile_check(to_cuda(kernel))      # fails on any ptxas warning, "setmaxnreg ignored" included
    assert resources.spill_store_bytes == 0
