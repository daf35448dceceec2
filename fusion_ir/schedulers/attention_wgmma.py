"""The tensor-core attention kernel: the online-softmax rewrite of ``softmax(q k^T) v`` scheduled as one wgmma
kernel (``schedule_on_tensor_cores``; the attention scheduler's path for bf16 and fp16 with a head dim of 64 or 128,
``AttentionParams.tensor_cores``; ``examples/attention_wgmma.py`` builds it by hand).

One warp group (128 threads on TIDx) per block of 64 query rows of one (batch, head): grid
``[Sq / 64 (BIDx), batch * heads (BIDy)]``. q's ``[64, D]`` tile is TMA-loaded once (a box per 64 columns of D,
K-major, 128-byte swizzle); then a serial loop over the key blocks ``j`` (the rewrite's ``nb`` axis):

- ``s_j = q @ k_j^T``: ``wgmma.m64n{block_kv}k16`` over D in tiles of 64, k_j's ``[block_kv, 64]`` box of the
  blocked view ``permute(reshape(pad(k)))`` (K-major; the pad is TMA's zero fill); the fp32 fragment in registers;
- the scale, the key mask (keys past Skv, the causal mask) and ``exp(s - mnew)`` on the fragment
  (``schedule_mma_fragment``), the mask's key index (``j * block_kv + column``) and query index computed per element
  in the fragment's loops from its own column and row, in registers; the block's row max and row sum reduce the
  fragment in registers, then across the quad by shuffles (``merge_lanes``), which leaves them in every lane of the
  quad;
- the per-row recurrence (``mprev = cummax(mblk)``, ``mnew``, ``alpha``, ``l = rescaled_sum(rowsum, alpha)``) in
  registers, by every thread of the fragment: laid out as the fragment's rows (warp ``w``, lane row ``r``, the rows
  ``j2`` unrolled) merged with a loop-only broadcast of the quad's 4 lanes into TIDx (``broadcast_loop``), so each
  lane computes its rows' values where it reads the row reductions and where the fragment reads mnew, alpha and l;
  no shared memory, no block barrier;
- ``o = rescaled_sum(cast(e, bf16) @ v_j, alpha)``: ``cast(e)`` the wgmma's register A operand
  (``m64n{D}k16``, k-steps over the block's keys), v_j's ``[block_kv, D]`` tile a TMA box per 64 columns
  (MN-major), the accumulator rescaled in place by alpha per row before the block's wgmmas;
- after the loop ``o / l``, cast, stored from the fragment.

``KernelShape`` (``AttentionParams``' ``stages``, ``warp_specialized``, ``register_split``,
``compute_warp_groups``) adds FlashAttention-3's structure as general schedule choices, none measured yet:

- ``stages >= 2``: k_j's whole ``[block_kv, D]`` tile (a box per 64 columns of D) and v_j's are computed at the
  key-block loop and circular-buffered over it (``Pipelined(uses_mbarrier_for_war=True)``): the loads of the next
  ``stages - 1`` blocks are in flight while block j computes;
- ``warp_specialized``: the same pipeline issued by a producer warp group (``WarpSpecialized(on=TIDy)``, TIDy padded
  by one), ``register_split`` its ``setmaxnreg`` counts; the compute warp groups wait on the full barriers and
  release a stage on its empty one;
- ``compute_warp_groups = 2``: a block takes ``2 x 64`` query rows, ``[.., Sqo, W (TIDy), 64, ..]``, each compute
  warp group its own 64 rows (its fragment, running max, row sum, accumulator), both reading the same k_j and v_j
  stages and q's ``[128, D]`` tile at their own rows (the matmul's cooperative layout of ``Mw``);
- ``ping_pong``: those two warp groups issue the wgmmas of each key block in turn (``take_turns`` on the key-block
  loop; the ``warp_group_turns`` pass): group 0's s_j, group 1's s_j, group 0's o_j, group 1's o_j, so one group's
  MMAs run while the other does its softmax. The causal bound is the block's, so both walk the same key blocks.
- ``persistent``: the tiles ``[BH, Sqo]`` merged into one index and split by a grid of ``blocks`` blocks,
  ``[T / blocks, blocks (BIDx), nb, ...]``: each block walks its tiles in a serial loop, q loaded and the running
  max, row sum and accumulator initialized per tile, the key-block loop's causal bound read from the tile's query
  index (``_query_tile``); a Pipelined K/V buffer runs once per tile (its barriers initialized per tile).
"""

