"""Memory statements of the simulator: allocations, shared-memory placement, stores and vector copies.

A Local allocation gets a fresh (poisoned) row per thread each time it executes; a Shared one a row
per block, claimed by the first task of the block to reach the statement instance. A placed shared
buffer (``Allocate.offset``) must honour its ``Buffer.align``, and a swizzled one the swizzle's
alignment; buffers whose bytes overlap record each other, so a write to one destroys the other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fusion_ir.types import MemoryType
from lowering import kernel_ir as k

from .errors import SimulationError
from .sim_eval import Evaluator
from .sim_mbarrier import MBarrierArray
from .sim_memory import Grid, Memory, Storage, to_dtype
from .sim_proxy import AsyncProxy
from .sim_tasks import Ctx, Handler
from .sim_values import REDUCE, uniform
from .sim_wgmma_state import WgmmaState


class MemoryOps:
    """``Allocate`` and ``Assign`` statements on the buffers of ``memory``. A store is checked against the
    wgmmas in flight (``wgmma``) and the TMA stores reading it (``proxy``); an allocation registers the buffers
    they track. ``env`` holds the launch's sizes (the kernel's dynamic shared-memory size)."""

    def __init__(self, kernel: k.Kernel, grid: Grid, env: dict[str, Any], evaluator: Evaluator, memory: Memory,
                 wgmma: WgmmaState, proxy: AsyncProxy) -> None:
        self.kernel = kernel
        self.grid = grid
        self.env = env
        self.eval = evaluator
        self.memory = memory
        self.wgmma = wgmma
        self.proxy = proxy
        # per-block "first arrival" of a dynamic statement instance (shared allocations)
        self.claims: dict[tuple, np.ndarray] = {}
        self.mbar_names = mbarrier_buffers(kernel.body)

    def handles(self) -> dict[type, Handler]:
        return {k.Allocate: self.allocate, k.Assign: self.assign, k.WarpShuffleXor: self.warp_shuffle,
                k.Discard: self.discard}

    def discard(self, node: k.Discard, ctx: Ctx, i: int) -> Ctx:
        """The lanes' registers of the buffer poisoned: a read before their next write shows."""
        self.memory.data_storage(node.buffer, "discard").poison_rows(ctx.lanes)
        return ctx

    def allocate(self, node: k.Allocate, ctx: Ctx, i: int) -> Ctx:
        buf = node.buffer
        size = uniform(self.eval.ev(buf.size, ctx))
        if isinstance(size, np.ndarray):
            raise SimulationError(f"Allocate of {buf.name}: size {buf.size} differs between threads")
        size = int(size)
        storages = self.memory.storages
        old = storages.get(buf.name)
        if buf.memory is MemoryType.Local:
            if isinstance(old, Storage) and old.size == size:
                old.poison_rows(ctx.lanes)
            else:
                old = storages[buf.name] = Storage(buf, self.grid.num_lanes, size)
            self.wgmma.attach_accumulators(old)
            return ctx
        if buf.memory is MemoryType.Global:
            if not (isinstance(old, Storage) and old.size == size):
                storages[buf.name] = Storage(buf, 1, size)
            return ctx
        new_blocks = self._claim(ctx.path + (i,), np.unique(self.grid.block_of[ctx.lanes]))
        is_mbar = buf.name in self.mbar_names
        if old is not None and old.size == size and isinstance(old, MBarrierArray) == is_mbar:
            if is_mbar:
                old.reset_rows(new_blocks)  # type: ignore[union-attr]
            elif old.proxy is not None:  # type: ignore[union-attr]
                self.proxy.reallocate_store_source(old, new_blocks)  # type: ignore[arg-type]
            else:
                old.poison_rows(new_blocks)  # type: ignore[union-attr]
            st = old
        else:
            nb = self.grid.num_blocks
            st = MBarrierArray(buf, nb, size) if is_mbar else Storage(buf, nb, size)
            storages[buf.name] = st
        if node.offset is not None:
            self._place_shared(st, node, ctx)
        self.proxy.attach(st)
        return ctx

    def _claim(self, key: tuple, blocks: np.ndarray) -> np.ndarray:
        """Blocks (of ``blocks``) for which this task is the first to reach dynamic instance ``key``."""
        claimed = self.claims.get(key)
        if claimed is None:
            claimed = self.claims[key] = np.zeros(self.grid.num_blocks, dtype=bool)
        new = blocks[~claimed[blocks]]
        claimed[new] = True
        return new

    def _place_shared(self, st: Storage | MBarrierArray, node: k.Allocate, ctx: Ctx) -> None:
        """Check a dynamic shared-memory placement and record which buffers share its bytes."""
        offset = int(self.eval.ev(node.offset, ctx))  # type: ignore[arg-type]
        if st.byte_offset == offset:
            return
        buf = node.buffer
        nbytes = st.size * buf.dtype.size
        if offset % buf.align:
            raise SimulationError(f"Allocate of {buf.name}: shared-memory offset {offset} is not {buf.align}-byte "
                                  f"aligned")
        try:
            smem = int(self.kernel.smem_bytes.evaluate(self.env))
        except KeyError:
            smem = None
        if smem is not None and offset + nbytes > smem:
            raise SimulationError(f"Allocate of {buf.name}: bytes [{offset}, {offset + nbytes}) exceed the kernel's "
                                  f"{smem} bytes of dynamic shared memory")
        for other in self.memory.storages.values():
            other.aliases = [a for a in other.aliases if a[0] is not st]
        st.aliases = []
        st.byte_offset = offset
        for other in self.memory.storages.values():
            if other is st or other.memory is not MemoryType.Shared or other.byte_offset is None:
                continue
            o_off = other.byte_offset
            if offset < o_off + other.size * other.dtype.size and o_off < offset + nbytes:
                st.aliases.append((other, offset, o_off))
                other.aliases.append((st, o_off, offset))

    def assign(self, node: k.Assign, ctx: Ctx, i: int) -> None:
        st = self.memory.data_storage(node.buffer, f"a store to {node.buffer.name}")
        lanes = ctx.lanes
        what = lambda: _store_text(node)  # formatted only on error
        idx = self.eval.ev(node.index, ctx)
        if node.vector > 1:
            self._assign_vector(node, st, idx, ctx)
            return
        value = self.eval.value(node.value, ctx)
        pos = st.positions(self.grid, lanes, idx, what)
        if node.reduce_op is not None:
            op = REDUCE[node.reduce_op]
            value = op(st.read(pos), value)
        pos = np.broadcast_to(pos, lanes.shape)
        if st.wgmma_reads is not None:
            self.wgmma.operand_overwrite(st, pos, what)
        elif st.wgmma_acc is not None:
            self.wgmma.accumulator_store(st.wgmma_acc, pos, lanes, what)
        if st.proxy is not None:
            self.proxy.generic_write(st, pos, lanes, what)
        if st.grid_sync is not None:
            st.grid_sync.partial_write(st, pos, lanes, what)
        st.write(pos, np.broadcast_to(to_dtype(st.dtype, value), lanes.shape))

    def warp_shuffle(self, node: k.WarpShuffleXor, ctx: Ctx, i: int) -> None:
        """``buffer[index] = op(buffer[index], buffer[index] of lane ^ lane_mask)``: every lane reads its partner's
        register as it was before the step (the exchange happens at once across the warp). The partner must be
        executing the shuffle too: ``shfl.sync`` with a full mask from a lane that is not is undefined, so it is
        an error here."""
        st = self.memory.data_storage(node.buffer, f"a warp shuffle of {node.buffer.name}")
        lanes = ctx.lanes
        what = lambda: f"a warp shuffle of {node.buffer.name}[{node.index}]"  # formatted only on error
        pos = np.broadcast_to(st.positions(self.grid, lanes, self.eval.ev(node.index, ctx), what), lanes.shape)
        mine = np.asarray(st.read(pos))
        thread = self.grid.thread_of[lanes]
        partner = lanes - thread + (thread ^ node.lane_mask)
        order = np.argsort(lanes)
        at = np.minimum(np.searchsorted(lanes, partner, sorter=order), lanes.size - 1)
        found = order[at]
        missing = np.flatnonzero(lanes[found] != partner)
        if missing.size:
            j = int(missing[0])
            raise SimulationError(f"{what()}: {self.grid.describe(int(lanes[j]))} reads the register of lane "
                                  f"{int(thread[j] ^ node.lane_mask) % 32} of its warp (lane mask "
                                  f"{node.lane_mask}), which does not execute the shuffle: shfl.sync with a full "
                                  f"mask needs every lane of the warp")
        st.write(pos, to_dtype(st.dtype, REDUCE[node.op](mine, mine[found])))

    def _assign_vector(self, node: k.Assign, st: Storage, idx: Any, ctx: Ctx) -> None:
        load = node.value.x if isinstance(node.value, k.CastValue) else node.value   # a converting copy
        assert isinstance(load, k.Load)   # lowering.verify: a vector copy copies a Load
        src = self.memory.data_storage(load.buffer, f"a vector load of {load.buffer.name}")
        sidx = self.eval.ev(load.index, ctx)
        lanes, v = ctx.lanes, node.vector
        if node.valid is not None:
            self._assign_misaligned(node, st, idx, src, sidx, ctx)
            return
        for name, index in ((node.buffer.name, idx), (load.buffer.name, sidx)):
            self._check_aligned(name, index, v, lanes)
        ar = np.arange(v)
        dpos = np.broadcast_to(st.positions(self.grid, lanes, idx, f"a vector store to {node.buffer.name}", v),
                               lanes.shape)[:, None] + ar
        spos = np.broadcast_to(src.positions(self.grid, lanes, sidx, f"a vector load of {load.buffer.name}", v),
                               lanes.shape)[:, None] + ar
        if src.wgmma_acc is not None:
            self.wgmma.accumulator_load(src.wgmma_acc, spos, lanes)
        values = src.read(spos)
        if node.reduce_op is not None:
            values = REDUCE[node.reduce_op](st.read(dpos), values)
        self._store_vector(st, dpos, lanes, values, lambda: f"a vector store to {node.buffer.name}[{node.index}]")

    def _check_aligned(self, name: str, index: Any, v: int, lanes: Any) -> None:
        """A vector access of ``v`` elements starts on a multiple of ``v`` in every lane."""
        per_lane = np.broadcast_to(np.asarray(index), lanes.shape)
        bad = np.flatnonzero(per_lane % v != 0)
        if bad.size:
            j = int(bad[0])
            raise SimulationError(f"misaligned vector access of {v} elements at {name}[{int(per_lane[j])}] by "
                                  f"{self.grid.describe(int(lanes[j]))}")

    def _store_vector(self, st: Storage, dpos: Any, lanes: Any, values: Any, what: Callable[[], str]) -> None:
        """Write a vector's elements (``dpos``: [lanes, vector]) with the checks of every store: a wgmma operand
        still read, an accumulator in flight, the generic proxy's writes (``what`` is formatted only on error)."""
        if st.wgmma_reads is not None:
            self.wgmma.operand_overwrite(st, dpos, what)
        elif st.wgmma_acc is not None:
            self.wgmma.accumulator_store(st.wgmma_acc, dpos, lanes, what)
        if st.proxy is not None:
            self.proxy.generic_write(st, dpos, lanes[:, None], what)
        st.write(dpos.reshape(-1), to_dtype(st.dtype, values).reshape(-1))

    def _assign_misaligned(self, node: k.Assign, st: Storage, idx: Any, src: Storage, sidx: Any, ctx: Ctx) -> None:
        """A misaligned vector (``Assign.valid``): the destination is a whole aligned vector; element ``e`` of
        the source, at any element position, is read only where its condition holds (only there must it be in
        bounds) and written 0 elsewhere."""
        lanes, v = ctx.lanes, node.vector
        self._check_aligned(node.buffer.name, idx, v, lanes)
        valid = np.stack([np.broadcast_to(np.asarray(self.eval.ev(c, ctx)) != 0, lanes.shape) for c in node.valid],
                         axis=1)
        at = np.broadcast_to(np.asarray(sidx), lanes.shape)[:, None] + np.arange(v)
        values = np.zeros(valid.shape, dtype=src.data.dtype)
        rows, cols = np.nonzero(valid)
        if rows.size:
            spos = src.positions(self.grid, lanes[rows], at[rows, cols],
                                 lambda: f"a misaligned vector load of {node.value.buffer.name}")
            values[rows, cols] = src.read(spos)
        dpos = np.broadcast_to(st.positions(self.grid, lanes, idx, f"a vector store to {node.buffer.name}", v),
                               lanes.shape)[:, None] + np.arange(v)
        self._store_vector(st, dpos, lanes, values,
                           lambda: f"a misaligned vector store to {node.buffer.name}[{node.index}]")


def _store_text(node: k.Assign) -> str:
    """How an error names a store: a rescale when its value reads the element it writes (``x = x * s``)."""
    if _reads(node.value, node.buffer, node.index):
        return f"a rescale of {node.buffer.name}[{node.index}] (a store of a value computed from it)"
    return f"a store to {node.buffer.name}[{node.index}]"


def _reads(value: object, buffer: k.Buffer, index: object) -> bool:
    """``value`` loads ``buffer[index]``."""
    if isinstance(value, k.Load):
        return value.buffer == buffer and value.index == index
    return any(_reads(getattr(value, f), buffer, index) for f in ("x", "a", "b", "cond") if hasattr(value, f))


def mbarrier_buffers(body: tuple[k.Node, ...]) -> set[str]:
    """Names of the buffers some statement uses as mbarriers (their allocations hold barrier state)."""
    names: set[str] = set()
    for node in k.walk(body):
        mbar = getattr(node, "mbar", None)
        if isinstance(mbar, k.Buffer):
            names.add(mbar.name)
    return names
