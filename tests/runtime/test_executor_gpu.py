"""runtime.execute on an H100 (``pytest -m gpu``): hand-built kernels against numpy, array kinds, errors.

Skipped without a GPU (see tests/conftest.py). Outputs are poisoned with NaN before each run and
inputs are fresh random numbers, so an element the kernel forgets to write shows up.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from fusion_ir.scalar import Val
from fusion_ir.types import DataType
from lowering import kernel_ir as k
from runtime import InputError, LaunchError, execute, execute_isolated
from tests.codegen import sample_kernels as s

pytestmark = pytest.mark.gpu

SAMPLES = s.gpu_samples()
CASES = [(name, size) for name, sample in SAMPLES.items() for size in sample.sizes]


def _import_torch() -> tuple[object, str]:
    # At collection, before any test has touched CUDA: in one GPU run, importing torch from inside
    # a test (after cuda-python kernels ran) failed in torch's own custom-op registration.
    try:
        import torch
    except Exception as e:  # noqa: BLE001 - importorskip would let errors other than ImportError through
        return None, f"torch does not import here: {type(e).__name__}: {e}"
    return torch, ""


TORCH, TORCH_ERROR = _import_torch()


def torch_or_skip():
    if TORCH is None:
        pytest.skip(TORCH_ERROR)
    if not TORCH.cuda.is_available():
        pytest.skip("torch sees no GPU")
    return TORCH


def assert_as_close_as_torch(out, a, b) -> None:
    """A bf16 product ``out`` of the torch tensors ``a @ b`` is as close to the float64 product (relative error) as
    torch.matmul's own bf16 result, within half again."""
    expected = a.double() @ b.double()
    err = ((out.double() - expected).norm() / expected.norm()).item()
    torch_err = ((TORCH.matmul(a, b).double() - expected).norm() / expected.norm()).item()
    assert err < 1.5 * torch_err, (err, torch_err)


def rng_for(*key: object) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def assert_close(actual: np.ndarray, expected: np.ndarray, what: str) -> None:
    assert actual.shape == expected.shape and actual.dtype == expected.dtype, what
    assert not np.isnan(actual).any(), f"{what}: unwritten (NaN-poisoned) elements at {np.argwhere(np.isnan(actual))[:5]}"
    tol = 2e-3 if actual.dtype == np.float16 else 1e-5
    np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol,
                               err_msg=what)


@pytest.mark.parametrize("name, size", CASES, ids=[f"{n}-{z}" for n, z in CASES])
def test_sample_matches_numpy(name: str, size: int) -> None:
    sample = SAMPLES[name]
    inputs = sample.make_inputs(size, rng_for(name, size))
    outputs = execute(sample.kernel, inputs)
    for n, (actual, expected) in enumerate(zip(outputs, sample.reference(*inputs))):
        assert_close(actual, expected, f"{name} size {size} output {n}")


def test_same_kernel_twice_reuses_the_module_and_fresh_inputs_change_results() -> None:
    sample = SAMPLES["pointwise"]
    first = sample.make_inputs(300, rng_for("twice", 1))
    second = sample.make_inputs(300, rng_for("twice", 2))
    (a,) = execute(sample.kernel, first)
    (b,) = execute(sample.kernel, second)
    assert_close(a, sample.reference(*first)[0], "first run")
    assert_close(b, sample.reference(*second)[0], "second run")


def test_torch_tensors_in_torch_tensors_out_without_copies() -> None:
    torch = torch_or_skip()
    sample = SAMPLES["pointwise"]
    a = torch.rand(5, 700, device="cuda")
    b = torch.rand(700, 5, device="cuda").t()  # a strided view: used in place through its strides
    (out,) = execute(sample.kernel, [a, b])
    assert isinstance(out, torch.Tensor) and out.is_cuda and out.shape == (5, 700)
    expected = torch.exp(a + b) * 0.5
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)


def test_torch_preallocated_outputs_and_bfloat16() -> None:
    torch = torch_or_skip()
    sample = s.cast_kernel(DataType.BFloat16, DataType.BFloat16)
    x = torch.randn(1000, device="cuda").to(torch.bfloat16)
    out = torch.full((1000,), float("nan"), device="cuda", dtype=torch.bfloat16)
    (result,) = execute(sample.kernel, [x], outputs=[out])
    assert result is out
    torch.testing.assert_close(out, (1 - x.float()).to(torch.bfloat16), rtol=1e-2, atol=1e-2)


def test_cupy_arrays_in_cupy_arrays_out() -> None:
    cupy = pytest.importorskip("cupy")
    sample = SAMPLES["tma_circular_buffer_3"]
    x = cupy.random.uniform(-1, 1, 5000).astype(cupy.float32)
    (out,) = execute(sample.kernel, [x])
    assert isinstance(out, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(out), cupy.asnumpy(x) * 2 + 1, rtol=1e-6)


