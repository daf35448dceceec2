"""Kernel IR nodes: buffers, values and statements as immutable dataclasses, their traversal
(``walk``, ``rewrite``, ``map_vals``) and the ``NodeVisitor`` the codegen and printer back ends derive from.

``lowering.kernel_ir`` re-exports all of it beside the ``Kernel`` that holds a body of these nodes;
the kernel-IR printer reads only this module, so ``str(kernel)`` needs no cycle.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Union, get_args

from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType, ParallelType, SmemSwizzle


class Stage(enum.Enum):
    """Where a loop sits in a circular-buffered pipeline."""

    PrePrologue = "pre-prologue"
    Prologue = "prologue"
    Main = "main"
    Epilogue = "epilogue"
    PostEpilogue = "post-epilogue"
    AsyncWarp = "AsyncWarp"
    ComputeWarp = "ComputeWarp"


class AsyncKind(enum.Enum):
    """The asynchronous operations an ``AsyncCommit`` closes a group of and an ``AsyncWait`` waits for;
    the value is how the kernel-IR printer names them."""

    CpAsync = "cp.async"    # cp.async copies (cp.async.commit_group / wait_group)
    Bulk = "bulk"           # TMA stores (cp.async.bulk.commit_group / wait_group[.read])
    Wgmma = "wgmma"         # warp-group MMAs (wgmma.commit_group / wait_group)


class CopyKind(enum.Enum):
    """An asynchronous copy in flight, by the statement that issued it (``TmaLoad``, ``TmaStore``,
    ``CpAsync``): what a back end that runs the copies (the simulator) tracks until they land."""

    TmaLoad = "tma"
    TmaStore = "tma_store"
    CpAsync = "cp.async"


class TensorOpKind(enum.Enum):
    """Which step of its tensor's computation a not yet indexed ``TensorOp`` is; the value is how the
    kernel-IR printer tags it."""

    Compute = "compute"          # the fusion expression itself
    Init = "init"                # a reduction's initial value
    BlockReduce = "block_reduce"  # the cross-thread step of a reduction
    Finalize = "finalize"        # a 16-bit serial reduction's result written from its float accumulator
    GridReduce = "grid_reduce"   # the cross-block step of a reduction over a block index (BIDz)
    StreamKFixup = "stream_k_fixup"   # a stream-K tile's partials summed across blocks (``lowering/stream_k.py``)


# ---------------------------------------------------------------- buffers
@dataclass(frozen=True)
class Buffer:
    """A named storage object: a kernel parameter (Global) or an allocation.

    ``size`` counts elements. Global parameters carry their logical ``shape`` and the
    element-stride symbols used in index expressions. ``swizzle`` is the layout TMA writes a
    shared buffer in (``lowering.layout.swizzle_index`` maps a row-major index to its place).
    """

    name: str
    dtype: DataType
    memory: MemoryType
    size: Val
    shape: tuple[Val, ...] = ()
    strides: tuple[Val, ...] = ()
    align: int = 16
    is_param: bool = False
    swizzle: SmemSwizzle = SmemSwizzle.NONE

    @property
    def nbytes(self) -> Val:
        return self.size * self.dtype.size

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class TensorMapParam:
    """A TMA descriptor passed as a ``__grid_constant__`` kernel parameter."""

    name: str            # e.g. "tmap_T0"
    tensor: Buffer       # the global tensor it describes
    box: tuple[int, ...]  # box extents, innermost first as TMA expects
    element_strides: tuple[int, ...] = ()
    swizzle: SmemSwizzle = SmemSwizzle.NONE


# ---------------------------------------------------------------- values
@dataclass(frozen=True)
class Load:
    buffer: Buffer
    index: Val

    @property
    def dtype(self) -> DataType:
        return self.buffer.dtype


@dataclass(frozen=True)
class Const:
    value: float | int
    dtype: DataType


@dataclass(frozen=True)
class ScalarValue:
    """An index-typed scalar known in the kernel: an extent (``i1``, bound from the arguments) or an
    expression of loop indices (``iota``), as a value of ``dtype``."""

    value: Val
    dtype: DataType = DataType.Int64


@dataclass(frozen=True)
class ScalarParam:
    """A scalar kernel parameter passed by value (a fusion's ``ScalarInput``): ``name`` is the parameter
    (``S3``), ``dtype`` the scalar's type; Half and BFloat16 travel as ``float`` (``param_dtype``)."""

    name: str
    dtype: DataType

    @property
    def param_dtype(self) -> DataType:
        return DataType.Float if self.dtype in (DataType.Half, DataType.BFloat16) else self.dtype


@dataclass(frozen=True)
class UnaryValue:
    op: str  # neg exp exp_approx abs relu sqrt sin cos log rsqrt tanh tanh_approx sigmoid erf silu log1p expm1 logical_not
    x: Value
    dtype: DataType


@dataclass(frozen=True)
class BinaryValue:
    op: str  # add sub mul div maximum minimum pow logical_and logical_or
    a: Value
    b: Value
    dtype: DataType


@dataclass(frozen=True)
class CompareValue:
    """``a op b`` (lt le gt ge eq ne) with both operands converted to ``operand_dtype``: a Bool."""

    op: str
    a: Value
    b: Value
    operand_dtype: DataType

    @property
    def dtype(self) -> DataType:
        return DataType.Bool


@dataclass(frozen=True)
class SelectValue:
    """``cond ? a : b`` with ``cond`` read as a Bool and ``a``, ``b`` converted to ``dtype``."""

    cond: Value
    a: Value
    b: Value
    dtype: DataType


@dataclass(frozen=True)
class CastValue:
    x: Value
    dtype: DataType


Value = Union[Load, Const, ScalarValue, ScalarParam, UnaryValue, BinaryValue, CompareValue, SelectValue, CastValue]  # noqa: UP007 (get_args reads it)


# ---------------------------------------------------------------- statements
@dataclass(frozen=True)
class Allocate:
    """Declare a Local or Shared buffer; ``offset`` is its byte offset in dynamic shared memory."""

    buffer: Buffer
    offset: Val | None = None


@dataclass(frozen=True)
class Assign:
    """``buffer[index] = value``; with ``reduce_op`` it is ``buffer[index] = op(buffer[index], value)``.

    ``vector > 1`` copies that many consecutive elements (value a ``Load``, or a ``CastValue`` of
    one to the buffer's type: a converting copy); codegen emits one vector store.

    ``valid`` (a misaligned vector: ``ParallelType.MisalignedVectorize``) holds one condition per element: the
    source, a global tensor, is aligned to one element only, so codegen reads the aligned words that cover the
    vector's valid elements and shifts them into place; element ``e`` is copied where ``valid[e]`` holds and
    written 0 where it does not. None: an aligned vector, copied whole.
    """

    buffer: Buffer
    index: Val
    value: Value
    reduce_op: str | None = None
    vector: int = 1
    valid: tuple[Val, ...] | None = None


@dataclass(frozen=True)
class BlockReduce:
    """All-reduce ``value`` across the threads that differ only in ``dims``; every such thread
    then writes the result to ``buffer[index]``. ``workspace`` is the shared scratch buffer."""

    buffer: Buffer
    index: Val
    value: Value
    op: str
    dims: tuple[ParallelType, ...]
    init: float
    workspace: Buffer
    # Inside a warp-split branch its internal barriers are ``bar.sync id, threads`` over the
    # branch's threads (set by the branch_barriers pass); None: ``__syncthreads``.
    barrier: NamedBarrier | None = None


@dataclass(frozen=True)
class WarpShuffleXor:
    """One butterfly step of a reduction across the lanes of a warp:
    ``buffer[index] = op(buffer[index], buffer[index] of lane ^ lane_mask)`` (``shfl.sync.bfly`` with a full
    mask). Every lane of the warp runs it; after the steps of masks ``1, 2, .., g / 2`` every lane of each
    aligned group of ``g`` lanes holds the group's result (a lane-group reduction: ``merge_lanes``)."""

    buffer: Buffer
    index: Val
    op: str
    lane_mask: int


@dataclass(frozen=True)
class ForLoop:
    """``for (index = start; index < stop; index += step) body``.

    ``group`` is the number of the loop group (``lowering.analysis.id_model.LoopGroup``) the loop-nest
    pass made the loop from; passes that clone or rename the loop keep it (``dataclasses.replace``), so
    analyses find their loops by it, never by the index's name. None for a loop a pass adds.
    """

    index: Val            # a symbol
    start: Val
    stop: Val
    body: tuple[Node, ...]
    label: str = ""       # the IterDomain it iterates, e.g. "iS3{ceilDiv(i1, 256)}"
    unroll: bool | int = False   # True: full unroll; int: #pragma unroll N
    vectorize: bool = False
    misaligned: bool = False     # a vectorized loop whose source is aligned to one element only
    stage: Stage | None = None
    step: Val = Val.const(1)  # noqa: RUF009 (Val is immutable); a persistent loop steps by gridDim.x
    group: int | None = None


@dataclass(frozen=True)
class IfThenElse:
    """``if (cond) then_body else else_body``.

    ``branch_threads`` is set when ``cond`` splits the block by whole warps (warp specialization):
    the number of threads that take the then and the else branch. A barrier inside such a branch
    is a ``NamedBarrier`` over that branch's threads, never a block-wide ``BlockSync``.
    """

    cond: Val
    then_body: tuple[Node, ...]
    else_body: tuple[Node, ...] = ()
    branch_threads: tuple[Val, Val] | None = None


@dataclass(frozen=True)
class ElectSync:
    """Run ``body`` in one thread of warp ``warp`` of the block: its lane 0 (the lane ``elect.sync`` picks from the
    whole warp, which ``verify`` requires to arrive).

    ``warp`` is the linear warp index in the block (linear thread index // 32): warp 0 for a
    block-wide elected thread, the first warp of the producer branch in a warp-specialized kernel.
    Only threads of that warp take part; the others skip the body.
    """

    body: tuple[Node, ...]
    warp: Val = Val.const(0)  # noqa: RUF009 (Val is immutable)


@dataclass(frozen=True)
class BlockSync:
    """``__syncthreads()``; ``reason`` says which hazard it guards (RAW, WAR, init).

    ``per``: thread dimensions along which the threads do not depend on each other (the buffer it
    guards has a part for each index there, read by the threads with that index): the whole block
    synchronizing is correct, and inside a warp-split branch a barrier among the threads with this
    thread's indices on ``per`` is enough (``branch_barriers``)."""

    reason: str = ""
    per: tuple = ()       # of ParallelType


@dataclass(frozen=True)
class NamedBarrier:
    """``bar.sync id, threads``: the ``threads`` threads (a multiple of 32) that reach barrier ``id``
    (1..15; 0 is ``__syncthreads``) wait for each other. Used inside a branch that only some warps
    take, where a block-wide ``__syncthreads`` would deadlock.

    ``id`` may be an expression over the thread index, the same within each warp, so that warp groups
    running the same code each synchronize on their own barrier: ``1 + threadIdx.y`` with
    ``threads`` = 128 in a block of (128, 2, 1) threads. An int is taken as a constant; the field
    always holds a ``Val``.

    ``wait`` False: ``bar.arrive id, threads``: the warp's threads count toward the barrier and go on
    without waiting for it (the threads that wait are others: warp groups passing a turn on).
    """

    id: Val | int
    threads: Val
    reason: str = ""
    wait: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.id, Val):
            object.__setattr__(self, "id", Val.const(self.id))