from __future__ import annotations

from dataclasses import dataclass

from target import current as current_target

from .. import replay
from ..circular_buffer import MAX_USEFUL_STAGES, Pipelined, WarpSpecialized
from ..exprs import BroadcastOp, is_view_expr, view_source
from ..fusion import Fusion
from ..inlining import inline_most
from ..iter_domain import IterDomain, Split
from ..online_softmax import OnlineSoftmax, bound_key_blocks, mask_only_where_needed
from ..tensor_view import TensorView
from ..types import DataType, LoadStoreOpType, MemoryType, ParallelType, ScheduleError
from .matmul import schedule_mma_fragment
from .mma_tiles import k_major_tile, mma_k_loop, n_major_tile

TK = 64                 # head dim per TMA box of q and k: one 128-byte swizzle row of bf16
HEAD_DIMS = (64, 128)   # q's tile a box per 64 columns; the output one wgmma tile of D columns
BLOCKS_KV = (64, 128)   # the scores of a key block: one wgmma tile of block_kv columns
BLOCK_Q = 64            # query rows per block: one warp group's wgmma M
QUAD = 4                # the lanes of a quad: they hold a fragment row's column pairs


COMPUTE_WARP_GROUPS = (1, 2)   # warp groups of 64 query rows each per block


@dataclass(frozen=True)
class KernelShape:
    """The kernel's structure (``AttentionParams`` names each): ``stages`` of k_j and v_j over the key-block loop
    (1: a single-stage load in the iteration that reads it), ``warp_specialized`` (a producer warp group issues the
    pipeline's loads; ``register_split``: its and the compute warp groups' ``setmaxnreg`` counts, or None),
    ``compute_warp_groups`` of 64 query rows each per block; ``ping_pong``: those warp groups take turns on the
    tensor-core sections of each key block (``TensorView.take_turns``; needs ``compute_warp_groups=2``)."""

    stages: int = 1
    warp_specialized: bool = False
    register_split: tuple[int, int] | None = None
    compute_warp_groups: int = 1
    ping_pong: bool = False
    persistent: bool = False
    blocks: int | None = None       # persistent: the grid's blocks (None: the target's SM count)
    overlap: bool = False           # p_j @ v_j issued in iteration j + 1 (``TensorView.defer``)

    @property
    def grid_blocks(self) -> int | None:
        """Persistent: the blocks that walk the tiles (``blocks``, or the target's SM count); None otherwise."""
        if not self.persistent:
            return None
        return self.blocks if self.blocks is not None else current_target().sm_count

    def validate(self, where: str = "KernelShape") -> None:
        """The rules of each field (``where`` names the caller, e.g. ``AttentionParams``)."""
        self._validate_persistent(where)
        s = self.stages
        if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= MAX_USEFUL_STAGES:
            raise ScheduleError(f"{where}.stages: {s!r} must be an int in [1, {MAX_USEFUL_STAGES}] (the K/V circular "
                                f"buffer's depth over the key blocks; 1: no pipeline)")
        if not isinstance(self.warp_specialized, bool):
            raise ScheduleError(f"{where}.warp_specialized: {self.warp_specialized!r} must be a bool")
        if self.warp_specialized and s < 2:
            raise ScheduleError(f"{where}.warp_specialized: needs stages >= 2 (got {s}): the producer warp group fills "
                                f"the stages of a circular buffer that the compute warp groups release")
        w = self.compute_warp_groups
        if isinstance(w, bool) or w not in COMPUTE_WARP_GROUPS:
            raise ScheduleError(f"{where}.compute_warp_groups: {w!r} must be one of {COMPUTE_WARP_GROUPS} (warp groups "
                                f"of 64 query rows per block)")
        if not isinstance(self.ping_pong, bool):
            raise ScheduleError(f"{where}.ping_pong: {self.ping_pong!r} must be a bool")
        if self.ping_pong and w < 2:
            raise ScheduleError(f"{where}.ping_pong: needs compute_warp_groups=2 (got {w}): the compute warp groups "
                                f"take turns on the tensor cores")
        if not isinstance(self.overlap, bool):
            raise ScheduleError(f"{where}.overlap: {self.overlap!r} must be a bool")
        if self.overlap and s < 2:
            raise ScheduleError(f"{where}.overlap: needs stages >= 2 (got {s}): p_j @ v_j, issued in iteration j + 1, "
                                f"still reads v_j's tile while block j + 1's is loaded, so v_j needs a stage of its own")
        regs = self.register_split
        if regs is None:
            return
        target = current_target()
        (lo, hi), step = target.setmaxnreg_range, target.setmaxnreg_step
        if not self.warp_specialized:
            raise ScheduleError(f"{where}.register_split: {regs!r} needs warp_specialized=True (setmaxnreg moves "
                                f"registers from the producer warp group to the compute ones)")
        if not (isinstance(regs, tuple) and len(regs) == 2 and all(
                isinstance(r, int) and not isinstance(r, bool) and lo <= r <= hi and r % step == 0 for r in regs)):
            raise ScheduleError(f"{where}.register_split: {regs!r} must be None or (producer, compute) register "
                                f"counts, multiples of {step} in [{lo}, {hi}] (setmaxnreg)")
        group = target.warp_group_size
        total = group * regs[0] + group * w * regs[1]
        if total > target.registers_per_sm:
            raise ScheduleError(f"{where}.register_split: {regs} gives a producer and {w} compute warp groups "
                                f"{total} registers, over the {target.registers_per_sm} of an SM; lower the counts")

    def _validate_persistent(self, where: str) -> None:
        if not isinstance(self.persistent, bool):
            raise ScheduleError(f"{where}.persistent: {self.persistent!r} must be a bool")
        b = self.blocks
        if b is not None and (isinstance(b, bool) or not isinstance(b, int) or b < 1):
            raise ScheduleError(f"{where}.blocks: {b!r} must be None (the target's SM count) or a positive int (the "
                                f"persistent grid's blocks)")
        if b is not None and not self.persistent:
            raise ScheduleError(f"{where}.blocks: {b} needs persistent=True (the blocks that walk the tiles; without "
                                f"it the grid has a block per tile)")
        if self.persistent and self.warp_specialized:
            raise ScheduleError(f"{where}.persistent: needs warp_specialized=False: a producer warp group's pipeline "
                                f"runs across the outermost serial loop, here the tile loop, its stage and parity "
                                f"counted from tile x key blocks + j, which the per-tile causal bound of the key-block "
                                f"loop breaks (a Pipelined K/V buffer runs once per tile, its barriers initialized per "
                                f"tile)")
        if self.persistent and self.ping_pong:
            raise ScheduleError(f"{where}.persistent: with ping_pong=True is not built: the warp groups' turns are "
                                f"placed around one key-block loop's run, not yet across a tile loop around it")

    def check_shared_memory(self, head_dim: int, block_kv: int, where: str = "KernelShape") -> None:
        """q's tile and ``stages`` k_j and v_j tiles fit the target's shared memory of a block."""
        size = DataType.BFloat16.size
        q = self.compute_warp_groups * BLOCK_Q * head_dim * size
        kv = self.stages * 2 * block_kv * head_dim * size
        limit = current_target().smem_per_block
        if self.stages > 1 and q + kv > limit:
            raise ScheduleError(f"{where}.stages: q's tile ({q} bytes) and {self.stages} stages of k_j and v_j "
                                f"({kv} bytes at block_kv {block_kv}, head dim {head_dim}) take {q + kv} bytes of "
                                f"shared memory, over the target's {limit} per block: use fewer stages")


