"""The online-softmax rewrite: ``softmax(s) @ v`` over key blocks with a running max (FlashAttention's recurrence).

A row softmax whose reduction axis is the contraction axis of the matmul that reads it,

    m = max(s, kv);  e = exp(s - m);  l = sum(e, kv);  o = cast(e / l) @ v

needs every score of a row before the first product. The rewrite splits the key axis ``kv`` into blocks of
``block`` keys, moved to a new leading axis ``nb``, and carries the softmax across the blocks:

    s_b    = scores of block j                           [nb, ..., Sq, block]  (-inf past the last key)
    mblk   = max(s_b, -1)                                 the block's row max
    mprev  = cummax(mblk, 0, exclusive=True)              the running max before block j
    mnew   = maximum(mprev, mblk)                         ... and after it
    alpha  = exp(mprev - mnew)                            how much the running sums shrink at block j
    e_b    = exp(s_b - mnew)
    l      = rescaled_sum(sum(e_b, -1), alpha, 0)         sum_j rowsum(e_b) * prod_{k > j} alpha_k
    o      = rescaled_sum(cast(e_b) @ v_b, alpha, 0) / l  the division after the second matmul

Every tensor the scores are computed from is re-expressed in the blocked layout: the inputs (and any tensor
that is not a pointwise op, permute, broadcast or the scores' matmul) are padded to whole blocks, reshaped and
permuted so ``nb`` leads; the ops between them and the scores (a scale, a causal mask of iotas) are replayed on
the blocked tensors. ``mnew`` is replaced by 0 in the exponents of rows with no key yet (all ``-inf``), so a
masked block gives zeros rather than NaN. Mathematically ``o`` is unchanged: each block's ``exp(s - mnew_j)``
times ``exp(mnew_j - m)`` (the product of the later alphas) is ``exp(s - m)``.

``online_softmax(fusion, block)`` rewrites every such matmul of an unscheduled fusion in place and returns a
record of each (``OnlineSoftmax``: the tensors a scheduler places); ``find_softmax_matmuls(fusion)`` finds
them, or says why a matmul is not one.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import ops
from .exprs import BinaryOp, BroadcastOp, CastOp, LoadStoreOp, MmaOp, ReductionOp, UnaryOp, WhereOp
from .fusion import Fusion
from .iter_domain import IterDomain, Split
from .key_limit import causal_where, key_limit
from .op_core import binary, unary
from .op_pad import pad_to_multiple
from .scalar import Val, ceil_div
from .tensor_view import TensorView
from .types import DataType, ScheduleError

NEG_INF = float("-inf")


@dataclass(frozen=True)
class SoftmaxMatmul:
    """A matmul reading a row softmax over its contraction axis, before the rewrite."""

    scores: TensorView          # s, the softmax's input [..., Sq, Skv]
    row_max: TensorView         # max(s, -1)
    exp: TensorView             # exp(s - m)
    row_sum: TensorView         # sum(e, -1)
    probs: TensorView           # e / l
    casts: tuple[TensorView, ...]   # the casts from probs to the matmul's operand
    matmul: TensorView          # o = cast(p) @ v
    values: TensorView          # v


@dataclass(frozen=True)
class OnlineSoftmax:
    """The tensors of one rewritten softmax-matmul (blocked tensors lead with the block axis ``nb``)."""

    block: int
    scores: TensorView          # s_b [nb, ..., Sq, block], masked past the last key
    score_matmul: TensorView | None  # the blocked Q K^T accumulator, when the scores come from one
    block_max: TensorView       # mblk [nb, ..., Sq]
    prev_max: TensorView        # mprev (exclusive running max)
    new_max: TensorView         # mnew
    safe_max: TensorView        # mnew with 0 for rows that have seen no key
    alpha: TensorView           # exp(mprev - mnew)
    exp: TensorView             # e_b
    block_sum: TensorView       # sum(e_b, -1)
    row_sum: TensorView         # l = rescaled_sum(block_sum, alpha, 0)
    probs: TensorView           # cast(e_b), the second matmul's A operand
    values: TensorView          # v_b [nb, ..., block, D]
    block_out: TensorView       # cast(e_b) @ v_b [nb, ..., Sq, D]
    out_sum: TensorView         # rescaled_sum(block_out, alpha, 0)
    out: TensorView             # out_sum / l, which replaced the original matmul
    # row i of the scores sees no key j >= i + key_limit (a causal mask, ``key_limit.key_limit``); None: no such
    # mask, and ``no_key_limit`` says why
    key_limit: int | None = None
    no_key_limit: str = ""
    # the wheres of the blocked scores a key block may need: the keys past the last one (None when the block divides
    # the keys) and the blocked causal where (``key_limit.causal_where``; None when there is none)
    valid_where: TensorView | None = None
    causal_where: TensorView | None = None


# ---------------------------------------------------------------------------------------------- matching
def _single_use(tv: TensorView, what: str) -> str | None:
    if tv.is_output:
        return f"T{tv.name} ({what}) is a fusion output"
    if len(tv.uses()) != 1:
        return f"T{tv.name} ({what}) has {len(tv.uses())} uses; the rewrite needs it read once"
    return None


def _last_axis_reduction(tv: TensorView, op: str) -> TensorView | None:
    """The input of ``tv`` when ``tv = op(x, -1)`` over x's last axis, else None."""
    d = tv.definition
    if not isinstance(d, ReductionOp) or d.op != op or d.rfactor_partial:
        return None
    x = d.inputs[0]
    return x if d.axes == (len(x.shape_ids) - 1,) else None


