"""Fused matmul epilogues (examples/matmul_epilogue): relu/gelu(a @ b + bias) and
alpha * a @ b + beta * C computed from the accumulator registers of seed 000's kernel, against
numpy in the simulator; C's tile comes by TMA and its shared memory is taken over by the staging
tile of the TMA store."""

from __future__ import annotations

import numpy as np
import pytest

from examples import matmul_epilogue
from fusion_ir import DataType, Fusion, MemoryType, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul
from fusion_ir.schedulers.matmul_problem import matmul_problem
from lowering import kernel_ir as k
from lowering import lower
from lowering.passes.hoist_indices import inline_lets
from runtime import simulate
from tests.helpers import assert_matches, random_inputs

SIZES = [(256, 512, 192), (200, 264, 200), (384, 256, 512)]      # M, N, K


def _check(fusion: Fusion, kind: str, sizes: list, seed: int) -> None:
    kernel = lower(fusion)
    for n, (m, nn, kk) in enumerate(sizes):
        inputs = matmul_epilogue.make_inputs(fusion, kind, m, nn, kk, seed=seed + n)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed + n), tol=matmul_epilogue.TOLERANCE)


@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
def test_cooperative_epilogue_matches_numpy(kind: str) -> None:
    _check(matmul_epilogue.build(kind), kind, SIZES, seed=60)


@pytest.mark.parametrize("kind,params", [
    ("bias_relu", {"ping_pong": True, "tile": (128, 128, 64), "stages": 4}),
    ("bias_gelu", {"tma_store": False}),
    ("alpha_beta", {"tma_store": False}),
    ("alpha_beta", {"persistent": False}),
    ("alpha_beta", {"warp_specialized": False, "persistent": False, "stages": 2}),
], ids=["bias_relu_ping_pong", "bias_gelu_register_store", "alpha_beta_register_store", "alpha_beta_one_tile",
        "alpha_beta_pipelined"])
def test_other_arrangements_match_numpy(kind: str, params: dict) -> None:
    _check(matmul_epilogue.build(kind, **params), kind, SIZES[1:2], seed=70)


def _walk(nodes):
    for node in nodes:
        yield node
        for _, sub in k.children(node):
            yield from _walk(sub)


def _tile_loop(kernel: k.Kernel) -> k.ForLoop:
    """The compute branch's loop over the block's tiles."""
    return next(n for n in _walk(kernel.body) if isinstance(n, k.ForLoop) and n.stage is k.Stage.ComputeWarp)


def test_c_is_loaded_by_tma_once_per_tile_before_the_mainloop() -> None:
    fusion = matmul_epilogue.build("alpha_beta")
    kernel = lower(fusion)
    c = fusion.inputs[2]
    tile_loop = _tile_loop(kernel)
    body = list(tile_loop.body)
    loads = [n for n in _walk(body) if isinstance(n, k.TmaLoad)]
    assert loads and {n.tensor_map.name for n in loads} == {f"tmap_T{c.name}"}
    assert loads[0].tensor_map.box == (64, 128)              # 128 x 64 boxes (one 128-byte swizzle row wide)
    first_load = next(i for i, n in enumerate(body) if any(isinstance(x, k.TmaLoad) for x in _walk([n])))
    first_mma = next(i for i, n in enumerate(body) if any(isinstance(x, k.Mma) for x in _walk([n])))
    assert first_load < first_mma                            # issued before the mainloop of the tile
    # C is read from shared memory, never from global memory
    from codegen import to_cuda
    assert f"T{c.name}.data[" not in to_cuda(kernel)


def test_stmatrix_computes_the_epilogue_and_reads_c_so_the_staging_tile_keeps_its_own_memory() -> None:
    """The epilogue (C read, scale, add, cast) is computed right before each stmatrix, inside the staging
    tile's writes: C's tile stays live until the last stmatrix, so the staging tile may not take it over."""
    fusion = matmul_epilogue.build("alpha_beta")
    traced = lower(fusion, trace=True)
    kernel = traced.kernel
    staged = next(iter(traced.analyses.mma.staged.values()))
    assert staged.per_instruction and len(staged.inlined) >= 3
    c_tile = next(n.dst for n in _walk(kernel.body) if isinstance(n, k.TmaLoad)
                  and n.tensor_map.name == f"tmap_T{fusion.inputs[2].name}")
    staging = next(n.src for n in _walk(kernel.body) if isinstance(n, k.TmaStore))
    lives = traced.analyses.smem.lives
    assert lives[c_tile].end >= lives[staging].start
    allocs = {n.buffer: n for n in _walk(kernel.body) if isinstance(n, k.Allocate)}
    assert allocs[c_tile].offset != allocs[staging].offset
    assert traced.analyses.depths.stages(fusion.inputs[0].consumers()[0]) == 2     # "auto" beside both tiles


