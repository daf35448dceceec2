"""The attention scheduler: ``softmax(q k^T) v`` fusions, run as one kernel over key blocks.

``schedule_attention(fusion, params)`` first applies the online-softmax rewrite (``fusion_ir.online_softmax``)
with ``params.block_kv`` keys per block, then schedules the rewritten fusion. Every tensor replays one
reference, the output ``[batch..., Sq, D]``:

    [batch (BIDy), Sq / block_q (BIDx), block_q (TIDx), D]

and every blocked tensor (``[nb, ..., Sq, block_kv]``) takes its key-block axis ``nb`` right after the
query axes, so the running max, the rescaled row sum and the rescaled accumulator share one serial loop over
the key blocks: a thread holds one query row, its block of scores and its D outputs. The blocked views of k
and v (pad, reshape, permute) are computed inside the products that read them.

This is the CUDA-core schedule: every product on CUDA cores. With ``AttentionParams.tensor_cores`` the rewritten
fusion is scheduled as the wgmma kernel instead (``attention_wgmma.schedule_on_tensor_cores``: one warp group per 64
query rows, both products on tensor cores), which the suggestion picks for bf16 and fp16 with a head dim of 64 or
128. ``AttentionParams`` names its choices with the rule behind each
(``suggest_attention_params``).
"""

from __future__ import annotations

from dataclasses import dataclass

from target import current as current_target

from ..exprs import MmaOp, is_view_expr
from ..fusion import Fusion
from ..inlining import inline_most, parallelize_like, transform_like
from ..online_softmax import (
    OnlineSoftmax,
    SoftmaxMatmul,
    bound_key_blocks,
    find_softmax_matmuls,
    mask_only_where_needed,
    online_softmax,
)
from ..replay import map_ids_between
from ..tensor_view import TensorView
from ..types import DataType, ParallelType, ScheduleError
from .attention_wgmma import BLOCK_Q, BLOCKS_KV, HEAD_DIMS, KernelShape, schedule_on_tensor_cores
from .pointwise_problem import evaluated, extent_env
from .protocol import FunctionScheduler, HeuristicParams, Sizes

NAME = "attention"
MAX_BLOCK_KV = 256          # scores and probabilities a thread holds at once (registers)


