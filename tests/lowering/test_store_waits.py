"""The TMA store's wait as a schedule choice (``TensorView.set_store_wait``, ``MatmulParams.store_wait``) and the
``store_waits`` pass: where the issuing thread waits for its boxes' reads of the staging tile, and where the
staging tile's WAR barrier (``syncs``) and allocation (``buffers``) go, in the cooperative and ping-pong
seed-000 kernels."""

from __future__ import annotations

import pytest

from examples import matmul_ping_pong, matmul_wgmma, matmul_ws_persistent
from fusion_ir import DataType, Fusion, LoadStoreOpType, ScheduleError, StoreWait, ops
from fusion_ir.schedulers import MatmulParams
from lowering import kernel_ir as k
from lowering import lower
from lowering.passes.hoist_indices import inline_lets

EXAMPLES = {"cooperative": matmul_ws_persistent, "ping_pong": matmul_ping_pong}


# ---------------------------------------------------------------- the schedule choice
def test_the_default_is_after_boxes() -> None:
    fusion = matmul_ws_persistent.build()
    assert MatmulParams().store_wait == "after_boxes"
    assert fusion.outputs[0].store_wait is StoreWait.AfterBoxes
    assert "store wait" not in fusion.outputs[0].transforms_string()


def test_matmul_params_store_wait_reaches_the_output() -> None:
    out = matmul_ws_persistent.build(store_wait="deferred").outputs[0]
    assert out.store_wait is StoreWait.Deferred
    assert " store wait: deferred" in out.transforms_string()


def test_matmul_params_take_the_store_wait_as_the_enum_too() -> None:
    MatmulParams(tma_store=True, stages=3, store_wait=StoreWait.Deferred).validate()
    with pytest.raises(ScheduleError, match=r"MatmulParams.store_wait: .* only with tma_store=True"):
        MatmulParams(store_wait=StoreWait.Deferred).validate()
    fusion = matmul_ws_persistent.build(store_wait=StoreWait.Deferred)
    assert fusion.outputs[0].store_wait is StoreWait.Deferred
    assert str(lower(fusion)) == str(lower(matmul_ws_persistent.build(store_wait="deferred")))


@pytest.mark.parametrize("value", ["later", "", None, 0])
def test_matmul_params_refuse_an_unknown_store_wait(value) -> None:
    with pytest.raises(ScheduleError, match=r"MatmulParams.store_wait: .* must be one of 'after_boxes', 'deferred'"):
        MatmulParams(tma_store=True, stages=3, store_wait=value).validate()


def test_matmul_params_refuse_a_deferred_wait_without_a_tma_store() -> None:
    with pytest.raises(ScheduleError, match=r"MatmulParams.store_wait: 'deferred' .* only with tma_store=True"):
        MatmulParams(store_wait="deferred").validate()
    MatmulParams(store_wait="after_boxes").validate()


def _tma_stored() -> tuple[Fusion, object, object]:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=1, dtype=DataType.BFloat16)
        b = ops.add(a, a)
        fusion.add_output(b)
    tile = b.cache_before(LoadStoreOpType.TMAStore)
    return fusion, tile, b


def test_set_store_wait_names_a_tensor_that_is_not_a_tma_store_output() -> None:
    fusion, tile, _ = _tma_stored()
    with pytest.raises(ScheduleError, match=rf"T{tile.name}: set_store_wait: T{tile.name} is not written by a TMA "
                                            r"store \(defined by a binary op\)"):
        tile.set_store_wait("deferred")
    a = fusion.inputs[0]
    with pytest.raises(ScheduleError, match=rf"set_store_wait: T{a.name} is not written by a TMA store \(a fusion "
                                            r"input\)"):
        a.set_store_wait("deferred")
    plain = Fusion()
    with plain:
        x = plain.add_input(ndim=1)
        y = ops.add(x, x)
        plain.add_output(y)
    with pytest.raises(ScheduleError, match=rf"T{y.name} is not written by a TMA store"):
        y.set_store_wait("after_boxes")


