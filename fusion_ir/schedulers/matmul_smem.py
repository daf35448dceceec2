"""The shared buffers a matmul schedule makes, as requests to the shared-memory model (``smem_model``).

``schedule_matmul`` gives the kernel these shared buffers: A's and B's tiles (``stages`` each, laid out
K- or MN-major as their inputs are: ``MatmulLayout``) and
their mbarriers (a "full" and an "empty" one per stage; only the "full" one when the compute warp groups load
one operand, none when they load both: ``tma_operands``), ping-pong's ordering barriers, with
``tma_store`` the 16-bit output tile stmatrix writes and the TMA store reads (one per compute warp
group when ping-pong defers the store's wait), and per ``[M, N]`` input of the epilogue (C) its
TMA-loaded tile and that load's mbarrier. ``matmul_smem_requests`` places their live intervals on
the timeline of the kernel the lowering makes of the schedule, so that ``smem_model.lay_out`` finds
the offsets and total the lowering's ``smem`` analysis finds (``tests/fusion_ir/test_matmul_smem.py``
holds the two equal):

- the barriers of the C loads live through the whole kernel and come first;
- A's and B's tiles live through the persistent tile loop when warp-specialized and persistent
  (the producer runs ahead across tiles), with their barriers (and ping-pong's) set up before it;
  otherwise they live through one tile's mainloop, their barriers set up right after them, and die
  before the epilogue, which reuses their memory;
- a C tile is loaded before the mainloop and lives through it, unless, without a TMA store, the
  kernel's emission order reaches it after the accumulator (``LoadedTile.after_mainloop``: the
  output reads it directly and no other epilogue tensor does): then it is loaded after the mainloop;
  ping-pong: C's tile and each vector have a part (and a barrier) per compute warp group, each loading those
  of its own turn, allocated outside the tile loop the groups take turns in (they live through that loop);
- the output tile lives through the epilogue (several outputs: one after the other; sub-tiled, their rings
  together), or, with a deferred or carried store wait, through the loop
  the tile is computed in (Pipelined and persistent: the whole tile loop; warp-specialized and
  persistent: with A and B).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol

from smem_model import BufferRequest, mbarriers
from target import current as current_target

from ..types import DataType, SmemSwizzle, StoreWait

# positions on the kernel's timeline (only their order matters; the model places buffers by first use)
KERNEL = (0, 100)            # the whole kernel
TILE_LOOP = (1, 99)          # the persistent loop over the tiles
SETUP = 2                    # A's and B's barriers initialized before the tile loop A and B span
ORDER = 3                    # ping-pong's ordering barriers, right after them
PREFETCH = 4                 # a C tile loaded before the mainloop
MAINLOOP = (10, 20)          # one tile's K loop (A and B), its barriers set up right after A and B
MAINLOOP_BARRIERS = (11, 21)
SPANNING = (10, 90)          # A and B through the tile loop (warp-specialized and persistent)
IN_TILE_LOOP = 15            # a C tile loaded before the mainloop, inside the tile loop A and B span
AFTER_MAINLOOP = 30          # a C tile loaded after the mainloop
EPILOGUE = (80, 81)          # the output tile, written by stmatrix and read by the TMA store
OUTPUT_BYTES = 2             # stmatrix stores 16-bit elements


@dataclass(frozen=True)
class MatmulLayout:
    """Which dimension of each operand is contiguous in global memory, and so in its shared tile (TMA loads
    each input in its own order). A is ``[M, K]`` K-major, or M-major when it is ``transpose`` of a ``[K, M]``
    input; B is ``[K, N]`` N-major, or K-major when it is ``transpose`` of a ``[N, K]`` input (nn.Linear's
    weight). A K-major tile is rows of ``TK`` (one swizzle span); an MN-major tile is ``TK`` rows of each
    chunk of ``M`` or ``N`` one widest swizzle row wide."""

    a_mn_major: bool = False
    b_mn_major: bool = True

    def describe(self) -> str:
        """``A K-major, B N-major``."""
        return f"A {'M' if self.a_mn_major else 'K'}-major, B {'N' if self.b_mn_major else 'K'}-major"


ROW_MAJOR = MatmulLayout()   # a [M, K] and b [K, N] row-major inputs: A K-major, B N-major


@dataclass(frozen=True)
class LoadedTile:
    """An ``[M, N]`` input the epilogue reads (C), TMA-loaded into a shared tile once per output tile.

    ``after_mainloop``: without a TMA store, the kernel's emission order reaches the tile after the
    accumulator (``MatmulProblem.loaded_tiles`` decides): the kernel then loads it after the
    mainloop, in the operands' dead memory, where every other such tile is loaded before the
    mainloop and lives through it."""

    size: int                       # bytes per element
    after_mainloop: bool = False
    # "": an [M, N] tile; "N": a vector broadcast over the rows (a bias per column: the tile's N elements), "M":
    # one broadcast over the columns (the tile's M elements)
    vector: str = ""


class MatmulSchedule(Protocol):
    """What of ``MatmulParams`` decides the shared buffers."""

    tile: tuple[int, int, int]
    stages: int | Literal["auto"]
    compute_warp_groups: int
    warp_specialized: bool
    persistent: bool
    ping_pong: bool
    tma_store: bool
    store_wait: StoreWait | str
    epilogue_tile: tuple[int, int] | None
    epilogue_stages: int


def as_tiles(loaded: int | Sequence[LoadedTile]) -> tuple[LoadedTile, ...]:
    """``loaded`` as tiles: an int is one tile of that many bytes per element, loaded before the mainloop."""
    if isinstance(loaded, int):
        return (LoadedTile(loaded),) if loaded else ()
    return tuple(loaded)


def shared_vector(params: MatmulSchedule, tile: LoadedTile) -> bool:
    """Whether the kernel TMA-loads the epilogue vector ``tile`` into shared memory (else each thread reads it from
    global memory): always, but in ping-pong only where a warp group's box is a whole number of TMA alignment units
    (128 bytes), since each group's part of the buffer starts where the one before ends."""
    if getattr(params, "epilogue_loads", "consumer") == "producer" and params.epilogue_tile is not None:
        # a stage of the producer's circular buffer per sub-tile: its box starts where the stage before ends
        count = params.tile[0] if tile.vector == "M" else params.epilogue_tile[1]
        return count * tile.size % current_target().tma.smem_alignment == 0
    if not params.ping_pong:
        return True
    count = params.tile[0] if tile.vector == "M" else params.tile[1]
    return count * tile.size % current_target().tma.smem_alignment == 0


