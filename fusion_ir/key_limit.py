"""Which keys a row of masked attention scores can see: ``key_limit(s)`` reads a causal mask off the scores.

Scores ``s [..., Sq, Skv]`` written as ``where(cond, x, -inf)`` (nested wheres with ``-inf`` as the other value, and
``logical_and`` of conditions, each count) where one condition compares the key index ``j`` with the query index
``i``, each an ``iota`` (start an int, step 1) along its axis plus or minus int constants, broadcast:

    le(j, i + c)  ge(i + c, j)   ->  row i sees no key j >= i + c + 1
    lt(j, i + c)  gt(i + c, j)   ->  row i sees no key j >= i + c

``key_limit`` returns that ``limit`` (keys ``j >= i + limit`` are ``-inf`` in row ``i``), or a sentence saying why
the mask is not one it can read. torch's ``is_causal`` (top-left) is ``le(j, i)``: limit 1.
"""

from __future__ import annotations

from .exprs import BinaryOp, BroadcastOp, CastOp, IotaOp, LoadStoreOp, WhereOp
from .tensor_view import TensorView

NEG_INF = float("-inf")
# a comparison of (a, b) as "j < i + limit": (which operand is the key index, the limit's shift)
_FORMS = {"le": ("a", 1), "lt": ("a", 0), "ge": ("b", 1), "gt": ("b", 0)}


def key_limit(scores: TensorView) -> int | str:
    """The ``limit`` of the causal mask of ``scores``, or why there is none."""
    rank = len(scores.logical)
    if rank < 2:
        return f"the scores T{scores.name} have fewer than two axes (queries, keys)"
    conds = _masks(scores)
    if not conds:
        return (f"the scores T{scores.name} are not where(mask, x, -inf): no mask sets scores to -inf, so every key "
                f"block may hold a visible key")
    reasons = []
    for cond in conds:
        found = _causal(cond, rank)
        if isinstance(found, int):
            return found
        reasons.append(found)
    return "; ".join(reasons)


def causal_where(scores: TensorView) -> tuple[TensorView, int] | None:
    """``(w, limit)`` for the where ``w = where(cond, x, -inf)`` of the scores' chain whose whole condition is a
    causal comparison (no conjunct of an ``and``): where row i sees key j whole, ``w`` is ``x``."""
    rank = len(scores.logical)
    t = scores
    while isinstance(t, TensorView) and isinstance(t.definition, WhereOp):
        cond, x, other = t.definition.inputs
        if not _is_neg_inf(other) or not isinstance(cond, TensorView):
            return None
        found = _causal(cond, rank) if rank >= 2 else None
        if isinstance(found, int):
            return t, found
        t = x
    return None


def _masks(s: TensorView) -> list[TensorView]:
    """The conditions of the wheres that set ``s`` to -inf where false (``where(c, x, -inf)``, nested in ``x``),
    their ``logical_and`` operands split."""
    found: list[TensorView] = []
    d = s.definition
    while isinstance(d, WhereOp) and _is_neg_inf(d.inputs[2]) and isinstance(d.inputs[0], TensorView):
        found.extend(_conjuncts(d.inputs[0]))
        x = d.inputs[1]
        if not isinstance(x, TensorView):
            break
        d = x.definition
    return found


def _is_neg_inf(x: object) -> bool:
    return not isinstance(x, TensorView) and isinstance(x, (int, float)) and x == NEG_INF


def _conjuncts(cond: TensorView) -> list[TensorView]:
    d = cond.definition
    if isinstance(d, BinaryOp) and d.op == "logical_and" and all(isinstance(x, TensorView) for x in d.inputs):
        return [c for x in d.inputs for c in _conjuncts(x)]
    return [cond]


def _causal(cond: TensorView, rank: int) -> int | str:
    d = cond.definition
    if not isinstance(d, BinaryOp) or d.op not in _FORMS:
        return f"the mask T{cond.name} is not a comparison (le, lt, ge, gt) of the key and the query index"
    if len(cond.logical) != rank:
        return f"the mask T{cond.name} has {len(cond.logical)} axes, not the scores' {rank}"
    a, b = (_index_along(x, rank) for x in d.inputs)
    key_side, shift = _FORMS[d.op]
    key, query = (a, b) if key_side == "a" else (b, a)
    if key is None or query is None or key[0] != rank - 1 or query[0] != rank - 2:
        return (f"the mask T{cond.name} = {d.op}(...) does not compare the key index (an iota along the last axis, "
                f"plus an int) with the query index (an iota along the one before, plus an int) as j <= i + c or "
                f"j < i + c")
    return query[1] - key[1] + shift


def _index_along(x: object, rank: int) -> tuple[int, int] | None:
    """``(axis, c)`` when ``x`` (of ``rank`` axes) is ``iota + c`` along ``axis`` and broadcast along every other."""
    if not isinstance(x, TensorView):
        return None
    found = _affine(x)
    if found is None or len(x.logical) != rank:
        return None
    axis, c = found
    others = [i for k, i in enumerate(x.logical) if k != axis]
    return (axis, c) if all(i.is_broadcast for i in others) else None


def _affine(x: TensorView) -> tuple[int, int] | None:
    """``(axis, c)`` when ``x``'s value is its index along ``axis`` plus the int ``c`` (the only non-broadcast
    axis), through iota, broadcasts, int additions, casts and copies."""
    d = x.definition
    if isinstance(d, IotaOp):
        ok = isinstance(d.start, int) and not isinstance(d.start, bool) and d.step == 1
        return (0, d.start) if ok else None
    if isinstance(d, (CastOp, LoadStoreOp)) and not getattr(d, "permutation", None):
        inner = d.inputs[0]
        if not isinstance(inner, TensorView) or (isinstance(d, CastOp) and x.dtype.is_float != inner.dtype.is_float):
            return None
        return _affine(inner)
    if isinstance(d, BroadcastOp):
        inner = _affine(d.inputs[0])
        if inner is None:
            return None
        kept = [k for k, flag in enumerate(d.is_broadcast_dims) if not flag]
        return kept[inner[0]], inner[1]
    if isinstance(d, BinaryOp) and d.op in ("add", "sub"):
        t, c = d.inputs
        if not isinstance(t, TensorView) and d.op == "add":
            t, c = c, t
        if not isinstance(t, TensorView) or isinstance(c, (TensorView, bool)) or not isinstance(c, int):
            return None
        inner = _affine(t)
        if inner is None:
            return None
        return inner[0], inner[1] + (c if d.op == "add" else -c)
    return None