def test_set_store_wait_refuses_an_unknown_value_and_changes_nothing() -> None:
    fusion, _, out = _tma_stored()
    before = fusion.state_fingerprint()
    with pytest.raises(ScheduleError, match=rf"T{out.name}: set_store_wait: 'eventually' for T{out.name} is not a "
                                            r"store wait; use one of 'after_boxes', 'deferred'"):
        out.set_store_wait("eventually")
    assert fusion.state_fingerprint() == before
    assert out.set_store_wait("deferred") is out and out.store_wait is StoreWait.Deferred
    assert fusion.state_fingerprint() != before


@pytest.mark.parametrize("value", ["Deferred", "after boxes", None, 1, LoadStoreOpType.TMAStore])
def test_set_store_wait_names_the_tensor_and_every_allowed_value(value) -> None:
    """Only a StoreWait or its exact string is a store wait; the error names the tensor and lists both forms."""
    _, _, out = _tma_stored()
    with pytest.raises(ScheduleError, match=rf"^T{out.name}: set_store_wait: .* for T{out.name} is not a store wait; "
                                            r"use one of 'after_boxes', 'deferred', 'carried' \(or "
                                            r"StoreWait.AfterBoxes, StoreWait.Deferred, StoreWait.Carried\)$"):
        out.set_store_wait(value)
    assert out.store_wait is StoreWait.AfterBoxes


def test_set_store_wait_takes_the_enum_and_its_string_alike() -> None:
    for wait in (StoreWait.Deferred, "deferred"):
        fusion, _, out = _tma_stored()
        assert out.set_store_wait(wait).store_wait is StoreWait.Deferred
        assert "store wait: deferred" in out.transforms_string()


def test_a_failed_schedule_undoes_the_store_wait() -> None:
    fusion, _, out = _tma_stored()
    with pytest.raises(ScheduleError), fusion.transaction():
        out.set_store_wait("deferred")
        out.split(5, 4)                          # no axis 5: raises, and the transaction undoes the wait
    assert out.store_wait is StoreWait.AfterBoxes


# ---------------------------------------------------------------- the kernel IR
def _tag(node: k.Node) -> str | None:
    """A short name for the statements of the tile loop body the epilogue order is about."""
    inner = list(k.walk((node,)))
    if isinstance(node, (k.BlockSync, k.NamedBarrier)):
        return node.reason.split(":")[0] + (" here" if "rewritten here" in node.reason else "")
    if isinstance(node, k.FenceAsyncProxy):
        return "fence"
    if any(isinstance(n, k.StMatrix) for n in inner):
        return "stmatrix"
    if any(isinstance(n, k.TmaStore) for n in inner):
        assert not any(isinstance(n, k.AsyncWait) for n in inner), "a wait among the boxes"
        return "stores"
    waits = [n for n in inner if isinstance(n, k.AsyncWait) and n.kind is k.AsyncKind.Bulk]
    if waits:
        assert isinstance(node, k.ElectSync) and len(waits) == 1 and waits[0].pending == 0
        return "wait.read" if waits[0].read else "wait.all"
    return None


def _tile_loop(kernel: k.Kernel) -> tuple[tuple[k.Node, ...], int]:
    """The statement list holding the compute warp groups' tile loop, and the loop's index there."""
    def find(body):
        for i, node in enumerate(body):
            if isinstance(node, k.ForLoop) and node.stage is k.Stage.ComputeWarp:
                return body, i
            for _, sub in k.children(node):
                found = find(sub)
                if found:
                    return found
        return None
    found = find(kernel.body)
    assert found is not None
    return found


def _tags(body) -> list[str]:
    return [t for t in map(_tag, body) if t is not None]


EXPECTED = {
    "after_boxes": (["stmatrix", "fence", "RAW", "stores", "wait.read", "WAR"], []),
    "deferred": (["wait.read", "WAR here", "stmatrix", "fence", "RAW", "stores"], ["wait.all"]),
}


