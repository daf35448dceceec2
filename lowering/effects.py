"""What a kernel-IR statement reads, writes, allocates and frees: one answer per node class.

As MLIR's ``MemoryEffectOpInterface``: ``effects(node)`` lists the node's own effects (the statements
nested in a loop or branch have theirs), each an ``Effect`` on one resource (a ``Buffer``, or for a
not yet indexed ``TensorOp`` the ``TensorView`` it stands for) through one memory proxy, with the role
the resource plays (data, mbarrier, token, reduction workspace) and what makes the effect complete
(at once, an mbarrier phase, or an async group ``AsyncWait`` of that kind waits for). Analyses
(shared-memory live ranges, ``viz --show smem``, codegen's unused-allocation notes) and the verifier
ask this instead of switching on node kinds; a node class without an answer is an error, never an
empty default.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from fusion_ir.scalar import Val

from .kir_nodes import (
    Allocate,
    Assign,
    AsyncCommit,
    AsyncWait,
    BinaryValue,
    BlockReduce,
    BlockSync,
    Buffer,
    CastValue,
    ClusterSync,
    Comment,
    CompareValue,
    Const,
    Continue,
    CpAsync,
    Discard,
    ElectSync,
    FenceAsyncProxy,
    ForLoop,
    GridFence,
    IfThenElse,
    LdMatrix,
    Let,
    Load,
    MBarrierArrive,
    MBarrierArriveExpectTx,
    MBarrierInit,
    MBarrierInval,
    MBarrierRemoteArrive,
    MBarrierWait,
    MBarrierWaitParity,
    Mma,
    NamedBarrier,
    RegisterFragment,
    Return,
    ScalarParam,
    ScalarValue,
    SelectValue,
    SemaphoreArrive,
    SetMaxNReg,
    StMatrix,
    TensorOp,
    TmaLoad,
    TmaStore,
    UnaryValue,
    Value,
    WarpShuffleXor,
    WgmmaFence,
)


class EffectKind(enum.Enum):
    Read = "read"
    Write = "write"
    Allocate = "allocate"
    Free = "free"


class Proxy(enum.Enum):
    """The memory proxy an access goes through; crossing from one to another needs a proxy fence."""

    Generic = "generic"
    AsyncTma = "async"      # cp.async.bulk.tensor (TMA loads and stores) and its mbarrier completion
    Wgmma = "wgmma"         # wgmma.mma_async operand reads and accumulator updates


class Role(enum.Enum):
    """What the resource holds for this access."""

    Data = "data"
    MBarrier = "mbarrier"
    Token = "token"            # mbarrier state tokens
    Workspace = "workspace"    # a block reduction's scratch
    Semaphore = "semaphore"    # a grid reduction's arrival counters (global int32, atomics)


class Completion(enum.Enum):
    """What makes the effect done (its result visible, its source free to overwrite)."""

    Sync = "sync"              # when the statement returns
    MBarrier = "mbarrier"      # the mbarrier phase it completes on flips
    CpAsyncGroup = "cp.async"  # an AsyncWait("cp.async") covering its commit group
    BulkGroup = "bulk"         # an AsyncWait("bulk") covering its commit group
    WgmmaGroup = "wgmma"       # an AsyncWait("wgmma") covering its commit group


@dataclass(frozen=True)
class Effect:
    """One effect of a statement: ``kind`` on ``resource`` (at element ``index`` when known)."""

    kind: EffectKind
    resource: Buffer | Any          # a Buffer; the TensorView itself for a TensorOp
    proxy: Proxy = Proxy.Generic
    role: Role = Role.Data
    index: Val | None = None
    completes: Completion = Completion.Sync

    @property
    def buffer(self) -> Buffer | None:
        return self.resource if isinstance(self.resource, Buffer) else None

    @property
    def name(self) -> str:
        """The buffer's name (``T<n>`` for a TensorView: the name its buffer is given)."""
        if isinstance(self.resource, Buffer):
            return self.resource.name
        return f"T{self.resource.name}"

    @property
    def is_read(self) -> bool:
        return self.kind is EffectKind.Read

    @property
    def is_write(self) -> bool:
        return self.kind is EffectKind.Write


def _read(buf: Any, index: Val | None = None, **kw: Any) -> Effect:
    return Effect(EffectKind.Read, buf, index=index, **kw)


def _write(buf: Any, index: Val | None = None, **kw: Any) -> Effect:
    return Effect(EffectKind.Write, buf, index=index, **kw)


def value_reads(value: Value) -> tuple[Effect, ...]:
    """The loads of a value expression, left to right."""
    if isinstance(value, Load):
        return (_read(value.buffer, value.index),)
    if isinstance(value, (Const, ScalarValue, ScalarParam)):
        return ()
    if isinstance(value, (UnaryValue, CastValue)):
        return value_reads(value.x)
    if isinstance(value, (BinaryValue, CompareValue)):
        return value_reads(value.a) + value_reads(value.b)
    if isinstance(value, SelectValue):
        return value_reads(value.cond) + value_reads(value.a) + value_reads(value.b)
    raise TypeError(f"effects: {type(value).__name__} is not a kernel-IR value")


def _none(node: Any) -> tuple[Effect, ...]:
    return ()


def _assign(n: Assign) -> tuple[Effect, ...]:
    own = (_read(n.buffer, n.index),) if n.reduce_op is not None else ()
    return value_reads(n.value) + own + (_write(n.buffer, n.index),)


def _block_reduce(n: BlockReduce) -> tuple[Effect, ...]:
    ws = n.workspace
    return value_reads(n.value) + (_write(ws, role=Role.Workspace), _read(ws, role=Role.Workspace),
                                   _write(n.buffer, n.index))


