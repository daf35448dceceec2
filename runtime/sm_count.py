"""How many SMs the GPU has: the block count of a persistent schedule (the target's ``sm_count``,
132 on an H100 SXM, unless the device says otherwise), and the current target with that count."""

from __future__ import annotations

from target import Target
from target import current as current_target

from .errors import NoGpuError


def sm_count(ordinal: int = 0, default: int | None = None) -> int:
    """The number of streaming multiprocessors of device ``ordinal``.

    Without a GPU this raises ``NoGpuError``, unless ``default`` is given: a schedule written on a
    machine without a GPU names the count it assumes (``sm_count(default=target.current().sm_count)``).
    """
    from . import driver as cu

    if not cu.gpu_available():
        if default is not None:
            return default
        raise NoGpuError("sm_count: no GPU to ask; pass default= (e.g. target.current().sm_count) to schedule "
                         "for one without it")
    dev = cu.device(ordinal)
    return dev.attribute(cu.cuda_driver().CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)


def device_target(ordinal: int = 0) -> Target:
    """The current target with the SM count of device ``ordinal`` (``NoGpuError`` without a GPU):
    ``with target.use(runtime.device_target()):`` schedules persistent kernels for the GPU at hand."""
    return current_target().with_sm_count(sm_count(ordinal))
