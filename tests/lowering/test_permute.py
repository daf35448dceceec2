"""Permuted root maps in lowering: the IterDomain graph maps each axis of a permute to the input axis it is,
replay composes permutes, compute_at replays a consumer's transforms onto a permuted producer, and indices
reach the input through its own strides (``lowering/indexing_exprs.py`` reads the root map)."""

from __future__ import annotations

import pytest

from fusion_ir import Fusion, MemoryType, ParallelType, ops
from fusion_ir.replay import loop_map, root_map_between
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from runtime import simulate
from tests.helpers import assert_matches, random_inputs


def _transpose_through_shared_memory(rows: int, cols: int, tile: int = 16) -> Fusion:
    """out = transpose(x): a tile of x staged in shared memory, written out transposed; the thread index runs
    along x's rows in both."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        c = x.cache_after()
        out = ops.transpose(c, 0, 1)
        fusion.add_output(out)
    c.set_memory_type(MemoryType.Shared)
    out.split(0, tile).split(2, tile).reorder({1: 2, 2: 1})      # [cols/t, rows/t, t (cols), t (rows)]
    out.axis(0).parallelize(ParallelType.BIDy)
    out.axis(1).parallelize(ParallelType.BIDx)
    out.axis(3).parallelize(ParallelType.TIDx)
    c.compute_at(out, 2)                                          # [cols/t, rows/t, t (cols), t (rows)]
    c.axis(3).parallelize(ParallelType.TIDx)
    return fusion


def test_the_exact_map_pairs_each_permuted_axis_with_the_input_axis_it_is() -> None:
    fusion = _transpose_through_shared_memory(45, 70)
    x, = fusion.inputs
    (out,) = fusion.outputs
    c = out.producers()[0]
    mapping = loop_map(c, out)
    assert mapping[c.root[0]] is out.root[1] and mapping[c.root[1]] is out.root[0]
    # compute_at replayed out's tiles onto c's axes in out's order: c's first loop axis tiles x's columns
    assert mapping[c.loop[0]] is out.loop[0] and mapping[c.loop[1]] is out.loop[1]
    traced = lower(fusion, trace=True)
    ids = traced.analyses.ids
    assert ids.exact_class[c.root[1]] == ids.exact_class[out.root[0]]
    assert ids.group(c.loop[0]) is ids.group(out.loop[0])
    assert x not in ids.exact_class


def test_replay_composes_permutes() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=3)
        p = ops.permute(ops.permute(x, [2, 0, 1]), [1, 2, 0])     # the identity, in two steps
        q = ops.transpose(p, 0, 2)
    assert root_map_between(x, p) == dict(zip(x.logical, p.root))
    assert root_map_between(x, q) == {x.logical[0]: q.root[2], x.logical[1]: q.root[1], x.logical[2]: q.root[0]}


@pytest.mark.parametrize("shape", [(45, 70), (16, 16), (1, 33)])
def test_a_transpose_through_shared_memory_matches_numpy(shape: tuple[int, int]) -> None:
    fusion = _transpose_through_shared_memory(*shape)
    inputs = random_inputs(fusion, [shape], seed=11)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs))


def test_the_staged_tile_takes_its_consumers_loop_order() -> None:
    """compute_at replays out's tiling onto the tile: its loops (and allocation) run over x's columns, then its
    rows. Thread t loads x[16 bx + t, 16 by + j] into element 16 j + t, and writes out[16 by + j, 16 bx + t] from
    the same element."""
    kernel = lower(_transpose_through_shared_memory(45, 70))
    stores = [n for n in k.walk(kernel.body) if isinstance(n, k.Assign)]
    load, store = stores
    assert not load.buffer.is_param and store.buffer.is_param

    def loop_of(node: k.Node) -> k.ForLoop:
        (loop,) = [n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop) and any(s is node for s in k.walk(n.body))]
        return loop

    env = {"threadIdx.x": 3, "blockIdx.x": 1, "blockIdx.y": 2, "T0_stride0": 1000, "T0_stride1": 1,
           "T2_stride0": 100, "T2_stride1": 1}
    at_load, at_store = {**env, loop_of(load).index.name: 5}, {**env, loop_of(store).index.name: 5}
    assert load.index.evaluate(at_load) == store.value.index.evaluate(at_store) == 16 * 5 + 3
    assert load.value.index.evaluate(at_load) == (16 * 1 + 3) * 1000 + 16 * 2 + 5
    assert store.index.evaluate(at_store) == (16 * 2 + 5) * 100 + 16 * 1 + 3


def test_the_input_is_read_through_its_own_strides() -> None:
    """A permute of a global input reads x[i, j] at i * stride0 + j * stride1, whatever order its loops take."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        fusion.add_output(ops.neg(ops.transpose(x, 0, 1)))
    (out,) = fusion.outputs
    t = out.producers()[0]
    for tv in (t, out):
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(1).parallelize(ParallelType.TIDx)
    t.compute_at(out, 2)
    kernel = lower(fusion)
    (load,) = [n for n in k.walk(kernel.body) if isinstance(n, k.Assign) and not n.buffer.is_param]
    env = {"blockIdx.x": 2, "threadIdx.x": 7, "T0_stride0": 1000, "T0_stride1": 1}
    assert load.value.index.evaluate(env) == 7 * 1000 + 2
    inputs = random_inputs(fusion, [(31, 9)], seed=12)
    assert_matches(fusion, inputs, simulate(kernel, inputs))


def _vectorized_permute(dims: list[int]) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(3, 5, 8))
        fusion.add_output(ops.permute(x, dims))
    (out,) = fusion.outputs
    out.split(2, 4)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    out.axis(3).parallelize(ParallelType.Vectorize)
    return fusion


def test_a_permute_that_keeps_the_innermost_axis_is_vectorized() -> None:
    fusion = _vectorized_permute([1, 0, 2])
    kernel = lower(fusion)
    assert any(isinstance(n, k.Assign) and n.vector == 4 for n in k.walk(kernel.body))
    inputs = random_inputs(fusion, [(3, 5, 8)], seed=13)
    assert_matches(fusion, inputs, simulate(kernel, inputs))


def test_a_vector_across_the_inputs_rows_is_refused() -> None:
    """permute [1, 2, 0]: the result's innermost axis is x's axis 0, strided in x; a vector of 4 of it is no vector
    of x (before, the kernel read x[i, j, 4 t .. 4 t + 3] for x[4 t .. 4 t + 3, i, j])."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(8, 3, 5))
        fusion.add_output(ops.permute(x, [1, 2, 0]))
    (out,) = fusion.outputs
    out.split(2, 4)
    out.axis(3).parallelize(ParallelType.Vectorize)
    with pytest.raises(LoweringError, match=r"T1: Vectorize axis iV\d+\{4\} runs along iS\d+\{8\}, which permutes axis "
                                            r"0 \(iS0\{8\}\) of T0, not its innermost axis"):
        lower(fusion)
