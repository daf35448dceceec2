"""GPU tier: misaligned vectors (``ParallelType.MisalignedVectorize``) on the device: the example's rows of an odd
length against numpy, and a matmul whose A starts 2 bytes past a 16-byte boundary (a column slice of a wider
tensor: every row aligned to one element only) against a float64 product."""

from __future__ import annotations

import numpy as np
import pytest

from examples.misaligned_vector import build
from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import schedule_matmul
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("shape", [(6, 37), (5, 3), (4, 16)])
def test_the_example_matches_numpy(shape: tuple[int, int]) -> None:
    fusion = build(*shape)
    seed = int(np.random.default_rng().integers(2**31))          # fresh inputs every run
    inputs = random_inputs(fusion, [shape], seed=seed)
    assert_matches(fusion, inputs, execute(lower(fusion), inputs), tol=1e-6)


def test_a_matmul_of_a_column_slice_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    m, n, k = 1000, 512, 1001
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(m, k), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(k, n), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, b))
    kernel = lower(schedule_matmul(fusion))
    g = torch.Generator(device="cuda").manual_seed(int(np.random.default_rng().integers(2**31)))
    wide = torch.randn((m, k + 3), device="cuda", generator=g).bfloat16()
    a_view = wide[:, 1:k + 1]                                   # starts 2 bytes in, rows of k + 3 elements
    b_t = torch.randn((k, n), device="cuda", generator=g).bfloat16()
    (out,) = execute(kernel, [a_view, b_t])
    expected = a_view.double() @ b_t.double()
    err = float(torch.linalg.norm(out.double() - expected) / torch.linalg.norm(expected))
    assert err < 1e-5, f"relative error {err:.3e} against the float64 product"
