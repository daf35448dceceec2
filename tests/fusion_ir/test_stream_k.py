"""Stream-K (``fusion_ir/stream_k.py``, ``TensorView.stream_k``, ``MatmulParams.stream_k``): the ranges the blocks
take cover every (tile, K tile) iteration once, the segments and slots the fix-up reads agree with them, the
schedule it makes, and the combinations refused."""

from __future__ import annotations

import itertools

import pytest

import examples
from fusion_ir import DataType, Fusion, ParallelType, ScheduleError, ops
from fusion_ir.scalar import Val
from fusion_ir.schedulers import MatmulParams, schedule_matmul
from fusion_ir.stream_k import StreamKSpace


def _walk(tiles: int, k_tiles: int, blocks: int) -> dict[int, list[tuple[int, int, int]]]:
    """Every block's segments, ``(tile, k_begin, k_end)``, as the loop bounds walk them."""
    sk = StreamKSpace(tiles_v(tiles), tiles_v(k_tiles), blocks)
    out: dict[int, list[tuple[int, int, int]]] = {}
    for b in range(blocks):
        segs = []
        for t in range(ev(sk.tile_begin(b)), ev(sk.tile_end(b))):
            segs.append((t, ev(sk.k_begin(b, t)), ev(sk.k_end(b, t))))
        out[b] = segs
    return out


def tiles_v(x: int) -> Val:
    return Val.const(x)


def ev(v: Val) -> int:
    return int(v.evaluate({}))


@pytest.mark.parametrize("tiles,k_tiles,blocks", [
    (6, 16, 5), (6, 16, 7), (40, 5, 7), (180, 14, 132), (48, 180, 132), (6, 5, 7), (1, 3, 5), (3, 1, 2),
    (2, 2, 4), (7, 1, 132),
])
def test_the_blocks_cover_every_iteration_once_in_tile_major_order(tiles: int, k_tiles: int, blocks: int) -> None:
    walk = _walk(tiles, k_tiles, blocks)
    flat = [t * k_tiles + k for b in range(blocks) for t, k0, k1 in walk[b] for k in range(k0, k1)]
    assert flat == list(range(tiles * k_tiles))
    sizes = [sum(k1 - k0 for _, k0, k1 in walk[b]) for b in range(blocks)]
    busy = [s for s in sizes if s]
    assert max(busy) - min(busy) <= 1                       # nearly equal ranges
    assert len(busy) == min(blocks, tiles * k_tiles)        # a block past the iterations takes none
    assert all(k1 > k0 for b in walk for _, k0, k1 in walk[b])   # no empty segment


@pytest.mark.parametrize("tiles,k_tiles,blocks", [(6, 16, 5), (6, 16, 7), (40, 5, 7), (180, 14, 132),
                                                  (48, 180, 132), (6, 5, 7), (1, 3, 5), (2, 2, 4)])
def test_the_fixup_finds_each_tiles_segments_and_slots(tiles: int, k_tiles: int, blocks: int) -> None:
    """The blocks ``first_block .. last_block`` of a tile are exactly those holding a segment of it, in K order;
    ``whole`` holds for a segment alone in its tile; no block keeps two partials in one slot."""
    sk = StreamKSpace(tiles_v(tiles), tiles_v(k_tiles), blocks)
    walk = _walk(tiles, k_tiles, blocks)
    owners: dict[int, list[int]] = {}
    for b, t in itertools.chain.from_iterable(((b, t) for t, _, _ in walk[b]) for b in walk):
        owners.setdefault(t, []).append(b)
    slots_used: dict[int, set[int]] = {}
    for t in range(tiles):
        first, last = ev(sk.first_block(t)), ev(sk.last_block(t))
        assert owners[t] == list(range(first, last + 1))
        assert ev(sk.segments(t)) == len(owners[t])
        for b in owners[t]:
            assert bool(ev(sk.whole(b, t))) == (len(owners[t]) == 1)
            if len(owners[t]) > 1:
                slot = ev(sk.slot(b, t))
                assert slot not in slots_used.setdefault(b, set())
                slots_used[b].add(slot)


def _matmul(batch: bool = False) -> Fusion:
    fusion = Fusion()
    lead = (2,) if batch else ()
    with fusion:
        a = fusion.add_input(shape=lead + (200, 1000), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=lead + (1000, 264), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, b))
    return fusion


def test_the_accumulator_walks_the_flattened_tiles_then_its_k_tiles() -> None:
    fusion = examples.load("matmul_stream_k").build(blocks=5)
    plan = fusion.stream_k
    assert plan is not None and plan.blocks == 5
    (acc,) = [tv for tv in fusion.used_tensors() if type(tv.definition).__name__ == "MmaOp"]
    assert plan.tensor_name == acc.name
    # [T, Ko, ...]: both serial, no axis on a block index (blockIdx.x deals out the iterations)
    assert acc.loop[0] is plan.tiles and acc.loop[1] is plan.k and plan.k.is_reduction
    assert not any(i.parallel_type.is_block for tv in fusion.used_tensors() for i in tv.loop)
    assert plan.tiles.parallel_type is ParallelType.Serial