SEPARATE_TILES_BYTES = 48 * 1024   # q's, k_j's and v_j's tiles at most this: 4 blocks fit an SM's 228 KB


def _tiles_apart(k_s: TensorView, v_s: TensorView, block_kv: int, head_dim: int | None) -> None:
    """k_j and v_j in memory of their own (``set_shared_reuse(False)``) where the block's three tiles take at most
    ``SEPARATE_TILES_BYTES``: v_j taking k_j's memory costs a block barrier per key block, and the registers of the
    warp group, not shared memory, bound the blocks per SM there (5 on an H100 at D = 64). Larger tiles (D = 128,
    128 keys: 64 KB, k_j's tile 64 columns of D) share."""
    if head_dim is None:
        return
    tiles = (BLOCK_Q * head_dim + block_kv * TK + block_kv * head_dim) * DataType.BFloat16.size   # q, k_j, v_j
    if tiles <= SEPARATE_TILES_BYTES:
        k_s.set_shared_reuse(False)
        v_s.set_shared_reuse(False)


def _rows_first(tv: TensorView, blocked: bool = True, groups: int = 1, blocks: int | None = None) -> None:
    """``[(nb,) B, H, Sq, ...]`` (``blocked``: with the key-block axis ``nb`` first) -> ``[BH (BIDy), Sq/64 (BIDx),
    (nb,) 64, ...]``: the block's tile first, then the key-block loop, then the tile's rows and what follows them.
    With ``groups`` compute warp groups the tile is ``groups x 64`` rows, ``[.., (nb,) W (TIDy), 64, ...]``.
    Persistent (``blocks``): the tiles merged, ``T = BH x Sqo`` (a (batch, head)'s query tiles one after the other),
    and split by the grid, ``[T / blocks, blocks (BIDx), (nb,) ...]``: each block walks the tiles ``blockIdx.x,
    blockIdx.x + blocks, ...`` in a serial loop (``_query_tile`` finds the tile's query axis in the merge)."""
    wgmma_m = current_target().wgmma.m
    first = 1 if blocked else 0
    tv.merge(first, first + 1)                      # [(nb,) BH, Sq, ...]
    tv.split(first + 1, wgmma_m * groups)           # [(nb,) BH, Sqo, 64 W, ...]
    if groups > 1:
        tv.split(first + 2, groups, inner_split=False)   # [(nb,) BH, Sqo, W, 64, ...]
        tv.axis(first + 2).parallelize(ParallelType.TIDy)
    if blocks is not None:
        tv.merge(first, first + 1)                  # [(nb,) T, ...]
        tv.split(first, blocks)                     # [(nb,) T / blocks, blocks, ...]
    if blocked:
        tv.reorder({0: 2, 1: 0, 2: 1})              # [BH, Sqo, nb, 64, ...]
    if blocks is None:
        tv.axis(0).parallelize(ParallelType.BIDy)
    tv.axis(1).parallelize(ParallelType.BIDx)


