"""The normalization scheduler's heuristic: ``NormalizationParams`` for a ``ReductionDomain`` whose
reductions are broadcast back (softmax, layer norm, RMS norm), or the sentence saying why none fits.

Inner (the last axis normalized): one row per block, or ``threads_y`` short rows per block; the row's
16-byte vectors split into ``persistent_batch`` vectors per thread over ``threads_x`` threads, so each
thread keeps ``persistent_batch x vectorize`` elements of every persistent buffer (the input row, and any
tensor read both by a reduction and after it) and the input is read from global memory once.
Outer (the first axis normalized): each thread owns ``vectorize`` contiguous columns; the reduced rows
split into ``persistent_batch`` rows per thread over ``threads_y`` threads.
Both look first for a shape that keeps ``BLOCKS_PER_SM`` blocks resident on an SM (fewer threads, a larger
batch), so one block's loads overlap another's reductions and pointwise math: the buffers held across a
reduction (``live``) and ``REGISTER_OVERHEAD`` must fit the registers of that many blocks, and the kernel's
``__launch_bounds__`` then caps ptxas there (``blocks_per_sm``). Without such a shape: one block, whose
buffers live in registers while all of them fit ``register_budget`` per thread, else in shared memory while
a block's share fits the target's shared memory; beyond that the scheduler declines.
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
WIDE_SEGMENT_WAVES = 8    # outer: column blocks of at least this many waves take the widest one-block segment
REGISTER_OVERHEAD = 32    # registers a thread needs besides its persistent buffers (indices, partials, loads)
MAX_BUFFER_WORDS = 128    # persistent registers per thread, at most, however few the block's threads
BLOCKS_PER_SM = 2         # blocks wanted resident per SM: one block's reductions overlap another's loads
MAX_LIVE_WORDS = 64       # live persistent registers per thread when the batch grows to keep BLOCKS_PER_SM
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
    blocks_per_sm: int = 1

    @property
    def threads(self) -> int:
        return self.threads_x * self.threads_y


def suggest_normalization(domain: ReductionDomain, buffers: list[int], target: Target,
                          live: list[int] | None = None) -> NormalizationParams | str:
    """``buffers``: the element size in bytes of each persistent buffer (one per tensor kept whole); ``live``:
    those of the buffers held at once across one reduction, at the reduction that holds the most (all of
    ``buffers`` when not given)."""
    live = list(buffers) if live is None else live
    if domain.kind == INNER:
        return _inner(domain, buffers, live, target)
    return _outer(domain, buffers, live, target)


def _words(elements: int, sizes: list[int]) -> int:
    """Registers per thread of ``elements`` elements of each buffer of ``sizes`` (narrow types widen to a word)."""
    return sum(elements * max(4, b) // 4 for b in sizes)


def _resident_blocks(live_words: int, threads: int, target: Target) -> bool:
    """``BLOCKS_PER_SM`` blocks of ``threads`` fit an SM's threads, and their registers hold ``live_words`` and
    ``REGISTER_OVERHEAD`` per thread (at most ``MAX_LIVE_WORDS`` live words)."""
    if threads * BLOCKS_PER_SM > target.max_threads_per_sm or live_words > MAX_LIVE_WORDS:
        return False
    return live_words + REGISTER_OVERHEAD <= _two_block_cap(threads, target)


def _two_block_cap(threads: int, target: Target) -> int:
    """Registers per thread with ``BLOCKS_PER_SM`` blocks of ``threads`` on an SM, within one block's limit too."""
    return min(target.registers_per_sm // (BLOCKS_PER_SM * threads), target.registers_per_block // threads)


def _blocks_why(threads: int, live_words: int, target: Target) -> str:
    cap = _two_block_cap(threads, target)
    return (f"{BLOCKS_PER_SM} blocks of {threads} threads per SM (one block's reductions and pointwise math overlap "
            f"another's loads): __launch_bounds__ caps registers at {target.registers_per_sm} / "
            f"({BLOCKS_PER_SM} x {threads}) = {cap}, which hold the {live_words} words of buffers live across a "
            f"reduction + {REGISTER_OVERHEAD}")


def _one_block_why(what: str) -> str:
    return (f"1: no shape keeps {BLOCKS_PER_SM} blocks per SM ({what} needs more than {MAX_LIVE_WORDS} live words "
            f"per thread, or their registers, beside {REGISTER_OVERHEAD} of overhead); the block may use all "
            f"its registers")


def register_budget(threads: int, target: Target) -> int:
    """Registers per thread the persistent buffers may take: the block's share of the register file less
    ``REGISTER_OVERHEAD``, at most ``MAX_BUFFER_WORDS``."""
    return max(0, min(MAX_BUFFER_WORDS, target.registers_per_block // threads - REGISTER_OVERHEAD))


WORKSPACE_BYTES = 8      # the block reduction's shared workspace: one 8-byte slot per launched thread
SHARED_ALIGN = 16        # the shared-memory planner's alignment of each buffer


def _aligned(n: int) -> int:
    return -(-n // SHARED_ALIGN) * SHARED_ALIGN


def shared_bytes(tile_elements: int, buffers: list[int], threads: int) -> int:
    """Shared memory a block takes with its persistent buffers there: each buffer over the block's whole tile
    (``tile_elements``, the row or column block rounded up to the threads' vectors and batch), and the block
    reduction's workspace."""
    return sum(_aligned(tile_elements * b) for b in buffers) + _aligned(WORKSPACE_BYTES * threads)


def _memory(words: int, threads: int, smem_bytes: int, target: Target, what: str) -> tuple[str, str] | str:
    """Registers or shared memory for the persistent buffers (``smem_bytes``: ``shared_bytes`` of the block), or
    why neither holds them; the block reduction's workspace must fit shared memory either way."""
    workspace = _aligned(WORKSPACE_BYTES * threads)
    if workspace > target.smem_per_block:
        return (f"the block reduction's workspace for {threads} threads, {workspace} bytes, is over "
                f"{target.name}'s {target.smem_per_block} bytes of shared memory per block")
    budget = register_budget(threads, target)
    rule = (f"{target.registers_per_block} registers / {threads} threads - {REGISTER_OVERHEAD}, at most "
            f"{MAX_BUFFER_WORDS}")
    if words <= budget:
        return REGISTERS, f"{words} words of persistent buffers per thread fit {budget} registers ({rule})"
    if smem_bytes <= target.smem_per_block:
        return SHARED, (f"{words} words per thread exceed {budget} registers ({rule}); the block's {smem_bytes} "
                        f"bytes fit shared memory ({target.smem_per_block})")
    return (f"the persistent buffers of {what} need {words} registers per thread (over {budget}: {rule}) or "
            f"{smem_bytes} bytes of shared memory per block (the buffers over the block's tile and the block "
            f"reduction's workspace; over {target.smem_per_block}); a normalization this long is not scheduled")


def _inner_shape(d: ReductionDomain, vectors: int, want: int) -> tuple[int, int, int]:
    """``(tx, ty, batch)`` for ``want`` threads along a row of ``vectors`` vectors."""
    batch = ceil_div(vectors, want)
    tx = ceil_div(vectors, batch)
    ty = max(1, min(MIN_BLOCK_THREADS // next_pow2(tx), next_pow2(d.rows)))
    return tx, ty, batch


def _inner(d: ReductionDomain, buffers: list[int], live: list[int], target: Target) -> NormalizationParams | str:
    vec = vector_width(d.columns, d.element_bytes)
    vectors = ceil_div(d.columns, vec)
    want = min(target.max_threads_per_block, max(WARP, next_pow2(ceil_div(vectors, BATCH))))
    why = {
        "kind": "the last axis is normalized: a row per block (or per TIDy), its vectors on TIDx",
        "vectorize": (f"16 B / {d.element_bytes} B elements, halved until it divides the row length "
                      f"{d.columns}"),
        "threads_y": f"rows per block so a block has >= {MIN_BLOCK_THREADS} threads (short rows)",
    }
    # fewer threads with a larger batch, until BLOCKS_PER_SM blocks' registers hold what is live
    threads_want = want
    while threads_want >= WARP:
        tx, ty, batch = _inner_shape(d, vectors, threads_want)
        live_words = _words(batch * vec, live)
        if _resident_blocks(live_words, tx * ty, target):
            why |= {
                "threads_x": (f"ceil({vectors} vectors / batch): {vectors} / {BATCH} rounded up to a power of two in "
                              f"[{WARP}, {target.max_threads_per_block}] ({want}), halved while {BLOCKS_PER_SM} "
                              f"blocks per SM cannot hold the live buffers, then evened over the batch"),
                "persistent_batch": (f"vectors each thread keeps of the row: {BATCH} at best, more once fewer "
                                     f"threads cover the row"),
                "persistent_memory": (f"{live_words} words live across a reduction ({len(live)} of "
                                      f"{len(buffers)} buffers) fit registers at {BLOCKS_PER_SM} blocks per SM"),
                "blocks_per_sm": _blocks_why(tx * ty, live_words, target),
            }
            return NormalizationParams("normalization", why, INNER, vec, tx, ty, batch, REGISTERS, BLOCKS_PER_SM)
        threads_want //= 2
    tx, ty, batch = _inner_shape(d, vectors, want)
    words = _words(batch * vec, buffers)
    smem = shared_bytes(tx * ty * batch * vec, buffers, tx * ty)
    memory = _memory(words, tx * ty, smem, target, f"a row of {d.columns}")
    if isinstance(memory, str):
        return memory
    why |= {
        "threads_x": (f"ceil({vectors} vectors / batch): {vectors} / {BATCH} rounded up to a power of two in "
                      f"[{WARP}, {target.max_threads_per_block}], then evened over the batch"),
        "persistent_batch": (f"vectors each thread keeps of the row: {BATCH} at best, more once "
                             f"{target.max_threads_per_block} threads cannot cover the row"),
        "persistent_memory": memory[1] + f" ({len(buffers)} buffers)",
        "blocks_per_sm": _one_block_why(f"a row of {d.columns}"),
    }
    return NormalizationParams("normalization", why, INNER, vec, tx, ty, batch, memory[0])


def _outer_fit(d: ReductionDomain, buffers: list[int], target: Target, vec: int,
               tx: int) -> tuple[int, int, int, tuple[str, str] | str]:
    """``(ty, batch, words, memory)`` for ``tx`` threads across the columns, one block per SM."""
    ty_cap = max(1, target.max_threads_per_block // tx)
    ty_want = max(1, min(ty_cap, next_pow2(ceil_div(d.rows, OUTER_BATCH))))
    batch = ceil_div(d.rows, ty_want)
    ty = ceil_div(d.rows, batch)
    words = _words(batch * vec, buffers)
    smem = shared_bytes(tx * ty * batch * vec, buffers, tx * ty)
    return ty, batch, words, _memory(words, tx * ty, smem, target, f"a column block of {d.rows} rows")


def _full_segment_fit(d: ReductionDomain, live: list[int], target: Target, vec: int,
                      tx: int) -> tuple[int, int, int, int, tuple[str, str]] | None:
    """``tx`` threads across the columns (full segments) at one block per SM, each thread keeping OUTER_BATCH rows
    or twice as many (fewer threads down the rows) so the words live across a reduction fit its registers; None
    when neither does."""
    for batch in (OUTER_BATCH, 2 * OUTER_BATCH):
        ty = ceil_div(d.rows, batch)
        if tx * ty > target.max_threads_per_block:
            continue
        words = _words(batch * vec, live)
        memory = _memory(words, tx * ty, 0, target, f"a column block of {d.rows} rows")
        if not isinstance(memory, str) and memory[0] == REGISTERS:
            return tx, ty, batch, words, memory
    return None


def _outer(d: ReductionDomain, buffers: list[int], live: list[int], target: Target) -> NormalizationParams | str:
    vec = vector_width(d.columns, d.element_bytes)
    column_vectors = ceil_div(d.columns, vec)
    widest = min(next_pow2(column_vectors), max(1, SEGMENT_BYTES // (vec * d.element_bytes)))
    if vec == 1:
        widest = min(next_pow2(column_vectors), WARP)
    narrowest = max(1, min(widest, MIN_SEGMENT_BYTES // (vec * d.element_bytes)))
    fits = []
    tx = widest
    while tx >= narrowest:
        fits.append((tx, *_outer_fit(d, buffers, target, vec, tx)))
        tx //= 2
    # the widest block of columns of which BLOCKS_PER_SM fit an SM's registers; else the widest whose rows fit
    # one block's registers, else the widest that fits shared memory
    blocks, live_words = 1, 0
    chosen = None
    for f in fits:
        words = _words(f[2] * vec, live)
        if _resident_blocks(words, f[0] * f[1], target):
            chosen, blocks, live_words = (f[0], f[1], f[2], words, (REGISTERS, "")), BLOCKS_PER_SM, words
            break
    wide = next((f for f in fits if not isinstance(f[4], str) and f[4][0] == REGISTERS), None)
    wide_waves = None
    full = _full_segment_fit(d, live, target, vec, fits[0][0])
    if chosen is not None and full is not None and full[0] > chosen[0]:
        wide = full
        # full segments at one block per SM where the column blocks are many waves (no tail to lose): 1024 x 65536 on
        # the H100 ran 87.5 % of copy with 32-column blocks against 81.5 % with two blocks of 16 columns; at 16384
        # columns (4 waves) the wide blocks ran 81.9 % against 85.4 %
        waves = ceil_div(d.columns, wide[0] * vec) / target.sm_count
        if waves >= WIDE_SEGMENT_WAVES:
            chosen, blocks, wide_waves = wide, 1, waves
    if chosen is None:
        chosen = wide
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
                      f"(a warp's width unvectorized), halved down to {MIN_SEGMENT_BYTES} bytes until "
                      f"{BLOCKS_PER_SM} blocks' registers hold the rows live across a reduction (else until one "
                      f"block's hold all its buffers, else the widest that fits shared memory)"),
        "threads_y": (f"ceil({d.rows} rows / batch): {d.rows} / {OUTER_BATCH} rounded up to a power of two, at most "
                      f"{target.max_threads_per_block} threads / threads_x"),
        "persistent_batch": f"rows each thread keeps: {OUTER_BATCH} at best, more once the block's threads run out",
    }
    if wide_waves is not None:
        why["threads_x"] = (f"the widest block of columns whose rows fit one block's registers: {wide_waves:.1f} waves "
                            f"of column blocks (at least {WIDE_SEGMENT_WAVES}) leave no tail worth two blocks per SM, "
                            f"and {tx * vec * d.element_bytes}-byte row segments read faster")
    if blocks > 1:
        why["persistent_memory"] = (f"{live_words} words live across a reduction ({len(live)} of {len(buffers)} "
                                    f"buffers) fit registers at {BLOCKS_PER_SM} blocks per SM")
        why["blocks_per_sm"] = _blocks_why(tx * ty, live_words, target)
    else:
        why["persistent_memory"] = memory[1] + f" ({len(buffers)} buffers)"
        why["blocks_per_sm"] = _one_block_why(f"a column block of {d.rows} rows")
    return NormalizationParams("normalization", why, d.kind, vec, tx, ty, batch, memory[0], blocks)
