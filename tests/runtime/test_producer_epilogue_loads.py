"""Epilogue inputs loaded by the producer warp group (``MatmulParams(epilogue_loads="producer")``): C, a residual and
a bias come into shared memory through a circular buffer of epilogue sub-tiles of their own, issued by the
producer after the tile's first mainloop loads, waited for by the compute warp groups on its "full" barriers and
released on its "empty" ones. The simulator against numpy at sizes that are not multiples of the tile, cooperative
(persistent and a tile per block) and ping-pong; where the loads sit; the rules."""

from __future__ import annotations

import pytest

from examples import matmul_epilogue
from fusion_ir import ScheduleError
from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from runtime import simulate
from tests.helpers import assert_matches

SIZES = [(200, 264, 136), (520, 1000, 264)]        # M, N, K: not multiples of the tile
SEEDS = (5, 6)
ARRANGEMENTS = {
    # a tile per block, sub-tiles of 64 columns: the pipeline runs over the sub-tile loop after the mainloop's
    "one_tile": {"persistent": False, "tile": (128, 128, 64), "epilogue_tile": (128, 64)},
    # persistent: over the tiles and their sub-tiles, 4 of 32 columns a tile
    "persistent": {"tile": (128, 128, 64), "epilogue_tile": (128, 32)},
    # ping-pong: over the turns too, each stage read by one warp group
    "ping_pong": {"ping_pong": True, "tile": (128, 128, 64), "epilogue_tile": (128, 64)},
}


def build(kind: str, arrangement: str, **params: object):
    fields = dict(ARRANGEMENTS[arrangement], stages=3, blocks=3, epilogue_loads="producer")
    fields.update(params)
    return matmul_epilogue.build(kind, **fields)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("arrangement", sorted(ARRANGEMENTS))
@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
def test_producer_loaded_epilogue_matches_numpy(kind: str, arrangement: str, size: tuple[int, int, int]) -> None:
    fusion = build(kind, arrangement)
    kernel = lower(fusion)
    m, n, kk = size
    for seed in SEEDS:
        inputs = matmul_epilogue.make_inputs(fusion, kind, m, n, kk, seed=seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=matmul_epilogue.TOLERANCE)


def _branches(kernel: k.Kernel) -> tuple[k.IfThenElse, tuple[k.Node, ...]]:
    """The warp split and the statements after it."""
    for scope in [kernel.body] + [sub for n in k.walk(kernel.body) for _, sub in k.children(n)]:
        for j, node in enumerate(scope):
            if isinstance(node, k.IfThenElse) and node.branch_threads is not None:
                return node, scope[j + 1:]
    raise AssertionError("no warp split")


@pytest.mark.parametrize("arrangement", sorted(ARRANGEMENTS))
@pytest.mark.parametrize("kind", ["alpha_beta", "bias_relu"])
def test_the_producer_issues_the_epilogue_loads_after_the_first_mainloop_loads(kind: str, arrangement: str) -> None:
    fusion = build(kind, arrangement)
    kernel = lower(fusion)
    extra = f"tmap_T{fusion.inputs[2].name}"
    split, after = _branches(kernel)
    producer = list(k.walk(split.then_body))
    loads = [n for n in producer if isinstance(n, k.TmaLoad)]
    epilogue = [j for j, n in enumerate(loads) if n.tensor_map.name == extra]
    assert epilogue, "the producer branch issues the epilogue's loads"
    operands = [j for j, n in enumerate(loads) if n.tensor_map.name != extra]
    assert operands[0] < epilogue[0] < operands[-1]          # between the first mainloop loads and the rest
    compute = list(k.walk(split.else_body + after))
    assert not [n for n in compute if isinstance(n, k.TmaLoad)]      # the compute warp groups load nothing
    mbar = loads[epilogue[0]].mbar
    assert any(isinstance(n, k.MBarrierWaitParity) and n.mbar == mbar for n in compute)   # they wait on "full"
    assert any(isinstance(n, k.MBarrierArrive) and n.mbar == mbar for n in compute)       # and release "empty"
    assert not [n for n in compute if isinstance(n, k.MBarrierWait) and n.mbar == mbar]   # no token barrier


def test_a_stage_per_sub_tile_and_warp_group() -> None:
    assert MatmulParams(tile=(128, 256, 64), epilogue_tile=(128, 64)).epilogue_load_stages() == 4
    assert MatmulParams(tile=(128, 128, 64), epilogue_tile=(128, 64), ping_pong=True).epilogue_load_stages() == 4
    assert MatmulParams(tile=(128, 64, 64), epilogue_tile=(128, 64)).epilogue_load_stages() == 2


@pytest.mark.parametrize("params,rule", [
    ({"epilogue_loads": "warp"}, "must be one of"),
    ({"warp_specialized": False, "persistent": False}, "warp_specialized=False"),
    ({"epilogue_tile": None}, "epilogue_tile=None"),
    ({"persistent": False, "split_k": 2}, "split_k=2"),
], ids=["unknown", "no_producer", "no_sub_tiles", "split_k"])
def test_the_producer_path_is_refused_where_it_does_not_fit(params: dict, rule: str) -> None:
    fields = dict(ARRANGEMENTS["one_tile"], stages=3, warp_specialized=True, tma_store=True, epilogue_loads="producer")
    fields.update(params)
    with pytest.raises(ScheduleError, match=rf"MatmulParams.epilogue_loads: .*{rule}"):
        schedule_matmul(matmul_epilogue.fusion_of("alpha_beta"), MatmulParams(**fields))


def test_an_epilogue_pipeline_shallower_than_its_sub_tiles_is_refused() -> None:
    """Fewer stages than a tile's sub-tiles would deadlock: the producer would wait, before the rest of the tile's
    mainloop loads, for a stage only that tile's epilogue frees."""
    fusion = build("residual", "persistent")
    (c_tile,) = fusion.inputs[2].consumers()
    c_tile.circular_buffer(2, type=c_tile.circular_buffer_options.type)
    with pytest.raises(LoweringError, match=r"epilogue pipeline of 2 stages for 4 iterations"):
        lower(fusion)


def test_the_consumer_path_stays_selectable() -> None:
    fusion = build("alpha_beta", "one_tile", epilogue_loads="consumer")
    split, after = _branches(lower(fusion))
    extra = f"tmap_T{fusion.inputs[2].name}"
    assert not [n for n in k.walk(split.then_body) if isinstance(n, k.TmaLoad) and n.tensor_map.name == extra]
    # the compute warp groups wait on their own C load (its phase, or a token where the phase cannot be counted)
    assert [n for n in k.walk(split.else_body + after) if isinstance(n, (k.MBarrierWait, k.MBarrierWaitParity))]


@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
def test_the_rules_keep_the_consumer_path_and_the_tuner_tries_the_producer(kind: str) -> None:
    """The producer's pipeline ran within 1 % of the consumer path on the H100: the rules keep the consumer path and
    say why; the tuner's candidates hold the producer path where it applies (not at a short K's whole tile)."""
    from fusion_ir.schedulers.candidates import matmul_candidates

    fusion = matmul_epilogue.fusion_of(kind, (4096, 4096, 4096))
    params = suggest_matmul_params(fusion)
    assert params.epilogue_loads == "consumer"
    assert "within 1 %" in dict((f.name, f.reason) for f in params.why.fields)["epilogue_loads"]
    assert any(c.epilogue_loads == "producer" for c in matmul_candidates(fusion))
    short = matmul_epilogue.fusion_of(kind, (8192, 8192, 256))          # ping-pong keeps the whole tile
    assert all(c.epilogue_loads == "consumer" for c in matmul_candidates(short))