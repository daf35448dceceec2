"""Kernel IR -> one self-contained CUDA C++ translation unit for sm_90a.

Conventions of the generated code (see also the ``*.cuh`` helpers pasted at the top):

- Signature: ``extern "C" __global__ void <name>(Tensor<T, N> T0, ..., const __grid_constant__
  TensorMap tmap_T0, ...)`` with ``kernel.inputs``, then ``kernel.outputs``, then
  ``kernel.tensor_maps``, then ``kernel.scalars`` by value (``float S3``; Half and BFloat16 scalars as
  ``float``). A ``Tensor`` is the data pointer, N int64 sizes and N int64 element strides; a
  ``TensorMap`` is the 128-byte TMA descriptor, used through its address; a scalar is read by name
  wherever an expression uses it.
- Symbols: extents (``i0``) and strides (``T0_stride0``) are bound once at the top from the
  parameters (only those the body uses); loop indices are ``int64_t`` loop variables; CUDA
  builtins print as ``((int64_t)threadIdx.x)`` inside arithmetic. A kernel that issues wgmma reads ``threadIdx.y``
  (and ``threadIdx.z``) once, by ``__shfl_sync`` from lane 0, as ``tidY`` where each warp lies in one row of threads:
  ptxas then keeps what is computed from it in uniform registers (``warp_uniform_builtins``).
- Storage: Local buffers are register arrays ``float T3[8];``; Shared buffers are typed pointers
  into ``extern __shared__ __align__(1024) char smem[];`` at their byte offset; global parameters
  are read and written as ``T0.data[index]``.
- mbarriers are 8-byte Shared buffers addressed as ``toSmem(&T4[i])``; TMA copies name the
  descriptor parameter ``&tmap_T0`` and take coordinates innermost first.
- Register operands of inline asm (stmatrix) are built by value from the Local array's elements
  (``T2[i]``), never through its address, so the array stays in registers.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field

from fusion_ir.scalar import Val, all_of
from fusion_ir.types import DataType, MemoryType, ParallelType, SmemSwizzle
from lowering.effects import Proxy, effects, touched_names
from lowering.kernel_ir import (
    Allocate,
    Assign,
    AsyncCommit,
    AsyncKind,
    AsyncWait,
    BinaryValue,
    BlockReduce,
    BlockSync,
    Buffer,
    CastValue,
    ClusterSync,
    Comment,
    Continue,
    CpAsync,
    Discard,
    ElectSync,
    FenceAsyncProxy,
    ForLoop,
    GridFence,
    IfThenElse,
    Kernel,
    LdMatrix,
    Let,
    Load,
    MatrixDescriptor,
    MBarrierArrive,
    MBarrierArriveExpectTx,
    MBarrierInit,
    MBarrierInval,
    MBarrierRemoteArrive,
    MBarrierWait,
    MBarrierWaitParity,
    Mma,
    NamedBarrier,
    Node,
    NodeVisitor,
    RegisterFragment,
    Return,
    ScalarValue,
    SemaphoreArrive,
    SetMaxNReg,
    StMatrix,
    TmaLoad,
    TmaStore,
    WarpShuffleXor,
    WgmmaFence,
    children,
    walk,
)
from lowering.verify import VerifyError, verify
from target import current as current_target

from . import packed_pairs
from .errors import CodegenError
from .expressions import BuiltinNames, builtin, builtin_names, cond_expr, index_expr, value_expr
from .helpers import helpers_source
from .smem_layout import shared_memory_layout
from .wgmma import (
    DESCRIPTOR_MODES,
    WgmmaShape,
    wrappers_source,
)

INDENT = "  "
LDMATRIX_WORDS = "ldm"      # the 32-bit words an ldmatrix writes, in a scope of their own
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_REDUCE_TO_BINARY = {"add": "add", "sub": "sub", "mul": "mul", "max": "maximum", "min": "minimum"}
_BLOCK_REDUCE_OPS = {"add": "ReduceAdd", "max": "ReduceMax"}
_THREAD_DIMS = {ParallelType.TIDx: "x", ParallelType.TIDy: "y", ParallelType.TIDz: "z"}
_VECTOR_TYPES = {  # (is float32, bytes) -> C type of one vector access
    (True, 16): "float4", (True, 8): "float2", (True, 4): "float",
    (False, 16): "uint4", (False, 8): "uint2", (False, 4): "uint32_t", (False, 2): "uint16_t",
}


def to_cuda(kernel: Kernel) -> str:
    """The CUDA C++ source of ``kernel``: helpers, then one ``extern "C" __global__`` function."""
    return KernelPrinter(kernel).source()


def smem_base_align() -> int:
    """The alignment of the dynamic shared memory base: one repeat of the target's widest swizzle."""
    return SmemSwizzle(max(current_target().tma.swizzle_spans)).alignment


@dataclass
class _Scope:
    buffers: dict[str, Buffer] = field(default_factory=dict)
    loop_index: str | None = None
    # The values of loop_index when the loop is fully unrolled (constant bounds, #pragma unroll):
    # an index nvcc turns into a constant in every copy of the body.
    unrolled: range | None = None
    lets: set[str] = field(default_factory=set)   # names bound by Let statements of this scope
    register_words: list[str] = field(default_factory=list)   # 32-bit A registers of wgmmas packed in this scope