def _broadcast_of_last(tv: TensorView) -> TensorView | None:
    """``x`` when ``tv = broadcast(x)`` adds exactly the last axis."""
    d = tv.definition
    if not isinstance(d, BroadcastOp):
        return None
    flags = d.is_broadcast_dims
    return d.inputs[0] if flags and flags[-1] and not any(flags[:-1]) else None


def _normalized(p: TensorView) -> tuple[TensorView, list[TensorView], TensorView] | str:
    """``(e, the tensors between p and l, l)`` when ``p = e / broadcast(l)`` or ``p = e * broadcast(1 / l)`` with
    ``l = sum(e, -1)``; else why not."""
    d = p.definition
    tensors = isinstance(d, BinaryOp) and len(d.tensor_inputs()) == 2
    if not (tensors and d.op in ("div", "mul")):
        return f"T{p.name} is not a softmax's e / sum(e) or e * (1 / sum(e)) (cast or not)"
    e, b = d.inputs
    r = _broadcast_of_last(b)
    between = [b]
    l_ = r
    if d.op == "mul" and r is not None:
        rd = r.definition
        one = isinstance(rd, BinaryOp) and rd.op == "div" and not isinstance(rd.inputs[0], TensorView) \
            and rd.inputs[0] == 1 and isinstance(rd.inputs[1], TensorView)
        l_ = rd.inputs[1] if one else None
        between.append(r)
    if l_ is None or _last_axis_reduction(l_, "sum") is not e:
        return f"T{p.name} does not normalize T{e.name} by sum(T{e.name}, -1) broadcast back"
    return e, between, l_