@dataclass(frozen=True)
class Let:
    """A named index computed once where it stands: ``const <index type> name = value;``.

    Later statements of the same scope (and the scopes nested in them) read it as the symbol
    ``name``. The ``hoist_indices`` pass puts one before a loop for an index expression that does
    not change inside the loop, so its divisions run once per entry instead of every iteration.
    """

    name: str
    value: Val


@dataclass(frozen=True)
class Comment:
    text: str


@dataclass(frozen=True)
class MBarrierInit:
    mbar: Buffer
    index: Val
    count: Val


@dataclass(frozen=True)
class MBarrierInval:
    mbar: Buffer
    index: Val


@dataclass(frozen=True)
class MBarrierArrive:
    mbar: Buffer
    index: Val


@dataclass(frozen=True)
class MBarrierRemoteArrive:
    """Arrive on ``mbar[index]`` of block ``cta`` (its rank in the cluster) instead of this block's:
    ``mapa.shared::cluster`` then ``mbarrier.arrive.shared::cluster`` (release at CTA scope: a cluster-scope
    release costs every arriving warp a memory barrier). The arrive orders this thread's earlier reads of
    shared memory, already complete (wgmma waited for), before the peer's writes that it allows (a consumer
    releasing a stage that the peer's multicast refills)."""

    mbar: Buffer
    index: Val
    cta: Val


