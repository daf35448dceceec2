"""The transpose scheduler on the GPU (``pytest -m gpu``): schedule() at a large size, executed against torch's
transpose, bit for bit (a transpose moves values, it computes nothing)."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import TransposeParams, schedule
from runtime import execute
from tests.runtime.test_executor_gpu import torch_or_skip

pytestmark = pytest.mark.gpu


def _permute(shape: tuple[int, ...], perm: tuple[int, ...], dtype: DataType) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape, dtype=dtype)
        fusion.add_output(ops.permute(x, perm))
    return fusion


@pytest.mark.parametrize(("shape", "perm", "dtype"), [
    ((8192, 8192), (1, 0), DataType.Float),
    ((16384, 4096), (1, 0), DataType.BFloat16),
    ((4099, 3001), (1, 0), DataType.Float),               # no tile divides either side
    ((16, 1000, 2000), (0, 2, 1), DataType.BFloat16),     # batched
])
def test_scheduled_transpose_matches_torch(shape: tuple[int, ...], perm: tuple[int, ...], dtype: DataType) -> None:
    torch = torch_or_skip()
    t = {DataType.Float: torch.float32, DataType.BFloat16: torch.bfloat16}[dtype]
    fusion = _permute(shape, perm, dtype)
    params = schedule(fusion)
    assert isinstance(params, TransposeParams) and params.tile > 0
    x = torch.randn(*shape, device="cuda").to(t)
    (out,) = execute(fusion, [x])
    assert torch.equal(out, x.permute(*perm).contiguous()), str(params)