def match(o: TensorView) -> SoftmaxMatmul | str:
    """The softmax-matmul ``o`` is the result of, or why it is not one."""
    d = o.definition
    if not isinstance(d, MmaOp):
        return f"T{o.name} is not a matmul"
    a, v = d.inputs
    casts: list[TensorView] = []
    p = a
    while isinstance(p.definition, CastOp):
        casts.append(p)
        p = p.definition.inputs[0]
    normalized = _normalized(p)
    if isinstance(normalized, str):
        return f"T{o.name}'s A operand T{a.name}: {normalized}"
    e, between, l_ = normalized
    ed = e.definition
    if not (isinstance(ed, UnaryOp) and ed.op == "exp"):
        return f"T{e.name} is not an exp"
    diff = ed.inputs[0]
    dd = diff.definition
    if not (isinstance(dd, BinaryOp) and dd.op == "sub" and all(isinstance(x, TensorView) for x in dd.inputs)):
        return f"T{e.name} is not exp(s - max(s))"
    s, mb = dd.inputs
    m = _broadcast_of_last(mb)
    if m is None or _last_axis_reduction(m, "max") is not s:
        return f"T{diff.name} subtracts T{mb.name}, not max(T{s.name}, -1) broadcast back"
    if not s.dtype.is_float:
        return f"the scores T{s.name} are {s.dtype.name}; the online softmax runs on floats"
    for tv, what in ((m, "the row max"), (mb, "the broadcast row max"), (diff, "s - max"), (l_, "the row sum"),
                     *((t, "the row sum's broadcast or reciprocal") for t in between), (p, "the probabilities"),
                     *((c, "a cast") for c in casts)):
        reason = _single_use(tv, what)
        if reason is not None:
            return reason
    if sorted(x.name for x in e.consumers()) != sorted((l_.name, p.name)) or e.is_output:
        return f"T{e.name} = exp(s - max) is read by more than the row sum and the division"
    if s.is_output or sorted(x.name for x in s.consumers()) != sorted((m.name, diff.name)):
        return f"the scores T{s.name} are read by more than the softmax (or are an output)"
    if s.shape_ids[-1].is_broadcast:
        return f"the scores T{s.name} have a broadcast key axis"
    return SoftmaxMatmul(s, m, e, l_, p, tuple(casts), o, v)


def find_softmax_matmuls(fusion: Fusion) -> tuple[list[SoftmaxMatmul], list[str]]:
    """Every softmax-matmul of ``fusion``, and for each other matmul why it is not one."""
    found, reasons = [], []
    for e in fusion.exprs:
        if isinstance(e, MmaOp):
            r = match(e.output)
            (found if isinstance(r, SoftmaxMatmul) else reasons).append(r)
    return found, reasons


