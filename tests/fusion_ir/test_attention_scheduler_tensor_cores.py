"""The attention scheduler's tensor-core path (``AttentionParams.tensor_cores``: the rewritten fusion scheduled as the
wgmma kernel of ``schedulers.attention_wgmma``): when the suggestion takes it and why, the parameters it refuses,
and ``schedule(fusion)`` of the fusion as a user writes it simulated against float64 numpy."""

from __future__ import annotations

import numpy as np
import pytest

from examples import attention
from fusion_ir import DataType, ScheduleError
from fusion_ir.schedulers import AttentionParams, schedule, schedule_attention, suggest_attention_params
from lowering import lower
from runtime import simulate


@pytest.mark.parametrize("head_dim,dtype", [(64, DataType.BFloat16), (128, DataType.Half)])
def test_bf16_and_fp16_with_head_dim_64_or_128_take_tensor_cores(head_dim: int, dtype: DataType) -> None:
    params = suggest_attention_params(attention.fusion_of(1, 2, 200, 300, head_dim, dtype=dtype))
    assert params.tensor_cores and params.block_q == 64 and params.block_kv == 128
    assert "wgmma" in params.why["tensor_cores"]


@pytest.mark.parametrize("shape,causal", [
    ((1, 2, 256, 320, 64), False), ((1, 2, 1024, 1024, 128), True), ((1, 2, 200, 4096, 64), False),
    ((1, 2, 200, 130, 64), True),
], ids=["rows_of_64", "causal", "ragged_rows", "ragged_rows_causal"])
def test_128_keys_per_block_whatever_the_rows_and_the_mask(shape: tuple, causal: bool) -> None:
    """Ragged query rows no longer take 64 keys: predicate elimination leaves their predicate to the output store."""
    params = suggest_attention_params(attention.fusion_of(*shape, causal=causal))
    assert params.tensor_cores and params.block_kv == 128 and "any Sq" in params.why["block_kv"]


def test_symbolic_query_rows_take_128_keys_per_block() -> None:
    params = suggest_attention_params(attention.fusion_of(head_dim=64, symbolic=True))
    assert params.block_kv == 128
    sized = suggest_attention_params(attention.fusion_of(head_dim=64, symbolic=True),
                                     sizes=attention.input_shapes(2, 2, 512, 512, 64))
    assert sized.block_kv == 128


@pytest.mark.parametrize("kwargs,why", [
    ({"head_dim": 32}, "the head dim 32 is not one of (64, 128)"),
    ({"head_dim": 64, "dtype": DataType.Float}, "not a bf16 or fp16 fusion input"),
])
def test_other_attentions_stay_on_cuda_cores_with_the_reason(kwargs: dict, why: str) -> None:
    params = suggest_attention_params(attention.fusion_of(1, 2, 48, 80, **kwargs))
    assert not params.tensor_cores and why in params.why["tensor_cores"]


@pytest.mark.parametrize("params,needle", [
    (AttentionParams(block_q=32, block_kv=64, tensor_cores=True), "block_q: 32 with tensor_cores"),
    (AttentionParams(block_q=64, block_kv=32, tensor_cores=True), "block_kv: 32 with tensor_cores"),
    (AttentionParams(tensor_cores=1), "tensor_cores: 1 must be a bool"),
])
def test_refused_parameters_name_the_rule(params: AttentionParams, needle: str) -> None:
    with pytest.raises(ScheduleError, match=needle):
        schedule_attention(attention.fusion_of(1, 1, 64, 64, 64), params)


def test_tensor_cores_asked_for_an_attention_they_do_not_take_is_refused() -> None:
    with pytest.raises(ScheduleError, match="tensor_cores: the head dim 32"):
        schedule_attention(attention.fusion_of(1, 1, 64, 64, 32), AttentionParams(block_kv=64, tensor_cores=True))


@pytest.mark.parametrize("shape,causal,block_kv,dtype", [((1, 2, 200, 130, 64), False, 64, DataType.BFloat16),
                                                         ((2, 1, 100, 260, 128), True, 128, DataType.BFloat16),
                                                         ((1, 1, 90, 70, 64), True, 64, DataType.Half)])
