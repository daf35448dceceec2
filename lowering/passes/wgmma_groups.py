"""wgmma groups: fence, commit and wait around each run of warpgroup MMAs.

Reads: the indexed kernel (``Mma`` nodes) and the ``circular`` analysis (each loop's release lag).
Writes: in every statement list, around each maximal run of statements that issue wgmma (an
``Mma``, or an unrolled loop that holds nothing but such runs): ``WgmmaFence`` before it, and
``AsyncCommit(AsyncKind.Wgmma)`` then ``AsyncWait(AsyncKind.Wgmma, lag)`` after it, where ``lag`` is the release
lag of the circular-buffered loop the run is in (0 outside one); after a loop whose runs leave
groups in flight, ``AsyncWait(AsyncKind.Wgmma, 0)``.
A run whose wgmmas read their A operand from registers (``RegisterFragment``) waits with lag 0: the
instruction reads those registers asynchronously too, and the statements after the run (the next
iteration's, which compute the next A) may rewrite them; its fence names those registers
(``WgmmaFence.registers``).
A run whose accumulator is a rescaled sum's registers (``MmaInfo.in_place``) that a statement of the same body
rescales (the run sits right in the loop of the summed axis) waits with lag 0 too: the rescale that starts the
next iteration rewrites them, so the group writing them must be retired before it, and the next run's fence
follows the rescale. A run in a loop nested in it (the K loop) keeps its lag: the wait after that loop retires
what it left in flight before the next rescale.
Guarantees: the fence orders every earlier register access (the accumulator's zero init, the
previous group's results, the writes of a register A operand) before the run, so every wgmma that reads
registers written since the last fence has one before it, as PTX requires; after the wait, every group but
the last ``lag`` is finished, which is what the circular-buffer pass assumed when it released stage
``i - lag``, and no register A operand is read any more; the accumulators are in registers before any
statement after the loops reads them.
"""

from __future__ import annotations

from dataclasses import replace

from ..analysis import Analyses
from ..kernel_ir import (
    Assign,
    AsyncCommit,
    AsyncKind,
    AsyncWait,
    Buffer,
    ForLoop,
    Kernel,
    Mma,
    Node,
    RegisterFragment,
    WgmmaFence,
    children,
    walk,
)


def run(kernel: Kernel, a: Analyses) -> Kernel:
    if not a.mma.tiles:
        return kernel
    rescaled = frozenset(a.buffers.buffers[tv].name for tv in a.mma.in_place)
    return replace(kernel, body=_grouped(kernel.body, a, 0, rescaled)[0])


def _issues_only_wgmma(node: Node) -> bool:
    if isinstance(node, Mma):
        return True
    return isinstance(node, ForLoop) and node.unroll and bool(node.body) and all(_issues_only_wgmma(x)
                                                                                 for x in node.body)


def _register_operands(run: list[Node]) -> tuple[Buffer, ...]:
    """The register arrays the wgmmas of ``run`` read as their A operand, in order of first use."""
    found = [x.a.buffer for node in run for x in walk((node,)) if isinstance(x, Mma) and isinstance(x.a, RegisterFragment)]
    return tuple(dict.fromkeys(found))


def _rescaled_here(body: tuple[Node, ...], rescaled: frozenset[str]) -> frozenset[str]:
    """The rescaled sums' registers (accumulated in place) that ordinary statements of ``body`` write."""
    return frozenset(x.buffer.name for x in walk(body) if isinstance(x, Assign) and x.buffer.name in rescaled)


def _accumulates_into(run: list[Node], names: frozenset[str]) -> bool:
    return bool(names) and any(isinstance(x, Mma) and x.acc.name in names for node in run for x in walk((node,)))


def _lag(node: Node, a: Analyses, lag: int) -> int:
    """The release lag inside ``node``: its own when it is a circular-buffered loop."""
    if isinstance(node, ForLoop):
        loop = a.circular.loop_for(node)
        if loop is not None:
            return loop.release_lag
    return lag


def _grouped(body: tuple[Node, ...], a: Analyses, lag: int,
             rescaled: frozenset[str] = frozenset()) -> tuple[tuple[Node, ...], bool]:
    """The body with its runs grouped, and whether it leaves wgmma groups in flight."""
    out: list[Node] = []
    run: list[Node] = []
    in_flight = False
    rewritten = _rescaled_here(body, rescaled)

    def close() -> None:
        nonlocal in_flight
        if run:
            registers = _register_operands(run)
            pending = 0 if registers or _accumulates_into(run, rewritten) else lag
            out.extend([WgmmaFence(registers), *run, AsyncCommit(AsyncKind.Wgmma),
                        AsyncWait(AsyncKind.Wgmma, pending)])
            run.clear()
            in_flight = in_flight or pending > 0

    for node in body:
        if _issues_only_wgmma(node):
            run.append(node)
            continue
        close()
        kids = children(node)
        if kids and any(isinstance(x, Mma) for _, sub in kids for x in walk(sub)):
            inner = _lag(node, a, lag)
            parts = {name: _grouped(sub, a, inner, rescaled) for name, sub in kids}
            out.append(replace(node, **{name: part[0] for name, part in parts.items()}))
            if any(part[1] for part in parts.values()):
                out.append(AsyncWait(AsyncKind.Wgmma, 0))    # what the loop left in flight, before anyone reads it
            continue
        out.append(node)
    close()
    return tuple(out), in_flight
