"""A rescaled sum accumulated in place by a wgmma accumulator, pass by pass: the loop nest puts the sum's step where
the accumulator's init was (and refuses other tensors in its loops), and ``wgmma_groups`` retires a run whose
registers its own body rescales (lag 0) while a run in a nested loop keeps its pipeline lag."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from examples import matmul_rescaled
from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType, SmemSwizzle
from lowering import kernel_ir as k
from lowering import lower
from lowering.errors import LoweringError
from lowering.kernel_ir import TensorOp, TensorOpKind
from lowering.passes import loop_nest, wgmma_groups


def _tensors():
    fusion = matmul_rescaled.build(3, 200, 136, 72)
    total = fusion.outputs[0].definition.inputs[0]
    acc, scale = total.definition.inputs
    return fusion, total, acc, scale


def _op(tv, kind: TensorOpKind = TensorOpKind.Compute) -> TensorOp:
    return TensorOp(tv=tv, kind=kind, text=f"T{tv.name}", expr=tv.definition)


def _loop(*items) -> loop_nest._Loop:
    return loop_nest._Loop(SimpleNamespace(), list(items))


# ---------------------------------------------------------------- loop nest
def test_the_step_takes_the_place_of_the_accumulator_init() -> None:
    _, total, acc, scale = _tensors()
    step = _loop(_loop(_op(scale), _op(total)))
    k_loop = _loop(_op(acc))
    j_body = [_op(acc, TensorOpKind.Init), k_loop, step]
    root = [_op(total, TensorOpKind.Init), _loop(*j_body)]
    loop_nest._rescale_before_matmul(root, acc, total)
    assert root[1].items == [step, k_loop]


def test_the_scale_computed_after_the_init_moves_with_the_step() -> None:
    """The scale computed in a loop of its own after the accumulator's init (the two registers of a thread's rows):
    it moves before the matmul with the step, in its order."""
    _, total, acc, scale = _tensors()
    scales, step, k_loop = _loop(_op(scale)), _loop(_op(total)), _loop(_op(acc))
    j_loop = _loop(_op(acc, TensorOpKind.Init), scales, k_loop, step)
    loop_nest._rescale_before_matmul([j_loop], acc, total)
    assert j_loop.items == [scales, step, k_loop]


def test_a_scale_computed_in_the_matmuls_loops_is_refused() -> None:
    _, total, acc, scale = _tensors()
    j_loop = _loop(_op(acc, TensorOpKind.Init), _loop(_op(scale), _op(acc)), _loop(_op(total)))
    with pytest.raises(LoweringError, match=rf"T{scale.name}, which its rescale reads, is computed in loops shared "
                                            r"with the matmul"):
        loop_nest._rescale_before_matmul([j_loop], acc, total)


def test_another_tensor_in_the_steps_loops_is_refused() -> None:
    fusion, total, acc, _ = _tensors()
    out = fusion.outputs[0]
    j_loop = _loop(_op(acc, TensorOpKind.Init), _loop(_op(acc)), _loop(_op(total), _op(out)))
    with pytest.raises(LoweringError, match=rf"T{out.name} is computed in the loops of its step, which run before "
                                            r"the matmul"):
        loop_nest._rescale_before_matmul([j_loop], acc, total)


def test_a_step_outside_the_summed_loop_is_refused() -> None:
    _, total, acc, _ = _tensors()
    root = [_loop(_op(acc, TensorOpKind.Init), _loop(_op(acc))), _loop(_op(total))]
    with pytest.raises(LoweringError, match="its step is not in the loop of its summed axis after the matmul"):
        loop_nest._rescale_before_matmul(root, acc, total)


# ---------------------------------------------------------------- wgmma groups
ACC = k.Buffer("T5", DataType.Float, MemoryType.Local, Val.const(32))
SHARED = k.MatrixDescriptor(k.Buffer("T1", DataType.BFloat16, MemoryType.Shared, Val.const(4096)), Val.const(0), 16,
                            1024, SmemSwizzle.B128, False)
MMA = k.Mma(ACC, Val.const(0), SHARED, SHARED, (64, 64, 16), DataType.BFloat16)
RESCALE = k.Assign(ACC, Val.const(0), k.BinaryValue("mul", k.Load(ACC, Val.const(0)), k.Const(2.0, DataType.Float),
                                                    DataType.Float))
NO_LOOPS = SimpleNamespace(circular=SimpleNamespace(loop_for=lambda node: None))


def _wait(out: tuple[k.Node, ...]) -> int:
    return next(x.pending for x in out if isinstance(x, k.AsyncWait))


@pytest.mark.parametrize("rescaled", [frozenset(), frozenset({"T5"})])
def test_a_run_beside_its_rescale_retires_every_group(rescaled: frozenset[str]) -> None:
    """In a loop of lag 1, the run beside the rescale of its accumulator (the next iteration's rescale writes its
    registers) waits for every group, whether or not the accumulator is known as a rescaled sum's: another statement
    of its list touches its registers."""
    out, in_flight = wgmma_groups._grouped((RESCALE, MMA), NO_LOOPS, wgmma_groups.Lag(1), rescaled)
    assert out[0] == RESCALE and isinstance(out[1], k.WgmmaFence) and out[2] == MMA
    assert _wait(out) == 0 and not in_flight


def test_a_run_alone_in_its_list_keeps_the_lag() -> None:
    """A run into registers nothing else in its list touches (a K loop's body) keeps the loop's lag."""
    out, in_flight = wgmma_groups._grouped((MMA,), NO_LOOPS, wgmma_groups.Lag(1))
    assert _wait(out) == 1 and in_flight


def test_a_run_in_a_nested_loop_keeps_its_lag_and_the_loop_is_drained() -> None:
    """The K loop inside the J loop: its runs wait with lag 1, and the wait after it retires the rest before the
    next J's rescale."""
    k_loop = k.ForLoop(Val.symbol("i7"), Val.const(0), Val.const(4), (MMA,))
    out, _ = wgmma_groups._grouped((RESCALE, k_loop), NO_LOOPS, wgmma_groups.Lag(1), frozenset({"T5"}))
    assert out[0] == RESCALE and isinstance(out[1], k.ForLoop) and _wait(out[1].body) == 1
    assert out[2] == k.AsyncWait(k.AsyncKind.Wgmma, 0)


def test_the_example_lowers_with_its_rescale_first_in_the_j_loop() -> None:
    traced = lower(matmul_rescaled.build(3, 200, 136, 72), trace=True)
    nest = traced.after("loop_nest")
    total = traced.kernel.fusion.outputs[0].definition.inputs[0]
    acc = total.definition.inputs[0]
    j_loop = next(n for n in nest.body if isinstance(n, k.ForLoop) and any(
        isinstance(x, TensorOp) and x.tv is acc for x in k.walk((n,))))
    ops = [x for x in k.walk((j_loop,)) if isinstance(x, TensorOp)]
    assert not any(x.tv is acc and x.kind is TensorOpKind.Init for x in ops)
    order = [x.tv for x in ops if x.kind is TensorOpKind.Compute and x.tv in (acc, total)]
    assert order == [total, acc]
