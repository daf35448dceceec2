"""examples/attention_wgmma with ``ping_pong``: the two compute warp groups issue each key block's wgmmas in turn
(``TensorView.take_turns``, the ``warp_group_turns`` pass: named barriers around the tensor-core sections).
The simulator against float64 numpy (ragged Sq and Skv, causal with Sq != Skv, Pipelined and warp-specialized);
the turns' barriers in the kernel; mutations of them that the simulator reports (a deadlock, never a hang)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from examples import attention_wgmma
from fusion_ir import ParallelType, ScheduleError
from fusion_ir.scalar import Val
from fusion_ir.schedulers.attention import AttentionParams
from fusion_ir.schedulers.attention_wgmma import KernelShape
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from runtime.errors import DeadlockError, SimulationError

CASES = [   # B, H, Sq, Skv, D, causal, block_kv, warp_specialized (stages 2, two compute warp groups)
    ((1, 2, 200, 200, 64), False, 64, False),
    ((1, 2, 200, 200, 64), False, 64, True),
    ((2, 1, 256, 256, 128), False, 128, False),
    ((2, 1, 256, 256, 128), False, 128, True),
    ((1, 2, 100, 333, 64), True, 64, False),
    ((1, 2, 100, 333, 64), True, 64, True),
    ((1, 1, 200, 130, 128), True, 128, True),
]


def _id(case: tuple) -> str:
    shape, causal, block_kv, ws = case
    return f"{shape}-causal{causal}-kv{block_kv}-{'ws' if ws else 'pipe'}"


def _kernel(shape: tuple, causal: bool = False, block_kv: int = 64, ws: bool = False) -> k.Kernel:
    return lower(attention_wgmma.build(*shape, causal=causal, block_kv=block_kv, stages=2, warp_specialized=ws,
                                       compute_warp_groups=2, ping_pong=True))


def _rel_error(out: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(np.asarray(out, dtype=np.float64) - want).max() / np.abs(want).max())


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_matches_numpy(case: tuple) -> None:
    shape, causal, block_kv, ws = case
    kernel = _kernel(shape, causal, block_kv, ws)
    for seed in (0, 1):
        inputs = attention_wgmma.make_inputs(*shape, seed=seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        err = _rel_error(out, attention_wgmma.reference(*inputs, causal=causal))
        assert err <= attention_wgmma.TOLERANCE, (case, seed, err)


def _barriers(nodes) -> list[k.NamedBarrier]:
    return [n for n in k.walk(nodes) if isinstance(n, k.NamedBarrier)]


def _compute_loops(kernel: k.Kernel) -> list[k.ForLoop]:
    """The key-block loops that issue wgmmas (the turns' barriers directly in their body)."""
    return [n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop)
            and any(isinstance(x, k.NamedBarrier) for x in n.body)]


@pytest.mark.parametrize("ws", [False, True])
def test_each_tensor_core_section_is_a_turn(ws: bool) -> None:
    """Causal, two ranges of the key-block loop (unmasked, masked): in each, before s_j's wgmmas group ``y`` waits
    on barrier ``15 - y``, after them (and their wait) it arrives on the next turn's; before o_j's wgmmas it waits on
    ``13 - y``, after their commit, before the ``wait_group`` that retires them, it arrives on the next turn's (the
    last turn's: group 0's first, ``15``). Group 1 arrives on 15 before the loop; group 0 takes the last arrive after
    it. Every barrier counts both groups' 256 threads."""
    kernel = _kernel((1, 2, 100, 333, 64), causal=True, ws=ws)
    loops = _compute_loops(kernel)
    assert len(loops) == 2 if ws else len(loops) >= 2, [n.label for n in loops]
    for loop in loops:
        bars = [n for n in loop.body if isinstance(n, k.NamedBarrier)]
        assert [(b.wait, str(b.threads)) for b in bars] == [(True, "256"), (False, "256")] * 2, bars
        assert str(bars[0].id) == "15 - threadIdx.y"
        assert str(bars[2].id) == "15 - (threadIdx.y + 2)"
        at = [loop.body.index(b) for b in bars]
        after = loop.body[at[3] + 1]
        assert isinstance(after, k.AsyncWait) and after.kind is k.AsyncKind.Wgmma      # o_j's MMAs overlap the turn
        assert isinstance(loop.body[at[3] - 1], k.AsyncCommit)
        assert any(isinstance(x, k.Mma) for x in k.walk(loop.body[at[0]:at[1]]))
        assert any(isinstance(x, k.Mma) for x in k.walk(loop.body[at[2]:at[3]]))
    text = str(kernel)
    assert "bar.arrive(15, 256);  // warp group 0 takes the first turn" in text
    assert "bar.sync(15, 256);  // the last turn's arrive taken" in text