def _tma_alignment(span: int) -> int:
    """A TMA box's start: the target's TMA alignment, or a whole swizzle repeat when rows are swizzled
    (``span``: bytes of one box row)."""
    swizzled = span if span in current_target().tma.swizzle_spans else 0
    return max(current_target().tma.smem_alignment, SmemSwizzle(swizzled).alignment)


def mn_chunk(columns: int, size: int) -> int:
    """The columns of one chunk of an MN-major operand tile ``columns`` wide: one swizzle row, the widest whose
    elements divide the columns (160 bf16 columns: 5 chunks of 32 in 64-byte rows), else the widest row."""
    spans = current_target().tma.swizzle_spans
    return max((span // size for span in spans if columns % (span // size) == 0),
               default=min(columns, max(spans) // size))


def _chunked(params: MatmulSchedule, size: int, columns: int | None = None) -> tuple[int, int]:
    """``columns`` (default: the tile's N) in boxes of one swizzle row (``mn_chunk``): (columns allocated, one box
    row's bytes)."""
    tn = params.tile[1] if columns is None else columns
    nw = mn_chunk(tn, size)
    return -(-tn // nw) * nw, nw * size


def _operand_tile(params: MatmulSchedule, size: int, rows: int, mn_major: bool) -> tuple[int, int]:
    """(bytes, alignment) of one stage of an operand tile with ``rows`` M or N: K-major, ``rows`` rows of
    ``TK``; MN-major, ``TK`` rows of each chunk of ``rows``."""
    tk = params.tile[2]
    if not mn_major:
        return rows * tk * size, _tma_alignment(tk * size)
    columns, row = _chunked(params, size, rows)
    return tk * columns * size, _tma_alignment(row)


def matmul_smem_requests(params: MatmulSchedule, dtype: DataType, loaded: int | Sequence[LoadedTile] = 0,
                         layout: MatmulLayout = ROW_MAJOR, tma_operands: int = 2, *,
                         outputs: int = 1) -> list[BufferRequest]:
    """The shared buffers of the kernel ``params`` (``MatmulParams``) schedule for ``dtype`` operands
    laid out as ``layout`` (``stages="auto"``: 2). ``tma_operands``: how many of A and B TMA loads; with
    one the compute warp groups load the other (docs/matmul.md, "Any K and any row stride"), and the stages
    have a "full" barrier each and no "empty" one; with none, no barriers."""
    tm, tn, _ = params.tile
    stages = params.stages if isinstance(params.stages, int) else 2
    spanning = params.warp_specialized and params.persistent
    tiles = tuple(t for t in as_tiles(loaded) if not t.vector or shared_vector(params, t))
    if producer_loads(params) and tiles:
        return _producer_loaded(params, dtype, tiles, layout, tma_operands, outputs)
    # ping-pong: each compute warp group loads the tile (vector) of its own turn, into a part of its own (a barrier
    # each), allocated outside the tile loop the groups take turns in: it lives through that loop
    parts = params.compute_warp_groups if params.ping_pong else 1
    out: list[BufferRequest] = [mbarriers(f"C{i}_mbar", parts, KERNEL) for i in range(len(tiles))]
    deferred = params.tma_store and StoreWait.of(params.store_wait) in (StoreWait.Deferred, StoreWait.Carried)
    staging: list[BufferRequest] = []
    if params.tma_store and params.epilogue_tile is not None:
        # a ring of sub-tiles, live through the epilogue of a tile per block, allocated outside the tile loop of a
        # persistent kernel (ping-pong's warp groups own a ring each)
        em, en = params.epilogue_tile      # (TM, EN); swapped, (EM, TN) in boxes of one swizzle row of columns
        row = _chunked(params, OUTPUT_BYTES)[1] if getattr(params, "swap_ab", False) else en * OUTPUT_BYTES
        copies = params.compute_warp_groups if params.ping_pong else 1
        live = (SPANNING if spanning else TILE_LOOP) if _walks_tiles(params) else EPILOGUE
        staging = [BufferRequest(f"output{i}", em * en * OUTPUT_BYTES * params.epilogue_stages * copies,
                                 _tma_alignment(row), live) for i in range(outputs)]
    elif params.tma_store:
        columns, row = _chunked(params, OUTPUT_BYTES)
        copies = params.compute_warp_groups if params.ping_pong and deferred else 1
        def live(i: int) -> tuple[int, int]:
            if deferred and _walks_tiles(params):
                return SPANNING if spanning else TILE_LOOP
            # one output after the other: each tile is stored and waited for before the next is written
            return (EPILOGUE[0] + 2 * i, EPILOGUE[1] + 2 * i)
        staging = [BufferRequest(f"output{i}", tm * columns * OUTPUT_BYTES * copies, _tma_alignment(row), live(i))
                   for i in range(outputs)]
    operands = MAINLOOP if not spanning else SPANNING
    barriers = (SETUP, TILE_LOOP[1]) if spanning else MAINLOOP_BARRIERS
    per_stage = 2 if tma_operands == 2 else tma_operands     # compute-loaded: the block syncs guard the reuse
    if per_stage:
        out.append(mbarriers("AB_mbar", per_stage * stages, barriers))
    if params.ping_pong:
        out.append(mbarriers("order", 2 * params.compute_warp_groups, (ORDER, TILE_LOOP[1])))
    # one output's epilogue is computed inside its stmatrix instructions, which read C (and the vectors) to the last;
    # several outputs of a whole tile share their epilogue's registers, computed (reading C) before the first
    # stmatrix; sub-tiled, per sub-tile, between the stmatrix instructions of the one before
    shared_first = outputs > 1 and params.tma_store and params.epilogue_tile is None
    read_until = EPILOGUE[0] - 1 if shared_first else EPILOGUE[0]
    loads: list[BufferRequest] = []
    for i, tile in enumerate(tiles):
        late = tile.after_mainloop and not params.tma_store
        start = AFTER_MAINLOOP if late else (IN_TILE_LOOP if spanning else PREFETCH)
        # ping-pong: allocated outside the tile loop, first written in it (after A and B, before the output tile)
        live = (SPANNING[0], TILE_LOOP[1]) if params.ping_pong else (start, read_until)
        if tile.vector:
            count = tm if tile.vector == "M" else tn
            loads.append(BufferRequest(f"V{i}", count * tile.size * parts, current_target().tma.smem_alignment,
                                       live))      # one unswizzled box
            continue
        columns, row = _chunked(params, tile.size)
        loads.append(BufferRequest(f"C{i}", tm * columns * tile.size * parts, _tma_alignment(row), live))
    a_bytes, a_align = _operand_tile(params, dtype.size, tm, layout.a_mn_major)
    b_bytes, b_align = _operand_tile(params, dtype.size, tn, layout.b_mn_major)
    out.extend(loads if not params.ping_pong else ())
    out.append(BufferRequest("A", a_bytes, a_align, operands, stages))
    out.append(BufferRequest("B", b_bytes, b_align, operands, stages))
    out.extend(loads if params.ping_pong else ())
    out.extend(staging)              # after A and B: first used with them when it spans their loop
    return out


def producer_loads(params: MatmulSchedule) -> bool:
    """The producer warp group loads the epilogue's inputs through a pipeline of sub-tiles (``epilogue_loads``)."""
    return getattr(params, "epilogue_loads", "consumer") == "producer" and params.epilogue_tile is not None


def _producer_loaded(params: MatmulSchedule, dtype: DataType, tiles: tuple[LoadedTile, ...], layout: MatmulLayout,
                     tma_operands: int, outputs: int) -> list[BufferRequest]:
    """``epilogue_loads="producer"``: each epilogue input a circular buffer of ``epilogue_load_stages`` sub-tiles
    (``TM x EN``, or a vector's ``EN`` columns or ``TM`` rows) with a "full" and an "empty" barrier per stage, set up
    after the operands' barriers, ahead of the mainloop whose producer fills them, and live with A and B from the
    mainloop's start (through the tile loop when persistent) to the epilogue's end."""
    base = matmul_smem_requests(replace(params, epilogue_loads="consumer"), dtype, (), layout, tma_operands,
                                outputs=outputs)
    tm = params.tile[0]
    assert params.epilogue_tile is not None
    en = params.epilogue_tile[1]
    turns = params.compute_warp_groups if params.ping_pong else 1
    stages = max(2, params.tile[1] // en * turns)
    spanning = params.warp_specialized and params.persistent
    barriers = (PREFETCH, TILE_LOOP[1]) if spanning else (MAINLOOP_BARRIERS[0] + 1, EPILOGUE[1] + 1)
    live = SPANNING if spanning else (MAINLOOP_BARRIERS[0] + 2, EPILOGUE[0])
    out: list[BufferRequest] = []
    loads: list[BufferRequest] = []
    for i, tile in enumerate(tiles):
        out.append(mbarriers(f"C{i}_mbar", 2 * stages, barriers))
        if tile.vector:
            count = tm if tile.vector == "M" else en
            loads.append(BufferRequest(f"V{i}", count * tile.size * stages, current_target().tma.smem_alignment, live))
            continue
        loads.append(BufferRequest(f"C{i}", tm * en * tile.size * stages, _tma_alignment(en * tile.size), live))
    b = next(k for k, r in enumerate(base) if r.name == "B")
    return base[:b + 1] + out + base[b + 1:] + loads      # the buffers after the output's: allocated ahead of them


def _walks_tiles(params) -> bool:
    """A block walks several tiles in a loop (persistent, or stream-K's ranges): buffers allocated outside the loop
    live through it."""
    return params.persistent or getattr(params, "stream_k", False)