@dataclass(frozen=True)
class ClusterSync:
    """``barrier.cluster.arrive.release`` + ``barrier.cluster.wait.acquire``: every thread of every block of
    the cluster (that has not exited) waits for all of them; it also synchronizes the block, as
    ``__syncthreads`` does. ``fence_init``: ``fence.mbarrier_init.release.cluster`` first, so the block's
    mbarrier inits are visible to the peers' multicasts and remote arrives that follow."""

    reason: str = ""
    fence_init: bool = False


@dataclass(frozen=True)
class MBarrierArriveExpectTx:
    """Arrive and add ``tx_bytes`` to the expected transaction count; the returned state token
    is stored in ``token[token_index]`` when ``token`` is given (the token form)."""

    mbar: Buffer
    index: Val
    tx_bytes: Val
    token: Buffer | None = None
    token_index: Val | None = None


@dataclass(frozen=True)
class MBarrierWait:
    """Wait until the phase recorded in ``token[token_index]`` has completed."""

    mbar: Buffer
    index: Val
    token: Buffer
    token_index: Val


@dataclass(frozen=True)
class MBarrierWaitParity:
    """Wait until the barrier's phase with parity ``parity`` has completed."""

    mbar: Buffer
    index: Val
    parity: Val


@dataclass(frozen=True)
class TmaLoad:
    """``cp.async.bulk.tensor`` global -> shared of one box, completing on ``mbar[mbar_index]``.

    ``coords`` are element coordinates of the box origin, outermost axis first (codegen
    reverses them for the instruction). Elements outside the tensor are filled with zero.
    """

    dst: Buffer
    dst_index: Val
    tensor_map: TensorMapParam
    coords: tuple[Val, ...]
    mbar: Buffer
    mbar_index: Val
    # ``.multicast::cluster``: the blocks of the cluster (bit r: rank r) whose shared memory receives the box,
    # each at ``dst_index`` of its own ``dst``, completing on its own ``mbar[mbar_index]`` (a Val where the mask
    # depends on the block's rank: a 2-D cluster); None: this block's
    multicast: int | Val | None = None

    @property
    def box_bytes(self) -> int:
        n = 1
        for b in self.tensor_map.box:
            n *= b
        return n * self.dst.dtype.size


