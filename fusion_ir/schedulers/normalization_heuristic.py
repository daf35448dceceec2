"""The normalization scheduler's heuristic: ``NormalizationParams`` for a ``ReductionDomain`` whose
reductions are broadcast back (softmax, layer norm, RMS norm), or the sentence saying why none fits.

Inner (the last axis normalized): one row per block, or ``threads_y`` short rows per block; the row's
16-byte vectors split into ``persistent_batch`` vectors per thread over ``threads_x`` threads, so each
thread keeps ``persistent_batch x vectorize`` elements of every persistent buffer (the input row, and any
tensor read both by a reduction and after it) and the input is read from global memory once.
Outer (the first axis normalized): each thread owns ``vectorize`` contiguous columns; the reduced rows
split into ``persistent_batch`` rows per thread over ``threads_y`` threads.
The buffers live in registers while they fit ``register_budget`` per thread, else in shared memory while a
block's share fits the target's shared memory; beyond that the scheduler declines.
"""

from __future__ import annotations

from dataclasses import dataclass

from target import Target

from .protocol import HeuristicParams
from .reduction_analysis import INNER, ReductionDomain, ceil_div, next_pow2, vector_width

REGISTERS = "registers"
SHARED = "shared"
BATCH = 4                 # inner: vectors per thread per buffer, at best (16 fp32 registers a buffer)
OUTER_BATCH = 8           # outer: rows per thread per buffer, at best
MIN_BLOCK_THREADS = 128   # short rows: rows per block so a block has at least this many threads
SEGMENT_BYTES = 128       # outer: a row segment a block reads at once (one cache line, coalesced)
MIN_SEGMENT_BYTES = 32    # outer: the narrowest segment (one 32-byte sector) before declining
REGISTER_OVERHEAD = 32    # registers a thread needs besides its persistent buffers (indices, partials, loads)
MAX_BUFFER_WORDS = 128    # persistent registers per thread, at most, however few the block's threads
WARP = 32


@dataclass(frozen=True)
class NormalizationParams(HeuristicParams):
    """How the normalization scheduler maps a 2-D normalization onto the GPU (every field's rule in ``why``)."""

    kind: str = INNER
    vectorize: int = 1
    threads_x: int = 128
    threads_y: int = 1
    persistent_batch: int = 1
    persistent_memory: str = REGISTERS

    @property
    def threads(self) -> int:
        return self.threads_x * self.threads_y


def suggest_normalization(domain: ReductionDomain, buffers: list[int], target: Target) -> NormalizationParams | str:
    """``buffers``: the element size in bytes of each persistent buffer (one per tensor kept whole)."""
    if domain.kind == INNER:
        return _inner(domain, buffers, target)
    return _outer(domain, buffers, target)


