"""How many SMs the GPU has: the block count of a persistent schedule (132 on an H100 SXM)."""

from __future__ import annotations

from .errors import NoGpuError

H100_SMS = 132


def sm_count(ordinal: int = 0, default: int | None = None) -> int:
    """The number of streaming multiprocessors of device ``ordinal``.

    Without a GPU this raises ``NoGpuError``, unless ``default`` is given: a schedule written on a
    machine without a GPU names the count it assumes (``sm_count(default=H100_SMS)``).
    """
    from . import driver as cu

    if not cu.gpu_available():
        if default is not None:
            return default
        raise NoGpuError("sm_count: no GPU to ask; pass default= (e.g. runtime.sm_count.H100_SMS) to schedule "
                         "for one without it")
    dev = cu.device(ordinal)
    return dev.attribute(cu.cuda_driver().CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
