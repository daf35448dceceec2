"""examples/attention_wgmma with ``overlap``: ``p_j @ v_j`` issued in iteration j + 1, right after ``q @ k_{j+1}^T``,
its wait left for the first statement that needs it, so it runs under block j + 1's softmax (``TensorView.defer``,
the ``defer_matmuls`` and ``wgmma_peel`` passes; FlashAttention-3's intra-warp-group overlap).
The simulator against float64 numpy (ragged sizes, causal with Sq != Skv, every structure it combines with); the
kernel's shape (the deferred run, its late wait, the lagged release, no wgmma under a loop-index branch); mutations
of its wait and its stage release that the simulator reports; the rules."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from examples import attention, attention_wgmma
from fusion_ir import ParallelType, ScheduleError
from fusion_ir.exprs import MmaOp
from fusion_ir.scalar import Val
from fusion_ir.schedulers import AttentionParams
from fusion_ir.schedulers.attention_wgmma import KernelShape
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from runtime import simulate
from runtime.errors import InputError, SimulationError
from runtime.launch_plan import check_launch_requirements

CASES = [   # B, H, Sq, Skv, D, causal, block_kv, structure (build()'s keyword arguments besides overlap)
    ((1, 2, 200, 200, 64), False, 64, {"stages": 3}),
    ((1, 2, 200, 200, 64), False, 128, {"stages": 2}),
    ((2, 1, 256, 256, 128), False, 128, {"stages": 3, "compute_warp_groups": 2}),
    ((1, 2, 100, 333, 64), True, 64, {"stages": 2}),
    ((1, 2, 333, 100, 64), True, 64, {"stages": 3, "warp_specialized": True}),
    ((1, 1, 200, 130, 128), True, 128, {"stages": 3, "warp_specialized": True, "compute_warp_groups": 2,
                                        "register_split": (24, 240)}),
    ((1, 2, 100, 333, 64), True, 64, {"stages": 2, "compute_warp_groups": 2, "ping_pong": True}),
    ((1, 2, 100, 333, 64), True, 64, {"stages": 3, "persistent": True, "blocks": 3, "compute_warp_groups": 2}),
]


def _id(case: tuple) -> str:
    shape, causal, block_kv, structure = case
    return f"{shape}-causal{causal}-kv{block_kv}-" + "-".join(f"{k}{v}" for k, v in structure.items())


def _kernel(shape: tuple, causal: bool = False, block_kv: int = 64, **structure) -> k.Kernel:
    return lower(attention_wgmma.build(*shape, causal=causal, block_kv=block_kv, overlap=True, **structure))


def _rel_error(out: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(np.asarray(out, dtype=np.float64) - want).max() / np.abs(want).max())


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_matches_numpy(case: tuple) -> None:
    shape, causal, block_kv, structure = case
    kernel = _kernel(shape, causal, block_kv, **structure)
    for seed in (0, 1):
        inputs = attention_wgmma.make_inputs(*shape, seed=seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        err = _rel_error(out, attention_wgmma.reference(*inputs, causal=causal))
        assert err <= attention_wgmma.TOLERANCE, (case, seed, err)


SHAPE = (1, 2, 100, 333, 64)


def _key_loops(kernel: k.Kernel) -> list[k.ForLoop]:
    """The key-block loops that issue o_{j-1}'s wgmmas: the fence naming p's registers right in their body."""
    return [n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop)
            and any(isinstance(x, k.WgmmaFence) and x.registers for x in n.body)]


def _register_operand(kernel: k.Kernel) -> str:
    (name,) = {x.a.buffer.name for x in k.walk(kernel.body) if isinstance(x, k.Mma)
               and isinstance(x.a, k.RegisterFragment)}
    return name


def _writes(node: k.Node, name: str) -> bool:
    return any(isinstance(x, k.Assign) and x.buffer.name == name for x in k.walk((node,)))


def test_the_deferred_matmul_runs_under_the_softmax() -> None:
    """In every key-block loop that issues it: s_j's wgmmas (in their K loop) and their wait, then o_{j-1}'s
    wgmmas with their fence and commit, then the softmax, and o_{j-1}'s wait right before the first write of p (its
    register operand); the stage of v_{j-1} released after it. The loop's first iteration (nothing to issue yet)
    is peeled: no wgmma sits under a branch on the loop index. The last block's o is issued after the loop."""
    kernel = _kernel(SHAPE, causal=True, stages=2)
    p = _register_operand(kernel)
    loops = _key_loops(kernel)
    assert loops
    peeled = 0
    for loop in loops:
        body = loop.body
        mma = next(j for j, x in enumerate(body) if isinstance(x, k.WgmmaFence) and x.registers) + 1
        assert body[mma - 1].registers[0].name == p
        if isinstance(body[mma], k.AsyncCommit):
            peeled += 1         # the first iteration's loop: nothing deferred to issue yet, an empty group
            continue
        assert any(isinstance(y, k.Mma) and isinstance(y.a, k.RegisterFragment) for y in k.walk((body[mma],)))
        s_run = [j for j, x in enumerate(body[:mma]) if any(isinstance(y, k.Mma) for y in k.walk((x,)))]
        # FA3's order: s_j's group committed, o_{j-1}'s issued while it runs; s_j's wait (wait_group 1) leaves
        # o_{j-1}'s in flight under the softmax
        assert s_run and isinstance(body[mma - 2], k.AsyncCommit), "o_{j-1} issued while s_j's wgmmas run"
        s_wait = body[mma + 2]
        assert isinstance(s_wait, k.AsyncWait) and s_wait.pending == 1
        assert isinstance(body[mma + 1], k.AsyncCommit)
        first_write = next(j for j, x in enumerate(body) if _writes(x, p))
        wait = first_write - 1
        assert isinstance(body[wait], k.AsyncWait) and body[wait].kind is k.AsyncKind.Wgmma and body[wait].pending == 0
        assert wait - mma > 5, "the softmax runs between the deferred wgmmas and their wait"
        assert not any(_writes(x, p) for x in body[mma + 1:wait])
        assert not any(isinstance(x, k.AsyncWait) and x.kind is k.AsyncKind.Wgmma for x in body[mma + 3:wait])
    assert 1 <= peeled < len(loops)
    for loop in (n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop)):
        for branch in (x for x in loop.body if isinstance(x, k.IfThenElse)):
            assert not (loop.index.name in branch.cond.symbols() and any(
                isinstance(y, k.Mma) for y in k.walk(branch.then_body))), (loop.label, str(branch.cond))
    text = str(kernel)
    assert "if i2 >= 1" not in text and "(i2 - 1) >= 0" in text      # the lagged release of v_{j-1}'s stage
    after = [x for x in kernel.body if any(isinstance(y, k.Mma) and isinstance(y.a, k.RegisterFragment)
                                           for y in k.walk((x,)))]
    assert after and not isinstance(after[-1], k.IfThenElse), "the last block's o after the loop, unbranched"


