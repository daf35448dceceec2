"""Run a kernel on the GPU: validate, generate CUDA, compile with NVRTC, launch, return outputs.

``execute(kernel_or_fusion, inputs)`` is the whole story in order:
1. wrap the arguments (numpy, torch, cupy, ``__cuda_array_interface__``, DLPack) and check them
   against the kernel without touching the GPU (``launch_plan.plan_launch``);
2. take the device's primary context (``NoGpuError`` without driver or device);
3. ``codegen.to_cuda`` and NVRTC to an sm_90a cubin, cached by source and options;
4. copy numpy inputs to the device, allocate (and poison) outputs of the inputs' kind,
   encode TMA descriptors, launch, wait, copy numpy outputs back.
A failed launch leaves the context usable: ``driver.recover`` resets it after sticky errors.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from codegen import to_cuda
from fusion_ir.reference import round_bf16
from fusion_ir.types import DataType
from lowering.kernel_ir import Buffer, Kernel
from target import current as current_target

from . import driver as cu
from .arrays import ArrayArg, ArrayKind, as_array_arg
from .errors import InputError, InputRule, LaunchError
from .kernels import as_kernel, split_inputs
from .launch_plan import LaunchPlan, check_tma_address, plan_launch
from .nvrtc import Cubin, compile_cubin, nvrtc_options_for
from .tensor_map import encode_tiled

DEFAULT_WATCHDOG_S = 10.0   # an mbarrier wait longer than this traps (a deadlock becomes an error)
DEFAULT_TIMEOUT_S = 120.0   # the host gives up waiting for a kernel after this
GRANULE = 16                # bytes: device allocations are rounded up to whole granules (copyMisaligned)

# Byte patterns that make unwritten outputs visible: NaN for floats, a large value for integers.
_POISON = {
    "float32": (4, 0x7FC00000), "int32": (4, 0x7FFFFFFF), "float16": (2, 0x7E00), "bfloat16": (2, 0x7FC0),
    "int64": (1, 0x7F), "bool": (1, 0x7F),
}


def execute(kernel_or_fusion: Any, inputs: Sequence[Any], *, outputs: Sequence[Any] | None = None,
            poison: bool = True, watchdog_s: float | None = DEFAULT_WATCHDOG_S,
            timeout_s: float = DEFAULT_TIMEOUT_S) -> list[Any]:
    """Run ``kernel_or_fusion`` (a ``Kernel``, or a ``Fusion`` that is lowered first) on ``inputs``.

    Outputs come back as the kind of the inputs: numpy for numpy, torch tensors on the same device
    for torch, cupy arrays for cupy. ``outputs`` may pass preallocated device arrays to write into.
    ``poison`` fills freshly allocated outputs with NaN (or large integers) first. ``watchdog_s``
    bounds every mbarrier wait on the device (None: no watchdog); ``timeout_s`` bounds the host's wait.
    """
    kernel = as_kernel(kernel_or_fusion, caller="execute", inputs=inputs)
    tensors, scalars = split_inputs(kernel, inputs)
    args = [as_array_arg(x, _arg_name(kernel.inputs, k, "input")) for k, x in enumerate(tensors)]
    args = [_host_bfloat16(a, buf) for a, buf in zip(args, kernel.inputs)] + args[len(kernel.inputs):]
    given = None
    if outputs is not None:
        given = [as_array_arg(x, _arg_name(kernel.outputs, k, "output")) for k, x in enumerate(outputs)]
        if any(not g.on_device for g in given):
            raise InputError("preallocated outputs must be device arrays (torch, cupy, ...)", InputRule.ARGUMENT_TYPE)
    plan = plan_launch(kernel, args, given)
    dev = cu.device(_device_ordinal(args + (given or [])))
    cubin = compile_kernel(kernel, watchdog_s=watchdog_s)
    function = dev.function(cubin.key, cubin.image, kernel.name)
    return _Launch(dev, kernel, plan, function, args, given, poison, watchdog_s, timeout_s, scalars).run()


def execute_isolated(kernel_or_fusion: Any, inputs: Sequence[np.ndarray], *,
                     timeout_s: float = DEFAULT_TIMEOUT_S, **options: Any) -> list[np.ndarray]:
    """``execute`` in a fresh child process, for numpy arrays.

    A kernel that faults or traps leaves its process unable to use the GPU (a driver rule), so
    kernels that may be wrong (fuzzed schedules, mutation tests) run here: the error comes back
    as the same exception and this process keeps a working context.
    """
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(1) as pool:
        pending = pool.apply_async(execute, (kernel_or_fusion, list(inputs)), dict(options, timeout_s=timeout_s))
        try:
            return pending.get(timeout=timeout_s + 60)
        except multiprocessing.TimeoutError:
            raise LaunchError(f"kernel {getattr(kernel_or_fusion, 'name', '')}: the child process did not finish "
                              f"within {timeout_s + 60} s") from None


def _host_bfloat16(arg: ArrayArg, buf: Buffer) -> ArrayArg:
    """numpy has no bfloat16: a float32 host array for a BFloat16 input is rounded to bfloat16 and
    passed as its 16-bit patterns (the simulator takes the same float32 arrays)."""
    if arg.kind is not ArrayKind.Numpy or buf.dtype is not DataType.BFloat16 or arg.dtype != "float32":
        return arg
    bits = (round_bf16(arg.obj).view(np.uint32) >> 16).astype(np.uint16)
    return ArrayArg(ArrayKind.Numpy, bits, arg.shape, arg.strides, "bfloat16", 2)


def nvrtc_options(watchdog_s: float | None) -> tuple[str, ...]:
    options = nvrtc_options_for(current_target())
    if watchdog_s is None:
        return options
    return options + (f"-DMBARRIER_WATCHDOG_NS={int(watchdog_s * 1e9)}ULL",)


def compile_kernel(kernel: Kernel, *, watchdog_s: float | None = DEFAULT_WATCHDOG_S) -> Cubin:
    """NVRTC-compile the kernel's CUDA (needs NVRTC, not a GPU); ``CompileError`` on failure."""
    return compile_cubin(to_cuda(kernel), f"{kernel.name}.cu", nvrtc_options(watchdog_s))


