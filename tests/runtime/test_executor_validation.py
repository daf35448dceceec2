"""runtime.execute's checks that need no GPU: argument validation, launch planning, NVRTC, NoGpuError."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fusion_ir import Fusion, inline_most, ops
from fusion_ir.fusion import ExtentConstraint
from fusion_ir.scalar import Val
from fusion_ir.types import DataType
from lowering import kernel_ir as k
from lowering import lower
from runtime import InputError, LaunchError, NoGpuError
from runtime.arrays import as_array_arg
from runtime.driver import gpu_available
from runtime.executor import compile_kernel, execute, nvrtc_options
from runtime.launch_plan import plan_launch
from runtime.nvrtc import NVRTC_OPTIONS, CompileError, compile_cubin
from tests.codegen import sample_kernels as s


class FakeDeviceArray:
    """A device array as seen through ``__cuda_array_interface__`` (never dereferenced here)."""

    def __init__(self, shape: tuple[int, ...], ptr: int, strides: tuple[int, ...] | None = None,
                 typestr: str = "<f4") -> None:
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (ptr, False),
                                         "strides": strides, "version": 3}


def plan(kernel: k.Kernel, *inputs: object):
    return plan_launch(kernel, [as_array_arg(x, f"input {n}") for n, x in enumerate(inputs)])


def f32(*shape: int) -> np.ndarray:
    return np.zeros(shape, dtype=np.float32)


def nvrtc_available() -> bool:
    try:
        from cuda.bindings import nvrtc

        nvrtc.nvrtcVersion()
        return True
    except Exception:  # noqa: BLE001 - no cuda-python or no libnvrtc
        return False


needs_nvrtc = pytest.mark.skipif(not nvrtc_available(), reason="NVRTC (cuda-python + libnvrtc) is not available")


# ---------------------------------------------------------------- arguments
def test_plan_binds_symbols_and_evaluates_the_launch() -> None:
    p = plan(s.pointwise().kernel, f32(3, 300), f32(3, 300))
    assert p.env["i0"] == 3 and p.env["i1"] == 300 and p.env["T0_stride0"] == 300 and p.env["T2_stride1"] == 1
    assert p.grid == (3, 3, 1) and p.block == (128, 1, 1) and p.smem_bytes == 0
    assert p.output_shapes == ((3, 300),) and p.output_strides == ((300, 1),)


def test_wrong_argument_count_dtype_and_rank() -> None:
    kern = s.pointwise().kernel
    with pytest.raises(InputError, match=r"takes 2 inputs \(T0, T1\), got 1"):
        plan(kern, f32(3, 4))
    with pytest.raises(InputError, match=r"T1 must be float32, got float64"):
        plan(kern, f32(3, 4), np.zeros((3, 4)))
    with pytest.raises(InputError, match=r"T0 must have rank 2 \(shape \[i0, i1\]\), got rank 1 \(12,\)"):
        plan(kern, f32(12), f32(3, 4))


def test_a_bfloat16_input_refuses_float16_saying_what_to_pass() -> None:
    """execute rounds float32 numpy arrays to bfloat16 before planning; any other dtype is refused here."""
    kern = s.pointwise().kernel
    kern = replace(kern, inputs=tuple(replace(b, dtype=DataType.BFloat16) for b in kern.inputs))
    bf16_bits = as_array_arg(np.zeros((3, 4), np.uint16), "input 1")
    bf16_bits.dtype = "bfloat16"
    with pytest.raises(InputError, match=r"T0 must be bfloat16, got float16; numpy has no bfloat16: pass float32 "
                                         r"values .*never converted: pass x.astype\(np.float32\)"):
        plan_launch(kern, [as_array_arg(np.zeros((3, 4), np.float16), "input 0"), bf16_bits])
    device_f32 = as_array_arg(FakeDeviceArray((3, 4), 1 << 20), "input 0")
    with pytest.raises(InputError, match=r"T0 must be bfloat16, got float32; a device array for a bfloat16 input "
                                         r"must hold bfloat16 already"):
        plan_launch(kern, [device_f32, bf16_bits])


def test_symbolic_extents_bind_consistently() -> None:
    with pytest.raises(InputError, match=r"T1.shape\[1\] is 5, but i1 = 4 from T0.shape\[1\]"):
        plan(s.pointwise().kernel, f32(3, 4), f32(3, 5))


def test_constant_extents_and_strides_must_match() -> None:
    t0 = k.Buffer("T0", DataType.Float, k.MemoryType.Global, Val.const(8), (Val.const(2), Val.const(4)),
                  (Val.symbol("T0_stride0"), Val.const(1)), is_param=True)
    out = s.global_tensor("T2", (Val.const(2),))
    kern = s.make_kernel("k", [s.assign(out, 0, s.load(t0, 0))], [t0], [out], (1,), (1,))
    with pytest.raises(InputError, match=r"T0.shape\[1\] must be 4, got 5"):
        plan(kern, f32(2, 5))
    with pytest.raises(InputError, match=r"T0.stride\[1\] must be 1 elements, got 2"):
        plan(kern, FakeDeviceArray((2, 4), 256, strides=(32, 8)))


def test_fusion_extent_constraints_are_checked() -> None:
    class FakeFusion:
        extent_constraints = (ExtentConstraint(Val.symbol("i0"), Val.symbol("i1"),
                                               "add: axis 0 of T0 and T1 must have equal extents", "T0"),)

    kern = replace(s.pointwise().kernel, fusion=FakeFusion())
    with pytest.raises(InputError, match=r"add: axis 0 of T0 and T1 must have equal extents: i0 = 3 but i1 = 4"):
        plan(kern, f32(3, 4), f32(3, 4))
    plan(kern, f32(4, 4), f32(4, 4))


def test_an_extent_refusal_is_about_the_tensor_the_constraint_names_not_the_first_in_its_text() -> None:
    """The subject travels as a field of the constraint: a message that names another tensor first (or none)
    does not change which tensor the InputError is about."""
    class FakeFusion:
        extent_constraints = (ExtentConstraint(Val.symbol("i0"), Val.symbol("i1"),
                                               "add: the rows of T7 (read as T0) and T1 must agree", "T0"),)

    with pytest.raises(InputError, match=r"rows of T7 .*: i0 = 3 but i1 = 4") as info:
        plan(replace(s.pointwise().kernel, fusion=FakeFusion()), f32(3, 4), f32(3, 4))
    assert (info.value.rule, info.value.subject) == (k.InputRule.EQUAL_EXTENTS, "T0")


def test_the_fusion_records_the_input_an_extent_mismatch_is_about() -> None:
    """A broadcast operand's mismatch names the fusion input the axis comes from; the lowered check carries it."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        y = fusion.add_input(ndim=2)
        fusion.add_output(ops.add(y, ops.broadcast(x, [True, False])))
    inline_most(fusion)
    (c,) = fusion.extent_constraints
    assert c.subject == f"T{y.name}" and f"input T{x.name}" in c.message
    kernel = lower(fusion)
    (check,) = [chk for chk in kernel.checks if chk.rule is k.InputRule.EQUAL_EXTENTS]
    assert (check.message, check.subject) == (c.message, c.subject)


