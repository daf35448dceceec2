"""Small builders for hand-written kernel IR in the simulator tests."""

from __future__ import annotations

from fusion_ir.scalar import Val, ceil_div
from fusion_ir.types import DataType, MemoryType
from lowering import kernel_ir as k

TX, TY = Val.symbol("threadIdx.x"), Val.symbol("threadIdx.y")
BX = Val.symbol("blockIdx.x")
FLOAT, INT64 = DataType.Float, DataType.Int64


def c(x: int) -> Val:
    return Val.const(x)


def sym(name: str) -> Val:
    return Val.symbol(name)


def global_1d(name: str, extent: str = "i0", dtype: DataType = FLOAT) -> k.Buffer:
    ext = sym(extent)
    return k.Buffer(name, dtype, MemoryType.Global, ext, (ext,), (sym(f"{name}_stride0"),), is_param=True)


def global_2d(name: str, extents: tuple[str, str] = ("i0", "i1"), dtype: DataType = FLOAT) -> k.Buffer:
    e0, e1 = sym(extents[0]), sym(extents[1])
    return k.Buffer(name, dtype, MemoryType.Global, e0 * e1, (e0, e1),
                    (sym(f"{name}_stride0"), sym(f"{name}_stride1")), is_param=True)


def shared(name: str, size: int | Val, dtype: DataType = FLOAT) -> k.Buffer:
    return k.Buffer(name, dtype, MemoryType.Shared, size if isinstance(size, Val) else c(size))


def local(name: str, size: int, dtype: DataType = FLOAT) -> k.Buffer:
    return k.Buffer(name, dtype, MemoryType.Local, c(size))


def load(buf: k.Buffer, index: Val | int) -> k.Load:
    return k.Load(buf, index if isinstance(index, Val) else c(index))


def assign(buf: k.Buffer, index: Val | int, value: k.Value, **kw: object) -> k.Assign:
    return k.Assign(buf, index if isinstance(index, Val) else c(index), value, **kw)  # type: ignore[arg-type]


def binary(op: str, a: k.Value, b: k.Value) -> k.BinaryValue:
    return k.BinaryValue(op, a, b, FLOAT)


def fconst(x: float) -> k.Const:
    return k.Const(x, FLOAT)


def kernel(body: list[k.Node], inputs: list[k.Buffer], outputs: list[k.Buffer], grid: tuple, block: tuple,
           *, tensor_maps: tuple = (), checks: tuple = (), smem: int | Val = 0) -> k.Kernel:
    def dims(t: tuple) -> tuple[Val, Val, Val]:
        vals = [x if isinstance(x, Val) else c(x) for x in t]
        return tuple(vals + [c(1)] * (3 - len(vals)))  # type: ignore[return-value]

    return k.Kernel("test_kernel", tuple(body), tuple(inputs), tuple(outputs), tuple(tensor_maps), dims(grid),
                    dims(block), smem if isinstance(smem, Val) else c(smem), tuple(checks))


def for_(index: str, start: Val | int, stop: Val | int, body: list[k.Node], **kw: object) -> k.ForLoop:
    as_val = lambda x: x if isinstance(x, Val) else c(x)
    if "step" in kw:
        kw["step"] = as_val(kw["step"])
    return k.ForLoop(sym(index), as_val(start), as_val(stop), tuple(body), **kw)  # type: ignore[arg-type]


def if_(cond: Val, then: list[k.Node], else_: list[k.Node] = ()) -> k.IfThenElse:  # type: ignore[assignment]
    return k.IfThenElse(cond, tuple(then), tuple(else_))


def elect(body: list[k.Node], warp: Val | int = 0) -> k.ElectSync:
    return k.ElectSync(tuple(body), warp if isinstance(warp, Val) else c(warp))


def mutate(kern: k.Kernel, fn) -> k.Kernel:
    """The kernel rebuilt with ``k.rewrite(body, fn)``; the mutation must change something."""
    from dataclasses import replace

    out = replace(kern, body=k.rewrite(kern.body, fn))
    assert out != kern, "the mutation changed nothing"
    return out


def remove_nodes(kern: k.Kernel, kind: type, where: object = None) -> k.Kernel:
    """The kernel with every node of ``kind`` (for which ``where(node)`` holds) deleted: a mutation."""
    from dataclasses import replace

    def drop(node: k.Node) -> tuple | None:
        if isinstance(node, kind) and (where is None or where(node)):  # type: ignore[operator]
            return ()
        return None

    out = replace(kern, body=k.rewrite(kern.body, drop))
    assert out != kern, f"no {kind.__name__} to remove"
    return out


def insert_after(kern: k.Kernel, kind: type, nodes: list[k.Node], where: object = None) -> k.Kernel:
    """The kernel with ``nodes`` spliced in after every node of ``kind`` (for which ``where(node)`` holds)."""
    from dataclasses import replace

    def splice(node: k.Node) -> tuple | None:
        if isinstance(node, kind) and (where is None or where(node)):  # type: ignore[operator]
            return (node, *nodes)
        return None

    out = replace(kern, body=k.rewrite(kern.body, splice))
    assert out != kern, f"no {kind.__name__} to insert after"
    return out


__all__ = ["BX", "FLOAT", "INT64", "TX", "TY", "assign", "binary", "c", "ceil_div", "elect", "fconst", "for_",
           "global_1d", "global_2d", "if_", "insert_after", "kernel", "load", "local", "remove_nodes", "shared",
           "sym"]