def _arg_name(buffers: tuple, k: int, role: str) -> str:
    return f"{role} {k} ({buffers[k].name})" if k < len(buffers) else f"{role} {k}"


def _device_ordinal(args: list[ArrayArg]) -> int:
    ordinals = set()
    for a in args:
        if not a.on_device:
            continue
        ordinal = a.device if a.device is not None else _pointer_device(a.ptr)
        ordinals.add(ordinal if ordinal is not None else 0)
    if len(ordinals) > 1:
        raise InputError(f"device arrays on several devices {sorted(ordinals)}; pass them on one", InputRule.DEVICE)
    return ordinals.pop() if ordinals else 0


def _pointer_device(ptr: int | None) -> int | None:
    if ptr is None:
        return None
    cu.device(0)  # the driver must be initialised before it can answer
    return cu.pointer_device(ptr)


class BoundLaunch:
    """One kernel launch with its arguments bound: calling it only enqueues the kernel (``cuLaunchKernel``)
    on the stream of the launch, or, with ``current_stream``, on the array library's current stream at the
    time of the call (so a CUDA graph being captured on it records the launch)."""

    def __init__(self, launch: _Launch, holders: list[Any], params: np.ndarray,
                 current_stream: Any = None) -> None:
        self.launch, self.holders, self.params = launch, holders, params   # the holders keep params' targets alive
        self.current_stream = current_stream
        plan = launch.plan
        self.args = (launch.function, *plan.grid, *plan.block, plan.smem_bytes)

    def __call__(self) -> None:
        driver = cu.cuda_driver()
        stream = self.launch.stream if self.current_stream is None else driver.CUstream(self.current_stream())
        result = driver.cuLaunchKernel(*self.args, stream, self.params, 0)
        if result[0] != driver.CUresult.CUDA_SUCCESS:
            self.launch._fail(f"cuLaunchKernel failed: {cu.error_text(result[0])}")


