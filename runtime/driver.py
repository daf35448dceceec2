"""The CUDA driver through cuda-python: device and primary context, modules, error translation.

Every driver result is checked here and turned into a ``NoGpuError`` or ``LaunchError`` whose
message names the call and the CUDA error, never a bare code. After a failed launch, ``recover``
checks whether the context took a sticky error (illegal address, trap, ...) and resets the
primary context. Current drivers may refuse all further work in a process after a sticky error
("the process must be terminated and relaunched"); then the device is marked unusable and every
later call says so plainly. ``executor.execute_isolated`` runs a kernel in a child process for
exactly that reason.
"""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass, field
from typing import Any

from .errors import LaunchError, NoGpuError

_lock = threading.RLock()
_initialized = False
_devices: dict[int, Device] = {}
_unusable: dict[int, str] = {}  # device ordinal -> why this process can no longer use it


def cuda_driver() -> Any:
    """The ``cuda.bindings.driver`` module; ``NoGpuError`` when cuda-python is missing."""
    try:
        from cuda.bindings import driver
    except ImportError as e:
        raise NoGpuError("cuda-python is not installed (pip install cuda-python)") from e
    return driver


def error_text(err: Any) -> str:
    driver = cuda_driver()
    try:
        _, name = driver.cuGetErrorName(err)
        _, text = driver.cuGetErrorString(err)
        return f"{name.decode()} ({text.decode()})"
    except Exception:  # noqa: BLE001 - the driver may be gone; the enum name is still informative
        return str(err)


def check(result: tuple, what: str, error: type[Exception] = LaunchError) -> Any:
    """Unpack a cuda-python result tuple; raise ``error`` naming ``what`` unless it succeeded."""
    driver = cuda_driver()
    err, *values = result
    if err != driver.CUresult.CUDA_SUCCESS:
        raise error(f"{what} failed: {error_text(err)}")
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def _init() -> None:
    global _initialized
    if _initialized:
        return
    driver = cuda_driver()
    try:
        (err,) = driver.cuInit(0)
    except Exception as e:
        raise NoGpuError(f"no CUDA driver: {e}") from e
    if err != driver.CUresult.CUDA_SUCCESS:
        raise NoGpuError(f"cuInit failed: {error_text(err)}")
    count = check(driver.cuDeviceGetCount(), "cuDeviceGetCount", NoGpuError)
    if count == 0:
        raise NoGpuError("the CUDA driver reports no devices")
    _initialized = True


def gpu_available() -> bool:
    """True when the driver initialises and reports a device (used to skip GPU tests)."""
    try:
        with _lock:
            _init()
        return True
    except NoGpuError:
        return False


@dataclass
class Device:
    ordinal: int
    handle: Any
    context: Any
    functions: dict[tuple[str, str], Any] = field(default_factory=dict)  # (cubin key, name) -> CUfunction
    modules: list[Any] = field(default_factory=list)

    def make_current(self) -> None:
        check(cuda_driver().cuCtxSetCurrent(self.context), "cuCtxSetCurrent")

    def attribute(self, attr: Any) -> int:
        return int(check(cuda_driver().cuDeviceGetAttribute(attr, self.handle), "cuDeviceGetAttribute"))

    @property
    def name(self) -> str:
        raw = check(cuda_driver().cuDeviceGetName(256, self.handle), "cuDeviceGetName")
        return raw.split(b"\0")[0].decode()

    def function(self, cubin_key: str, image: bytes, name: str) -> Any:
        """The kernel ``name`` of a cubin, loading the module once per context."""
        driver = cuda_driver()
        key = (cubin_key, name)
        if key not in self.functions:
            module = check(driver.cuModuleLoadData(image), f"cuModuleLoadData for kernel {name}")
            self.modules.append(module)
            self.functions[key] = check(driver.cuModuleGetFunction(module, name.encode()),
                                        f"cuModuleGetFunction({name})")
        return self.functions[key]


def device(ordinal: int = 0) -> Device:
    """The device ``ordinal`` with its primary context current on this thread."""
    with _lock:
        _init()
        driver = cuda_driver()
        if ordinal in _unusable:
            raise LaunchError(f"device {ordinal} is unusable in this process: {_unusable[ordinal]}. The driver "
                              f"allows no GPU work after that; restart the process (execute_isolated runs "
                              f"kernels that may fault in a child process)")
        if ordinal not in _devices:
            count = check(driver.cuDeviceGetCount(), "cuDeviceGetCount", NoGpuError)
            if not 0 <= ordinal < count:
                raise NoGpuError(f"device {ordinal} does not exist; the driver reports {count} device(s)")
            handle = check(driver.cuDeviceGet(ordinal), f"cuDeviceGet({ordinal})", NoGpuError)
            context = check(driver.cuDevicePrimaryCtxRetain(handle), "cuDevicePrimaryCtxRetain", NoGpuError)
            _devices[ordinal] = Device(ordinal, handle, context)
        dev = _devices[ordinal]
        dev.make_current()
        return dev


def pointer_device(ptr: int) -> int | None:
    """The ordinal of the device that owns ``ptr``, or None if the driver cannot tell."""
    driver = cuda_driver()
    try:
        err, value = driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                                  ptr)
    except Exception:  # noqa: BLE001
        return None
    return int(value) if err == driver.CUresult.CUDA_SUCCESS else None


class ContextState(enum.Enum):
    """The context after a failed launch (``recover``)."""

    Ok = "ok"                # healthy
    Reset = "reset"          # it had a sticky error; a reset primary context works again
    Unusable = "unusable"    # the driver refuses this process the device for good


def recover(dev: Device) -> ContextState:
    """After a failure: the state of the context (``ContextState``), reset when it had a sticky error.

    A reset destroys the device memory of the context, including torch or cupy arrays.
    """
    driver = cuda_driver()
    with _lock:
        (err,) = driver.cuCtxSynchronize()
        if err == driver.CUresult.CUDA_SUCCESS:
            return ContextState.Ok
        reason = f"a kernel hit {error_text(err)}"
        dev.functions.clear()
        dev.modules.clear()
        _devices.pop(dev.ordinal, None)
        driver.cuDevicePrimaryCtxRelease(dev.handle)
        driver.cuDevicePrimaryCtxReset(dev.handle)
        err, context = driver.cuDevicePrimaryCtxRetain(dev.handle)
        if err == driver.CUresult.CUDA_SUCCESS:
            driver.cuCtxSetCurrent(context)
            (sync_err,) = driver.cuCtxSynchronize()
            if sync_err == driver.CUresult.CUDA_SUCCESS:
                _devices[dev.ordinal] = Device(dev.ordinal, dev.handle, context)
                return ContextState.Reset
            driver.cuDevicePrimaryCtxRelease(dev.handle)
        _unusable[dev.ordinal] = reason
        return ContextState.Unusable