def _query_tile(tv: TensorView) -> IterDomain:
    """The query tile axis ``Sqo`` of a tensor laid out by ``_rows_first`` (the outer part of the query axis' split):
    a loop axis, or merged into the persistent tile index."""
    query = tv.logical[-2]
    (split,) = [t for t in tv.transforms if isinstance(t, Split) and t.input is query]
    return split.outer


def _per_row(tv: TensorView, at: int) -> None:
    """Axis ``at`` (64 rows) laid out as the fragment's rows with the quad's lanes: ``[w4 r8 b4 (TIDx), j2 (UR)]``
    for row ``16 w + 8 j + r``, as the accumulator fragment numbers its rows, ``b4`` a loop-only broadcast
    (``broadcast_loop``): the 4 lanes of the quad holding the row in the fragment compute its value alike, each in
    its registers, where the fragment's threads read it."""
    tv.split(at, 16).split(at + 1, 8)               # [w4, j2, r8]
    tv.reorder({at + 1: at + 2, at + 2: at + 1})    # [w4, r8, j2]
    tv.merge(at, at + 1)                            # [w r, j2]
    tv.broadcast_loop(at + 1, QUAD)                 # [w r, b4, j2]
    tv.merge(at, at + 1)                            # [w r b, j2]
    tv.axis(at).parallelize(ParallelType.TIDx)
    tv.axis(at + 1).parallelize(ParallelType.Unroll)


