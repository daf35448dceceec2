"""Values the host evaluates before a launch are computable from the launch arguments.

Reads: the final kernel: grid and block dimensions, ``smem_bytes``, each shared buffer's
``Allocate.offset`` and size (the launch lays dynamic shared memory out from them), the runtime
checks and the output shapes.
Writes: nothing.
Guarantees: every symbol these read is bound by ``kernel_ir.bind_arguments`` from the arguments: an
extent of an input or a stride of a parameter. A symbol only the kernel computes (a loop index, a
hoisted ``Let``, a thread index) would leave every input failing at launch, so it is refused here
with a ``LoweringError`` naming the value and the symbol.
"""

from __future__ import annotations

from collections.abc import Iterator

from fusion_ir.scalar import Val
from fusion_ir.types import MemoryType

from .errors import LoweringError
from .kernel_ir import Allocate, Kernel, walk


def check_host_sizes(kernel: Kernel) -> None:
    bound = argument_symbols(kernel)
    for what, value in host_values(kernel):
        unbound = sorted(value.symbols() - bound)
        if unbound:
            raise LoweringError(f"kernel {kernel.name}: {what} is {value}, which reads {', '.join(unbound)}; the host "
                                f"evaluates it before the launch, so it may read only the extents of the inputs "
                                f"and the strides of the parameters ({', '.join(sorted(bound)) or 'none'}), not a "
                                f"value the kernel computes")


def argument_symbols(kernel: Kernel) -> set[str]:
    """The symbols ``bind_arguments`` binds: input extents, parameter strides."""
    out: set[str] = set()
    for buf in kernel.inputs:
        out.update(str(e.name) for e in buf.shape if e.is_symbol)
    for buf in kernel.params:
        out.update(str(s.name) for s in buf.strides if s.is_symbol)
    return out


def host_values(kernel: Kernel) -> Iterator[tuple[str, Val]]:
    """Each value the host evaluates, with what it is, in a fixed order."""
    for axis, value in zip("xyz", kernel.grid):
        yield f"grid dimension {axis}", value
    for axis, value in zip("xyz", kernel.block):
        yield f"block dimension {axis}", value
    yield "the shared-memory size (smem_bytes)", kernel.smem_bytes
    for node in walk(kernel.body):
        if not isinstance(node, Allocate) or node.buffer.memory is not MemoryType.Shared:
            continue
        if node.offset is not None:
            yield f"the shared-memory offset of {node.buffer.name}", node.offset
        yield f"the shared-memory size of {node.buffer.name}", node.buffer.nbytes
    for check in kernel.checks:
        yield f"the runtime check '{check.message}'", check.cond
    for buf in kernel.outputs:
        for k, extent in enumerate(buf.shape):
            yield f"extent {k} of output {buf.name}", extent
    for scratch in kernel.scratch:
        yield f"the size of scratch buffer {scratch.buffer.name}", scratch.buffer.size
