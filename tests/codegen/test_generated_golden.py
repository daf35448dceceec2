"""The generated CUDA of every example and every pipeline case, held as golden kernel functions.

Any change to generated code shows here as a diff of ``tests/codegen/golden/generated/*.cu``.
Set UPDATE_GOLDEN=1 to rewrite them on purpose, and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import examples
from codegen import to_cuda
from fusion_ir import DataType, LoadStoreOpType
from lowering import lower
from tests.lowering.pipeline_cases import pipeline_cases
from tests.lowering.scan_cases import case as scan_case
from tests.lowering.view_load_cases import keys_2d, keys_attention

GOLDEN = Path(__file__).parent / "golden" / "generated"

BUILDERS = {f"example_{name}": (lambda name=name: examples.load(name).build()) for name in examples.scheduled_names()}
# an example of examples.UNSCHEDULED (none today) lowers to a one-thread kernel, not the CUDA the product is to generate
BUILDERS.update({f"pipeline_{name}": build for name, build, _ in pipeline_cases()})
BUILDERS["example_matmul_wgmma_epilogue"] = lambda: examples.load("matmul_wgmma").build(epilogue=True)
BUILDERS["example_matmul_wgmma_128x128_w1"] = lambda: examples.load("matmul_wgmma").build(
    tile=(128, 128, 64), stages=5, compute_warp_groups=1)
BUILDERS["example_matmul_wgmma_ws_persistent_tma_store"] = lambda: examples.load("matmul_wgmma").build(
    stages=3, warp_specialized=True, persistent=True, tma_store=True, out_dtype=DataType.BFloat16)
BUILDERS["example_matmul_wgmma_batched_ws_persistent"] = lambda: examples.load("matmul_wgmma").build(  # [B, M, K] @ [B, N, K]^T
    tile=(128, 128, 64), stages=3, compute_warp_groups=1, batch=True, transpose_b=True, warp_specialized=True,
    persistent=True, tma_store=True, out_dtype=DataType.BFloat16)
BUILDERS["example_matmul_wgmma_transposed"] = lambda: examples.load("matmul_wgmma").build(   # a [K, M], b [N, K]
    tile=(128, 128, 64), stages=3, compute_warp_groups=1, transpose_a=True, transpose_b=True)
# K = 100 (rows of 200 bytes): A by 8-byte cp.async, B by TMA; K = 263 with b [N, K]: both by plain copies
BUILDERS["example_matmul_wgmma_cp_async_k100"] = lambda: examples.load("matmul_wgmma").build(
    tile=(128, 128, 64), stages=3, compute_warp_groups=2, shape=(200, 264, 100))
BUILDERS["example_matmul_wgmma_plain_copies_k263"] = lambda: examples.load("matmul_wgmma").build(
    tile=(128, 128, 64), stages=3, compute_warp_groups=2, shape=(200, 264, 263), transpose_b=True)
# a block per tile on a 1-D grid in grouped order: 3 row tiles down a column of B before the next column
BUILDERS["example_matmul_wgmma_grouped_grid"] = lambda: examples.load("matmul_wgmma").build(
    tile=(128, 256, 64), stages=4, compute_warp_groups=2, warp_specialized=True, shape=(768, 1024, 512),
    grouped_grid=True, group_m=3)
# a block per tile in clusters of 2 x 2: A multicast to the cluster row (BIDx), B to the cluster column (BIDy),
# each mask shifted by the block's rank, and every release sent to the two peers that write this block's stages
# swapped operands: the wgmma's rows along N (b's tile the instruction's A), 208 rows of M its N, the tile staged in
# C's layout by stmatrix.trans in sub-tiles of 16 rows, each a box per 64-column chunk, A multicast along N
BUILDERS["example_matmul_wgmma_swapped"] = lambda: examples.load("matmul_wgmma").build(
    tile=(208, 128, 64), stages=3, compute_warp_groups=2, warp_specialized=True, persistent=True, blocks=4,
    tma_store=True, out_dtype=DataType.BFloat16, swap_ab=True, epilogue_tile=(16, 128), cluster=(1, 2))
BUILDERS["example_matmul_wgmma_cluster_2x2"] = lambda: examples.load("matmul_wgmma").build(
    tile=(128, 128, 64), stages=4, compute_warp_groups=2, warp_specialized=True, tma_store=True,
    out_dtype=DataType.BFloat16, cluster=(2, 2))

# the transpose scheduler at a size whose rows take 16-byte vectors: each thread reads a float4 into the tile
BUILDERS["example_matmul_epilogue_bias_gelu_sub_tiled"] = lambda: examples.load("matmul_epilogue").build(   # 128 x 32
    "bias_gelu", epilogue_tile=(128, 32))
# the persistent 256 x 128 tile's ring of 256 x 32 staging tiles carried across tiles: the last read wait after the
# tile loop (store_wait="carried")
BUILDERS["example_matmul_epilogue_bias_gelu_carried"] = lambda: examples.load("matmul_epilogue").build(
    "bias_gelu", tile=(256, 128, 64), epilogue_tile=(256, 32), store_wait="carried", index_type=DataType.Int64)
BUILDERS["example_matmul_epilogue_alpha_beta_sub_tiled"] = lambda: examples.load("matmul_epilogue").build(
    "alpha_beta", epilogue_tile=(128, 64), persistent=False)
# ping-pong with C: each compute warp group TMA-loads the C tile of its own turn (its own part and token mbarrier)
BUILDERS["example_matmul_epilogue_alpha_beta_ping_pong"] = lambda: examples.load("matmul_epilogue").build(
    "alpha_beta", ping_pong=True, tile=(128, 128, 64), stages=4)
# epilogue inputs loaded by the producer warp group: a circular buffer of C's sub-tiles after the mainloop's first
# loads (a tile per block), and of the bias's per sub-tile and warp group's turn (ping-pong)
BUILDERS["example_matmul_epilogue_alpha_beta_producer_loads"] = lambda: examples.load("matmul_epilogue").build(
    "alpha_beta", epilogue_tile=(128, 64), persistent=False, epilogue_loads="producer")
BUILDERS["example_matmul_epilogue_bias_relu_producer_loads_ping_pong"] = lambda: examples.load("matmul_epilogue").build(
    "bias_relu", ping_pong=True, tile=(128, 128, 64), stages=4, epilogue_tile=(128, 64), epilogue_loads="producer")
# stream-K with a fused bias + relu epilogue and a TMA store of the bf16 result, in the last block of a split tile
BUILDERS["example_matmul_stream_k_bias_relu_tma_store"] = lambda: examples.load("matmul_stream_k").build(
    epilogue=True, tma_store=True)
BUILDERS["example_auto_transpose_256x264"] = lambda: examples.load("auto_transpose").build(shape=(256, 264))
BUILDERS["example_matmul_cluster_1x2_tma_store"] = lambda: examples.load("matmul_cluster").build(   # shares A
    cluster=(1, 2), tma_store=True, stages=3)
# persistent 256 x 128 tiles in clusters of two along M (B's tile multicast), the grid (66, 2): cuBLAS's mid-K kernel
BUILDERS["example_matmul_cluster_persistent_256x128_tma_store"] = lambda: examples.load("matmul_cluster").build(
    tile=(256, 128, 64), stages=3, tma_store=True, persistent=True)
# a scan's carry in a register and a rescaled sum's total, rows on threads (tests/lowering/scan_cases.py)
# attention with torch's causal mask, symbolic batch, heads and sequence lengths: the mask's iotas blocked with k
BUILDERS["example_attention_causal_symbolic"] = lambda: examples.load("attention").build(causal=True, symbolic=True)
# the tensor-core attention kernel, causal with Sq != Skv: the key-block loop stops at the tile's last visible block
BUILDERS["example_attention_wgmma_causal"] = lambda: examples.load("attention_wgmma").build(1, 2, 100, 333, 64,
                                                                                            causal=True)
# FlashAttention-3's structure: k_j and v_j in a 2-stage circular buffer over the key blocks, issued by a producer warp
# group (setmaxnreg 24 / 240), two compute warp groups of 64 query rows sharing the stages; causal, ragged
BUILDERS["example_attention_wgmma_causal_ws_wg2"] = lambda: examples.load("attention_wgmma").build(
    1, 2, 100, 333, 64, causal=True, stages=2, warp_specialized=True, register_split=(24, 240), compute_warp_groups=2)
# the same with ping-pong: the two compute warp groups issue each key block's wgmmas in turn (bar.sync / bar.arrive)
BUILDERS["example_attention_wgmma_causal_ws_wg2_pp"] = lambda: examples.load("attention_wgmma").build(
    1, 2, 100, 333, 64, causal=True, stages=2, warp_specialized=True, register_split=(24, 240), compute_warp_groups=2,
    ping_pong=True)
# the persistent attention kernel: 3 blocks walk the (batch x head, query tile) tiles grid-stride; causal, Sq != Skv:
# the key-block loop's bound and unmasked range read the tile's query index from the tile loop and blockIdx.x
BUILDERS["example_attention_wgmma_causal_persistent"] = lambda: examples.load("attention_wgmma").build(
    1, 2, 100, 333, 64, causal=True, persistent=True, blocks=3)
# the intra-warp-group overlap: o_{j-1} = p_{j-1} @ v_{j-1} issued after s_j's wgmmas, waited for right before p_j is
# written (TensorView.defer); the loop's first iteration peeled; v's stage released an iteration late; 3 stages
BUILDERS["example_attention_wgmma_causal_overlap"] = lambda: examples.load("attention_wgmma").build(
    1, 2, 100, 333, 64, causal=True, stages=3, overlap=True)
# the same under a producer warp group and two compute warp groups
BUILDERS["example_attention_wgmma_causal_ws_wg2_overlap"] = lambda: examples.load("attention_wgmma").build(
    1, 2, 100, 333, 64, causal=True, stages=3, warp_specialized=True, register_split=(24, 240), compute_warp_groups=2,
    overlap=True)
BUILDERS["scan_cummax_rows_on_threads"] = lambda: scan_case("cummax_rows_on_threads").build()
BUILDERS["rescaled_sum_split_serial"] = lambda: scan_case("rescaled_sum_split_serial").build()
# blocked keys [nb, B, H, 32, D] of k [B, H, S, D]: one TMA box of k per key block, the views never computed
BUILDERS["view_keys_attention_tma"] = keys_attention
BUILDERS["view_keys_2d_cp_async_pad_minus_one"] = lambda: keys_2d(LoadStoreOpType.CpAsync, value=-1.0)


def kernel_function(source: str) -> str:
    return source[source.index('extern "C" __global__'):]


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_generated_cuda_is_golden(name: str) -> None:
    text = kernel_function(to_cuda(lower(BUILDERS[name]())))
    path = GOLDEN / f"{name}.cu"
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"no golden for {name}; UPDATE_GOLDEN=1 writes it"
    assert text == path.read_text(), f"the CUDA of {name} differs from {path}; UPDATE_GOLDEN=1 rewrites it"
