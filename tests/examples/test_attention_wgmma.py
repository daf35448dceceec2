"""examples/attention_wgmma: the online-softmax rewrite of attention on one warp group of tensor cores (wgmma QK^T
into a register fragment, the row max and sum by quad shuffles, cast(e) the register A operand of the PV wgmma
accumulated in place by the rescaled sum). The simulator against float64 numpy (``attention.reference``: p not
rounded) at sizes no block divides, two seeds each; the kernel's structure; the sizes it refuses."""

from __future__ import annotations

import numpy as np
import pytest

from examples import attention_wgmma
from fusion_ir import ScheduleError
from lowering import lower
from runtime import simulate

CASES = [   # B, H, Sq, Skv, D, causal, block_kv
    ((1, 2, 200, 200, 64), False, 64),
    ((2, 1, 256, 256, 128), False, 64),
    ((2, 1, 256, 256, 128), False, 128),
    ((1, 2, 100, 333, 64), True, 64),          # causal with Sq != Skv: keys past the queries are masked too
    ((1, 1, 200, 130, 128), True, 128),
]


def _rel_error(out: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(np.asarray(out, dtype=np.float64) - want).max() / np.abs(want).max())


@pytest.mark.parametrize("shape,causal,block_kv", CASES, ids=[f"{s}-causal{c}-kv{b}" for s, c, b in CASES])
def test_matches_numpy(shape: tuple[int, ...], causal: bool, block_kv: int) -> None:
    kernel = lower(attention_wgmma.build(*shape, causal=causal, block_kv=block_kv))
    for seed in (0, 1):
        inputs = attention_wgmma.make_inputs(*shape, seed=seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        err = _rel_error(out, attention_wgmma.reference(*inputs, causal=causal))
        assert err <= attention_wgmma.TOLERANCE, (shape, causal, block_kv, seed, err)


def test_two_wgmma_per_key_block_and_q_loaded_once() -> None:
    """One warp group per 64 query rows; q's boxes loaded before the key-block loop; in it, k_j's boxes, the scores'
    wgmmas from shared memory and the output's wgmmas with the probabilities in registers."""
    kernel = lower(attention_wgmma.build(1, 2, 200, 200, 128, block_kv=64))
    text = str(kernel)
    assert "block (128, 1, 1)" in text and "grid (4, 2, 1)" in text
    assert "wgmma.m64n64k16" in text and "wgmma.m64n128k16" in text
    assert "in registers" in text                                    # cast(e) is the PV wgmma's register A
    key_blocks = text.index(") (rS")                                 # the serial loop over the key blocks
    assert text.count("tma_load(") == 3 and text.index("tmap_T0, {") < key_blocks   # q: before it, once
    assert key_blocks < text.index("tmap_T1, {") and key_blocks < text.index("tmap_T2, {")  # k_j, v_j: in it
    assert text.count("shfl.xor") == 4                               # max and sum: lane masks 1 and 2 each


@pytest.mark.parametrize("kwargs,needle", [({"head_dim": 96}, "head_dim = 96"), ({"block_kv": 32}, "block_kv = 32")])
def test_refuses_sizes_it_does_not_lay_out(kwargs: dict, needle: str) -> None:
    args = {"batch": 1, "heads": 1, "seq_q": 64, "seq_kv": 64, "head_dim": 64, **kwargs}
    with pytest.raises(ScheduleError, match=needle):
        attention_wgmma.build(**args)


def test_symbolic_sizes_non_causal_match_numpy() -> None:
    """Batch, heads and sequence lengths symbolic (the head dim constant): one kernel for any size; the views of k
    and v stay read through by their TMA boxes (never inlined, never computed)."""
    from examples import attention
    from fusion_ir.online_softmax import online_softmax
    from fusion_ir.schedulers.attention_wgmma import schedule_on_tensor_cores

    fusion = attention.fusion_of(head_dim=64, symbolic=True)
    (record,) = online_softmax(fusion, 64)
    schedule_on_tensor_cores(fusion, record)
    kernel = lower(fusion)
    for n, shape in enumerate([(1, 2, 200, 130, 64), (2, 1, 64, 300, 64)]):
        inputs = attention_wgmma.make_inputs(*shape, seed=10 + n)
        (out,) = simulate(kernel, inputs, seed=n)
        assert _rel_error(out, attention_wgmma.reference(*inputs)) <= attention_wgmma.TOLERANCE, shape


@pytest.mark.parametrize("causal,block_kv", [(False, 64), (True, 128)])
def test_the_per_row_recurrence_stays_in_registers(causal: bool, block_kv: int) -> None:
    """The row max and sum, the running max, the safe max, alpha and the row sum: Local, laid out as the fragment's
    rows with the quad's 4 lanes (every lane holds its rows' values), on all 128 threads. Shared memory holds only
    the q, k and v tiles (and the mbarriers); the key-block loop's barriers are the TMA tiles' (k_j and v_j arrived,
    k_j and v_j rewritten, v_j taking k_j's memory), none for a per-row value."""
    from fusion_ir import MemoryType
    from lowering import kernel_ir as k

    kernel = lower(attention_wgmma.build(1, 2, 200, 200, 64, causal=causal, block_kv=block_kv))
    shared = [n.buffer for n in k.walk(kernel.body) if isinstance(n, k.Allocate)
              and n.buffer.memory is MemoryType.Shared and not n.buffer.name.endswith("_mbar")]
    assert [b.dtype.name for b in shared] == ["BFloat16"] * 3                    # the q, k_j and v_j tiles
    _q, v_j, k_j = (b.name for b in shared)                                     # in allocation order
    key_blocks = next(n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop) and n.label.startswith("rS")
                      and any(isinstance(m, k.Mma) for m in k.walk(n.body)))
    reasons = [n.reason for n in k.walk(key_blocks.body) if isinstance(n, k.BlockSync)]
    assert reasons == [f"RAW: {k_j} arrived by TMA; the elected thread waited on its token",
                       f"WAR: {k_j} is rewritten next iteration",
                       f"WAR: {v_j} reuses the memory of {k_j}",
                       f"RAW: {v_j} arrived by TMA; the elected thread waited on its token",
                       f"WAR: {v_j} is rewritten next iteration"]
    text = str(kernel)
    assert "threadIdx.x < 32" not in text                         # no thread per row pair
