"""The role of each warp of a warp-specialized kernel: the producer or a compute warp group.

The kernel splits the block with an ``IfThenElse`` whose one side holds the AsyncWarp loop (the
producer, ``threadIdx.<on> >= blockDim.<on> - pad``) and whose other side computes. Evaluating
that condition for every thread of a block gives the producer's warps; the other warps compute, in
warp groups of 128 threads (4 warps), numbered from 0 in warp order. ``--show pipeline`` reads the
roles to name the simulator's tasks ("warp 8" is the producer, "warp 5" is in compute wg1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lowering import kernel_ir as k
from target import DEFAULT_TARGET

WARP = DEFAULT_TARGET.warp_size
WARPS_PER_GROUP = DEFAULT_TARGET.warps_per_group
PRODUCER = "producer"


@dataclass(frozen=True)
class WarpRoles:
    """Warp index -> role: ``"producer"``, ``"compute wg0"``, ``"compute wg1"``, ... (``"compute"``
    when the compute branch is less than a warp group)."""

    roles: dict[int, str]

    def of(self, task: str) -> str | None:
        """The role of a simulator task (``"warp 5"``); None for the async proxy and unknown tasks."""
        warp = task_warp(task)
        return None if warp is None else self.roles.get(warp)

    @property
    def compute_groups(self) -> list[str]:
        """The compute roles in warp order."""
        return list(dict.fromkeys(r for _, r in sorted(self.roles.items()) if r != PRODUCER))

    def legend(self) -> str:
        """``"producer: warps 8-11, compute wg0: warps 0-3, compute wg1: warps 4-7"``."""
        parts = []
        for role in [PRODUCER, *self.compute_groups]:
            warps = sorted(w for w, r in self.roles.items() if r == role)
            if warps:
                parts.append(f"{role}: {_warp_range(warps)}")
        return ", ".join(parts)


def short_role(role: str | None) -> str:
    """``"compute wg1"`` -> ``"wg1"``; the producer and a lone compute role stay as they are."""
    if role is None:
        return ""
    return role.removeprefix("compute ") if role.startswith("compute wg") else role


def task_warp(task: str) -> int | None:
    head, _, number = task.partition(" ")
    return int(number) if head == "warp" and number.isdigit() else None


def warp_roles(kernel: k.Kernel, block: tuple[int, int, int]) -> WarpRoles | None:
    """The roles of a warp-specialized kernel's warps for a block of ``block`` threads; None when
    the kernel has no producer branch."""
    split = _producer_split(kernel.body)
    if split is None:
        return None
    node, producer_side = split
    bx, by, bz = block
    warps = (bx * by * bz + WARP - 1) // WARP
    tid = np.arange(bx * by * bz)
    env = {"threadIdx.x": tid % bx, "threadIdx.y": (tid // bx) % by, "threadIdx.z": tid // (bx * by),
           "blockDim.x": bx, "blockDim.y": by, "blockDim.z": bz}
    try:
        cond = np.broadcast_to(np.asarray(node.cond.evaluate(env), dtype=bool), tid.shape)
        takes = cond if producer_side else ~cond
        producer = {w for w in range(warps) if takes[w * WARP:(w + 1) * WARP].all()}
    except (KeyError, TypeError, ValueError):
        producer = set()
    if not producer or len(producer) == warps:   # not evaluable here: the producer is the last warp group
        first = max(0, (warps - 1) // WARPS_PER_GROUP * WARPS_PER_GROUP)
        producer = set(range(first, warps))
    compute = [w for w in range(warps) if w not in producer]
    groups = list(dict.fromkeys(w // WARPS_PER_GROUP for w in compute))
    roles = {w: PRODUCER for w in producer}
    for w in compute:
        roles[w] = "compute" if len(compute) < WARPS_PER_GROUP else f"compute wg{groups.index(w // WARPS_PER_GROUP)}"
    return WarpRoles(roles)


def split_loops(kernel: k.Kernel) -> set[str]:
    """The index symbols of the loops inside the producer/compute branch (not, say, the mbarrier
    init before it, which one elected thread runs for the whole block)."""
    split = _producer_split(kernel.body)
    if split is None:
        return set()
    node = split[0]
    return {n.index.name for n in k.walk(node.then_body + node.else_body) if isinstance(n, k.ForLoop)}


def _producer_split(body: tuple[k.Node, ...]) -> tuple[k.IfThenElse, bool] | None:
    """The branch that splits producer from compute, and whether its then side is the producer."""
    for node in k.walk(body):
        if isinstance(node, k.IfThenElse):
            for side, sub in ((True, node.then_body), (False, node.else_body)):
                if any(isinstance(n, k.ForLoop) and n.stage is k.Stage.AsyncWarp for n in k.walk(sub)):
                    return node, side
    return None


def _warp_range(warps: list[int]) -> str:
    if len(warps) == 1:
        return f"warp {warps[0]}"
    if warps == list(range(warps[0], warps[-1] + 1)):
        return f"warps {warps[0]}-{warps[-1]}"
    return "warps " + ", ".join(str(w) for w in warps)