@dataclass(frozen=True)
class TmaStore:
    src: Buffer
    src_index: Val
    tensor_map: TensorMapParam
    coords: tuple[Val, ...]


@dataclass(frozen=True)
class CpAsync:
    """``cp.async`` of ``vector`` elements global -> shared (zero-filled when ``pred`` is false)."""

    dst: Buffer
    dst_index: Val
    src: Buffer
    src_index: Val
    vector: int = 1
    pred: Val | None = None


@dataclass(frozen=True)
class AsyncCommit:
    """Close the open group of async operations of ``kind``: ``AsyncKind.CpAsync``, ``AsyncKind.Bulk`` (TMA
    stores) or ``AsyncKind.Wgmma`` (``wgmma.commit_group``)."""

    kind: AsyncKind


@dataclass(frozen=True)
class AsyncWait:
    """Wait until at most ``pending`` committed groups of ``kind`` are still in flight
    (``wgmma.wait_group pending`` for ``AsyncKind.Wgmma``). For ``AsyncKind.Bulk`` (TMA stores), ``read``: until the groups have
    read their shared-memory sources (``cp.async.bulk.wait_group.read``), else until they have completed
    (``cp.async.bulk.wait_group``, the writes done too)."""

    kind: AsyncKind
    pending: int = 0
    read: bool = True


