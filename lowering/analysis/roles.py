"""The load and compute sub-DAGs of a fusion: what a producer (AsyncWarp) branch would run and
what the compute (ComputeWarp) branch runs.

The load sub-DAG holds the tensors defined by an asynchronous copy from global memory (TMA or
cp.async) and the fusion inputs that feed only such copies; everything else on a path to an
output is the compute sub-DAG. The circular-buffer pass and ``viz --show dag`` both read this.
"""

from __future__ import annotations

import enum

from fusion_ir import ASYNC_LOADS, Fusion, TensorView, load_kind


class Role(enum.Enum):
    Load = "load"
    Compute = "compute"


def sub_dags(fusion: Fusion) -> dict[TensorView, Role]:
    """``Role.Load`` or ``Role.Compute`` for every tensor on a path to an output, in topological order."""
    used = fusion.used_tensors()
    out: dict[TensorView, Role] = {}
    for tv in used:
        consumers = [c for c in tv.consumers() if c in used]
        feeds_only_loads = tv.is_input and consumers and all(load_kind(c) in ASYNC_LOADS for c in consumers)
        out[tv] = Role.Load if load_kind(tv) in ASYNC_LOADS or feeds_only_loads else Role.Compute
    return out