def test_the_deferred_operand_lives_across_iterations() -> None:
    """p's registers are allocated outside the key-block loop (read an iteration after they are written), and the
    generated source holds them as the 32-bit words the wgmmas read, with no packing before the fence."""
    fusion = attention_wgmma.build(*SHAPE, causal=True, block_kv=64, stages=2, overlap=True)
    kernel = lower(fusion)
    p = _register_operand(kernel)
    loops = _key_loops(kernel)
    assert not any(isinstance(x, k.Allocate) and x.buffer.name == p for loop in loops for x in k.walk(loop.body))
    from codegen import to_cuda

    source = to_cuda(kernel)
    assert f"uint32_t {p}_w[16];" in source and f"{p}_a0" not in source      # 64 x 64 bf16: 16 words a thread


def test_an_empty_key_axis_is_refused_at_launch() -> None:
    """Any size: the last block's o is issued after the loop without a branch, which needs the loop to run at least
    once: the launch checks that k's sequence axis is not empty."""
    fusion = attention.build(head_dim=64, symbolic=True, causal=True,
                             params=AttentionParams(tensor_cores=True, block_kv=128, stages=2, overlap=True))
    kernel = lower(fusion)
    rules = [r for r in kernel.launch_requirements if "must not be empty" in r.rule]
    assert len(rules) == 1 and rules[0].tensor == "T1" and "axis 2" in rules[0].rule
    (name,) = rules[0].holds.symbols()
    only = replace(kernel, launch_requirements=tuple(rules))
    check_launch_requirements(only, {name: 333})
    with pytest.raises(InputError, match="T1.*must not be empty|must not be empty"):
        check_launch_requirements(only, {name: 0})