@dataclass
class _Launch:
    dev: cu.Device
    kernel: Kernel
    plan: LaunchPlan
    function: Any
    inputs: list[ArrayArg]
    given_outputs: list[ArrayArg] | None
    poison: bool
    watchdog_s: float | None
    timeout_s: float
    scalars: dict[str, np.generic] = field(default_factory=dict)   # each scalar parameter's value (split_inputs)

    def run(self) -> list[Any]:
        driver = cu.cuda_driver()
        self.allocations: list[Any] = []
        self.stream = driver.CUstream(self._stream_handle())
        try:
            input_ptrs = [self._device_pointer(a) for a in self.inputs]
            outputs = self._outputs()
            if not self.plan.empty_grid:
                self._launch(input_ptrs + [ptr for _, ptr, _ in outputs] + self._scratch())
                self._wait()
            return [self._result(obj, ptr, host) for obj, ptr, host in outputs]
        finally:
            self._free()

    # ------------------------------------------------------------ memory
    def _stream_handle(self) -> int:
        kinds = {a.kind for a in self.inputs + (self.given_outputs or [])}
        if ArrayKind.Torch in kinds:
            import torch

            return int(torch.cuda.current_stream(self.dev.ordinal).cuda_stream)
        if ArrayKind.Cupy in kinds:
            import cupy

            return int(cupy.cuda.get_current_stream().ptr)
        return 0

    def _current_stream_function(self) -> Any:
        """A function returning the array library's current stream handle, or None for the default stream."""
        kinds = {a.kind for a in self.inputs + (self.given_outputs or [])}
        if ArrayKind.Torch in kinds:
            import torch

            ordinal = self.dev.ordinal
            return lambda: torch.cuda.current_stream(ordinal).cuda_stream
        if ArrayKind.Cupy in kinds:
            import cupy

            return lambda: cupy.cuda.get_current_stream().ptr
        return None

    def _alloc(self, nbytes: int, what: str) -> int:
        """A device allocation of at least ``nbytes``, rounded up to a whole 16-byte granule: a misaligned vector
        (``copyMisaligned``) reads the whole granule of a tensor's last element."""
        if nbytes == 0:
            return 0
        nbytes = -(-nbytes // GRANULE) * GRANULE
        ptr = cu.check(cu.cuda_driver().cuMemAlloc(nbytes), f"cuMemAlloc({nbytes}) for {what}")
        self.allocations.append(ptr)
        return int(ptr)

    def _free(self) -> None:
        driver = cu.cuda_driver()
        for ptr in self.allocations:
            driver.cuMemFree(ptr)  # errors ignored: after a context reset the memory is gone already
        self.allocations = []

    def _device_pointer(self, arg: ArrayArg) -> int:
        if arg.on_device:
            return int(arg.ptr)  # type: ignore[arg-type]
        ptr = self._alloc(arg.nbytes, "an input")
        if arg.nbytes:
            cu.check(cu.cuda_driver().cuMemcpyHtoD(ptr, arg.obj.ctypes.data, arg.nbytes), "cuMemcpyHtoD of an input")
        return ptr

    def _outputs(self) -> list[tuple[Any, int, bool]]:
        """(array object, device pointer, is a host numpy result) of each output."""
        if self.given_outputs is not None:
            return [(g.obj, int(g.ptr), False) for g in self.given_outputs]  # type: ignore[arg-type]
        kind = _output_kind(self.inputs)
        out = []
        for buf, shape in zip(self.kernel.outputs, self.plan.output_shapes):
            dtype = buf.dtype.numpy_name
            if kind is ArrayKind.Torch:
                import torch

                obj = torch.empty(shape, dtype=getattr(torch, dtype), device=f"cuda:{self.dev.ordinal}")
                ptr = int(obj.data_ptr())
            elif kind is ArrayKind.Cupy:
                import cupy

                with cupy.cuda.Device(self.dev.ordinal):
                    obj = cupy.empty(shape, dtype=_numpy_dtype(dtype))
                ptr = int(obj.data.ptr)
            else:
                # numpy has no bfloat16: the 16-bit patterns come back and _result widens them to float32
                obj = np.empty(shape, dtype=np.uint16 if dtype == "bfloat16" else _numpy_dtype(dtype))
                ptr = self._alloc(obj.nbytes, f"output {buf.name}")
            if self.poison:
                self._poison(ptr, dtype, int(np.prod(shape, dtype=np.int64)) * buf.dtype.size)
            out.append((obj, ptr, kind is ArrayKind.Numpy))
        return out

    def _scratch(self) -> list[int]:
        """Device memory for the kernel's own global buffers (``Kernel.scratch``), allocated for this launch:
        a grid reduction's work buffer as it comes (every partial is written before it is read), its
        semaphores zeroed (the last block of each output tile puts its semaphore back to zero)."""
        pointers = []
        for scratch, size in zip(self.kernel.scratch, self.plan.scratch_sizes):
            nbytes = size * scratch.buffer.dtype.size
            ptr = self._alloc(nbytes, f"scratch buffer {scratch.buffer.name}")
            if scratch.zeroed and nbytes:
                cu.check(cu.cuda_driver().cuMemsetD8Async(ptr, 0, nbytes, self.stream),
                         f"zeroing scratch buffer {scratch.buffer.name}")
            pointers.append(ptr)
        return pointers

    def _poison(self, ptr: int, dtype: str, nbytes: int) -> None:
        if nbytes == 0:
            return
        driver = cu.cuda_driver()
        width, value = _POISON[dtype]
        if width == 4:
            result = driver.cuMemsetD32Async(ptr, value, nbytes // 4, self.stream)
        elif width == 2:
            result = driver.cuMemsetD16Async(ptr, value, nbytes // 2, self.stream)
        else:
            result = driver.cuMemsetD8Async(ptr, value, nbytes, self.stream)
        cu.check(result, "poisoning an output")

    def _result(self, obj: Any, ptr: int, host: bool) -> Any:
        if host and obj.nbytes:
            cu.check(cu.cuda_driver().cuMemcpyDtoH(obj.ctypes.data, ptr, obj.nbytes), "cuMemcpyDtoH of an output")
        if host and obj.dtype == np.uint16:     # bfloat16 bits, as float32 like the simulator returns them
            return (obj.astype(np.uint32) << 16).view(np.float32)
        return obj

    # ------------------------------------------------------------ launch
    def _launch(self, pointers: list[int]) -> None:
        self._bind(pointers)()

    def _bind(self, pointers: list[int]) -> BoundLaunch:
        """Everything a launch needs but the launch itself: the argument holders and tensor maps
        (encoded once for these pointers), and the kernel's dynamic shared-memory limit raised."""
        driver = cu.cuda_driver()
        kernel, plan = self.kernel, self.plan
        holders: list[Any] = []
        shapes = [a.shape for a in self.inputs] + list(plan.output_shapes)
        strides = [a.strides for a in self.inputs] + (
            [g.strides for g in self.given_outputs] if self.given_outputs is not None else list(plan.output_strides))
        shapes += [(size,) for size in plan.scratch_sizes]
        strides += [(1,) for _ in plan.scratch_sizes]
        for ptr, shape, stride in zip(pointers, shapes, strides):
            holders.append(np.array([_as_int64(ptr), *shape, *stride], dtype=np.int64))
        for spec in plan.tensor_maps:
            address = pointers[spec.param_index]
            check_tma_address(f"tensor map {spec.name}", kernel.params[spec.param_index].name, address)
            holders.append(encode_tiled(spec, address))
        for scalar in kernel.scalars:       # by value, after the tensor maps (codegen's signature)
            holders.append(np.array([self.scalars[scalar.name]], dtype=np.dtype(scalar.param_dtype.numpy_name)))
        addresses = [h.ctypes.data if isinstance(h, np.ndarray) else int(h.getPtr()) for h in holders]
        params = np.array(addresses, dtype=np.uint64)

        config = plan.describe(kernel.name)
        if plan.smem_bytes > current_target().smem_per_block_default:
            limit = self.dev.attribute(
                driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            if plan.smem_bytes > limit:
                raise LaunchError(f"{config}: the device allows at most {limit} bytes of shared memory per block")
            cu.check(driver.cuFuncSetAttribute(
                self.function, driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                plan.smem_bytes), f"{config}: raising the dynamic shared-memory limit")
        return BoundLaunch(self, holders, params)

    def _wait(self) -> None:
        driver = cu.cuda_driver()
        deadline = time.monotonic() + self.timeout_s
        delay = 1e-5
        while True:
            (err,) = driver.cuStreamQuery(self.stream)
            if err != driver.CUresult.CUDA_ERROR_NOT_READY:
                break
            if time.monotonic() > deadline:
                raise LaunchError(f"{self.plan.describe(self.kernel.name)}: still running after {self.timeout_s} s; "
                                  f"it is probably deadlocked (a __syncthreads not every thread reaches?). The "
                                  f"context cannot be recovered while the kernel runs")
            time.sleep(delay)
            delay = min(2 * delay, 0.01)
        if err != driver.CUresult.CUDA_SUCCESS:
            hint = ""
            if self.watchdog_s is not None and err in (driver.CUresult.CUDA_ERROR_LAUNCH_FAILED,
                                                       driver.CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION):
                hint = (f"; if the kernel waits on mbarriers, the watchdog may have trapped a wait longer than "
                        f"{self.watchdog_s} s (a pipeline deadlock: missing arrive, expect-tx or wrong parity)")
            self._fail(f"the kernel failed: {cu.error_text(err)}{hint}")

    def _fail(self, message: str) -> None:
        state = cu.recover(self.dev)
        if state is not cu.ContextState.Ok:
            self.allocations = []  # gone with the context
        if state is cu.ContextState.Reset:
            message += ("; the CUDA context had a sticky error and was reset, so device arrays created before "
                        "this call are invalid")
        elif state is cu.ContextState.Unusable:
            message += ("; the CUDA context had a sticky error and the driver allows no further GPU work in this "
                        "process: restart it (execute_isolated runs such kernels in a child process)")
        raise LaunchError(f"{self.plan.describe(self.kernel.name)}: {message}")


def _output_kind(inputs: list[ArrayArg]) -> ArrayKind:
    kinds = [a.kind for a in inputs]
    if ArrayKind.Torch in kinds:
        return ArrayKind.Torch
    if ArrayKind.Cupy in kinds or ArrayKind.Cai in kinds:
        try:
            import cupy  # noqa: F401

            return ArrayKind.Cupy
        except ImportError:
            return ArrayKind.Numpy
    return ArrayKind.Numpy


def _numpy_dtype(name: str) -> np.dtype:
    try:
        return np.dtype(name)
    except TypeError:
        if name == "bfloat16":
            try:
                import ml_dtypes

                return np.dtype(ml_dtypes.bfloat16)
            except ImportError:
                pass
        raise InputError(f"numpy has no {name} dtype here (bfloat16 needs the ml_dtypes package)",
                         InputRule.DTYPE) from None


def _as_int64(ptr: int) -> int:
    return ptr - 2**64 if ptr >= 2**63 else ptr


def prepare(kernel_or_fusion: Any, inputs: Sequence[Any], outputs: Sequence[Any]) -> BoundLaunch:
    """Check and bind device arguments once; return a function that only launches.

    For timing: the returned call enqueues the kernel on the current stream of the inputs' array
    library (torch's or cupy's; the default stream otherwise) and returns at once: no argument
    checks, no tensor-map encoding, no wait, so CUDA events (or a CUDA graph captured around it)
    time the device work.
    """
    kernel = as_kernel(kernel_or_fusion, caller="prepare", inputs=inputs)
    tensors, scalars = split_inputs(kernel, inputs)
    args = [as_array_arg(x, _arg_name(kernel.inputs, k, "input")) for k, x in enumerate(tensors)]
    given = [as_array_arg(x, _arg_name(kernel.outputs, k, "output")) for k, x in enumerate(outputs)]
    if any(not a.on_device for a in args + given):
        raise InputError("prepare() needs device arrays (torch, cupy, ...) for inputs and outputs",
                         InputRule.ARGUMENT_TYPE)
    plan = plan_launch(kernel, args, given)
    dev = cu.device(_device_ordinal(args + given))
    cubin = compile_kernel(kernel, watchdog_s=None)
    function = dev.function(cubin.key, cubin.image, kernel.name)
    launch = _Launch(dev, kernel, plan, function, args, given, False, None, DEFAULT_TIMEOUT_S, scalars)
    launch.allocations = []
    launch.stream = cu.cuda_driver().CUstream(launch._stream_handle())
    # the kernel's scratch (a grid reduction's partials and semaphores) once, for every launch of the returned
    # call: the semaphores are zeroed once here, and each launch's last blocks put them back to zero
    pointers = [launch._device_pointer(a) for a in args + given] + launch._scratch()
    bound = launch._bind(pointers)
    bound.current_stream = launch._current_stream_function()
    if launch.allocations:            # the scratch lives as long as the returned launch
        weakref.finalize(bound, launch._free)
    return bound


def compile_kernels(kernels: Sequence[Kernel], *, watchdog_s: float | None = DEFAULT_WATCHDOG_S,
                    workers: int | None = None) -> list[Cubin | Exception]:
    """Compile many kernels at once (NVRTC in a pool of threads; each cubin lands in the compile cache, so
    later ``execute`` and ``prepare`` calls of these kernels with the same ``watchdog_s`` find it): a tuner's
    candidates or a benchmark's kernels. Returns each kernel's cubin or the error its compile raised."""
    from concurrent.futures import ThreadPoolExecutor

    def one(kernel: Kernel) -> Cubin | Exception:
        try:
            return compile_kernel(kernel, watchdog_s=watchdog_s)
        except Exception as e:  # noqa: BLE001 - returned, for the caller to report per kernel
            return e
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, kernels))
