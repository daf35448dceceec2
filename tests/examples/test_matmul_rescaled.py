"""examples/matmul_rescaled: ``cast(rescaled_sum(a_j @ b_j, scale_j, j), bf16)`` on one wgmma accumulator, rescaled
per row in registers before each J's wgmmas. The simulator against numpy (float64) at sizes no tile divides, fresh
inputs per seed; the kernel IR the lowering makes of it (one accumulator, the rescale between the wait that retires
the previous J's wgmmas and the next fence); the analyses' answers and the layouts they refuse."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from examples import matmul_rescaled
from fusion_ir import MemoryType
from fusion_ir.reference import as_stored, evaluate, held
from lowering import kernel_ir as k
from lowering import lower
from lowering.analysis import mma as mma_analysis
from lowering.analysis import tensor_cores
from lowering.errors import LoweringError
from runtime import simulate
from tests.helpers import assert_matches, random_inputs, rel_error

SIZE = (3, 200, 136, 72)      # J, M, N, K: a ragged last row tile, column tile and K tile


def _tensors(fusion):
    """The rescaled sum and the accumulator it holds in place."""
    total = fusion.outputs[0].definition.inputs[0]
    return total, total.definition.inputs[0]


@pytest.mark.parametrize("tn,stages", [(64, 1), (128, 1), (64, 3)])
def test_matches_numpy(tn: int, stages: int) -> None:
    fusion = matmul_rescaled.build(*SIZE, tn=tn, stages=stages)
    kernel = lower(fusion)
    for seed in (0, 1):
        inputs = random_inputs(fusion, matmul_rescaled.input_shapes(*SIZE), seed=seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=matmul_rescaled.TOLERANCE)


@pytest.mark.parametrize("size,tn", [((1, 64, 64, 64), 64), ((2, 1, 8, 8), 64), ((5, 130, 200, 136), 128),
                                     ((4, 65, 264, 200), 256)])
def test_edge_sizes_match_numpy(size: tuple[int, int, int, int], tn: int) -> None:
    """One J (no rescale runs), one row and one 8-column vector, more J than rows of tiles, and a 256-column tile."""
    fusion = matmul_rescaled.build(*size, tn=tn)
    seed = int(np.random.default_rng().integers(2**31))          # fresh inputs every run
    inputs = random_inputs(fusion, matmul_rescaled.input_shapes(*size), seed=seed)
    try:
        assert_matches(fusion, inputs, simulate(lower(fusion), inputs, seed=seed), tol=matmul_rescaled.TOLERANCE)
    except AssertionError as e:
        raise AssertionError(f"{size}, inputs of seed {seed}: {e}") from e


@pytest.mark.parametrize("size,j_split,stages", [((3, 200, 136, 72), 2, 1), ((5, 130, 136, 200), 2, 3),
                                                 ((4, 64, 64, 64), 4, 1)])
def test_j_in_two_loops_matches_numpy(size: tuple[int, int, int, int], j_split: int, stages: int) -> None:
    """J walked as ``[J / j_split, j_split]``, both loops around the matmul, J = 3 and 5 past the last split (the
    rescale counts the first J of both loops; past J's end the TMA boxes are zeros)."""
    fusion = matmul_rescaled.build(*size, j_split=j_split, stages=stages)
    kernel = lower(fusion)
    for seed in (2, 3):
        inputs = random_inputs(fusion, matmul_rescaled.input_shapes(*size), seed=seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=matmul_rescaled.TOLERANCE)


def test_the_scale_weighs_each_term_by_the_later_scales() -> None:
    """Scales far from one: the output is sum_j (a_j @ b_j) * prod_{k > j} scale_k, and leaving any rescale out
    (every scale one) is far from it."""
    size = (3, 64, 64, 64)
    fusion = matmul_rescaled.build(*size)
    inputs = random_inputs(fusion, matmul_rescaled.input_shapes(*size), seed=7)
    inputs[2] = np.where(np.arange(64) % 2 == 0, 4.0, 0.25).astype(np.float32)[None, :].repeat(3, axis=0)
    (out,) = simulate(lower(fusion), inputs, seed=7)
    (expected,) = evaluate(fusion, inputs)
    a, b = (np.asarray(held(tv.dtype, as_stored(tv.dtype, np.asarray(x))), dtype=np.float64)
            for tv, x in zip(fusion.inputs[:2], inputs[:2]))       # as the kernel reads them (bf16)
    weights = [16.0, 4.0, 1.0]          # prod of the later scales on the even rows
    even = sum(w * (a[j] @ b[j]) for j, w in enumerate(weights))[::2]
    assert rel_error(expected[::2], even) < 1e-12
    assert rel_error(out, expected) < matmul_rescaled.TOLERANCE
    unscaled = sum(a[j] @ b[j] for j in range(3))
    assert rel_error(out, unscaled) > 0.3


# ---------------------------------------------------------------- the kernel IR
def _j_loop(kernel: k.Kernel) -> k.ForLoop:
    """The loop over J: the top-level loop holding the wgmmas."""
    return next(n for n in kernel.body if isinstance(n, k.ForLoop) and any(isinstance(x, k.Mma)
                                                                           for x in k.walk(n.body)))


def _rescales(node: k.Node, buffer: k.Buffer) -> bool:
    """``node`` holds ``buffer[i] = buffer[i] * s``."""
    return any(isinstance(x, k.Assign) and x.buffer == buffer and isinstance(x.value, k.BinaryValue)
               and x.value.op == "mul" and x.value.a == k.Load(buffer, x.index) for x in k.walk((node,)))


def test_one_accumulator_is_rescaled_then_accumulated_into() -> None:
    traced = lower(matmul_rescaled.build(*SIZE), trace=True)
    kernel, a = traced.kernel, traced.analyses
    total, acc = _tensors(kernel.fusion)
    registers = a.buffers.buffers[total]
    assert a.buffers.buffers[acc] is registers
    allocated = [x.buffer for x in k.walk(kernel.body) if isinstance(x, k.Allocate)
                 and x.buffer.memory is MemoryType.Local and x.buffer.size.const_value() == 32]
    assert allocated == [registers]                            # no second fragment
    mmas = [x for x in k.walk(kernel.body) if isinstance(x, k.Mma)]
    assert mmas and all(x.acc == registers for x in mmas)
    # zeroed once before the J loop, every register, no predicate
    loop = _j_loop(kernel)
    before = kernel.body[:kernel.body.index(loop)]
    zeroes = [x for x in k.walk(before) if isinstance(x, k.Assign) and x.buffer == registers]
    assert len(zeroes) == 1 and zeroes[0].value == k.Const(0.0, registers.dtype)
    assert not any(isinstance(x, k.IfThenElse) and zeroes[0] in k.walk(x.then) for x in k.walk(before))
    # the J loop: the rows' scales, the rescale (after the first J), then the K loop with its fence, wgmmas, wait
    j_body = list(loop.body)
    at = next(j for j, x in enumerate(j_body) if _rescales(x, registers))
    first, k_loop = j_body[at], j_body[at + 1]
    assert not any(isinstance(x, k.Mma) for x in k.walk(tuple(j_body[:at + 1])))
    scale = a.buffers.buffers[total.definition.inputs[1]]
    assert scale.size.const_value() == 2                       # the scales of the thread's two rows
    assert any(isinstance(x, k.Assign) and x.buffer == scale for x in k.walk(tuple(j_body[:at])))
    guard = next(x for x in k.walk((first,)) if isinstance(x, k.IfThenElse) and _rescales(x, registers))
    assert f"{loop.index} > 0" in str(guard.cond)
    inner = list(k_loop.body)
    fence = next(j for j, x in enumerate(inner) if isinstance(x, k.WgmmaFence))
    wait = next(j for j, x in enumerate(inner) if isinstance(x, k.AsyncWait) and x.kind is k.AsyncKind.Wgmma)
    assert fence < wait and inner[wait].pending == 0


def test_a_pipelined_k_loop_is_drained_before_the_next_rescale() -> None:
    """K in a circular buffer: its wgmmas retire one iteration late, and the wait after the K loop retires the
    last ones before the next J's rescale."""
    kernel = lower(matmul_rescaled.build(3, 200, 136, 200, stages=3))
    loop = _j_loop(kernel)
    registers = next(x for x in k.walk(kernel.body) if isinstance(x, k.Mma)).acc
    body = list(loop.body)
    rescale = next(j for j, x in enumerate(body) if _rescales(x, registers))
    waits = [j for j, x in enumerate(body) if x == k.AsyncWait(k.AsyncKind.Wgmma, 0)]
    last_mma = max(j for j, x in enumerate(body) if any(isinstance(y, k.Mma) for y in k.walk((x,))))
    assert not any(isinstance(x, (k.Mma, k.TmaLoad)) for x in k.walk(tuple(body[:rescale])))  # it opens the J
    assert rescale < last_mma and waits and waits[-1] > last_mma     # the next iteration's rescale follows the wait
    lagged = [x for x in k.walk(loop.body) if isinstance(x, k.AsyncWait) and x.kind is k.AsyncKind.Wgmma
              and x.pending == 1]
    assert lagged                                                 # the K loop keeps its pipeline


# ---------------------------------------------------------------- the analyses
def test_tensor_cores_pair_the_accumulator_with_its_rescaled_sum() -> None:
    traced = lower(matmul_rescaled.build(*SIZE), trace=True)
    tc = traced.analyses.tensor_cores
    total, acc = _tensors(traced.kernel.fusion)
    assert tc.accumulated_in(acc) is total and tc.accumulated_in(total) is None
    assert tc.rescaled_in_place == {acc: total}
    assert traced.analyses.mma.in_place[total].tv is acc


def test_in_place_needs_the_only_reader_in_registers() -> None:
    fusion = matmul_rescaled.build(*SIZE)
    total, acc = _tensors(fusion)
    assert tensor_cores._rescaled_in_place(SimpleNamespace(consumers=lambda tv: [total]), acc) is total
    other = fusion.outputs[0]
    assert tensor_cores._rescaled_in_place(SimpleNamespace(consumers=lambda tv: [total, other]), acc) is None
    assert tensor_cores._rescaled_in_place(SimpleNamespace(consumers=lambda tv: [other]), acc) is None
    total.set_memory_type(MemoryType.Shared)
    assert tensor_cores._rescaled_in_place(SimpleNamespace(consumers=lambda tv: [total]), acc) is None


def test_in_place_needs_the_matmul_inside_the_summed_loop() -> None:
    fusion = matmul_rescaled.build(*SIZE)
    total, acc = _tensors(fusion)
    ids = SimpleNamespace(consumers=lambda tv: [total])
    shallow = SimpleNamespace(consumers=acc.consumers, definition=acc.definition, compute_at_pos=2)
    assert tensor_cores._rescaled_in_place(ids, shallow) is None          # the J loop (position 2) not shared


def test_the_rescaled_sum_must_hold_exactly_the_fragment() -> None:
    traced = lower(matmul_rescaled.build(*SIZE), trace=True)
    a = traced.analyses
    total, acc = _tensors(traced.kernel.fusion)
    tile, read = a.mma.tiles[acc], a.mma.reads[(acc, total)]
    mma_analysis._check_in_place(a.buffers, tile, total, read)            # as scheduled: accepted
    i, j, c = a.buffers.alloc_ids[total]
    swapped = SimpleNamespace(alloc_ids={**a.buffers.alloc_ids, total: [j, i, c]})
    with pytest.raises(LoweringError, match=rf"T{total.name}, so each thread holds exactly the accumulator's fragment"):
        mma_analysis._check_in_place(swapped, tile, total, read)
    wider = SimpleNamespace(alloc_ids={**a.buffers.alloc_ids, acc: [i, tile.fragment]})
    with pytest.raises(LoweringError, match=rf"T{acc.name} accumulates in place .* holds one wgmma tile's fragment"):
        mma_analysis._check_in_place(wider, tile, total, read)
    sub_tiled = replace(read, outer=i, per=1)
    with pytest.raises(LoweringError, match="exactly the accumulator's fragment"):
        mma_analysis._check_in_place(a.buffers, tile, total, sub_tiled)


def test_tn_must_be_one_wgmma_tile() -> None:
    with pytest.raises(ValueError, match="tn = 24 must be a multiple of 16"):
        matmul_rescaled.build(tn=24)
