"""The CUDA of the wgmma matmul: the main loop's statements in order, and every matmul kernel compiles
for sm_90a with no warning, no spill and no stack frame (the accumulators stay in registers)."""

from __future__ import annotations

import re

import pytest

from codegen import to_cuda
from codegen.nvcc import compile_check, nvcc_available
from examples import matmul_wgmma
from fusion_ir import DataType
from lowering import lower

VARIANTS = {
    "128x256x64_s4_w2": {"tile": (128, 256, 64), "stages": 4, "compute_warp_groups": 2},
    "128x128x64_s5_w1": {"tile": (128, 128, 64), "stages": 5, "compute_warp_groups": 1},
    "128x128x64_s2_w2": {"tile": (128, 128, 64), "stages": 2, "compute_warp_groups": 2},
    "256x128x64_s3_w2": {"tile": (256, 128, 64), "stages": 3, "compute_warp_groups": 2},
    "64x64x32_s3_w1_half": {"tile": (64, 64, 32), "stages": 3, "compute_warp_groups": 1, "dtype": DataType.Half},
    "epilogue": {"epilogue": True},
    "bf16_out": {"out_dtype": DataType.BFloat16},
    "ws": {"warp_specialized": True},
    "ws_persistent": {"warp_specialized": True, "persistent": True},
    "ws_256x128_tma_store": {"warp_specialized": True, "tile": (256, 128, 64), "stages": 3, "tma_store": True,
                             "out_dtype": DataType.BFloat16},
    "tma_store": {"tma_store": True, "stages": 3, "out_dtype": DataType.BFloat16},
    "ws_persistent_tma_store": {"warp_specialized": True, "persistent": True, "stages": 3, "tma_store": True,
                                "out_dtype": DataType.BFloat16},
    "ping_pong": {"warp_specialized": True, "persistent": True, "ping_pong": True, "tile": (128, 128, 64),
                  "stages": 6},
    "ping_pong_64x256": {"warp_specialized": True, "persistent": True, "ping_pong": True, "tile": (64, 256, 64),
                         "stages": 5},
    "ping_pong_tma_store": {"warp_specialized": True, "persistent": True, "ping_pong": True, "tile": (128, 128, 64),
                            "stages": 4, "tma_store": True, "out_dtype": DataType.BFloat16},
    # transposed operands, read in place: a [K, M] (A M-major), b [N, K] (B K-major), and both
    "a_t": {"transpose_a": True},
    "b_t": {"transpose_b": True},
    "a_t_b_t_half": {"transpose_a": True, "transpose_b": True, "dtype": DataType.Half},
    "b_t_ws_persistent_tma_store": {"transpose_b": True, "warp_specialized": True, "persistent": True, "stages": 3,
                                    "tma_store": True, "out_dtype": DataType.BFloat16},
    "a_t_ping_pong": {"transpose_a": True, "warp_specialized": True, "persistent": True, "ping_pong": True,
                      "tile": (128, 128, 64), "stages": 6},
}

def _main_loop(source: str) -> str:
    start = source.index("// main")
    return source[start:source.index("// epilogue", start)]


def test_main_loop_statements_in_order() -> None:
    main = _main_loop(to_cuda(lower(matmul_wgmma.build())))
    _in_order(main, ["mbarrier::waitParity(", "wgmma::fence();", "wgmma::mmaM64N256K16F32Bf16<0, 1>",
                     "wgmma::commit();", "wgmma::wait<1>();", "mbarrier::arrive(", "mbarrier::waitParity(",
                     "mbarrier::arriveExpectTx(", "Hopper::cpAsyncBulkTensorTileG2S"])
    assert main.count("wgmma::mmaM64N256K16F32Bf16") == 1          # in an unrolled loop over k16 steps
    assert re.search(r"smemDescriptor\(toSmem\(&T\d+\[.*\]\), 16, 1024, 1\)", main)        # A: K-major B128
    assert re.search(r"smemDescriptor\(toSmem\(&T\d+\[.*\]\), 8192, 1024, 1\)", main)      # B: N-major B128


def test_launch_bounds_and_the_final_wait() -> None:
    source = to_cuda(lower(matmul_wgmma.build()))
    assert "__launch_bounds__(256, 1)" in source
    tail = source[source.index("// epilogue"):]
    assert "wgmma::wait<0>();" in tail


@pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_matmul_compiles_without_spills(name: str) -> None:
    resources = compile_check(to_cuda(lower(matmul_wgmma.build(**VARIANTS[name]))))
    assert not resources.spills, resources.log
    assert resources.stack_bytes == 0, resources.log
    assert resources.registers <= 255


def test_tma_store_epilogue_in_the_seeds_order() -> None:
    """Seed 000's epilogue: wait for the MMAs, convert, stmatrix, fence.proxy.async, a barrier over the
    compute warp groups, the TMA store of each box, commit, wait."""
    source = to_cuda(lower(matmul_wgmma.build(**VARIANTS["ws_256x128_tma_store"])))
    tail = source[source.index("// ComputeWarp"):]
    # the barrier is __syncthreads after the producer branch returned (a named barrier over the compute
    # warp groups when the epilogue sits inside the branch: persistent)
    _in_order(tail, ["wgmma::wait<0>();", "__float2bfloat16(", "stmatrixX4(", "fenceAsyncProxy();", "__syncthreads();",
                     "Hopper::cpAsyncBulkTensorTileS2G(", "Hopper::cpAsyncBulkCommitGroup();",
                     "Hopper::cpAsyncBulkWaitGroupRead<0>();"])


