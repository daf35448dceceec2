"""Simulated memory for ``runtime.simulate``: the grid's lanes, typed storage with poison and bounds checks,
and ``Memory``, the launch's buffers by name.

Every buffer is one flat numpy array of ``rows * size`` elements: one row for a Global buffer, one
per block for Shared, one per thread (lane) for Local. Floating types are stored as float32 and
rounded through their own precision on every store, so Half and BFloat16 behave like the GPU's
storage while arithmetic stays in float32. Never-written memory holds poison: NaN for floats,
``POISON_INT`` for integers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fusion_ir.reference import round_bf16
from fusion_ir.types import DataType, MemoryType
from fusion_ir.value_semantics import to_bool, to_integer
from lowering.kernel_ir import Buffer

from .errors import SimulationError
from .sim_mbarrier import LIVE, MBarrierArray

POISON_INT = -123456789


class Grid:
    """Per-lane thread and block coordinates of a launch, or of the range ``blocks`` of its blocks (linear block
    numbers; the simulator runs a big grid a range at a time); lane = block * threads_per_block + thread, with
    ``block`` counted from the range's start."""

    def __init__(self, grid: tuple[int, int, int], block: tuple[int, int, int], blocks: range | None = None,
                 cluster: tuple[int, int, int] = (1, 1, 1)) -> None:
        self.grid = grid
        self.block = block
        self.cluster = cluster
        gx, gy, _ = grid
        bx, by, _ = block
        if blocks is None:
            blocks = range(grid[0] * grid[1] * grid[2])
        self.threads_per_block = block[0] * block[1] * block[2]
        self.num_blocks = len(blocks)
        self.num_lanes = self.num_blocks * self.threads_per_block
        lane = np.arange(self.num_lanes, dtype=np.int64)
        t = lane % self.threads_per_block
        b = lane // self.threads_per_block
        self.block_of = b
        self.thread_of = t
        self.warp_of = t // 32
        self.tid = (t % bx, (t // bx) % by, t // (bx * by))
        linear = b + blocks.start
        self.bid = (linear % gx, (linear // gx) % gy, linear // (gx * gy))
        self._first_block = blocks.start
        cx, cy, cz = cluster
        self.cluster_size = cx * cy * cz
        number = np.arange(self.num_blocks, dtype=np.int64) + blocks.start
        first = (number % gx, (number // gx) % gy, number // (gx * gy))
        self.block_coords = first        # each block's (blockIdx.x, blockIdx.y, blockIdx.z)
        # per block: its rank in its cluster (%cluster_ctarank) and its cluster's number (the clusters' origins
        # numbered over the grid)
        self.rank_of_block = first[0] % cx + (first[1] % cy) * cx + (first[2] % cz) * cx * cy
        self.cluster_of_block = (first[0] // cx + (first[1] // cy) * (gx // cx)
                                 + (first[2] // cz) * (gx // cx) * (gy // cy))

    def peer_blocks(self, blocks: np.ndarray, rank: np.ndarray) -> np.ndarray:
        """The block (number in this range) of cluster rank ``rank`` in the cluster of each of ``blocks``."""
        cx, cy, _ = self.cluster
        gx, gy, _ = self.grid
        origin = [self.block_coords[d][blocks] - self.block_coords[d][blocks] % self.cluster[d] for d in range(3)]
        x, y, z = origin[0] + rank % cx, origin[1] + (rank // cx) % cy, origin[2] + rank // (cx * cy)
        return x + y * gx + z * gx * gy - self._first_block

    def lane_symbols(self, lanes: np.ndarray) -> dict[str, np.ndarray]:
        return {
            "threadIdx.x": self.tid[0][lanes], "threadIdx.y": self.tid[1][lanes], "threadIdx.z": self.tid[2][lanes],
            "blockIdx.x": self.bid[0][lanes], "blockIdx.y": self.bid[1][lanes], "blockIdx.z": self.bid[2][lanes],
        }

    def describe(self, lane: int) -> str:
        t = tuple(int(a[lane]) for a in self.tid)
        b = tuple(int(a[lane]) for a in self.bid)
        return f"thread {t} of block {b}"

    def block_name(self, block: int) -> str:
        return str(tuple(int(a[block * self.threads_per_block]) for a in self.bid)) if self.num_lanes else "()"

    def warp_name(self, lane: int) -> str:
        """``lane``'s warp, as in "warp 3 of block (1, 0, 0)"."""
        return f"{int(self.warp_of[lane])} of block {self.block_name(int(self.block_of[lane]))}"


# ---------------------------------------------------------------- dtypes
def storage_dtype(dtype: DataType) -> np.dtype:
    if dtype.is_float:
        return np.dtype(np.float32)
    return np.dtype(dtype.numpy_name)


def poison_value(dtype: DataType) -> Any:
    if dtype.is_float:
        return np.float32(np.nan)
    if dtype is DataType.Bool:
        return False
    return POISON_INT


def to_dtype(dtype: DataType, x: Any) -> Any:
    """Convert computed values to what a ``dtype`` register or memory cell holds."""
    if dtype is DataType.Float:
        return np.asarray(x, dtype=np.float32) if isinstance(x, np.ndarray) else np.float32(x)
    if dtype is DataType.Half:
        return np.asarray(x, dtype=np.float32).astype(np.float16).astype(np.float32)
    if dtype is DataType.BFloat16:
        return round_bf16(x)
    if dtype is DataType.Bool:
        return to_bool(x)
    return to_integer(dtype, x)  # truncate, saturate, NaN -> 0 from floats; wrap from integers


# ---------------------------------------------------------------- storage
class Storage:
    """The elements of one buffer; see the module docstring for rows."""

    def __init__(self, buffer: Buffer, rows: int, size: int) -> None:
        self.buffer = buffer
        self.name = buffer.name
        self.memory = buffer.memory
        self.dtype = buffer.dtype
        self.rows = rows
        self.size = size
        self.data = np.full(rows * size, poison_value(buffer.dtype), dtype=storage_dtype(buffer.dtype))
        # shared-memory aliasing: (other storage, this buffer's byte offset, other's byte offset)
        self.byte_offset: int | None = None
        self.aliases: list[tuple[Any, int, int]] = []
        # wgmma (``sim_wgmma``): per position, how many unretired wgmmas read it (Shared operands, and Local
        # register A operands), the thread's fence count at a register A operand's last ordinary write, and the
        # accumulator state of a buffer some Mma accumulates into (Local)
        self.wgmma_reads: np.ndarray | None = None
        self.wgmma_written: np.ndarray | None = None
        self.wgmma_acc: Any = None
        # TMA store sources (``sim_proxy``): unretired store reads and the latest ordinary writers
        self.proxy: Any = None
        # a grid reduction's work buffer (``sim_grid_sync``): who wrote each partial, and whether it is published
        self.grid_sync: Any = None
        self.grid_writer: np.ndarray | None = None
        self.grid_epoch: np.ndarray | None = None

    def positions(self, grid: Grid, lanes: np.ndarray, index: Any, what: str | Callable[[], str],
                  count: int = 1) -> Any:
        """Flat positions of ``index .. index + count - 1`` per lane, after a bounds check.

        ``what`` names the access for the error message (a callable is only called on error).
        """
        idx = np.asarray(index)
        if idx.size and (idx.min() < 0 or idx.max() + (count - 1) >= self.size):
            self._out_of_bounds(grid, lanes, idx, what, count)
        if self.memory is MemoryType.Global:
            return index
        row = grid.block_of[lanes] if self.memory is MemoryType.Shared else lanes
        return row * self.size + index

    def _out_of_bounds(self, grid: Grid, lanes: np.ndarray, idx: np.ndarray, what: str | Callable[[], str],
                       count: int) -> None:
        if callable(what):
            what = what()
        bad = (idx < 0) | (idx + (count - 1) >= self.size)
        k = int(np.flatnonzero(np.broadcast_to(bad, lanes.shape))[0]) if idx.ndim else 0
        value = int(idx.reshape(-1)[k] if idx.ndim else idx)
        span = f"[{value}]" if count == 1 else f"[{value}:{value + count}]"
        raise SimulationError(
            f"out-of-bounds access {self.name}{span} (size {self.size}, {self.memory.name}) in {what} "
            f"by {grid.describe(int(lanes[k]))}"
        )

    def read(self, positions: Any) -> Any:
        return self.data[positions]

    def write(self, positions: Any, values: Any) -> None:
        self.data[positions] = values
        if self.aliases:
            clobber_aliases(self, np.asarray(positions))

    def poison_rows(self, rows: np.ndarray) -> None:
        if rows.size == 0:
            return
        # an allocation writes nothing, so aliased buffers keep their contents
        self.data.reshape(self.rows, self.size)[rows] = poison_value(self.dtype)

    def poison_positions(self, positions: np.ndarray) -> None:
        self.write(positions, poison_value(self.dtype))

    def clobber(self, positions: np.ndarray, by: str) -> None:
        if self.wgmma_reads is not None and (self.wgmma_reads[positions] > 0).any():
            hit = positions[self.wgmma_reads[positions] > 0] % self.size
            raise SimulationError(f"a write to {by} overwrites {self.name}[{int(hit.min())}:{int(hit.max()) + 1}] "
                                  f"(the two share shared-memory bytes) that a wgmma not yet retired by "
                                  f"wgmma.wait_group still reads")
        if self.proxy is not None and (self.proxy.reads[positions] > 0).any():
            hit = positions[self.proxy.reads[positions] > 0] % self.size
            raise SimulationError(f"a write to {by} overwrites {self.name}[{int(hit.min())}:{int(hit.max()) + 1}] "
                                  f"(the two share shared-memory bytes): staging tile rewritten before the store's "
                                  f"read finished, the source of a TMA store rewritten while "
                                  f"a TMA store may still read it (before the AsyncWait('bulk') that retires it)")
        self.data[positions] = poison_value(self.dtype)


def clobber_aliases(owner: Any, positions: np.ndarray) -> None:
    """A write to shared memory that another buffer also occupies destroys that buffer's contents.

    ``owner`` is a ``Storage`` or an ``MBarrierArray``; ``positions`` are its flat positions written.
    """
    rows, idx = np.divmod(np.asarray(positions).reshape(-1), owner.size)
    mine = owner.dtype.size
    for other, my_offset, other_offset in owner.aliases:
        theirs = other.dtype.size
        first = (my_offset + idx * mine - other_offset) // theirs
        last = (my_offset + (idx + 1) * mine - 1 - other_offset) // theirs
        for k in range(max(1, mine // theirs) + 1):
            j = first + k
            hit = (j <= last) & (j >= 0) & (j < other.size)
            if hit.any():
                other.clobber(rows[hit] * other.size + j[hit], owner.name)


# ---------------------------------------------------------------- the buffers of a launch
class Memory:
    """Every buffer of the launch by name: the parameters, and each allocation once executed (``sim_memory_ops``
    creates them); the lookups name the statement that misuses one."""

    def __init__(self) -> None:
        self.storages: dict[str, Storage | MBarrierArray] = {}
        self.params: set[str] = set()

    def add_param(self, st: Storage, kernel_name: str) -> None:
        if st.name in self.storages:
            raise SimulationError(f"kernel {kernel_name}: two parameters are named {st.name}")
        self.storages[st.name] = st
        self.params.add(st.name)

    def data_storage(self, buf: Buffer, what: str) -> Storage:
        st = self.storages.get(buf.name)
        if st is None:
            raise SimulationError(f"{what}: buffer {buf.name} is used before its Allocate")
        if isinstance(st, MBarrierArray):
            raise SimulationError(f"{what}: {buf.name} holds mbarriers, not data")
        return st

    def mbar(self, buf: Buffer, what: str) -> MBarrierArray:
        st = self.storages.get(buf.name)
        if st is None:
            raise SimulationError(f"{what}: mbarrier buffer {buf.name} is used before its Allocate")
        if not isinstance(st, MBarrierArray):
            raise SimulationError(f"{what}: {buf.name} is not an mbarrier buffer")
        return st

    def check_exit(self) -> None:
        """The blocks exited: every mbarrier they initialized must have been invalidated."""
        for st in self.storages.values():
            if isinstance(st, MBarrierArray):
                live = np.flatnonzero(st.state == LIVE)
                if live.size:
                    raise SimulationError(f"{st.label(int(live[0]))} (and {live.size - 1} more) was initialized and "
                                          f"never invalidated (mbarrier::inval) before its block exited; its shared "
                                          f"memory cannot be reused as data")
