"""runtime.simulate: TMA copies lay swizzled shared buffers out as the TMA unit does.

A TMA load writes box element ``p`` (row-major from the buffer start) at ``swizzle_index(p, swizzle,
bytes)``; threads that read through the same function see the tensor, threads that read the plain
index see it permuted.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fusion_ir.types import DataType, SmemSwizzle
from lowering import kernel_ir as k
from runtime import LaunchError, SimulationError, simulate
from tests.codegen.sample_kernels import SWIZZLE_BOXES, tma_swizzled

CASES = sorted(SWIZZLE_BOXES, key=lambda key: (key[0].value, key[1].size))
IDS = [f"{swz.name}-{dtype.short_name}" for swz, dtype in CASES]
SEEDS = range(4)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("swizzle", "dtype"), CASES, ids=IDS)
def test_swizzled_tma_load_read_through_swizzle_index_matches_numpy(swizzle: SmemSwizzle, dtype: DataType,
                                                                    seed: int) -> None:
    sample = tma_swizzled(swizzle, dtype)
    for n in (9, 70):
        x = sample.make_inputs(n, np.random.default_rng(seed))
        (y,) = simulate(sample.kernel, x, seed=seed)
        np.testing.assert_array_equal(y, sample.reference(*x)[0])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("swizzle", "dtype"), CASES, ids=IDS)
def test_reading_a_swizzled_buffer_without_the_swizzle_is_wrong(swizzle: SmemSwizzle, dtype: DataType,
                                                                seed: int) -> None:
    sample = tma_swizzled(swizzle, dtype, read_swizzled=False)
    x = sample.make_inputs(70, np.random.default_rng(seed))
    (y,) = simulate(sample.kernel, x, seed=seed)
    assert not np.array_equal(y, sample.reference(*x)[0])


def tma_byte_swizzle(byte: np.ndarray, span: int) -> np.ndarray:
    """The TMA pattern on byte offsets, written out as CUTLASS's Swizzle<B, 4, 3>: bits 4.. ^= bits 7.."""
    bits = {32: 1, 64: 2, 128: 3}[span]
    return byte ^ (((byte >> 7) & ((1 << bits) - 1)) << 4)


@pytest.mark.parametrize(("swizzle", "dtype"), CASES, ids=IDS)
def test_the_shared_layout_is_the_hardware_pattern(swizzle: SmemSwizzle, dtype: DataType) -> None:
    """Reading the raw buffer in row-major order shows where each box element landed."""
    rows, cols = SWIZZLE_BOXES[(swizzle, dtype)]
    sample = tma_swizzled(swizzle, dtype, read_swizzled=False)
    x = sample.make_inputs(70, np.random.default_rng(0))[0]
    (y,) = simulate(sample.kernel, [x])
    size = dtype.size
    slot = np.arange(rows * cols)
    landed = tma_byte_swizzle(slot * size, swizzle.span) // size  # slot s holds box element landed[s]
    box = x[:rows, :cols].reshape(-1)
    np.testing.assert_array_equal(y[:rows, :cols].reshape(-1), box[landed])


def with_tile(kernel: k.Kernel, **changes: object) -> k.Kernel:
    """The kernel with its shared tile T1 (and the TMA load into it) changed."""
    tile = kernel.body[0].buffer
    new = replace(tile, **changes)

    def swap(node: k.Node) -> k.Node | None:
        if isinstance(node, k.Allocate) and node.buffer == tile:
            return replace(node, buffer=new)
        if isinstance(node, k.TmaLoad):
            return replace(node, dst=new)
        if isinstance(node, k.Assign) and isinstance(node.value, k.Load) and node.value.buffer == tile:
            return replace(node, value=replace(node.value, buffer=new))
        return None

    return replace(kernel, body=k.rewrite(kernel.body, swap))


def test_tensor_map_and_buffer_swizzles_must_agree() -> None:
    sample = tma_swizzled(SmemSwizzle.B128)
    x = sample.make_inputs(9, np.random.default_rng(0))
    with pytest.raises(SimulationError, match="copies through tmap_T0 with swizzle B128, but T1 is laid out with "
                                              "swizzle B64"):
        simulate(with_tile(sample.kernel, swizzle=SmemSwizzle.B64, align=1024), x)


def test_a_swizzled_buffer_must_be_aligned_to_the_pattern() -> None:
    sample = tma_swizzled(SmemSwizzle.B128)
    x = sample.make_inputs(9, np.random.default_rng(0))
    with pytest.raises(SimulationError, match="T1 has swizzle B128 but align 128; a B128-swizzled "
                                              "buffer starts on a 1024-byte boundary"):
        simulate(with_tile(sample.kernel, align=128), x)


def test_a_box_row_longer_than_the_swizzle_span_is_refused() -> None:
    sample = tma_swizzled(SmemSwizzle.B64)          # 16 x 16 floats: 64-byte rows
    tmap = replace(sample.kernel.tensor_maps[0], swizzle=SmemSwizzle.B32)
    kern = replace(sample.kernel, tensor_maps=(tmap,))
    with pytest.raises(LaunchError, match="with swizzle B32 a box row is at most 32 bytes; the innermost box "
                                          "extent 16 x 4 bytes is 64"):
        simulate(kern, sample.make_inputs(9, np.random.default_rng(0)))
