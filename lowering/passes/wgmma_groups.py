"""wgmma groups: fence, commit and wait around each run of warpgroup MMAs.

Reads: the indexed kernel (``Mma`` nodes) and the ``circular`` analysis (each loop's release lag).
Writes: in every statement list, around each maximal run of statements that issue wgmma (an
``Mma``, or an unrolled loop that holds nothing but such runs): ``WgmmaFence`` before it, and
``AsyncCommit(AsyncKind.Wgmma)`` then ``AsyncWait(AsyncKind.Wgmma, lag)`` after it, where ``lag`` is the release
lag of the circular-buffered loop the run is in (0 outside one); after a loop whose runs leave
groups in flight, ``AsyncWait(AsyncKind.Wgmma, 0)``.
A run waits with lag 0 too when a shared-memory operand it reads is written in the statement list the run is in
(that list and what it nests, the next iterations' included, is where its groups stay in flight: the wait
after the list's loop or branch retires them) and is not a stage of that circular-buffered loop, whose stage ring
and release protocol keep a stage unwritten until its lagging groups are retired. A single-stage tile loaded in
a loop nested in the circular-buffered one (a K loop inside a loop over key blocks, say) is overwritten by the
next iteration's load while a group left in flight would still read it. A write to another buffer that shares
its memory (``smem_reuse``) counts as a write to it.

Each wait is left after the statements that follow the run and touch none of its registers (register arithmetic,
no synchronization): right before the first that does (with no lag: it reads them), or before the first that
synchronizes (with the lag), or at the end of the list. A run of another accumulator is a commit group of its own;
when it touches none of the registers of the runs still waited for (all without a lag) it is issued while they run,
and their waits then allow the groups committed after them (``wait_group n``). A run whose registers another
statement of its list reads or writes keeps no lag. A run under a branch (``if (i >= 1)``, a deferred matmul's,
``defer_matmuls``) is fenced and committed outside it: an empty group when the branch is not taken.
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

from dataclasses import dataclass, field, replace

from fusion_ir import MemoryType

from ..analysis import Analyses
from ..analysis.circular_buffer import CircularLoop
from ..effects import buffers_touched
from ..kernel_ir import (
    Allocate,
    Assign,
    AsyncCommit,
    AsyncKind,
    AsyncWait,
    Buffer,
    Comment,
    ForLoop,
    IfThenElse,
    Kernel,
    Let,
    MatrixDescriptor,
    Mma,
    Node,
    RegisterFragment,
    WarpShuffleXor,
    WgmmaFence,
    children,
    walk,
)


def run(kernel: Kernel, a: Analyses) -> Kernel:
    if not a.mma.tiles:
        return kernel
    rescaled = frozenset(a.buffers.buffers[tv].name for tv in a.mma.in_place)
    memory = _shared_ranges(kernel.body)
    return replace(kernel, body=_grouped(kernel.body, a, Lag(0, memory=memory), rescaled)[0])


@dataclass(frozen=True)
class Lag:
    """The groups a run may leave in flight where it sits: the release lag of the circular-buffered loop
    around it, the buffers of that loop's stages (written only into stages its release protocol freed), and
    each shared buffer's byte ranges where constant (to see writes into memory another buffer shares)."""

    groups: int
    staged: frozenset[str] = frozenset()
    memory: dict[str, set[tuple[int, int]]] = field(default_factory=dict)


def _shared_ranges(body: tuple[Node, ...]) -> dict[str, set[tuple[int, int]]]:
    """Each shared buffer's bytes ``[start, end)`` in dynamic shared memory (one per allocation: the stage clones
    of a loop allocate it again), where offset and size are constant."""
    out: dict[str, set[tuple[int, int]]] = {}
    for x in walk(body):
        if not isinstance(x, Allocate) or x.buffer.memory is not MemoryType.Shared or x.offset is None:
            continue
        start, size = x.offset.const_value(), x.buffer.nbytes.const_value()
        if start is not None and size is not None:
            out.setdefault(x.buffer.name, set()).add((start, start + size))
    return out