def test_scheduled_attention_on_tensor_cores_matches_numpy(shape: tuple[int, ...], causal: bool, block_kv: int,
                                                           dtype: DataType) -> None:
    fusion = attention.fusion_of(*shape, causal=causal, dtype=dtype)
    params = schedule(fusion, params=AttentionParams(block_q=64, block_kv=block_kv, tensor_cores=True))
    assert params.tensor_cores
    kernel = lower(fusion)
    assert "wgmma.m64n" in str(kernel)
    for seed in (0, 1):
        inputs = attention.make_inputs(*shape, seed=seed)           # bf16 values: fp16 holds them exactly
        if dtype is DataType.Half:
            inputs = [x.astype(np.float16) for x in inputs]
        (out,) = simulate(kernel, inputs, seed=seed)
        want = attention.reference(*inputs, causal=causal)
        err = float(np.abs(np.asarray(out, dtype=np.float64) - want).max() / np.abs(want).max())
        assert err <= attention.TOLERANCE, (shape, causal, seed, err)


def test_the_suggestion_is_what_schedule_takes() -> None:
    fusion = attention.fusion_of(1, 1, 70, 90, 64, causal=True)
    params = schedule(fusion)
    assert params.tensor_cores and "wgmma.m64n64k16" in str(lower(fusion))


@pytest.mark.parametrize("causal", [False, True])
def test_symbolic_sizes_take_tensor_cores_and_match_numpy(causal: bool) -> None:
    """One kernel for any batch, heads and sequence lengths (the head dim constant), causal or not."""
    fusion = attention.fusion_of(head_dim=64, causal=causal, symbolic=True)
    assert schedule(fusion).tensor_cores
    kernel = lower(fusion)
    for n, shape in enumerate([(1, 2, 200, 130, 64), (2, 1, 64, 300, 64)]):
        inputs = attention.make_inputs(*shape, seed=20 + n)
        (out,) = simulate(kernel, inputs, seed=n)
        want = attention.reference(*inputs, causal=causal)
        err = float(np.abs(np.asarray(out, dtype=np.float64) - want).max() / np.abs(want).max())
        assert err <= attention.TOLERANCE, (shape, causal, err)


@pytest.mark.parametrize("causal", [False, True])
def test_symbolic_sizes_compute_the_key_mask_per_element(causal: bool) -> None:
    """With symbolic sizes too, the key and query indices are computed per element of the fragment: every integer or
    boolean buffer (the indices, the compares) holds one element, none a key block (``[block_kv]``) per thread."""
    from fusion_ir import MemoryType
    from lowering import kernel_ir as k

    fusion = attention.fusion_of(head_dim=64, causal=causal, symbolic=True)
    schedule(fusion)
    kernel = lower(fusion)
    exact = (DataType.Int32, DataType.Int64, DataType.Bool)
    masks = [n.buffer for n in k.walk(kernel.body) if isinstance(n, k.Allocate)
             and n.buffer.memory is MemoryType.Local and n.buffer.dtype in exact
             and not n.buffer.name.endswith("_token")]
    assert masks and all(str(b.size) == "1" for b in masks), [(b.name, str(b.size)) for b in masks]


WS = {"tensor_cores": True, "block_q": 64, "block_kv": 64}


@pytest.mark.parametrize("params,needle", [
    (AttentionParams(**WS, stages=0), r"AttentionParams.stages: 0 must be an int in \[1, 8\]"),
    (AttentionParams(**WS, stages=2.0), r"AttentionParams.stages: 2.0 must be an int"),
    (AttentionParams(**WS, warp_specialized=True), r"warp_specialized: needs stages >= 2 \(got 1\)"),
    (AttentionParams(**WS, stages=2, compute_warp_groups=3), r"compute_warp_groups: 3 must be one of \(1, 2\)"),
    (AttentionParams(**WS, stages=2, register_split=(24, 240)), r"register_split: .* needs warp_specialized=True"),
    (AttentionParams(**WS, stages=2, warp_specialized=True, register_split=(24, 250)),
     r"register_split: \(24, 250\) must be None or \(producer, compute\) register counts, multiples of 8"),
    (AttentionParams(**WS, stages=2, warp_specialized=True, compute_warp_groups=2, register_split=(240, 240)),
     r"register_split: \(240, 240\) gives a producer and 2 compute warp groups 92160 registers"),
    (AttentionParams(block_kv=32, stages=2), r"AttentionParams.stages: 2 needs tensor_cores=True"),
    (AttentionParams(block_kv=32, compute_warp_groups=2), r"compute_warp_groups: 2 needs tensor_cores=True"),
], ids=["stages0", "stages_float", "ws_one_stage", "three_groups", "split_without_ws", "split_step",
        "split_over_sm", "stages_cuda_cores", "groups_cuda_cores"])
