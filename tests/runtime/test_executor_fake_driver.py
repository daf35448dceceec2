"""runtime.execute's driver plumbing against a fake ``cuda.bindings.driver`` (CPU only).

The fake keeps device memory in numpy buffers and records launches, so these tests check what the
executor hands the driver: parameter bytes, launch shape, the shared-memory attribute, tensor-map
arguments, output poisoning, copies back, and recovery after a failed kernel. Numerics on a real GPU
are in test_executor_gpu.py.
"""

from __future__ import annotations

import ctypes
from dataclasses import replace
from enum import IntEnum
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from fusion_ir.scalar import Val
from fusion_ir.types import DataType, SmemSwizzle
from runtime import LaunchError, executor
from runtime import driver as cu
from tests.codegen import sample_kernels as s


class CUresult(IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1
    CUDA_ERROR_NOT_READY = 600
    CUDA_ERROR_ILLEGAL_ADDRESS = 700
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715
    CUDA_ERROR_LAUNCH_FAILED = 719


OK = CUresult.CUDA_SUCCESS


class FakeTensorMap:
    def __init__(self, args: tuple) -> None:
        self.args = args
        self.buffer = np.zeros(16, dtype=np.uint64)

    def getPtr(self) -> int:
        return self.buffer.ctypes.data


class FakeDriver:
    def __init__(self, kernel_error: CUresult = OK) -> None:
        self.memory: dict[int, np.ndarray] = {}
        self.next_address = 0x10000
        self.calls: list[tuple[str, tuple]] = []
        self.launches: list[dict[str, Any]] = []
        self.tensor_maps: list[FakeTensorMap] = []
        self.kernel_error = kernel_error
        self.context_broken = False
        self.reset_heals = True  # False: like drivers that refuse a process any work after a sticky error
        self.CUresult = CUresult
        self.CUstream = lambda handle: ("stream", handle)
        self.cuuint64_t = self.cuuint32_t = int
        names = ["CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES",
                 "CU_TENSOR_MAP_DATA_TYPE_FLOAT32", "CU_TENSOR_MAP_DATA_TYPE_FLOAT16", "CU_TENSOR_MAP_INTERLEAVE_NONE",
                 "CU_TENSOR_MAP_SWIZZLE_NONE", "CU_TENSOR_MAP_SWIZZLE_32B", "CU_TENSOR_MAP_SWIZZLE_64B",
                 "CU_TENSOR_MAP_SWIZZLE_128B",
                 "CU_TENSOR_MAP_L2_PROMOTION_L2_128B", "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE"]
        enum = SimpleNamespace(**{n: n for n in names})
        self.CUdevice_attribute = self.CUfunction_attribute = self.CUtensorMapDataType = enum
        self.CUtensorMapInterleave = self.CUtensorMapSwizzle = self.CUtensorMapL2promotion = enum
        self.CUtensorMapFloatOOBfill = self.CUpointer_attribute = enum

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("cu"):
            raise AttributeError(name)

        def record(*args: Any) -> tuple:
            self.calls.append((name, args))
            return (OK,)

        return record

    # -- device and context
    def cuInit(self, flags: int) -> tuple:
        return (OK,)

    def cuDeviceGetCount(self) -> tuple:
        return (OK, 1)

    def cuDeviceGet(self, ordinal: int) -> tuple:
        return (OK, ("device", ordinal))

    def cuDevicePrimaryCtxRetain(self, dev: Any) -> tuple:
        self.calls.append(("cuDevicePrimaryCtxRetain", (dev,)))
        return (OK, "context")

    def cuDeviceGetAttribute(self, attr: str, dev: Any) -> tuple:
        return (OK, 232448)

    def cuModuleLoadData(self, image: bytes) -> tuple:
        self.calls.append(("cuModuleLoadData", ()))
        return (OK, "module")

    def cuModuleGetFunction(self, module: Any, name: bytes) -> tuple:
        return (OK, ("function", name))

    def cuGetErrorName(self, err: CUresult) -> tuple:
        return (OK, err.name.encode())

    def cuGetErrorString(self, err: CUresult) -> tuple:
        return (OK, b"fake error")

    # -- memory
    def cuMemAlloc(self, n: int) -> tuple:
        address = self.next_address
        self.next_address += (n + 255) // 256 * 256
        self.memory[address] = np.zeros(n, dtype=np.uint8)
        return (OK, address)

    def cuMemcpyHtoD(self, dst: int, src: int, n: int) -> tuple:
        self.memory[dst][:n] = np.frombuffer(ctypes.string_at(src, n), dtype=np.uint8)
        return (OK,)

    def cuMemcpyDtoH(self, dst: int, src: int, n: int) -> tuple:
        ctypes.memmove(dst, self.memory[src].ctypes.data, n)
        return (OK,)

    def cuMemsetD32Async(self, dst: int, value: int, count: int, stream: Any) -> tuple:
        self.memory[dst].view(np.uint32)[:count] = value
        return (OK,)

    # -- launch
    def cuTensorMapEncodeTiled(self, *args: Any) -> tuple:
        tmap = FakeTensorMap(args)
        self.tensor_maps.append(tmap)
        return (OK, tmap)

    def cuLaunchKernel(self, f: Any, gx: int, gy: int, gz: int, bx: int, by: int, bz: int, smem: int,
                       stream: Any, params: np.ndarray, extra: int) -> tuple:
        self.launches.append({"grid": (gx, gy, gz), "block": (bx, by, bz), "smem": smem,
                              "params": [int(p) for p in params]})
        return (OK,)

    def cuStreamQuery(self, stream: Any) -> tuple:
        if self.kernel_error != OK:
            self.context_broken = True
        return (self.kernel_error,)

    def cuCtxSynchronize(self) -> tuple:
        return (CUresult.CUDA_ERROR_ILLEGAL_ADDRESS if self.context_broken else OK,)

    def cuDevicePrimaryCtxReset(self, dev: Any) -> tuple:
        self.calls.append(("cuDevicePrimaryCtxReset", (dev,)))
        if self.reset_heals:
            self.context_broken = False
        return (OK,)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeDriver:
    driver = FakeDriver()
    monkeypatch.setattr(cu, "cuda_driver", lambda: driver)
    monkeypatch.setattr(cu, "_initialized", False)
    monkeypatch.setattr(cu, "_devices", {})
    monkeypatch.setattr(cu, "_unusable", {})
    # no NVRTC needed: any bytes stand in for the cubin
    monkeypatch.setattr(executor, "compile_kernel", lambda kernel, watchdog_s=None: SimpleNamespace(
        key=f"{kernel.name}-{watchdog_s}", image=b"\x7fELF"))
    return driver


def int64s(address: int, count: int) -> list[int]:
    return list(np.frombuffer(ctypes.string_at(address, 8 * count), dtype=np.int64))


def test_tensor_parameters_launch_shape_poison_and_copy_back(fake: FakeDriver) -> None:
    a = np.arange(3 * 300, dtype=np.float32).reshape(3, 300)
    b = np.ones((3, 300), dtype=np.float32)
    (out,) = executor.execute(s.pointwise().kernel, [a, b])
    (launch,) = fake.launches
    assert launch["grid"] == (3, 3, 1) and launch["block"] == (128, 1, 1) and launch["smem"] == 0
    p0, p1, p2 = (int64s(addr, 5) for addr in launch["params"])
    assert p0[1:] == [3, 300, 300, 1] and p2[1:] == [3, 300, 300, 1]
    np.testing.assert_array_equal(fake.memory[p0[0]].view(np.float32).reshape(3, 300), a)
    np.testing.assert_array_equal(fake.memory[p1[0]].view(np.float32).reshape(3, 300), b)
    # the fake kernel wrote nothing: the output comes back as the NaN poison
    assert out.shape == (3, 300) and out.dtype == np.float32 and np.isnan(out).all()
    assert [name for name, _ in fake.calls].count("cuMemFree") == 3
    assert not any(name == "cuFuncSetAttribute" for name, _ in fake.calls)


def test_module_is_loaded_once_per_kernel(fake: FakeDriver) -> None:
    x = [np.zeros((2, 4), dtype=np.float32)] * 2
    executor.execute(s.pointwise().kernel, x)
    executor.execute(s.pointwise().kernel, x)
    assert [name for name, _ in fake.calls].count("cuModuleLoadData") == 1
    assert len(fake.launches) == 2


def test_tensor_map_is_encoded_innermost_first_and_passed_by_value(fake: FakeDriver) -> None:
    executor.execute(s.tma_token_2d().kernel, [np.zeros((5, 36), dtype=np.float32)])
    (launch,) = fake.launches
    assert len(launch["params"]) == 3  # T0, T2, tmap_T0
    t0 = int64s(launch["params"][0], 5)
    assert t0[1:] == [5, 36, 36, 1]
    (tmap,) = fake.tensor_maps
    dtype, rank, address, dims, strides, box, element_strides = tmap.args[:7]
    assert (dtype, rank, address) == ("CU_TENSOR_MAP_DATA_TYPE_FLOAT32", 2, t0[0])
    assert (dims, strides, box, element_strides) == ([36, 5], [144], [32, 8], [1, 1])
    assert launch["params"][2] == tmap.getPtr()  # the 128-byte descriptor itself is the parameter
    assert tmap.args[8] == "CU_TENSOR_MAP_SWIZZLE_NONE"
    assert launch["grid"] == (2, 1, 1) and launch["block"] == (32, 8, 1) and launch["smem"] == 1032


def test_large_shared_memory_raises_the_function_attribute(fake: FakeDriver) -> None:
    kern = replace(s.smem_rotate().kernel, smem_bytes=Val.const(100_000))
    executor.execute(kern, [np.zeros(10, dtype=np.float32)])
    attrs = [args for name, args in fake.calls if name == "cuFuncSetAttribute"]
    assert attrs and attrs[0][1:] == ("CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", 100_000)
    assert fake.launches[0]["smem"] == 100_000


def test_failed_kernel_is_a_launch_error_and_resets_a_broken_context(fake: FakeDriver) -> None:
    fake.kernel_error = CUresult.CUDA_ERROR_LAUNCH_FAILED
    with pytest.raises(LaunchError, match=r"tma_circular_buffer_3_kernel: grid \(1, 1, 1\), block \(128, 1, 1\), "
                                          r"dynamic shared memory 1560 bytes: the kernel failed: "
                                          r"CUDA_ERROR_LAUNCH_FAILED .*watchdog.*context had a sticky error and was "
                                          r"reset"):
        executor.execute(s.tma_circular_buffer(3).kernel, [np.zeros(1000, dtype=np.float32)])
    names = [name for name, _ in fake.calls]
    assert names.index("cuDevicePrimaryCtxRelease") < names.index("cuDevicePrimaryCtxReset")
    assert names.count("cuDevicePrimaryCtxRetain") == 2  # the first context, then the fresh one
    fake.kernel_error = OK
    executor.execute(s.tma_circular_buffer(3).kernel, [np.zeros(1000, dtype=np.float32)])
    assert len(fake.launches) == 2


def test_recover_says_what_became_of_the_context(fake: FakeDriver) -> None:
    """A ContextState: Ok for a healthy context, Reset after a sticky error a reset healed, Unusable when the
    driver gave up on the process."""
    assert cu.recover(cu.device(0)) is cu.ContextState.Ok
    fake.context_broken = True
    assert cu.recover(cu.device(0)) is cu.ContextState.Reset
    dev = cu.device(0)
    fake.context_broken, fake.reset_heals = True, False
    assert cu.recover(dev) is cu.ContextState.Unusable


def test_a_process_the_driver_gave_up_on_says_so(fake: FakeDriver) -> None:
    fake.kernel_error = CUresult.CUDA_ERROR_ILLEGAL_ADDRESS
    fake.reset_heals = False
    with pytest.raises(LaunchError, match=r"CUDA_ERROR_ILLEGAL_ADDRESS .*no further GPU work in this process"):
        executor.execute(s.pointwise().kernel, [np.zeros((2, 4), dtype=np.float32)] * 2)
    with pytest.raises(LaunchError, match=r"device 0 is unusable in this process: a kernel hit "
                                          r"CUDA_ERROR_ILLEGAL_ADDRESS"):
        executor.execute(s.pointwise().kernel, [np.zeros((2, 4), dtype=np.float32)] * 2)


def test_rank_one_tensor_map_gets_a_stride_array(fake: FakeDriver) -> None:
    executor.execute(s.tma_circular_buffer(3).kernel, [np.zeros(1001, dtype=np.float32)])
    (tmap,) = fake.tensor_maps
    dims, strides, box = tmap.args[3:6]
    assert (dims, strides, box) == ([1001], [4016], [128])


@pytest.mark.parametrize(("swizzle", "dtype", "mode"), [
    (SmemSwizzle.B32, DataType.Float, "CU_TENSOR_MAP_SWIZZLE_32B"),
    (SmemSwizzle.B64, DataType.Float, "CU_TENSOR_MAP_SWIZZLE_64B"),
    (SmemSwizzle.B128, DataType.Float, "CU_TENSOR_MAP_SWIZZLE_128B"),
    (SmemSwizzle.B128, DataType.Half, "CU_TENSOR_MAP_SWIZZLE_128B"),
])
def test_tensor_map_swizzle_comes_from_the_kernel(fake: FakeDriver, swizzle: SmemSwizzle, dtype: DataType,
                                                  mode: str) -> None:
    sample = s.tma_swizzled(swizzle, dtype)
    executor.execute(sample.kernel, sample.make_inputs(9, np.random.default_rng(0)))
    (tmap,) = fake.tensor_maps
    assert tmap.args[5] == list(reversed(s.SWIZZLE_BOXES[(swizzle, dtype)]))
    assert tmap.args[8] == mode


def test_scalar_inputs_are_passed_by_value_after_the_tensors(fake: FakeDriver, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fusion's scalar inputs are the last parameters, each the address of its value in the parameter's C type
    (a float, an int64_t), in the order of ``kernel.scalars``, as codegen's signature declares them."""
    import warnings

    from fusion_ir import DataType, Fusion, ops
    from lowering import lower

    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        alpha = fusion.add_scalar_input(DataType.Float)
        shift = fusion.add_scalar_input(DataType.Int64)
        fusion.add_output(ops.add(ops.mul(x, alpha), shift))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kernel = lower(fusion, sizes=[(3, 300), (), ()])
    seen: list[tuple[float, int]] = []
    launch = fake.cuLaunchKernel

    def record(*args: Any) -> tuple:
        params = args[9]
        seen.append((float(np.frombuffer(ctypes.string_at(int(params[-2]), 4), dtype=np.float32)[0]),
                     int(np.frombuffer(ctypes.string_at(int(params[-1]), 8), dtype=np.int64)[0])))
        return launch(*args)

    monkeypatch.setattr(fake, "cuLaunchKernel", record)
    x = np.ones((3, 300), dtype=np.float32)
    executor.execute(kernel, [x, 2.5, 7])
    executor.execute(kernel, [x, np.float32(-0.125), np.int64(2**40)])
    assert seen == [(2.5, 7), (-0.125, 2**40)]
    assert len(fake.launches[0]["params"]) == 2 + 2           # T0, the output, then S1, S2