def test_runtime_checks_raise_input_errors() -> None:
    with pytest.raises(InputError, match=r"vectorized by 4: i0 must be a multiple of 4 \(failed: .*i0 = 1001"):
        plan(s.vectorized_add().kernel, f32(1001), f32(1001))
    with pytest.raises(InputError, match=r"fails to fill the circular buffer pipeline of 3 stages"):
        plan(s.tma_circular_buffer(3).kernel, f32(200))
    plan(s.tma_circular_buffer(3).kernel, f32(257))


def test_non_contiguous_numpy_is_copied_and_strided_device_arrays_are_used_as_is() -> None:
    a = np.zeros((8, 6), dtype=np.float32)[:, ::2]
    p = plan(s.pointwise().kernel, a, f32(8, 3))
    assert p.env["T0_stride0"] == 3 and p.env["T0_stride1"] == 1
    p = plan(s.pointwise().kernel, FakeDeviceArray((8, 3), 512, strides=(24, 8)), f32(8, 3))
    assert p.env["T0_stride0"] == 6 and p.env["T0_stride1"] == 2
    with pytest.raises(InputError, match=r"T0 has negative strides"):
        plan(s.pointwise().kernel, FakeDeviceArray((8, 3), 512, strides=(-24, 4)), f32(8, 3))


def test_tma_rules_on_arguments() -> None:
    kern = s.tma_token_2d().kernel
    p = plan(kern, f32(5, 36))
    (spec,) = p.tensor_maps
    assert spec.global_dims == (36, 5) and spec.global_strides_bytes == (144,) and spec.box == (32, 8)
    with pytest.raises(InputError, match=r"strides that are multiples of 16 bytes; T0 has a stride of 140 bytes"):
        plan(kern, f32(5, 35))
    with pytest.raises(InputError, match=r"16-byte aligned base address; T0 starts at 0x1008"):
        plan(kern, FakeDeviceArray((5, 36), 0x1008))
    with pytest.raises(InputError, match=r"unit innermost stride"):
        plan(kern, FakeDeviceArray((5, 36), 0x1000, strides=(288, 8)))


def test_tma_box_rules_are_launch_errors() -> None:
    sample = s.tma_token_2d()
    tmap = sample.kernel.tensor_maps[0]
    for box, message in [((3, 8), r"innermost box extent 3 x 4 bytes is not a multiple of 16"),
                         ((512, 8), r"box extents must lie in \[1, 256\]"),
                         ((32,), r"box \(32,\) has 1 dimensions for a rank-2 tensor")]:
        kern = replace(sample.kernel, tensor_maps=(replace(tmap, box=box),))
        with pytest.raises(LaunchError, match=message):
            plan(kern, f32(5, 36))