def _shared_operands(run: list[Node]) -> frozenset[str]:
    """The shared buffers the wgmmas of ``run`` read (their B operand, and A unless it is in registers)."""
    return frozenset(x.buffer.name for node in run for m in walk((node,)) if isinstance(m, Mma)
                     for x in (m.a, m.b) if isinstance(x, MatrixDescriptor))


def _overlaps(a: str, b: str, memory: dict[str, set[tuple[int, int]]]) -> bool:
    if a == b:
        return True
    return any(s0 < e1 and s1 < e0 for s0, e0 in memory.get(a, ()) for s1, e1 in memory.get(b, ()))


def _overwritten(run: list[Node], body: tuple[Node, ...], lag: Lag) -> bool:
    """A shared operand of ``run`` outside the lagging loop's stages is written somewhere in ``body``."""
    operands = _shared_operands(run) - lag.staged
    if not operands:
        return False
    written = {e.name for x in walk(body) for e in buffers_touched(x)
               if e.is_write and e.buffer is not None and e.buffer.memory is MemoryType.Shared}
    return any(_overlaps(w, name, lag.memory) for w in written for name in operands)


def _issues_only_wgmma(node: Node) -> bool:
    if isinstance(node, Mma):
        return True
    if isinstance(node, IfThenElse):    # a guarded run (a deferred matmul's): committed outside, an empty group if skipped
        return not node.else_body and bool(node.then_body) and all(_issues_only_wgmma(x) for x in node.then_body)
    return isinstance(node, ForLoop) and node.unroll and bool(node.body) and all(_issues_only_wgmma(x)
                                                                                 for x in node.body)


# statements a wait may be left after: register arithmetic, no synchronization, no memory but registers
_REGISTER_ONLY = (Allocate, Assign, Let, Comment, ForLoop, IfThenElse, WarpShuffleXor)


def _run_registers(run: list[Node]) -> frozenset[str]:
    """The registers the wgmmas of ``run`` read or write asynchronously: accumulators and register A operands."""
    return _accumulators(run) | {b.name for b in _register_operands(run)}


def _register_only(node: Node) -> bool:
    """``node`` only computes on registers and synchronizes with nothing."""
    return all(isinstance(x, _REGISTER_ONLY) and all(e.buffer is not None and e.buffer.memory is MemoryType.Local
                                                     for e in buffers_touched(x)) for x in walk((node,)))


def _touches(node: Node, registers: frozenset[str]) -> bool:
    return any(e.name in registers for x in walk((node,)) for e in buffers_touched(x))


def _register_operands(run: list[Node]) -> tuple[Buffer, ...]:
    """The register arrays the wgmmas of ``run`` read as their A operand, in order of first use."""
    found = [x.a.buffer for node in run for x in walk((node,)) if isinstance(x, Mma) and isinstance(x.a, RegisterFragment)]
    return tuple(dict.fromkeys(found))


def _rescaled_here(body: tuple[Node, ...], rescaled: frozenset[str]) -> frozenset[str]:
    """The rescaled sums' registers (accumulated in place) that ordinary statements of ``body`` write."""
    return frozenset(x.buffer.name for x in walk(body) if isinstance(x, Assign) and x.buffer.name in rescaled)


def _accumulates_into(run: list[Node], names: frozenset[str]) -> bool:
    return bool(names) and any(isinstance(x, Mma) and x.acc.name in names for node in run for x in walk((node,)))


def _lag(node: Node, a: Analyses, lag: Lag) -> Lag:
    """The lag inside ``node``: its own when it is a circular-buffered loop."""
    if isinstance(node, ForLoop):
        loop = a.circular.loop_for(node)
        if loop is not None:
            return Lag(loop.release_lag, _stage_buffers(loop, a), lag.memory)
    return lag


def _stage_buffers(loop: CircularLoop, a: Analyses) -> frozenset[str]:
    return frozenset(a.buffers.buffers[tv].name for tv in loop.tensors if tv in a.buffers.buffers)


