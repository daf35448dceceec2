"""``verify(kernel)``: the kernel IR's structural rules, checked once for every back end.

A rule is static: it reads the IR alone (and the launch dimensions and target when constant), never
argument values. A broken rule raises ``VerifyError`` (a ``LoweringError``) naming the node and the
rule. ``lower()`` runs it at the end (and after every pass with ``trace=True``); codegen and the
simulator run it at entry, so what they still check is their own: codegen's emission limits, the
simulator's run-time checks (races, hazards, deadlocks, out-of-bounds indices).

A kernel in the middle of the pipeline is verified too: rules about what later passes add (kernel
parameters, tensor maps and launch dimensions) apply once those are there (``complete=True``).
The rules, by name:

- ``scope``: a buffer read or written is a kernel parameter (Global) or Allocated before it in an
  enclosing scope; a buffer is allocated once per scope, never under a parameter's name, never in Global
  memory; a constant shared-memory offset is a multiple of the buffer's alignment.
- ``symbols``: every symbol of an index, bound or condition is a CUDA builtin, an extent or stride of
  a parameter, an enclosing loop index or a ``Let`` before it; loop indices and ``Let`` names are
  symbols that shadow none of those; loop steps are positive.
- ``mbarrier``: mbarrier operations name Int64 Shared buffers, used for nothing else; tokens are Int64;
  a token is stored with its index.
- ``control``: ``Continue`` only inside a loop, ``Return`` and ``Continue`` last in their body.
- ``async-groups``: async group kinds are ``AsyncKind`` members (cp.async, bulk, wgmma); waits keep a non-negative number of
  groups pending and (once every op is indexed) wait for a kind something commits.
- ``elect``: an ``ElectSync`` body holds only what one thread may do (no barrier, block reduction,
  warp-collective stmatrix or ldmatrix, warp-group wgmma or setmaxnreg, nested election); its warp is in the block.
- ``swizzle``: a swizzled shared buffer is aligned to a whole swizzle repeat.
- ``tma``: a TMA copy moves the tensor map's element type between Shared and the map's tensor through a
  1- to 5-d box with as many coordinates, in the buffer's swizzle, from a 16-byte aligned shared address,
  through a map of the kernel.
- ``cp.async``: Global to Shared, 4, 8 or 16 bytes.
- ``wgmma``: shape, operand type, Local Float accumulators within their buffer, Shared operands of the
  operand type in the buffer's swizzle, descriptor offsets in range, whole warp groups.
- ``stmatrix``: 1, 2 or 4 matrices of 16-bit elements from Local registers within their buffer to a
  16-byte aligned row of Shared memory, or back (``ldmatrix``).
- ``barriers``: named barrier ids 1..15 and thread counts whole warps within the block; block reductions
  over thread dimensions with a Shared workspace big enough; setmaxnreg counts in range.
- ``grid-sync``: a ``SemaphoreArrive`` on a zeroed Global int32 scratch buffer, by the whole block (not in an
  ``ElectSync``; in a warp-split branch only with a named barrier over its threads), binding a symbol no other binds.
- ``assign``: known reduce ops; a vector copy copies a Load (or its cast to the target type).
- ``cluster``: cluster dimensions are positive and at most the target's cluster size, dividing a constant
  grid; a multicast TMA load or a remote arrive only in a kernel launched in clusters, its mask naming
  ranks of the cluster; a cluster barrier is collective (never in an ``ElectSync``).
- ``tensor-op``: a not yet indexed ``TensorOp``'s kind is a ``TensorOpKind``.
- ``wgmma-in-flight``: a loop whose body leaves wgmma groups in flight across its iterations (a wait keeping
  groups pending) writes no shared operand those groups read at an offset that does not move with the loop (a
  single-stage tile): the next iteration's write would land while a group still reads it. A cheap, partial check
  (by buffer name; the simulator sees every overlap, shared memory reused by another buffer included).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType, ParallelType
from target import current as current_target

from .effects import Completion, EffectKind, Role, effects
from .errors import LoweringError
from .kir_nodes import (
    Allocate,
    Assign,
    AsyncCommit,
    AsyncKind,
    AsyncWait,
    BlockReduce,
    BlockSync,
    Buffer,
    CastValue,
    ClusterSync,
    Continue,
    CpAsync,
    Discard,
    ElectSync,
    ForLoop,
    IfThenElse,
    LdMatrix,
    Let,
    Load,
    MatrixDescriptor,
    MBarrierArriveExpectTx,
    MBarrierRemoteArrive,
    Mma,
    NamedBarrier,
    RegisterFragment,
    Return,
    SemaphoreArrive,
    SetMaxNReg,
    StMatrix,
    TensorMapParam,
    TensorOp,
    TensorOpKind,
    TmaLoad,
    TmaStore,
    WarpShuffleXor,
    WgmmaFence,
    body_fields,
    children,
    walk,
)

BUILTIN_SYMBOLS = frozenset(f"{base}.{axis}" for base in ("threadIdx", "blockIdx", "blockDim", "gridDim")
                            for axis in "xyz")
REDUCE_OPS = ("add", "sub", "mul", "max", "min")
BLOCK_REDUCE_OPS = ("add", "max")
THREAD_DIMS = (ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz)
STMATRIX_COUNTS = (1, 2, 4)
STMATRIX_TYPES = (DataType.BFloat16, DataType.Half)
STMATRIX_ROW_BYTES = 16
CP_ASYNC_BYTES = (4, 8, 16)
MAX_POINTS = 1 << 16       # index combinations enumerated to bound a register range
# Statements one elected thread may not run: they wait for, or are executed by, more threads than one.
COLLECTIVE = (BlockSync, ClusterSync, NamedBarrier, BlockReduce, WarpShuffleXor, StMatrix, LdMatrix, Mma, WgmmaFence, SetMaxNReg, ElectSync,
              SemaphoreArrive)


class VerifyError(LoweringError):
    """A kernel breaks a structural rule of the kernel IR; ``rule`` names it, ``node`` is where."""

    def __init__(self, rule: str, node: object, detail: str, *, named: bool = False) -> None:
        """``named``: ``detail`` names the node itself."""
        self.rule = rule
        self.node = node
        super().__init__(f"{detail if named else f'{describe(node)}: {detail}'} (rule {rule})")


def describe(node: object) -> str:
    """A node as errors name it: its class and the buffer or loop it is about."""
    if isinstance(node, Buffer):
        return node.name
    if hasattr(node, "body") and hasattr(node, "params"):
        return f"kernel {node.name}"
    if isinstance(node, TensorOp):
        return f"{getattr(node.kind, 'value', node.kind)} of {node.tensor}"
    name = type(node).__name__
    if isinstance(node, ForLoop):
        return f"loop {node.index} ({node.label})" if node.label else f"loop {node.index}"
    for attr in ("buffer", "dst", "src", "mbar", "acc"):
        buf = getattr(node, attr, None)
        if isinstance(buf, Buffer):
            return f"{name} on {buf.name}"
    return name


@dataclass
class _Scope:
    buffers: dict[str, Buffer] = field(default_factory=dict)
    symbols: set[str] = field(default_factory=set)          # loop index and Lets bound here
    loop: ForLoop | None = None
    branch: Any = None      # a warp-split IfThenElse (branch_threads set) this scope is a side of


def verify(kernel: Any, *, complete: bool = True) -> None:
    """Raise ``VerifyError`` for the first structural rule ``kernel`` breaks.

    ``complete=False``: a kernel still in the pipeline; the rules on its parameters' symbols, tensor
    maps and launch dimensions wait until the passes that add them have run."""
    _Verifier(kernel, complete).run()


class _Verifier:
    def __init__(self, kernel: Any, complete: bool) -> None:
        self.kernel = kernel
        self.complete = complete
        self.params = {b.name: b for b in kernel.params}
        self.param_symbols = _param_symbols(kernel)
        self.check_symbols = complete or bool(kernel.params)
        self.tensor_maps = {t.name for t in kernel.tensor_maps}
        block = tuple(b.const_value() for b in kernel.block)
        self.threads = block[0] * block[1] * block[2] if complete and None not in block else None
        self.scopes: list[_Scope] = [_Scope()]
        self.target = current_target()
        self.roles: dict[str, Role] = {}
        self.committed: set[AsyncKind] = set()
        self.waits: list[AsyncWait] = []
        self.unindexed = False     # a TensorOp is left: its commits come with the indexing pass

    def run(self) -> None:
        names = [b.name for b in self.kernel.params] + [t.name for t in self.kernel.tensor_maps]
        if len(set(names)) != len(names):
            raise VerifyError("scope", self.kernel, f"kernel {self.kernel.name} has duplicate parameter names: "
                                                    f"{names}")
        for buf in self.kernel.params:
            if len(buf.strides) not in (0, len(buf.shape)):
                raise VerifyError("scope", buf, f"parameter {buf.name} has {len(buf.shape)} extents but "
                                                f"{len(buf.strides)} strides")
        self.cluster()
        self.body(self.kernel.body, _Scope(), elected=None)
        for wait in self.waits:
            if wait.kind not in self.committed and not self.unindexed:
                raise VerifyError("async-groups", wait, f"waits for {wait.kind.value} groups, but no AsyncCommit"
                                                        f"({wait.kind.value!r}) commits any")

    def cluster(self) -> None:
        dims = self.kernel.cluster_dims
        if not (len(dims) == 3 and all(isinstance(d, int) and d >= 1 for d in dims)):
            raise VerifyError("cluster", self.kernel, f"cluster dimensions {dims} must be three positive ints")
        size = dims[0] * dims[1] * dims[2]
        if size > self.target.max_cluster_size:
            raise VerifyError("cluster", self.kernel, f"a cluster of {dims} is {size} blocks, over the target's "
                                                      f"max_cluster_size {self.target.max_cluster_size}")
        if not self.complete:
            return
        for axis, (g, d) in enumerate(zip(self.kernel.grid, dims)):
            extent = g.const_value()
            if extent is not None and extent % d:
                raise VerifyError("cluster", self.kernel, f"grid dimension {'xyz'[axis]} = {extent} is not a "
                                                          f"multiple of the cluster's {d}")

    def cluster_size(self) -> int:
        x, y, z = self.kernel.cluster_dims
        return x * y * z

    def check_MBarrierRemoteArrive(self, node: MBarrierRemoteArrive) -> None:
        if self.complete and self.cluster_size() == 1:
            raise VerifyError("cluster", node, "arrives on another block's barrier, but the kernel is not launched "
                                               "in clusters (cluster_dims (1, 1, 1))")

    # ------------------------------------------------------------ structure
    def body(self, body: tuple[Any, ...], scope: _Scope, elected: ElectSync | None) -> None:
        self.scopes.append(scope)
        for i, node in enumerate(body):
            if isinstance(node, (Return, Continue)) and i != len(body) - 1:
                raise VerifyError("control", node, f"is followed by {describe(body[i + 1])} in its body, "
                                                   f"which no thread reaches")
            self.node(node, elected)
        self.scopes.pop()

    def node(self, node: Any, elected: ElectSync | None) -> None:
        if elected is not None and isinstance(node, COLLECTIVE):
            raise VerifyError("elect", node, "is inside an ElectSync, which one thread runs; it needs "
                                             f"{_collective_of(node)}")
        if elected is not None and isinstance(node, (AsyncCommit, AsyncWait)) and node.kind is AsyncKind.Wgmma:
            raise VerifyError("elect", node, "is inside an ElectSync; wgmma groups are committed and waited "
                                             "for by the whole warp group")
        if self.check_symbols:
            for v in node_vals(node):
                self.symbols(v, node)
        self.unindexed |= isinstance(node, TensorOp)
        check = getattr(self, f"check_{type(node).__name__}", None)
        if check is not None:
            check(node)
        for e in effects(node):
            self.effect(e, node)
        for name, sub in children(node):
            scope = _Scope(loop=node) if isinstance(node, ForLoop) else _Scope()
            if isinstance(node, IfThenElse) and node.branch_threads is not None:
                scope.branch = node
            if isinstance(node, ForLoop) and node.index.is_symbol:
                scope.symbols.add(str(node.index.name))
            self.body(sub, scope, node if isinstance(node, ElectSync) else elected)

    def symbols(self, v: Val, node: Any) -> None:
        for name in sorted(v.symbols()):
            if name in BUILTIN_SYMBOLS or name in self.param_symbols:
                continue
            if any(name in s.symbols for s in self.scopes):
                continue
            raise VerifyError("symbols", node, f"symbol {name} in {describe(node)} is not bound: it is neither an "
                                               f"extent or stride of a parameter, a CUDA builtin, an enclosing loop "
                                               f"index, nor a Let before it", named=True)

    def bound(self, name: str) -> bool:
        return (name in BUILTIN_SYMBOLS or name in self.param_symbols
                or any(name in s.symbols for s in self.scopes))

    def lookup(self, name: str) -> Buffer | None:
        for scope in reversed(self.scopes):
            if name in scope.buffers:
                return scope.buffers[name]
        return None

    def effect(self, e: Any, node: Any) -> None:
        buf = e.buffer
        if buf is None:   # a TensorView of a not yet indexed op: it has no buffer yet
            return
        if e.kind is EffectKind.Allocate:
            return
        if buf.memory is MemoryType.Global:
            if buf.name not in self.params:
                raise VerifyError("scope", node, f"global buffer {buf.name} is not a kernel parameter; global "
                                                 f"workspaces are not supported")
        elif self.lookup(buf.name) is None:
            raise VerifyError("scope", node, f"{buf.name} is used outside the scope of its Allocate")
        role = e.role if e.role is not Role.Workspace else Role.Data
        seen = self.roles.setdefault(buf.name, role)
        if seen is not role and Role.MBarrier in (seen, role):
            raise VerifyError("mbarrier", node, f"{buf.name} is used as {role.value} here and as {seen.value} "
                                                f"elsewhere; mbarrier buffers hold mbarriers only")
        if e.role is Role.MBarrier:
            if buf.memory is not MemoryType.Shared:
                raise VerifyError("mbarrier", node, f"mbarrier {buf.name} must be in shared memory, not "
                                                    f"{buf.memory.name}")
            if buf.dtype is not DataType.Int64:
                raise VerifyError("mbarrier", node, f"mbarrier buffer {buf.name} holds {buf.dtype.name}; mbarriers "
                                                    f"are 8-byte Int64 words")
        if e.role is Role.Token and buf.dtype is not DataType.Int64:
            raise VerifyError("mbarrier", node, f"token buffer {buf.name} must hold 64-bit mbarrier states "
                                                f"(Int64), not {buf.dtype.name}")
        if e.completes is Completion.CpAsyncGroup and e.is_write and buf.memory is not MemoryType.Shared:
            raise VerifyError("cp.async", node, f"destination {buf.name} must be in shared memory, not "
                                                f"{buf.memory.name}")

    # ------------------------------------------------------------ statements
    def check_Allocate(self, node: Allocate) -> None:
        buf = node.buffer
        scope = self.scopes[-1]
        if buf.name in scope.buffers or buf.name in self.params:
            raise VerifyError("scope", node, f"{buf.name} is allocated twice in the same scope")
        if buf.memory is MemoryType.Global:
            raise VerifyError("scope", node, f"cannot allocate {buf.name} in global memory inside a kernel")
        if buf.memory is MemoryType.Shared:
            self.swizzle_alignment(buf, node)
            off = node.offset.const_value() if node.offset is not None else None
            if off is not None and off % buf.align:
                raise VerifyError("scope", node, f"shared buffer {buf.name} at byte offset {off} is not aligned "
                                                 f"to {buf.align} bytes")
        scope.buffers[buf.name] = buf

    def check_ForLoop(self, node: ForLoop) -> None:
        if not node.index.is_symbol:
            raise VerifyError("symbols", node, f"loop index {node.index} is not a symbol")
        name = str(node.index.name)
        if self.bound(name):
            raise VerifyError("symbols", node, f"loop index {name} shadows another symbol")
        step = node.step.const_value()
        if step is not None and step < 1:
            raise VerifyError("symbols", node, f"loop {name} has step {node.step}; steps are positive")
        self.wgmma_in_flight(node)

    def wgmma_in_flight(self, loop: ForLoop) -> None:
        """A wgmma group left in flight across the loop's iterations (``AsyncWait(wgmma, n > 0)`` in its body)
        reads no shared operand at the same place every iteration that the loop's body writes: the next
        iteration's write would land while the group may still read it (a single-stage tile needs its wgmmas
        retired before its next load; a stage ring rotates the operand's offset with the loop)."""
        trips = (loop.stop - loop.start).const_value()
        if trips is not None and trips <= 1:
            return          # no next iteration to write anything
        moving = _loop_dependent(loop)
        run: list[Mma] = []
        for node in loop.body:
            if isinstance(node, AsyncWait) and node.kind is AsyncKind.Wgmma:
                if node.pending > 0:
                    self.in_flight_reads(loop, node, run, moving)
                run = []
            elif isinstance(node, Mma) or (isinstance(node, ForLoop) and node.unroll):
                run.extend(x for x in walk((node,)) if isinstance(x, Mma))

    def in_flight_reads(self, loop: ForLoop, wait: AsyncWait, run: list[Mma], moving: set[str]) -> None:
        fixed = {d.buffer.name for m in run for d in (m.a, m.b)
                 if isinstance(d, MatrixDescriptor) and not d.offset.symbols() & moving}
        if not fixed:
            return
        for x in walk(loop.body):
            for e in effects(x):
                if e.is_write and e.buffer is not None and e.buffer.name in fixed:
                    raise VerifyError("wgmma-in-flight", wait, f"leaves {wait.pending} wgmma group(s) in flight "
                                      f"across iterations of {describe(loop)}, whose wgmmas read {e.buffer.name} at "
                                      f"the same place every iteration, but {describe(x)} in the loop writes "
                                      f"{e.buffer.name}: the next iteration overwrites it while a group may still "
                                      f"read it; wait for every group (wait<0>) or give {e.buffer.name} a stage per "
                                      f"group in flight")

    def check_Let(self, node: Let) -> None:
        if self.bound(node.name):
            raise VerifyError("symbols", node, f"Let {node.name} shadows another symbol")
        self.scopes[-1].symbols.add(node.name)

    def check_SemaphoreArrive(self, node: SemaphoreArrive) -> None:
        if self.bound(node.name):
            raise VerifyError("symbols", node, f"SemaphoreArrive binds {node.name}, which shadows another symbol")
        sem = node.semaphore
        if sem.memory is not MemoryType.Global or sem.dtype is not DataType.Int32:
            raise VerifyError("grid-sync", node, f"semaphore {sem.name} must be a Global int32 buffer, not "
                                                 f"{sem.memory.name} {sem.dtype.name}")
        scratch = {s.buffer.name: s for s in self.kernel.scratch}
        if self.complete and (sem.name not in scratch or not scratch[sem.name].zeroed):
            raise VerifyError("grid-sync", node, f"semaphore {sem.name} must be a zeroed kernel scratch buffer "
                                                 f"(Kernel.scratch): every launch starts with no arrivals")
        # (before branch_barriers gives it its named barrier, a kernel not yet complete may hold it bare)
        if node.barrier is None and self.complete and any(s.branch is not None for s in self.scopes):
            raise VerifyError("grid-sync", node, "is inside a branch; its barrier needs every thread of the block, or a "
                                                 "named barrier over the branch's threads (SemaphoreArrive.barrier)")
        self.scopes[-1].symbols.add(node.name)

    def check_Discard(self, node: Discard) -> None:
        buf = node.buffer
        if buf.memory is not MemoryType.Local or buf.dtype is not DataType.Float:
            raise VerifyError("wgmma", node, f"Discard of {buf.name} ({buf.memory.name} {buf.dtype.name}): only a wgmma "
                                             f"accumulator (a Local float array) is discarded", named=True)

    def check_Continue(self, node: Continue) -> None:
        if all(s.loop is None for s in self.scopes):
            raise VerifyError("control", node, "Continue outside of a loop")

    def check_Assign(self, node: Assign) -> None:
        if node.reduce_op is not None and node.reduce_op not in REDUCE_OPS:
            raise VerifyError("assign", node, f"unknown reduce_op {node.reduce_op!r} ({', '.join(REDUCE_OPS)})")
        if node.vector <= 1:
            return
        converts = isinstance(node.value, CastValue) and node.value.dtype == node.buffer.dtype
        src = node.value.x if converts else node.value
        if not isinstance(src, Load) or node.reduce_op is not None:
            raise VerifyError("assign", node, f"a vectorized copy must copy a Load (or a cast of one to "
                                              f"{node.buffer.dtype.name}) without reduce_op")
        if src.buffer.dtype != node.buffer.dtype and not converts:
            raise VerifyError("assign", node, f"a vectorized copy moves {src.buffer.dtype.name} into "
                                              f"{node.buffer.dtype.name}")
        if node.valid is None:
            return
        if len(node.valid) != node.vector or converts or src.buffer.memory is not MemoryType.Global:
            raise VerifyError("assign", node, f"a misaligned vector copies {node.vector} elements of a global tensor "
                                              f"unconverted, with one condition each; this one has "
                                              f"{len(node.valid)} conditions and reads {src.buffer.memory.name} "
                                              f"{src.buffer.dtype.name}")

    def check_ElectSync(self, node: ElectSync) -> None:
        w = node.warp.const_value()
        if w is not None and self.threads is not None and not 0 <= w * self.target.warp_size < self.threads:
            raise VerifyError("elect", node, f"elects in warp {w}, but a block of {self.threads} threads has "
                                             f"warps 0..{(self.threads - 1) // self.target.warp_size}")

    def check_NamedBarrier(self, node: NamedBarrier) -> None:
        self.named_barrier(node.id, node.threads, node)

    def named_barrier(self, bid_val: Val, threads_val: Val, node: Any) -> None:
        bid, last = bid_val.const_value(), self.target.max_named_barrier
        if bid is not None and not 1 <= bid <= last:
            raise VerifyError("barriers", node, f"named barrier id {bid_val} is out of range: named barrier ids "
                                                f"are 1..{last} (0 is __syncthreads)")
        threads = threads_val.const_value()
        warp = self.target.warp_size
        if threads is not None and (threads < 1 or threads % warp):
            raise VerifyError("barriers", node, f"named barrier {bid_val} counts {threads} threads; bar.sync "
                                                f"counts whole warps, a positive multiple of {warp}")
        if threads is not None and self.threads is not None and threads > self.threads:
            raise VerifyError("barriers", node, f"named barrier {bid_val} counts {threads} threads, more than "
                                                f"the block's {self.threads}")

    def check_BlockReduce(self, node: BlockReduce) -> None:
        if node.op not in BLOCK_REDUCE_OPS:
            raise VerifyError("barriers", node, f"BlockReduce op {node.op!r} is not supported "
                                                f"({', '.join(BLOCK_REDUCE_OPS)})")
        dims = set(node.dims)
        if not dims or not dims <= set(THREAD_DIMS):
            raise VerifyError("barriers", node, f"BlockReduce reduces over thread dims only, got {node.dims}")
        ws = node.workspace
        if ws.memory is not MemoryType.Shared:
            raise VerifyError("barriers", node, f"workspace {ws.name} must be in shared memory, not "
                                                f"{ws.memory.name}")
        if ws.dtype.size < node.buffer.dtype.size:
            raise VerifyError("barriers", node, f"workspace {ws.name} has {ws.dtype.size}-byte slots for a "
                                                f"{node.buffer.dtype.name} reduction")
        threads = self.threads if node.barrier is None else node.barrier.threads.const_value()
        size = ws.size.const_value()
        if threads is not None and size is not None and size < threads:
            raise VerifyError("barriers", node, f"workspace {ws.name} has {size} slots for {threads} threads")
        if node.barrier is not None:
            self.named_barrier(node.barrier.id, node.barrier.threads, node)

    def check_WarpShuffleXor(self, node: WarpShuffleXor) -> None:
        if node.op not in BLOCK_REDUCE_OPS:
            raise VerifyError("barriers", node, f"WarpShuffleXor op {node.op!r} is not supported "
                                                f"({', '.join(BLOCK_REDUCE_OPS)})")
        mask, warp = node.lane_mask, self.target.warp_size
        if not 0 < mask < warp or mask & (mask - 1):
            raise VerifyError("barriers", node, f"lane mask {mask} must be a power of two below the warp size "
                                                f"({warp}): the partner lane is in the same warp")
        if node.buffer.memory is not MemoryType.Local:
            raise VerifyError("barriers", node, f"{node.buffer.name} is in {node.buffer.memory.name} memory; a warp "
                                                f"shuffle exchanges registers (Local)")

    def check_SetMaxNReg(self, node: SetMaxNReg) -> None:
        (lo, hi), step = self.target.setmaxnreg_range, self.target.setmaxnreg_step
        if not lo <= node.count <= hi or node.count % step != 0:
            raise VerifyError("barriers", node, f"setmaxnreg count {node.count} must be a multiple of {step} in "
                                                f"[{lo}, {hi}]")

    def check_TensorOp(self, node: TensorOp) -> None:
        if not isinstance(node.kind, TensorOpKind):
            raise VerifyError("tensor-op", node, f"kind {node.kind!r} is not a TensorOpKind "
                                                 f"({', '.join(f'TensorOpKind.{t.name}' for t in TensorOpKind)})")

    def check_AsyncCommit(self, node: AsyncCommit) -> None:
        self.async_kind(node)
        self.committed.add(node.kind)

    def check_AsyncWait(self, node: AsyncWait) -> None:
        self.async_kind(node)
        if node.pending < 0:
            raise VerifyError("async-groups", node, f"waits until {node.pending} groups are pending; the count "
                                                    f"is not negative")
        self.waits.append(node)

    def async_kind(self, node: AsyncCommit | AsyncWait) -> None:
        if not isinstance(node.kind, AsyncKind):
            raise VerifyError("async-groups", node, f"unknown async group kind {node.kind!r}; the kind is an "
                                                    f"AsyncKind ({', '.join(f'AsyncKind.{a.name}' for a in AsyncKind)})")

    def check_MBarrierArriveExpectTx(self, node: MBarrierArriveExpectTx) -> None:
        if node.token is not None and node.token_index is None:
            raise VerifyError("mbarrier", node, f"stores a token in {node.token.name} but has no token_index")

    def check_CpAsync(self, node: CpAsync) -> None:
        nbytes = node.vector * node.dst.dtype.size
        if nbytes not in CP_ASYNC_BYTES:
            raise VerifyError("cp.async", node, f"copies {nbytes} bytes; cp.async copies 4, 8 or 16")
        if node.src.memory is not MemoryType.Global:
            raise VerifyError("cp.async", node, f"source {node.src.name} must be global memory")

    # ------------------------------------------------------------ TMA
    def check_TmaLoad(self, node: TmaLoad) -> None:
        self.tma(node, node.dst, node.dst_index, "destination")
        if node.multicast is None or not self.complete:
            return
        size = self.cluster_size()
        for mask in self.multicast_masks(node.multicast):
            if size == 1 or mask <= 0 or mask >> size:
                raise VerifyError("cluster", node, f"multicasts to blocks {mask:#b}, which are not ranks of "
                                                   f"the kernel's cluster of {self.kernel.cluster_dims}")

    def multicast_masks(self, multicast: int | Val) -> list[int]:
        """A multicast's masks: the constant, or a rank-dependent mask at every block position of a cluster
        (none where it reads other symbols)."""
        if isinstance(multicast, int):
            return [multicast]
        dims = self.kernel.cluster_dims
        names = [f"blockIdx.{axis}" for axis in "xyz"]
        if not multicast.symbols() <= set(names):
            return []
        return [int(multicast.evaluate(dict(zip(names, (x, y, z)))))
                for x in range(dims[0]) for y in range(dims[1]) for z in range(dims[2])]

    def check_TmaStore(self, node: TmaStore) -> None:
        self.tma(node, node.src, node.src_index, "source")

    def tma(self, node: TmaLoad | TmaStore, smem: Buffer, index: Val, role: str) -> None:
        tmap: TensorMapParam = node.tensor_map
        if self.complete and tmap.name not in self.tensor_maps:
            raise VerifyError("tma", node, f"uses tensor map {tmap.name}, which is not in kernel.tensor_maps")
        if not 1 <= len(tmap.box) <= 5 or len(node.coords) != len(tmap.box):
            raise VerifyError("tma", node, f"has {len(node.coords)} coordinates for a {len(tmap.box)}-d box; TMA "
                                           f"boxes have 1 to 5 dimensions")
        if len(tmap.tensor.shape) != len(tmap.box):
            raise VerifyError("tma", node, f"box {tmap.box} has rank {len(tmap.box)}, the tensor "
                                           f"{tmap.tensor.name} rank {len(tmap.tensor.shape)}")
        if any(s != 1 for s in tmap.element_strides):
            raise VerifyError("tma", node, f"element strides {tmap.element_strides} of {tmap.name} are not "
                                           f"supported")
        if smem.memory is not MemoryType.Shared:
            raise VerifyError("tma", node, f"{role} {smem.name} must be in shared memory, not {smem.memory.name}")
        if smem.swizzle is not tmap.swizzle:
            raise VerifyError("swizzle", node, f"copies through {tmap.name} with swizzle {tmap.swizzle.name}, but "
                                               f"{smem.name} is laid out with swizzle {smem.swizzle.name}")
        self.swizzle_alignment(smem, node)
        if smem.dtype != tmap.tensor.dtype:
            raise VerifyError("tma", node, f"moves {tmap.tensor.dtype.name} elements through {smem.name} of "
                                           f"{smem.dtype.name}")
        start = index.const_value()
        if start is not None and (start * smem.dtype.size) % 16:
            raise VerifyError("tma", node, f"shared address {smem.name}[{start}] is not 16-byte aligned")

    def swizzle_alignment(self, buf: Buffer, node: Any) -> None:
        if buf.swizzle.span and buf.align % buf.swizzle.alignment:
            raise VerifyError("swizzle", node, f"shared buffer {buf.name} has swizzle {buf.swizzle.name} but align "
                                               f"{buf.align}; a {buf.swizzle.name}-swizzled buffer starts on a "
                                               f"{buf.swizzle.alignment}-byte boundary")

    # ------------------------------------------------------------ wgmma and stmatrix
    def check_WgmmaFence(self, node: WgmmaFence) -> None:
        for buf in node.registers:
            if buf.memory is not MemoryType.Local or buf.dtype.name not in self.target.wgmma.operand_types:
                raise VerifyError("wgmma", node, f"wgmma.fence names {buf.name} ({buf.memory.name} "
                                                 f"{buf.dtype.name}) as a register A operand; a register A operand is a "
                                                 f"Local array of {' or '.join(self.target.wgmma.operand_types)}",
                                  named=True)

    def check_Mma(self, node: Mma) -> None:
        m, n, kk = node.shape
        what = f"Mma {node.shape} into {node.acc.name}"
        wgmma = self.target.wgmma

        def fail(detail: str, rule: str = "wgmma") -> VerifyError:
            return VerifyError(rule, node, f"{what}{detail}", named=True)

        if node.dtype.name not in wgmma.operand_types:
            raise fail(f" has operand type {node.dtype.name}; wgmma is generated for "
                       f"{' and '.join(wgmma.operand_types)} operands with f32 accumulators")
        if m != wgmma.m:
            raise fail(f": M is {m}; a wgmma is {wgmma.m} rows (one per warp group)")
        if kk != wgmma.k_for(node.dtype.size):
            raise fail(f": K is {kk}; a wgmma on {node.dtype.name} operands is k{wgmma.k_for(node.dtype.size)}")
        if not wgmma.valid_n(n):
            raise fail(f": N is {n}; wgmma's N is a multiple of {wgmma.n_step} from {wgmma.n_step} to {wgmma.max_n}")
        group = self.target.warp_group_size
        if self.threads is not None and self.threads % group:
            raise fail(f": the block has {self.threads} threads; wgmma is issued by whole warp groups of {group} "
                       f"threads")
        acc = node.acc
        if acc.memory is not MemoryType.Local or acc.dtype != DataType.Float:
            raise fail(f": the accumulators are {acc.memory.name} {acc.dtype.name}; wgmma accumulates into a Local "
                       f"Float (register) array")
        self.registers(acc, node.acc_index, n // 2, node, "wgmma", what, f"per thread for N = {n}")
        if isinstance(node.a, RegisterFragment):
            self.register_operand(node, node.a)
        else:
            self.descriptor(node, node.a, "A")
        self.descriptor(node, node.b, "B")

    def register_operand(self, node: Mma, frag: RegisterFragment) -> None:
        """wgmma's register-sourced A: 8 elements of the operand type per thread in a Local array."""
        buf = frag.buffer
        what = f"operand A ({buf.name}, in registers) of Mma into {node.acc.name}"
        if buf.memory is not MemoryType.Local or buf.dtype != node.dtype:
            raise VerifyError("wgmma", node, f"{what} is a {buf.memory.name} {buf.dtype.name} array; a register A "
                                             f"operand is a Local array of the Mma's {node.dtype.name} elements",
                              named=True)
        wgmma = self.target.wgmma
        per_thread = wgmma.m * wgmma.k_for(node.dtype.size) // self.target.warp_group_size
        self.registers(buf, frag.index, per_thread, node, "wgmma", what, "per thread for one k-step of A")

    def descriptor(self, node: Mma, desc: MatrixDescriptor, which: str) -> None:
        buf = desc.buffer
        what = f"operand {which} ({buf.name}) of Mma into {node.acc.name}"

        def fail(detail: str, rule: str = "wgmma") -> VerifyError:
            return VerifyError(rule, node, f"{what}{detail}", named=True)

        if buf.memory is not MemoryType.Shared:
            raise fail(f" is in {buf.memory.name} memory; wgmma reads its operands from shared memory")
        if buf.dtype != node.dtype:
            raise fail(f" holds {buf.dtype.name} elements, but the Mma multiplies {node.dtype.name}")
        if desc.swizzle is not buf.swizzle:
            raise fail(f": the descriptor says swizzle {desc.swizzle.name}, but {buf.name} is laid out with swizzle "
                       f"{buf.swizzle.name}", "swizzle")
        self.swizzle_alignment(buf, node)
        limit = self.target.wgmma.descriptor_offset_limit
        for name, value in (("leading", desc.leading_bytes), ("stride", desc.stride_bytes)):
            if value % 16 or not 0 <= value < limit:
                raise fail(f": {name} byte offset {value} is not a multiple of 16 in [0, {limit}); the descriptor "
                           f"holds it >> 4 in 14 bits")
        offset = desc.offset.const_value()
        if offset is not None and (offset * buf.dtype.size) % 16:
            raise fail(f" starts at element {offset}, byte {offset * buf.dtype.size}; a matrix descriptor's start "
                       f"address is a multiple of 16 bytes")

    def check_StMatrix(self, node: StMatrix) -> None:
        self.matrix_copy(node, "stmatrix", "stores", node.dst, node.src, node.dst_index, node.src_index)

    def check_LdMatrix(self, node: LdMatrix) -> None:
        self.matrix_copy(node, "ldmatrix", "loads", node.src, node.dst, node.src_index, node.dst_index)

    def matrix_copy(self, node: StMatrix | LdMatrix, name: str, verb: str, shared: Buffer, local: Buffer, row: Val,
                    registers: Val) -> None:
        """stmatrix (``shared`` the destination) and ldmatrix (the source): 1, 2 or 4 8 x 8 matrices of 16-bit
        elements between a Local buffer and 16-byte aligned rows of a Shared one, the bits as they are."""
        what = f"{type(node).__name__} from {node.src.name} into {node.dst.name}"
        stores = node.dst is shared
        shared_role, local_role = ("destination", "source") if stores else ("source", "destination")
        op = f"{name} {verb}"

        def fail(detail: str) -> VerifyError:
            return VerifyError("stmatrix", node, f"{what}{detail}", named=True)

        if node.count not in STMATRIX_COUNTS:
            raise fail(f" {verb} {node.count} matrices; {op} 1, 2 or 4 (x1, x2, x4)")
        if shared.memory is not MemoryType.Shared:
            raise fail(f": the {shared_role} is {shared.memory.name}; {op} {'to' if stores else 'from'} shared memory")
        if local.memory is not MemoryType.Local:
            raise fail(f": the {local_role} is {local.memory.name}; {op} registers (a Local buffer)")
        for r, buf in (("destination", node.dst), ("source", node.src)):
            if buf.dtype not in STMATRIX_TYPES:
                raise fail(f": the {r} holds {buf.dtype.name} elements; {op} 16-bit elements "
                           f"({' or '.join(d.name for d in STMATRIX_TYPES)})")
        if node.dst.dtype != node.src.dtype:
            raise fail(f": the destination holds {node.dst.dtype.name} elements but the source {node.src.dtype.name}; "
                       f"{name} copies the bits as they are")
        if shared.align % STMATRIX_ROW_BYTES:
            raise fail(f": {shared.name} is {shared.align}-byte aligned; each {name} row address is a multiple of "
                       f"{STMATRIX_ROW_BYTES} bytes")
        start = row.const_value()
        if start is not None and (start * shared.dtype.size) % STMATRIX_ROW_BYTES:
            raise fail(f": the row starts at element {start}, byte {start * shared.dtype.size}; {name} rows start on "
                       f"{STMATRIX_ROW_BYTES}-byte boundaries")
        self.registers(local, registers, 2 * node.count, node, "stmatrix", what, f"elements for x{node.count}")

    def registers(self, buf: Buffer, index: Val, count: int, node: Any, rule: str, what: str, why: str) -> None:
        """``buf[index : index + count]`` lies in ``buf`` for every value ``index`` takes over the enclosing
        loops with constant bounds (an index over other symbols is left to the back ends)."""
        size = buf.size.const_value()
        if size is None:
            return
        ranges: dict[str, range] = {}
        for scope in self.scopes:
            lp = scope.loop
            if lp is None:
                continue
            bounds = (lp.start.const_value(), lp.stop.const_value(), lp.step.const_value())
            if None not in bounds:
                ranges[str(lp.index.name)] = range(*bounds)  # type: ignore[arg-type]
        names = sorted(index.symbols())
        if any(n not in ranges for n in names):
            return
        points = 1
        for n in names:
            points *= max(len(ranges[n]), 1)
        if points > MAX_POINTS:
            return
        envs: list[dict[str, int]] = [{}]
        for n in names:
            envs = [{**env, n: x} for env in envs for x in ranges[n]]
        for start in sorted({int(index.evaluate(env)) for env in envs}):
            if start < 0 or start + count > size:
                raise VerifyError(rule, node, f"{what}: registers {buf.name}[{start}:{start + count}] ({count} {why}) "
                                              f"are out of bounds of {buf.name}[{size}]", named=True)


def _loop_dependent(loop: ForLoop) -> set[str]:
    """The loop's index and the ``Let`` names its body binds from it (directly or through another)."""
    out = {str(loop.index.name)}
    for x in walk(loop.body):
        if isinstance(x, Let) and x.value.symbols() & out:
            out.add(x.name)
    return out


def _collective_of(node: Any) -> str:
    if isinstance(node, (Mma, WgmmaFence, SetMaxNReg)):
        return "a whole warp group"
    if isinstance(node, (StMatrix, LdMatrix, WarpShuffleXor)):
        return "a whole warp"
    if isinstance(node, ElectSync):
        return "a whole warp to elect from (ElectSync does not nest)"
    return "every thread it synchronizes"


def _param_symbols(kernel: Any) -> set[str]:
    out: set[str] = set()
    for buf in kernel.params:
        out.update(str(v.name) for v in buf.shape + buf.strides if v.is_symbol)
    return out


def node_vals(node: Any) -> Iterator[Val]:
    """Every index, bound and condition a statement holds (not those of nested statements)."""
    if isinstance(node, TensorOp):
        return
    skip = body_fields(type(node)) + (("index",) if isinstance(node, ForLoop) else ())
    for f in fields(node):
        if f.name not in skip:
            yield from _vals(getattr(node, f.name))


def _vals(obj: Any) -> Iterator[Val]:
    if isinstance(obj, Val):
        yield obj
    elif isinstance(obj, tuple):
        for x in obj:
            yield from _vals(x)
    elif isinstance(obj, (Buffer, TensorMapParam, TensorOp)) or not is_dataclass(obj) or isinstance(obj, type):
        return
    else:
        for f in fields(obj):
            yield from _vals(getattr(obj, f.name))


__all__ = ["VerifyError", "describe", "verify"]