def test_refused_kernel_shapes_name_the_field_and_rule(params: AttentionParams, needle: str) -> None:
    with pytest.raises(ScheduleError, match=needle):
        schedule_attention(attention.fusion_of(1, 1, 64, 64, 64), params)


def test_stages_past_the_shared_memory_are_refused() -> None:
    """q's tile and 8 stages of k_j and v_j at D 128 with 128 keys: 16 KB + 512 KB, over the 227 KB of a block."""
    params = AttentionParams(tensor_cores=True, block_q=64, block_kv=128, stages=8)
    with pytest.raises(ScheduleError, match=r"AttentionParams.stages: q's tile \(16384 bytes\) and 8 stages of k_j "
                                            r"and v_j \(524288 bytes .*over the target's 232448 per block"):
        schedule_attention(attention.fusion_of(1, 1, 256, 256, 128), params)


@pytest.mark.parametrize("d,sq,block_kv,groups", [(64, 256, 128, 1), (128, 256, 128, 2), (128, 200, 128, 2),
                                                   (64, 200, 128, 1)])
def test_the_suggestion_pipelines_k_and_v_and_picks_warp_groups_by_shared_memory(d: int, sq: int, block_kv: int,
                                                                               groups: int) -> None:
    """Two compute warp groups only where a block of one would take more than half an SM's shared memory (D 128
    with 128 keys: 144 KB). One warp group: two Pipelined K/V stages, no producer. Two: FlashAttention-3's
    structure, a producer warp group (24 / 240 registers), three stages, ping-pong and the intra-warp-group
    overlap."""
    params = suggest_attention_params(attention.fusion_of(1, 2, sq, sq, d))
    got = (params.block_kv, params.stages, params.warp_specialized, params.register_split, params.compute_warp_groups,
           params.ping_pong, params.overlap)
    if groups == 1:
        assert got == (block_kv, 2, False, None, 1, False, False)
    else:
        assert got == (block_kv, 3, True, (24, 240), 2, True, True)
        assert "FlashAttention-3" in params.why["warp_specialized"]
    assert params.why["compute_warp_groups"].startswith(f"{groups}: a block of one warp group takes")


def test_the_turn_taking_structure_falls_back_where_its_stages_do_not_fit() -> None:
    """Three stages of k_j and v_j beside q's tile must fit a block's shared memory; on a target with less, two
    cooperative warp groups with two stages."""
    from fusion_ir.schedulers.attention import _turn_taking_shape

    assert _turn_taking_shape(128, 128) is not None
    assert _turn_taking_shape(128, 256) is None          # 3 x 128 KB of k_j and v_j: over 227 KB


def test_schedule_attention_with_the_warp_specialized_pipeline_matches_numpy() -> None:
    """``schedule_attention`` with stages 2, a producer warp group, a register split and two compute warp groups:
    causal, ragged Sq and Skv."""
    shape = (1, 2, 100, 333, 64)
    params = AttentionParams(tensor_cores=True, block_q=64, block_kv=64, stages=2, warp_specialized=True,
                             register_split=(24, 240), compute_warp_groups=2)
    kernel = lower(schedule_attention(attention.fusion_of(*shape, causal=True), params))
    text = str(kernel)
    assert "block (128, 3, 1)" in text and "AsyncWarp" in text and "setmaxnreg" in text
    inputs = attention.make_inputs(*shape, seed=4)
    (out,) = simulate(kernel, inputs, seed=4)
    want = attention.reference(*inputs, causal=True)
    assert np.abs(np.asarray(out, np.float64) - want).max() / np.abs(want).max() <= attention.TOLERANCE