@dataclass(frozen=True)
class AttentionParams(HeuristicParams):
    """An attention kernel's choices.

    ``block_q``: query rows per block (one per thread, ``TIDx``). ``block_kv``: keys per block of the online
    softmax (the scores a thread holds at once). ``tensor_cores``: the wgmma kernel instead (one warp group per
    ``block_q = 64`` query rows, ``block_kv`` 64 or 128 keys per block: one wgmma tile of scores).

    The wgmma kernel's structure (``attention_wgmma.KernelShape``; the suggestion: two Pipelined stages, one or two
    compute warp groups by shared memory, ``_tensor_core_warp_groups``): ``stages`` of k_j's and v_j's tiles
    circular-buffered over the key-block loop (1: no pipeline);
    ``warp_specialized``: a producer warp group issues those loads (needs ``stages >= 2``), ``register_split`` its
    and the compute warp groups' ``setmaxnreg`` counts (e.g. ``(24, 240)``; None: no register split);
    ``compute_warp_groups`` (1 or 2) warp groups of 64 query rows per block, sharing the k_j and v_j stages;
    ``ping_pong``: those two warp groups issue each key block's wgmmas in turn (FlashAttention-3's ping-pong);
    ``overlap``: each warp group issues ``p_j @ v_j`` in iteration j + 1, after ``q @ k_{j+1}^T``, so it runs under
    the softmax of block j + 1 (FlashAttention-3's intra-warp-group overlap, ``TensorView.defer``; needs
    ``stages >= 2``: v_j's stage stays in use an iteration longer, and 3 keep the loads a block ahead);
    ``persistent``: a grid of ``blocks`` blocks (None: the target's SM count) walks the (batch x head, query tile)
    tiles, merged into one index, grid-stride (FlashAttention-3's persistent kernel; no producer warp group)."""

    scheduler: str = NAME
    block_q: int = 64
    block_kv: int = 32
    tensor_cores: bool = False
    stages: int = 1
    warp_specialized: bool = False
    register_split: tuple[int, int] | None = None
    compute_warp_groups: int = 1
    ping_pong: bool = False
    persistent: bool = False
    blocks: int | None = None
    overlap: bool = False

    @property
    def kernel_shape(self) -> KernelShape:
        """The wgmma kernel's structure these params choose."""
        return KernelShape(self.stages, self.warp_specialized, self.register_split, self.compute_warp_groups,
                           ping_pong=self.ping_pong, persistent=self.persistent,
                           blocks=self.blocks, overlap=self.overlap)

    def validate(self) -> None:
        if not isinstance(self.tensor_cores, bool):
            raise ScheduleError(f"AttentionParams.tensor_cores: {self.tensor_cores!r} must be a bool")
        self.kernel_shape.validate("AttentionParams")
        if not self.tensor_cores and self.kernel_shape != KernelShape():
            changed = [f for f in ("stages", "warp_specialized", "register_split", "compute_warp_groups", "ping_pong",
                                   "persistent", "blocks", "overlap")
                       if getattr(self, f) != getattr(KernelShape(), f)]
            raise ScheduleError(f"AttentionParams.{changed[0]}: {getattr(self, changed[0])!r} needs "
                                f"tensor_cores=True (the K/V pipeline, the producer warp group and the compute warp "
                                f"groups are the wgmma kernel's structure)")
        if self.tensor_cores and self.block_q != BLOCK_Q:
            raise ScheduleError(f"AttentionParams.block_q: {self.block_q} with tensor_cores; the wgmma kernel runs "
                                f"{BLOCK_Q} query rows per warp group (one wgmma M)")
        if self.tensor_cores and self.block_kv not in BLOCKS_KV:
            raise ScheduleError(f"AttentionParams.block_kv: {self.block_kv} with tensor_cores must be one of "
                                f"{BLOCKS_KV}: a key block's scores are one wgmma tile")
        for name in ("block_q", "block_kv"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ScheduleError(f"AttentionParams.{name}: {v!r} must be a positive int")
        limit = current_target().max_threads_per_block
        if self.block_q > limit:
            raise ScheduleError(f"AttentionParams.block_q: {self.block_q} query rows are {self.block_q} threads of one "
                                f"block, more than the target's {limit}")
        if self.block_kv > MAX_BLOCK_KV:
            raise ScheduleError(f"AttentionParams.block_kv: {self.block_kv} keys per block; a thread holds a block's "
                                f"scores and probabilities in registers, at most {MAX_BLOCK_KV} of them")


# ---------------------------------------------------------------------------------------------- what it takes
def _plan(fusion: Fusion) -> SoftmaxMatmul | str:
    found, reasons = find_softmax_matmuls(fusion)
    if len(found) != 1:
        why = f": {reasons[0]}" if reasons else ""
        return f"it takes one matmul of a row softmax over its contraction axis; the fusion has {len(found)}{why}"
    sm = found[0]
    matmuls = [e.output for e in fusion.exprs if isinstance(e, MmaOp)]
    others = [m for m in matmuls if m is not sm.matmul and m not in sm.scores.ancestors() and m is not sm.scores]
    if others:
        return f"T{others[0].name} is a matmul outside the attention (the scores' and the softmax's)"
    if len(fusion.outputs) != 1:
        return f"it takes one output, the attention's; the fusion has {len(fusion.outputs)}"
    (out,) = fusion.outputs
    if out is not sm.matmul and sm.matmul not in out.ancestors():
        return f"the output T{out.name} is not computed from the attention's T{sm.matmul.name}"
    if len(out.shape_ids) != len(sm.matmul.shape_ids):
        return f"the output T{out.name} does not have the attention's shape [..., Sq, D]"
    head_dim = sm.matmul.shape_ids[-1].extent
    if head_dim.const_value() is None:
        return (f"the head dim of T{sm.matmul.name} ({head_dim}) is symbolic; a thread holds a row of the output in "
                f"registers, so give the values a constant last extent (add_input(shape=(-1, -1, -1, 64)))")
    return sm


def decline(fusion: Fusion, sizes: Sizes | None) -> str | None:
    plan = _plan(fusion)
    return plan if isinstance(plan, str) else None


def suggest_attention_params(fusion: Fusion, sizes: Sizes | None = None) -> AttentionParams:
    """The CUDA-core schedule's parameters for ``fusion`` at ``sizes`` (or its constant extents)."""
    plan = _plan(fusion)
    if isinstance(plan, str):
        raise ScheduleError(f"attention scheduler declines this fusion: {plan}")
    refusal = tensor_core_refusal(fusion, plan)
    if refusal is None:
        block_kv, kv_why = _tensor_core_block_kv()
        head_dim = plan.matmul.shape_ids[-1].extent.const_value()
        groups, groups_why = _tensor_core_warp_groups(head_dim, block_kv)
        why = {
            "tensor_cores": "bf16/fp16 operands with a head dim of 64 or 128: the wgmma kernel",
            "block_q": "64 query rows: one warp group's wgmma M",
            "block_kv": kv_why,
            "stages": (f"{PIPELINE_STAGES}: k_j's and v_j's tiles of the next key block load while this one computes "
                       f"(Pipelined; H100: 1.17-1.26 of flash at D 64 against 0.98-1.21 with one stage)"),
            "warp_specialized": ("no producer warp group: one compute warp group per block, three blocks per SM, ran "
                                 "faster than FlashAttention-3's structure (1.18-1.26 of flash against 0.97-1.24 at "
                                 "D 64)"),
            "compute_warp_groups": groups_why,
        }
        shape = _turn_taking_shape(head_dim, block_kv) if groups == 2 else None
        if shape is not None:
            why.update(_TURN_TAKING_WHY)
            return AttentionParams(block_q=BLOCK_Q, block_kv=block_kv, tensor_cores=True, stages=shape.stages,
                                   warp_specialized=True, register_split=shape.register_split,
                                   compute_warp_groups=groups, ping_pong=True, overlap=True, why=why)
        return AttentionParams(block_q=BLOCK_Q, block_kv=block_kv, tensor_cores=True, stages=PIPELINE_STAGES,
                               compute_warp_groups=groups, why=why)
    rows = _query_rows(fusion, plan, sizes)
    many = rows is None or rows >= 64
    block_q = 64 if many else max(32, 1 << (rows - 1).bit_length())
    why = {
        "block_q": ("64 query rows (two warps) per block" if many else
                    f"the {rows} query rows rounded up to a power of two, at least a warp"),
        "block_kv": "32 keys per block: the scores and probabilities a thread holds stay in registers",
        "tensor_cores": f"CUDA cores: {refusal}",
    }
    return AttentionParams(block_q=block_q, block_kv=32, why=why)


# The tensor-core kernel's keys per block: 128 halves the key-block loop's fixed work per key (its barriers, the
# running max's update, the rescale) against 64. On the H100 (bench/probes/attention_probe.py, 2026-11-26, 16384
# tokens, D 64 and 128) 128 keys ran 1.02-1.25 of torch's flash attention without a mask (64 keys: 0.93-1.07) and
# 1.05-1.30 causal (64 keys: 0.97-1.17; once the key mask was computed per element: with the mask in local arrays 128
# keys lost at 1024 keys). Query rows not a multiple of 64 used to take it back (every fragment row predicated, 128
# keys spilled); since predicate elimination leaves the rows' predicate to the output store (no spills at
# [2, 3, 1000, 1237, D]) 128 keys won there too, with the pipeline: 1.16-1.26 of flash at D 64 ([4, 16, 4000, 64],
# [16, 16, 1000, 64], causal or not) against 1.13-1.15 with 64 keys, 1.28-1.38 at D 128 against 1.06-1.23.


def _tensor_core_block_kv() -> tuple[int, str]:
    """The tensor-core kernel's ``block_kv`` and why (the comment above): the same at any size."""
    small, big = BLOCKS_KV
    return big, (f"{big} keys per block: half the key-block loop's fixed work per key of {small} (the query rows' "
                 f"predicate is the output store's alone: any Sq)")


# The tensor-core kernel's structure. Two K/V stages, Pipelined: the next key block's loads in flight under this
# one's work. One warp group per block where two such blocks fit in an SM's shared memory (each its own q tile and
# stages; more warp groups resident), two compute warp groups sharing the stages where one block takes more than half
# (then only one block is resident: its one warp group alone would leave the SM mostly idle). Measured on the H100
# (bench/probes/attention_probe.py, 2026-11-26, ratios to torch's flash attention in the same rounds), D 64, 128 keys
# (72 KB a block, three blocks per SM): one warp group, two stages 1.17-1.26, three stages (112 KB, two blocks)
# 0.88-1.03, two warp groups with a producer 0.92-1.12, one stage 0.98-1.21; D 128, 128 keys (144 KB with one warp
# group): two warp groups, two stages 1.17-1.53, the same with a producer warp group (24 / 240 registers) 1.14-1.43,
# one warp group and one stage 1.07-1.34, 64 keys one warp group two stages 0.99-1.15.
PIPELINE_STAGES = 2


def _tensor_core_warp_groups(head_dim: int, block_kv: int) -> tuple[int, str]:
    """The tensor-core kernel's ``compute_warp_groups`` and why (the comment above)."""
    size = DataType.BFloat16.size
    one = (BLOCK_Q * head_dim + PIPELINE_STAGES * 2 * block_kv * head_dim) * size
    half = current_target().smem_per_sm // 2
    if one > half:
        return 2, (f"2: a block of one warp group takes {one} bytes of shared memory (q's tile, {PIPELINE_STAGES} "
                   f"stages of k_j and v_j), over half an SM's {2 * half}: one block per SM, so two warp groups share "
                   f"its stages")
    return 1, (f"1: a block of one warp group takes {one} bytes of shared memory, at most half an SM's {2 * half}: "
               f"blocks of their own, each with its q tile and stages")


# Where two compute warp groups share a block's stages, FlashAttention-3's whole structure: a producer warp group
# (setmaxnreg 24 / 240), the two compute warp groups taking turns on the tensor cores (ping_pong), each issuing
# p_{j-1} @ v_{j-1} right after q @ k_j^T and doing block j's softmax under it (overlap, which releases v's stage a
# block late: three stages keep the loads a block ahead). H100 (bench/probes/attention_probe.py, 2026-11-26, 10 cases
# at D 128, 128 keys): 1.23-1.71 of flash against 1.19-1.58 for two cooperative warp groups with two stages, better
# on every case; without the turns 1.14-1.49, with two stages 0.98-1.25. Where three stages do not fit, the
# cooperative kernel.
TURN_TAKING_STAGES = 3
TURN_TAKING_REGISTERS = (24, 240)
_TURN_TAKING_WHY = {
    "stages": (f"{TURN_TAKING_STAGES}: with the overlap v_j's stage is released a block late; three keep the loads a "
               f"block ahead (two: 0.98-1.25 of flash at D 128)"),
    "warp_specialized": ("a producer warp group issues the K/V loads: FlashAttention-3's structure, 1.23-1.71 of flash "
                         "at D 128 against 1.19-1.58 for two cooperative warp groups (H100)"),
    "register_split": f"{TURN_TAKING_REGISTERS}: the producer's registers to the compute warp groups (setmaxnreg)",
    "ping_pong": "the two compute warp groups take turns on the tensor cores, one's softmax under the other's wgmmas",
    "overlap": ("p_{j-1} @ v_{j-1} issued right after q @ k_j^T, block j's softmax under it (without the turns: "
                "1.14-1.49)"),
}


def _turn_taking_shape(head_dim: int | None, block_kv: int) -> KernelShape | None:
    """FlashAttention-3's structure (the comment above) where its stages fit a block's shared memory, else None."""
    shape = KernelShape(TURN_TAKING_STAGES, True, TURN_TAKING_REGISTERS, 2, ping_pong=True, overlap=True)
    try:
        shape.validate()
        if head_dim is not None:
            shape.check_shared_memory(head_dim, block_kv)
    except ScheduleError:
        return None
    return shape


def tensor_core_refusal(fusion: Fusion, sm: SoftmaxMatmul) -> str | None:
    """Why the wgmma kernel (``attention_wgmma``) does not take ``fusion``, or None: q, k and v are fusion inputs of
    bf16 or fp16 ``[B, H, S, D]`` with a head dim of 64 or 128 (any other size symbolic or not), the scores
    ``q @ transpose(k)`` scaled (and masked)."""
    values = sm.values
    if len(sm.matmul.shape_ids) != 4:
        return f"the attention's T{sm.matmul.name} is not [B, H, Sq, D]"
    if not values.is_input or values.dtype not in (DataType.BFloat16, DataType.Half):
        return f"the values T{values.name} are not a bf16 or fp16 fusion input"
    head_dim = sm.matmul.shape_ids[-1].extent.const_value()
    if head_dim not in HEAD_DIMS:
        return f"the head dim {head_dim} is not one of {HEAD_DIMS}"
    scores = [e for e in fusion.exprs if isinstance(e, MmaOp) and e.output in sm.scores.ancestors() | {sm.scores}]
    if len(scores) != 1 or not scores[0].inputs[0].is_input or scores[0].inputs[0].dtype is not values.dtype:
        return "the scores are not one matmul of the queries, a fusion input of the values' type"
    return None


def _query_rows(fusion: Fusion, sm: SoftmaxMatmul, sizes: Sizes | None) -> int | None:
    """The query rows at ``sizes`` (or the constant extents); None when they are symbolic and no sizes are given."""
    env = extent_env(fusion, sizes)
    return None if env is None else evaluated(sm.matmul.shape_ids[-2], env)


# ---------------------------------------------------------------------------------------------- the schedule
def schedule_attention(fusion: Fusion, params: AttentionParams | None = None) -> Fusion:
    """Rewrite ``fusion``'s softmax over key blocks and schedule every tensor (the CUDA-core kernel); without
    ``params``, with ``suggest_attention_params(fusion)``. Records the params as ``fusion.scheduler_choice``."""
    params = params if params is not None else suggest_attention_params(fusion)
    if not isinstance(params, AttentionParams):
        raise ScheduleError(f"schedule_attention: params must be AttentionParams, got {type(params).__name__}")
    params.validate()
    plan = _plan(fusion)
    if isinstance(plan, str):
        raise ScheduleError(f"schedule_attention: {plan}")
    if any(tv.compute_at_pos or tv.transforms for tv in fusion.used_tensors() if not tv.is_input):
        raise ScheduleError("schedule_attention: the fusion is already scheduled; schedule_attention starts from an "
                            "unscheduled fusion")
    if params.tensor_cores:
        refusal = tensor_core_refusal(fusion, plan)
        if refusal is not None:
            raise ScheduleError(f"schedule_attention: tensor_cores: {refusal}")
        head_dim = plan.matmul.shape_ids[-1].extent.const_value()
        params.kernel_shape.check_shared_memory(head_dim, params.block_kv, "AttentionParams")
    with fusion.transaction():
        (record,) = online_softmax(fusion, params.block_kv)
        if params.tensor_cores:
            schedule_on_tensor_cores(fusion, record, params.kernel_shape)
        else:
            _schedule(fusion, record, params)
    fusion.scheduler_choice = params
    return fusion


def _schedule(fusion: Fusion, r: OnlineSoftmax, p: AttentionParams) -> None:
    (ref,) = fusion.outputs
    batch = len(ref.shape_ids) - 2
    for _ in range(batch - 1):
        ref.merge(0, 1)                                   # [batch, Sq, D]
    ref.split(batch and 1, p.block_q)                     # [batch, Sq / block_q, block_q, D]
    rows = (batch and 1) + 2                              # the query axes: batch, blocks, rows
    transform_like(ref)
    _keys_after_rows(fusion, r, rows)
    bindings = [ParallelType.BIDy] if batch else []
    for k, pt in enumerate(bindings + [ParallelType.BIDx, ParallelType.TIDx]):
        ref.axis(k).parallelize(pt)
    parallelize_like(ref)
    for first, reader in _view_chains(fusion):
        first.compute_at(reader, -1)                      # blocked k, v and iotas: computed where they are read
    inline_most(fusion)
    if r.key_limit is not None:                           # causal: a block's rows stop at their last visible key
        bound_key_blocks(r, r.scores, rows, rows - 2)
    if r.valid_where is not None or r.causal_where is not None:   # the masks only on the blocks that need them
        mask_only_where_needed(r, r.scores, rows, rows - 2)


def _keys_after_rows(fusion: Fusion, r: OnlineSoftmax, rows: int) -> None:
    """Move each blocked tensor's key-block axis right after the query axes: the serial loop over key blocks."""
    nb = r.scores.logical[0]
    for tv in fusion.used_tensors():
        if tv.is_input or len(tv.loop) <= rows:
            continue
        mine = map_ids_between(r.scores, tv).get(nb)
        if mine is not None and mine in tv.loop and tv.loop.index(mine) > rows:
            tv.reorder({tv.loop.index(mine): rows})


def _view_chains(fusion: Fusion) -> list[tuple[TensorView, TensorView]]:
    """Each chain of views (pads, reshapes, permutes) with one reader, as (the first tensor to compute, the
    reader): the view right after a fusion input or a computed tensor, or the tensor read from nothing (an iota)
    the chain starts at."""
    chains = []
    for end in fusion.used_tensors():
        readers = end.consumers()
        if is_view_expr(end.definition) and len(readers) == 1 and not is_view_expr(readers[0].definition):
            chains.append((_chain_start(end), readers[0]))
    return chains


def _chain_start(view: TensorView) -> TensorView:
    first = view
    while True:
        producer = first.definition.inputs[0]
        if is_view_expr(producer.definition):
            first = producer
        elif producer.is_input or producer.definition is None or producer.definition.tensor_inputs():
            return first
        else:
            return producer


def suggest(fusion: Fusion, sizes: Sizes | None) -> AttentionParams:
    return suggest_attention_params(fusion, sizes)


def apply(fusion: Fusion, params: HeuristicParams) -> None:
    if not isinstance(params, AttentionParams):
        raise ScheduleError(f"attention scheduler: apply needs AttentionParams, got {type(params).__name__}")
    schedule_attention(fusion, params)


SCHEDULER = FunctionScheduler(NAME, decline, suggest, apply)