def _in_order(text: str, pieces: list[str]) -> None:
    at = 0
    for piece in pieces:
        found = text.find(piece, at)
        assert found >= 0, f"{piece!r} missing after position {at}"
        at = found + len(piece)


def test_the_ping_pong_kernel_alternates_its_warp_groups() -> None:
    """MatmulParams(ping_pong=True): the producer walks both groups' turns; each compute group waits for
    its mainloop turn, hands it on after its last wgmma, waits for its epilogue turn, stages and stores
    its own tile behind a barrier of its own warp group, and hands the epilogue turn on."""
    from examples import matmul_ping_pong

    source = to_cuda(lower(matmul_ping_pong.build()))
    kernel = source[source.index('extern "C" __global__'):]
    producer = kernel[kernel.index("// AsyncWarp"):kernel.index("} else {")]
    compute = kernel[kernel.index("} else {"):]
    _in_order(producer, [
        "for (int i",                                      # output tiles, two per turn of both groups
        "for (int w0 = 0; w0 < 2; ++w0)",                  # the turns
        "continue;",                                           # a turn past the last tile
        "for (int",                                        # cta-k
        "mbarrier::waitParity(", "mbarrier::arriveExpectTx(", "Hopper::cpAsyncBulkTensorTileG2S(",
        "return;"])
    _in_order(compute, [
        "increaseRegisters<232>();",
        "if (((int)tidY) == 0) {", "mbarrier::arrive(",          # group 0 marks the stages empty
        "if (((int)tidY) == 1) {",                                # the last group gives group 0
        "mbarrier::arrive(toSmem(&T4_order[0]));", "mbarrier::arrive(toSmem(&T4_order[2]));",  # both turns
        "= (((int)tidY) + 1) % 2;",                 # the next group's slots, computed once
        "= ((((int)tidY) + 1) % 2) + 2;",
        "for (int",                                        # this group's tiles
        "continue;",
        "mbarrier::waitParity(toSmem(&T4_order[tidY]), i4 % 2);",    # mainloop turn
        "for (int",                                        # cta-k
        "wgmma::mmaM64N128K16F32Bf16", "wgmma::commit();", "wgmma::wait<1>();",
        "mbarrier::arrive(toSmem(&T4_order[h",             # hand on the mainloop
        "wgmma::wait<0>();",
        "mbarrier::waitParity(toSmem(&T4_order[((int)tidY) + 2]), i4 % 2);",  # epilogue turn
        "stmatrixX4(", "fenceAsyncProxy();",
        "namedBarrierSync(2 + ((int)tidY), 128);",            # this warp group only
        "Hopper::cpAsyncBulkTensorTileS2G(", "Hopper::cpAsyncBulkWaitGroupRead<0>();",
        "namedBarrierSync(2 + ((int)tidY), 128);",
        "mbarrier::arrive(toSmem(&T4_order[h",             # hand on the epilogue
        "mbarrier::inval("])


def test_the_persistent_warp_specialized_kernel_follows_seed_000() -> None:
    """Seed 000's pseudo-code, statement by statement, in the generated CUDA of
    MatmulParams(warp_specialized=True, persistent=True, tma_store=True)."""
    source = to_cuda(lower(matmul_wgmma.build(**VARIANTS["ws_persistent_tma_store"])))
    kernel = source[source.index('extern "C" __global__'):]
    producer = kernel[kernel.index("// AsyncWarp"):kernel.index("} else {")]
    compute = kernel[kernel.index("} else {"):]
    _in_order(kernel, ["mbarrier::init(", "__syncthreads();", "decreaseRegisters<40>();"])
    _in_order(producer, [
        "for (int64_t",                                        # output tiles
        "continue;",                                           # past the last tile
        "if (threadIdx.x == 0 && tidY == 2) {",                # one election per tile
        "for (int64_t",                                        # cta-k
        "mbarrier::waitParity(", "mbarrier::arriveExpectTx(",  # empty stage, then expect the bytes
        "Hopper::cpAsyncBulkTensorTileG2S(",                   # A
        "Hopper::cpAsyncBulkTensorTileG2S(",                   # B
        "return;"])
    _in_order(compute, [
        "increaseRegisters<232>();",
        "mbarrier::arrive(",                                   # every stage starts empty
        "for (int64_t",                                        # output tiles
        "for (int64_t",                                        # cta-k
        "mbarrier::waitParity(",                               # full stage
        "wgmma::fence();", "wgmma::mmaM64N256K16F32Bf16", "wgmma::commit();", "wgmma::wait<1>();",
        "mbarrier::arrive(",                                   # the previous stage is empty
        "wgmma::wait<0>();",                                   # all MMAs of the tile
        "__float2bfloat16(", "stmatrixX4(",                    # convert, registers -> shared
        "fenceAsyncProxy();", "namedBarrierSync(",             # visible to the TMA store
        "Hopper::cpAsyncBulkTensorTileS2G(", "Hopper::cpAsyncBulkCommitGroup();",
        "Hopper::cpAsyncBulkWaitGroupRead<0>();",
        "namedBarrierSync(",                                   # the tile may be written again
        "mbarrier::inval("])