def schedule_on_tensor_cores(fusion: Fusion, r: OnlineSoftmax, shape: KernelShape = KernelShape()) -> None:
    """Schedule the rewritten attention ``fusion`` (its record ``r``, from ``online_softmax``) as the wgmma kernel
    described above (in place), with the structure ``shape``."""
    shape.validate()
    if r.score_matmul is None or len(r.out.shape_ids) != 4:
        raise ScheduleError("schedule_on_tensor_cores: it takes attention of [B, H, S, D] q, k and v whose scores are "
                            "one matmul q @ transpose(k) (online_softmax's record has no score matmul or another rank)")
    wgmma = current_target().wgmma
    k_step = wgmma.k_for(DataType.BFloat16.size)
    q = fusion.inputs[0]
    (out,) = fusion.outputs
    s_mm = r.score_matmul
    kb = s_mm.definition.inputs[1]
    vb = r.values
    head_dim = q.logical[-1].extent.const_value()
    if head_dim is not None:
        shape.check_shared_memory(head_dim, r.block)
    w = shape.compute_warp_groups
    m = 1 if w > 1 else 0                           # the warp group axis W after the key-block loop
    pipelined = shape.stages > 1
    blocks = shape.grid_blocks
    with fusion:
        q_s = q.cache_after(LoadStoreOpType.TMA)
        k_s = kb.cache_after(LoadStoreOpType.TMA)
        v_s = vb.cache_after(LoadStoreOpType.TMA)
    for tv in (q_s, k_s, v_s):
        tv.set_memory_type(MemoryType.Shared)
    if not pipelined:
        _tiles_apart(k_s, v_s, r.block, head_dim)

    # the tensors between the scores' matmul and the probabilities: the fragment of s_j
    fragment = [tv for tv in _between(s_mm, r.probs)
                if tv is not s_mm and len(tv.logical) == len(s_mm.logical) - 1]
    broadcasts = [tv for tv in fragment if any(i.is_broadcast for i in tv.logical)]
    fragment = [tv for tv in fragment if tv not in broadcasts] + [r.block_sum]
    per_row = [r.prev_max, r.new_max, r.safe_max, r.alpha, r.row_sum] + _between_rows(r)
    # the per-row values too: every lane of a quad holds its rows' values (``_per_row``)
    for tv in [s_mm, r.block_out, r.out_sum, r.out] + fragment + per_row:
        tv.set_memory_type(MemoryType.Local)

    # s_j = q @ k_j^T: [BH, Sqo, nb, (W,) Ko, Kr (UR), M64, N (block_kv), K16 (Mma)]
    _rows_first(s_mm, groups=w, blocks=blocks)   # [BH, Sqo, nb, (W,) 64, N, rD]
    mma_k_loop(s_mm, 3 + m, TK, k_step)             # [BH, Sqo, nb, (W,) Ko, Kr, 64, N, K16]
    # q's tile, loaded once per block before the key blocks: [BH, Sqo, Dc (UR), M64 (Bulk), TK (Bulk)], a box per
    # 64 columns of D, which the K loop of every key block reads
    q_s.compute_at(s_mm, 2)                         # [BH, Sqo, M64, D]
    _last(q_s, q_s.logical[-1])                     # (W tiles: the rows' axis is left after D)
    q_s.split(3, TK)                                # [BH, Sqo, M64, Dc, TK]
    q_s.reorder({3: 2})                             # [BH, Sqo, Dc, M64, TK]
    q_s.axis(2).parallelize(ParallelType.Unroll)
    k_major_tile(q_s, 3)
    if pipelined:
        # k_j's whole tile at the key-block loop, a box per 64 columns of D: [BH, bSqo, nb, Dc (UR), bM, N, TK]
        k_s.compute_at(s_mm, 3)                     # [BH, bSqo, nb, bM, N, D]
        _broadcast_at(k_s, 3)
        k_s.split(5, TK)                            # [BH, bSqo, nb, bM, N, Dc, TK]
        k_s.reorder({5: 3})                         # [BH, bSqo, nb, Dc, bM, N, TK]
        k_s.axis(3).parallelize(ParallelType.Unroll)
        k_major_tile(k_s, 5)
    else:
        # k_j's tile, D contiguous (K-major): [BH, bSqo, nb, Ko, bM64, N (Bulk), TK (Bulk)]
        k_s.compute_at(s_mm, 4 + m)
        k_major_tile(k_s, 5 + m)

    # the scores' fragment: [BH, Sqo, nb, TIDx, N/8, 2, 2] (reductions: the quad's column pairs a lane group)
    for tv in fragment:
        _rows_first(tv, groups=w, blocks=blocks)
        schedule_mma_fragment(tv, 3 + m)
    for tv in broadcasts:                           # the row values broadcast back: their consumer's layout
        _like_consumer(tv)
    # the key mask (keys past Skv; the causal mask) from iotas: replayed as the scores and computed where read
    operands = s_mm.ancestors() | {s_mm}
    score_inputs = r.scores.ancestors()
    mask = [tv for tv in fusion.used_tensors() if tv in score_inputs and not tv.is_input and tv not in fragment
            and tv not in operands and s_mm not in tv.ancestors()]
    chains = _computed_view_chains(fusion)
    in_chains = {tv for first, end in chains for tv in _between(first, end)}
    # the mask's operands of fewer axes (the key index; the query index), broadcast to the scores' rows or keys:
    # computed per element inside the fragment's loops, each thread its own keys and rows, in registers
    partial = _partial_operands(mask, r.scores)
    chains = [(first, end) for first, end in chains if end not in partial]
    for tv in mask:
        if tv not in in_chains and tv not in partial:
            tv.transform_like(r.scores)
            tv.parallelize_like(r.scores)
    for tv in reversed([tv for tv in fusion.used_tensors() if tv in partial]):
        _compute_per_element(tv, r.scores, 3)
    # the per-row recurrence: [BH, Sqo, nb, TIDx (w r b4), j2]; the row sum over nb: [BH, Sqo, rnb, TIDx, j2]
    for tv in per_row:
        _rows_first(tv, groups=w, blocks=blocks)
        _per_row(tv, 3 + m)

    # o_j = cast(e_j) @ v_j: [BH, Sqo, nb, Kr (UR), M64, D, K16 (Mma)], the A operand in registers
    o_mm = r.block_out
    _rows_first(o_mm, groups=w, blocks=blocks)   # [BH, Sqo, nb, (W,) 64, D, rK]
    o_mm.split(5 + m, k_step)                       # [BH, Sqo, nb, (W,) 64, D, Kr, K16]
    o_mm.reorder({3 + m: 4 + m, 4 + m: 5 + m, 5 + m: 3 + m})   # [BH, Sqo, nb, (W,) Kr, 64, D, K16]
    o_mm.axis(3 + m).parallelize(ParallelType.Unroll)
    for ax in (4 + m, 5 + m, 6 + m):
        o_mm.axis(ax).parallelize(ParallelType.Mma)
    # v_j's tile, D contiguous (MN-major): [BH, bSqo, nb, Dc (UR), bM64, K (Bulk), 64 (Bulk)]
    v_s.compute_at(o_mm, 3)                         # [BH, bSqo, nb, bM64, D, K]
    _broadcast_at(v_s, 3)
    n_major_tile(v_s, mn=4, broadcast=3, k=5, at=3)

    # the output's rescaled sum over the key blocks, accumulated in place, and the epilogue
    alpha_b = r.out_sum.definition.inputs[1]
    _rows_first(r.out_sum, groups=w, blocks=blocks)   # [BH, Sqo, rnb, (W,) 64, D]
    schedule_mma_fragment(r.out_sum, 3 + m)
    _like_consumer(alpha_b)
    l_b = r.out.definition.inputs[1]
    for tv in (r.out, out):
        _rows_first(tv, blocked=False, groups=w, blocks=blocks)   # [BH, Sqo, (W,) 64, D]
        schedule_mma_fragment(tv, 2 + m, vectorize=tv is out)
    _like_consumer(l_b)
    # the views of k and v are read through by their TMA loads, never computed: they are not inlined
    # (a pipelined k_j stays at the key-block loop: its whole tile is a stage)
    inline_most(fusion, [tv for tv in fusion.used_tensors() if tv is not r.exp and view_source(tv) is None
                         and not (pipelined and tv is k_s)])
    # views of a computed tensor (the causal mask's blocked key iota): computed in the loops of the chain's end
    for first, end in chains:
        first.compute_at(end, -1)
    # e_j is read by the row sum's loops and the cast's: computed in the loops both share, the row's thread
    r.exp.inline_at(4 + m)
    alpha_b.compute_at(r.out_sum, 4 + m)
    # causal: the key-block loop stops at the last block the tile's rows see ([BH, Sqo (BIDx), nb, ...])
    # (persistent: the tile's query axis, merged into the tile index, which the serial tile loop and BIDx walk)
    rows = 1 if blocks is None else _query_tile(r.scores)
    if r.key_limit is not None:
        bound_key_blocks(r, r.scores, 2, rows)
    if r.valid_where is not None or r.causal_where is not None:   # the masks only on the blocks that need them
        mask_only_where_needed(r, r.scores, 2, rows)
    if pipelined:
        _pipeline_key_blocks(k_s, v_s, shape)
    if shape.ping_pong:     # the warp groups' wgmmas of a key block in turn (the key-block loop: s_j's axis 2)
        s_mm.take_turns(2, ParallelType.TIDy)
    if shape.overlap:       # p_j @ v_j issued after q @ k_{j+1}^T, under block j + 1's softmax
        # s_j's K loop (D / 64 tiles) unrolled: its wgmmas one group right in the key-block loop's body, after which
        # o_{j-1}'s are issued while they run (its wait then leaves o_{j-1}'s in flight)
        s_mm.axis(3 + m).parallelize(ParallelType.Unroll)
        o_mm.defer(2)