def test_the_bias_comes_into_shared_memory_by_tma_once_per_tile() -> None:
    """A vector the epilogue broadcasts is one TMA box of the tile's columns, loaded at the tile's start; the
    epilogue reads it from shared memory, never from global memory (whose loads, between the stmatrix
    instructions, each waited their whole latency)."""
    fusion = matmul_epilogue.build("bias_relu")
    kernel = lower(fusion)
    bias = fusion.inputs[2]
    loads = [n for n in _walk(kernel.body) if isinstance(n, k.TmaLoad) and n.tensor_map.name == f"tmap_T{bias.name}"]
    assert len(loads) == 1 and loads[0].dst.memory is MemoryType.Shared
    assert loads[0].dst.size.const_value() == 256                   # the tile's N columns of float
    from codegen import to_cuda
    assert f"T{bias.name}.data[" not in to_cuda(kernel)


def test_ping_pong_loads_the_bias_of_each_warp_groups_turn_into_shared_memory() -> None:
    """Each ping-pong warp group TMA-loads the bias of its own tile into a part of one shared buffer (a part per
    group), never reading it from global memory."""
    fusion = matmul_epilogue.build("bias_relu", ping_pong=True, tile=(128, 128, 64), stages=4)
    kernel = lower(fusion)
    bias = fusion.inputs[2]
    loads = [n for n in _walk(kernel.body) if isinstance(n, k.TmaLoad) and n.tensor_map.name == f"tmap_T{bias.name}"]
    assert len(loads) == 1 and loads[0].dst.size.const_value() == 2 * 128       # 128 columns per warp group
    from codegen import to_cuda
    assert f"T{bias.name}.data[" not in to_cuda(kernel)


def test_ping_pong_reads_a_bias_narrower_than_a_tma_alignment_unit_from_global_memory() -> None:
    """Each warp group's part of a shared bias would start where the one before ends: a 16-column float tile's part
    (64 bytes) would put the second group's box off TMA's 128-byte alignment, so each thread reads the bias from
    global memory instead; the kernel matches numpy and takes the shared memory the estimate says."""
    fusion = matmul_epilogue.build("bias_relu", ping_pong=True, tile=(128, 16, 64), stages=2, blocks=2,
                                   tma_store=False)
    kernel = lower(fusion)
    bias = fusion.inputs[2]
    assert not any(isinstance(n, k.TmaLoad) and n.tensor_map.name == f"tmap_T{bias.name}" for n in _walk(kernel.body))
    problem = matmul_problem(matmul_epilogue.fusion_of("bias_relu"))
    params = fusion.scheduler_choice.params
    assert params.smem_bytes(problem.dtype, problem.loaded_tiles) == kernel.smem_bytes.const_value()
    _check(fusion, "bias_relu", [(200, 264, 136)], seed=90)


def _ping_pong_c_kernel(tma_store: bool = True) -> tuple[Fusion, k.Kernel]:
    fusion = matmul_epilogue.build("alpha_beta", ping_pong=True, tile=(128, 128, 64), stages=2, blocks=2,
                                   tma_store=tma_store)
    return fusion, inline_lets(lower(fusion))       # indices as expressions of threadIdx.y


def test_ping_pong_loads_the_c_tile_of_each_warp_groups_turn() -> None:
    """Each compute warp group TMA-loads the C tile of its own turn at the tile's start (before its mainloop),
    into its own part of the C buffer, on its own token mbarrier, elected among its own threads; the buffer is
    allocated outside the tile loop the groups take turns in (one group's allocation would come while the other
    still reads its part)."""
    fusion, kernel = _ping_pong_c_kernel()
    c = fusion.inputs[2]
    (load,) = [n for n in _walk(kernel.body) if isinstance(n, k.TmaLoad) and n.tensor_map.name == f"tmap_T{c.name}"]
    assert load.dst.size.const_value() == 2 * 128 * 128                      # a tile per warp group
    assert load.mbar.size.const_value() == 2 and "threadIdx.y" in str(load.mbar_index)
    tile_loop = _tile_loop(kernel)
    assert not any(isinstance(n, k.Allocate) and n.buffer == load.dst for n in _walk(tile_loop.body))
    body = list(tile_loop.body)
    issue = next(i for i, n in enumerate(body) if any(isinstance(x, k.TmaLoad) for x in _walk([n])))
    first_mma = next(i for i, n in enumerate(body) if any(isinstance(x, k.Mma) for x in _walk([n])))
    assert issue < first_mma
    elect = body[issue]
    assert isinstance(elect, k.ElectSync) and "threadIdx.y" in str(elect.warp)   # the group's first warp
    from codegen import to_cuda
    assert f"T{c.name}.data[" not in to_cuda(kernel)


