"""Mutations of the epilogue pipeline the producer warp group runs (``MatmulParams(epilogue_loads="producer")``):
per sub-tile, the producer's elected thread waits on the stage's "empty" barrier, arrives on its "full" one
expecting the stage's bytes and issues the copy; the compute warp groups pre-arrive on every "empty" barrier, wait
on "full" right before the sub-tile's first read of the stage and arrive on "empty" right after its last. Each
mutation breaks one of those, and the simulator must report it: a ``SimulationError`` (a deadlock, an arrival
past a phase), or a wrong result (a read of a copy not landed yet, or of a stage a later copy was issued into,
sees poison: NaN)."""

from __future__ import annotations

import dataclasses

import pytest

from examples import matmul_epilogue
from fusion_ir.reference import evaluate
from lowering import kernel_ir as k
from lowering import lower
from runtime import SimulationError, simulate
from tests.helpers import rel_error
from tests.runtime.kir_builders import mutate
from tests.runtime.test_producer_epilogue_loads import build

KIND = "alpha_beta"
SIZE = (200, 264, 136)      # M, N, K: 6 tiles of 128 x 128 over 2 blocks, so each block reuses every stage
SEEDS = range(4)            # seeds 0 and 3 land copies only when a wait forces them
REPORTED = r"more arrivals|wrong result|deadlock|Deadlock"


def _kernel(arrangement: str) -> tuple:
    fusion = build(KIND, arrangement, blocks=2, stages=2)
    kernel = lower(fusion)
    c = fusion.inputs[2]
    (load,) = [n for n in k.walk(kernel.body) if isinstance(n, k.TmaLoad) and n.tensor_map.name == f"tmap_T{c.name}"]
    return fusion, kernel, load.mbar


def _run_seeds(fusion, kernel: k.Kernel) -> None:
    m, n, kk = SIZE
    for seed in SEEDS:
        inputs = matmul_epilogue.make_inputs(fusion, KIND, m, n, kk, seed=seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        err = rel_error(out, evaluate(fusion, inputs)[0])
        assert err < matmul_epilogue.TOLERANCE, f"wrong result: relative error {err:.3g} (seed {seed})"


def _reported(fusion, kernel: k.Kernel) -> None:
    with pytest.raises((SimulationError, AssertionError), match=REPORTED):
        _run_seeds(fusion, kernel)


def _compute_scope(mbar: k.Buffer, edit):
    """A rewrite applying ``edit(body, wait, arrive)`` to the sub-tile body whose statements wait on ``mbar``'s "full"
    barrier (at ``wait``) and arrive on its "empty" one (at ``arrive``): the compute warp groups' scope."""

    def fn(node: k.Node):
        kids = k.children(node)
        if not isinstance(node, k.ForLoop) or not kids:
            return None
        body = node.body
        waits = [j for j, x in enumerate(body) if isinstance(x, k.MBarrierWaitParity) and x.mbar == mbar]
        arrives = [j for j, x in enumerate(body) if isinstance(x, k.MBarrierArrive) and x.mbar == mbar]
        if len(waits) != 1 or len(arrives) != 1:
            return None
        return dataclasses.replace(node, body=tuple(edit(list(body), waits[0], arrives[0])))

    return fn


ARRANGEMENTS = ["persistent", "ping_pong"]


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_the_kernel_matches(arrangement: str) -> None:
    fusion, kernel, _ = _kernel(arrangement)
    _run_seeds(fusion, kernel)


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_a_sub_tile_read_before_its_full_barrier_is_reported(arrangement: str) -> None:
    """The "full" wait moved after the sub-tile's reads (right before the release): they see the copy not landed."""
    fusion, kernel, mbar = _kernel(arrangement)

    def late(body: list, wait: int, arrive: int) -> list:
        w = body.pop(wait)
        body.insert(arrive - 1, w)
        return body

    _reported(fusion, mutate(kernel, _compute_scope(mbar, late)))


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_no_full_wait_is_reported(arrangement: str) -> None:
    fusion, kernel, mbar = _kernel(arrangement)
    _reported(fusion, mutate(kernel, _compute_scope(mbar, lambda body, wait, arrive: body[:wait] + body[wait + 1:])))


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_a_stage_released_before_its_reads_is_reported(arrangement: str) -> None:
    """The "empty" arrive moved right after the "full" wait: the producer issues a later sub-tile's copy into the
    stage while the sub-tile still reads it."""
    fusion, kernel, mbar = _kernel(arrangement)

    def early(body: list, wait: int, arrive: int) -> list:
        a = body.pop(arrive)
        body.insert(wait + 1, a)
        return body

    _reported(fusion, mutate(kernel, _compute_scope(mbar, early)))


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_an_epilogue_load_issued_without_its_empty_wait_is_reported(arrangement: str) -> None:
    """The producer's "empty" wait dropped: it issues a copy into a stage the compute warp groups still read."""
    fusion, kernel, mbar = _kernel(arrangement)

    def drop(node: k.Node):
        return () if isinstance(node, k.MBarrierWaitParity) and node.mbar == mbar else None

    def no_wait(node: k.Node):
        if isinstance(node, k.ElectSync) and any(isinstance(x, k.TmaLoad) and x.mbar == mbar
                                                 for x in k.walk(node.body)):
            return dataclasses.replace(node, body=k.rewrite(node.body, drop))
        return None

    _reported(fusion, mutate(kernel, no_wait))


def test_no_release_is_reported() -> None:
    """Without the "empty" arrive the producer waits forever for a stage's second use."""
    fusion, kernel, mbar = _kernel("persistent")
    bad = mutate(kernel, _compute_scope(mbar, lambda body, wait, arrive: body[:arrive] + body[arrive + 1:]))
    with pytest.raises(SimulationError, match="(?i)deadlock"):
        _run_seeds(fusion, bad)


def test_no_pre_arrival_on_the_empty_barriers_is_reported() -> None:
    """Without the compute warp groups' first arrive on every "empty" barrier the producer's first wait never ends."""
    fusion, kernel, mbar = _kernel("persistent")

    def drop(node: k.Node):
        if isinstance(node, k.ForLoop) and node.stage is k.Stage.PrePrologue and len(node.body) == 1 \
                and isinstance(node.body[0], k.MBarrierArrive) and node.body[0].mbar == mbar:
            return ()
        return None

    with pytest.raises(SimulationError, match="(?i)deadlock"):
        _run_seeds(fusion, mutate(kernel, drop))


def test_no_expected_bytes_is_reported() -> None:
    """Without the producer's arriveExpectTx the stage's "full" phase completes before its copy lands, or never."""
    fusion, kernel, mbar = _kernel("persistent")
    bad = mutate(kernel, lambda n: () if isinstance(n, k.MBarrierArriveExpectTx) and n.mbar == mbar else None)
    with pytest.raises((SimulationError, AssertionError)):
        _run_seeds(fusion, bad)
