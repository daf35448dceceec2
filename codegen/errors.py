"""Errors raised while generating or checking CUDA."""


class CodegenError(ValueError):
    """The kernel IR cannot be printed as CUDA; the message names the node, buffer or symbol."""


class NvccError(RuntimeError):
    """nvcc or ptxas rejected the source, or reported a warning."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log