def _warp_shuffle(n: WarpShuffleXor) -> tuple[Effect, ...]:
    return (_read(n.buffer, n.index), _write(n.buffer, n.index))


def _mbar(buf: Buffer, index: Val, *kinds: EffectKind) -> tuple[Effect, ...]:
    return tuple(Effect(kind, buf, role=Role.MBarrier, index=index) for kind in kinds)


def _arrive_expect_tx(n: MBarrierArriveExpectTx) -> tuple[Effect, ...]:
    out = _mbar(n.mbar, n.index, EffectKind.Read, EffectKind.Write)
    if n.token is not None:
        out += (_write(n.token, n.token_index, role=Role.Token),)
    return out


def _wait(n: MBarrierWait) -> tuple[Effect, ...]:
    return _mbar(n.mbar, n.index, EffectKind.Read) + (_read(n.token, n.token_index, role=Role.Token),)


def _tma_load(n: TmaLoad) -> tuple[Effect, ...]:
    tma = {"proxy": Proxy.AsyncTma, "completes": Completion.MBarrier}
    return (_read(n.tensor_map.tensor, **tma), _write(n.dst, n.dst_index, **tma),
            _write(n.mbar, n.mbar_index, proxy=Proxy.AsyncTma, role=Role.MBarrier))


def _tma_store(n: TmaStore) -> tuple[Effect, ...]:
    tma = {"proxy": Proxy.AsyncTma, "completes": Completion.BulkGroup}
    return (_read(n.src, n.src_index, **tma), _write(n.tensor_map.tensor, **tma))


def _cp_async(n: CpAsync) -> tuple[Effect, ...]:
    group = {"completes": Completion.CpAsyncGroup}
    return (_read(n.src, n.src_index, **group), _write(n.dst, n.dst_index, **group))


def _mma(n: Mma) -> tuple[Effect, ...]:
    wg = {"proxy": Proxy.Wgmma, "completes": Completion.WgmmaGroup}
    a_index = n.a.index if isinstance(n.a, RegisterFragment) else n.a.offset
    return (_read(n.a.buffer, a_index, **wg), _read(n.b.buffer, n.b.offset, **wg),
            _read(n.acc, n.acc_index, **wg), _write(n.acc, n.acc_index, **wg))


def _tensor_op(n: TensorOp) -> tuple[Effect, ...]:
    """A not yet indexed fusion expression: it reads its inputs and writes its tensor."""
    inputs = n.expr.tensor_inputs() if n.expr is not None else ()
    return tuple(_read(tv) for tv in inputs) + (_write(n.tv),)


EFFECTS: dict[type, Callable[[Any], tuple[Effect, ...]]] = {
    Allocate: lambda n: (Effect(EffectKind.Allocate, n.buffer),),
    Assign: _assign,
    BlockReduce: _block_reduce,
    WarpShuffleXor: _warp_shuffle,
    ForLoop: _none,            # its bounds are index arithmetic; its body has its own effects
    IfThenElse: _none,
    ElectSync: _none,
    BlockSync: _none,
    NamedBarrier: _none,
    Comment: _none,
    Let: _none,
    MBarrierInit: lambda n: _mbar(n.mbar, n.index, EffectKind.Write),
    MBarrierInval: lambda n: _mbar(n.mbar, n.index, EffectKind.Write),
    MBarrierArrive: lambda n: _mbar(n.mbar, n.index, EffectKind.Read, EffectKind.Write),
    MBarrierArriveExpectTx: _arrive_expect_tx,
    # the peer block's barrier at the same offset: the same buffer of another block's shared memory
    MBarrierRemoteArrive: lambda n: _mbar(n.mbar, n.index, EffectKind.Read, EffectKind.Write),
    ClusterSync: _none,
    MBarrierWait: _wait,
    MBarrierWaitParity: lambda n: _mbar(n.mbar, n.index, EffectKind.Read),
    TmaLoad: _tma_load,
    TmaStore: _tma_store,
    CpAsync: _cp_async,
    AsyncCommit: _none,        # groups are per thread state, not memory
    AsyncWait: _none,
    FenceAsyncProxy: _none,
    SetMaxNReg: _none,
    Return: _none,
    Continue: _none,
    WgmmaFence: lambda n: tuple(_read(b) for b in n.registers),   # the back end packs register A operands here
    Mma: _mma,
    StMatrix: lambda n: (_read(n.src, n.src_index), _write(n.dst, n.dst_index)),
    LdMatrix: lambda n: (_read(n.src, n.src_index), _write(n.dst, n.dst_index)),
    TensorOp: _tensor_op,
    GridFence: _none,          # orders this thread's own accesses; touches no memory
    Discard: lambda n: (_write(n.buffer),),     # every register given an undefined value
    SemaphoreArrive: lambda n: (_read(n.semaphore, n.index, role=Role.Semaphore),
                                _write(n.semaphore, n.index, role=Role.Semaphore)),
}


def effects(node: Any) -> tuple[Effect, ...]:
    """The node's own effects (not those of statements nested in it), in the order it performs them."""
    fn = EFFECTS.get(type(node))
    if fn is None:
        raise TypeError(f"effects: kernel IR node {type(node).__name__} declares no effects; add it to "
                        f"lowering.effects.EFFECTS")
    return fn(node)


def buffers_touched(node: Any) -> Iterator[Effect]:
    """The node's read and write effects (not Allocate or Free)."""
    return (e for e in effects(node) if e.kind in (EffectKind.Read, EffectKind.Write))


def touched_names(nodes: Iterable[Any]) -> set[str]:
    """Names of the resources the nodes read or write."""
    return {e.name for node in nodes for e in buffers_touched(node)}
