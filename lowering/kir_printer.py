"""Kernel IR as a readable nested listing (used by ``str(kernel)``, ``viz`` and golden tests).

Reads only the nodes (``kir_nodes``); ``Kernel.__str__`` adds the signature and launch lines."""

from __future__ import annotations

from fusion_ir.scalar import Val
from fusion_ir.types import DataType

from . import kir_nodes as k


def value_text(v: k.Value) -> str:
    if isinstance(v, k.Load):
        return f"{v.buffer.name}[{v.index}]"
    if isinstance(v, k.Const):
        return repr(v.value)
    if isinstance(v, k.UnaryValue):
        return f"{v.op}({value_text(v.x)})"
    if isinstance(v, k.BinaryValue):
        sym = {"add": "+", "sub": "-", "mul": "*", "div": "/"}.get(v.op)
        if sym is not None:
            return f"({value_text(v.a)} {sym} {value_text(v.b)})"
        return f"{v.op}({value_text(v.a)}, {value_text(v.b)})"
    if isinstance(v, k.ScalarParam):
        return v.name
    if isinstance(v, k.ScalarValue):
        return f"({v.dtype.short_name})({v.value})"
    if isinstance(v, k.CompareValue):
        sym = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}[v.op]
        return f"({value_text(v.a)} {sym} {value_text(v.b)})"
    if isinstance(v, k.SelectValue):
        return f"({value_text(v.cond)} ? {value_text(v.a)} : {value_text(v.b)})"
    if isinstance(v, k.CastValue):
        return f"({v.dtype.short_name})({value_text(v.x)})"
    return str(v)