def test_impossible_launch_shapes_are_launch_errors() -> None:
    kern = replace(s.pointwise().kernel, block=(Val.const(2048), Val.const(1), Val.const(1)))
    with pytest.raises(LaunchError, match=r"grid \(1, 3, 1\), block \(2048, 1, 1\): a block has 1 to 1024 threads"):
        plan(kern, f32(3, 4), f32(3, 4))
    kern = replace(s.smem_rotate().kernel, smem_bytes=Val.const(300_000))
    with pytest.raises(LaunchError, match=r"needs 300000 bytes of shared memory per block"):
        plan(kern, f32(10))


def test_shared_memory_is_at_least_the_codegen_layout() -> None:
    kern = replace(s.smem_rotate().kernel, smem_bytes=Val.const(0))
    assert plan(kern, f32(10)).smem_bytes == 512  # T1 has no offset: codegen places it at 0


def test_unsupported_arguments() -> None:
    with pytest.raises(InputError, match=r"input 0: unsupported argument type list"):
        plan(s.smem_rotate().kernel, [1.0, 2.0])
    torch = pytest.importorskip("torch")
    with pytest.raises(InputError, match=r"a CPU torch tensor"):
        plan(s.smem_rotate().kernel, torch.zeros(4))


def test_execute_validates_before_touching_the_driver() -> None:
    with pytest.raises(InputError, match=r"T1 must be float32"):
        execute(s.pointwise().kernel, [f32(3, 4), np.zeros((3, 4), dtype=np.int32)])


@pytest.mark.skipif(gpu_available(), reason="this machine has a GPU")
def test_execute_without_a_gpu_raises_no_gpu_error() -> None:
    with pytest.raises(NoGpuError):
        execute(s.pointwise().kernel, [f32(3, 4), f32(3, 4)])


# ---------------------------------------------------------------- NVRTC
@needs_nvrtc
def test_nvrtc_compiles_every_sample_to_a_cached_cubin() -> None:
    for name, sample in s.all_samples().items():
        cubin = compile_kernel(sample.kernel)
        assert cubin.image[:4] == b"\x7fELF", name
        assert compile_kernel(sample.kernel) is cubin


@needs_nvrtc
def test_watchdog_is_a_compile_option() -> None:
    assert nvrtc_options(None) == NVRTC_OPTIONS
    assert nvrtc_options(2.5)[-1] == "-DMBARRIER_WATCHDOG_NS=2500000000ULL"
    kern = s.tma_circular_buffer().kernel
    assert compile_kernel(kern, watchdog_s=None).key != compile_kernel(kern, watchdog_s=1.0).key


@needs_nvrtc
def test_compile_error_carries_log_options_and_offending_lines() -> None:
    source = 'extern "C" __global__ void k(float* p) {\n  p[0] = 1.0f;\n  p[1] = undefined_name;\n}\n'
    with pytest.raises(CompileError) as info:
        compile_cubin(source, "broken.cu")
    message = str(info.value)
    assert "--gpu-architecture=sm_90a -default-device --std=c++17" in message
    assert 'identifier "undefined_name" is undefined' in message
    assert ">    3 |   p[1] = undefined_name;" in message
    assert info.value.source_lines == {3: "  p[1] = undefined_name;"}  # type: ignore[attr-defined]
    assert "undefined_name" in info.value.log  # type: ignore[attr-defined]


def test_input_errors_carry_their_rule_and_the_tensor_they_are_about() -> None:
    """The fuzzer tells a size the kernel was not made for from a wrong kernel by ``rule``, not by text."""
    class FakeFusion:
        extent_constraints = (ExtentConstraint(Val.symbol("i0"), Val.symbol("i1"),
                                               "add: axis 0 of T0 and T1 must have equal extents", "T0"),)

    with pytest.raises(InputError) as info:
        plan(replace(s.pointwise().kernel, fusion=FakeFusion()), f32(3, 4), f32(3, 4))
    assert (info.value.rule, info.value.subject) == (k.InputRule.EQUAL_EXTENTS, "T0")
    with pytest.raises(InputError) as info:
        plan(s.tma_circular_buffer(3).kernel, f32(200))
    assert (info.value.rule, info.value.subject) == (k.InputRule.PIPELINE_FILL, "T1")
    assert info.value.rule.is_size_rule
    with pytest.raises(InputError) as info:
        plan(s.pointwise().kernel, np.zeros((8, 6), np.int32), f32(8, 6))
    assert (info.value.rule, info.value.subject) == (k.InputRule.DTYPE, "T0")
    assert not info.value.rule.is_size_rule
    unbound = replace(s.pointwise().kernel, smem_bytes=Val.symbol("h0") * 4)
    with pytest.raises(InputError, match="h0") as info:
        plan(unbound, f32(8, 6), f32(8, 6))
    assert info.value.rule is k.InputRule.UNBOUND_SYMBOL and not info.value.rule.is_size_rule


def test_input_errors_keep_their_rule_across_processes() -> None:
    import pickle

    e = pickle.loads(pickle.dumps(InputError("too short", k.InputRule.PIPELINE_FILL, "T4")))
    assert (type(e), e.rule, e.subject, str(e)) == (InputError, k.InputRule.PIPELINE_FILL, "T4", "too short")