def register_budget(threads: int, target: Target) -> int:
    """Registers per thread the persistent buffers may take: the block's share of the register file less
    ``REGISTER_OVERHEAD``, at most ``MAX_BUFFER_WORDS``."""
    return max(0, min(MAX_BUFFER_WORDS, target.registers_per_block // threads - REGISTER_OVERHEAD))


def _memory(words: int, threads: int, smem_bytes: int, target: Target, what: str) -> tuple[str, str] | str:
    budget = register_budget(threads, target)
    rule = (f"{target.registers_per_block} registers / {threads} threads - {REGISTER_OVERHEAD}, at most "
            f"{MAX_BUFFER_WORDS}")
    if words <= budget:
        return REGISTERS, f"{words} words of persistent buffers per thread fit {budget} registers ({rule})"
    if smem_bytes <= target.smem_per_block:
        return SHARED, (f"{words} words per thread exceed {budget} registers ({rule}); the block's {smem_bytes} "
                        f"bytes fit shared memory ({target.smem_per_block})")
    return (f"the persistent buffers of {what} need {words} registers per thread (over {budget}: {rule}) or "
            f"{smem_bytes} bytes of shared memory per block (over {target.smem_per_block}); a normalization "
            f"this long is not scheduled")


def _inner(d: ReductionDomain, buffers: list[int], target: Target) -> NormalizationParams | str:
    vec = vector_width(d.columns, d.element_bytes)
    vectors = ceil_div(d.columns, vec)
    want = min(target.max_threads_per_block, max(WARP, next_pow2(ceil_div(vectors, BATCH))))
    batch = ceil_div(vectors, want)
    tx = ceil_div(vectors, batch)
    ty = max(1, min(MIN_BLOCK_THREADS // next_pow2(tx), next_pow2(d.rows)))
    words = sum(batch * vec * max(4, b) // 4 for b in buffers)
    smem = sum(d.columns * b for b in buffers) * ty
    memory = _memory(words, tx * ty, smem, target, f"a row of {d.columns}")
    if isinstance(memory, str):
        return memory
    why = {
        "kind": "the last axis is normalized: a row per block (or per TIDy), its vectors on TIDx",
        "vectorize": (f"16 B / {d.element_bytes} B elements, halved until it divides the row length "
                      f"{d.columns}"),
        "threads_x": (f"ceil({vectors} vectors / batch): {vectors} / {BATCH} rounded up to a power of two in "
                      f"[{WARP}, {target.max_threads_per_block}], then evened over the batch"),
        "threads_y": f"rows per block so a block has >= {MIN_BLOCK_THREADS} threads (short rows)",
        "persistent_batch": (f"vectors each thread keeps of the row: {BATCH} at best, more once "
                             f"{target.max_threads_per_block} threads cannot cover the row"),
        "persistent_memory": memory[1] + f" ({len(buffers)} buffers)",
    }
    return NormalizationParams("normalization", why, INNER, vec, tx, ty, batch, memory[0])


def _outer_fit(d: ReductionDomain, buffers: list[int], target: Target, vec: int,
               tx: int) -> tuple[int, int, int, tuple[str, str] | str]:
    """``(ty, batch, words, memory)`` for ``tx`` threads across the columns."""
    ty_cap = max(1, target.max_threads_per_block // tx)
    ty_want = max(1, min(ty_cap, next_pow2(ceil_div(d.rows, OUTER_BATCH))))
    batch = ceil_div(d.rows, ty_want)
    ty = ceil_div(d.rows, batch)
    words = sum(batch * vec * max(4, b) // 4 for b in buffers)
    smem = sum(d.rows * tx * vec * b for b in buffers)
    return ty, batch, words, _memory(words, tx * ty, smem, target, f"a column block of {d.rows} rows")


def _outer(d: ReductionDomain, buffers: list[int], target: Target) -> NormalizationParams | str:
    vec = vector_width(d.columns, d.element_bytes)
    column_vectors = ceil_div(d.columns, vec)
    widest = min(next_pow2(column_vectors), max(1, SEGMENT_BYTES // (vec * d.element_bytes)))
    if vec == 1:
        widest = min(next_pow2(column_vectors), WARP)
    narrowest = max(1, min(widest, MIN_SEGMENT_BYTES // (vec * d.element_bytes)))
    # the widest block of columns whose rows fit registers, else the widest that fits shared memory
    fits = []
    tx = widest
    while tx >= narrowest:
        fits.append((tx, *_outer_fit(d, buffers, target, vec, tx)))
        tx //= 2
    chosen = next((f for f in fits if not isinstance(f[4], str) and f[4][0] == REGISTERS), None)
    if chosen is None:
        chosen = next((f for f in fits if not isinstance(f[4], str)), None)
    if chosen is None:
        return fits[-1][4]  # type: ignore[return-value]
    tx, ty, batch, _, memory = chosen
    assert not isinstance(memory, str)
    why = {
        "kind": "the first axis is normalized: each thread owns contiguous columns, the rows on TIDy",
        "vectorize": f"16 B / {d.element_bytes} B elements, halved until it divides the row length {d.columns}",
        "threads_x": (f"threads across the columns so a block reads {SEGMENT_BYTES}-byte row segments "
                      f"(a warp's width unvectorized), halved down to {MIN_SEGMENT_BYTES} bytes until the block's "
                      f"rows fit registers (else the widest that fits shared memory)"),
        "threads_y": (f"ceil({d.rows} rows / batch): {d.rows} / {OUTER_BATCH} rounded up to a power of two, at most "
                      f"{target.max_threads_per_block} threads / threads_x"),
        "persistent_batch": f"rows each thread keeps: {OUTER_BATCH} at best, more once the block's threads run out",
        "persistent_memory": memory[1] + f" ({len(buffers)} buffers)",
    }
    return NormalizationParams("normalization", why, d.kind, vec, tx, ty, batch, memory[0])
