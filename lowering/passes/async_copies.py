"""Async copies outside pipelines: a TMA or cp.async load that no circular-buffered loop pipelines
completes before anything reads it.

Reads: the ``mbarriers`` analysis (token barriers), the ``circular`` analysis (which loads are
pipelined instead), the ``tma`` analysis (bytes per copy) and the loop nest.
Writes: at a TMA load's statement (at its compute-at depth), one elected thread arrives on the
load's barrier expecting the bytes of every box and issues the copies; right before the first
statement of that scope that reads the tensor, the wait. In the parity form
(``TokenBarrier.parity``) every thread waits on the barrier's phase itself (``waitParity``), and no
block barrier follows; in the token form the elected thread keeps the token, the same elected thread
(lane 0 of its warp every time) waits on it, then the block syncs. What runs between, a
matmul's mainloop before the epilogue that reads a tile of C, hides the copy. After a cp.async
load's statement, a commit and a wait for all groups.
Guarantees: every thread reads an unpipelined async copy only after it landed. (A thread never falls
two phases behind in the parity form: the WAR barrier of the ``syncs`` pass, after the reads, comes
before the next issue.)
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir.exprs import load_kind
from fusion_ir.scalar import Val
from fusion_ir.types import LoadStoreOpType

from ..analysis import Analyses
from ..kernel_ir import (
    AsyncCommit,
    AsyncKind,
    AsyncWait,
    BlockSync,
    ElectSync,
    Kernel,
    MBarrierArriveExpectTx,
    MBarrierWait,
    MBarrierWaitParity,
    Node,
)
from ..placement import edit_scope, reads, replace_at


def run(kernel: Kernel, a: Analyses) -> Kernel:
    body = kernel.body
    zero = Val.const(0)
    for tv, token in a.mbarriers.tokens.items():
        box = a.tma.boxes[tv]

        def issue(scope: tuple[Node, ...], k: int, tv=tv, token=token, box=box) -> tuple[Node, ...]:
            mbar, slot, warp = token.mbar, token.index, box.issuer_warp
            first = next((j for j in range(k + 1, len(scope)) if reads(scope[j], tv)), k + 1)
            if token.parity is not None:     # every thread waits on the phase itself: no block barrier
                start = (ElectSync((MBarrierArriveExpectTx(mbar, slot, box.tx_bytes()), scope[k]), warp=warp),)
                return scope[:k] + start + scope[k + 1:first] + (MBarrierWaitParity(mbar, slot, token.parity),) \
                    + scope[first:]
            assert token.token is not None   # the mbarriers analysis: a token where there is no parity
            start = (MBarrierArriveExpectTx(mbar, slot, box.tx_bytes(), token.token, zero), scope[k])
            wait = (MBarrierWait(mbar, slot, token.token, zero),)
            sync = BlockSync(reason=f"RAW: T{tv.name} arrived by TMA; the elected thread waited on its token",
                             per=box.issuers)
            if first == k + 1:          # read right away: one elected block issues and waits
                return scope[:k] + (ElectSync(start + wait, warp=warp), sync) + scope[k + 1:]
            return (scope[:k] + (ElectSync(start, warp=warp),) + scope[k + 1:first] + (ElectSync(wait, warp=warp), sync)
                    + scope[first:])

        body = edit_scope(body, tv, a.ids.depth(tv, tv.compute_at_pos), issue)
    for tv in a.ids.tensors:
        if load_kind(tv) is LoadStoreOpType.CpAsync and not a.circular.is_buffered(tv):
            body = replace_at(body, tv, a.ids.depth(tv, tv.compute_at_pos),
                              lambda item: (item, AsyncCommit(AsyncKind.CpAsync), AsyncWait(AsyncKind.CpAsync, 0)))
    return replace(kernel, body=body)
