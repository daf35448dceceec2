"""Golden text of ``str(fusion)`` and ``tv.transforms_string()`` (fusion_ir/printer.py).

Expected text lives in tests/fusion_ir/golden/*.txt. Run with UPDATE_GOLDEN=1 to rewrite it, then
review the diff: any change to how a schedule prints shows up there.
"""

import os
from pathlib import Path

import pytest

import fusion_ir
from fusion_ir import Fusion, LoadStoreOpType, ParallelType, Pipelined, ops

GOLDEN = Path(__file__).parent / "golden"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text + "\n")
        return
    assert path.exists(), f"{path} is missing; run with UPDATE_GOLDEN=1 to create it"
    assert text + "\n" == path.read_text(), f"{name} differs from the golden; UPDATE_GOLDEN=1 rewrites it"


def pointwise_fusion() -> tuple[Fusion, list]:
    """exp(t0 + t1), flattened and split for 128 threads, then inlined everywhere."""
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2)
        t1 = fusion.add_input(ndim=2)
        t2 = ops.add(t0, t1)
        t3 = ops.exp(t2)
        fusion.add_output(t3)
    t3.merge(0).split(0, 128)
    t3.axis(0).parallelize(ParallelType.BIDx)
    t3.axis(1).parallelize(ParallelType.TIDx)
    fusion_ir.transform_like(t3)
    fusion_ir.parallelize_like(t3)
    fusion_ir.inline_most(fusion)
    return fusion, [t0, t1, t2, t3]


def reduction_fusion() -> tuple[Fusion, list]:
    """Row sums: the reduction axis split by 32 lanes, the partial sum over the outer part rfactored."""
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2)
        t1 = ops.sum(t0, [1])
        fusion.add_output(t1)
    t1.split(1, 32)
    t1.axis(0).parallelize(ParallelType.BIDx)
    t1.axis(2).parallelize(ParallelType.TIDx)
    partial = t1.rfactor([1])
    fusion_ir.inline_most(fusion)
    return fusion, [t0, partial, t1]


def tma_fusion() -> tuple[Fusion, list]:
    """The DESIGN.md example: a TMA-cached input, computed at the output's tile loop, circular-buffered."""
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2)
        t1 = fusion.add_input(ndim=2)
        t2 = ops.exp(ops.add(t0, t1))
        fusion.add_output(t2)
    t2.split(1, 256)
    c0 = t0.cache_after(LoadStoreOpType.TMA)
    c0.compute_at(t2, 2)
    c0.axis(2).parallelize(ParallelType.Bulk)
    t2.axis(0).parallelize(ParallelType.BIDx)
    t2.axis(2).parallelize(ParallelType.TIDx)
    c0.circular_buffer(stages=4, prefetch=3, type=Pipelined())
    return fusion, [c0, t2]


CASES = {"pointwise": pointwise_fusion, "reduction": reduction_fusion, "tma": tma_fusion}


@pytest.mark.parametrize("name", list(CASES))
def test_fusion_golden(name):
    fusion, _ = CASES[name]()
    check_golden(f"{name}_fusion.txt", str(fusion))


@pytest.mark.parametrize("name", list(CASES))
def test_transforms_golden(name):
    fusion, tensors = CASES[name]()
    text = "\n\n".join(tv.transforms_string() for tv in tensors)
    check_golden(f"{name}_transforms.txt", text)


def test_printing_is_deterministic():
    for build in CASES.values():
        assert str(build()[0]) == str(build()[0])
