"""The GPU target: one frozen description of the hardware every layer reads (LLVM's subtarget info).

``target.current()`` is the target being generated for (``H100`` by default); ``with
target.use(t):`` installs another; ``runtime.device_target()`` is the current one with the SM
count of the GPU at hand. Nothing here imports the rest of the project: ``fusion_ir``,
``lowering``, ``codegen`` and ``runtime`` all import it.
"""

from .active import DEFAULT_TARGET, current, use
from .gpus import H100, H100_PCIE, H200
from .model import Target, Tma, Wgmma

__all__ = ["DEFAULT_TARGET", "H100", "H100_PCIE", "H200", "Target", "Tma", "Wgmma", "current", "use"]
