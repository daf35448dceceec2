"""examples/attention_wgmma with FlashAttention-3's structure as schedule choices (``KernelShape``): k_j's and v_j's
tiles circular-buffered over the key-block loop (``stages``), issued by a producer warp group (``warp_specialized``,
``register_split``), two compute warp groups of 64 query rows each sharing the stages (``compute_warp_groups``).
The simulator against float64 numpy at sizes no tile divides (ragged Sq and Skv, several key blocks, causal with
Sq != Skv), two seeds each; the kernel's structure."""

from __future__ import annotations

import numpy as np
import pytest

from examples import attention_wgmma
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate

CASES = [   # B, H, Sq, Skv, D, causal, block_kv, stages, warp_specialized, compute_warp_groups
    ((1, 2, 200, 200, 64), False, 64, 2, False, 1),
    ((1, 2, 200, 200, 64), False, 64, 3, True, 2),
    ((2, 1, 256, 256, 128), False, 128, 2, True, 1),
    ((2, 1, 256, 256, 128), False, 64, 3, False, 2),
    ((1, 2, 100, 333, 64), True, 64, 3, True, 1),
    ((1, 2, 100, 333, 64), True, 64, 2, False, 2),
    ((1, 1, 200, 130, 128), True, 128, 2, True, 2),
    ((1, 1, 200, 130, 128), True, 64, 3, False, 1),
]


def _id(case: tuple) -> str:
    shape, causal, block_kv, stages, ws, w = case
    return f"{shape}-causal{causal}-kv{block_kv}-s{stages}-{'ws' if ws else 'pipe'}-wg{w}"


def _rel_error(out: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(np.asarray(out, dtype=np.float64) - want).max() / np.abs(want).max())


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_matches_numpy(case: tuple) -> None:
    shape, causal, block_kv, stages, ws, w = case
    kernel = lower(attention_wgmma.build(*shape, causal=causal, block_kv=block_kv, stages=stages,
                                         warp_specialized=ws, compute_warp_groups=w))
    for seed in (0, 1):
        inputs = attention_wgmma.make_inputs(*shape, seed=seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        err = _rel_error(out, attention_wgmma.reference(*inputs, causal=causal))
        assert err <= attention_wgmma.TOLERANCE, (case, seed, err)


def test_the_register_split_matches_numpy() -> None:
    shape = (1, 2, 200, 200, 64)
    kernel = lower(attention_wgmma.build(*shape, block_kv=64, stages=2, warp_specialized=True,
                                         register_split=(24, 240), compute_warp_groups=2))
    regs = [n for n in k.walk(kernel.body) if isinstance(n, k.SetMaxNReg)]
    assert sorted((n.count, n.increase) for n in regs) == [(24, False), (240, True)], regs
    inputs = attention_wgmma.make_inputs(*shape, seed=2)
    (out,) = simulate(kernel, inputs, seed=2)
    assert _rel_error(out, attention_wgmma.reference(*inputs)) <= attention_wgmma.TOLERANCE


def _loops(kernel: k.Kernel, stage: k.Stage) -> list[k.ForLoop]:
    return [n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop) and n.stage is stage]


