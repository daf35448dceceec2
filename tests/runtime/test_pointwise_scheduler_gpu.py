"""The pointwise scheduler on the GPU (``pytest -m gpu``): schedule() at a large size, executed against torch.

Skipped without a GPU (tests/conftest.py) or torch. Outputs are poisoned with NaN first, so an element the kernel
does not write shows."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import PointwiseParams, schedule
from runtime import execute
from tests.runtime.test_executor_gpu import torch_or_skip

pytestmark = pytest.mark.gpu


def _bias_scale_cast(rows: int, cols: int, dtype: DataType, out_dtype: DataType, symbolic: bool) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=dtype) if symbolic else fusion.add_input(shape=(rows, cols), dtype=dtype)
        bias = fusion.add_input(ndim=1, dtype=dtype) if symbolic else fusion.add_input(shape=(cols,), dtype=dtype)
        scale = fusion.add_input(ndim=1, dtype=dtype) if symbolic else fusion.add_input(shape=(rows,), dtype=dtype)
        y = ops.add(x, ops.broadcast(bias, [True, False]))
        y = ops.mul(y, ops.broadcast(ops.exp(scale), [False, True]))
        fusion.add_output(ops.cast(ops.relu(y), out_dtype))
    return fusion


@pytest.mark.parametrize(("rows", "cols", "dtype", "out_dtype"), [
    (8192, 8192, DataType.Float, DataType.BFloat16),
    (16384, 4096, DataType.BFloat16, DataType.Float),
    (4099, 3001, DataType.Float, DataType.Float),          # no vector divides a row: scalar accesses
])
def test_scheduled_pointwise_matches_torch(rows: int, cols: int, dtype: DataType, out_dtype: DataType) -> None:
    torch = torch_or_skip()
    t = {DataType.Float: torch.float32, DataType.BFloat16: torch.bfloat16}
    fusion = _bias_scale_cast(rows, cols, dtype, out_dtype, symbolic=False)
    params = schedule(fusion)
    assert isinstance(params, PointwiseParams)
    x = torch.randn(rows, cols, device="cuda").to(t[dtype])
    bias = torch.randn(cols, device="cuda").to(t[dtype])
    scale = (torch.rand(rows, device="cuda") - 0.5).to(t[dtype])
    (out,) = execute(fusion, [x, bias, scale])
    expected = torch.relu((x.float() + bias.float()[None, :]) * torch.exp(scale.float())[:, None]).to(t[out_dtype])
    err = ((out.double() - expected.double()).norm() / expected.double().norm()).item()
    assert err < (1e-2 if DataType.BFloat16 in (dtype, out_dtype) else 1e-5), f"{params}\nrelative error {err}"


def test_a_symbolic_fusion_is_scheduled_at_execute_for_its_inputs() -> None:
    torch = torch_or_skip()
    fusion = _bias_scale_cast(0, 0, DataType.Float, DataType.Float, symbolic=True)
    x = torch.randn(8192, 8192, device="cuda")
    bias, scale = torch.randn(8192, device="cuda"), torch.rand(8192, device="cuda") - 0.5
    with pytest.warns(UserWarning, match="the pointwise scheduler: .*vectorize=4"):
        (out,) = execute(fusion, [x, bias, scale])
    expected = torch.relu((x + bias[None, :]) * torch.exp(scale)[:, None])
    assert ((out - expected).norm() / expected.norm()).item() < 1e-5