# ---------------------------------------------------------------------------------------------- blocking
class _Blocker:
    """Re-expresses tensors along one key axis in blocks: ``block(t, axis)`` is ``t`` with ``axis`` (of extent
    ``n``) split into ``ceilDiv(n, block)`` blocks moved to a new leading axis and ``block`` keys left in place."""

    def __init__(self, block: int, n: Val) -> None:
        self.block = block
        self.n = n
        self.memo: dict[tuple[TensorView, int], TensorView] = {}
        self.score_matmul: TensorView | None = None
        self.permutes: set[TensorView] = set()     # the permutes this rewrite made

    def block_of(self, t: TensorView, axis: int) -> TensorView:
        key = (t, axis)
        if key not in self.memo:
            self.memo[key] = self._block(t, axis)
        return self.memo[key]

    def operand(self, x: object, axis: int) -> object:
        """A pointwise operand: a tensor along the key axis is blocked; one broadcast along it, or a scalar,
        gets a leading broadcast block axis (or stays a scalar)."""
        if not isinstance(x, TensorView) or not x.shape_ids:
            return x
        if x.shape_ids[axis].is_broadcast:
            return ops.broadcast(x, [True] + [False] * len(x.shape_ids))
        return self.block_of(x, axis)

    def _block(self, t: TensorView, axis: int) -> TensorView:
        d = t.definition
        if t.is_input or d is None:
            return self._leaf(t, axis)
        if isinstance(d, UnaryOp):
            return unary(d.op, self.block_of(d.inputs[0], axis), t.dtype)
        if isinstance(d, CastOp):
            return ops.cast(self.block_of(d.inputs[0], axis), d.dtype)
        if isinstance(d, BinaryOp):
            return binary(d.op, *(self.operand(x, axis) for x in d.inputs))
        if isinstance(d, WhereOp):
            return ops.where(*(self.operand(x, axis) for x in d.inputs))
        if isinstance(d, LoadStoreOp) and d.permutation is not None:
            perm = d.permutation
            inner = self.block_of(d.inputs[0], perm[axis])
            return self._permute(inner, [0] + [p + 1 for p in perm])
        if isinstance(d, LoadStoreOp):
            return ops.set(self.block_of(d.inputs[0], axis))
        if isinstance(d, BroadcastOp):
            flags = list(d.is_broadcast_dims)
            if flags[axis]:                  # the key axis is new here: nothing to block
                return ops.broadcast(d.inputs[0], [True] + flags)
            inner_axis = axis - sum(flags[:axis])
            return ops.broadcast(self.block_of(d.inputs[0], inner_axis), [False] + flags)
        if isinstance(d, MmaOp):
            return self._matmul(t, d, axis)
        return self._leaf(t, axis)

    def _matmul(self, t: TensorView, d: MmaOp, axis: int) -> TensorView:
        a, b = d.inputs
        rank = len(t.shape_ids)
        if axis == rank - 1:                 # the key axis is N: block B along its last axis
            out = ops.matmul(a, self.block_of(b, len(b.shape_ids) - 1))
        elif axis == rank - 2:               # ... or M: block A along its row axis
            out = ops.matmul(self.block_of(a, len(a.shape_ids) - 2), b)
        else:
            raise ScheduleError(f"online softmax: the key axis is batch axis {axis} of the matmul T{t.name}; "
                                f"the scores' keys must be the matmul's M or N axis")
        if self.score_matmul is None:
            self.score_matmul = out
        return out

    def _leaf(self, t: TensorView, axis: int) -> TensorView:
        ids = t.shape_ids
        if any(i.is_broadcast for i in ids):
            raise ScheduleError(f"online softmax: T{t.name} (an operand of the scores) has broadcast axes and is "
                                f"not a broadcast op; it cannot be split into key blocks")
        n = ids[axis].extent
        x = t
        if not _divides(self.block, n):
            x = pad_to_multiple(t, axis, self.block, 0.0 if t.dtype.is_float else 0)
        shape: list[Val | int] = [i.extent for i in ids]
        shape[axis:axis + 1] = [ceil_div(n, self.block), self.block]
        x = ops.reshape(x, shape)
        return self._permute(x, [axis] + [k for k in range(len(shape)) if k != axis])

    def _permute(self, x: TensorView, order: list[int]) -> TensorView:
        """``permute(x, order)``, composed with a permute this rewrite made of ``x``; none for the identity."""
        d = x.definition
        if isinstance(d, LoadStoreOp) and d.permutation is not None and x in self.permutes:
            order = [d.permutation[k] for k in order]
            x = d.inputs[0]
        if order == sorted(order):
            return x
        out = ops.permute(x, order)
        self.permutes.add(out)
        return out


def _divides(block: int, n: Val) -> bool:
    c = n.const_value()
    return c is not None and c % block == 0


def _valid_keys(blocker: _Blocker, rank: int) -> TensorView:
    """``jo * block + ji < n`` as a boolean [nb, 1, ..., 1, block] tensor of the blocked scores' rank."""
    nb = ceil_div(blocker.n, blocker.block)
    start = ops.mul(ops.iota(nb, dtype=DataType.Int64), blocker.block)
    key = ops.add(ops.broadcast(start, [False, True]), ops.broadcast(ops.iota(blocker.block, dtype=DataType.Int64),
                                                                     [True, False]))
    valid = ops.lt(key, blocker.n)
    return ops.broadcast(valid, [False] + [True] * (rank - 2) + [False])


# ---------------------------------------------------------------------------------------------- the rewrite
def online_softmax(fusion: Fusion, block: int) -> list[OnlineSoftmax]:
    """Rewrite every softmax-matmul of ``fusion`` (unscheduled) over key blocks of ``block``; return them."""
    if isinstance(block, bool) or not isinstance(block, int) or block < 1:
        raise ScheduleError(f"online_softmax: block {block!r} must be a positive int (keys per block)")
    found, _ = find_softmax_matmuls(fusion)
    done = []
    with fusion:
        for sm in found:
            done.append(_rewrite(fusion, sm, block))
        fusion.remove_dead()
    return done


