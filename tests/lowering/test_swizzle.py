"""Swizzled TMA loads: the buffer and tensor map carry the layout, readers index through it."""

from __future__ import annotations

from dataclasses import replace

import pytest

import examples
from fusion_ir import DataType, SmemSwizzle
from lowering import kernel_ir as k
from lowering import lower
from lowering.layout import swizzle_index

CONFIGS = [  # rows, cols, dtype, swizzle: a box row of exactly the span
    (8, 32, DataType.Float, SmemSwizzle.B128),
    (64, 64, DataType.Half, SmemSwizzle.B128),
    (8, 16, DataType.Float, SmemSwizzle.B64),
    (8, 8, DataType.Float, SmemSwizzle.B32),
]


@pytest.mark.parametrize("rows, cols, dtype, swizzle", CONFIGS)
def test_buffer_tensor_map_and_reads_carry_the_swizzle(rows: int, cols: int, dtype: DataType,
                                                        swizzle: SmemSwizzle) -> None:
    kernel = lower(examples.load("tma_swizzle").build(rows, cols, dtype, swizzle))
    (tmap,) = kernel.tensor_maps
    assert tmap.swizzle is swizzle and tmap.box == (cols, rows)
    tile = next(n for n in k.walk(kernel.body) if isinstance(n, k.Allocate) and n.buffer.swizzle is swizzle)
    assert tile.buffer.align == swizzle.alignment
    assert tile.offset.const_value() % swizzle.alignment == 0
    loads = [n for n in k.walk(kernel.body) if isinstance(n, k.TmaLoad)]
    assert loads and all(ld.dst == tile.buffer for ld in loads)
    tile_reads = [ld for n in k.walk(kernel.body) if isinstance(n, k.Assign) for ld in _loads(n.value)
                  if ld.buffer == tile.buffer]
    assert tile_reads
    for read in tile_reads:
        assert read.index.op == "xor", read.index
        plain = read.index.args[0]
        assert read.index == swizzle_index(plain, swizzle, dtype.size)


def _loads(value: k.Value) -> list[k.Load]:
    if isinstance(value, k.Load):
        return [value]
    return [ld for f in ("x", "a", "b") if hasattr(value, f) for ld in _loads(getattr(value, f))]


def test_unswizzled_tiles_keep_their_layout() -> None:
    kernel = lower(examples.load("tma_swizzle").build(swizzle=SmemSwizzle.NONE))
    (tmap,) = kernel.tensor_maps
    assert tmap.swizzle is SmemSwizzle.NONE
    assert "^" not in str(kernel)


@pytest.mark.parametrize("rows, cols, dtype, swizzle", CONFIGS)
def test_a_reader_that_forgets_the_swizzle_reads_the_wrong_elements(rows: int, cols: int, dtype: DataType,
                                                                    swizzle: SmemSwizzle) -> None:
    """The simulator lays out the bytes as the TMA unit does, so dropping the XOR from the reads is caught."""
    import numpy as np

    from fusion_ir.reference import evaluate
    from runtime import simulate
    from runtime.inputs import random_inputs

    fusion = examples.load("tma_swizzle").build(rows, cols, dtype, swizzle)
    kernel = lower(fusion)
    shapes = [(2 * rows + 1, 2 * cols + 16 // dtype.size)]
    for seed in range(3):
        inputs = random_inputs(fusion, shapes, seed)
        (expected,) = evaluate(fusion, inputs)
        (good,) = simulate(kernel, inputs, seed=seed)
        assert np.allclose(good, expected, rtol=1e-2 if dtype is DataType.Half else 1e-5)

    def forget(node: k.Node):
        if isinstance(node, k.Assign):
            return replace(node, value=_unswizzled(node.value))
        return None

    def _unswizzled(value: k.Value) -> k.Value:
        if isinstance(value, k.Load):
            return replace(value, index=value.index.args[0]) if value.index.op == "xor" else value
        fields = {f: _unswizzled(getattr(value, f)) for f in ("x", "a", "b") if hasattr(value, f)}
        return replace(value, **fields)

    mutant = replace(kernel, body=k.rewrite(kernel.body, forget))
    assert str(mutant) != str(kernel)
    inputs = random_inputs(fusion, shapes, 0)
    (expected,) = evaluate(fusion, inputs)
    (wrong,) = simulate(mutant, inputs, seed=0)
    assert not np.allclose(wrong, expected, rtol=1e-2), "reading a swizzled stage without the swizzle must differ"
