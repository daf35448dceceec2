"""mbarrier statements of the simulator: init, inval, arrive, arriveExpectTx and the two waits.

The barrier state itself is ``sim_mbarrier.MBarrierArray``; this module evaluates the statements'
operands per lane, traces the events of block 0, and blocks waiters until their phase completes.
A blocked waiter forces the TMA copies in flight on its barrier to land first (the latest legal
moment), so only a wait that can never complete deadlocks.
"""

from __future__ import annotations

from collections.abc import Callable, Generator

import numpy as np

from fusion_ir.scalar import Val
from lowering import kernel_ir as k

from .errors import SimulationError
from .sim_async import AsyncEngine
from .sim_eval import Evaluator
from .sim_mbarrier import LIVE, MBarrierArray
from .sim_memory import POISON_INT, Grid, Memory, clobber_aliases, storage_dtype
from .sim_proxy import AsyncProxy
from .sim_tasks import Blocked, Ctx, Handler, Progress, TaskGen
from .sim_threads import Threads
from .sim_trace import Tracer


class MBarrierOps:
    """mbarrier statements on the ``MBarrierArray`` buffers of ``memory``: a waiter forces the TMA copies of
    ``async_`` on its barrier to land; an arrival orders the thread's proxy fences (``proxy``)."""

    def __init__(self, grid: Grid, evaluator: Evaluator, memory: Memory, async_: AsyncEngine, proxy: AsyncProxy,
                 tracer: Tracer, progress: Progress, threads: Threads) -> None:
        self.grid = grid
        self.eval = evaluator
        self.memory = memory
        self.async_ = async_
        self.proxy = proxy
        self.tracer = tracer
        self.progress = progress
        self.threads = threads

    def handles(self) -> dict[type, Handler]:
        return {k.MBarrierInit: self.init, k.MBarrierInval: self.inval, k.MBarrierArrive: self.arrive,
                k.MBarrierArriveExpectTx: self.arrive_expect_tx, k.MBarrierWaitParity: self.wait_parity,
                k.MBarrierWait: self.wait, k.MBarrierRemoteArrive: self.remote_arrive}

    def check_peer(self, mb: MBarrierArray, keys: np.ndarray, blocks: np.ndarray, issuers: np.ndarray,
                   what: str) -> None:
        """``keys`` (barriers of ``blocks``, reached from ``issuers`` of the same cluster) are live and their blocks
        still running: a peer that has not initialized its barriers (no cluster sync after the init) or that has
        exited or invalidated them (no cluster sync before the exit) is an error naming both blocks."""
        gone = np.flatnonzero(self.threads.alive[blocks] == 0)
        if gone.size:
            j = int(gone[0])
            raise SimulationError(f"{what} by block {self.grid.block_name(int(issuers[j]))} reaches block "
                                  f"{self.grid.block_name(int(blocks[j]))}, which has exited: its shared memory and "
                                  f"barriers are gone (a cluster sync before the blocks of a cluster exit is missing)")
        bad = np.flatnonzero(mb.state[keys] != LIVE)
        if bad.size:
            j = int(bad[0])
            try:
                mb.check_live(keys[j:j + 1], what)
            except SimulationError as e:
                raise SimulationError(f"{e} (issued by block {self.grid.block_name(int(issuers[j]))} of the same "
                                      f"cluster: a cluster sync between the peers' barrier init or inval and "
                                      f"this is missing)") from None

    def remote_arrive(self, node: k.MBarrierRemoteArrive, ctx: Ctx, i: int) -> None:
        what = "mbarrier::arrive on a peer block"
        mb = self.memory.mbar(node.mbar, what)
        index = self.keys(mb, node.index, ctx, what) % mb.size
        ranks = self.eval.per_lane(node.cta, ctx)
        bad = np.flatnonzero((ranks < 0) | (ranks >= self.grid.cluster_size))
        if bad.size:
            j = int(bad[0])
            raise SimulationError(f"{what}: cluster rank {int(ranks[j])} of {self.grid.describe(int(ctx.lanes[j]))} "
                                  f"is not in its cluster of {self.grid.cluster_size} blocks")
        issuers = self.grid.block_of[ctx.lanes]
        blocks = self.grid.peer_blocks(issuers, ranks)
        keys = blocks * mb.size + index
        self.check_peer(mb, keys, blocks, issuers, what)
        self.tracer.event("mbarrier.arrive", ctx, mb, keys)
        self.proxy.publish_fences(ctx.lanes)
        self.tracer.completions(mb, mb.arrive(keys, None, what))

    def keys(self, mb: MBarrierArray, index: Val, ctx: Ctx, what: str) -> np.ndarray:
        idx = self.eval.per_lane(index, ctx)
        bad = (idx < 0) | (idx >= mb.size)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise SimulationError(f"out-of-bounds mbarrier {mb.name}[{int(idx[j])}] (size {mb.size}) in {what} by "
                                  f"{self.grid.describe(int(ctx.lanes[j]))}")
        return self.grid.block_of[ctx.lanes] * mb.size + idx

    def init(self, node: k.MBarrierInit, ctx: Ctx, i: int) -> None:
        mb = self.memory.mbar(node.mbar, "mbarrier::init")
        keys = self.keys(mb, node.index, ctx, "mbarrier::init")
        mb.init(keys, self.eval.per_lane(node.count, ctx))
        if mb.aliases:
            clobber_aliases(mb, keys)
        self.tracer.event("mbarrier.init", ctx, mb, keys, count=int(self.eval.per_lane(node.count, ctx)[0]))

    def inval(self, node: k.MBarrierInval, ctx: Ctx, i: int) -> None:
        mb = self.memory.mbar(node.mbar, "mbarrier::inval")
        keys = self.keys(mb, node.index, ctx, "mbarrier::inval")
        for key in np.unique(keys):
            n = self.async_.in_flight(mb, int(key))
            if n:
                raise SimulationError(f"mbarrier::inval of {mb.label(int(key))} while {n} TMA copies on it are still "
                                      f"in flight (nobody waited for them)")
        mb.inval(keys)
        self.tracer.event("mbarrier.inval", ctx, mb, keys)

    def arrive(self, node: k.MBarrierArrive, ctx: Ctx, i: int) -> None:
        mb = self.memory.mbar(node.mbar, "mbarrier::arrive")
        keys = self.keys(mb, node.index, ctx, "mbarrier::arrive")
        self.tracer.event("mbarrier.arrive", ctx, mb, keys)
        self.proxy.publish_fences(ctx.lanes)
        self.tracer.completions(mb, mb.arrive(keys, None, "mbarrier::arrive"))

    def arrive_expect_tx(self, node: k.MBarrierArriveExpectTx, ctx: Ctx, i: int) -> None:
        what = "mbarrier::arriveExpectTx"
        mb = self.memory.mbar(node.mbar, what)
        keys = self.keys(mb, node.index, ctx, what)
        tx = self.eval.per_lane(node.tx_bytes, ctx)
        mb.check_live(keys, what)
        if node.token is not None and node.token_index is not None:   # verify: a token comes with its index
            tok = self.memory.data_storage(node.token, f"{what} token")
            pos = tok.positions(self.grid, ctx.lanes, self.eval.ev(node.token_index, ctx), f"{what} token store")
            tok.write(np.broadcast_to(pos, ctx.lanes.shape), mb.phase[keys].astype(storage_dtype(tok.dtype)))
        self.tracer.event("mbarrier.arrive_expect_tx", ctx, mb, keys, tx_bytes=int(tx[0]))
        self.proxy.publish_fences(ctx.lanes)
        self.tracer.completions(mb, mb.arrive(keys, tx, what))

    def wait_parity(self, node: k.MBarrierWaitParity, ctx: Ctx, i: int) -> TaskGen:
        what = "mbarrier::waitParity"
        mb = self.memory.mbar(node.mbar, what)
        keys = self.keys(mb, node.index, ctx, what)
        parity = self.eval.per_lane(node.parity, ctx) & 1
        yield from self._wait_phase(mb, keys, lambda: (mb.phase[keys] & 1) != parity, what, "mbarrier.wait_parity",
                                    ctx, lambda key, j: f"the phase with parity {int(parity[j])} to complete",
                                    parity=int(parity[0]))
        return ctx

    def wait(self, node: k.MBarrierWait, ctx: Ctx, i: int) -> TaskGen:
        what = "mbarrier::wait"
        mb = self.memory.mbar(node.mbar, what)
        keys = self.keys(mb, node.index, ctx, what)
        tok = self.memory.data_storage(node.token, f"{what} token")
        tokens = np.broadcast_to(tok.read(tok.positions(self.grid, ctx.lanes, self.eval.ev(node.token_index, ctx),
                                                        f"{what} token load")), ctx.lanes.shape)
        if np.any(tokens == POISON_INT):
            j = int(np.flatnonzero(tokens == POISON_INT)[0])
            raise SimulationError(f"{what} on {mb.label(int(keys[j]))} reads token {node.token.name}"
                                  f"[{node.token_index}], which no arriveExpectTx stored "
                                  f"({self.grid.describe(int(ctx.lanes[j]))})")
        yield from self._wait_phase(mb, keys, lambda: mb.phase[keys] > tokens, what, "mbarrier.wait", ctx,
                                    lambda key, j: f"phase {int(tokens[j])} (its token) to complete",
                                    token=int(tokens[0]))
        return ctx

    def _wait_phase(self, mb: MBarrierArray, keys: np.ndarray, ready: Callable[[], np.ndarray], what: str,
                    event: str, ctx: Ctx, waited: Callable[[int, int], str],
                    **trace: int) -> Generator[Blocked, None, None]:
        """Block until ``ready()`` held for every lane once; a waiter forces its barrier's copies to land.
        ``event``: the trace event the wait records (``what`` names it in messages)."""
        mb.check_live(keys, what)
        done = ready().copy()
        self.tracer.event(event, ctx, mb, keys, **trace)
        while not done.all():
            if self.async_.force_barrier(mb, np.unique(keys[~done])):
                self.progress.advance()
                done |= ready()
                continue
            yield Blocked(lambda done=done: self._describe_wait(mb, keys, done, what, waited))
            mb.check_live(keys, what)
            done |= ready()
        self.tracer.event(f"{event}.done", ctx, mb, keys)

    def _describe_wait(self, mb: MBarrierArray, keys: np.ndarray, done: np.ndarray, what: str,
                       waited: Callable[[int, int], str]) -> list[str]:
        """One line per barrier index: the first waiting block in detail, the others counted."""
        lines = []
        pending = np.flatnonzero(~done)
        for index in np.unique(keys[pending] % mb.size)[:4]:
            rows = pending[keys[pending] % mb.size == index]
            blocks = np.unique(keys[rows] // mb.size)
            j = int(rows[0])
            key = int(keys[j])
            more = f" (and in {blocks.size - 1} more blocks)" if blocks.size > 1 else ""
            lines.append(f"{what} waits on {mb.label(key)} for {waited(key, j)}{more}; "
                         f"{mb.describe(key, self.async_.in_flight(mb, key))}")
        return lines