def test_stream_k_params_are_named_and_off_by_default() -> None:
    from fusion_ir.schedulers.matmul_why import params_name

    assert MatmulParams().stream_k is False
    assert "stream-k7" in params_name(MatmulParams(stream_k=True, blocks=7, warp_specialized=False))


PARAMS = {"tile": (128, 128, 64), "stages": 2, "compute_warp_groups": 1, "warp_specialized": False}


@pytest.mark.parametrize("fields,message", [
    ({"stream_k": 1}, r"MatmulParams.stream_k: 1 must be a bool"),
    ({"stream_k": True, "split_k": 2}, r"MatmulParams.stream_k: True with split_k=2; .* use split_k=1"),
    ({"stream_k": True, "persistent": True}, r"MatmulParams.stream_k: True with persistent=True; .* use persistent=False"),
    ({"stream_k": True, "warp_specialized": True, "epilogue_tile": (128, 64), "tma_store": True,
      "epilogue_loads": "producer"}, r"MatmulParams.stream_k: True with epilogue_loads='producer'"),
    ({"stream_k": True, "cluster": (2, 1)}, r"MatmulParams.stream_k: True with cluster=\(2, 1\)"),
])
def test_bad_stream_k_combinations_are_refused(fields: dict, message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        schedule_matmul(_matmul(), MatmulParams(**{**PARAMS, **fields}))


def test_stream_k_with_producer_epilogue_loads_is_refused() -> None:
    params = MatmulParams(**{**PARAMS, "stream_k": True, "epilogue_loads": "producer"})
    with pytest.raises(ScheduleError, match=r"MatmulParams.stream_k: True with epilogue_loads='producer'"):
        params.validate_stream_k()


def test_stream_k_with_a_batch_is_refused() -> None:
    with pytest.raises(ScheduleError, match=r"MatmulParams.stream_k: True with a batched matmul"):
        schedule_matmul(_matmul(batch=True), MatmulParams(**PARAMS, stream_k=True))


def test_stream_k_with_a_compute_loaded_operand_is_refused() -> None:
    with pytest.raises(ScheduleError, match=r"MatmulParams.stream_k: a row of .* set stream_k=False"):
        examples.load("matmul_stream_k").build(shape=(200, 264, 100))


def test_tensor_view_stream_k_rules() -> None:
    fusion = _matmul()
    (acc,) = [tv for tv in fusion.used_tensors() if type(tv.definition).__name__ == "MmaOp"]
    acc.split(2, 64)                                    # [M, N, Ko, 64]
    with pytest.raises(ScheduleError, match=r"stream_k: T\d+: the tile axis .* must come before the K axis"):
        acc.stream_k(2, 0, blocks=4)
    with pytest.raises(ScheduleError, match=r"must be a reduction axis"):
        acc.stream_k(0, 1, blocks=4)
    with pytest.raises(ScheduleError, match=r"blocks 0 must be a positive int"):
        acc.stream_k(0, 2, blocks=0)
    acc.axis(1).parallelize(ParallelType.BIDx)
    with pytest.raises(ScheduleError, match=r"is bound to a block index|bound to BIDx"):
        acc.stream_k(0, 2, blocks=4)


@pytest.mark.parametrize("shape", [(1234, 4568, 888), (448, 2880, 11520), (3000, 5000, 1000)])
def test_a_pinned_stream_k_suggestion_is_arranged_around_it_and_its_memory_estimate_is_the_kernels(
        shape: tuple[int, int, int]) -> None:
    """``suggest_matmul_params(fusion, stream_k=True)``: a Pipelined kernel of the rules' tile, its depth from the
    shared-memory model, which counts a sub-tiled store's ring through the tile loop (as the lowering places it)."""
    from fusion_ir.schedulers import suggest_matmul_params
    from fusion_ir.schedulers.matmul_problem import matmul_problem
    from lowering import lower
    from runtime.tuning import matmul_fusion

    fusion = matmul_fusion(*shape)
    problem = matmul_problem(fusion)
    params = suggest_matmul_params(fusion, stream_k=True)
    assert params.stream_k and not params.warp_specialized and not params.persistent and params.split_k == 1
    assert params.why is not None and "stream_k=True pinned" in dict(
        (r.name, r.reason) for r in params.why.fields)["warp_specialized"]
    estimate = params.smem_bytes(problem.dtype, problem.loaded_tiles, problem.layout, problem.loads)
    assert lower(schedule_matmul(fusion, params)).smem_bytes.const_value() == estimate
