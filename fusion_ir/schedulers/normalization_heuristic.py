"""The normalization scheduler's heuristic: ``NormalizationParams`` for a ``ReductionDomain`` whose
reductions are broadcast back (softmax, layer norm, RMS norm), or the sentence saying why none fits.

Inner (the last axis normalized): one row per block, or ``threads_y`` short rows per block; the row's
16-byte vectors split into ``persistent_batch`` vectors per thread over ``threads_x`` threads, so each
thread keeps ``persistent_batch x vectorize`` elements of every persistent buffer (the input row, and any
tensor read both by a reduction and after it) and the input is read from global memory once.
Outer (the first axis normalized): each thread owns ``vectorize`` contiguous columns; the reduced rows
split into ``persistent_batch`` rows per thread over ``threads_y`` threads.
The buffers live in registers while they fit ``REGISTER_WORDS`` per thread, else in shared memory while a
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
REGISTER_WORDS = 64       # 32-bit registers per thread all persistent buffers may take (of 255)
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


def _memory(words: int, smem_bytes: int, target: Target, what: str) -> tuple[str, str] | str:
    if words <= REGISTER_WORDS:
        return REGISTERS, f"{words} words of persistent buffers per thread fit the {REGISTER_WORDS}-register budget"
    if smem_bytes <= target.smem_per_block:
        return SHARED, (f"{words} words per thread exceed {REGISTER_WORDS} registers; the block's {smem_bytes} bytes "
                        f"fit shared memory ({target.smem_per_block})")
    return (f"the persistent buffers of {what} need {words} registers per thread (over {REGISTER_WORDS}) or "
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
    memory = _memory(words, smem, target, f"a row of {d.columns}")
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


def _outer(d: ReductionDomain, buffers: list[int], target: Target) -> NormalizationParams | str:
    vec = vector_width(d.columns, d.element_bytes)
    column_vectors = ceil_div(d.columns, vec)
    tx = min(next_pow2(column_vectors), max(1, SEGMENT_BYTES // (vec * d.element_bytes)))
    if vec == 1:
        tx = min(next_pow2(column_vectors), WARP)
    ty_cap = max(1, target.max_threads_per_block // tx)
    ty_want = max(1, min(ty_cap, next_pow2(ceil_div(d.rows, OUTER_BATCH))))
    batch = ceil_div(d.rows, ty_want)
    ty = ceil_div(d.rows, batch)
    words = sum(batch * vec * max(4, b) // 4 for b in buffers)
    smem = sum(d.rows * tx * vec * b for b in buffers)
    memory = _memory(words, smem, target, f"a column block of {d.rows} rows")
    if isinstance(memory, str):
        return memory
    why = {
        "kind": "the first axis is normalized: each thread owns contiguous columns, the rows on TIDy",
        "vectorize": f"16 B / {d.element_bytes} B elements, halved until it divides the row length {d.columns}",
        "threads_x": (f"threads across the columns so a block reads {SEGMENT_BYTES}-byte row segments "
                      f"(coalesced), a warp's width when the columns are not vectorized"),
        "threads_y": (f"ceil({d.rows} rows / batch): {d.rows} / {OUTER_BATCH} rounded up to a power of two, at most "
                      f"{ty_cap} ({target.max_threads_per_block} threads / threads_x)"),
        "persistent_batch": f"rows each thread keeps: {OUTER_BATCH} at best, more once the block's threads run out",
        "persistent_memory": memory[1] + f" ({len(buffers)} buffers)",
    }
    return NormalizationParams("normalization", why, d.kind, vec, tx, ty, batch, memory[0])
