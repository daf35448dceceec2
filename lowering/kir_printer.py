"""Kernel IR as a readable nested listing (used by ``str(kernel)``, ``viz`` and golden tests)."""

from __future__ import annotations

from fusion_ir.scalar import Val

from . import kernel_ir as k


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
    if isinstance(v, k.CastValue):
        return f"({v.dtype.short_name})({value_text(v.x)})"
    return str(v)


def node_lines(node: k.Node, indent: int = 0) -> list[str]:
    pad = "  " * indent
    if isinstance(node, k.ForLoop):
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
        return [head] + body_lines(node.body, indent + 1)
    if isinstance(node, k.IfThenElse):
        lines = [f"{pad}IF {node.cond}:"] + body_lines(node.then_body, indent + 1)
        if node.else_body:
            lines += [f"{pad}ELSE:"] + body_lines(node.else_body, indent + 1)
        return lines
    if isinstance(node, k.ElectSync):
        return [f"{pad}IF elect_sync():"] + body_lines(node.body, indent + 1)
    if isinstance(node, k.Allocate):
        b = node.buffer
        where = f" @ smem+{node.offset}" if node.offset is not None else ""
        return [f"{pad}ALLOC {b.name}: {b.memory.name} {b.dtype.short_name}[{b.size}] align {b.align}{where}"]
    if isinstance(node, k.Assign):
        op = "=" if node.reduce_op is None else f"{node.reduce_op}="
        vec = f"  // vector {node.vector}" if node.vector > 1 else ""
        return [f"{pad}{node.buffer.name}[{node.index}] {op} {value_text(node.value)}{vec}"]
    if isinstance(node, k.BlockReduce):
        dims = ", ".join(d.name for d in node.dims)
        return [f"{pad}{node.buffer.name}[{node.index}] = blockReduce<{node.op}, {dims}>({value_text(node.value)})"]
    if isinstance(node, k.BlockSync):
        why = f"  // {node.reason}" if node.reason else ""
        return [f"{pad}__syncthreads();{why}"]
    if isinstance(node, k.TensorOp):
        tag = "" if node.kind == "compute" else f"  // {node.kind}"
        if node.shift:
            tag += "  // at " + ", ".join(f"{name} = {value}" for name, value in node.shift)
        return [f"{pad}{node.text}{tag}"]
    if isinstance(node, k.Comment):
        return [f"{pad}// {node.text}"]
    if isinstance(node, k.MBarrierInit):
        return [f"{pad}mbarrier::init({node.mbar.name}[{node.index}], {node.count})"]
    if isinstance(node, k.MBarrierInval):
        return [f"{pad}mbarrier::inval({node.mbar.name}[{node.index}])"]
    if isinstance(node, k.MBarrierArrive):
        return [f"{pad}mbarrier::arrive({node.mbar.name}[{node.index}])"]
    if isinstance(node, k.MBarrierArriveExpectTx):
        lhs = f"{node.token.name}[{node.token_index}] = " if node.token is not None else ""
        return [f"{pad}{lhs}mbarrier::arriveExpectTx({node.mbar.name}[{node.index}], {node.tx_bytes})"]
    if isinstance(node, k.MBarrierWait):
        return [f"{pad}mbarrier::wait({node.mbar.name}[{node.index}], {node.token.name}[{node.token_index}])"]
    if isinstance(node, k.MBarrierWaitParity):
        return [f"{pad}mbarrier::waitParity({node.mbar.name}[{node.index}], {node.parity})"]
    if isinstance(node, k.TmaLoad):
        coords = ", ".join(str(c) for c in node.coords)
        return [f"{pad}tma_load({node.dst.name}[{node.dst_index}], {node.tensor_map.name}, "
                f"{{{coords}}}, {node.mbar.name}[{node.mbar_index}])  // {node.box_bytes} B"]
    if isinstance(node, k.TmaStore):
        coords = ", ".join(str(c) for c in node.coords)
        return [f"{pad}tma_store({node.tensor_map.name}, {{{coords}}}, {node.src.name}[{node.src_index}])"]
    if isinstance(node, k.CpAsync):
        pred = f" if {node.pred}" if node.pred is not None else ""
        return [f"{pad}cp.async {node.dst.name}[{node.dst_index}] <- {node.src.name}[{node.src_index}] "
                f"x{node.vector}{pred}"]
    if isinstance(node, k.AsyncCommit):
        return [f"{pad}{node.kind}.commit_group()"]
    if isinstance(node, k.AsyncWait):
        return [f"{pad}{node.kind}.wait_group({node.pending})"]
    if isinstance(node, k.SetMaxNReg):
        verb = "increase" if node.increase else "decrease"
        return [f"{pad}setmaxnreg.{verb}({node.count})"]
    if isinstance(node, k.FenceAsyncProxy):
        return [f"{pad}fence.proxy.async()"]
    if isinstance(node, k.Return):
        return [f"{pad}return;"]
    if isinstance(node, k.Continue):
        return [f"{pad}continue;"]
    return [f"{pad}{node}"]


def body_lines(body: tuple[k.Node, ...], indent: int) -> list[str]:
    lines: list[str] = []
    for node in body:
        lines += node_lines(node, indent)
    return lines


def kernel_text(kernel: k.Kernel) -> str:
    params = ", ".join(b.name for b in kernel.params)
    maps = "".join(f", {m.name}" for m in kernel.tensor_maps)
    lines = [f"KERNEL {kernel.name}({params}{maps})",
             f"  grid ({', '.join(str(g) for g in kernel.grid)}), block ({', '.join(str(b) for b in kernel.block)}), "
             f"smem {kernel.smem_bytes} B"]
    for c in kernel.checks:
        lines.append(f"  CHECK {c.cond}  // {c.message}")
    lines += body_lines(kernel.body, 1)
    return "\n".join(lines)
