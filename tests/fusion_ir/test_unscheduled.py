"""fusion_ir.schedulers.unscheduled: what "no schedule at all" means, mark by mark."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fusion_ir import DataType, Fusion, LoadStoreOpType, MemoryType, ParallelType, Pipelined, SmemSwizzle, ops
from fusion_ir.schedulers import is_unscheduled, schedule, schedule_marks


def _fusion() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 128), dtype=DataType.Float)
        y = ops.exp(x)
        z = ops.set(y)
        fusion.add_output(ops.mul(z, 2.0))
    return fusion


def test_a_defined_fusion_has_no_schedule() -> None:
    fusion = _fusion()
    assert schedule_marks(fusion) == [] and is_unscheduled(fusion)


def test_an_index_type_is_part_of_the_definition() -> None:
    fusion = _fusion()
    fusion.set_index_type(DataType.Int32)
    assert is_unscheduled(fusion)


def _tv(fusion: Fusion, name: int):
    return next(t for t in fusion.tensors if t.name == name)


MARKS: dict[str, tuple[Callable[[Fusion], object], str]] = {
    "split": (lambda f: _tv(f, 3).split(1, 32), "T3 has 1 transforms"),
    "reorder": (lambda f: _tv(f, 3).reorder({0: 1}), "T3's loop axes are reordered"),
    "parallelize": (lambda f: _tv(f, 3).axis(0).parallelize(ParallelType.BIDx), "T3 binds iBIDx6{64} to BIDx"),
    "compute_at": (lambda f: _tv(f, 1).compute_at(_tv(f, 3), 1), "T1 is computed at position 1"),
    "cache_after": (lambda f: _tv(f, 0).cache_after(), "T4 is a cache"),
    "cache_before": (lambda f: _tv(f, 3).cache_before(), "T4 is a cache"),
    "memory_type": (lambda f: _tv(f, 2).set_memory_type(MemoryType.Shared), "T2 is in Shared memory"),
    "tma": (lambda f: _tv(f, 0).cache_after(LoadStoreOpType.TMA), "T4 is a TMA copy"),
    "swizzle": (lambda f: _tv(f, 0).cache_after(LoadStoreOpType.TMA, swizzle=SmemSwizzle.B128), "T4 is swizzled"),
    "circular_buffer": (lambda f: _tv(f, 2).circular_buffer(2, type=Pipelined()), "T2 is circular-buffered"),
    "cluster": (lambda f: f.set_cluster_dims((2, 1, 1)), "cluster dims (2, 1, 1)"),
}


@pytest.mark.parametrize("mark", sorted(MARKS))
def test_each_mark_of_a_schedule_counts(mark: str) -> None:
    fusion = _fusion()
    call, phrase = MARKS[mark]
    call(fusion)
    marks = schedule_marks(fusion)
    assert any(phrase in m for m in marks), marks
    assert not is_unscheduled(fusion)


def test_a_schedule_by_the_registry_counts() -> None:
    fusion = _fusion()
    schedule(fusion)
    assert not is_unscheduled(fusion)
    assert any("a scheduler's choice (pointwise)" in m for m in schedule_marks(fusion))
