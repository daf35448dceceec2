"""The one swizzle function: a permutation of 16-byte chunks, the same on ints, arrays and Vals."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir.scalar import Val
from fusion_ir.types import SmemSwizzle
from lowering.layout import swizzle_index

MODES = [SmemSwizzle.B32, SmemSwizzle.B64, SmemSwizzle.B128]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("element_bytes", [2, 4, 8, 16])
def test_a_permutation_of_whole_chunks_within_each_repeat(mode: SmemSwizzle, element_bytes: int) -> None:
    per_repeat = mode.alignment // element_bytes
    e = np.arange(4 * per_repeat)
    p = swizzle_index(e, mode, element_bytes)
    assert sorted(p.tolist()) == e.tolist()
    assert (p // per_repeat == e // per_repeat).all(), "elements stay inside their repeat"
    per_chunk = 16 // element_bytes
    assert (p % per_chunk == e % per_chunk).all(), "bytes inside a 16-byte chunk never move"


def test_the_128_byte_pattern_xors_the_chunk_with_the_row() -> None:
    # floats: 32 per 128-byte row, 4 per chunk; row r moves chunk c to c ^ r
    for row in range(8):
        for chunk in range(8):
            assert swizzle_index(row * 32 + chunk * 4, SmemSwizzle.B128, 4) == row * 32 + (chunk ^ row) * 4
    assert swizzle_index(8 * 32 + 4, SmemSwizzle.B128, 4) == 8 * 32 + 4      # the pattern repeats every 1024 B


def test_the_32_and_64_byte_patterns_use_fewer_row_bits() -> None:
    # halves: 64 per 128-byte step; B64 XORs the chunk with (row % 4), B32 with (row % 2)
    assert swizzle_index(5 * 64 + 0, SmemSwizzle.B64, 2) == 5 * 64 + (0 ^ 1) * 8
    assert swizzle_index(5 * 64 + 0, SmemSwizzle.B32, 2) == 5 * 64 + (0 ^ 1) * 8
    assert swizzle_index(6 * 64 + 8, SmemSwizzle.B64, 2) == 6 * 64 + (1 ^ 2) * 8
    assert swizzle_index(6 * 64 + 8, SmemSwizzle.B32, 2) == 6 * 64 + 8


@pytest.mark.parametrize("mode", MODES)
def test_vals_evaluate_like_ints(mode: SmemSwizzle) -> None:
    e = Val.symbol("e")
    expr = swizzle_index(e * 3 + 1, mode, 4)
    values = np.arange(0, 3000, 7)
    assert (expr.evaluate({"e": values}) == swizzle_index(values * 3 + 1, mode, 4)).all()


def test_no_swizzle_is_the_identity_and_elements_must_divide_a_chunk() -> None:
    assert swizzle_index(Val.symbol("e"), SmemSwizzle.NONE, 4) == Val.symbol("e")
    with pytest.raises(ValueError, match="16-byte chunks"):
        swizzle_index(3, SmemSwizzle.B128, 32)
