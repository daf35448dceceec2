"""``mma_init``: a wgmma accumulator's zeroing folded into its first k step (scale-d 0).

The suggested kernels lose the zeroing; pipelines whose first wgmma loop may run no iteration keep it, under a
branch on that; every form simulates to numpy; and each piece the fold relies on, removed, gives a wrong result."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from codegen import to_cuda
from examples import matmul_wgmma
from fusion_ir import DataType, Fusion, ops
from fusion_ir.reference import evaluate
from fusion_ir.scalar import Val
from fusion_ir.schedulers import schedule_matmul, suggest_matmul_params
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from tests.helpers import random_inputs, rel_error
from tests.runtime.kir_builders import mutate

SHAPES = [(200, 264), (264, 136)]     # [M, K], [K, N]: 5 k tiles (the last ragged), ragged M and N
FORMS = {
    "ws_persistent": dict(warp_specialized=True, persistent=True, blocks=3, group_m=2),
    "ping_pong": dict(compute_warp_groups=2, warp_specialized=True, persistent=True, ping_pong=True, blocks=2,
                      tile=(64, 128, 64)),
    "pipelined": dict(),
    "split_k": dict(split_k=2),
    "stream_k": dict(stream_k=True, blocks=3),
}


def _kernel(form: str) -> tuple[Fusion, k.Kernel]:
    fields = dict(tile=(128, 128, 64), stages=3, compute_warp_groups=1)
    fields.update(FORMS[form])
    fusion = matmul_wgmma.build(**fields)
    return fusion, lower(fusion)


def _error(fusion: Fusion, kern: k.Kernel, shapes=SHAPES, seed: int = 1) -> float:
    inputs = random_inputs(fusion, shapes, seed=seed + 10)
    (out,) = simulate(kern, inputs, seed=seed)
    return rel_error(out, evaluate(fusion, inputs)[0])


def _zeroings(kern: k.Kernel, acc: str) -> list[k.Assign]:
    return [x for x in k.walk(kern.body) if isinstance(x, k.Assign) and x.buffer.name == acc
            and isinstance(x.value, k.Const) and x.value.value == 0]


def test_the_suggested_kernel_writes_its_first_k_step_instead_of_zeroing() -> None:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(8192, 2048), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(2048, 8192), dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.matmul(a, b), DataType.BFloat16))
    schedule_matmul(fusion, suggest_matmul_params(fusion))
    kern = lower(fusion)
    mmas = [x for x in k.walk(kern.body) if isinstance(x, k.Mma)]
    acc = mmas[0].acc.name
    assert not _zeroings(kern, acc)            # 32 k tiles: the loop runs, no zeroing is left
    loops = {x.index.name: x for x in k.walk(kern.body) if isinstance(x, k.ForLoop)}
    for mma in mmas:
        # false exactly where the k-tile loop and the k-step loop around it are at their first iteration
        names = sorted(mma.accumulate.symbols())
        assert len(names) == 2 and all(loops[n].start.const_value() == 0 for n in names)
        assert not mma.accumulate.evaluate({n: 0 for n in names})
        assert all(mma.accumulate.evaluate({names[0]: i, names[1]: j}) for i, j in ((0, 1), (1, 0), (3, 2)))
    cuda = to_cuda(kern)
    assert f"wgmma::discard({acc});" in cuda and f"{acc}[r" not in cuda
    # every wgmma call passes its scale-d: the two loop indices compared with their starts
    calls = re.findall(r"wgmma::mma\w+<[01], [01]>\(&\w+\[[^\]]*\],\n(?:.*\n){2}", cuda)
    assert calls and all(re.search(r", \(i\d+ != 0\) \|\| \(i\d+ != 0\)\);\n$", c) for c in calls)
    assert "int scaleD = 1" in cuda


@pytest.mark.parametrize("form", FORMS)
def test_every_form_matches_numpy(form: str) -> None:
    fusion, kern = _kernel(form)
    assert any(x.accumulate is not None for x in k.walk(kern.body) if isinstance(x, k.Mma))
    for seed in (0, 1):
        assert _error(fusion, kern, seed=seed) < 1e-5


@pytest.mark.parametrize("form", ["pipelined", "split_k"])
def test_a_first_loop_that_may_run_no_iteration_keeps_the_zeroing_for_that_case(form: str) -> None:
    """The pipelined kernel's wgmma loop runs K tiles - 2 iterations (the last two follow it); a split-K part of
    one K tile has none. One K tile (K = 40): the zeroing runs, under its branch."""
    fusion, kern = _kernel(form)
    acc = next(x.acc.name for x in k.walk(kern.body) if isinstance(x, k.Mma))
    zeroing = _zeroings(kern, acc)
    guards = [x for x in k.walk(kern.body) if isinstance(x, k.IfThenElse)
              and any(z in k.walk(x.then_body) for z in zeroing) and "<=" in str(x.cond)]
    assert guards
    short = [(200, 40), (40, 136)]
    assert _error(fusion, kern, short) < 1e-5
    # without the zeroing, the first wgmmas of the loops after the empty one add to undefined registers
    unguarded = mutate(kern, lambda n: () if n in guards else None)
    assert not _error(fusion, unguarded, short) < 1e-2
    assert _error(fusion, unguarded) < 1e-5          # where the loop runs, it did not need the zeroing


def test_without_scale_d_the_first_wgmmas_add_to_undefined_registers() -> None:
    fusion, kern = _kernel("ws_persistent")
    bad = mutate(kern, lambda n: replace(n, accumulate=None) if isinstance(n, k.Mma) and n.accumulate is not None
                 else None)
    assert not _error(fusion, bad) < 1e-2


def test_a_wgmma_that_always_writes_keeps_only_the_last_k_step() -> None:
    fusion, kern = _kernel("ws_persistent")
    bad = mutate(kern, lambda n: replace(n, accumulate=Val.const(0)) if isinstance(n, k.Mma) and n.accumulate is not None
                 else None)
    assert not _error(fusion, bad) < 1e-2


def test_an_accumulator_rescaled_between_its_wgmmas_keeps_its_zeroing() -> None:
    """Attention's output accumulator is rescaled (read and written) between the wgmmas of successive key blocks,
    so no first k step writes it: its zeroing stays, its wgmmas always add. The scores' accumulator, zeroed per
    key block, is folded."""
    from examples import attention_wgmma

    kern = lower(attention_wgmma.build())
    mmas = [x for x in k.walk(kern.body) if isinstance(x, k.Mma)]
    adding = {x.acc.name for x in mmas if x.accumulate is None}
    folded = {x.acc.name for x in mmas if x.accumulate is not None}
    assert adding and folded and not adding & folded
    assert all(_zeroings(kern, name) for name in adding)
    assert not any(_zeroings(kern, name) for name in folded)


def test_the_fold_changes_no_result_of_the_suggested_epilogue_kernels() -> None:
    """relu(a @ b + bias) and a @ b + C at a ragged size, as the suggestion schedules them."""
    from examples import matmul_epilogue

    for kind in ("bias_relu", "residual"):
        fusion = matmul_epilogue.fusion_of(kind, (200, 264, 136))
        schedule_matmul(fusion)
        kern = lower(fusion)
        assert any(x.accumulate is not None for x in k.walk(kern.body) if isinstance(x, k.Mma))
        inputs = random_inputs(fusion, [(200, 136), (136, 264)] + ([(264,)] if kind == "bias_relu" else [(200, 264)]),
                               seed=3)
        (out,) = simulate(kern, inputs, seed=2)
        assert np.isfinite(out).all()
        assert rel_error(out, evaluate(fusion, inputs)[0]) < 1e-2


def test_the_discard_takes_the_zeroing_place_inside_the_compute_branch() -> None:
    """A tile per block with warp specialization: the zeroing stood before the warp split; the accumulators' Discard
    (and so ``wgmma::discard``) sits in the compute warp groups' branch, so the producer's code before it keeps its
    registers (a Discard at the kernel's top kept 128 registers live through the barrier setup, and the
    mbarrier addresses moved out of uniform registers)."""
    fusion = matmul_wgmma.build(tile=(128, 256, 64), stages=4, warp_specialized=True)
    kern = lower(fusion)
    (split,) = [n for n in k.walk(kern.body) if isinstance(n, k.IfThenElse) and n.branch_threads is not None]
    discards = [n for n in k.walk(kern.body) if isinstance(n, k.Discard)]
    assert len(discards) == 1 and not any(isinstance(n, k.Discard) for n in kern.body)
    compute = split.else_body if any(isinstance(n, k.Return) for n in split.then_body) else split.then_body
    assert discards[0] in k.walk(compute)
    assert f"wgmma::discard({discards[0].buffer.name});" in to_cuda(kern)


def test_a_discard_of_anything_but_a_float_register_array_is_refused() -> None:
    from lowering.verify import VerifyError, verify

    fusion, kern = _kernel("ws_persistent")
    shared = next(x.buffer for x in k.walk(kern.body) if isinstance(x, k.Allocate)
                  and x.buffer.memory is k.MemoryType.Shared and x.buffer.dtype is DataType.BFloat16)
    bad = mutate(kern, lambda n: k.Discard(shared) if isinstance(n, k.Discard) else None)
    with pytest.raises(VerifyError, match=rf"Discard of {shared.name} \(Shared BFloat16\): only a wgmma accumulator"):
        verify(bad)