class KirPrinter(k.NodeVisitor):
    """``visit_<Node>(node, pad, indent)`` returns the node's lines, nested bodies included."""

    backend = "the kernel IR printer"
    missing_error = TypeError

    def lines(self, node: k.Node, indent: int) -> list[str]:
        return self.visit(node, "  " * indent, indent)

    def body(self, body: tuple[k.Node, ...], indent: int) -> list[str]:
        out: list[str] = []
        for node in body:
            out += self.lines(node, indent)
        return out

    # ---- control flow
    def visit_ForLoop(self, node: k.ForLoop, pad: str, indent: int) -> list[str]:
        tags = []
        if node.stage is not None:
            tags.append(node.stage.value)
        if node.unroll is True:
            tags.append("unroll")
        elif node.unroll:
            tags.append(f"unroll {node.unroll}")
        if node.vectorize:
            tags.append("vectorize")
        tag = f"  // {', '.join(tags)}" if tags else ""
        step = f" step {node.step}" if node.step != Val.const(1) else ""
        head = f"{pad}FOR {node.index} in [{node.start}, {node.stop}){step} ({node.label}):{tag}"
        return [head] + self.body(node.body, indent + 1)

    def visit_IfThenElse(self, node: k.IfThenElse, pad: str, indent: int) -> list[str]:
        split = ""
        if node.branch_threads is not None:
            split = f"  // warp split: {node.branch_threads[0]} threads, else {node.branch_threads[1]}"
        lines = [f"{pad}IF {node.cond}:{split}"] + self.body(node.then_body, indent + 1)
        if node.else_body:
            lines += [f"{pad}ELSE:"] + self.body(node.else_body, indent + 1)
        return lines

    def visit_ElectSync(self, node: k.ElectSync, pad: str, indent: int) -> list[str]:
        warp = "" if node.warp == Val.const(0) else f"warp {node.warp}"
        return [f"{pad}IF elect_sync({warp}):"] + self.body(node.body, indent + 1)

    def visit_Return(self, node: k.Return, pad: str, indent: int) -> list[str]:
        return [f"{pad}return;"]

    def visit_Continue(self, node: k.Continue, pad: str, indent: int) -> list[str]:
        return [f"{pad}continue;"]

    # ---- memory
    def visit_Allocate(self, node: k.Allocate, pad: str, indent: int) -> list[str]:
        b = node.buffer
        where = f" @ smem+{node.offset}" if node.offset is not None else ""
        swizzle = f" swizzle {b.swizzle.name}" if b.swizzle.span else ""
        return [f"{pad}ALLOC {b.name}: {b.memory.name} {b.dtype.short_name}[{b.size}] align {b.align}{swizzle}{where}"]

    def visit_Assign(self, node: k.Assign, pad: str, indent: int) -> list[str]:
        op = "=" if node.reduce_op is None else f"{node.reduce_op}="
        vec = f"  // vector {node.vector}" if node.vector > 1 else ""
        if node.valid is not None:
            vec = f"  // misaligned vector {node.vector}, element e where [{', '.join(map(str, node.valid))}], else 0"
        return [f"{pad}{node.buffer.name}[{node.index}] {op} {value_text(node.value)}{vec}"]

    def visit_BlockReduce(self, node: k.BlockReduce, pad: str, indent: int) -> list[str]:
        dims = ", ".join(d.name for d in node.dims)
        bar = "" if node.barrier is None else f"  // bar.sync({node.barrier.id}, {node.barrier.threads})"
        return [f"{pad}{node.buffer.name}[{node.index}] = blockReduce<{node.op}, {dims}>({value_text(node.value)}){bar}"]

    def visit_WarpShuffleXor(self, node: k.WarpShuffleXor, pad: str, indent: int) -> list[str]:
        at = f"{node.buffer.name}[{node.index}]"
        return [f"{pad}{at} = {node.op}({at}, shfl.xor({at}, {node.lane_mask}))"]

    def visit_Let(self, node: k.Let, pad: str, indent: int) -> list[str]:
        return [f"{pad}LET {node.name} = {node.value}"]

    def visit_Discard(self, node: k.Discard, pad: str, indent: int) -> list[str]:
        return [f"{pad}discard {node.buffer.name}  // each register written before it is read (no instruction)"]

    def visit_Comment(self, node: k.Comment, pad: str, indent: int) -> list[str]:
        return [f"{pad}// {node.text}"]

    def visit_TensorOp(self, node: k.TensorOp, pad: str, indent: int) -> list[str]:
        tag = "" if node.kind is k.TensorOpKind.Compute else f"  // {_kind_text(node.kind)}"
        if node.shift:
            tag += "  // at " + ", ".join(f"{name} = {value}" for name, value in node.shift)
        return [f"{pad}{node.text}{tag}"]

    # ---- barriers
    def visit_BlockSync(self, node: k.BlockSync, pad: str, indent: int) -> list[str]:
        why = f"  // {node.reason}" if node.reason else ""
        return [f"{pad}__syncthreads();{why}"]

    def visit_GridFence(self, node: k.GridFence, pad: str, indent: int) -> list[str]:
        why = f"  // {node.reason}" if node.reason else ""
        return [f"{pad}__threadfence();{why}"]

    def visit_SemaphoreArrive(self, node: k.SemaphoreArrive, pad: str, indent: int) -> list[str]:
        arrive = f"semaphoreArrive({node.semaphore.name}[{node.index}], {node.arrivals})"
        if node.skip is not None:
            arrive = f"({node.skip}) ? 1 : {arrive}"
        line = f"{pad}{node.name} = {arrive}  // thread 0 adds 1; 1 in the block that arrives last"
        return [line]

    def visit_NamedBarrier(self, node: k.NamedBarrier, pad: str, indent: int) -> list[str]:
        why = f"  // {node.reason}" if node.reason else ""
        op = "bar.sync" if node.wait else "bar.arrive"
        return [f"{pad}{op}({node.id}, {node.threads});{why}"]

    def visit_MBarrierInit(self, node: k.MBarrierInit, pad: str, indent: int) -> list[str]:
        return [f"{pad}mbarrier::init({node.mbar.name}[{node.index}], {node.count})"]

    def visit_MBarrierInval(self, node: k.MBarrierInval, pad: str, indent: int) -> list[str]:
        return [f"{pad}mbarrier::inval({node.mbar.name}[{node.index}])"]

    def visit_MBarrierArrive(self, node: k.MBarrierArrive, pad: str, indent: int) -> list[str]:
        return [f"{pad}mbarrier::arrive({node.mbar.name}[{node.index}])"]

    def visit_MBarrierRemoteArrive(self, node: k.MBarrierRemoteArrive, pad: str, indent: int) -> list[str]:
        return [f"{pad}mbarrier::arrive({node.mbar.name}[{node.index}], cta {node.cta})"]

    def visit_ClusterSync(self, node: k.ClusterSync, pad: str, indent: int) -> list[str]:
        why = f"  // {node.reason}" if node.reason else ""
        fence = [f"{pad}fence.mbarrier_init.release.cluster"] if node.fence_init else []
        return [*fence, f"{pad}cluster_sync();{why}"]

    def visit_MBarrierArriveExpectTx(self, node: k.MBarrierArriveExpectTx, pad: str, indent: int) -> list[str]:
        lhs = f"{node.token.name}[{node.token_index}] = " if node.token is not None else ""
        return [f"{pad}{lhs}mbarrier::arriveExpectTx({node.mbar.name}[{node.index}], {node.tx_bytes})"]

    def visit_MBarrierWait(self, node: k.MBarrierWait, pad: str, indent: int) -> list[str]:
        return [f"{pad}mbarrier::wait({node.mbar.name}[{node.index}], {node.token.name}[{node.token_index}])"]

    def visit_MBarrierWaitParity(self, node: k.MBarrierWaitParity, pad: str, indent: int) -> list[str]:
        return [f"{pad}mbarrier::waitParity({node.mbar.name}[{node.index}], {node.parity})"]

    # ---- async copies
    def visit_TmaLoad(self, node: k.TmaLoad, pad: str, indent: int) -> list[str]:
        coords = ", ".join(str(c) for c in node.coords)
        cast = ""
        if isinstance(node.multicast, int):
            cast = f", multicast {node.multicast:#b}"
        elif node.multicast is not None:
            cast = f", multicast {node.multicast}"
        return [(f"{pad}tma_load({node.dst.name}[{node.dst_index}], {node.tensor_map.name}, "
                 f"{{{coords}}}, {node.mbar.name}[{node.mbar_index}]{cast})  // {node.box_bytes} B")]

    def visit_TmaStore(self, node: k.TmaStore, pad: str, indent: int) -> list[str]:
        coords = ", ".join(str(c) for c in node.coords)
        return [f"{pad}tma_store({node.tensor_map.name}, {{{coords}}}, {node.src.name}[{node.src_index}])"]

    def visit_CpAsync(self, node: k.CpAsync, pad: str, indent: int) -> list[str]:
        pred = f", zero-filled unless {node.pred}" if node.pred is not None else ""   # src-size 0 past the bounds
        return [(f"{pad}cp.async {node.dst.name}[{node.dst_index}] <- {node.src.name}[{node.src_index}] "
                 f"x{node.vector}{pred}")]

    def visit_AsyncCommit(self, node: k.AsyncCommit, pad: str, indent: int) -> list[str]:
        if node.kind is k.AsyncKind.Wgmma:
            return [f"{pad}wgmma.commit_group"]
        return [f"{pad}{_kind_text(node.kind)}.commit_group()"]

    def visit_AsyncWait(self, node: k.AsyncWait, pad: str, indent: int) -> list[str]:
        if node.kind is k.AsyncKind.Wgmma:
            return [f"{pad}wgmma.wait_group {node.pending}"]
        suffix = ".complete" if node.kind is k.AsyncKind.Bulk and not node.read else ""
        return [f"{pad}{_kind_text(node.kind)}.wait_group{suffix}({node.pending})"]

    def visit_FenceAsyncProxy(self, node: k.FenceAsyncProxy, pad: str, indent: int) -> list[str]:
        return [f"{pad}fence.proxy.async()"]

    # ---- other
    def visit_SetMaxNReg(self, node: k.SetMaxNReg, pad: str, indent: int) -> list[str]:
        verb = "increase" if node.increase else "decrease"
        return [f"{pad}setmaxnreg.{verb}({node.count})"]

    def visit_WgmmaFence(self, node: k.WgmmaFence, pad: str, indent: int) -> list[str]:
        if node.registers:
            return [f"{pad}wgmma.fence  // A registers: {', '.join(b.name for b in node.registers)}"]
        return [f"{pad}wgmma.fence"]

    def visit_StMatrix(self, node: k.StMatrix, pad: str, indent: int) -> list[str]:
        trans = ".trans" if node.trans else ""
        return [f"{pad}stmatrix.x{node.count}{trans}({node.dst.name}[{node.dst_index}] per lane <- "
                f"{node.src.name}[{node.src_index}:{node.src_index} + {2 * node.count}])"]

    def visit_LdMatrix(self, node: k.LdMatrix, pad: str, indent: int) -> list[str]:
        return [f"{pad}ldmatrix.x{node.count}({node.dst.name}[{node.dst_index}:{node.dst_index} + {2 * node.count}] <- "
                f"{node.src.name}[{node.src_index}] per lane)"]

    def visit_Mma(self, node: k.Mma, pad: str, indent: int) -> list[str]:
        m, n, kk = node.shape
        dtype = _PTX_TYPES.get(node.dtype, node.dtype.short_name)
        regs = f"{node.acc_index}:{node.acc_index + n // 2}"
        a = (f"{node.a.buffer.name}[{node.a.index}:{node.a.index + 8}] in registers"
             if isinstance(node.a, k.RegisterFragment) else descriptor_text(node.a, 'M'))
        line = (f"{pad}{node.acc.name}[{regs}] += wgmma.m{m}n{n}k{kk}.{dtype}(A: {a}, "
                f"B: {descriptor_text(node.b, 'N')})")
        if node.accumulate is not None:     # scale-d: where false, the registers are written, not added to
            line += f"  // adds where {node.accumulate}, else writes (scale-d 0)"
        return [line]


