"""runtime.execute on the GPU: hand-built kernels whose TMA boxes land in swizzled shared memory.

The tensor map's swizzle (CU_TENSOR_MAP_SWIZZLE_*) and the threads' ``swizzle_index`` reads must
describe the same layout: then T2 == T0; reading the plain index must not give T0 (the layout is
really swizzled on the device), and the simulator must agree with the device bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from runtime import execute, simulate
from tests.codegen.sample_kernels import SWIZZLE_BOXES, tma_swizzled

pytestmark = pytest.mark.gpu

CASES = sorted(SWIZZLE_BOXES, key=lambda key: (key[0].value, key[1].size))


@pytest.mark.parametrize(("swizzle", "dtype"), CASES, ids=[f"{s.name}-{d.short_name}" for s, d in CASES])
def test_swizzled_tma_kernel_on_the_gpu_matches_numpy_and_the_simulator(swizzle: object, dtype: object) -> None:
    for n in (9, 70):
        sample = tma_swizzled(swizzle, dtype)  # type: ignore[arg-type]
        x = sample.make_inputs(n, np.random.default_rng(n))
        (y,) = execute(sample.kernel, x)
        np.testing.assert_array_equal(y, sample.reference(*x)[0])
        raw = tma_swizzled(swizzle, dtype, read_swizzled=False)  # type: ignore[arg-type]
        (on_device,) = execute(raw.kernel, x)
        (simulated,) = simulate(raw.kernel, x)
        assert not np.array_equal(on_device, x[0])
        np.testing.assert_array_equal(on_device, simulated.astype(on_device.dtype))