# ---------------------------------------------------------------- mutations the simulator reports
def _mutate_loops(kernel: k.Kernel, change) -> k.Kernel:
    """``kernel`` with the body of every key-block loop passed through ``change``."""
    def visit(node: k.Node):
        if isinstance(node, k.ForLoop) and any(isinstance(x, k.WgmmaFence) and x.registers for x in node.body):
            return (replace(node, body=tuple(change(node, node.body))),)
        return None
    return replace(kernel, body=k.rewrite(kernel.body, visit))


def _late_wait(loop: k.ForLoop, body: tuple, name: str) -> int:
    first = next(j for j, x in enumerate(body) if _writes(x, name))
    assert isinstance(body[first - 1], k.AsyncWait)
    return first - 1


def _simulate(kernel: k.Kernel, seed: int = 0) -> np.ndarray:
    inputs = attention_wgmma.make_inputs(*SHAPE, seed=seed)
    (out,) = simulate(kernel, inputs, seed=seed)
    return out


def _assert_broken(mutated: k.Kernel, kernel: k.Kernel, shape: tuple, causal: bool) -> None:
    """``mutated`` differs from ``kernel`` and the simulator reports it or its result is wrong."""
    assert str(mutated) != str(kernel)
    inputs = attention_wgmma.make_inputs(*shape, seed=0)
    try:
        (out,) = simulate(mutated, inputs, seed=0)
    except SimulationError:
        return
    err = _rel_error(out, attention_wgmma.reference(*inputs, causal=causal))
    assert not err <= attention_wgmma.TOLERANCE, err


@pytest.mark.parametrize("ws", [False, True])
def test_the_deferred_wait_after_the_operand_rewrite_is_reported(ws: bool) -> None:
    """o_{j-1}'s wait moved after the statement that writes p_j: p's registers rewritten under its unretired
    wgmmas."""
    kernel = _kernel(SHAPE, causal=True, stages=2, warp_specialized=ws)
    p = _register_operand(kernel)

    def later(loop, body):
        body = list(body)
        w = _late_wait(loop, tuple(body), p)
        body.insert(w + 1, body.pop(w))
        return body
    with pytest.raises(SimulationError, match="wgmma"):
        _simulate(_mutate_loops(kernel, later))


def test_the_deferred_wait_left_out_is_reported() -> None:
    kernel = _kernel(SHAPE, causal=True, stages=2)
    p = _register_operand(kernel)

    def drop(loop, body):
        w = _late_wait(loop, body, p)
        return body[:w] + body[w + 1:]
    with pytest.raises(SimulationError, match="wgmma"):
        _simulate(_mutate_loops(kernel, drop))