def test_the_producer_issues_every_key_block_the_compute_warp_groups_wait_for() -> None:
    """Warp-specialized, causal, ragged Skv, two compute warp groups: block ``(128, 3, 1)`` (TIDy padded by the
    producer); q's boxes once, issued by the producer first; the producer's one loop over the key blocks (the causal bound
    of the 128 rows of the block) issues k_j's and v_j's boxes onto one full barrier per stage; the compute warp
    groups' loop runs in two ranges (unmasked, then masked) of the same bound, each waiting on the full barrier of
    the key block's stage; the empty barriers count both compute warp groups' 256 threads."""
    kernel = lower(attention_wgmma.build(1, 2, 100, 333, 64, causal=True, block_kv=64, stages=3,
                                         warp_specialized=True, compute_warp_groups=2))
    text = str(kernel)
    assert "block (128, 3, 1)" in text
    (producer,) = _loops(kernel, k.Stage.AsyncWarp)
    compute = _loops(kernel, k.Stage.ComputeWarp)
    assert len(compute) == 2                                         # the unmasked and the masked key blocks
    assert "ceilDiv((blockIdx.x * 128) + 128, 64)" in str(producer.stop)    # the block's 128 rows bound it
    assert str(compute[0].start) == "0" and compute[0].stop == compute[1].start
    assert compute[1].stop == producer.stop
    loads = [n for n in k.walk(producer.body) if isinstance(n, k.TmaLoad)]
    assert len(loads) == 2 and len({n.mbar.name for n in loads}) == 1    # k_j and v_j: one full barrier
    full = loads[0].mbar
    for loop in compute:
        waits = [n for n in k.walk(loop.body) if isinstance(n, k.MBarrierWaitParity) and n.mbar == full]
        assert len(waits) == 1 and str(loop.index) in str(waits[0].parity)
        assert not any(isinstance(n, k.TmaLoad) for n in k.walk(loop.body))
    inits = [n for n in k.walk(kernel.body) if isinstance(n, k.MBarrierInit) and n.mbar == full]
    assert sorted(str(n.count) for n in inits) == ["1", "256"]       # full: the producer; empty: 2 x 128 threads
    q_loads = [n for n in k.walk(kernel.body) if isinstance(n, k.TmaLoad) and n not in loads]
    assert len(q_loads) == 1 and "tmap_T0" in str(q_loads[0].tensor_map)
    (split,) = [n for n in kernel.body if isinstance(n, k.IfThenElse) and n.branch_threads is not None]
    assert q_loads[0] in list(k.walk(split.then_body))                # the producer issues q too


def test_the_pipelined_loop_prefetches_stages_minus_one_key_blocks() -> None:
    """Pipelined (no producer): the prologue issues the first ``stages - 1`` key blocks' k_j and v_j (bounded by the
    loop's trip count), the main loop the loads of block ``j + stages - 1`` after releasing a stage; k_j's whole
    tile (two boxes at D 128) is one stage."""
    kernel = lower(attention_wgmma.build(2, 1, 256, 256, 128, block_kv=64, stages=3))
    (prologue,) = _loops(kernel, k.Stage.Prologue)
    assert "2" in str(prologue.stop)
    loads = [n for n in k.walk(prologue.body) if isinstance(n, k.TmaLoad)]
    assert len(loads) == 2 and {n.tensor_map.name for n in loads} == {"tmap_T1", "tmap_T2"}
    boxes = [n for n in k.walk(prologue.body) if isinstance(n, k.ForLoop) and n.unroll]
    assert any(str(n.stop) == "2" for n in boxes)                   # k_j: a box per 64 columns of D
    expects = [n for n in k.walk(prologue.body) if isinstance(n, k.MBarrierArriveExpectTx)]
    assert [str(n.tx_bytes) for n in expects] == [str(2 * 64 * 128 * 2)]   # k_j and v_j: 32 KB a stage


COMPILED = [   # B, H, Sq, Skv, D, causal, block_kv, build()'s structure
    ((4, 16, 4096, 4096, 128), False, 128, {"stages": 2, "warp_specialized": True, "compute_warp_groups": 2,
                                            "register_split": (24, 240)}),
    ((4, 16, 4096, 4096, 128), True, 128, {"stages": 2, "warp_specialized": True, "compute_warp_groups": 2,
                                           "register_split": (24, 240)}),
    ((4, 16, 4096, 4096, 64), False, 128, {"stages": 3, "compute_warp_groups": 2}),
    ((2, 3, 1000, 1237, 64), True, 64, {"stages": 2, "warp_specialized": True, "compute_warp_groups": 2,
                                        "register_split": (24, 240)}),
]


@pytest.mark.parametrize("shape,causal,block_kv,structure", COMPILED,
                         ids=[f"{s}-causal{c}-kv{b}-{'-'.join(map(str, st))}" for s, c, b, st in COMPILED])
def test_compiles_for_sm90a_without_spills(shape: tuple, causal: bool, block_kv: int, structure: dict) -> None:
    """nvcc (sm_90a, ptxas -v): no warning, no spill, no stack frame; with the register split the kernel is launched
    with 384 threads, ``__launch_bounds__(384, 1)``."""
    from codegen import to_cuda
    from codegen.nvcc import compile_check, nvcc_available

    if not nvcc_available():
        pytest.skip("nvcc is not installed")
    source = to_cuda(lower(attention_wgmma.build(*shape, causal=causal, block_kv=block_kv, **structure)))
    resources = compile_check(source)
    assert not resources.spills and resources.stack_bytes == 0, resources.log
    if structure.get("register_split") is not None:
        assert "__launch_bounds__(384, 1)" in source and "increaseRegisters<240>" in source