@dataclass(frozen=True)
class FenceAsyncProxy:
    pass


@dataclass(frozen=True)
class GridFence:
    """``__threadfence()`` (``fence.acq_rel.gpu``): this thread's earlier global writes are ordered
    before its later ones at GPU scope, so a block that acquires what a later atomic released sees them."""

    reason: str = ""


@dataclass(frozen=True)
class SemaphoreArrive:
    """A grid reduction's arrival, a collective of the whole block: thread 0 of the block adds 1 to
    ``semaphore[index]`` (a global int32, ``atom.add.acq_rel.gpu``); then a block barrier
    (``__syncthreads_or``) hands every thread of the block ``name``: 1 when that add found
    ``arrivals - 1`` (this block arrived last: every other block's released partials are visible to
    it), else 0. Later statements of the scope read ``name`` as a symbol, as after a ``Let``."""

    semaphore: Buffer
    index: Val
    arrivals: Val
    name: str
    # when true (uniform over the block), the block does not arrive and is the last at once, with no atomic and no
    # barrier: a stream-K tile that one block finishes alone (``lowering/stream_k.py``); None: always arrive
    skip: Val | None = None
    # inside a warp-split branch: its barrier is ``bar.red.or`` on this named barrier over the branch's threads (set by
    # the branch_barriers pass; thread 0 of the block is in the branch); None: ``__syncthreads_or``
    barrier: NamedBarrier | None = None


@dataclass(frozen=True)
class SetMaxNReg:
    count: int
    increase: bool


@dataclass(frozen=True)
class Return:
    pass


@dataclass(frozen=True)
class Continue:
    pass


@dataclass(frozen=True)
class MatrixDescriptor:
    """A wgmma operand in shared memory: the fields of its 64-bit matrix descriptor, as data.

    The operand starts at element ``offset`` of ``buffer`` (its row-major position, before the
    swizzle). ``mn_major`` is the transpose bit: False when K is the contiguous dimension
    (K-major), True when M (for A) or N (for B) is. ``leading_bytes`` and ``stride_bytes`` are the
    descriptor's leading and stride byte offsets; ``lowering.layout.wgmma_operand_offset`` says
    where element (mn, k) of the operand lives for each combination, and ``swizzle`` is the
    buffer's swizzle (the descriptor's mode: B128 = 1, B64 = 2, B32 = 3, NONE = 0).
    """

    buffer: Buffer
    offset: Val
    leading_bytes: int
    stride_bytes: int
    swizzle: SmemSwizzle
    mn_major: bool