def test_more_than_48_kb_of_dynamic_shared_memory() -> None:
    sample = SAMPLES["smem_rotate"]
    kern = replace(sample.kernel, smem_bytes=Val.const(200_000))
    x = sample.make_inputs(1000, rng_for("smem"))[0]
    (out,) = execute(kern, [x])
    assert_close(out, sample.reference(x)[0], "smem_rotate with 200 KB")


def test_a_failing_runtime_check_is_raised_before_launch() -> None:
    with pytest.raises(InputError, match="fails to fill the circular buffer pipeline"):
        execute(SAMPLES["tma_circular_buffer_3"].kernel, [np.ones(100, dtype=np.float32)])


def test_unwritten_outputs_stay_poisoned() -> None:
    out = s.global_tensor("T2", (s.I0,))
    kern = s.make_kernel("half_writer", [s.if_(s.TX.lt(16), [s.assign(out, s.TX, s.fconst(1.0))])], [], [out],
                         (1,), (32,))
    kern = replace(kern, inputs=(s.global_tensor("T0", (s.I0,)),))
    (result,) = execute(kern, [np.zeros(32, dtype=np.float32)])
    assert (result[:16] == 1).all() and np.isnan(result[16:]).all()


# After a sticky error (illegal address, trap) the driver may refuse the whole process any GPU work,
# so these kernels run in child processes and this process must stay usable.
def run_isolated(code: str) -> None:
    repo = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(repo) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def illegal_address_kernel() -> k.Kernel:
    t0, out = s.global_tensor("T0", (s.I0,)), s.global_tensor("T2", (s.I0,))
    return s.make_kernel("illegal_address", [s.assign(out, Val.const(1 << 40), s.load(t0, 0))], [t0], [out], (1,),
                         (1,))


def deadlock_kernel() -> k.Kernel:
    t0, out = s.global_tensor("T0", (s.I0,)), s.global_tensor("T2", (s.I0,))
    mbar = s.shared("T4", 1, DataType.Int64, align=8)
    body = [
        k.Allocate(mbar, Val.const(0)),
        k.ElectSync((k.MBarrierInit(mbar, Val.const(0), Val.const(1)),)),
        k.BlockSync("init"),
        k.MBarrierWaitParity(mbar, Val.const(0), Val.const(0)),  # nobody ever arrives
        s.assign(out, s.TX, s.load(t0, s.TX)),
    ]
    return s.make_kernel("deadlock", body, [t0], [out], (1,), (32,), smem=8)


def test_sticky_error_is_a_launch_error_and_later_calls_say_what_happened() -> None:
    run_isolated("""
        import numpy as np, pytest
        from runtime import LaunchError, execute
        from tests.codegen import sample_kernels as s
        from tests.runtime.test_executor_gpu import illegal_address_kernel

        with pytest.raises(LaunchError, match=r"illegal_address: grid .1, 1, 1., block .1, 1, 1..*ILLEGAL_ADDRESS"):
            execute(illegal_address_kernel(), [np.ones(4, dtype=np.float32)])
        sample = s.pointwise()
        inputs = sample.make_inputs(300, np.random.default_rng(0))
        try:
            out = execute(sample.kernel, inputs)[0]
            np.testing.assert_allclose(out, sample.reference(*inputs)[0], rtol=1e-5)
            print("context reset and usable")
        except LaunchError as e:
            assert "unusable in this process" in str(e), e
            print("process unusable, as the driver demands")
    """)


def test_execute_isolated_contains_faults_and_deadlocks() -> None:
    with pytest.raises(LaunchError, match=r"ILLEGAL_ADDRESS"):
        execute_isolated(illegal_address_kernel(), [np.ones(4, dtype=np.float32)])
    with pytest.raises(LaunchError, match=r"deadlock.*watchdog"):
        execute_isolated(deadlock_kernel(), [np.ones(32, dtype=np.float32)], watchdog_s=0.5)
    sample = SAMPLES["tma_circular_buffer_3"]
    inputs = sample.make_inputs(1000, rng_for("after isolated faults"))
    assert_close(execute(sample.kernel, inputs)[0], sample.reference(*inputs)[0], "this process after the faults")
    (out,) = execute_isolated(sample.kernel, inputs)
    assert_close(out, sample.reference(*inputs)[0], "a good kernel in a child process")


def test_tma_alignment_of_device_arrays_is_checked() -> None:
    torch = torch_or_skip()
    base = torch.zeros(5 * 36 + 1, device="cuda")
    misaligned = base[1:].view(5, 36)  # 4 bytes past a 16-byte boundary
    with pytest.raises(InputError, match="16-byte aligned base address"):
        execute(SAMPLES["tma_token_2d"].kernel, [misaligned])


def test_sm_count_is_the_devices() -> None:
    import torch

    from runtime import sm_count

    assert sm_count() == torch.cuda.get_device_properties(0).multi_processor_count
