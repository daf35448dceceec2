"""Attention on tensor cores: the online-softmax rewrite of ``examples/attention.fusion_of`` scheduled as one wgmma
kernel, the hand schedule the attention scheduler takes for bf16 and fp16 with a head dim of 64 or 128
(``AttentionParams.tensor_cores``).

``build(...)`` rewrites the fusion with ``block_kv`` keys per block (``fusion_ir.online_softmax``) and schedules it
with ``fusion_ir.schedulers.attention_wgmma.schedule_on_tensor_cores``, which composes four general pieces of the
lowering (``docs/attention.md``, "The tensor-core kernel"): one warp group (128 threads) per 64 query rows of one
(batch, head); q's ``[64, D]`` tile TMA-loaded once; per key block ``j`` (a serial loop), k_j's and v_j's tiles as
TMA boxes of the blocked views ``permute(reshape(pad(k)))``, ``s_j = q @ k_j^T`` by wgmma into a register fragment,
the row max and row sum of the fragment by quad shuffles, the per-row recurrence (running max, alpha, the row sum)
by a thread per row in shared memory, ``cast(exp(s_j - mnew))`` the register A operand of ``p_j @ v_j``, which
accumulates in place into the output's rescaled sum; after the loop ``o / l``, cast, stored.

``build(..., stages=2, warp_specialized=True, compute_warp_groups=2)``: FlashAttention-3's structure (a K/V circular
buffer over the key blocks issued by a producer warp group, two compute warp groups of 64 query rows sharing its
stages), general schedule choices of ``KernelShape``.

Head dims 64 and 128 and blocks of 64 or 128 keys; any Sq and Skv (rows past Sq are zero-filled by TMA and never
stored; keys past Skv are masked to ``-inf`` by the rewrite and read as TMA's zeros); causal or not.
"""

from __future__ import annotations

from fusion_ir import DataType, Fusion, ScheduleError
from fusion_ir.online_softmax import online_softmax
from fusion_ir.schedulers.attention_wgmma import BLOCKS_KV, HEAD_DIMS, KernelShape, schedule_on_tensor_cores

from . import attention

DESCRIPTION = "attention on tensor cores: wgmma QK^T and PV, the online softmax on the fragment, one warp group"
SIZES = [[(1, 2, 200, 64), (1, 2, 200, 64), (1, 2, 200, 64)]]    # build()'s constant shapes: q, k, v
TOLERANCE = attention.TOLERANCE

reference = attention.reference
make_inputs = attention.make_inputs


def input_shapes(batch: int, heads: int, seq_q: int, seq_kv: int, head_dim: int) -> list[tuple[int, ...]]:
    return attention.input_shapes(batch, heads, seq_q, seq_kv, head_dim)


def build(batch: int = 1, heads: int = 2, seq_q: int = 200, seq_kv: int = 200, head_dim: int = 64,
          causal: bool = False, block_kv: int = 64, dtype: DataType = DataType.BFloat16, stages: int = 1,
          warp_specialized: bool = False, register_split: tuple[int, int] | None = None,
          compute_warp_groups: int = 1, ping_pong: bool = False, persistent: bool = False,
          blocks: int | None = None, overlap: bool = False) -> Fusion:
    """``attention.fusion_of(...)`` rewritten with ``block_kv`` keys per block and scheduled as above; ``stages``,
    ``warp_specialized``, ``register_split``, ``compute_warp_groups``, ``ping_pong``: the kernel's structure
    (``KernelShape``: a K/V circular buffer over the key blocks, a producer warp group, two compute warp groups of 64
    rows each, taking turns on the tensor cores); ``persistent``: ``blocks`` blocks walk the tiles; ``overlap``:
    ``p_j @ v_j`` issued in iteration j + 1, under block j + 1's softmax (``TensorView.defer``)."""
    if head_dim not in HEAD_DIMS:
        raise ScheduleError(f"attention_wgmma.build: head_dim = {head_dim} must be one of {HEAD_DIMS}: q's and k's "
                            f"tiles are boxes of 64 columns and the output one wgmma tile of D columns")
    if block_kv not in BLOCKS_KV:
        raise ScheduleError(f"attention_wgmma.build: block_kv = {block_kv} must be one of {BLOCKS_KV}: the scores "
                            f"of a key block are one wgmma tile of block_kv columns")
    fusion = attention.fusion_of(batch, heads, seq_q, seq_kv, head_dim, causal, dtype)
    with fusion.transaction():
        (record,) = online_softmax(fusion, block_kv)
        schedule_on_tensor_cores(fusion, record, KernelShape(stages, warp_specialized, register_split,
                                                             compute_warp_groups, ping_pong, persistent=persistent,
                                                             blocks=blocks, overlap=overlap))
    return fusion

