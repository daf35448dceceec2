"""Kernel IR: the lowered program as immutable dataclasses.

Statements (``ForLoop``, ``IfThenElse``, ``Assign``, ``BlockSync``, mbarrier and TMA ops, ...)
nest into a body; values (``Load``, ``Const``, ``UnaryValue``, ...) form the right-hand sides.
Every index and predicate is a symbolic ``Val`` over these symbols:

- extents of inputs (``i0``, ``i1``, ...) and element strides of every global tensor
  (``T0_stride0``), bound from the actual arguments;
- ``threadIdx.x/y/z``, ``blockIdx.x/y/z``, ``blockDim.x/y/z``, ``gridDim.x/y/z``;
- loop indices (``i17``), bound by their ``ForLoop``.

Passes rebuild nodes (``dataclasses.replace``) rather than mutate them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Union

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
class UnaryValue:
    op: str  # neg exp abs relu sqrt sin cos log rsqrt tanh sigmoid
    x: "Value"
    dtype: DataType


@dataclass(frozen=True)
class BinaryValue:
    op: str  # add sub mul div maximum minimum
    a: "Value"
    b: "Value"
    dtype: DataType


@dataclass(frozen=True)
class CastValue:
    x: "Value"
    dtype: DataType


Value = Union[Load, Const, UnaryValue, BinaryValue, CastValue]


# ---------------------------------------------------------------- statements
@dataclass(frozen=True)
class Allocate:
    """Declare a Local or Shared buffer; ``offset`` is its byte offset in dynamic shared memory."""

    buffer: Buffer
    offset: Val | None = None


@dataclass(frozen=True)
class Assign:
    """``buffer[index] = value``; with ``reduce_op`` it is ``buffer[index] = op(buffer[index], value)``.

    ``vector > 1`` copies that many consecutive elements (value must be a ``Load``);
    codegen emits one vector access.
    """

    buffer: Buffer
    index: Val
    value: Value
    reduce_op: str | None = None
    vector: int = 1


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
    barrier: "NamedBarrier | None" = None


@dataclass(frozen=True)
class ForLoop:
    index: Val            # a symbol
    start: Val
    stop: Val
    body: tuple["Node", ...]
    label: str = ""       # the IterDomain it iterates, e.g. "iS3{ceilDiv(i1, 256)}"
    unroll: bool | int = False   # True: full unroll; int: #pragma unroll N
    vectorize: bool = False
    stage: Stage | None = None
    step: Val = Val.const(1)     # a persistent loop steps by gridDim.x


@dataclass(frozen=True)
class IfThenElse:
    """``if (cond) then_body else else_body``.

    ``branch_threads`` is set when ``cond`` splits the block by whole warps (warp specialization):
    the number of threads that take the then and the else branch. A barrier inside such a branch
    is a ``NamedBarrier`` over that branch's threads, never a block-wide ``BlockSync``.
    """

    cond: Val
    then_body: tuple["Node", ...]
    else_body: tuple["Node", ...] = ()
    branch_threads: tuple[Val, Val] | None = None


@dataclass(frozen=True)
class ElectSync:
    """Run ``body`` in one thread of warp ``warp`` of the block, chosen by ``elect.sync``.

    ``warp`` is the linear warp index in the block (linear thread index // 32): warp 0 for a
    block-wide elected thread, the first warp of the producer branch in a warp-specialized kernel.
    Only threads of that warp take part; the others skip the body.
    """

    body: tuple["Node", ...]
    warp: Val = Val.const(0)


@dataclass(frozen=True)
class BlockSync:
    """``__syncthreads()``; ``reason`` says which hazard it guards (RAW, WAR, init)."""

    reason: str = ""


@dataclass(frozen=True)
class NamedBarrier:
    """``bar.sync id, threads``: the ``threads`` threads (a multiple of 32) that reach barrier ``id``
    (1..15; 0 is ``__syncthreads``) wait for each other. Used inside a branch that only some warps
    take, where a block-wide ``__syncthreads`` would deadlock."""

    id: int
    threads: Val
    reason: str = ""


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
    kind: str  # "cp.async" | "bulk"


@dataclass(frozen=True)
class AsyncWait:
    kind: str  # "cp.async" | "bulk"
    pending: int = 0


@dataclass(frozen=True)
class FenceAsyncProxy:
    pass


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
class Mma:
    """Placeholder for a warpgroup MMA (wgmma) on shared-memory operands."""

    acc: Buffer
    a: Buffer
    b: Buffer
    shape: tuple[int, int, int]


Node = Union[Allocate, Assign, BlockReduce, ForLoop, IfThenElse, ElectSync, BlockSync, NamedBarrier, Comment,
             MBarrierInit, MBarrierInval, MBarrierArrive, MBarrierArriveExpectTx, MBarrierWait,
             MBarrierWaitParity, TmaLoad, TmaStore, CpAsync, AsyncCommit, AsyncWait, FenceAsyncProxy,
             SetMaxNReg, Return, Continue, Mma]


# ---------------------------------------------------------------- kernel
@dataclass(frozen=True)
class RuntimeCheck:
    """A condition on the arguments checked before launch (by the executor and the simulator)."""

    cond: Val
    message: str


@dataclass(frozen=True)
class Kernel:
    name: str
    body: tuple[Node, ...]
    inputs: tuple[Buffer, ...]
    outputs: tuple[Buffer, ...]
    tensor_maps: tuple[TensorMapParam, ...]
    grid: tuple[Val, Val, Val]
    block: tuple[Val, Val, Val]
    smem_bytes: Val
    checks: tuple[RuntimeCheck, ...] = ()
    launch_bounds: int | None = None
    fusion: Any = field(default=None, compare=False, repr=False)

    @property
    def params(self) -> tuple[Buffer, ...]:
        return self.inputs + self.outputs

    def symbol_env(self, arrays: list[Any]) -> dict[str, int]:
        """Bind extent and stride symbols from actual arguments (arrays with .shape, .strides, .itemsize)."""
        env: dict[str, int] = {}
        for buf, arr in zip(self.inputs, arrays):
            for dim, (ext, actual) in enumerate(zip(buf.shape, arr.shape)):
                if ext.is_symbol:
                    env.setdefault(ext.name, int(actual))
        for buf, arr in zip(self.inputs, arrays):
            itemsize = arr.itemsize if hasattr(arr, "itemsize") else arr.dtype.itemsize
            for stride_sym, st in zip(buf.strides, arr.strides):
                env[stride_sym.name] = int(st) // int(itemsize)
        for buf in self.outputs:
            shape = [int(s.evaluate(env)) for s in buf.shape]
            for k, stride_sym in enumerate(buf.strides):
                prod = 1
                for s in shape[k + 1:]:
                    prod *= s
                env[stride_sym.name] = prod
        return env

    def output_shapes(self, env: dict[str, int]) -> list[tuple[int, ...]]:
        return [tuple(int(s.evaluate(env)) for s in b.shape) for b in self.outputs]

    def __str__(self) -> str:
        from .kir_printer import kernel_text

        return kernel_text(self)

    def launch_dims(self, env: dict[str, int]) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        grid = tuple(int(g.evaluate(env)) for g in self.grid)
        block = tuple(int(b.evaluate(env)) for b in self.block)
        return grid, block  # type: ignore[return-value]


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

    ``kind`` is ``compute``, ``init`` (a reduction's initial value) or ``block_reduce``
    (the cross-thread step of a reduction). Passes find a tensor's statements by ``tv`` (the
    TensorView itself, compared by identity), never by name. The indexing pass replaces every
    TensorOp.
    """

    tv: Any
    kind: str
    text: str
    expr: Any = field(compare=False, repr=False)
    # Loop indices this op sees shifted, e.g. (("i3", i3 + 2),): a circular-buffer main loop
    # issues the load of iteration i3 + prefetch. Applied to the statements it lowers to.
    shift: tuple[tuple[str, Val], ...] = ()

    @property
    def tensor(self) -> str:
        """The tensor's name, for display."""
        return f"T{self.tv.name}"


def substitute(node: Any, mapping: dict[str, Val]) -> Any:
    """``node`` (a statement, value or tuple of them) with symbols replaced in every index,
    bound and condition; buffers are left alone."""
    from dataclasses import fields, is_dataclass, replace

    if isinstance(node, Val):
        return node.substitute(mapping)
    if isinstance(node, tuple):
        return tuple(substitute(x, mapping) for x in node)
    if isinstance(node, (Buffer, TensorMapParam, TensorOp)) or not is_dataclass(node):
        return node
    changes = {f.name: substitute(getattr(node, f.name), mapping) for f in fields(node)}
    return replace(node, **changes)
