"""GPU tier: attention on tensor cores (examples/attention_wgmma: the online-softmax rewrite scheduled as one
wgmma kernel per 64 query rows) against numpy at small ragged sizes and against torch's
scaled_dot_product_attention in float64 at [4, 16, 4096, 128] and an odd size, causal and not, blocks of 64 and
128 keys; compute-sanitizer memcheck, racecheck and synccheck on the small cases. The same for the kernel structures
of ``KernelShape`` (``run_attention_wgmma.STRUCTURES``: 2 and 3 K/V stages, a producer warp group, two compute warp
groups, a register split, the two compute warp groups taking turns on the tensor cores: ping-pong, the persistent
kernel, the intra-warp-group overlap)."""

from __future__ import annotations

import pytest

from examples import attention_wgmma
from tests.runtime.run_attention_wgmma import PING_PONG, STRUCTURES
from tests.runtime.run_attention_wgmma import main as run_small
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean
from tests.runtime.sdpa_check import assert_matches_sdpa

pytestmark = pytest.mark.gpu
SHAPES = [(4, 16, 4096, 4096, 128), (2, 3, 1000, 1237, 64)]     # B, H, Sq, Skv, D: a large one and an odd one


@pytest.mark.parametrize("causal", [False, True])
def test_small_sizes_match_numpy(causal: bool) -> None:
    run_small(causal)


@pytest.mark.parametrize("block_kv", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_the_kernel_matches_torch_sdpa(shape: tuple[int, ...], causal: bool, block_kv: int) -> None:
    assert_matches_sdpa(attention_wgmma.build(*shape, causal=causal, block_kv=block_kv), shape, causal)


# causal with the key-block loop ending at each tile's last visible block: Sq != Skv both ways, Skv no multiple of
# the block, a tile whose last rows pass Skv
CAUSAL_SHAPES = [(1, 4, 1000, 333, 64), (2, 2, 333, 1000, 128), (1, 2, 256, 256, 64), (3, 5, 2048, 2048, 128)]


@pytest.mark.parametrize("block_kv", [64, 128])
@pytest.mark.parametrize("shape", CAUSAL_SHAPES, ids=str)
def test_causal_key_block_skipping_matches_torch_sdpa(shape: tuple[int, ...], block_kv: int) -> None:
    assert_matches_sdpa(attention_wgmma.build(*shape, causal=True, block_kv=block_kv), shape, True)


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("causal", [False, True])
def test_compute_sanitizer_is_clean(tool: str, causal: bool) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_attention_wgmma", *(["causal"] if causal else []))


# FlashAttention-3's structure as schedule choices (KernelShape): the K/V circular buffer over the key blocks
# (stages), a producer warp group (warp_specialized, register_split), two compute warp groups of 64 query rows
PIPELINED = [name for name in STRUCTURES if name != "single_stage"]


@pytest.mark.parametrize("causal", [False, True])
def test_small_sizes_of_every_structure_match_numpy(causal: bool) -> None:
    run_small(causal, tuple(STRUCTURES))


@pytest.mark.parametrize("structure", PIPELINED)
@pytest.mark.parametrize("block_kv", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_the_pipelined_kernels_match_torch_sdpa(shape: tuple[int, ...], causal: bool, block_kv: int,
                                                structure: str) -> None:
    fusion = attention_wgmma.build(*shape, causal=causal, block_kv=block_kv, **STRUCTURES[structure])
    assert_matches_sdpa(fusion, shape, causal)


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("causal", [False, True])
def test_compute_sanitizer_is_clean_for_every_structure(tool: str, causal: bool) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_attention_wgmma", "structures", *(["causal"] if causal else []),
                           timeout=1800)


# ping-pong (the compute warp groups issue each key block's wgmmas in turn, named barriers): the causal bound and the
# two ranges (unmasked, masked) of the key-block loop at Sq != Skv both ways, every tile's last rows past Skv
@pytest.mark.parametrize("structure", PING_PONG)
@pytest.mark.parametrize("block_kv", [64, 128])
@pytest.mark.parametrize("shape", CAUSAL_SHAPES, ids=str)
def test_ping_pong_causal_matches_torch_sdpa(shape: tuple[int, ...], block_kv: int, structure: str) -> None:
    fusion = attention_wgmma.build(*shape, causal=True, block_kv=block_kv, **STRUCTURES[structure])
    assert_matches_sdpa(fusion, shape, True)


# the persistent kernel: blocks walk the (batch x head, query tile) tiles grid-stride, the causal bound of the
# key-block loop read from the tile; a grid of the SM count and one of 7 blocks (each many tiles)
@pytest.mark.parametrize("blocks", [None, 7])
@pytest.mark.parametrize("compute_warp_groups", [1, 2])
@pytest.mark.parametrize("shape", CAUSAL_SHAPES, ids=str)
def test_the_persistent_kernel_matches_torch_sdpa(shape: tuple[int, ...], compute_warp_groups: int,
                                                  blocks: int | None) -> None:
    fusion = attention_wgmma.build(*shape, causal=True, block_kv=128, compute_warp_groups=compute_warp_groups,
                                   persistent=True, blocks=blocks)
    assert_matches_sdpa(fusion, shape, True)
