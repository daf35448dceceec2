"""Running kernels: ``simulate`` on the CPU with numpy, ``execute`` on the GPU (NVRTC + driver)."""

from .errors import (
                     CompileError,
                     DeadlockError,
                     InputError,
                     InputRule,
                     LaunchError,
                     NoGpuError,
                     RuntimeFailure,
                     SimulationError,
)
from .executor import execute, execute_isolated
from .simulator import simulate
from .sm_count import device_target, sm_count

__all__ = ["CompileError", "DeadlockError", "InputError", "InputRule", "LaunchError", "NoGpuError", "RuntimeFailure",
           "SimulationError", "device_target", "execute", "execute_isolated", "simulate", "sm_count"]