def test_releasing_the_current_stage_is_reported() -> None:
    """The key-block loop's stage released for iteration j instead of j - 1 (as if o_j were not deferred): the
    producer warp group refills v_j's stage while o_j's wgmmas, issued in iteration j + 1, still read it. (Without a
    producer the loads follow in program order, after the deferred wait: the lag keeps the protocol's count right.)"""
    shape = (1, 2, 128, 512, 64)        # 8 key blocks: each stage refilled 3 times
    kernel = _kernel(shape, stages=2, warp_specialized=True)

    def current(loop, body):
        i = loop.index
        out = []
        for x in body:
            arrives = [y for y in k.walk((x,)) if isinstance(y, k.MBarrierArrive)]
            if isinstance(x, k.IfThenElse) and len(arrives) == 1 and len(x.then_body) == 1:
                a = arrives[0]
                x = replace(a, index=a.index.substitute({i.name: i + Val.const(1)}))
            out.append(x)
        return out
    # the refill landed under the wgmmas reading it (reported), or before they were issued: block j + 2's values
    _assert_broken(_mutate_loops(kernel, current), kernel, shape, causal=False)


# ---------------------------------------------------------------- rules
def test_overlap_rules() -> None:
    with pytest.raises(ScheduleError, match="overlap: needs stages >= 2"):
        KernelShape(stages=1, overlap=True).validate()
    with pytest.raises(ScheduleError, match="overlap.*must be a bool"):
        KernelShape(stages=2, overlap=1).validate()
    with pytest.raises(ScheduleError, match="needs tensor_cores=True"):
        AttentionParams(stages=2, overlap=True).validate()
    AttentionParams(tensor_cores=True, block_kv=64, stages=2, overlap=True).validate()


def test_defer_rules() -> None:
    fusion = attention_wgmma.build(1, 2, 200, 200, 64, stages=2)
    s, o = [e.outputs[0] for e in fusion.exprs if isinstance(e, MmaOp)]
    with pytest.raises(ScheduleError, match="defer: axis 0 .* is not a serial loop"):
        o.defer(0)
    with pytest.raises(ScheduleError, match="defer: .* is not a matmul"):
        fusion.outputs[0].defer(2)
    assert o.loop[2].parallel_type is ParallelType.Serial


def test_a_deferred_matmul_read_in_its_own_iteration_is_refused() -> None:
    """The scores' matmul deferred: the softmax reads its accumulator in the same iteration; the first tensor-core
    matmul of the body is the scores' own, so there is nothing to issue it after."""
    fusion = attention_wgmma.build(1, 2, 200, 200, 64, stages=2)
    s = [e.outputs[0] for e in fusion.exprs if isinstance(e, MmaOp)][0]
    s.defer(2)
    with pytest.raises(LoweringError, match=f"T{s.name}: deferred in loop .* first other tensor-core matmul"):
        lower(fusion)


def test_the_last_stage_released_is_the_causal_loops_own() -> None:
    """Under a producer warp group the compute warps release the last block's stage after the key-block loop (the
    release lag): the block the causal bound ends the loop at, not the last of the key axis (an arrive on a stage
    nobody waits for again, which compute-sanitizer's synccheck reports as a missing wait)."""
    kernel = _kernel((1, 2, 200, 200, 64), causal=True, stages=3, warp_specialized=True, compute_warp_groups=2)
    (branch,) = [x for x in kernel.body if isinstance(x, k.IfThenElse) and x.branch_threads is not None]
    last = [x for x in branch.else_body if isinstance(x, k.IfThenElse)
            and any(isinstance(y, k.MBarrierArrive) for y in x.then_body)]
    assert len(last) == 1
    assert "blockIdx.x" in last[0].cond.symbols(), str(last[0].cond)


def test_the_scores_wait_leaving_both_groups_in_flight_is_reported() -> None:
    """s_j's wait (``wait_group 1``: o_{j-1}'s group may stay in flight) made ``wait_group 2``: the softmax reads
    s_j's accumulators before its wgmmas are retired."""
    kernel = _kernel(SHAPE, causal=True, stages=2)

    def loosen(loop, body):
        return [replace(x, pending=2) if isinstance(x, k.AsyncWait) and x.kind is k.AsyncKind.Wgmma and x.pending == 1
                else x for x in body]
    # reported, or the accumulators read while still in flight (poison) make the result wrong
    _assert_broken(_mutate_loops(kernel, loosen), kernel, SHAPE, causal=True)
