"""Golden kernel IR listings: any change to generated loop nests shows up in review.

Set UPDATE_GOLDEN=1 to rewrite the files on purpose.
"""

import os
from pathlib import Path

import pytest

import examples
from fusion_ir import DataType
from lowering import lower
from tests.lowering.view_load_cases import keys_attention

GOLDEN = Path(__file__).parent / "golden"


BUILDERS = {name: (lambda name=name: examples.load(name).build())
            for name in ("pointwise_2d", "inner_reduction", "smem_staging", "auto_pointwise", "auto_transpose")}
# A^T @ B^T: a given [K, M] (M-major), b given [N, K] (K-major), each TMA-loaded in place
# [B, M, K] @ [B, K, N]: the batch on blockIdx.z, each operand's TMA box of batch extent 1
BUILDERS["matmul_wgmma_batched"] = lambda: examples.load("matmul_wgmma").build(
    tile=(128, 128, 64), stages=3, compute_warp_groups=1, batch=True)
# split-K: the partial tiles in a global work buffer, the semaphore arrival, the epilogue in the last block
BUILDERS["matmul_split_k"] = lambda: examples.load("matmul_split_k").build()
BUILDERS["matmul_wgmma_transposed"] = lambda: examples.load("matmul_wgmma").build(
    tile=(128, 128, 64), stages=3, compute_warp_groups=1, transpose_a=True, transpose_b=True)
# K = 100: A's rows of 200 bytes loaded by 8-byte cp.async into the swizzled tile, B by TMA
BUILDERS["matmul_wgmma_cp_async_k100"] = lambda: examples.load("matmul_wgmma").build(
    tile=(128, 128, 64), stages=3, compute_warp_groups=2, shape=(200, 264, 100))

# swapped operands: the accumulator's rows along N, its tile staged by stmatrix.trans (the whole tile)
BUILDERS["matmul_wgmma_swapped"] = lambda: examples.load("matmul_wgmma").build(
    tile=(80, 128, 64), stages=3, compute_warp_groups=2, warp_specialized=True, tma_store=True,
    out_dtype=DataType.BFloat16, swap_ab=True)

# two blocks of adjacent tile rows share B's tile by TMA multicast
BUILDERS["matmul_cluster"] = lambda: examples.load("matmul_cluster").build(tile=(128, 128, 64), stages=3,
                                                                          compute_warp_groups=1)

# persistent in clusters of two: blockIdx.x the cluster walking pairs of adjacent tile rows, blockIdx.y its rank
BUILDERS["matmul_cluster_persistent"] = lambda: examples.load("matmul_cluster").build(
    tile=(128, 128, 64), stages=3, compute_warp_groups=1, tma_store=True, persistent=True, blocks=4, group_m=2)

# a rescaled sum of batched matmuls over a serial J loop: one accumulator, its rows rescaled before each J's wgmmas
BUILDERS["matmul_rescaled"] = lambda: examples.load("matmul_rescaled").build()
# softmax(a @ b, -1) in one wgmma kernel: the row max and sum of the fragment by quad shuffles (WarpShuffleXor)
BUILDERS["matmul_row_softmax"] = lambda: examples.load("matmul_row_softmax").build()

# blocked keys of k [B, H, S, D]: the TMA box of k at key offset 32 j, no loop or buffer of the views
BUILDERS["view_keys_attention_tma"] = keys_attention


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_kernel_listing(name: str) -> None:
    text = str(lower(BUILDERS[name]())) + "\n"
    path = GOLDEN / f"{name}.kir.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()
