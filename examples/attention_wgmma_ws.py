"""Attention on tensor cores with FlashAttention-3's structure, as schedule choices of ``examples/attention_wgmma``
(``fusion_ir.schedulers.attention_wgmma.KernelShape``): k_j's ``[block_kv, D]`` and v_j's tiles in a 2-stage
circular buffer over the key blocks, issued by a producer warp group on a padded TIDy (``setmaxnreg.dec 24``); two
compute warp groups (``setmaxnreg.inc 240``), each its own 64 query rows of the block's 128 (its fragment, running
max, row sum and accumulator), wait on a stage's full barrier, read it in both matmuls (k_j in ``q @ k_j^T``, v_j in
``p_j @ v_j``) and release it on its empty barrier. The producer also issues q's ``[128, D]`` tile, once, first.
Measured on the H100 (``docs/attention.md``): 1.14-1.43 of torch's flash attention at D 128, the same kernel without
the producer warp group 1.17-1.53 (the suggestion's)."""

from __future__ import annotations

from fusion_ir import Fusion

from . import attention_wgmma

DESCRIPTION = ("attention on tensor cores, warp-specialized: a producer warp group fills a K/V circular buffer for "
               "two compute warp groups of 64 query rows")
SIZES = attention_wgmma.SIZES
TOLERANCE = attention_wgmma.TOLERANCE

reference = attention_wgmma.reference
make_inputs = attention_wgmma.make_inputs
input_shapes = attention_wgmma.input_shapes


def build(batch: int = 1, heads: int = 2, seq_q: int = 200, seq_kv: int = 200, head_dim: int = 64,
          causal: bool = False, block_kv: int = 64, stages: int = 2,
          register_split: tuple[int, int] | None = (24, 240)) -> Fusion:
    """``attention_wgmma.build`` warp-specialized with two compute warp groups."""
    return attention_wgmma.build(batch, heads, seq_q, seq_kv, head_dim, causal=causal, block_kv=block_kv,
                                 stages=stages, warp_specialized=True, register_split=register_split,
                                 compute_warp_groups=2)
