"""Kernel IR -> one self-contained CUDA C++ translation unit for sm_90a.

Conventions of the generated code (see also the ``*.cuh`` helpers pasted at the top):

- Signature: ``extern "C" __global__ void <name>(Tensor<T, N> T0, ..., const __grid_constant__
  TensorMap tmap_T0, ...)`` with ``kernel.inputs``, then ``kernel.outputs``, then
  ``kernel.tensor_maps``. A ``Tensor`` is the data pointer, N int64 sizes and N int64 element
  strides; a ``TensorMap`` is the 128-byte TMA descriptor, used through its address.
- Symbols: extents (``i0``) and strides (``T0_stride0``) are bound once at the top from the
  parameters (only those the body uses); loop indices are ``int64_t`` loop variables; CUDA
  builtins print as ``((int64_t)threadIdx.x)`` inside arithmetic.
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
from dataclasses import dataclass, field, fields, is_dataclass

from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType, ParallelType, SmemSwizzle
from lowering.kernel_ir import (
    Allocate,
    Assign,
    AsyncCommit,
    AsyncWait,
    BinaryValue,
    BlockReduce,
    BlockSync,
    Buffer,
    CastValue,
    Comment,
    Continue,
    CpAsync,
    ElectSync,
    FenceAsyncProxy,
    ForLoop,
    IfThenElse,
    Kernel,
    Let,
    Load,
    MatrixDescriptor,
    MBarrierArrive,
    MBarrierArriveExpectTx,
    MBarrierInit,
    MBarrierInval,
    MBarrierWait,
    MBarrierWaitParity,
    Mma,
    NamedBarrier,
    Node,
    NodeVisitor,
    Return,
    SetMaxNReg,
    StMatrix,
    TmaLoad,
    TmaStore,
    WgmmaFence,
    walk,
)
from lowering.effects import Proxy, effects, touched_names
from target import current as current_target

from .errors import CodegenError
from .expressions import BUILTIN_SYMBOLS, cond_expr, index_expr, value_expr
from .helpers import helpers_source
from .smem_layout import shared_memory_layout
from .wgmma import (
    DESCRIPTOR_MODES,
    WgmmaShape,
    wrappers_source,
)

INDENT = "  "
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_REDUCE_TO_BINARY = {"add": "add", "sub": "sub", "mul": "mul", "max": "maximum", "min": "minimum"}
_BLOCK_REDUCE_OPS = {"add": "ReduceAdd", "max": "ReduceMax"}
_VECTOR_TYPES = {  # (is float32, bytes) -> C type of one vector access
    (True, 16): "float4", (True, 8): "float2", (True, 4): "float",
    (False, 16): "uint4", (False, 8): "uint2", (False, 4): "uint32_t", (False, 2): "uint16_t",
}
_THREAD_DIMS = {ParallelType.TIDx: "x", ParallelType.TIDy: "y", ParallelType.TIDz: "z"}
MAX_UNROLLED_POINTS = 1 << 16   # index combinations enumerated to bound an Mma's accumulator registers
STMATRIX_COUNTS = (1, 2, 4)      # 8 x 8 matrices per stmatrix (.x1, .x2, .x4)
STMATRIX_TYPES = (DataType.BFloat16, DataType.Half)   # 16-bit storage structs with a uint16_t raw field
STMATRIX_ROW_BYTES = 16          # one 8-element row of 16-bit elements, at a 16-byte aligned address


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


class KernelPrinter(NodeVisitor):
    """Prints one kernel; a ``visit_<Node>`` method per kernel IR statement emits its lines."""

    backend = "codegen"
    missing_error = CodegenError

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.helpers: set[str] = {"types", "tensor"}
        self.layout = shared_memory_layout(kernel)
        self.uses_smem = False
        self.uses_setmaxnreg = False
        self.wgmma_shapes: set[WgmmaShape] = set()
        self.wgmma_accumulators = sorted({e.name for n in walk(kernel.body) for e in effects(n)
                                          if e.is_write and e.proxy is Proxy.Wgmma})
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
        self._validate_names()

    # ------------------------------------------------------------ assembly
    def source(self) -> str:
        for node in self.kernel.body:
            self._stmt(node)
        body = self.lines
        prologue = [f"{INDENT}const {self.index_ctype} {name} = {text};" for name, text in self.param_symbols.items()
                    if name in self.used_symbols]
        if self.uses_smem:
            prologue.append(f"{INDENT}extern __shared__ __align__({smem_base_align()}) char smem[];")
        k = self.kernel
        header = [
            f"// Kernel {k.name}: generated by codegen.to_cuda for {current_target().arch}.",
            (f"// Launch: grid ({', '.join(str(g) for g in k.grid)}), block ({', '.join(str(b) for b in k.block)}),"
             f" dynamic shared memory {k.smem_bytes} bytes."),
        ]
        parts = [
            "\n".join(header),
            (helpers_source(self.helpers) + wrappers_source(self.wgmma_shapes)).rstrip("\n"),
            self._signature() + " {\n" + "\n".join(prologue + ([""] if prologue and body else []) + body) + "\n}",
        ]
        return "\n\n".join(parts) + "\n"

    def _signature(self) -> str:
        params = [f"Tensor<{b.dtype.ctype}, {len(b.shape)}> {b.name}" for b in self.kernel.params]
        params += [f"const __grid_constant__ TensorMap {t.name}" for t in self.kernel.tensor_maps]
        bounds = self._launch_bounds()
        qualifier = f"__launch_bounds__({bounds}) " if bounds else ""
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
        names = [self.kernel.name] + list(self.params) + list(self.tensor_maps)
        for name in names:
            if not _IDENTIFIER.match(name) or keyword.iskeyword(name):
                raise CodegenError(f"codegen: {name!r} is not a valid C identifier")
        if len(set(names)) != len(names):
            raise CodegenError(f"codegen: kernel {self.kernel.name} has duplicate parameter names: {names}")
        for buf in self.kernel.params:
            if len(buf.strides) not in (0, len(buf.shape)):
                raise CodegenError(f"codegen: {buf.name} has {len(buf.shape)} extents but {len(buf.strides)} strides")

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
        loop_indices = {s.loop_index for s in self.scopes if s.loop_index is not None}
        lets = set().union(*(s.lets for s in self.scopes))
        for name in sorted(v.symbols()):     # the first unbound name in a defined order
            if name in BUILTIN_SYMBOLS or name in loop_indices or name in lets:
                continue
            if name in self.param_symbols:
                self.used_symbols.add(name)
                continue
            raise CodegenError(f"codegen: symbol {name} in {_describe(where)} is not bound: it is neither an "
                               f"extent or stride of a parameter, a CUDA builtin, an enclosing loop index, "
                               f"nor a Let before it")

    def _lookup(self, buf: Buffer, where: object) -> Buffer:
        if buf.memory == MemoryType.Global:
            if buf.name not in self.params:
                raise CodegenError(f"codegen: global buffer {buf.name} in {_describe(where)} is not a kernel "
                                   f"parameter; global workspaces are not supported")
            return buf
        for scope in reversed(self.scopes):
            if buf.name in scope.buffers:
                return scope.buffers[buf.name]
        raise CodegenError(f"codegen: {buf.name} is used in {_describe(where)} outside the scope of its Allocate")

    def _access(self, buf: Buffer, index: str, where: object = None) -> str:
        self._lookup(buf, where if where is not None else buf)
        if buf.memory == MemoryType.Global:
            return f"{buf.name}.data[{index}]"
        return f"{buf.name}[{index}]"

    def _value(self, value: object, where: object, want: DataType | None = None) -> str:
        for v in _index_vals(value):
            self._check_symbols(v, where)
        return value_expr(value, lambda buf, idx: self._access(buf, self._idx(idx, where), where),  # type: ignore[arg-type]
                          want)

    def _smem_address(self, buf: Buffer, index: Val, where: object, what: str) -> str:
        self._require_shared(buf, where, what)
        self.helpers.add("smem")
        return f"toSmem(&{self._access(buf, self._idx(index, where), where)})"

    def _require_shared(self, buf: Buffer, where: object, what: str) -> None:
        if buf.memory != MemoryType.Shared:
            raise CodegenError(f"codegen: {what} {buf.name} of {_describe(where)} must be in shared memory, "
                               f"not {buf.memory.name}")

    def _mbarrier(self, buf: Buffer, index: Val, where: object) -> str:
        if buf.dtype.size != 8:
            raise CodegenError(f"codegen: mbarrier buffer {buf.name} has {buf.dtype.size}-byte elements; "
                               f"mbarriers are 8 bytes (use Int64)")
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
        if buf.name in scope.buffers or buf.name in self.params:
            raise CodegenError(f"codegen: {buf.name} is allocated twice in the same scope")
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
            self._emit(f"{buf.dtype.ctype} {buf.name}[{size}];")
        elif buf.memory == MemoryType.Shared:
            if smem_base_align() % buf.align:
                raise CodegenError(f"codegen: shared buffer {buf.name} needs {buf.align}-byte alignment; dynamic shared "
                                   f"memory starts {smem_base_align()}-byte aligned")
            if buf.swizzle.span and buf.align % buf.swizzle.alignment:
                raise CodegenError(f"codegen: shared buffer {buf.name} has swizzle {buf.swizzle.name} but align "
                                   f"{buf.align}; a {buf.swizzle.name}-swizzled buffer starts on a "
                                   f"{buf.swizzle.alignment}-byte boundary")
            offset = self.layout.offsets[buf.name]
            off = offset.const_value()
            if off is not None and off % buf.align != 0:
                raise CodegenError(f"codegen: shared buffer {buf.name} at byte offset {off} is not aligned "
                                   f"to {buf.align} bytes")
            self.uses_smem = True
            address = "smem" if off == 0 else f"smem + {self._idx(offset, node)}"
            self._emit(f"{buf.dtype.ctype}* {buf.name} = reinterpret_cast<{buf.dtype.ctype}*>({address});")
        else:
            raise CodegenError(f"codegen: cannot allocate {buf.name} in global memory inside a kernel")
        scope.buffers[buf.name] = buf

    def visit_Assign(self, node: Assign) -> None:
        lhs = self._access(node.buffer, self._idx(node.index, node), node)
        if node.vector > 1:
            self._vector_assign(node, lhs)
            return
        value = node.value
        if node.reduce_op is not None:
            op = _REDUCE_TO_BINARY.get(node.reduce_op)
            if op is None:
                raise CodegenError(f"codegen: unknown reduce_op {node.reduce_op!r} in {_describe(node)}")
            value = BinaryValue(op, Load(node.buffer, node.index), value, node.buffer.dtype)
        self._emit(f"{lhs} = {self._value(value, node, node.buffer.dtype)};")

    def _vector_assign(self, node: Assign, lhs: str) -> None:
        converts = isinstance(node.value, CastValue) and node.value.dtype == node.buffer.dtype
        src = node.value.x if converts else node.value
        if not isinstance(src, Load) or node.reduce_op is not None:
            raise CodegenError(f"codegen: vectorized {_describe(node)} must copy a Load (or a cast of one to "
                               f"{node.buffer.dtype.name}) without reduce_op")
        if src.buffer.dtype != node.buffer.dtype and not converts:
            raise CodegenError(f"codegen: vectorized {_describe(node)} copies {src.buffer.dtype.name} "
                               f"into {node.buffer.dtype.name}")
        nbytes = node.vector * node.buffer.dtype.size
        vtype = _VECTOR_TYPES.get((node.buffer.dtype == DataType.Float, nbytes))
        if vtype is None:
            raise CodegenError(f"codegen: {_describe(node)} moves {nbytes} bytes; one vector access moves "
                               f"4, 8 or 16 bytes")
        ctype = node.buffer.dtype.ctype
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

    def visit_BlockReduce(self, node: BlockReduce) -> None:
        op = _BLOCK_REDUCE_OPS.get(node.op)
        if op is None:
            raise CodegenError(f"codegen: BlockReduce op {node.op!r} is not supported (add, max)")
        dims = set(node.dims)
        if not dims or not dims <= set(_THREAD_DIMS):
            raise CodegenError(f"codegen: BlockReduce reduces over thread dims only, got {node.dims}")
        # The reduction runs in the result buffer's type; the workspace is raw storage with one
        # slot per thread, at least as wide as that type (the lowering uses 8-byte slots).
        dtype = node.buffer.dtype
        ws = node.workspace
        self._require_shared(ws, node, "workspace")
        if ws.dtype.size < dtype.size:
            raise CodegenError(f"codegen: BlockReduce workspace {ws.name} has {ws.dtype.size}-byte slots for a "
                               f"{dtype.name} reduction")
        threads = _product(self.block) if node.barrier is None else node.barrier.threads.const_value()
        size = ws.size.const_value()
        if threads is not None and size is not None and size < threads:
            raise CodegenError(f"codegen: BlockReduce workspace {ws.name} has {size} slots for {threads} threads")
        self.helpers.add("block_reduce")
        flags = ", ".join("true" if p in dims else "false" for p in _THREAD_DIMS)
        lhs = self._access(node.buffer, self._idx(node.index, node), node)
        self._lookup(ws, node)
        workspace = ws.name if ws.dtype == dtype else f"reinterpret_cast<{dtype.ctype}*>({ws.name})"
        value = self._value(node.value, node, dtype)
        barrier = ""
        if node.barrier is not None:
            bar = node.barrier
            bid, last = bar.id.const_value(), current_target().max_named_barrier
            if bid is not None and not 1 <= bid <= last:
                raise CodegenError(f"codegen: BlockReduce into {node.buffer.name} names barrier {bar.id}; named "
                                   f"barriers are 1..{last}")
            barrier = f", {self._idx(bar.id, node)}, {self._idx(bar.threads, node)}"
        self._emit(f"{lhs} = blockAllReduce<{flags}>({value}, {workspace}, {op}(){barrier});")

    def visit_ForLoop(self, node: ForLoop) -> None:
        if not node.index.is_symbol:
            raise CodegenError(f"codegen: loop index {node.index} is not a symbol")
        name = str(node.index.name)
        outer = {s.loop_index for s in self.scopes}
        if name in outer or name in self.param_symbols or name in BUILTIN_SYMBOLS or not _IDENTIFIER.match(name):
            raise CodegenError(f"codegen: loop index {name} of {_describe(node)} shadows another symbol "
                               f"or is not a C identifier")
        step_value = node.step.const_value()
        if step_value is not None and step_value < 1:
            raise CodegenError(f"codegen: loop {name} has step {node.step}; steps are positive")
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
        self.helpers.add("elect")
        self._check_symbols(node.warp, node)
        warp = self._elect_warp_predicate(node.warp)
        elect = f"Hopper::electSync({self._elect_member_mask(node.warp)})"
        self._block(f"if ({warp} && {elect})" if warp else f"if ({elect})", node.body)

    def _elect_warp_predicate(self, warp: Val) -> str:
        """The condition selecting warp ``warp`` (linear thread index // 32) of the block.

        With a constant block whose x extent is a multiple of 32 it tests each thread index
        (``threadIdx.x / 32 == 1 && threadIdx.y == 2``); otherwise it tests the linear index. It is
        empty when the block is that one warp.
        """
        bx, by, bz = self.block
        threads = _product(self.block)
        w = warp.const_value()
        if w is not None and threads is not None and not 0 <= w * 32 < threads:
            raise CodegenError(f"codegen: ElectSync elects in warp {w}, but a block of {threads} threads has "
                               f"warps 0..{(threads - 1) // 32}")
        if w == 0 and threads is not None and threads <= 32:
            return ""
        if w is not None and by == 1 and bz == 1:
            return "threadIdx.x < 32" if w == 0 else f"threadIdx.x / 32 == {w}"
        if w is not None and bx is not None and bx % 32 == 0 and by is not None and bz is not None:
            per_row = bx // 32
            x_warp, y, z = w % per_row, w // per_row % by, w // (per_row * by)
            terms = ["threadIdx.x < 32" if x_warp == 0 else f"threadIdx.x / 32 == {x_warp}"]
            if by != 1:
                terms.append(f"threadIdx.y == {y}")
            if bz != 1:
                terms.append(f"threadIdx.z == {z}")
            return " && ".join(terms)
        dx = Val.const(bx) if bx is not None else Val.symbol("blockDim.x")
        dy = Val.const(by) if by is not None else Val.symbol("blockDim.y")
        linear = Val.symbol("threadIdx.x")
        if by != 1:
            linear = linear + Val.symbol("threadIdx.y") * dx
        if bz != 1:
            linear = linear + Val.symbol("threadIdx.z") * dx * dy
        if w == 0:
            return index_expr(linear.lt(32), self.index_ctype)
        return index_expr((linear // 32).eq(warp), self.index_ctype)

    def _elect_member_mask(self, warp: Val) -> str:
        """Every lane of the electing warp that exists, so elect.sync converges the whole warp first.

        (``__activemask()`` would name only the lanes that happen to be converged: a lane still
        finishing the previous elected block would elect a second thread.) The last warp of a
        block whose size is not a multiple of 32 has fewer lanes.
        """
        threads = _product(self.block)
        w = warp.const_value()
        if threads is not None and w is not None:
            lanes = threads - w * 32
            return "0xffffffffu" if lanes >= 32 else f"{(1 << lanes) - 1:#x}u"
        total = Val.symbol("blockDim.x") * Val.symbol("blockDim.y") * Val.symbol("blockDim.z")
        return f"Hopper::laneMask({index_expr(total - warp * 32, self.index_ctype)})"

    def visit_BlockSync(self, node: BlockSync) -> None:
        self._emit("__syncthreads();" + (f"  // {node.reason}" if node.reason else ""))

    def visit_NamedBarrier(self, node: NamedBarrier) -> None:
        """``bar.sync``; a non-constant id (``1 + threadIdx.y``: a barrier per warp group) is computed at
        run time, and only a constant one is range-checked here."""
        bid = node.id.const_value()
        target = current_target()
        if bid is not None and not 1 <= bid <= target.max_named_barrier:
            raise CodegenError(f"codegen: NamedBarrier id {node.id} is out of range: named barrier ids are "
                               f"1..{target.max_named_barrier} (0 is __syncthreads)")
        threads = node.threads.const_value()
        block_threads = _product(self.block)
        if threads is not None and (threads < 1 or threads % target.warp_size):
            raise CodegenError(f"codegen: NamedBarrier {node.id} counts {threads} threads; bar.sync counts whole "
                               f"warps, a positive multiple of {target.warp_size}")
        if threads is not None and block_threads is not None and threads > block_threads:
            raise CodegenError(f"codegen: NamedBarrier {node.id} counts {threads} threads, more than the block's "
                               f"{block_threads}")
        self.helpers.add("named_barrier")
        count = self._idx(node.threads, node)
        self._emit(f"namedBarrierSync({self._idx(node.id, node)}, {count});"
                   + (f"  // {node.reason}" if node.reason else ""))

    def visit_Let(self, node: Let) -> None:
        name = node.name
        bound = {s.loop_index for s in self.scopes} | set().union(*(s.lets for s in self.scopes))
        if name in bound or name in self.param_symbols or name in BUILTIN_SYMBOLS or not _IDENTIFIER.match(name):
            raise CodegenError(f"codegen: Let {name} shadows another symbol or is not a C identifier")
        self._emit(f"const {self.index_ctype} {name} = {self._idx(node.value, node)};")
        self.scopes[-1].lets.add(name)

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

    def visit_MBarrierArriveExpectTx(self, node: MBarrierArriveExpectTx) -> None:
        call = f"mbarrier::arriveExpectTx({self._mbarrier(node.mbar, node.index, node)}, " \
               f"{self._idx(node.tx_bytes, node)})"
        if node.token is None:
            self._emit(f"{call};")
            return
        if node.token_index is None:
            raise CodegenError(f"codegen: {_describe(node)} has a token buffer but no token_index")
        self._require_token(node.token, node)
        self._emit(f"{self._access(node.token, self._idx(node.token_index, node), node)} = {call};")

    def visit_MBarrierWait(self, node: MBarrierWait) -> None:
        self._require_token(node.token, node)
        token = self._access(node.token, self._idx(node.token_index, node), node)
        self._emit(f"mbarrier::wait({self._mbarrier(node.mbar, node.index, node)}, {token});")

    def visit_MBarrierWaitParity(self, node: MBarrierWaitParity) -> None:
        mbar = self._mbarrier(node.mbar, node.index, node)
        self._emit(f"mbarrier::waitParity({mbar}, {self._idx(node.parity, node)});")

    def _require_token(self, buf: Buffer, where: object) -> None:
        if buf.dtype.size != 8:
            raise CodegenError(f"codegen: token buffer {buf.name} of {_describe(where)} must hold 64-bit "
                               f"mbarrier states (Int64), not {buf.dtype.name}")

    def _tensor_map(self, node: TmaLoad | TmaStore, smem: Buffer) -> str:
        tmap = node.tensor_map
        if tmap.name not in self.tensor_maps:
            raise CodegenError(f"codegen: {_describe(node)} uses tensor map {tmap.name}, which is not in "
                               f"kernel.tensor_maps")
        if not 1 <= len(node.coords) <= 5 or len(node.coords) != len(tmap.box):
            raise CodegenError(f"codegen: {_describe(node)} has {len(node.coords)} coordinates for a "
                               f"{len(tmap.box)}-d box; TMA boxes have 1 to 5 dimensions")
        if smem.swizzle is not tmap.swizzle:
            raise CodegenError(f"codegen: {_describe(node)} copies through {tmap.name} with swizzle "
                               f"{tmap.swizzle.name}, but {smem.name} is laid out with swizzle {smem.swizzle.name}")
        if smem.dtype != tmap.tensor.dtype:
            raise CodegenError(f"codegen: {_describe(node)} moves {tmap.tensor.dtype.name} elements through "
                               f"{smem.name} of {smem.dtype.name}")
        self.helpers.add("tma")
        return f"&{tmap.name}"

    def _coords(self, node: TmaLoad | TmaStore) -> str:
        # Kernel IR lists coordinates outermost first; PTX wants innermost first.
        return ", ".join(self._idx(c, node) for c in reversed(node.coords))

    def visit_TmaLoad(self, node: TmaLoad) -> None:
        tmap = self._tensor_map(node, node.dst)
        dst = self._smem_address(node.dst, node.dst_index, node, "destination")
        mbar = self._mbarrier(node.mbar, node.mbar_index, node)
        self._emit(f"Hopper::cpAsyncBulkTensorTileG2S({dst}, {tmap}, {mbar}, {self._coords(node)});")

    def visit_TmaStore(self, node: TmaStore) -> None:
        tmap = self._tensor_map(node, node.src)
        src = self._smem_address(node.src, node.src_index, node, "source")
        self._emit(f"Hopper::cpAsyncBulkTensorTileS2G({tmap}, {src}, {self._coords(node)});")

    def visit_CpAsync(self, node: CpAsync) -> None:
        nbytes = node.vector * node.dst.dtype.size
        if nbytes not in (4, 8, 16):
            raise CodegenError(f"codegen: {_describe(node)} copies {nbytes} bytes; cp.async copies 4, 8 or 16")
        if node.src.memory != MemoryType.Global:
            raise CodegenError(f"codegen: cp.async source {node.src.name} must be global memory")
        self.helpers.add("cp_async")
        dst = self._smem_address(node.dst, node.dst_index, node, "destination")
        src = self._access(node.src, self._idx(node.src_index, node), node)
        pred = "true" if node.pred is None else self._cond(node.pred, node)
        self._emit(f"cpAsync<{nbytes}>({dst}, &{src}, {pred});")

    def visit_AsyncCommit(self, node: AsyncCommit) -> None:
        if node.kind == "cp.async":
            self.helpers.add("cp_async")
            self._emit("cpAsyncCommitGroup();")
        elif node.kind == "bulk":
            self.helpers.add("tma")
            self._emit("Hopper::cpAsyncBulkCommitGroup();")
        elif node.kind == "wgmma":
            self.helpers.add("wgmma")
            self._emit("wgmma::commit();")
        else:
            raise CodegenError(f"codegen: unknown async group kind {node.kind!r} (cp.async, bulk, wgmma)")

    def visit_AsyncWait(self, node: AsyncWait) -> None:
        if node.pending < 0:
            raise CodegenError(f"codegen: {_describe(node)} waits for a negative number of groups")
        if node.kind == "cp.async":
            self.helpers.add("cp_async")
            self._emit(f"cpAsyncWaitGroup<{node.pending}>();")
        elif node.kind == "bulk":
            self.helpers.add("tma")
            wait = "cpAsyncBulkWaitGroupRead" if node.read else "cpAsyncBulkWaitGroup"
            self._emit(f"Hopper::{wait}<{node.pending}>();")
        elif node.kind == "wgmma":
            self.helpers.add("wgmma")
            self._emit(f"wgmma::wait<{node.pending}>();")
            self._fence_accumulators()
        else:
            raise CodegenError(f"codegen: unknown async group kind {node.kind!r} (cp.async, bulk, wgmma)")

    def visit_FenceAsyncProxy(self, node: FenceAsyncProxy) -> None:
        self.helpers.add("fence")
        self._emit("fenceAsyncProxy();")

    def visit_SetMaxNReg(self, node: SetMaxNReg) -> None:
        target = current_target()
        (lo, hi), step = target.setmaxnreg_range, target.setmaxnreg_step
        if not lo <= node.count <= hi or node.count % step != 0:
            raise CodegenError(f"codegen: setmaxnreg count {node.count} must be a multiple of {step} in [{lo}, {hi}]")
        self.helpers.add("setmaxnreg")
        self.uses_setmaxnreg = True
        self._emit(f"{'increaseRegisters' if node.increase else 'decreaseRegisters'}<{node.count}>();")

    def visit_Return(self, node: Return) -> None:
        self._emit("return;")

    def visit_Continue(self, node: Continue) -> None:
        if all(s.loop_index is None for s in self.scopes):
            raise CodegenError("codegen: Continue outside of a loop")
        self._emit("continue;")

    # ------------------------------------------------------------ wgmma
    def visit_WgmmaFence(self, node: WgmmaFence) -> None:
        self.helpers.add("wgmma")
        self._fence_accumulators()
        self._emit("wgmma::fence();")

    def _fence_accumulators(self) -> None:
        """``wgmma::fenceOperands`` on every wgmma accumulator array in scope: ordinary register
        accesses stay on their side of a ``wgmma.fence`` or ``wgmma.wait_group``."""
        for name in self.wgmma_accumulators:
            buf = next((s.buffers[name] for s in reversed(self.scopes) if name in s.buffers), None)
            if buf is not None and buf.memory == MemoryType.Local and buf.name in self.referenced:
                self._emit(f"wgmma::fenceOperands({name});")

    def visit_Mma(self, node: Mma) -> None:
        shape = self._wgmma_shape(node)
        acc = self._accumulator(node, shape)
        desc_a = self._descriptor(node, node.a, "A")
        desc_b = self._descriptor(node, node.b, "B")
        self.helpers.add("wgmma")
        self.wgmma_shapes.add(shape)
        self._emit(f"{shape.callee(node.a.mn_major, node.b.mn_major)}({acc},")
        self._emit(f"{INDENT * 2}{desc_a},")
        self._emit(f"{INDENT * 2}{desc_b});")

    def _wgmma_shape(self, node: Mma) -> WgmmaShape:
        m, n, kk = node.shape
        what = f"codegen: Mma {node.shape} into {node.acc.name}"
        target = current_target()
        wgmma = target.wgmma
        if node.dtype.name not in wgmma.operand_types:
            raise CodegenError(f"{what} has operand type {node.dtype.name}; wgmma is generated for "
                               f"{' and '.join(wgmma.operand_types)} operands with f32 accumulators")
        if m != wgmma.m:
            raise CodegenError(f"{what}: M is {m}; a wgmma is {wgmma.m} rows (one per warp group)")
        if kk != wgmma.k_for(node.dtype.size):
            raise CodegenError(f"{what}: K is {kk}; a wgmma on {node.dtype.name} operands is "
                               f"k{wgmma.k_for(node.dtype.size)}")
        if not wgmma.valid_n(n):
            raise CodegenError(f"{what}: N is {n}; wgmma's N is a multiple of {wgmma.n_step} from {wgmma.n_step} to "
                               f"{wgmma.max_n}")
        threads = _product(self.block)
        if threads is not None and threads % target.warp_group_size:
            raise CodegenError(f"{what}: the block has {threads} threads; wgmma is issued by whole warp groups "
                               f"of {target.warp_group_size} threads")
        return WgmmaShape(n, node.dtype)

    def _accumulator(self, node: Mma, shape: WgmmaShape) -> str:
        """``&T3[i]``: the first of the Mma's accumulator registers, checked to stay in registers."""
        acc = node.acc
        what = f"codegen: Mma {node.shape} into {acc.name}"
        if acc.memory != MemoryType.Local or acc.dtype != DataType.Float:
            raise CodegenError(f"{what}: the accumulators are {acc.memory.name} {acc.dtype.name}; wgmma "
                               f"accumulates into a Local Float (register) array")
        self._lookup(acc, node)
        self._check_registers(acc, node.acc_index, shape.registers, what, f"per thread for N = {shape.n}")
        return f"&{acc.name}[{self._idx(node.acc_index, node)}]"

    def _check_registers(self, buf: Buffer, index: Val, count: int, what: str, why: str) -> None:
        """``buf[index : index + count]`` stays inside ``buf`` for every value ``index`` takes over the
        enclosing unrolled loops, and ``index`` is a constant once they are unrolled."""
        size = buf.size.const_value()
        starts = self._unrolled_values(index, what, buf)
        if size is None or starts is None:
            return
        for start in starts:
            if start < 0 or start + count > size:
                raise CodegenError(f"{what}: registers {buf.name}[{start}:{start + count}] ({count} {why}) are out "
                                   f"of bounds of {buf.name}[{size}]")

    def _unrolled_values(self, index: Val, what: str, buf: Buffer) -> list[int] | None:
        """Every value register index ``index`` of ``buf`` takes over the enclosing unrolled loops (None when
        there are more than MAX_UNROLLED_POINTS); a CodegenError when it is not a constant once they are
        unrolled, since nvcc would then move the register array ``buf`` to local memory."""
        unrolled = {s.loop_index: s.unrolled for s in self.scopes if s.loop_index is not None}
        dynamic = sorted(name for name in index.symbols() if unrolled.get(name) is None)
        if dynamic:
            raise CodegenError(f"{what}: register index {index} depends on {', '.join(dynamic)}; it must "
                               f"be a constant once the enclosing loops are unrolled (indices of fully unrolled "
                               f"loops with constant bounds only), or nvcc moves {buf.name} to local memory")
        names = sorted(index.symbols())
        points = 1
        for name in names:
            points *= max(len(unrolled[name]), 1)  # type: ignore[arg-type]
        if points > MAX_UNROLLED_POINTS:
            return None
        return _values_over(index, [(n, unrolled[n]) for n in names])  # type: ignore[misc]

    def _descriptor(self, node: Mma, desc: MatrixDescriptor, which: str) -> str:
        """``wgmma::smemDescriptor(toSmem(&T4[offset]), lbo, sbo, mode)`` for operand ``which``."""
        buf = desc.buffer
        what = f"codegen: operand {which} ({buf.name}) of Mma into {node.acc.name}"
        self._require_shared(buf, node, f"wgmma operand {which}")
        if buf.dtype != node.dtype:
            raise CodegenError(f"{what} holds {buf.dtype.name} elements, but the Mma multiplies {node.dtype.name}")
        if desc.swizzle is not buf.swizzle:
            raise CodegenError(f"{what}: the descriptor says swizzle {desc.swizzle.name}, but {buf.name} is laid out "
                               f"with swizzle {buf.swizzle.name}")
        limit = current_target().wgmma.descriptor_offset_limit
        for field_name, value in (("leading", desc.leading_bytes), ("stride", desc.stride_bytes)):
            if value % 16 or not 0 <= value < limit:
                raise CodegenError(f"{what}: {field_name} byte offset {value} is not a multiple of 16 in "
                                   f"[0, {limit}); the descriptor holds it >> 4 in 14 bits")
        offset = desc.offset.const_value()
        if offset is not None and (offset * buf.dtype.size) % 16:
            raise CodegenError(f"{what} starts at element {offset}, byte {offset * buf.dtype.size}; a matrix "
                               f"descriptor's start address is a multiple of 16 bytes")
        address = self._smem_address(buf, desc.offset, node, f"wgmma operand {which}")
        return (f"wgmma::smemDescriptor({address}, {desc.leading_bytes}, {desc.stride_bytes}, "
                f"{DESCRIPTOR_MODES[desc.swizzle]})")


    # ------------------------------------------------------------ stmatrix
    def visit_StMatrix(self, node: StMatrix) -> None:
        """``stmatrixX{count}(toSmem(&dst[dst_index]), r0, ...)``: this lane's row address and its
        ``count`` registers, each two 16-bit elements of ``src`` packed by value (low half first)."""
        dst, src = node.dst, node.src
        what = f"codegen: StMatrix from {src.name} into {dst.name}"
        if node.count not in STMATRIX_COUNTS:
            raise CodegenError(f"{what} stores {node.count} matrices; stmatrix stores 1, 2 or 4 (x1, x2, x4)")
        if dst.memory != MemoryType.Shared:
            raise CodegenError(f"{what}: the destination is {dst.memory.name}; stmatrix stores to shared memory")
        if src.memory != MemoryType.Local:
            raise CodegenError(f"{what}: the source is {src.memory.name}; stmatrix stores registers "
                               f"(a Local buffer)")
        for role, buf in (("destination", dst), ("source", src)):
            if buf.dtype not in STMATRIX_TYPES:
                raise CodegenError(f"{what}: the {role} holds {buf.dtype.name} elements; stmatrix stores 16-bit "
                                   f"elements ({' or '.join(d.name for d in STMATRIX_TYPES)})")
        if dst.dtype != src.dtype:
            raise CodegenError(f"{what}: the destination holds {dst.dtype.name} elements but the source "
                               f"{src.dtype.name}; stmatrix copies the bits as they are")
        if dst.align % STMATRIX_ROW_BYTES:
            raise CodegenError(f"{what}: {dst.name} is {dst.align}-byte aligned; each stmatrix row address "
                               f"is a multiple of {STMATRIX_ROW_BYTES} bytes")
        row = node.dst_index.const_value()
        if row is not None and (row * dst.dtype.size) % STMATRIX_ROW_BYTES:
            raise CodegenError(f"{what}: the row starts at element {row}, byte {row * dst.dtype.size}; "
                               f"stmatrix rows start on {STMATRIX_ROW_BYTES}-byte boundaries")
        self._lookup(src, node)
        registers = 2 * node.count
        self._check_registers(src, node.src_index, registers, what, f"elements for x{node.count}")
        address = self._smem_address(dst, node.dst_index, node, "destination")
        elements = [self._access(src, self._idx(node.src_index + e, node), node) for e in range(registers)]
        words = [_vector_value("uint32_t", 2, elements[e:e + 2]) for e in range(0, registers, 2)]
        self.helpers.add("stmatrix")
        self._emit(f"stmatrixX{node.count}({address},")
        for k, word in enumerate(words):
            self._emit(f"{INDENT * 2}{word}{');' if k == len(words) - 1 else ','}")


# ---------------------------------------------------------------- helpers
_COMPONENTS = ("x", "y", "z", "w")


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
    out: list[Val] = []
    for attr in ("x", "a", "b"):
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


def _values_over(v: Val, loops: list[tuple[str, range]]) -> list[int]:
    """Every value of ``v`` as the named loop indices run over their ranges (v is constant once they are)."""
    envs: list[dict[str, int]] = [{}]
    for name, values in loops:
        envs = [{**env, name: x} for env in envs for x in values]
    return sorted({int(v.evaluate(env)) for env in envs})


def _product(dims: tuple[int | None, ...]) -> int | None:
    out = 1
    for d in dims:
        if d is None:
            return None
        out *= d
    return out
