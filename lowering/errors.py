"""Errors raised while lowering."""


class LoweringError(ValueError):
    """Schedules that are valid call by call but not together; the message names the tensors and the conflict."""
