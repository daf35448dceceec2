"""Scaled dot-product attention as a user writes it: ``softmax(q @ k^T / sqrt(D)) @ v``, torch SDPA's math.

``fusion_of(...)`` is the fusion as written, unscheduled: two matmuls around a row softmax, the softmax written
out (``max``, ``sub``, ``exp``, ``sum``, ``div`` with explicit broadcasts):

- ``s = (q @ transpose(k, -2, -1)) * 1/sqrt(D)``, float (an MMA's result);
- ``causal=True``: torch's ``is_causal`` (top-left aligned: query ``i`` sees keys ``j <= i``, also when
  ``Sq != Skv``), a mask ``iota(Skv)[None, :] <= iota(Sq)[:, None]`` broadcast over batch and heads and
  ``where(mask, s, -inf)``; key 0 is seen by every query, so no row is all ``-inf``;
- ``p = exp(s - max(s)) / sum(exp(s - max(s)))`` over the keys;
- ``o = cast(p, dtype) @ v`` (the second matmul's operands are ``dtype``: p is rounded there, as flash
  attention rounds it), the output ``cast(o, dtype)``.

``build(...)`` is that fusion scheduled by ``schedule()``, which gives it to the attention scheduler
(``fusion_ir.schedulers.schedule_attention``): the online-softmax rewrite computes the same thing a key block at a
time (``fusion_ir.online_softmax``, ``docs/attention.md``), then every tensor is scheduled. ``bench/attention.py``
measures it against torch's attention.
``reference(q, k, v, causal)`` is the same math in float64 numpy (p not rounded), ``make_inputs(...)`` fresh
bf16-representable inputs.
"""

from __future__ import annotations

import math

import numpy as np

from fusion_ir import DataType, Fusion, TensorView, ops
from fusion_ir.reference import round_bf16
from fusion_ir.schedulers import AttentionParams, schedule

DESCRIPTION = "attention softmax(q @ k^T / sqrt(D)) @ v, causal or not: the online-softmax rewrite, one kernel"
SIZES = [[(1, 2, 48, 32), (1, 2, 80, 32), (1, 2, 80, 32)]]    # build()'s constant shapes: q, k, v
TOLERANCE = 1e-2    # p is rounded to bf16 before the second matmul and the result is bf16


def _causal_mask(s: TensorView) -> TensorView:
    """``j <= i`` over ``s``'s last two axes ``[Sq, Skv]``, as ``[1, 1, Sq, Skv]`` (torch's ``is_causal``)."""
    rows = ops.broadcast(ops.iota(s.size(2)), [True, True, False, True])      # query i: [1, 1, Sq, 1]
    cols = ops.broadcast(ops.iota(s.size(3)), [True, True, True, False])      # key j:   [1, 1, 1, Skv]
    return ops.le(cols, rows)


def fusion_of(batch: int = 1, heads: int = 2, seq_q: int = 48, seq_kv: int = 80, head_dim: int = 32,
          causal: bool = False, dtype: DataType = DataType.BFloat16, symbolic: bool = False) -> Fusion:
    """The attention fusion as a user writes it, unscheduled: inputs q ``[batch, heads, seq_q, head_dim]``, k and v
    ``[batch, heads, seq_kv, head_dim]`` of ``dtype`` (``symbolic=True``: batch, heads and sequence lengths
    symbolic, any size; the head dim stays the constant ``head_dim``, as attention kernels are built per head
    dim), one output
    ``[batch, heads, seq_q, head_dim]`` of ``dtype``."""
    fusion = Fusion()
    with fusion:
        if symbolic:
            q, k, v = (fusion.add_input(shape=(-1, -1, -1, head_dim), dtype=dtype) for _ in range(3))
        else:
            q = fusion.add_input(shape=(batch, heads, seq_q, head_dim), dtype=dtype)
            k = fusion.add_input(shape=(batch, heads, seq_kv, head_dim), dtype=dtype)
            v = fusion.add_input(shape=(batch, heads, seq_kv, head_dim), dtype=dtype)
        s = ops.mul(ops.matmul(q, ops.transpose(k, -2, -1)), 1.0 / math.sqrt(head_dim))
        if causal:
            s = ops.where(_causal_mask(s), s, float("-inf"))
        row_max = ops.broadcast(ops.max(s, [3]), [False, False, False, True])
        e = ops.exp(ops.sub(s, row_max))
        row_sum = ops.broadcast(ops.sum(e, [3]), [False, False, False, True])
        p = ops.div(e, row_sum)
        o = ops.matmul(ops.cast(p, dtype), v)
        fusion.add_output(ops.cast(o, dtype))
    return fusion


def build(batch: int = 1, heads: int = 2, seq_q: int = 48, seq_kv: int = 80, head_dim: int = 32,
          causal: bool = False, dtype: DataType = DataType.BFloat16, params: AttentionParams | None = None,
          symbolic: bool = False) -> Fusion:
    """``fusion_of(...)`` scheduled by the attention scheduler (``params``, or its suggestion for any size where
    ``symbolic``)."""
    fusion = fusion_of(batch, heads, seq_q, seq_kv, head_dim, causal, dtype, symbolic)
    schedule(fusion, params=params)
    return fusion


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = False) -> np.ndarray:
    """The same math in float64 on the inputs as given (no rounding of p): ``[B, H, Sq, D]``."""
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    s = q @ np.swapaxes(k, -2, -1) / math.sqrt(q.shape[-1])
    if causal:
        seq_q, seq_kv = s.shape[-2:]
        s = np.where(np.arange(seq_kv)[None, :] <= np.arange(seq_q)[:, None], s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v


def input_shapes(batch: int, heads: int, seq_q: int, seq_kv: int, head_dim: int) -> list[tuple[int, ...]]:
    """The shapes of q, k and v."""
    return [(batch, heads, seq_q, head_dim), (batch, heads, seq_kv, head_dim), (batch, heads, seq_kv, head_dim)]


def make_inputs(batch: int, heads: int, seq_q: int, seq_kv: int, head_dim: int, seed: int) -> list[np.ndarray]:
    """Fresh float32 q, k, v, normal (as ``torch.randn``) and rounded to values a bf16 holds exactly."""
    rng = np.random.default_rng(seed)
    return [round_bf16(rng.standard_normal(shape)) for shape in input_shapes(batch, heads, seq_q, seq_kv, head_dim)]
