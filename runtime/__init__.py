"""Running kernels: ``simulate`` on the CPU with numpy (and, on a GPU machine, ``execute``)."""

from .errors import (CompileError, DeadlockError, InputError, LaunchError, NoGpuError, PipelineFillError,
                     RuntimeFailure, SimulationError)
from .simulator import simulate

__all__ = ["CompileError", "DeadlockError", "InputError", "LaunchError", "NoGpuError", "PipelineFillError",
           "RuntimeFailure", "SimulationError", "simulate"]