@dataclass(frozen=True)
class RegisterFragment:
    """A wgmma A operand in registers (the register-sourced form): elements ``buffer[index + r]``, ``r`` in
    ``[0, 8)``, of each issuing thread's Local 16-bit ``buffer``, packed in pairs ``(2 q, 2 q + 1)`` into the
    instruction's four 32-bit registers ``a0 .. a3``. Lane ``l`` of warp ``w`` holds rows ``16 w + l / 4``
    (``a0``, ``a2``) and ``16 w + l / 4 + 8`` (``a1``, ``a3``) of the 64 x 16 A tile, columns ``2 (l % 4)``,
    ``+ 1`` (``a0``, ``a1``) and ``+ 8`` (``a2``, ``a3``): the order of an accumulator fragment's registers
    (``lowering.layout.wgmma_accumulator``), so a 16-column block of an accumulator converted to 16 bits is one
    k-step's A. The instruction reads the registers asynchronously, until the ``AsyncWait`` that retires it."""

    buffer: Buffer
    index: Val


@dataclass(frozen=True)
class StMatrix:
    """``stmatrix.sync.aligned.m8n8.x{count}.shared.b16``, executed by a whole warp: ``count`` 8 x 8
    matrices of 16-bit elements from registers to shared memory.

    Lane ``l`` gives the address of row ``l % 8`` of matrix ``l / 8`` (lanes ``>= 8 count`` give
    none): element ``dst_index`` of ``dst``, its position with the swizzle applied, the start of a
    16-byte row of 8 elements. Register ``k`` (0 <= k < count) of lane ``l`` holds row ``l / 4``,
    columns ``2 (l % 4)`` and ``2 (l % 4) + 1`` of matrix ``k``: the elements ``src[src_index + 2 k]``
    and ``src[src_index + 2 k + 1]`` of the lane's Local buffer ``src``. This is the wgmma accumulator
    fragment's order, so an epilogue stores its 16-bit results without moving them between threads.

    ``trans`` (``.trans``): each matrix is stored transposed, lane ``l``'s address taking column ``l % 8`` of
    matrix ``l / 8`` (its 8 rows' elements of that column, consecutive in shared memory): register ``k`` of lane
    ``l`` then holds rows ``2 (l % 4)`` and ``2 (l % 4) + 1`` of column ``l / 4`` as stored. An accumulator whose
    rows run along the output's columns (a matmul computed as ``C^T = B^T A^T``) is staged in the output's own
    layout so.
    """

    dst: Buffer
    dst_index: Val
    src: Buffer
    src_index: Val
    count: int   # 1, 2 or 4
    trans: bool = False


@dataclass(frozen=True)
class LdMatrix:
    """``ldmatrix.sync.aligned.m8n8.x{count}.shared.b16``, executed by a whole warp: ``count`` 8 x 8 matrices of
    16-bit elements from shared memory to registers, ``StMatrix``'s mirror.

    Lane ``l`` gives the address of row ``l % 8`` of matrix ``l / 8`` (lanes ``>= 8 count`` give none): element
    ``src_index`` of ``src``, its position with the swizzle applied, the start of a 16-byte row of 8 elements.
    Register ``k`` (0 <= k < count) of lane ``l`` receives row ``l / 4``, columns ``2 (l % 4)`` and
    ``2 (l % 4) + 1`` of matrix ``k``: the elements ``dst[dst_index + 2 k]`` and ``dst[dst_index + 2 k + 1]`` of
    the lane's Local buffer ``dst``. This is the wgmma accumulator fragment's order, so an epilogue reads a 16-bit
    tile of shared memory (C, a residual) element for element beside the accumulators it is added to.
    """

    dst: Buffer
    dst_index: Val
    src: Buffer
    src_index: Val
    count: int   # 1, 2 or 4


@dataclass(frozen=True)
class WgmmaFence:
    """``wgmma.fence``: order the warp group's register accesses before the next wgmma.

    ``registers``: the Local arrays the wgmmas after it read as their A operand (``RegisterFragment``), written
    before it. The back end forms the instructions' 32-bit A registers from them before the fence, so no register
    a wgmma reads is written between the fence and the wgmma."""

    registers: tuple[Buffer, ...] = ()


