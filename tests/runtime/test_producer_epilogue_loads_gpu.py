"""GPU tier: epilogue inputs loaded by the producer warp group (``MatmulParams(epilogue_loads="producer")``, C, a
residual or a bias through a circular buffer of epilogue sub-tiles) on the H100, against torch in float64 at 4096^3
and an odd shape: the suggested kernel with that path, the persistent cooperative kernel and the ping-pong
one; compute-sanitizer memcheck, racecheck and synccheck on the tile-per-block and ping-pong kernels."""

from __future__ import annotations

from dataclasses import replace

import pytest

from examples import matmul_epilogue
from fusion_ir.schedulers import schedule_matmul, suggest_matmul_params
from runtime.sm_count import sm_count
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean
from tests.runtime.test_executor_gpu import torch_or_skip
from tests.runtime.test_matmul_epilogue_gpu import SHAPES, _check

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
def test_the_suggested_producer_loaded_kernel_matches_torch(kind: str, shape: tuple[int, int, int]) -> None:
    """The suggestion with ``epilogue_loads="producer"`` (the rules keep the consumer path; the tuner's candidates
    hold this one)."""
    torch = torch_or_skip()
    fusion = matmul_epilogue.fusion_of(kind, shape)
    params = suggest_matmul_params(fusion, sms=sm_count())
    schedule_matmul(fusion, replace(params, epilogue_loads="producer"))
    _check(torch, fusion, kind, *shape)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
def test_the_consumer_loaded_kernel_still_matches_torch(kind: str, shape: tuple[int, int, int]) -> None:
    """The old path, kept selectable: the same suggestion with ``epilogue_loads="consumer"``."""
    torch = torch_or_skip()
    fusion = matmul_epilogue.fusion_of(kind, shape)
    schedule_matmul(fusion, replace(suggest_matmul_params(fusion, sms=sm_count()), epilogue_loads="consumer"))
    _check(torch, fusion, kind, *shape)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("arrangement", ["persistent", "ping_pong"])
@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
def test_persistent_and_ping_pong_producer_loads_match_torch(kind: str, arrangement: str,
                                                             shape: tuple[int, int, int]) -> None:
    torch = torch_or_skip()
    params = {"tile": (128, 128, 64), "epilogue_tile": (128, 32), "epilogue_loads": "producer",
              "blocks": sm_count(), "group_m": 8}
    if arrangement == "ping_pong":
        params.update(ping_pong=True, epilogue_tile=(128, 64))
    _check(torch, matmul_epilogue.build(kind, **params), kind, *shape)


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("arrangement", [("sub_tiled",), ("sub_tiled", "ping_pong")], ids=["one_tile", "ping_pong"])
@pytest.mark.parametrize("kind", ["alpha_beta", "bias_gelu"])
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str, kind: str, arrangement: tuple[str, ...]) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul_epilogue", kind, *arrangement, "producer")
