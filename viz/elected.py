"""Which warp runs the elected statements of a kernel, read from its ``ElectSync`` nodes.

The simulator runs an ``ElectSync`` body in one of its warp tasks; the CUDA elects lane 0 of
``ElectSync.warp``. ``--show pipeline`` names the latter for events only elected threads make.
"""

from __future__ import annotations

from lowering import kernel_ir as k

# the trace event each statement type makes (runtime.simulate's trace)
EVENT_KIND: dict[type, str] = {
    k.MBarrierInit: "mbarrier.init", k.MBarrierInval: "mbarrier.inval",
    k.MBarrierArriveExpectTx: "mbarrier.arrive_expect_tx", k.MBarrierArrive: "mbarrier.arrive",
    k.MBarrierWait: "mbarrier.wait", k.MBarrierWaitParity: "mbarrier.wait_parity",
    k.TmaLoad: "tma.issue", k.TmaStore: "tma_store.issue",
}


def elected_warps(kernel: k.Kernel) -> dict[str, str]:
    """Event kind -> "warp N" for kinds that only statements inside ``ElectSync`` make, all of one
    constant warp."""
    inside: dict[str, set[str]] = {}
    outside: set[str] = set()

    def visit(body: tuple[k.Node, ...], warp: str | None) -> None:
        for node in body:
            kind = EVENT_KIND.get(type(node))
            if kind is not None:
                if warp is None:
                    outside.add(kind)
                else:
                    inside.setdefault(kind, set()).add(warp)
            here = warp
            if isinstance(node, k.ElectSync):
                # a warp computed per thread (one per warp group, say): the simulator's task is that warp
                here = f"warp {node.warp}" if node.warp.const_value() is not None else None
            for _, sub in k.children(node):
                visit(sub, here)

    visit(kernel.body, None)
    return {kind: next(iter(warps)) for kind, warps in inside.items() if kind not in outside and len(warps) == 1}