@pytest.mark.parametrize("mode", sorted(EXPECTED))
@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
def test_where_the_waits_and_barriers_sit(arrangement: str, mode: str) -> None:
    """after_boxes: one wait after all the boxes, the WAR barrier at the end of the tile; deferred: the wait, then
    the guard barrier, right before the next tile's stmatrix, and one full wait after the tile loop."""
    kernel = lower(EXAMPLES[arrangement].build(store_wait=mode))
    scope, i = _tile_loop(kernel)
    in_loop, after_loop = EXPECTED[mode]
    assert _tags(scope[i].body) == in_loop
    assert _tags(scope[i + 1:]) == after_loop
    # every bulk wait is issued by the thread that issued the stores: the same elected warp, which issues
    # all the boxes of a tile in one election (unswitch), each box committed
    inlined = inline_lets(kernel)
    stores = [n for n in k.walk(inlined.body) if isinstance(n, k.ElectSync)
              and any(isinstance(m, k.TmaStore) for m in k.walk(n.body))]
    waits = [n for n in k.walk(inlined.body) if isinstance(n, k.ElectSync) and isinstance(n.body[0], k.AsyncWait)]
    assert waits and {w.warp for w in waits} == {s.warp for s in stores}
    for s in stores:
        (boxes,) = s.body
        assert isinstance(boxes, k.ForLoop) and boxes.body[1:] == (k.AsyncCommit(k.AsyncKind.Bulk),)
    barriers = [n for n in scope[i].body if isinstance(n, k.NamedBarrier)]
    per_group = arrangement == "ping_pong"            # each warp group synchronizes on its own barrier
    assert all((n.threads.const_value() == 128) == per_group for n in barriers)


@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
def test_a_deferred_tile_is_allocated_outside_the_tile_loop(arrangement: str) -> None:
    """Its stores still read it in the next iteration: it lives through the loop (no memory reuse inside it)."""
    for mode, inside in (("after_boxes", True), ("deferred", False)):
        kernel = lower(EXAMPLES[arrangement].build(store_wait=mode))
        scope, i = _tile_loop(kernel)
        allocated_inside = {n.buffer.name for n in k.walk(scope[i].body) if isinstance(n, k.Allocate)}
        assert ("T6" in allocated_inside) == inside


@pytest.mark.parametrize("mode, tiles", [("after_boxes", 1), ("deferred", 2)])
def test_ping_pong_groups_share_the_staging_tile_unless_the_wait_is_deferred(mode: str, tiles: int) -> None:
    """The epilogue turns keep the groups' stmatrix and stores one at a time, the stores' reads retired
    before the turn is handed on; a deferred wait lets the stores read past it, so each group keeps its own."""
    kernel = lower(matmul_ping_pong.build(store_wait=mode))
    (staging,) = [n.buffer for n in k.walk(kernel.body) if isinstance(n, k.Allocate) and n.buffer.name == "T6"]
    assert staging.size.const_value() == tiles * 128 * 128


@pytest.mark.parametrize("persistent", [False, True], ids=["one_tile", "persistent"])
def test_a_tile_written_once_waits_right_after_its_boxes(persistent: bool) -> None:
    """Not persistent, the tile is written once per block: deferred waits (fully) right after the boxes;
    a persistent Pipelined kernel defers as the warp-specialized one does."""
    fusion = matmul_wgmma.build(tile=(128, 128, 64), stages=3, compute_warp_groups=1, tma_store=True,
                                out_dtype=DataType.BFloat16, store_wait="deferred", persistent=persistent, blocks=3)
    kernel = lower(fusion)
    waits = [n for n in k.walk(kernel.body) if isinstance(n, k.AsyncWait) and n.kind is k.AsyncKind.Bulk]
    assert [w.read for w in waits] == ([True, False] if persistent else [False])
    reasons = [n.reason for n in k.walk(kernel.body) if isinstance(n, k.BlockSync)]
    assert any("after its TMA stores' wait" in r for r in reasons) == persistent