def _accumulators(nodes: list[Node]) -> frozenset[str]:
    return frozenset(m.acc.name for node in nodes for m in walk((node,)) if isinstance(m, Mma))


def _grouped(body: tuple[Node, ...], a: Analyses, lag: Lag,
             rescaled: frozenset[str] = frozenset()) -> tuple[tuple[Node, ...], bool]:
    """The body with its runs grouped, and whether it leaves wgmma groups in flight. A run's wait is left after the
    statements that follow it and touch none of its registers (``_register_only``, not ``_touches``): it comes
    right before the first statement that does, or at the end of the body. A run of another accumulator is a
    group of its own; one that touches none of the registers of the runs still waited for (all retired at once,
    ``wait_group 0``) is issued while they are in flight, and their waits then leave it in flight
    (``wait_group`` of the groups committed after them): FlashAttention-3's ``q @ k_j^T`` then ``p_{j-1} @ v_{j-1}``,
    the softmax of block j after the first's wait, under the second."""
    out: list[Node] = []
    run: list[Node] = []
    in_flight = False
    rewritten = _rescaled_here(body, rescaled)
    waiting: list[tuple[int, frozenset[str]]] = []    # runs committed, not waited for: (their lag, registers)

    def retire(upto: int, lagging: bool = False) -> None:
        """Wait for ``waiting[0 .. upto]``; the younger runs may stay in flight, and with ``lagging`` (no statement
        of the body reads what they wrote) the last ``lag`` groups of ``upto`` too."""
        younger = len(waiting) - 1 - upto
        out.append(AsyncWait(AsyncKind.Wgmma, (waiting[upto][0] if lagging else 0) + younger))
        del waiting[:upto + 1]

    def place(node: Node | None = None) -> None:
        if waiting:
            needs = [] if node is None else [k for k, (_, regs) in enumerate(waiting) if _touches(node, regs)]
            if needs:
                retire(max(needs))              # it reads or writes their registers: they are finished
            if waiting and (node is None or not _register_only(node)):
                retire(len(waiting) - 1, lagging=True)      # it synchronizes: the groups as the lag counts them
        if node is not None:
            out.append(node)

    def close() -> None:
        nonlocal in_flight
        if run:
            registers = _register_operands(run)
            touched = _run_registers(run)
            # its registers read or written by another statement of the list: retired within it (no lag)
            local = any(_touches(x, touched) for x in body if not _issues_only_wgmma(x))
            keep = lag.groups and not registers and not _accumulates_into(run, rewritten) and not local
            pending = lag.groups if keep and not _overwritten(run, body, lag) else 0
            if waiting and (pending or any(p for p, _ in waiting)):
                retire(len(waiting) - 1, lagging=True)      # a pipeline's lagging groups: counted as they were
            needs = [k for k, (_, regs) in enumerate(waiting) if regs & touched]
            if needs:
                retire(max(needs))
            out.extend([WgmmaFence(registers), *run, AsyncCommit(AsyncKind.Wgmma)])
            waiting.append((pending, touched))
            run.clear()
            in_flight = in_flight or pending > 0

    for node in body:
        if _issues_only_wgmma(node):
            if run and _accumulators(run) != _accumulators([node]):
                close()                 # another accumulator: a group of its own
            run.append(node)
            continue
        close()
        kids = children(node)
        if kids and any(isinstance(x, Mma) for _, sub in kids for x in walk(sub)):
            place()
            inner = _lag(node, a, lag)
            parts = {name: _grouped(sub, a, inner, rescaled) for name, sub in kids}
            out.append(replace(node, **{name: part[0] for name, part in parts.items()}))
            if any(part[1] for part in parts.values()):
                out.append(AsyncWait(AsyncKind.Wgmma, 0))    # what the loop left in flight, before anyone reads it
            continue
        place(node)
    close()
    place()
    return tuple(out), in_flight
