"""examples/attention_wgmma as a persistent kernel (``KernelShape.persistent``, FlashAttention-3's): the (batch x head,
query tile) tiles merged into one index that a grid of ``blocks`` blocks walks grid-stride, each block running the
whole key-block loop per tile (q reloaded, the running max, row sum and accumulator initialized per tile). With
``blocks = 3`` every block walks several tiles and the last ones past the end are skipped. The simulator against
float64 numpy at sizes no tile divides, causal with Sq != Skv (the key-block loop's bound and its unmasked range read
the tile's query index from the persistent loop index and blockIdx.x), two seeds each; the kernel's structure; the
combinations it refuses."""

from __future__ import annotations

import numpy as np
import pytest

from examples import attention_wgmma
from fusion_ir import ScheduleError
from fusion_ir.schedulers.attention import AttentionParams
from fusion_ir.schedulers.attention_wgmma import KernelShape
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate

CASES = [   # B, H, Sq, Skv, D, causal, block_kv, compute_warp_groups, stages
    ((1, 2, 200, 200, 64), False, 64, 1, 1),
    ((1, 2, 200, 200, 64), True, 128, 2, 1),
    ((1, 2, 200, 200, 64), True, 64, 1, 2),    # 1 to 4 key blocks per tile: the pipeline's phases per tile
    ((1, 2, 200, 200, 64), False, 128, 2, 3),
    ((2, 1, 256, 256, 128), False, 128, 2, 2),
    ((2, 1, 256, 256, 128), True, 64, 1, 1),
    ((2, 1, 256, 256, 128), True, 64, 2, 2),
    ((1, 2, 100, 333, 64), True, 64, 1, 1),    # causal with Sq != Skv: the last query tile sees every key block
    ((1, 2, 100, 333, 64), True, 64, 2, 2),
    ((1, 2, 333, 100, 64), True, 64, 2, 1),    # Sq > Skv: the first query tiles see no key at all
    ((1, 2, 333, 100, 64), True, 64, 1, 3),
]


def _id(case: tuple) -> str:
    shape, causal, block_kv, w, stages = case
    return f"{shape}-causal{causal}-kv{block_kv}-wg{w}-s{stages}"


def _rel_error(out: np.ndarray, want: np.ndarray) -> float:
    want = np.nan_to_num(want)
    return float(np.abs(np.nan_to_num(np.asarray(out, dtype=np.float64)) - want).max() / np.abs(want).max())


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_matches_numpy(case: tuple) -> None:
    shape, causal, block_kv, w, stages = case
    kernel = lower(attention_wgmma.build(*shape, causal=causal, block_kv=block_kv, compute_warp_groups=w,
                                         stages=stages, persistent=True, blocks=3))
    assert "grid (3, 1, 1)" in str(kernel)
    for seed in (0, 1):
        inputs = attention_wgmma.make_inputs(*shape, seed=seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        err = _rel_error(out, attention_wgmma.reference(*inputs, causal=causal))
        assert err <= attention_wgmma.TOLERANCE, (case, seed, err)


def test_through_the_scheduler_params() -> None:
    """``AttentionParams(persistent=True, blocks=3)`` through ``schedule_attention``: the same kernel."""
    from examples import attention
    from fusion_ir.schedulers.attention import schedule_attention

    shape = (1, 2, 100, 333, 64)
    fusion = attention.fusion_of(*shape, causal=True)
    schedule_attention(fusion, AttentionParams(block_q=64, block_kv=64, tensor_cores=True, persistent=True, blocks=3))
    kernel = lower(fusion)
    inputs = attention_wgmma.make_inputs(*shape, seed=3)
    (out,) = simulate(kernel, inputs, seed=3)
    assert _rel_error(out, attention_wgmma.reference(*inputs, causal=True)) <= attention_wgmma.TOLERANCE


def test_a_block_walks_the_tiles_and_reloads_q_per_tile() -> None:
    """A grid of 3 blocks; one serial loop over the tiles, ``tile = i * 3 + blockIdx.x`` past the 8 tiles skipped;
    in it q's boxes, the accumulator's init, the key-block loop (bounded by the tile's query index, read from the tile)
    and a block barrier before q's next tile overwrites the one the wgmmas read."""
    kernel = lower(attention_wgmma.build(1, 2, 200, 200, 64, causal=True, persistent=True, blocks=3))
    text = str(kernel)
    assert "grid (3, 1, 1)" in text and "blockIdx.y" not in text
    tiles = text.index("FOR i0 in [0, 3)")
    assert tiles < text.index("IF ((i0 * 3) + blockIdx.x) >= 8:") < text.index("tmap_T0, {")
    assert "ceilDiv(((((i0 * 3) + blockIdx.x) % 4) * 64) + 64, 64)" in text    # the causal bound of the key blocks
    assert "WAR: T64 is rewritten next iteration" in text
    loops = [n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop) and n.label.startswith("iS")]
    assert loops and str(loops[0].stop) == "3"


@pytest.mark.parametrize("fields,needle", [
    ({"persistent": 1}, "KernelShape.persistent: 1 must be a bool"),
    ({"blocks": 4}, "KernelShape.blocks: 4 needs persistent=True"),
    ({"persistent": True, "blocks": 0}, "KernelShape.blocks: 0 must be None"),
    ({"persistent": True, "blocks": True}, "KernelShape.blocks: True must be None"),
    ({"persistent": True, "stages": 2, "warp_specialized": True}, "KernelShape.persistent: needs warp_specialized"),
])
def test_kernel_shape_refuses(fields: dict, needle: str) -> None:
    with pytest.raises(ScheduleError, match=needle):
        KernelShape(**fields).validate()


def test_params_refuse_persistent_without_tensor_cores() -> None:
    with pytest.raises(ScheduleError, match="AttentionParams.persistent: True needs tensor_cores=True"):
        AttentionParams(persistent=True).validate()


def test_a_bound_read_from_a_thread_axis_is_refused() -> None:
    """``bound_loop`` with an IterDomain outer: every loop axis it went into must be before the loop and a block index
    or serial (uniform over the block)."""
    from fusion_ir import Fusion, ParallelType, ops
    from fusion_ir.types import DataType

    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 256), dtype=DataType.Float)
        y = ops.sum(x, [1])
        fusion.add_output(y)
    y.split(0, 32)                     # [I0/32, 32, r256]
    inner = y.axis(1).id
    y.merge(0, 1)                      # [I0, r256]
    y.split(0, 8)                      # [I0/8, 8, r256]
    y.axis(0).parallelize(ParallelType.BIDx)
    y.axis(1).parallelize(ParallelType.TIDx)
    with pytest.raises(ScheduleError, match="every loop axis it goes into must be before axis 2 and bound to a block"):
        y.bound_loop(2, outer=inner, scale=1, offset=0, divisor=1, reason="test")


def test_persistent_with_ping_pong_is_refused() -> None:
    import pytest

    from fusion_ir import ScheduleError
    from fusion_ir.schedulers.attention_wgmma import KernelShape

    with pytest.raises(ScheduleError, match="persistent: with ping_pong=True is not built"):
        KernelShape(stages=2, compute_warp_groups=2, ping_pong=True, persistent=True).validate()
