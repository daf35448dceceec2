"""Uniform view of the arrays ``execute`` accepts: numpy, torch, cupy, ``__cuda_array_interface__``, DLPack.

Device arrays are used in place through their pointers (never copied); numpy arrays are
made C-contiguous here (``host_layout``) and copied to the device by the executor.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import numpy as np

from lowering.kernel_ir import InputRule

from .errors import InputError

_DLPACK_CPU, _DLPACK_CUDA = 1, 2


def bfloat16_input_hint(host: bool) -> str:
    """How to pass a BFloat16 input, appended to the message that refuses another dtype for one."""
    if host:
        return ("; numpy has no bfloat16: pass float32 values (each rounded to the nearest bfloat16, ties to even) "
                "or an ml_dtypes.bfloat16 array; float16 is another 16-bit format and is never converted: "
                "pass x.astype(np.float32)")
    return "; a device array for a bfloat16 input must hold bfloat16 already (torch.bfloat16, ...)"


class ArrayKind(enum.Enum):
    """Which library made an argument: host arrays are copied to the device, device arrays used in place, and
    outputs come back as the inputs' kind (on their library's current stream)."""

    Numpy = "numpy"     # host memory
    Torch = "torch"
    Cupy = "cupy"
    Cai = "cai"         # another ``__cuda_array_interface__`` exporter


@dataclass
class ArrayArg:
    """What validation and launch need to know about one argument."""

    kind: ArrayKind
    obj: Any                     # the array to read from / write into
    shape: tuple[int, ...]
    strides: tuple[int, ...]     # in elements
    dtype: str                   # numpy-style name: float32, float16, bfloat16, int32, int64, bool
    itemsize: int
    ptr: int | None = None       # device address; None for host arrays until copied
    device: int | None = None    # device ordinal when known

    @property
    def on_device(self) -> bool:
        return self.kind is not ArrayKind.Numpy

    @property
    def nbytes(self) -> int:
        n = self.itemsize
        for s in self.shape:
            n *= s
        return n


def as_array_arg(x: Any, what: str) -> ArrayArg:
    """Wrap one argument; ``what`` names it in error messages (e.g. "input 0 (T0)")."""
    if isinstance(x, np.ndarray | np.generic):
        return _numpy_arg(np.asarray(x))
    module = type(x).__module__.split(".")[0]
    if module == "torch":
        return _torch_arg(x, what)
    cai = _cuda_array_interface(x)
    if cai is not None:
        return _cai_arg(x, cai, ArrayKind.Cupy if module == "cupy" else ArrayKind.Cai, what)
    if hasattr(x, "__dlpack__"):
        return _dlpack_arg(x, what)
    raise InputError(f"{what}: unsupported argument type {type(x).__name__}; pass a numpy array or a device "
                     f"array exposing __cuda_array_interface__ or DLPack (torch, cupy)", InputRule.ARGUMENT_TYPE)


def host_layout(a: np.ndarray) -> np.ndarray:
    """The layout rule for host (numpy) arguments of ``simulate`` and ``execute``: any strides are
    accepted, and an array that is not C-contiguous is copied to one first (one pass over the
    array on the host; ``execute`` copies host arrays to the device anyway). Device arrays are
    never copied: their strides must suit the kernel (see docs/pipelines.md, "Input layouts")."""
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def _numpy_arg(a: np.ndarray) -> ArrayArg:
    a = host_layout(a)
    return ArrayArg(ArrayKind.Numpy, a, tuple(a.shape), _element_strides(a.strides, a.itemsize, "numpy array"),
                    a.dtype.name, a.itemsize)


def _torch_arg(t: Any, what: str) -> ArrayArg:
    if not t.is_cuda:
        raise InputError(f"{what}: a CPU torch tensor; pass t.numpy() or a CUDA tensor", InputRule.DEVICE)
    dtype = str(t.dtype).removeprefix("torch.")
    return ArrayArg(ArrayKind.Torch, t, tuple(t.shape), tuple(int(s) for s in t.stride()), dtype, t.element_size(),
                    ptr=int(t.data_ptr()), device=t.device.index)


def _cuda_array_interface(x: Any) -> dict | None:
    try:
        return getattr(x, "__cuda_array_interface__", None)
    except (TypeError, AttributeError, RuntimeError):
        return None


def _cai_arg(x: Any, cai: dict, kind: ArrayKind, what: str) -> ArrayArg:
    dtype = np.dtype(cai["typestr"])
    shape = tuple(int(s) for s in cai["shape"])
    if cai.get("strides") is None:
        strides = contiguous_strides(shape)
    else:
        strides = _element_strides(tuple(cai["strides"]), dtype.itemsize, what)
    ptr = int(cai["data"][0])
    device = getattr(getattr(x, "device", None), "id", None)
    return ArrayArg(kind, x, shape, strides, dtype.name, dtype.itemsize, ptr=ptr, device=device)


def _dlpack_arg(x: Any, what: str) -> ArrayArg:
    device_type = x.__dlpack_device__()[0] if hasattr(x, "__dlpack_device__") else _DLPACK_CUDA
    if device_type == _DLPACK_CPU:
        return _numpy_arg(np.from_dlpack(x))
    if device_type != _DLPACK_CUDA:
        raise InputError(f"{what}: DLPack device type {device_type} is not a CUDA device", InputRule.DEVICE)
    try:
        import cupy

        arr = cupy.from_dlpack(x)
        return _cai_arg(arr, arr.__cuda_array_interface__, ArrayKind.Cupy, what)
    except ImportError:
        pass
    try:
        import torch

        return _torch_arg(torch.from_dlpack(x), what)
    except ImportError:
        raise InputError(f"{what}: reading a CUDA DLPack array needs cupy or torch", InputRule.ARGUMENT_TYPE) from None


def _element_strides(byte_strides: tuple[int, ...], itemsize: int, what: str) -> tuple[int, ...]:
    out = []
    for s in byte_strides:
        if s % itemsize != 0:
            raise InputError(f"{what}: byte stride {s} is not a multiple of the element size {itemsize}",
                             InputRule.STRIDE)
        out.append(s // itemsize)
    return tuple(out)


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides = []
    running = 1
    for extent in reversed(shape):
        strides.append(running)
        running *= max(extent, 1)
    return tuple(reversed(strides))