def _rewrite(fusion: Fusion, sm: SoftmaxMatmul, block: int) -> OnlineSoftmax:
    s = sm.scores
    limit = key_limit(s)
    causal = causal_where(s)
    rank = len(s.shape_ids)
    blocker = _Blocker(block, s.shape_ids[-1].extent)
    sb = blocker.block_of(s, rank - 1)
    blocked_causal = None if causal is None else blocker.memo.get((causal[0], rank - 1))
    valid_where = None
    if not _divides(block, blocker.n):
        sb = valid_where = ops.where(_valid_keys(blocker, rank + 1), sb, NEG_INF)
    last = [False] * rank + [True]
    bmax = ops.max(sb, -1)
    prev = ops.cummax(bmax, 0, exclusive=True)
    new = ops.maximum(prev, bmax)
    safe = ops.where(ops.eq(new, NEG_INF), 0.0, new)
    alpha = ops.exp(ops.sub(prev, safe))
    e = ops.exp(ops.sub(sb, ops.broadcast(safe, last)))
    bsum = ops.sum(e, -1)
    row_sum = ops.rescaled_sum(bsum, alpha, 0)
    probs = e
    for c in reversed(sm.casts):
        probs = ops.cast(probs, c.dtype)
    v = sm.values
    vb = blocker.block_of(v, len(v.shape_ids) - 2)
    block_out = ops.matmul(probs, vb)
    out_sum = ops.rescaled_sum(block_out, ops.broadcast(alpha, [False] * rank + [True]), 0)
    out = ops.div(out_sum, ops.broadcast(row_sum, [False] * (rank - 1) + [True]))
    fusion.replace_uses(sm.matmul, out)
    return OnlineSoftmax(block, sb, blocker.score_matmul, bmax, prev, new, safe, alpha, e, bsum, row_sum, probs, vb,
                         block_out, out_sum, out, limit if isinstance(limit, int) else None,
                         limit if isinstance(limit, str) else "", valid_where, blocked_causal)


# ---------------------------------------------------------------------------------------------- causal block skipping
def bound_key_blocks(r: OnlineSoftmax, tv: TensorView, blocks_axis: int, rows_axis: int | IterDomain) -> None:
    """Stop the loop over the key blocks (``tv``'s loop axis ``blocks_axis``, the rewrite's ``nb``) at the last block
    a row of the block's query tile can see: ``tv``'s loop axis ``rows_axis`` is the outer part of an inner split of
    the query axis by ``rows`` (a tile of ``rows`` queries per block index), so the tile's rows are below
    ``(t + 1) * rows`` and see no key from ``(t + 1) * rows - 1 + key_limit`` on. ``rows_axis`` may be that outer part itself, an IterDomain
    merged into a persistent kernel's tile index (no loop axis; ``TensorView.bound_loop`` computes its index).

    Why the skipped blocks change nothing: every score of them is -inf (the causal mask), so the block's row max is
    -inf, the running max stays (``mnew = mprev``, the exclusive cummax's carry unchanged), ``alpha = exp(mprev -
    mnew)`` is 1 (or 0 on a running sum still 0), ``exp(s - mnew)`` is 0: the rescaled sums ``l`` and ``o`` are
    unchanged. The blocks skipped are the last ones, so no later block reads what they would have carried."""
    where = f"bound_key_blocks: T{tv.name} axis {blocks_axis}"
    if r.key_limit is None:
        raise ScheduleError(f"{where}: cannot bound the key blocks of the scores T{r.scores.name}: "
                            f"{r.no_key_limit}")
    n = len(r.scores.logical)
    nb_id = tv.axis(blocks_axis).id
    if len(tv.logical) != n or nb_id is not tv.logical[0] or str(nb_id.extent) != str(r.scores.logical[0].extent):
        raise ScheduleError(f"{where} ({nb_id.label()}) is not the key-block axis nb of the rewrite (logical axis 0 "
                            f"of a tensor shaped as the blocked scores T{r.scores.name}, unsplit)")
    rows_id = rows_axis if isinstance(rows_axis, IterDomain) else tv.axis(rows_axis).id
    d = rows_id.definition
    if not (isinstance(d, Split) and d.inner_split and d.outer is rows_id and d.input is tv.logical[n - 2]):
        raise ScheduleError(f"{where}: its bound reads axis {rows_axis} ({rows_id.label()}), which must be the outer "
                            f"part of an inner split of the query axis {tv.logical[n - 2].label()} (a tile of queries "
                            f"per block index)")
    rows = d.factor
    tv.bound_loop(blocks_axis, outer=rows_axis, scale=rows, offset=rows - 1 + r.key_limit, divisor=r.block,
                  reason=f"key blocks past the tile's last query (row i sees no key j >= i + {r.key_limit}) are "
                         f"masked to -inf: no-ops of the online softmax")


