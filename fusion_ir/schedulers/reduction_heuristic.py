"""The reduction scheduler's heuristic: ``ReductionParams`` for a ``ReductionDomain`` on a GPU of ``sms`` SMs.

Inner reductions (``x.sum(1)``): a row's 16-byte vectors go to ``threads_x`` threads of a block, each
summing its share serially, then a block reduction; short rows put ``threads_y`` rows in one block; when
the rows leave SMs idle the row is also split across ``grid_splits`` blocks (a grid reduction).
Outer reductions (``x.sum(0)``): each thread owns ``vectorize`` contiguous columns (a warp reads whole
rows' segments, coalesced), ``threads_y`` threads and ``grid_splits`` blocks split the reduced rows, each
thread summing its rows serially before a block and a grid reduction; few reduced rows stay on one thread
(``threads_y`` 1: no block reduction) and the block's threads go across more columns instead.
The grid is split until every SM has its resident blocks (at least ``MIN_BLOCKS_PER_SM``) to run.
Every rule names itself in ``why``; docs/schedulers.md tabulates them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .protocol import HeuristicParams
from .reduction_analysis import INNER, ReductionDomain, ceil_div, next_pow2, vector_width

MAX_ROW_THREADS = 512      # threads along one row (inner): 512 keeps 4 blocks of them per SM
SERIAL_VECTORS = 8         # vectors each thread sums before the block reduction (inner), at best
MIN_BLOCK_THREADS = 128    # a block of fewer threads leaves the SM's schedulers short of warps
OUTER_BLOCK_THREADS = 256  # outer: threads_x columns x threads_y rows
WARP = 32
MIN_BLOCKS_PER_SM = 2      # blocks wanted per SM before the reduced axis is split across blocks, at least
MIN_SERIAL_PER_SPLIT = 16  # outer: rows each thread sums in one split, at least (else the partials dominate)
MIN_VECTORS_PER_SPLIT = 4  # inner: vectors each thread sums in one split, at least
UNROLL = 4                 # serial iterations unrolled: that many 16-byte loads in flight per thread
RESIDENT_FRACTION = 2      # blocks_per_sm asks for 1 / this of the SM's threads resident at once


@dataclass(frozen=True)
class ReductionParams(HeuristicParams):
    """How the reduction scheduler maps a 2-D reduction onto the GPU (every field's rule is in ``why``)."""

    kind: str = INNER
    vectorize: int = 1
    threads_x: int = 128
    threads_y: int = 1
    grid_splits: int = 1
    unroll: int = 1
    blocks_per_sm: int = 1

    @property
    def threads(self) -> int:
        return self.threads_x * self.threads_y


def suggest_reduction(domain: ReductionDomain, sms: int, threads_per_sm: int = 2048) -> ReductionParams:
    params = _inner(domain, sms, threads_per_sm) if domain.kind == INNER else _outer(domain, sms, threads_per_sm)
    blocks = _resident(params.threads, threads_per_sm)
    why = dict(params.why)
    why["blocks_per_sm"] = (f"{threads_per_sm} threads per SM / {RESIDENT_FRACTION} / {params.threads} threads per "
                            f"block: __launch_bounds__ caps registers at 65536 / {blocks * params.threads} so nvcc's "
                            f"full unroll of constant loops still leaves {blocks} blocks per SM to overlap one "
                            f"block's reduction with another's loads")
    return replace(params, why=why, blocks_per_sm=blocks)


def _resident(threads: int, threads_per_sm: int) -> int:
    """Blocks of ``threads`` that ``blocks_per_sm`` keeps resident: 1 / ``RESIDENT_FRACTION`` of the SM's threads."""
    return max(1, threads_per_sm // RESIDENT_FRACTION // threads)


def _wanted_blocks(sms: int, threads: int, threads_per_sm: int) -> tuple[int, str]:
    """Blocks that give every SM its resident blocks (at least ``MIN_BLOCKS_PER_SM``), and the rule's words."""
    per_sm = max(MIN_BLOCKS_PER_SM, _resident(threads, threads_per_sm))
    return sms * per_sm, (f"{sms} SMs x {per_sm} (the resident blocks of {threads} threads, at least "
                          f"{MIN_BLOCKS_PER_SM})")


def _splits(wanted: int, most: int) -> int:
    """``wanted`` splits rounded up to a power of two, at most the largest power of two <= ``most``."""
    cap = 1
    while cap * 2 <= most:
        cap *= 2
    return max(1, min(next_pow2(wanted), cap))


def _unroll(serial: int) -> int:
    """``UNROLL``, or the largest power of two <= the serial iterations a thread has when fewer."""
    u = 1
    while u * 2 <= min(UNROLL, serial):
        u *= 2
    return u


def _unroll_why(unroll: int, what: str) -> str:
    return (f"the serial loop over a thread's {what} unrolled by {UNROLL} (fewer when it has fewer): that many "
            f"independent 16-byte loads in flight per thread, whatever nvcc makes of a symbolic trip count")


def _vector_why(domain: ReductionDomain, vec: int) -> str:
    return (f"16 B / {domain.element_bytes} B elements, halved until it divides the contiguous extent "
            f"{domain.columns} (a vector never straddles a row)")


def _inner(d: ReductionDomain, sms: int, threads_per_sm: int) -> ReductionParams:
    vec = vector_width(d.columns, d.element_bytes)
    vectors = ceil_div(d.columns, vec)
    tx = min(MAX_ROW_THREADS, max(min(WARP, next_pow2(vectors)), next_pow2(ceil_div(vectors, SERIAL_VECTORS))))
    ty = max(1, min(MIN_BLOCK_THREADS // tx, next_pow2(d.rows)))
    blocks = ceil_div(d.rows, ty)
    serial = ceil_div(vectors, tx)
    splits = 1
    wanted, fill = _wanted_blocks(sms, tx * ty, threads_per_sm)
    split_why = f"{blocks} blocks of rows fill {fill}: no grid reduction"
    if blocks < wanted and serial >= 2 * MIN_VECTORS_PER_SPLIT:
        splits = _splits(ceil_div(wanted, blocks), serial // MIN_VECTORS_PER_SPLIT)
        split_why = (f"{blocks} blocks of rows leave {fill} short: the row is split across blocks (a grid "
                     f"reduction), rounded up to a power of two (even splits of power-of-two rows), each split "
                     f"keeping >= {MIN_VECTORS_PER_SPLIT} vectors per thread")
    elif blocks < wanted:
        split_why = (f"{blocks} blocks of rows leave SMs idle, but each thread sums only {serial} vectors: a grid "
                     f"reduction's partials would cost more than they spread")
    why = {
        "kind": "the last axis is reduced: rows on blocks, a row's vectors on threads",
        "vectorize": _vector_why(d, vec),
        "threads_x": (f"{vectors} vectors per row / {SERIAL_VECTORS} per thread, a power of two in "
                      f"[min(32, vectors), {MAX_ROW_THREADS}]"),
        "threads_y": f"rows per block so a block has >= {MIN_BLOCK_THREADS} threads (short rows)",
        "grid_splits": split_why,
    }
    unroll = _unroll(ceil_div(serial, splits))
    why["unroll"] = _unroll_why(unroll, "vectors")
    return ReductionParams("reduction", why, INNER, vec, tx, ty, splits, unroll)


def _outer(d: ReductionDomain, sms: int, threads_per_sm: int) -> ReductionParams:
    vec = vector_width(d.columns, d.element_bytes)
    column_vectors = ceil_div(d.columns, vec)
    tx = min(WARP, next_pow2(column_vectors))
    # threads down the rows only while each keeps >= MIN_SERIAL_PER_SPLIT of them; the rest go across columns
    ty = max(1, min(OUTER_BLOCK_THREADS // tx, next_pow2(d.rows), _prev_pow2(d.rows // MIN_SERIAL_PER_SPLIT)))
    tx = max(tx, min(next_pow2(column_vectors), OUTER_BLOCK_THREADS // ty))
    blocks = ceil_div(column_vectors, tx)
    serial = ceil_div(d.rows, ty)
    splits = 1
    wanted, fill = _wanted_blocks(sms, tx * ty, threads_per_sm)
    split_why = f"{blocks} blocks of columns fill {fill}: no grid reduction"
    if blocks < wanted and serial >= 2 * MIN_SERIAL_PER_SPLIT:
        splits = _splits(ceil_div(wanted, blocks), serial // MIN_SERIAL_PER_SPLIT)
        split_why = (f"{blocks} blocks of columns leave {fill} short: the reduced rows are split across blocks (a "
                     f"grid reduction), rounded up to a power of two (even splits of power-of-two rows), each "
                     f"split keeping >= {MIN_SERIAL_PER_SPLIT} rows per thread")
    elif blocks < wanted:
        split_why = (f"{blocks} blocks of columns leave SMs idle, but each thread sums only {serial} rows: a grid "
                     f"reduction's partials would cost more than they spread")
    why = {
        "kind": "the first axis is reduced: each thread owns contiguous output columns",
        "vectorize": _vector_why(d, vec),
        "threads_x": (f"threads across the columns: a warp reads {WARP} vectors of a row (coalesced), fewer if "
                      f"narrow; more (up to {OUTER_BLOCK_THREADS} / threads_y) when few rows leave threads_y short"),
        "threads_y": (f"threads down the reduced rows so a block has {OUTER_BLOCK_THREADS} threads, but only while "
                      f"each thread keeps >= {MIN_SERIAL_PER_SPLIT} rows ({d.rows} rows: a power of two <= "
                      f"{d.rows} / {MIN_SERIAL_PER_SPLIT}); 1 needs no block reduction"),
        "grid_splits": split_why,
    }
    unroll = _unroll(ceil_div(serial, splits))
    why["unroll"] = _unroll_why(unroll, "rows")
    return ReductionParams("reduction", why, d.kind, vec, tx, ty, splits, unroll)


def _prev_pow2(n: int) -> int:
    """The largest power of two <= ``n`` (0 for 0)."""
    p = 0 if n < 1 else 1
    while p and p * 2 <= n:
        p *= 2
    return p
