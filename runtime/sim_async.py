"""The async proxy of the simulator: TMA loads and stores and cp.async copies in flight.

An issued copy poisons its destination at once and lands later: after every statement its
issuing task executes, each of its copies in flight lands with probability ``LAND_PROBABILITY``
(seeded; every ``LAZY_EVERY``-th seed uses 0, so copies land only when forced, the latest legal
moment, and a read that skips its wait always sees poison), and at the latest when a waiter needs it: a blocked mbarrier wait forces the copies of
its barrier, ``cp.async`` and bulk wait-groups force their groups. Sources are read when the copy
lands; writing a TMA store's shared-memory source before the bulk wait that retires it is an error
(``sim_proxy``), whenever the copy happens to land.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from lowering.kernel_ir import CopyKind

from .sim_mbarrier import MBarrierArray
from .sim_memory import Storage
from .sim_tasks import Progress

LAND_PROBABILITY = 0.3
LAZY_EVERY = 3


def land_probability(seed: int) -> float:
    """The chance a copy in flight lands after a statement of its issuer: 0 (only when forced) for every
    ``LAZY_EVERY``-th seed."""
    return 0.0 if seed % LAZY_EVERY == 0 else LAND_PROBABILITY


# (copy, destination positions, landing): the proxy is about to write shared memory, poison on issue or data
# on landing (the wgmma and TMA store source checks run here)
OnWrite = Callable[["AsyncCopy", np.ndarray, bool], None]
# (copy, landed rows, barrier keys whose phase completed)
OnLand = Callable[["AsyncCopy", np.ndarray, np.ndarray], None]


@dataclass(eq=False)
class AsyncCopy:
    """One executed copy statement: a row per issuing lane, ``width`` elements per row."""

    kind: CopyKind
    dst: Storage
    dst_pos: np.ndarray         # [rows, width] flat positions in dst
    src: Storage
    src_pos: np.ndarray         # [rows, width] flat positions in src (valid where ``valid``)
    valid: np.ndarray           # [rows, width]; invalid load elements land as 0, invalid store elements are skipped
    lanes: np.ndarray           # [rows] issuing lane
    issuer: object = None       # the task that issued it: its statements are the copy's clock
    group: np.ndarray | None = None       # [rows] commit group (cp.async, bulk stores)
    mbar: MBarrierArray | None = None     # TMA loads complete transactions on this barrier
    bar_keys: np.ndarray | None = None    # [rows]
    nbytes: int = 0             # bytes per row
    open: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.open is None:
            self.open = np.ones(len(self.lanes), dtype=bool)


class AsyncEngine:
    """The copies in flight. ``rng`` decides when they land (the simulator's one generator, shared with the
    scheduler); every landing advances ``progress``; ``on_write`` and ``on_land`` are called, in order, before
    the proxy writes a destination and after a copy landed."""

    def __init__(self, rng: np.random.Generator, progress: Progress, land_probability: float = LAND_PROBABILITY, *,
                 on_write: Sequence[OnWrite] = (), on_land: Sequence[OnLand] = ()) -> None:
        self.rng = rng
        self.progress = progress
        self.land_probability = land_probability
        self.copies: list[AsyncCopy] = []
        self.on_write = tuple(on_write)
        self.on_land = tuple(on_land)

    def issue(self, copy: AsyncCopy) -> None:
        if copy.kind is not CopyKind.TmaStore:
            for on_write in self.on_write:
                on_write(copy, copy.dst_pos, False)
            copy.dst.poison_positions(copy.dst_pos.reshape(-1))
        self.copies.append(copy)

    def tick(self, issuer: object) -> bool:
        """Random landings after ``issuer`` executed one statement; True if anything landed."""
        landed = False
        for copy in list(self.copies):
            if copy.issuer is not issuer:
                continue
            sel = copy.open & (self.rng.random(len(copy.open)) < self.land_probability)
            if sel.any():
                self.land(copy, sel)
                landed = True
        return landed

    def land(self, copy: AsyncCopy, sel: np.ndarray) -> None:
        sel = sel & copy.open
        if not sel.any():
            return
        copy.open &= ~sel
        if not copy.open.any():
            self.copies.remove(copy)
        valid = copy.valid[sel]
        if copy.kind is not CopyKind.TmaStore:
            for on_write in self.on_write:
                on_write(copy, copy.dst_pos[sel], True)
        values = copy.src.read(np.where(valid, copy.src_pos[sel], 0))
        if copy.kind is CopyKind.TmaStore:
            copy.dst.write(copy.dst_pos[sel][valid], values[valid])
        else:
            copy.dst.write(copy.dst_pos[sel], np.where(valid, values, np.zeros((), values.dtype)))
        completed = np.zeros(0, dtype=np.int64)
        if copy.mbar is not None and copy.bar_keys is not None:
            completed = copy.mbar.complete_tx(copy.bar_keys[sel], copy.nbytes)
        self.progress.advance()
        for on_land in self.on_land:
            on_land(copy, sel, completed)

    def force_barrier(self, mbar: MBarrierArray, keys: np.ndarray) -> bool:
        """Land every TMA load in flight on one of ``keys`` of ``mbar``; True if anything landed."""
        landed = False
        for copy in list(self.copies):
            if copy.mbar is mbar and copy.bar_keys is not None:
                sel = copy.open & np.isin(copy.bar_keys, keys)
                if sel.any():
                    self.land(copy, sel)
                    landed = True
        return landed

    def in_flight(self, mbar: MBarrierArray, key: int) -> int:
        n = 0
        for copy in self.copies:
            if copy.mbar is mbar and copy.bar_keys is not None:
                n += int(np.count_nonzero(copy.open & (copy.bar_keys == key)))
        return n

    def wait_groups(self, kinds: tuple[CopyKind, ...], lanes: np.ndarray, oldest_kept: np.ndarray,
                    num_lanes: int) -> None:
        """Land copies of ``kinds`` issued by ``lanes`` in commit groups older than ``oldest_kept`` (per lane)."""
        limit = np.full(num_lanes, -1, dtype=np.int64)
        limit[lanes] = oldest_kept
        for copy in list(self.copies):
            if copy.kind in kinds and copy.group is not None:
                sel = copy.open & (copy.group < limit[copy.lanes])
                if sel.any():
                    self.land(copy, sel)

    def finish(self) -> None:
        """Kernel exit: stores and cp.async copies still in flight land; unwaited TMA loads are dropped."""
        for copy in list(self.copies):
            if copy.kind is CopyKind.TmaLoad:
                self.copies.remove(copy)
            else:
                self.land(copy, copy.open.copy())
