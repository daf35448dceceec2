"""examples/attention_wgmma as a persistent kernel (``KernelShape.persistent``, FlashAttention-3's): the (batch x head,
query tile) tiles merged into one index that a grid of ``blocks`` blocks walks grid-stride, each block running the
whole key-block loop per tile (q reloaded, the running max, row sum and accumulator initialized per tile). With
``blocks = 3`` every block walks several tiles and the last ones past the end are skipped. The simulator against
float64 numpy at sizes no tile divides, causal with Sq != Skv (the key-block loop's bound and its unmasked range read
the tile's query index from the persistent loop index and blockIdx.x), two seeds each; the kernel's structure; the
combinations it refuses."""

from __future__ import annotations

import numpy as np
import pytest

from examples import attention_wgmma
from fusion_ir import ScheduleError
from fusion_ir.schedulers.attention import AttentionParams
from fusion_ir.schedulers.attention_wgmma import KernelShape
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate

CASES = [   # B, H, Sq, Skv, D, causal, block_kv, compute_warp_groups
    ((1, 2, 200, 200, 64), False, 64, 1),
    ((1, 2, 200, 200, 64), True, 128, 2),
    ((2, 1, 256, 256, 128), False, 128, 2),
    ((2, 1, 256, 256, 128), True, 64, 1),
    ((1, 2, 100, 333, 64), True, 64, 1),       # causal with Sq != Skv: the last query tile sees every key block
    ((1, 2, 333, 100, 64), True, 64, 2),       # Sq > Skv: the first query tiles see no key at all
]


def _id(case: tuple) -> str:
    shape, causal, block_kv, w = case
    return f"{shape}-causal{causal}-kv{block_kv}-wg{w}"


def _rel_error(out: np.ndarray, want: np.ndarray) -> float:
    want = np.nan_to_num(want)
    return float(np.abs(np.nan_to_num(np.asarray(out, dtype=np.float64)) - want).max() / np.abs(want).max())


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_matches_numpy(case: tuple) -> None:
    shape, causal, block_kv, w = case
    kernel = lower(attention_wgmma.build(*shape, causal=causal, block_kv=block_kv, compute_warp_groups=w,
                                         persistent=True, blocks=3))
    assert "grid (3, 1, 1)" in str(kernel)
    for seed in (0, 1):
        inputs = attention_wgmma.make_inputs(*shape, seed=seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        err = _rel_error(out, attention_wgmma.reference(*inputs, causal=causal))
        assert err <= attention_wgmma.TOLERANCE, (case, seed, err)