_PTX_TYPES = {DataType.BFloat16: "bf16", DataType.Half: "f16"}


def descriptor_text(d: k.MatrixDescriptor, mn: str) -> str:
    """``T4 @ <offset> K-major B128 sbo=1024``: a wgmma operand's buffer, start element, major-ness,
    swizzle and the byte offsets the layout uses (a swizzled K-major operand has no leading offset)."""
    major = f"{mn}-major" if d.mn_major else "K-major"
    offsets = f"sbo={d.stride_bytes}"
    if d.mn_major or not d.swizzle.span:
        offsets = f"lbo={d.leading_bytes} {offsets}"
    return f"{d.buffer.name} @ {d.offset} {major} {d.swizzle.name} {offsets}"


def _kind_text(kind: object) -> str:
    """An enum kind (``AsyncKind``, ``TensorOpKind``) by its value; anything else, which ``verify`` refuses,
    quoted, so a listing of a broken kernel still prints and shows it."""
    return kind.value if isinstance(kind, (k.AsyncKind, k.TensorOpKind)) else repr(kind)


_PRINTER = KirPrinter()


def node_lines(node: k.Node, indent: int = 0) -> list[str]:
    return _PRINTER.lines(node, indent)


def body_lines(body: tuple[k.Node, ...], indent: int) -> list[str]:
    return _PRINTER.body(body, indent)