class KernelPrinter(NodeVisitor):
    """Prints one kernel; a ``visit_<Node>`` method per kernel IR statement emits its lines."""

    backend = "codegen"
    missing_error = CodegenError

    def __init__(self, kernel: Kernel) -> None:
        try:
            verify(kernel)
        except VerifyError as e:
            raise CodegenError(f"codegen: {e}") from e
        self.kernel = kernel
        self.helpers: set[str] = {"types", "tensor"}
        self.layout = shared_memory_layout(kernel)
        self.uses_smem = False
        self.uses_setmaxnreg = False
        self.wgmma_shapes: set[WgmmaShape] = set()
        self.wgmma_accumulators = sorted({e.name for n in walk(kernel.body) for e in effects(n)
                                          if e.is_write and e.proxy is Proxy.Wgmma})
        # a register A operand's 32-bit words, packed at the wgmma.fence that names it: array by operand
        self.register_words: dict[str, str] = {}
        # register A operands held as 32-bit words from their allocation on (``_paired_operands``), and arrays
        # written a packed pair at a time (``packed_pairs``: relu folded into the conversion)
        self.operand_words = _paired_operands(kernel.body)
        self.pairs = packed_pairs.find(kernel.body)
        self.paired = self.operand_words | self.pairs.buffers
        self.fence_sets = _wgmma_fence_sets(kernel.body)
        self.lines: list[str] = []
        self.depth = 1
        self.scopes: list[_Scope] = [_Scope()]
        self.params = {b.name: b for b in kernel.params}
        self.tensor_maps = {t.name: t for t in kernel.tensor_maps}
        self.param_symbols = self._param_symbols()
        self.index_ctype = kernel.index_type.ctype
        self.used_symbols: set[str] = set()
        self.referenced = _referenced_buffers(kernel.body)
        self.block = tuple(b.const_value() for b in kernel.block)
        # wgmma reads its descriptors from uniform registers: where the kernel issues it, the thread indices a
        # warp group's descriptors are computed from are read warp-uniform (measured there, not elsewhere)
        self.builtins = BuiltinNames(warp_uniform_builtins(self.block) if self.wgmma_accumulators else {})
        self._validate_names()

    # ------------------------------------------------------------ assembly
    def source(self) -> str:
        with builtin_names(self.builtins):
            for node in self.kernel.body:
                self._stmt(node)
        body = self.lines
        prologue = [f"{INDENT}const {self.index_ctype} {name} = {text};" for name, text in self.param_symbols.items()
                    if name in self.used_symbols]
        # a thread index the same in every lane of a warp, read by a shuffle so that ptxas knows it: what is
        # computed from it (a warp group's wgmma descriptors, its stage and barrier indices) stays in uniform registers
        prologue += [f"{INDENT}const unsigned {self.builtins.names[b]} = __shfl_sync(0xffffffffu, {b}, 0);"
                     for b in sorted(self.builtins.used)]
        if self.uses_smem:
            prologue.append(f"{INDENT}extern __shared__ __align__({smem_base_align()}) char smem[];")
        k = self.kernel
        header = [
            f"// Kernel {k.name}: generated by codegen.to_cuda for {current_target().arch}.",
            (f"// Launch: grid ({', '.join(str(g) for g in k.grid)}), block ({', '.join(str(b) for b in k.block)}),"
             f" dynamic shared memory {k.smem_bytes} bytes."),
        ]
        if k.cluster_dims != (1, 1, 1):
            header.append(f"// Clusters of ({', '.join(map(str, k.cluster_dims))}) blocks (__cluster_dims__): the grid is "
                          f"a multiple of them.")
        parts = [
            "\n".join(header),
            (helpers_source(self.helpers) + wrappers_source(self.wgmma_shapes)).rstrip("\n"),
            self._signature() + " {\n" + "\n".join(prologue + ([""] if prologue and body else []) + body) + "\n}",
        ]
        return "\n\n".join(parts) + "\n"

    def _signature(self) -> str:
        params = [f"Tensor<{b.dtype.ctype}, {len(b.shape)}> {b.name}" for b in self.kernel.params]
        params += [f"const __grid_constant__ TensorMap {t.name}" for t in self.kernel.tensor_maps]
        params += [f"{s.param_dtype.ctype} {s.name}" for s in self.kernel.scalars]
        bounds = self._launch_bounds()
        qualifier = f"__launch_bounds__({bounds}) " if bounds else ""
        if self.kernel.cluster_dims != (1, 1, 1):
            qualifier = f"__cluster_dims__({', '.join(map(str, self.kernel.cluster_dims))}) " + qualifier
        return f'extern "C" __global__ void {qualifier}{self.kernel.name}({", ".join(params)})'

    def _launch_bounds(self) -> str:
        threads = self.kernel.launch_bounds
        if threads is None and all(b is not None for b in self.block):
            threads = self.block[0] * self.block[1] * self.block[2]  # type: ignore[operator]
        if threads is None:
            if self.uses_setmaxnreg:
                raise CodegenError(f"codegen: kernel {self.kernel.name} uses SetMaxNReg but has neither "
                                   f"launch_bounds nor a constant block size; ptxas ignores setmaxnreg "
                                   f"without a register cap at entry")
            return ""
        if self.kernel.min_blocks_per_sm != 1 and self.kernel.launch_bounds is not None and not self.uses_setmaxnreg:
            return f"{threads}, {self.kernel.min_blocks_per_sm}"
        if self.kernel.launch_bounds is not None or self.uses_setmaxnreg:
            return f"{threads}, 1"
        return str(threads)

    def _param_symbols(self) -> dict[str, str]:
        """Symbols bound from parameters: input extents, every stride, then output extents."""
        bound: dict[str, str] = {}
        for buf in self.kernel.inputs:
            for k, ext in enumerate(buf.shape):
                if ext.is_symbol:
                    bound.setdefault(str(ext.name), f"{buf.name}.size[{k}]")
        for buf in self.kernel.params:
            for k, stride in enumerate(buf.strides):
                if stride.is_symbol:
                    bound.setdefault(str(stride.name), f"{buf.name}.stride[{k}]")
        for buf in self.kernel.outputs:
            for k, ext in enumerate(buf.shape):
                if ext.is_symbol:
                    bound.setdefault(str(ext.name), f"{buf.name}.size[{k}]")
        return bound

    def _validate_names(self) -> None:
        names = [self.kernel.name] + list(self.params) + list(self.tensor_maps) + [s.name for s in self.kernel.scalars]
        taken = set(names) & set(self.builtins.names.values())
        if taken:
            raise CodegenError(f"codegen: {sorted(taken)} name a warp-uniform thread index of the generated code; "
                               f"rename the kernel, tensor or scalar")
        for name in names:
            if not _IDENTIFIER.match(name) or keyword.iskeyword(name):
                raise CodegenError(f"codegen: {name!r} is not a valid C identifier")

    # ------------------------------------------------------------ emission helpers
    def _emit(self, line: str) -> None:
        self.lines.append(INDENT * self.depth + line)

    def _block(self, opener: str, body: tuple[Node, ...], scope: _Scope | None = None) -> None:
        self._emit(opener + " {")
        self._nested(body, scope)
        self._emit("}")

    def _nested(self, body: tuple[Node, ...], scope: _Scope | None = None) -> None:
        self.depth += 1
        self.scopes.append(scope if scope is not None else _Scope())
        for node in body:
            self._stmt(node)
        self.scopes.pop()
        self.depth -= 1

    def _idx(self, v: Val, where: object) -> str:
        self._check_symbols(v, where)
        return index_expr(v, self.index_ctype)

    def _cond(self, v: Val, where: object) -> str:
        self._check_symbols(v, where)
        return cond_expr(v, self.index_ctype)

    def _check_symbols(self, v: Val, where: object) -> None:
        """Note the parameter symbols ``v`` reads (``verify`` has checked every symbol is bound)."""
        self.used_symbols.update(name for name in v.symbols() if name in self.param_symbols)

    def _access(self, buf: Buffer, index: str, where: object = None) -> str:
        if buf.memory == MemoryType.Global:
            return f"{buf.name}.data[{index}]"
        return f"{buf.name}[{index}]"

    def _value(self, value: object, where: object, want: DataType | None = None) -> str:
        for v in _index_vals(value):
            self._check_symbols(v, where)
        return value_expr(value, lambda buf, idx: self._access(buf, self._idx(idx, where), where),  # type: ignore[arg-type]
                          want)

    def _smem_address(self, buf: Buffer, index: Val, where: object, what: str) -> str:
        self.helpers.add("smem")
        return f"toSmem(&{self._access(buf, self._idx(index, where), where)})"

    def _mbarrier(self, buf: Buffer, index: Val, where: object) -> str:
        self.helpers.add("mbarrier")
        return self._smem_address(buf, index, where, "mbarrier")

    # ------------------------------------------------------------ statements
    def _stmt(self, node: Node) -> None:
        self.visit(node)

    def visit_Allocate(self, node: Allocate) -> None:
        buf = node.buffer
        if not _IDENTIFIER.match(buf.name):
            raise CodegenError(f"codegen: buffer name {buf.name!r} is not a valid C identifier")
        scope = self.scopes[-1]
        if buf.name not in self.referenced:
            # An unused declaration would be an nvcc warning; say what the lowering allocated instead.
            self._emit(f"// {buf.name} ({buf.memory.name}, {buf.size} x {buf.dtype.ctype}) is allocated but unused")
            scope.buffers[buf.name] = buf
            return
        if buf.memory == MemoryType.Local:
            size = buf.size.const_value()
            if size is None:
                raise CodegenError(f"codegen: Local buffer {buf.name} has non-constant size {buf.size}; "
                                   f"register arrays need a compile-time size")
            if buf.name in self.paired:
                held = "the A registers of wgmmas" if buf.name in self.operand_words else "written a pair at a time"
                self._emit(f"uint32_t {buf.name}_w[{size // 2}];  // {buf.name} in pairs: {held}")
                if buf.name in self.operand_words or buf.name in self.pairs.viewed:
                    view = f"reinterpret_cast<{buf.dtype.ctype}*>({buf.name}_w)"
                    self._emit(f"{buf.dtype.ctype}* const {buf.name} = {view};")
            else:
                self._emit(f"{buf.dtype.ctype} {buf.name}[{size}];")
        else:   # Shared: verify refuses Global allocations
            if smem_base_align() % buf.align:
                raise CodegenError(f"codegen: shared buffer {buf.name} needs {buf.align}-byte alignment; dynamic shared "
                                   f"memory starts {smem_base_align()}-byte aligned")
            offset = self.layout.offsets[buf.name]
            off = offset.const_value()
            if off is not None and off % buf.align != 0:   # codegen's own placement of unplaced buffers
                raise CodegenError(f"codegen: shared buffer {buf.name} at byte offset {off} is not aligned "
                                   f"to {buf.align} bytes")
            self.uses_smem = True
            address = "smem" if off == 0 else f"smem + {self._idx(offset, node)}"
            self._emit(f"{buf.dtype.ctype}* {buf.name} = reinterpret_cast<{buf.dtype.ctype}*>({address});")
        scope.buffers[buf.name] = buf

    def visit_Assign(self, node: Assign) -> None:
        if id(node) in self.pairs.seconds:      # written with the first of its pair
            return
        second = self.pairs.second_of.get(id(node))
        if second is not None:
            self._packed_pair(node, second)
            return
        lhs = self._access(node.buffer, self._idx(node.index, node), node)
        if node.vector > 1:
            self._vector_assign(node, lhs)
            return
        value = node.value
        if node.reduce_op is not None:
            op = _REDUCE_TO_BINARY[node.reduce_op]
            value = BinaryValue(op, Load(node.buffer, node.index), value, node.buffer.dtype)
        self._emit(f"{lhs} = {self._value(value, node, node.buffer.dtype)};")

    def _vector_assign(self, node: Assign, lhs: str) -> None:
        converts = isinstance(node.value, CastValue) and node.value.dtype == node.buffer.dtype
        src = node.value.x if converts else node.value
        assert isinstance(src, Load)   # verify: a vector copy copies a Load
        nbytes = node.vector * node.buffer.dtype.size
        vtype = _VECTOR_TYPES.get((node.buffer.dtype == DataType.Float, nbytes))
        if vtype is None:
            raise CodegenError(f"codegen: {_describe(node)} moves {nbytes} bytes; one vector access moves "
                               f"4, 8 or 16 bytes")
        ctype = node.buffer.dtype.ctype
        if node.valid is not None:
            self._misaligned_assign(node, lhs, src, nbytes)
            return
        if not converts and src.buffer.memory != MemoryType.Local:
            rhs = self._access(src.buffer, self._idx(src.index, node), node)
            if node.buffer.memory != MemoryType.Local:
                self._emit(f"*reinterpret_cast<{vtype}*>(&{lhs}) = *reinterpret_cast<const {vtype}*>(&{rhs});")
                return
            # into registers: one vector load, then its elements by value (taking the address of a
            # register array or of the vector would move it to local memory)
            self._emit("{")
            self._emit(f"  const {vtype} vec = *reinterpret_cast<const {vtype}*>(&{rhs});")
            for e in range(node.vector):
                dst = self._access(node.buffer, self._idx(node.index + e, node), node)
                self._emit(f"  {dst} = {_vector_element('vec', vtype, ctype, node.buffer.dtype.size, e)};")
            self._emit("}")
            return
        # From registers or converting: the elements by value, packed into one vector value, stored at once.
        elements = []
        for e in range(node.vector):
            element = Load(src.buffer, src.index + e)
            value = CastValue(element, node.buffer.dtype) if converts else element
            elements.append(self._value(value, node, node.buffer.dtype))
        self._emit(f"*reinterpret_cast<{vtype}*>(&{lhs}) = {_vector_value(vtype, node.buffer.dtype.size, elements)};")

    def _misaligned_assign(self, node: Assign, lhs: str, src: Load, nbytes: int) -> None:
        """A misaligned vector (``Assign.valid``): ``copyMisaligned`` reads the aligned chunks that hold the valid
        elements and shifts them into place; ``valid``'s conditions are the bits of its mask."""
        self.helpers.add("misaligned")
        conds = [_conjuncts(c) for c in node.valid or ()]
        common = [c for c in conds[0] if all(c in other for other in conds[1:])] if conds else []
        bits = []
        for e, terms in enumerate(conds):
            cond = all_of([c for c in terms if c not in common])
            known = cond.const_value()
            if known == 0:
                continue
            bits.append(f"{1 << e}u" if known is not None else f"(({self._cond(cond, node)}) ? {1 << e}u : 0u)")
        mask = " | ".join(bits) if bits else "0u"
        if common and bits:
            mask = f"({self._cond(all_of(common), node)}) ? ({mask}) : 0u"
        rhs = self._access(src.buffer, self._idx(src.index, node), node)
        self._emit(f"copyMisaligned<{nbytes}, {node.buffer.dtype.size}>(&{lhs}, &{rhs}, {mask});")

    def _packed_pair(self, first: Assign, second: Assign) -> None:
        """Elements ``2 j`` and ``2 j + 1`` as one word: ``T_w[j] = reluPair<T>(lo, hi)`` (``packed_pairs``)."""
        buf = first.buffer
        self._register_index(buf, first.index, f"codegen: the pair of {buf.name} written at {first.index}")
        lo, hi = (self._value(packed_pairs.relu_of(s.value), s, DataType.Float) for s in (first, second))
        word = self._idx(first.index // 2, first)
        self.helpers.add("packed_relu")
        self._emit(f"{buf.name}_w[{word}] = {packed_pairs.FUNCTIONS[buf.dtype]}({lo}, {hi});")

    def visit_BlockReduce(self, node: BlockReduce) -> None:
        op = _BLOCK_REDUCE_OPS[node.op]
        dims = set(node.dims)
        # The reduction runs in the result buffer's type; the workspace is raw storage with one
        # slot per thread, at least as wide as that type (the lowering uses 8-byte slots).
        dtype = node.buffer.dtype
        ws = node.workspace
        self.helpers.add("block_reduce")
        flags = ", ".join("true" if p in dims else "false" for p in _THREAD_DIMS)
        if all(b is not None for b in self.block):
            # constant block extents let the helper pick its path and fold its lane arithmetic at compile time
            flags += ", " + ", ".join(str(b) for b in self.block)
        lhs = self._access(node.buffer, self._idx(node.index, node), node)
        workspace = ws.name if ws.dtype == dtype else f"reinterpret_cast<{dtype.ctype}*>({ws.name})"
        value = self._value(node.value, node, dtype)
        barrier = ""
        if node.barrier is not None:
            bar = node.barrier
            barrier = f", {self._idx(bar.id, node)}, {self._idx(bar.threads, node)}"
        self._emit(f"{lhs} = blockAllReduce<{flags}>({value}, {workspace}, {op}(){barrier});")

    def visit_WarpShuffleXor(self, node: WarpShuffleXor) -> None:
        op = _BLOCK_REDUCE_OPS[node.op]
        self.helpers.add("block_reduce")       # warpShflXor and the combine functors
        at = self._access(node.buffer, self._idx(node.index, node), node)
        self._emit(f"{at} = {op}()({at}, warpShflXor({at}, {node.lane_mask}u));")

    def visit_ForLoop(self, node: ForLoop) -> None:
        name = str(node.index.name)
        if not _IDENTIFIER.match(name):
            raise CodegenError(f"codegen: loop index {name} of {_describe(node)} is not a C identifier")
        step_value = node.step.const_value()
        comment = _loop_comment(node)
        if comment:
            self._emit(f"// {comment}")
        pragma = _unroll_pragma(node)
        if pragma:
            self._emit(pragma)
        start = self._idx(node.start, node)
        stop = self._idx(node.stop, node)
        step = f"++{name}" if step_value == 1 else f"{name} += {self._idx(node.step, node)}"
        unrolled = None
        bounds = (node.start.const_value(), node.stop.const_value(), step_value)
        if pragma == "#pragma unroll" and None not in bounds:
            unrolled = range(*bounds)  # type: ignore[arg-type]
        self._block(f"for ({self.index_ctype} {name} = {start}; {name} < {stop}; {step})", node.body,
                    _Scope(loop_index=name, unrolled=unrolled))

    def visit_IfThenElse(self, node: IfThenElse) -> None:
        cond = self._cond(node.cond, node)
        self._block(f"if ({cond})", node.then_body)
        if node.else_body:
            self.lines[-1] += " else {"
            self._nested(node.else_body)
            self._emit("}")

    def visit_ElectSync(self, node: ElectSync) -> None:
        """The elected thread is lane 0 of the warp: a plain thread-index test, not ``elect.sync``.

        ``verify`` lets an ``ElectSync`` run only where its whole warp arrives, so lane 0 is there, and it is the
        lane ``elect.sync`` would pick from the converged warp. The test keeps what the compute warp groups
        compute warp-uniform: with ``elect.sync`` in a persistent tile loop, ptxas built the mainloop's wgmma
        descriptors in per-thread registers and moved them to uniform ones before every wgmma (``docs/matmul.md``,
        "The elected thread").
        """
        self._check_symbols(node.warp, node)
        self._block(f"if ({self._leader_predicate(node.warp)})", node.body)

    def _leader_predicate(self, warp: Val) -> str:
        """The condition selecting lane 0 of warp ``warp`` (linear thread index // 32) of the block.

        With a constant block whose x extent is a multiple of 32 it tests each thread index
        (``threadIdx.x == 32 && threadIdx.y == 2``); otherwise it tests the linear index.
        """
        bx, by, bz = self.block
        w = warp.const_value()
        if w is not None and by == 1 and bz == 1:
            return f"threadIdx.x == {w * 32}"
        if w is not None and bx is not None and bx % 32 == 0 and by is not None and bz is not None:
            per_row = bx // 32
            x_warp, y, z = w % per_row, w // per_row % by, w // (per_row * by)
            terms = [f"threadIdx.x == {x_warp * 32}"]
            if by != 1:
                terms.append(f"{builtin('threadIdx.y')} == {y}")
            if bz != 1:
                terms.append(f"{builtin('threadIdx.z')} == {z}")
            return " && ".join(terms)
        dx = Val.const(bx) if bx is not None else Val.symbol("blockDim.x")
        dy = Val.const(by) if by is not None else Val.symbol("blockDim.y")
        linear = Val.symbol("threadIdx.x")
        if by != 1:
            linear = linear + Val.symbol("threadIdx.y") * dx
        if bz != 1:
            linear = linear + Val.symbol("threadIdx.z") * dx * dy
        return index_expr(linear.eq(warp * 32), self.index_ctype)

    def visit_BlockSync(self, node: BlockSync) -> None:
        self._emit("__syncthreads();" + (f"  // {node.reason}" if node.reason else ""))

    def visit_NamedBarrier(self, node: NamedBarrier) -> None:
        """``bar.sync`` (``bar.arrive`` where the node does not wait); a non-constant id (``1 + threadIdx.y``: a barrier per warp group) is computed at
        run time (``verify`` range-checks a constant one)."""
        self.helpers.add("named_barrier")
        count = self._idx(node.threads, node)
        call = "namedBarrierSync" if node.wait else "namedBarrierArrive"
        self._emit(f"{call}({self._idx(node.id, node)}, {count});"
                   + (f"  // {node.reason}" if node.reason else ""))

    def visit_Let(self, node: Let) -> None:
        name = node.name
        if not _IDENTIFIER.match(name):
            raise CodegenError(f"codegen: Let {name} is not a C identifier")
        self._emit(f"const {self.index_ctype} {name} = {self._idx(node.value, node)};")
        self.scopes[-1].lets.add(name)

    def visit_Discard(self, node: Discard) -> None:
        """No instruction: the registers get undefined values, so nvcc keeps nothing alive up to their next write
        (``wgmma::discard``; a float wgmma accumulator, ``verify``)."""
        self.helpers.add("wgmma")
        self._emit(f"wgmma::discard({node.buffer.name});  // written by its first wgmmas (scale-d 0), not zeroed")

    def visit_Comment(self, node: Comment) -> None:
        for line in node.text.splitlines() or [""]:
            self._emit(f"// {line}".rstrip())

    def visit_MBarrierInit(self, node: MBarrierInit) -> None:
        mbar = self._mbarrier(node.mbar, node.index, node)
        self._emit(f"mbarrier::init({mbar}, {self._idx(node.count, node)});")

    def visit_MBarrierInval(self, node: MBarrierInval) -> None:
        self._emit(f"mbarrier::inval({self._mbarrier(node.mbar, node.index, node)});")

    def visit_MBarrierArrive(self, node: MBarrierArrive) -> None:
        self._emit(f"mbarrier::arrive({self._mbarrier(node.mbar, node.index, node)});")

    def visit_MBarrierRemoteArrive(self, node: MBarrierRemoteArrive) -> None:
        self.helpers.add("cluster")
        mbar = self._mbarrier(node.mbar, node.index, node)
        self._emit(f"cluster::arriveRemote({mbar}, {self._idx(node.cta, node)});")

    def visit_ClusterSync(self, node: ClusterSync) -> None:
        self.helpers.add("cluster")
        if node.fence_init:
            self._emit("cluster::fenceMBarrierInit();")
        self._emit("cluster::sync();" + (f"  // {node.reason}" if node.reason else ""))

    def visit_MBarrierArriveExpectTx(self, node: MBarrierArriveExpectTx) -> None:
        call = f"mbarrier::arriveExpectTx({self._mbarrier(node.mbar, node.index, node)}, " \
               f"{self._idx(node.tx_bytes, node)})"
        if node.token is None:
            self._emit(f"{call};")
            return
        assert node.token_index is not None   # verify: a token is stored with its index
        self._emit(f"{self._access(node.token, self._idx(node.token_index, node), node)} = {call};")

    def visit_MBarrierWait(self, node: MBarrierWait) -> None:
        token = self._access(node.token, self._idx(node.token_index, node), node)
        self._emit(f"mbarrier::wait({self._mbarrier(node.mbar, node.index, node)}, {token});")

    def visit_MBarrierWaitParity(self, node: MBarrierWaitParity) -> None:
        mbar = self._mbarrier(node.mbar, node.index, node)
        self._emit(f"mbarrier::waitParity({mbar}, {self._idx(node.parity, node)});")

    def _tensor_map(self, node: TmaLoad | TmaStore, smem: Buffer) -> str:
        self.helpers.add("tma")
        return f"&{node.tensor_map.name}"

    def _coords(self, node: TmaLoad | TmaStore) -> str:
        # Kernel IR lists coordinates outermost first; PTX wants innermost first.
        return ", ".join(self._idx(c, node) for c in reversed(node.coords))

    def visit_TmaLoad(self, node: TmaLoad) -> None:
        tmap = self._tensor_map(node, node.dst)
        dst = self._smem_address(node.dst, node.dst_index, node, "destination")
        mbar = self._mbarrier(node.mbar, node.mbar_index, node)
        if node.multicast is not None:
            self.helpers.add("cluster")
            mask = f"{node.multicast:#x}" if isinstance(node.multicast, int) else \
                f"(uint16_t)({self._idx(node.multicast, node)})"
            self._emit(f"Hopper::cpAsyncBulkTensorTileG2SMulticast({dst}, {tmap}, {mbar}, {mask}, "
                       f"{self._coords(node)});")
            return
        self._emit(f"Hopper::cpAsyncBulkTensorTileG2S({dst}, {tmap}, {mbar}, {self._coords(node)});")

    def visit_TmaStore(self, node: TmaStore) -> None:
        tmap = self._tensor_map(node, node.src)
        src = self._smem_address(node.src, node.src_index, node, "source")
        self._emit(f"Hopper::cpAsyncBulkTensorTileS2G({tmap}, {src}, {self._coords(node)});")

    def visit_CpAsync(self, node: CpAsync) -> None:
        nbytes = node.vector * node.dst.dtype.size
        self.helpers.add("cp_async")
        dst = self._smem_address(node.dst, node.dst_index, node, "destination")
        index = self._idx(node.src_index, node)
        if node.pred is None:
            self._emit(f"cpAsync<{nbytes}>({dst}, &{self._access(node.src, index, node)}, true);")
            return
        # a zero-filling copy reads no source bytes, but its address stays inside the tensor all the same
        pred = self._cond(node.pred, node)
        self._emit(f"cpAsync<{nbytes}>({dst}, &{self._access(node.src, f'({pred}) ? ({index}) : 0', node)}, {pred});")

    def visit_AsyncCommit(self, node: AsyncCommit) -> None:
        if node.kind is AsyncKind.CpAsync:
            self.helpers.add("cp_async")
            self._emit("cpAsyncCommitGroup();")
        elif node.kind is AsyncKind.Bulk:
            self.helpers.add("tma")
            self._emit("Hopper::cpAsyncBulkCommitGroup();")
        else:   # wgmma: verify admits no other kind
            self.helpers.add("wgmma")
            self._emit("wgmma::commit();")

    def visit_AsyncWait(self, node: AsyncWait) -> None:
        if node.kind is AsyncKind.CpAsync:
            self.helpers.add("cp_async")
            self._emit(f"cpAsyncWaitGroup<{node.pending}>();")
        elif node.kind is AsyncKind.Bulk:
            self.helpers.add("tma")
            wait = "cpAsyncBulkWaitGroupRead" if node.read else "cpAsyncBulkWaitGroup"
            self._emit(f"Hopper::{wait}<{node.pending}>();")
        else:   # wgmma: verify admits no other kind
            self.helpers.add("wgmma")
            self._emit(f"wgmma::wait<{node.pending}>();")
            self._fence_accumulators(self.fence_sets.get(id(node)))

    def visit_FenceAsyncProxy(self, node: FenceAsyncProxy) -> None:
        self.helpers.add("fence")
        self._emit("fenceAsyncProxy();")

    def visit_GridFence(self, node: GridFence) -> None:
        self.helpers.add("grid_sync")
        self._emit("gridFence();")

    def visit_SemaphoreArrive(self, node: SemaphoreArrive) -> None:
        name = node.name
        if not _IDENTIFIER.match(name):
            raise CodegenError(f"codegen: SemaphoreArrive {name} is not a C identifier")
        self.helpers.add("grid_sync")
        first = " && ".join(f"{builtin(axis)} == 0" for axis, n in zip(("threadIdx.x", "threadIdx.y", "threadIdx.z"),
                                                               self.block) if n != 1) or "true"
        address = f"&{self._access(node.semaphore, self._idx(node.index, node), node)}"
        arrive = f"semaphoreArrive({address}, {self._idx(node.arrivals, node)}, {first})"
        if node.barrier is not None:       # in a warp-split branch: bar.red.or over the branch's threads
            arrive = (f"semaphoreArriveNamed({address}, {self._idx(node.arrivals, node)}, {first}, "
                      f"{self._idx(node.barrier.id, node)}, {self._idx(node.barrier.threads, node)})")
        if node.skip is not None:      # a block that does not arrive is the last at once
            arrive = f"({self._idx(node.skip, node)}) ? 1 : {arrive}"
        self._emit(f"const {self.index_ctype} {name} = {arrive};")
        self.scopes[-1].lets.add(name)

    def visit_SetMaxNReg(self, node: SetMaxNReg) -> None:
        self.helpers.add("setmaxnreg")
        self.uses_setmaxnreg = True
        self._emit(f"{'increaseRegisters' if node.increase else 'decreaseRegisters'}<{node.count}>();")

    def visit_Return(self, node: Return) -> None:
        self._emit("return;")

    def visit_Continue(self, node: Continue) -> None:
        self._emit("continue;")

    # ------------------------------------------------------------ wgmma
    def visit_WgmmaFence(self, node: WgmmaFence) -> None:
        self.helpers.add("wgmma")
        for buf in node.registers:
            self._pack_register_operand(buf, node)
        self._fence_accumulators(self.fence_sets.get(id(node)))
        self._emit("wgmma::fence();")

    def _pack_register_operand(self, buf: Buffer, node: WgmmaFence) -> None:
        """The 32-bit A registers of the wgmmas after the fence, formed from ``buf``'s 16-bit pairs (low half
        first) before it: the wgmmas read registers no instruction writes between the fence and them."""
        size = buf.size.const_value()
        if size is None or size % 2:
            raise CodegenError(f"codegen: wgmma.fence names {buf.name} as a register A operand; its size {buf.size} "
                               f"must be a constant number of 16-bit pairs")
        if buf.name in self.paired:     # held in pairs already: its words are the A registers
            words = f"{buf.name}_w"
            if not any(words in sc.register_words for sc in self.scopes):
                self.scopes[-1].register_words.append(words)
            self.register_words[buf.name] = words
            return
        words = f"{buf.name}_a{sum(w.startswith(buf.name + '_a') for s in self.scopes for w in s.register_words)}"
        pair = [self._access(buf, f"2 * q + {e}" if e else "2 * q", node) for e in (0, 1)]
        self._emit(f"uint32_t {words}[{size // 2}];  // {buf.name} in pairs: the A registers of the wgmmas below")
        self._emit("#pragma unroll")
        self._emit(f"for (int q = 0; q < {size // 2}; ++q) {{")
        self._emit(f"{INDENT}{words}[q] = {_vector_value('uint32_t', 2, pair)};")
        self._emit("}")
        self.scopes[-1].register_words.append(words)
        self.register_words[buf.name] = words

    def _fence_accumulators(self, only: frozenset[str] | None = None) -> None:
        """``wgmma::fenceOperands`` on every wgmma accumulator array in scope (``only`` those, when given: the
        accumulators of the run a fence or wait is for), and every register A operand's packed words: ordinary
        register accesses stay on their side of a ``wgmma.fence`` or ``wgmma.wait_group``. The words come first:
        the 16-bit elements they are packed from are dead before the accumulators (zeroed just before a run) are
        held in registers."""
        for words in (w for s in self.scopes for w in s.register_words):
            self._emit(f"wgmma::fenceOperands({words});")
        for name in self.wgmma_accumulators:
            if only is not None and name not in only:
                continue    # not the run's: fencing it would keep a finished accumulator alive across it
            buf = next((s.buffers[name] for s in reversed(self.scopes) if name in s.buffers), None)
            if buf is not None and buf.memory == MemoryType.Local and buf.name in self.referenced:
                self._emit(f"wgmma::fenceOperands({name});")

    def visit_Mma(self, node: Mma) -> None:
        shape = self._wgmma_shape(node)
        acc = self._accumulator(node, shape)
        desc_b = self._descriptor(node, node.b, "B")
        self.helpers.add("wgmma")
        self.wgmma_shapes.add(shape)
        # scale-d: the wrapper's default (1, add) unless the wgmma writes its registers in some iterations
        last = desc_b if node.accumulate is None else f"{desc_b}, {self._cond(node.accumulate, node)}"
        if isinstance(node.a, RegisterFragment):
            self._emit(f"{shape.callee(False, node.b.mn_major)}({acc},")
            for word in self._register_operand(node, node.a):
                self._emit(f"{INDENT * 2}{word},")
            self._emit(f"{INDENT * 2}{last});")
            return
        desc_a = self._descriptor(node, node.a, "A")
        self._emit(f"{shape.callee(node.a.mn_major, node.b.mn_major)}({acc},")
        self._emit(f"{INDENT * 2}{desc_a},")
        self._emit(f"{INDENT * 2}{last});")

    def _register_operand(self, node: Mma, frag: RegisterFragment) -> list[str]:
        """The four 32-bit words of a register A operand: those its wgmma.fence packed, or its 16-bit elements
        packed in pairs here, low half first (``verify`` has checked the array and its range)."""
        buf = frag.buffer
        self._register_index(buf, frag.index, f"codegen: Mma {node.shape} into {node.acc.name}, A from {buf.name}")
        words = self.register_words.get(buf.name)
        if words is not None and any(words in s.register_words for s in self.scopes):
            return [f"{words}[{self._idx(frag.index // 2 + q, node)}]" for q in range(4)]
        elements = [self._access(buf, self._idx(frag.index + e, node), node) for e in range(8)]
        return [_vector_value("uint32_t", 2, elements[e:e + 2]) for e in range(0, 8, 2)]

    def _wgmma_shape(self, node: Mma) -> WgmmaShape:
        """The wrapper the Mma calls (``verify`` has checked its shape and operand type)."""
        return WgmmaShape(node.shape[1], node.dtype, isinstance(node.a, RegisterFragment))

    def _accumulator(self, node: Mma, shape: WgmmaShape) -> str:
        """``&T3[i]``: the first of the Mma's accumulator registers, checked to stay in registers."""
        acc = node.acc
        self._register_index(acc, node.acc_index, f"codegen: Mma {node.shape} into {acc.name}")
        return f"&{acc.name}[{self._idx(node.acc_index, node)}]"

    def _register_index(self, buf: Buffer, index: Val, what: str) -> None:
        """A register index is a constant once the enclosing loops are unrolled (fully unrolled loops with
        constant bounds), or nvcc moves the register array ``buf`` to local memory. (``verify`` has checked
        the registers lie in ``buf``.)"""
        unrolled = {s.loop_index: s.unrolled for s in self.scopes if s.loop_index is not None}
        dynamic = sorted(name for name in index.symbols() if unrolled.get(name) is None)
        if dynamic:
            raise CodegenError(f"{what}: register index {index} depends on {', '.join(dynamic)}; it must "
                               f"be a constant once the enclosing loops are unrolled (indices of fully unrolled "
                               f"loops with constant bounds only), or nvcc moves {buf.name} to local memory")

    def _descriptor(self, node: Mma, desc: MatrixDescriptor, which: str) -> str:
        """``wgmma::smemDescriptor(toSmem(&T4[offset]), lbo, sbo, mode)`` for operand ``which``."""
        address = self._smem_address(desc.buffer, desc.offset, node, f"wgmma operand {which}")
        return (f"wgmma::smemDescriptor({address}, {desc.leading_bytes}, {desc.stride_bytes}, "
                f"{DESCRIPTOR_MODES[desc.swizzle]})")

    # ------------------------------------------------------------ stmatrix
    def visit_StMatrix(self, node: StMatrix) -> None:
        """``stmatrixX{count}(toSmem(&dst[dst_index]), r0, ...)`` (``stmatrixX{count}Trans`` for ``.trans``): this
        lane's row address and its
        ``count`` registers, each two 16-bit elements of ``src`` packed by value (low half first).
        (``verify`` has checked the count, memories, types and alignment.)"""
        dst, src = node.dst, node.src
        self._register_index(src, node.src_index, f"codegen: StMatrix from {src.name} into {dst.name}")
        registers = 2 * node.count
        address = self._smem_address(dst, node.dst_index, node, "destination")
        if src.name in self.paired:     # held as words: each register is one
            words = [f"{src.name}_w[{self._idx(node.src_index // 2 + q, node)}]" for q in range(node.count)]
        else:
            elements = [self._access(src, self._idx(node.src_index + e, node), node) for e in range(registers)]
            words = [_vector_value("uint32_t", 2, elements[e:e + 2]) for e in range(0, registers, 2)]
        self.helpers.add("stmatrix_trans" if node.trans else "stmatrix")
        self._emit(f"stmatrixX{node.count}{'Trans' if node.trans else ''}({address},")
        for k, word in enumerate(words):
            self._emit(f"{INDENT * 2}{word}{');' if k == len(words) - 1 else ','}")

    def visit_LdMatrix(self, node: LdMatrix) -> None:
        """``ldmatrixX{count}(toSmem(&src[src_index]), w0, ...)`` into ``count`` 32-bit words of a scope of their
        own, each then split into two 16-bit elements of ``dst`` (low half first). (``verify`` has checked the
        count, memories, types and alignment.)"""
        dst, src = node.dst, node.src
        self._register_index(dst, node.dst_index, f"codegen: LdMatrix from {src.name} into {dst.name}")
        address = self._smem_address(src, node.src_index, node, "source")
        words = [f"{LDMATRIX_WORDS}[{k}]" for k in range(node.count)]
        self.helpers.add("ldmatrix")
        self._emit("{")
        self._emit(f"{INDENT}uint32_t {LDMATRIX_WORDS}[{node.count}];")
        self._emit(f"{INDENT}ldmatrixX{node.count}({address}, {', '.join(words)});")
        for e in range(2 * node.count):
            element = self._access(dst, self._idx(node.dst_index + e, node), node)
            half = f"{words[e // 2]} >> 16" if e % 2 else words[e // 2]
            self._emit(f"{INDENT}{element}.raw = static_cast<uint16_t>({half});")
        self._emit("}")


# ---------------------------------------------------------------- helpers
_COMPONENTS = ("x", "y", "z", "w")


def _paired_operands(body: tuple[Node, ...]) -> frozenset[str]:
    """The register arrays wgmmas read as their A operand (16-bit elements, a constant even count): declared as
    32-bit words with the 16-bit elements a view of them, so the conversions that write a pair form a word at once
    and the words need no packing before the wgmma.fence, however far from their writes it is (a deferred matmul's
    operand is written an iteration before its wgmmas)."""
    found = set()
    for x in walk(body):
        if isinstance(x, Mma) and isinstance(x.a, RegisterFragment):
            buf = x.a.buffer
            size = buf.size.const_value()
            if buf.memory is MemoryType.Local and buf.dtype.size == 2 and size is not None and size % 2 == 0:
                found.add(buf.name)
    return frozenset(found)


def _wgmma_fence_sets(body: tuple[Node, ...]) -> dict[int, frozenset[str]]:
    """For each ``WgmmaFence`` and wgmma ``AsyncWait`` (by ``id``), the accumulators of the wgmmas it is for: a
    fence's, those of the run after it (up to the commit); a wait's, those of the run since the last fence of its
    list, or with no fence since its list's previous wait, of the wgmmas in the statements since that wait (a loop
    of runs). Where none is found, every accumulator."""
    sets: dict[int, frozenset[str]] = {}

    def accumulators(nodes: list[Node]) -> frozenset[str]:
        return frozenset(x.acc.name for x in walk(tuple(nodes)) if isinstance(x, Mma))

    def visit(stmts: tuple[Node, ...]) -> None:
        since, fence = 0, -1
        for j, node in enumerate(stmts):
            if isinstance(node, WgmmaFence):
                fence = j
                end = next((e for e in range(j + 1, len(stmts)) if isinstance(stmts[e], AsyncCommit)), len(stmts))
                found = accumulators(list(stmts[j + 1:end]))
                if found:
                    sets[id(node)] = found
            elif isinstance(node, AsyncWait) and node.kind is AsyncKind.Wgmma:
                found = accumulators(list(stmts[max(since, fence + 1):j]))
                if found:
                    sets[id(node)] = found
                since = j + 1
            for _, sub in children(node):
                visit(sub)

    visit(body)
    return sets


def _conjuncts(cond: Val) -> list[Val]:
    """``a && b && ..`` as its terms (a condition that is no conjunction: itself)."""
    if cond.op == "and":
        return [t for arg in cond.args for t in _conjuncts(arg)]
    return [cond]


def _vector_value(vtype: str, element_bytes: int, elements: list[str]) -> str:
    """A vector value made of ``elements`` (C expressions), without taking any address."""
    if element_bytes == 4:
        if len(elements) == 1:
            return elements[0]
        if not vtype.startswith("float"):    # 32-bit integers in uint2 / uint4: the same bits
            elements = [f"static_cast<uint32_t>({e})" for e in elements]
        return f"{vtype}{{{', '.join(elements)}}}"
    if element_bytes == 2:   # pairs of 16-bit patterns in 32-bit words
        words = [f"(static_cast<uint32_t>(({elements[k]}).raw) | (static_cast<uint32_t>(({elements[k + 1]}).raw) << 16))"
                 for k in range(0, len(elements), 2)]
        return words[0] if len(words) == 1 else f"{vtype}{{{', '.join(words)}}}"
    raise CodegenError(f"codegen: no vector value of {len(elements)} x {element_bytes}-byte elements")


def _vector_element(vec: str, vtype: str, ctype: str, element_bytes: int, e: int) -> str:
    """Element ``e`` of vector ``vec`` as a ``ctype`` value."""
    if element_bytes == 4:
        word = vec if vtype in ("float", "uint32_t") else f"{vec}.{_COMPONENTS[e]}"
        return word if vtype.startswith("float") or ctype == "uint32_t" else f"static_cast<{ctype}>({word})"
    if element_bytes == 2:
        word = vec if vtype == "uint32_t" else f"{vec}.{_COMPONENTS[e // 2]}"
        return f"{ctype}{{static_cast<uint16_t>({word} >> {16 * (e % 2)})}}"
    raise CodegenError(f"codegen: no element of a vector of {element_bytes}-byte elements")


def _describe(node: object) -> str:
    if isinstance(node, Buffer):
        return node.name
    name = type(node).__name__
    for attr in ("buffer", "dst", "src", "mbar"):
        buf = getattr(node, attr, None)
        if isinstance(buf, Buffer):
            return f"{name} on {buf.name}"
    if isinstance(node, ForLoop):
        return f"loop {node.index} ({node.label})" if node.label else f"loop {node.index}"
    return name


def _referenced_buffers(body: tuple[Node, ...]) -> set[str]:
    """Names of buffers some node reads or writes (an ``Allocate`` alone does not count)."""
    return touched_names(walk(body))


def _index_vals(value: object) -> list[Val]:
    """Every index Val inside a value expression."""
    if isinstance(value, Load):
        return [value.index]
    if isinstance(value, ScalarValue):
        return [value.value]
    out: list[Val] = []
    for attr in ("x", "a", "b", "cond"):
        sub = getattr(value, attr, None)
        if sub is not None:
            out += _index_vals(sub)
    return out


def _loop_comment(node: ForLoop) -> str:
    if node.stage is not None and node.label:
        return f"{node.stage.value} loop of {node.label}"
    if node.stage is not None:
        return f"{node.stage.value} loop"
    return f"loop of {node.label}" if node.label else ""


def _unroll_pragma(node: ForLoop) -> str:
    if node.unroll is True or (node.vectorize and node.unroll is False):
        return "#pragma unroll"
    if node.unroll is not False and isinstance(node.unroll, int):
        return f"#pragma unroll {node.unroll}"
    if node.stage is not None:
        # A pipeline stage's loop stays rolled: unrolling it would multiply its waits and copies.
        return "#pragma unroll 1"
    return ""


def warp_uniform_builtins(block: tuple[int | None, ...]) -> dict[str, str]:
    """The thread indices that are the same in every lane of a warp, by the name the kernel reads them under.

    ``threadIdx.y`` where the block's x extent is a multiple of 32 (every warp lies in one row), ``threadIdx.z``
    where ``x * y`` is; each is read once, at entry, by ``__shfl_sync`` from lane 0 (``tidY``, ``tidZ``). ptxas
    cannot prove a builtin warp-uniform, but it can a shuffle's result, and keeps what is computed from it in
    uniform registers: as CUTLASS reads its warp group index. Nothing where the block is not constant.
    """
    bx, by, bz = block
    names: dict[str, str] = {}
    if bx is not None and bx % 32 == 0 and by is not None and by > 1:
        names["threadIdx.y"] = "tidY"
    if bx is not None and by is not None and (bx * by) % 32 == 0 and bz is not None and bz > 1:
        names["threadIdx.z"] = "tidZ"
    return names