def mask_only_where_needed(r: OnlineSoftmax, tv: TensorView, blocks_axis: int, rows_axis: int | IterDomain) -> None:
    """Run the loop over the key blocks (``tv``'s loop axis ``blocks_axis``) in two ranges: first the blocks every row
    of the block's query tile (``rows_axis``, as for ``bound_key_blocks``) sees whole, without the masks, then the
    rest (the diagonal blocks, the last partial one) masked.

    The key mask past the last key (``valid_where``) is true in the blocks below ``floor(Skv / block)``; the causal
    where (row i sees the keys j < i + limit) in the blocks below ``floor(max(0, t * rows + limit) / block)``, those
    whose last key the tile's first row ``t * rows`` sees (a padded key of the last block reads the key index 0, but
    the blocks below ``floor(Skv / block)`` have none)."""
    where = f"mask_only_where_needed: T{tv.name} axis {blocks_axis}"
    nb_id = tv.axis(blocks_axis).id
    n = len(r.scores.logical)
    if len(tv.logical) != n or nb_id is not tv.logical[0] or str(nb_id.extent) != str(r.scores.logical[0].extent):
        raise ScheduleError(f"{where} ({nb_id.label()}) is not the key-block axis nb of the rewrite (logical axis 0 "
                            f"of a tensor shaped as the blocked scores T{r.scores.name}, unsplit)")
    known: list[tuple[TensorView, int | None, int, object, int]] = []
    if r.valid_where is not None:
        known.append((r.valid_where, None, 0, _keys(r), r.block))
    if r.causal_where is not None and r.key_limit is not None:
        rows_id = rows_axis if isinstance(rows_axis, IterDomain) else tv.axis(rows_axis).id
        d = rows_id.definition
        if not (isinstance(d, Split) and d.inner_split and d.outer is rows_id and d.input is tv.logical[n - 2]):
            raise ScheduleError(f"{where}: the causal where's range reads axis {rows_axis} ({rows_id.label()}), which "
                                f"must be the outer part of an inner split of the query axis "
                                f"{tv.logical[n - 2].label()} (a tile of queries per block index)")
        known.append((r.causal_where, rows_axis, d.factor, r.key_limit, r.block))
    if not known:
        raise ScheduleError(f"{where}: the scores T{r.scores.name} have no mask to leave out (no keys past the last "
                            f"one, no causal where of their own)")
    tv.version_loop(blocks_axis, known, reason="key blocks every row of the tile sees whole need no mask")


def _keys(r: OnlineSoftmax) -> Val:
    """Skv: the keys the valid-key mask compares with (its ``lt(key, n)``)."""
    valid = r.valid_where.definition.inputs[0]
    d = valid.definition
    while isinstance(d, BroadcastOp):
        valid = d.inputs[0]
        d = valid.definition
    n = d.inputs[1]
    return n if isinstance(n, Val) else Val.const(n)