def _pipeline_key_blocks(k_s: TensorView, v_s: TensorView, shape: KernelShape) -> None:
    """k_j's and v_j's tiles circular-buffered over the key-block loop, ``shape.stages`` deep: TMA loads guarded by
    empty mbarriers (Pipelined), or issued by a producer warp group on a padded TIDy (warp-specialized). The causal
    bound of the loop and its two ranges (unmasked, masked) are the loop's: the producer walks the bounded loop,
    and each range of the compute loop waits for the same stages."""
    pipeline = (WarpSpecialized(on=ParallelType.TIDy, num_registers=shape.register_split)
                if shape.warp_specialized else Pipelined(uses_mbarrier_for_war=True))
    for tv in (k_s, v_s):
        tv.circular_buffer(shape.stages, type=pipeline)


def _last(tv: TensorView, axis) -> None:
    """Move ``axis`` (an IterDomain of ``tv``'s loop) to the end of the loop, where it is not already."""
    at = tv.loop.index(axis)
    if at != tv.ndim - 1:
        tv.reorder({at: tv.ndim - 1})


def _broadcast_at(tv: TensorView, at: int) -> None:
    """Move the one loop broadcast of ``tv`` right of ``at`` (the rows of an operand tile that lacks them) to
    ``at``: with W compute warp groups the compute-at replay leaves it last."""
    (b,) = [k for k in range(at, tv.ndim) if tv.loop[k].is_broadcast]
    if b != at:
        tv.reorder({b: at})


