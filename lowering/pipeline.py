"""The lowering pipeline: one list of passes, read top to bottom.

Each pass is ``run(kernel, ctx) -> kernel``: it reads the kernel IR and the shared
``LoweringContext`` and returns a rebuilt kernel. ``lower(fusion, trace=True)`` keeps the
kernel after every pass, with its time, so ``viz`` can show each step.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from fusion_ir import Fusion

from . import emission_order
from .context import LoweringContext
from .errors import LoweringError
from .kernel_ir import Kernel
from .limits import check_launch_limits
from .passes import (allocation, circular_buffer, id_graph, indexing, launch, loop_nest, mbarrier,
                     smem_reuse, syncs)
from .persistent_buffers import check_persistent_buffers

Pass = Callable[[Kernel, LoweringContext], Kernel]

PIPELINE: list[tuple[str, Pass]] = [
    ("id_graph", id_graph.run),                # exact/loop maps, parallel types, validation
    ("emission_order", emission_order.run),    # tensors ordered so inlined loops can be shared
    ("loop_nest", loop_nest.run),              # loops from compute-at positions
    ("allocation", allocation.run),            # buffers placed and sized
    ("mbarrier", mbarrier.run),                # mbarrier/token arrays and their lifetime
    ("smem_reuse", smem_reuse.run),            # shared-memory offsets by live interval
    ("circular_buffer", circular_buffer.run),  # pipeline stages cloned
    ("syncs", syncs.run),                      # __syncthreads for RAW/WAR, async waits
    ("indexing", indexing.run),                # explicit indices and predicates
    ("launch", launch.run),                    # launch dimensions and runtime checks
]

PASS_NAMES = [name for name, _ in PIPELINE]


@dataclass
class PassRecord:
    name: str
    kernel: Kernel
    seconds: float


@dataclass
class LoweredKernel:
    """``lower(..., trace=True)``: the final kernel plus the kernel after every pass."""

    kernel: Kernel
    passes: list[PassRecord] = field(default_factory=list)
    context: LoweringContext | None = None

    def after(self, name: str) -> Kernel:
        for record in self.passes:
            if record.name == name:
                return record.kernel
        raise KeyError(f"unknown pass {name!r}; passes are {', '.join(PASS_NAMES)}")


def lower(fusion: Fusion, trace: bool = False) -> Kernel | LoweredKernel:
    if not isinstance(fusion, Fusion):
        raise LoweringError(f"lower: expected a Fusion, got {type(fusion).__name__}")
    if not fusion.outputs:
        raise LoweringError("lower: the fusion has no outputs")
    check_persistent_buffers(fusion)
    ctx = LoweringContext(fusion)
    kernel = empty_kernel(fusion)
    records: list[PassRecord] = []
    for name, run in PIPELINE:
        start = time.perf_counter()
        kernel = run(kernel, ctx)
        if trace:
            records.append(PassRecord(name, kernel, time.perf_counter() - start))
    check_launch_limits(kernel)
    if trace:
        return LoweredKernel(kernel, records, ctx)
    return kernel


def empty_kernel(fusion: Fusion) -> Kernel:
    from fusion_ir.scalar import Val

    one = Val.const(1)
    return Kernel(name="fusion_kernel", body=(), inputs=(), outputs=(), tensor_maps=(),
                  grid=(one, one, one), block=(one, one, one), smem_bytes=Val.const(0), fusion=fusion)