@dataclass(frozen=True)
class Mma:
    """One ``wgmma.mma_async.sync.aligned.m64nNk16.f32.<dtype>.<dtype>`` of a warp group:
    ``D[64, N] += A[64, 16] @ B[16, N]``, B in shared memory, A in shared memory or in the threads' registers
    (``RegisterFragment``).

    Each of the warp group's 128 threads holds ``N / 2`` accumulators, registers
    ``acc[acc_index + r]`` for ``r`` in ``[0, N / 2)``, laid out as
    ``lowering.layout.wgmma_accumulator`` says. The result is asynchronous: it is in the
    registers only after an ``AsyncWait(AsyncKind.Wgmma, ...)`` covers the commit group it belongs to.
    """

    acc: Buffer
    acc_index: Val
    a: MatrixDescriptor | RegisterFragment
    b: MatrixDescriptor
    shape: tuple[int, int, int]   # (64, N, 16)
    dtype: DataType               # operand type: BFloat16 or Half
    accumulate: Val | None = None


@dataclass(frozen=True)
class Discard:
    """``buffer``'s values are dead from here: each register is written before it is read again (an accumulator whose
    first k step writes it instead of adding to it, ``passes.mma_init``). No instruction: codegen tells the compiler
    (``wgmma::discard``), so the old values are not kept alive up to those writes; the simulator poisons them, so a
    read before the write shows."""

    buffer: Buffer


Node = Union[Allocate, Assign, BlockReduce, WarpShuffleXor, ForLoop, IfThenElse, ElectSync, BlockSync, NamedBarrier, Comment, Let,  # noqa: UP007
             MBarrierInit, MBarrierInval, MBarrierArrive, MBarrierRemoteArrive, ClusterSync, MBarrierArriveExpectTx,
             MBarrierWait,
             MBarrierWaitParity, TmaLoad, TmaStore, CpAsync, AsyncCommit, AsyncWait, FenceAsyncProxy,
             SetMaxNReg, Return, Continue, WgmmaFence, Mma, StMatrix, LdMatrix, GridFence,
             SemaphoreArrive, Discard]


# ---------------------------------------------------------------- traversal
_BODY_FIELDS: dict[type, tuple[str, ...]] = {}


def body_fields(cls: type) -> tuple[str, ...]:
    """Names of the fields of a node class that hold statement lists (typed ``tuple[Node, ...]``)."""
    names = _BODY_FIELDS.get(cls)
    if names is None:
        from dataclasses import fields, is_dataclass

        names = tuple(f.name for f in fields(cls) if "Node" in str(f.type)) if is_dataclass(cls) else ()
        _BODY_FIELDS[cls] = names
    return names


def children(node: Node) -> list[tuple[str, tuple[Node, ...]]]:
    """The statement lists nested in a node, by field name."""
    return [(name, getattr(node, name)) for name in body_fields(type(node))]


def walk(body: tuple[Node, ...]) -> Iterator[Node]:
    """Every node in program order, parents before children."""
    for node in body:
        yield node
        for _, sub in children(node):
            yield from walk(sub)


def map_bodies(node: Node, fn: Callable[[tuple[Node, ...]], tuple[Node, ...]]) -> Node:
    """``node`` with each of its nested bodies replaced by ``fn(body)`` (top-down rewriters); a leaf unchanged."""
    kids = children(node)
    if not kids:
        return node
    from dataclasses import replace

    return replace(node, **{name: fn(sub) for name, sub in kids})


def rewrite(body: tuple[Node, ...], fn: Callable[[Node], Node | tuple[Node, ...] | None]) -> tuple[Node, ...]:
    """Rebuild a body bottom-up: ``fn`` returns a replacement node, a tuple to splice, or None to keep."""
    out: list[Node] = []
    for node in body:
        kids = children(node)
        if kids:
            from dataclasses import replace

            node = replace(node, **{name: rewrite(sub, fn) for name, sub in kids})
        r = fn(node)
        if r is None:
            out.append(node)
        elif isinstance(r, tuple):
            out.extend(r)
        else:
            out.append(r)
    return tuple(out)


