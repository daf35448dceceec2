"""The tensor_cores analysis: what a kernel's tensor-core matmuls are, and the questions generic passes ask.

It holds any number of matmuls, chained (one's accumulator, after pointwise ops, an operand of the next),
and an A operand in registers (examples/matmul_b2b lowers such a chain: tests/examples/test_matmul_b2b.py)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from examples import matmul_ping_pong, matmul_wgmma, matmul_ws_persistent, pointwise_2d
from fusion_ir import DataType, Fusion, MemoryType, ParallelType, ops
from lowering import lower
from lowering.analysis import id_model, tensor_cores
from lowering.analysis.tensor_cores import OperandRole

ROOT = Path(__file__).resolve().parents[2]


def _on_tensor_cores(tv) -> None:
    """The accumulator's three axes (M, N, K) as one tensor-core instruction."""
    for axis in range(3):
        tv.parallelize(axis, ParallelType.Mma)


def _chained_attention_like() -> tuple[Fusion, dict]:
    """``o = cast(exp(q @ k)) @ v``: the second matmul's A operand is the first one's accumulator after
    pointwise ops, in registers."""
    fusion = Fusion()
    with fusion:
        q = fusion.add_input(shape=(64, 16), dtype=DataType.BFloat16)
        k = fusion.add_input(shape=(16, 64), dtype=DataType.BFloat16)
        v = fusion.add_input(shape=(64, 64), dtype=DataType.BFloat16)
        qs, ks, vs = ops.set(q), ops.set(k), ops.set(v)
        s = ops.matmul(qs, ks)
        p = ops.cast(ops.exp(s), DataType.BFloat16)
        o = ops.matmul(p, vs)
        fusion.add_output(o)
    for tv in (qs, ks, vs):
        tv.set_memory_type(MemoryType.Shared)
    o_acc = o.cache_before()
    for tv in (s, p, o_acc):
        tv.set_memory_type(MemoryType.Local)
    _on_tensor_cores(s)
    _on_tensor_cores(o_acc)
    return fusion, {"qs": qs, "ks": ks, "vs": vs, "s": s, "p": p, "o": o_acc, "out": o}


def test_two_chained_matmuls_with_a_register_operand() -> None:
    fusion, t = _chained_attention_like()
    tc = tensor_cores.build(id_model.build(fusion))
    assert tc.accumulators == (t["s"], t["o"])
    first, second = tc.matmuls
    assert (first.a.tv, first.b.tv) == (t["qs"], t["ks"]) and first.after == ()
    assert (second.a.tv, second.b.tv) == (t["p"], t["vs"])
    assert second.after == (t["s"],)                       # chained through exp and cast
    assert second.a.in_registers and second.a.memory is MemoryType.Local
    assert not second.b.in_registers and second.b.memory is MemoryType.Shared
    assert [(m.accumulator, x.role) for m, x in tc.operand_of(t["p"])] == [(t["o"], OperandRole.A)]
    assert tc.reads_accumulator(t["p"]) and tc.reads_accumulator(t["o"]) and not tc.reads_accumulator(t["qs"])
    assert tc.is_accumulator(t["o"]) and not tc.is_accumulator(t["p"])


def test_stages_only_tensor_cores_read_retire_a_stage_late() -> None:
    fusion, t = _chained_attention_like()
    tc = tensor_cores.build(id_model.build(fusion))
    assert tc.release_lag([t["qs"], t["ks"]]) == 1          # read only by the first matmul
    assert tc.release_lag([t["vs"]]) == 1
    assert tc.release_lag([t["s"]]) == 0                    # read by a pointwise op
    assert tc.release_lag([t["o"]]) == 0                    # read by the output's copy


def test_a_fusion_without_tensor_cores_has_no_answers() -> None:
    tc = tensor_cores.build(id_model.build(pointwise_2d.build()))
    assert tc.matmuls == () and tc.turn_groups == frozenset()


def test_ping_pong_warp_groups_take_turns_and_share_the_epilogue_tile() -> None:
    traced = lower(matmul_ping_pong.build(), trace=True)
    tc = traced.analyses.tensor_cores
    (loop,) = [lp for lp in traced.analyses.circular.loops.values() if lp.warp_specialized is not None]
    assert loop.turns is not None and tc.takes_turns(loop.turns.number) and loop.ordered_turns
    assert loop.release_lag == 1
    (acc,) = tc.accumulators
    shared = [tv for tv in traced.analyses.ids.tensors if tc.shared_turn_axis(tv) is not None]
    assert shared and all(tc.reads_accumulator(tv) and tv.memory_type is MemoryType.Shared for tv in shared)


@pytest.mark.parametrize("build", [matmul_wgmma.build, matmul_ws_persistent.build], ids=["pipelined", "cooperative"])
def test_cooperative_warp_groups_take_no_turns(build) -> None:
    traced = lower(build(), trace=True)
    assert traced.analyses.tensor_cores.turn_groups == frozenset()
    assert not any(lp.ordered_turns for lp in traced.analyses.circular.loops.values())


GENERIC = ["lowering/analysis/buffers.py", "lowering/analysis/circular_buffer.py", "lowering/passes/indexing.py",
           "lowering/passes/syncs.py", "lowering/passes/loop_nest.py", "lowering/analysis/mbarriers.py",
           "lowering/passes/circular_buffer.py", "lowering/indexing_exprs.py", "lowering/analysis/pipeline_axes.py"]


@pytest.mark.parametrize("path", GENERIC)
def test_generic_passes_do_not_recognize_a_matmul(path: str) -> None:
    """They ask the tensor_cores analysis; the words for the one instruction and arrangement we generate today
    (and the op that defines a matmul) stay out of them, comments included."""
    text = (ROOT / path).read_text()
    found = re.findall(r"wgmma|ping[-_ ]?pong|MmaOp", text, flags=re.IGNORECASE)
    assert not found, f"{path} names {sorted(set(found))}"
    imported = {alias.name for node in ast.walk(ast.parse(text)) if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    assert not imported & {"mma", "MmaInfo"}, f"{path} imports the instruction-level tensor-core analysis"