@pytest.mark.parametrize("kind", matmul_epilogue.C_KINDS)
@pytest.mark.parametrize("tma_store", [True, False], ids=["tma_store", "register_store"])
@pytest.mark.parametrize("size,blocks", [((200, 264, 136), 2), ((200, 264, 136), 6), ((520, 1000, 264), 3)],
                         ids=["200x264x136_3_turns", "200x264x136_1_turn", "520x1000x264"])
def test_ping_pong_with_c_matches_numpy(kind: str, tma_store: bool, size: tuple, blocks: int) -> None:
    """Ping-pong with an [M, N] C at sizes no tile divides: several turns per warp group (each reloading its C
    tile), and one tile per block (the second group idle); two seeds of when the copies land."""
    fusion = matmul_epilogue.build(kind, ping_pong=True, tile=(128, 128, 64), stages=2, blocks=blocks,
                                   tma_store=tma_store)
    kernel = lower(fusion)
    m, n, kk = size
    inputs = matmul_epilogue.make_inputs(fusion, kind, m, n, kk, seed=7)
    for seed in (0, 1):
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=matmul_epilogue.TOLERANCE)


@pytest.mark.parametrize("params", [{"store_wait": "deferred"}, {"epilogue_tile": (128, 32)}],
                         ids=["deferred_store_wait", "sub_tiled"])
def test_ping_pong_with_c_and_a_staging_tile_per_group_matches_numpy(params: dict) -> None:
    """With the store's wait deferred (a staging tile per group) or sub-tiled (a ring per group), beside C's parts."""
    fusion = matmul_epilogue.build("alpha_beta", ping_pong=True, tile=(128, 128, 64), stages=2, blocks=2, **params)
    _check(fusion, "alpha_beta", [(200, 264, 136)], seed=85)


@pytest.mark.parametrize("kind", ["bias_relu", "bias_gelu"])
def test_ping_pong_with_a_shared_bias_matches_numpy(kind: str) -> None:
    fusion = matmul_epilogue.build(kind, ping_pong=True, tile=(128, 128, 64), stages=2, blocks=2)
    _check(fusion, kind, [(520, 1000, 264)], seed=80)


def test_a_chain_of_ops_on_c_is_scheduled_with_the_epilogue() -> None:
    """The epilogue may compute on C before it meets the accumulator (cast, scale): every tensor between
    an input and the epilogue is scheduled with it."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        c = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        scaled = ops.relu(ops.mul(ops.cast(c, DataType.Float), -1.5))
        fusion.add_output(ops.cast(ops.sub(ops.matmul(a, b), scaled), DataType.BFloat16))
    schedule_matmul(fusion, MatmulParams(tile=(128, 128, 64), stages=3, warp_specialized=True, persistent=True,
                                         blocks=2, tma_store=True, index_type=DataType.Int32))
    inputs = random_inputs(fusion, [(200, 136), (136, 264), (200, 264)], seed=5)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs, seed=5), tol=1e-2)


def test_gelu_is_the_tanh_form() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        fusion.add_output(ops.gelu(x))
    xs = np.linspace(-6.0, 6.0, 97, dtype=np.float32)
    want = 0.5 * xs * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (xs + 0.044715 * xs ** 3)))
    from fusion_ir.reference import evaluate
    np.testing.assert_allclose(evaluate(fusion, [xs])[0], want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alpha_beta_are_launch_arguments_of_one_kernel(seed: int) -> None:
    """alpha and beta are scalar inputs: one lowered kernel, run with different values at an odd size (M and N
    not multiples of the tile, K not of the 64-wide K tile), matches numpy for each; the values are nowhere in
    the CUDA, the kernel takes them by value."""
    from codegen import to_cuda

    fusion = matmul_epilogue.build("alpha_beta")
    kernel = lower(fusion)
    alpha, beta = fusion.inputs[3], fusion.inputs[4]
    source = to_cuda(kernel)
    assert f"float {alpha}, float {beta})" in source
    assert "2.0f" not in source and "0.5f" not in source
    outputs = []
    for value_a, value_b in [(matmul_epilogue.ALPHA, matmul_epilogue.BETA), (-1.25, 3.0), (0.0, -0.75)]:
        inputs = matmul_epilogue.make_inputs(fusion, "alpha_beta", 200, 264, 136, seed=80 + seed,
                                             alpha=value_a, beta=value_b)
        out = simulate(kernel, inputs, seed=seed)
        assert_matches(fusion, inputs, out, tol=matmul_epilogue.TOLERANCE)
        outputs.append(out[0])
    assert not np.allclose(outputs[0], outputs[1])      # the values reach the kernel