@dataclass(frozen=True)
class TensorOp:
    """A fusion expression placed in the loop nest but not yet indexed.

    ``kind`` (``TensorOpKind``) is the expression itself, a reduction's initial value, its
    cross-thread step or the write of a 16-bit serial reduction's result. Passes find a tensor's statements by ``tv`` (the
    TensorView itself, compared by identity), never by name. The indexing pass replaces every
    TensorOp.
    """

    tv: Any
    kind: TensorOpKind
    text: str
    expr: Any = field(compare=False, repr=False)
    # Loop indices this op sees shifted, e.g. (("i3", i3 + 2),): a circular-buffer main loop
    # issues the load of iteration i3 + prefetch. Applied to the statements it lowers to.
    shift: tuple[tuple[str, Val], ...] = ()

    @property
    def tensor(self) -> str:
        """The tensor's name, for display."""
        return f"T{self.tv.name}"


def map_vals(node: Any, fn: Callable[[Val], Val], *, into_bodies: bool = True) -> Any:
    """``node`` (a statement, value or tuple of them) with ``fn`` applied to every index, bound and
    condition ``Val`` it holds; buffers are left alone. ``into_bodies=False``: not the statements
    nested in it."""
    from dataclasses import fields, is_dataclass, replace

    if isinstance(node, Val):
        return fn(node)
    if isinstance(node, tuple):
        return tuple(map_vals(x, fn, into_bodies=into_bodies) for x in node)
    if isinstance(node, (Buffer, TensorMapParam, TensorOp)) or not is_dataclass(node) or isinstance(node, type):
        return node
    nested = () if into_bodies else body_fields(type(node))
    changes = {f.name: map_vals(getattr(node, f.name), fn, into_bodies=into_bodies)
               for f in fields(node) if f.name not in nested}
    return replace(node, **changes)


def substitute(node: Any, mapping: dict[str, Val]) -> Any:
    """``node`` (a statement, value or tuple of them) with symbols replaced in every index,
    bound and condition; buffers are left alone."""
    return map_vals(node, lambda v: v.substitute(mapping))


# ---------------------------------------------------------------- dispatch
NODE_TYPES: tuple[type, ...] = get_args(Node)


class NodeVisitor:
    """Dispatch on the node type: ``visit(node, ...)`` calls ``self.visit_<ClassName>(node, ...)``.

    Codegen and the kernel-IR printer derive from this, so a new node type is one ``visit_``
    method in each (the simulator's handlers are methods of its state components, in one table:
    ``runtime/sim_control.py``); ``missing_handlers()`` lists the node classes a back end does
    not handle yet. ``backend`` names the back end in errors and
    ``missing_error`` is the exception type raised for a node it cannot handle.
    """

    backend: str = "this back end"
    missing_error: type[Exception] = TypeError

    def visit(self, node: Any, *args: Any, **kwargs: Any) -> Any:
        return self.handler(type(node))(node, *args, **kwargs)

    def handler(self, cls: type) -> Callable[..., Any]:
        """The bound ``visit_`` method for nodes of class ``cls``; an error naming both if there is none."""
        method = getattr(self, f"visit_{cls.__name__}", None)
        if method is None:
            raise self.missing_error(f"{self.backend} cannot handle kernel IR node {cls.__name__}: "
                                     f"{type(self).__name__} has no visit_{cls.__name__} method")
        return method

    @classmethod
    def missing_handlers(cls, node_types: tuple[type, ...] = NODE_TYPES) -> list[str]:
        """Names of the node classes in ``node_types`` without a ``visit_`` method."""
        return [t.__name__ for t in node_types if not callable(getattr(cls, f"visit_{t.__name__}", None))]
