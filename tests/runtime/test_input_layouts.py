"""The input layout rule (runtime/arrays.py ``host_layout``, docs/pipelines.md "Input layouts").

Host (numpy) arrays of any strides are accepted by ``simulate`` and ``execute`` alike (copied
to C order first when they are not); device arrays are used in place, never copied, and must
have strides the kernel can use (a TMA input: unit innermost stride), else ``InputError``.
"""

from __future__ import annotations

import numpy as np
import pytest

import examples
from lowering import lower
from runtime import InputError, execute, executor, simulate
from runtime.arrays import ArrayKind, as_array_arg, host_layout
from tests.runtime.test_executor_fake_driver import FakeDriver, fake, int64s  # noqa: F401 - fixture

TMA_EXAMPLE = "tma_tile_2d"   # out = 2 x + 1, x loaded by 2-D TMA boxes


def layouts(shape: tuple[int, int], seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.uniform(-1, 1, size=(shape[0], 2 * shape[1])).astype(np.float32)
    return {"C order": np.ascontiguousarray(base[:, :shape[1]]),
            "Fortran order": np.asfortranarray(base[:, :shape[1]]),
            "every other column": base[:, ::2]}


def test_host_layout_copies_only_what_is_not_c_contiguous() -> None:
    c, f, strided = layouts((4, 40), seed=0).values()
    assert host_layout(c) is c
    for a in (f, strided):
        b = host_layout(a)
        assert b.flags.c_contiguous and b is not a
        np.testing.assert_array_equal(a, b)
    assert as_array_arg(f, "x").strides == (40, 1)


@pytest.mark.parametrize("layout", ["C order", "Fortran order", "every other column"])
def test_the_simulator_takes_any_host_layout_of_a_tma_input(layout: str) -> None:
    x = layouts((37, 300), seed=1)[layout]
    (out,) = simulate(lower(examples.load(TMA_EXAMPLE).build()), [x])
    np.testing.assert_allclose(out, 2 * x + 1, rtol=1e-6)


def test_execute_copies_a_fortran_order_host_array_to_c_order(fake: FakeDriver) -> None:  # noqa: F811
    x = layouts((5, 300), seed=3)["Fortran order"]
    executor.execute(lower(examples.load(TMA_EXAMPLE).build()), [x])
    (launch,) = fake.launches
    t0 = int64s(launch["params"][0], 5)
    assert t0[1:] == [5, 300, 300, 1]  # the kernel sees C-order strides
    np.testing.assert_array_equal(fake.memory[t0[0]].view(np.float32)[:1500].reshape(5, 300), x)


class FakeDeviceArray:
    """A device array as ``__cuda_array_interface__`` describes it (memory in the fake driver)."""

    def __init__(self, driver: FakeDriver, shape: tuple[int, int], strides: tuple[int, int] | None) -> None:
        nbytes = 4 * shape[0] * (strides[0] // 4 if strides is not None else shape[1])
        (_, self.ptr) = driver.cuMemAlloc(nbytes)
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "data": (self.ptr, False),
                                         "strides": strides, "version": 3}


def test_an_argument_says_which_library_made_it(fake: FakeDriver) -> None:  # noqa: F811
    """The kind is an ArrayKind: host arrays are the ones the executor copies."""
    host = as_array_arg(np.zeros((2, 3), np.float32), "x")
    device = as_array_arg(FakeDeviceArray(fake, (2, 3), None), "y")
    assert (host.kind, host.on_device) == (ArrayKind.Numpy, False)
    assert (device.kind, device.on_device) == (ArrayKind.Cai, True)


def test_a_contiguous_device_array_is_used_in_place(fake: FakeDriver) -> None:  # noqa: F811
    x = FakeDeviceArray(fake, (5, 300), (1200, 4))
    allocations = len(fake.memory)
    execute(lower(examples.load(TMA_EXAMPLE).build()), [x])
    (launch,) = fake.launches
    assert int64s(launch["params"][0], 1) == [x.ptr]
    assert fake.tensor_maps[0].args[2] == x.ptr
    assert not any(name == "cuMemcpyHtoD" for name, _ in fake.calls)
    assert len(fake.memory) == allocations + 1  # the output only


def test_a_device_array_with_a_strided_inner_axis_is_refused_for_tma(fake: FakeDriver) -> None:  # noqa: F811
    x = FakeDeviceArray(fake, (5, 300), (2400, 8))   # every other column of a (5, 600) array
    with pytest.raises(InputError, match="unit innermost stride"):
        execute(lower(examples.load(TMA_EXAMPLE).build()), [x])
    assert not fake.launches


@pytest.mark.gpu
def test_a_contiguous_torch_tensor_is_not_copied_on_the_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    x = torch.rand(37, 300, device="cuda")
    seen: list[int] = []
    real = executor._Launch._device_pointer

    def spy(self: executor._Launch, arg: object) -> int:
        ptr = real(self, arg)
        seen.append(ptr)
        return ptr

    monkeypatch.setattr(executor._Launch, "_device_pointer", spy)
    (out,) = execute(lower(examples.load(TMA_EXAMPLE).build()), [x])
    assert seen == [x.data_ptr()]
    torch.testing.assert_close(out, 2 * x + 1)


@pytest.mark.gpu
def test_a_strided_torch_tensor_is_refused_for_tma_on_the_gpu() -> None:
    torch = pytest.importorskip("torch")
    x = torch.rand(5, 600, device="cuda")[:, ::2]
    with pytest.raises(InputError, match="unit innermost stride"):
        execute(lower(examples.load(TMA_EXAMPLE).build()), [x])


@pytest.mark.gpu
@pytest.mark.parametrize("layout", ["Fortran order", "every other column"])
def test_execute_takes_any_host_layout_of_a_tma_input(layout: str) -> None:
    x = layouts((37, 300), seed=5)[layout]
    (out,) = execute(lower(examples.load(TMA_EXAMPLE).build()), [x])
    np.testing.assert_allclose(out, 2 * x + 1, rtol=1e-6)


@pytest.mark.parametrize(("a_shape", "b_shape", "tensor", "axis"),
                         [((64, 0), (0, 64), "T0", 1), ((0, 64), (64, 64), "T0", 0), ((64, 64), (64, 0), "T1", 1)])
def test_an_empty_tma_operand_is_refused_naming_its_axis(a_shape, b_shape, tensor: str, axis: int) -> None:
    """K = 0, M = 0 or N = 0: the operand's tensor map would have an empty axis (not a stride problem)."""
    from fusion_ir import DataType, Fusion, ops
    from fusion_ir.schedulers import schedule_matmul
    from lowering.kernel_ir import InputRule

    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.matmul(a, b), DataType.BFloat16))
    schedule_matmul(fusion)
    inputs = [np.ones(a_shape, np.float32), np.ones(b_shape, np.float32)]
    with pytest.raises(InputError, match=rf"{tensor} has shape \(\d+, \d+\), empty along axis {axis}; a TMA tensor map "
                                         r"needs at least one element along every axis") as info:
        simulate(fusion, inputs)
    assert info.value.rule is InputRule.TMA_LAYOUT and info.value.subject == tensor