def _computed_view_chains(fusion: Fusion) -> list[tuple[TensorView, TensorView]]:
    """Each chain of views (pads, reshapes, permutes) of a tensor read from nothing (an iota), as (that tensor, the
    chain's end)."""
    chains = []
    for end in fusion.used_tensors():
        readers = end.consumers()
        if not is_view_expr(end.definition) or any(is_view_expr(c.definition) for c in readers):
            continue
        first = end
        while is_view_expr(first.definition.inputs[0].definition):
            first = first.definition.inputs[0]
        start = first.definition.inputs[0]
        if not start.is_input and start.definition is not None and not start.definition.tensor_inputs():
            chains.append((start, end))
    return chains


def _partial_operands(mask: list[TensorView], scores: TensorView) -> set[TensorView]:
    """The tensors computed into the broadcasts of ``mask`` that give the scores' rank to a tensor of fewer axes
    (``broadcast(key < Skv)`` of ``[nb, block]``, ``broadcast(query)`` of ``[Sq]``, ``broadcast(blocked key iota)``):
    those broadcasts' inputs and what they are computed from."""
    rank = len(scores.logical)
    found: set[TensorView] = set()
    for b in mask:
        if not isinstance(b.definition, BroadcastOp) or len(b.logical) != rank:
            continue
        x = b.definition.inputs[0]
        found |= {tv for tv in x.ancestors() | {x} if not tv.is_input}
    return found


