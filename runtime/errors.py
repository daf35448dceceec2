"""Errors raised by the simulator and the GPU executor."""


class RuntimeFailure(RuntimeError):
    """Base class of runtime errors."""


class SimulationError(RuntimeFailure):
    """The simulator found an out-of-bounds access or another illegal operation."""


class DeadlockError(SimulationError):
    """Every task of a block is waiting and none can make progress."""


class InputError(ValueError):
    """Arguments do not match the kernel: dtype, rank, shape, stride or alignment."""


class CompileError(RuntimeFailure):
    """NVRTC rejected the generated source."""


class LaunchError(RuntimeFailure):
    """The driver refused or failed a launch."""


class NoGpuError(RuntimeFailure):
    """No CUDA driver or device is available."""

