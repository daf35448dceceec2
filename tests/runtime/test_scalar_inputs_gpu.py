"""GPU tier (``pytest -m gpu``): scalar inputs on an H100 against numpy: a pointwise kernel and the alpha_beta
matmul epilogue (examples/matmul_epilogue), each one kernel launched with several values; torch tensors with
Python numbers for the scalars."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from examples import matmul_epilogue
from fusion_ir import DataType, Fusion, ops
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs
from tests.runtime.test_executor_gpu import torch_or_skip

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("scalar", [DataType.Float, DataType.BFloat16, DataType.Int64])
def test_a_pointwise_kernel_takes_each_value(scalar: DataType) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        alpha = fusion.add_scalar_input(scalar)
        fusion.add_output(ops.add(ops.mul(x, alpha), 1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kernel = lower(fusion, sizes=[(333, 1030), ()])
    for seed, value in enumerate([3, -2] if scalar is DataType.Int64 else [1.5, -0.3125]):
        inputs = random_inputs(fusion, [(333, 1030), ()], seed=seed)
        inputs[1] = value
        assert_matches(fusion, inputs, execute(kernel, inputs), tol=1e-5)


def test_the_alpha_beta_epilogue_takes_each_value_at_an_odd_size() -> None:
    fusion = matmul_epilogue.build("alpha_beta")
    kernel = lower(fusion)
    outputs = []
    for seed, (alpha, beta) in enumerate([(matmul_epilogue.ALPHA, matmul_epilogue.BETA), (-1.25, 3.0)]):
        inputs = matmul_epilogue.make_inputs(fusion, "alpha_beta", 200, 264, 136, seed=90 + seed,
                                             alpha=alpha, beta=beta)
        (out,) = execute(kernel, inputs)
        assert_matches(fusion, inputs, [out], tol=matmul_epilogue.TOLERANCE)
        outputs.append(out)
    assert not np.allclose(outputs[0], outputs[1])


def test_torch_tensors_with_python_numbers() -> None:
    torch = torch_or_skip()
    fusion = matmul_epilogue.build("alpha_beta")
    a = torch.randn(512, 384, device="cuda").bfloat16()
    b = torch.randn(384, 768, device="cuda").bfloat16()
    c = torch.randn(512, 768, device="cuda").bfloat16()
    (out,) = execute(lower(fusion), [a, b, c, -0.5, 1.75])
    expected = -0.5 * (a.double() @ b.double()) + 1.75 * c.double()
    err = ((out.double() - expected).norm() / expected.norm()).item()
    assert err < 1e-2, err