def _compute_per_element(tv: TensorView, scores: TensorView, blocks: int) -> None:
    """Compute ``tv`` in all the loops of its consumer (laid out as the fragment: each thread its own keys and rows);
    a value of the key block alone (``j * block_kv``: its only axis the scores' key-block axis; inside the key loops
    it would only be repeated) in the key-block loop (``blocks``, the position after it)."""
    consumers = tv.consumers()
    if len(consumers) != 1:
        raise ScheduleError(f"schedule_on_tensor_cores: T{tv.name}, a mask operand broadcast to the scores, has "
                            f"{len(consumers)} consumers; it is computed inside its consumer's loops, so it takes one")
    (consumer,) = consumers
    block_axis = replay.root_map_between(scores, tv).get(scores.logical[0])
    own = [i for i in tv.logical if not i.is_broadcast]
    tv.compute_at(consumer, blocks if own == [block_axis] else -1)


def _like_consumer(tv: TensorView) -> None:
    """A broadcast of row values laid out as its (one) consumer, the fragment: its broadcast columns replayed."""
    (consumer,) = tv.consumers()
    tv.transform_like(consumer)
    tv.parallelize_like(consumer)


def _between(start: TensorView, end: TensorView) -> list[TensorView]:
    """The tensors on the paths from ``start`` to ``end``, both included, in fusion order."""
    before = set(end.ancestors()) | {end}
    return [tv for tv in end.fusion.used_tensors() if tv in before and (tv is start or start in tv.ancestors())]


def _between_rows(r: OnlineSoftmax) -> list[TensorView]:
    """The per-row tensors of the recurrence not named in ``r`` (``mnew == -inf``, ``mprev - mnew``)."""
    named = {r.prev_max, r.new_max, r.safe_max, r.alpha}
    return [tv for tv in _between(r.prev_max, r.alpha) if tv not in named and len(tv.logical) == len(r.alpha.logical)
            and not any(i.is_broadcast for i in tv.logical)]