def _mutated(kernel: k.Kernel, change) -> k.Kernel:
    """``kernel`` with every turn barrier passed through ``change`` (None drops it)."""
    def visit(node: k.Node):
        if not isinstance(node, k.NamedBarrier):
            return None
        new = change(node)
        return () if new is None else (new,)
    return replace(kernel, body=k.rewrite(kernel.body, visit))


SHAPE = (1, 2, 100, 333, 64)


def _simulate(kernel: k.Kernel) -> None:
    inputs = attention_wgmma.make_inputs(*SHAPE, seed=0)
    simulate(kernel, inputs, seed=0)


@pytest.mark.parametrize("ws", [False, True])
def test_a_dropped_turn_arrive_deadlocks(ws: bool) -> None:
    kernel = _mutated(_kernel(SHAPE, causal=True, ws=ws),
                      lambda b: None if "the next warp group's turn" in b.reason and "+ 2" not in str(b.id) else b)
    with pytest.raises(DeadlockError, match="bar.sync"):
        _simulate(kernel)


@pytest.mark.parametrize("ws", [False, True])
def test_a_dropped_turn_wait_is_reported(ws: bool) -> None:
    """The waits for o_j's turn left out: the arrives meet nobody, and the groups fall out of step (a deadlock,
    a phase of arrives alone or arrives left at exit: each reported)."""
    kernel = _mutated(_kernel(SHAPE, causal=True, ws=ws),
                      lambda b: None if b.wait and "section 1" in b.reason else b)
    with pytest.raises(SimulationError, match="bar.sync|bar.arrive"):      # a deadlock is a SimulationError
        _simulate(kernel)


def test_a_wrong_first_turn_deadlocks() -> None:
    """Group 1 handed the first turn (the pre-loop arrive on its barrier, 14): group 0 waits on 15 for an arrive
    that comes only after group 1's last section, which waits for group 0."""
    kernel = _mutated(_kernel(SHAPE, causal=True),
                      lambda b: replace(b, id=Val.const(14)) if "first turn" in b.reason else b)
    with pytest.raises(DeadlockError):
        _simulate(kernel)


def test_ping_pong_rules() -> None:
    with pytest.raises(ScheduleError, match="ping_pong: needs compute_warp_groups=2"):
        KernelShape(stages=2, compute_warp_groups=1, ping_pong=True).validate()
    with pytest.raises(ScheduleError, match="ping_pong.*must be a bool"):
        KernelShape(stages=2, compute_warp_groups=2, ping_pong=1).validate()
    with pytest.raises(ScheduleError, match="AttentionParams.ping_pong: needs compute_warp_groups=2"):
        AttentionParams(ping_pong=True).validate()
    with pytest.raises(ScheduleError, match="needs tensor_cores=True"):
        AttentionParams(compute_warp_groups=2, ping_pong=True).validate()
    AttentionParams(tensor_cores=True, block_kv=64, stages=2, compute_warp_groups=2, ping_pong=True).validate()


def test_take_turns_rules() -> None:
    fusion = attention_wgmma.build(1, 2, 200, 200, 64, stages=2, compute_warp_groups=2)
    out = fusion.outputs[0]
    with pytest.raises(ScheduleError, match="take_turns: axis 0 .* is BIDy"):
        out.take_turns(0)
    with pytest.raises(ScheduleError, match="take_turns: on=.*TIDx"):
        out.take_turns(2, ParallelType.TIDx)


def test_a_pipelines_main_and_epilogue_loops_are_one_run_of_turns() -> None:
    """Pipelined: the key-block loop's main and epilogue loops pass the turns on from one to the next, between one
    first-turn arrive and one last-turn sync. With a pair per loop, group 1 could arrive on barrier 15 for the
    epilogue loop before group 0 took its main loop's last arrive: a phase of two groups' arrivals that group 0's
    warps then wait at out of step (a deadlock at seed 5)."""
    shape = (1, 2, 200, 200, 64)
    kernel = _kernel(shape)
    text = str(kernel)
    assert text.count("first turn") == 1 and text.count("last turn") == 1
    assert len(_compute_loops(kernel)) == 4      # main and epilogue, each in an unmasked and a masked range
    inputs = attention_wgmma.make_inputs(*shape, seed=5)
    (out,) = simulate(kernel, inputs, seed=5)
    assert _rel_error(out, attention_wgmma.reference(*inputs)) <= attention_wgmma.TOLERANCE
