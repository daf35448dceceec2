"""Matmuls scheduled with suggested parameters (``schedule_matmul`` without params, or
``suggest_matmul_params`` for another SM count) against numpy in the simulator: one arrangement of
each rule, at sizes no tile divides."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import schedule_matmul, suggest_matmul_params
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs


def _matmul(m: int, n: int, k: int, *, bias: bool = False, out_dtype: DataType | None = DataType.BFloat16) -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(m, k), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(k, n), dtype=DataType.BFloat16)
        c = ops.matmul(a, b)
        if bias:
            c = ops.relu(ops.add(c, ops.broadcast(fusion.add_input(shape=(n,), dtype=DataType.Float), [True, False])))
        fusion.add_output(c if out_dtype is None else ops.cast(c, out_dtype))
    return fusion


# (M, N, K), SM count, extra fusion options, the arrangement expected: (tile, persistent, ping-pong, TMA store); K of
# 10 tiles where a rule other than ping-pong is meant (K of at most 8 tiles with four waves is ping-pong's, and of at
# most 12 for a plain product with rows of 128-byte multiples)
CASES = {
    "few tiles: 64 x 128": ((200, 264, 136), 132, {}, ((64, 128, 64), False, False, True)),
    "few tiles, long K: split-K of 128 x 128 (the big tile's splits would leave SMs idle)": (
        (200, 256, 16384), 16, {}, ((128, 128, 64), False, False, True)),
    "short M, long K: all of M swapped, K in 3 splits": ((90, 264, 8192), 16, {}, ((96, 64, 64), False, False, True)),
    "K of 2 tiles: ping-pong 128 x 128": ((300, 520, 120), 2, {}, ((128, 128, 64), True, True, True)),
    "N under 128: ping-pong 128 x 128": ((520, 120, 328), 2, {}, ((128, 128, 64), True, True, True)),
    "under four waves: 256 x 128": ((600, 200, 584), 2, {}, ((256, 128, 64), False, False, True)),
    "whole waves of 192 x 192": ((260, 392, 1160), 2, {}, ((192, 192, 64), False, False, True)),
    "four waves, rows of odd bytes: persistent 128 x 256, 32-bit indices": ((520, 264, 584), 2, {},
                                                                          ((128, 256, 64), True, False, True)),
    "16 K tiles, three waves: persistent 256 x 128, 256 x 32 sub-tiles": ((700, 256, 1024), 2, {},
                                                                          ((256, 128, 64), True, False, True)),
    "10 K tiles, three waves, relu with a bias: persistent 256 x 128": ((700, 256, 640), 2, {"bias": True},
                                                                      ((256, 128, 64), True, False, True)),
    "10 K tiles, four waves of 128 x 128, plain: ping-pong 128 x 128": ((700, 256, 640), 2, {},
                                                                         ((128, 128, 64), True, True, True)),
    "16 K tiles, three waves, relu with a bias: persistent 256 x 128": ((700, 256, 1024), 2, {"bias": True},
                                                                       ((256, 128, 64), True, False, True)),
    "float result, fused bias": ((260, 392, 1160), 2, {"bias": True, "out_dtype": None},
                                 ((256, 128, 64), False, False, False)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_suggested_params_match_numpy(case: str) -> None:
    (m, n, k), sms, options, expected = CASES[case]
    fusion = _matmul(m, n, k, **options)
    params = suggest_matmul_params(fusion, sms=sms)
    assert (params.tile, params.persistent, params.ping_pong, params.tma_store) == expected
    if sms == 132:
        schedule_matmul(fusion)                   # without params: the suggestion for an H100
    else:
        schedule_matmul(fusion, params)
    kernel = lower(fusion)
    shapes = [(m, k), (k, n)] + ([(n,)] if options.get("bias") else [])
    tol = 1e-5 if options.get("out_dtype", DataType.BFloat16) is None else 1e-2    # a bf16 result is rounded
    for seed in (0, 1):
        inputs = random_inputs(fusion, shapes, seed=seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=tol)
