"""Errors raised by the simulator and the GPU executor."""

from lowering.kernel_ir import InputRule


class RuntimeFailure(RuntimeError):
    """Base class of runtime errors."""


class SimulationError(RuntimeFailure):
    """The simulator found an out-of-bounds access or another illegal operation."""


class DeadlockError(SimulationError):
    """Every task of a block is waiting and none can make progress."""


class InputError(ValueError):
    """Arguments do not match the kernel: dtype, rank, shape, stride or alignment.

    ``rule`` says which rule (``InputRule``; ``rule.is_size_rule`` for sizes the kernel was not made
    for) and ``subject`` names the tensor it is about, when the error is about one."""

    def __init__(self, message: str, rule: InputRule = InputRule.OTHER, subject: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.subject = subject

    def __reduce__(self) -> tuple:   # keep rule and subject across processes (the GPU worker)
        return type(self), (str(self), self.rule, self.subject)


class CompileError(RuntimeFailure):
    """NVRTC rejected the generated source."""


class LaunchError(RuntimeFailure):
    """The driver refused or failed a launch."""


class NoGpuError(RuntimeFailure):
    """No CUDA driver or device is available."""

