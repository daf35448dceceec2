"""TensorView scheduling methods (fusion_ir/tensor_view.py)."""

import pytest

from fusion_ir import (
    DataType,
    Fusion,
    LoadStoreOp,
    LoadStoreOpType,
    MemoryType,
    ParallelType,
    Pipelined,
    WarpSpecialized,
    ops,
)
from fusion_ir.replay import loop_map


def pointwise(shape=None):
    """t3 = exp(t0 + t1); returns (fusion, t0, t1, t2, t3)."""
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2) if shape is None else fusion.add_input(shape=shape)
        t1 = fusion.add_input(ndim=2) if shape is None else fusion.add_input(shape=shape)
        t2 = ops.add(t0, t1)
        t3 = ops.exp(t2)
        fusion.add_output(t3)
    return fusion, t0, t1, t2, t3


def extents(tv):
    return [str(i.extent) for i in tv.loop]


def four_d():
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(shape=(2, 3, 5, 7))
        t1 = ops.neg(t0)
        fusion.add_output(t1)
    return t1


# ---- reorder -------------------------------------------------------------
@pytest.mark.parametrize("old2new, expected", [
    ({0: 2}, ["3", "5", "2", "7"]),           # unmentioned axes keep their relative order
    ({-1: 0}, ["7", "2", "3", "5"]),
    ({0: 1, 1: 0}, ["3", "2", "5", "7"]),
    ({3: 0, 0: 3}, ["7", "3", "5", "2"]),
    ({2: 0, 0: 1}, ["5", "2", "3", "7"]),
    ({}, ["2", "3", "5", "7"]),
])
def test_reorder_semantics(old2new, expected):
    t1 = four_d()
    t1.reorder(old2new)
    assert extents(t1) == expected


def test_reorder_moves_the_iter_domains_themselves():
    t1 = four_d()
    ids = list(t1.loop)
    t1.reorder({0: -1})
    assert t1.loop == [ids[1], ids[2], ids[3], ids[0]]
    assert t1.transforms == []          # reorder is not a transform of the history


# ---- axis / parallelize ----------------------------------------------------
def test_an_axis_handle_follows_its_iter_domain_through_a_reorder():
    t1 = four_d()
    first = t1.axis(0)
    t1.reorder({0: -1})
    first.parallelize(ParallelType.TIDx)
    assert t1.loop[-1].parallel_type is ParallelType.TIDx and first.index == 3
    assert t1.loop[0].parallel_type is ParallelType.Serial


def test_axis_parallelize_and_negative_index():
    _, _, _, _, t3 = pointwise()
    t3.split(1, 128)
    t3.axis(0).parallelize(ParallelType.BIDx)
    t3.axis(-1).parallelize(ParallelType.TIDx)
    assert [i.parallel_type for i in t3.loop] == [ParallelType.BIDx, ParallelType.Serial, ParallelType.TIDx]
    assert str(t3.axis(-1)) == t3.loop[2].label()
    assert t3.axis(2).extent == t3.loop[2].extent


@pytest.mark.parametrize("dtype, width", [(DataType.Half, 8), (DataType.Float, 4), (DataType.Float, 2),
                                          (DataType.BFloat16, 1)])
def test_vectorize_widths_that_fit_16_bytes(dtype, width):
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=1, dtype=dtype)
        t1 = ops.set(t0)
        fusion.add_output(ops.neg(t1))
    t1.split(0, width)
    t1.axis(1).parallelize(ParallelType.Vectorize)
    assert t1.loop[1].parallel_type is ParallelType.Vectorize
    assert t1.loop[1].label().startswith("iV")


# ---- compute_at ----------------------------------------------------------
def test_compute_at_replays_consumer_transforms_onto_producer():
    fusion, t0, t1, t2, t3 = pointwise()
    t3.split(1, 128)
    t3.axis(0).parallelize(ParallelType.BIDx)
    t2.compute_at(t3, 2)
    assert extents(t2) == ["i0", "ceilDiv(i1, 128)", "128"]
    assert t2.compute_at_pos == 2 and t3.max_producer_pos == 2
    # The shared axes map one-to-one to the consumer's and take its binding.
    m = loop_map(t2, t3)
    assert [m[i] for i in t2.loop] == t3.loop
    assert t2.loop[0].parallel_type is ParallelType.BIDx
    assert [type(t).__name__ for t in t2.transforms] == ["Split"]


def test_compute_at_replays_intermediates_on_the_path():
    fusion, t0, t1, t2, t3 = pointwise()
    t3.merge(0).split(0, 256)
    c0 = t0.cache_after()
    c0.compute_at(t3, 1)
    for tv in (c0, t2):
        assert extents(tv) == ["ceilDiv(i0 * i1, 256)", "256"]
        assert tv.compute_at_pos == 1
        assert [type(t).__name__ for t in tv.transforms] == ["Merge", "Split"]
    assert loop_map(c0, t2)[c0.loop[0]] is t2.loop[0]
    assert loop_map(t2, t3)[t2.loop[0]] is t3.loop[0]
    assert t1.compute_at_pos == 0 and t1.transforms == []   # the other input is not on the path


def test_compute_at_negative_position_counts_from_the_end():
    _, _, _, t2, t3 = pointwise()
    t3.split(1, 4)
    t2.compute_at(t3, -1)
    assert t2.compute_at_pos == 3
    t2.compute_at(t3, -2)
    assert t2.compute_at_pos == 2


def test_compute_at_keeps_producer_transforms_of_unshared_axes():
    _, _, _, t2, t3 = pointwise(shape=(64, 1024))
    t2.split(1, 32)
    t2.compute_at(t3, 1)
    assert extents(t2) == ["64", "32", "32"]
    assert t2.compute_at_pos == 1


def test_compute_at_position_zero_is_not_inlined():
    _, _, _, t2, t3 = pointwise()
    t2.compute_at(t3, 0)
    assert t2.compute_at_pos == 0 and "ca_pos" not in str(t2)


# ---- cache_after / cache_before ------------------------------------------
def test_cache_after_rewires_every_use():
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2)
        t1 = ops.exp(t0)
        t2 = ops.add(t1, t0)
        fusion.add_output(t2)
    c = t0.cache_after()
    assert c.memory_type is MemoryType.Local
    assert isinstance(c.definition, LoadStoreOp) and c.definition.inputs == [t0]
    assert c.definition.op_type is LoadStoreOpType.Set
    assert [e.output for e in t0.uses()] == [c]
    assert t1.definition.inputs == [c] and t2.definition.inputs == [t1, c]
    assert c.consumers() == [t1, t2]
    assert fusion.exprs[0] is c.definition                  # kept in topological order
    assert fusion.inputs == [t0]


def test_cache_after_tma_is_shared_memory():
    fusion, t0, _, t2, _ = pointwise()
    c = t0.cache_after(LoadStoreOpType.TMA)
    assert c.memory_type is MemoryType.Shared
    assert c.definition.op_type is LoadStoreOpType.TMA
    assert t2.definition.inputs[0] is c
    assert str(fusion).count("Set.TMA( T0_g_float") == 1


def test_cache_before_rewires_the_definition():
    fusion, t0, t1, t2, t3 = pointwise()
    t3.split(1, 4)
    t3.axis(0).parallelize(ParallelType.BIDx)
    unary = t3.definition
    c = t3.cache_before()
    assert unary.outputs == [c] and c.definition is unary
    assert isinstance(t3.definition, LoadStoreOp) and t3.definition.inputs == [c]
    assert c.consumers() == [t3] and t2.consumers() == [c]
    assert fusion.outputs == [t3] and t3.memory_type is MemoryType.Global
    assert c.memory_type is MemoryType.Local
    assert [e.output for e in fusion.exprs] == [t2, c, t3]
    # Both keep the schedule: same extents and bindings, separate IterDomains.
    assert extents(c) == extents(t3) == ["i0", "ceilDiv(i1, 4)", "4"]
    assert t3.loop[0].parallel_type is ParallelType.BIDx and c.loop[0].parallel_type is ParallelType.BIDx
    assert not set(c.loop) & set(t3.loop)


def test_cache_before_of_a_reduction_keeps_the_reduction_in_the_cache():
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2)
        t1 = ops.sum(t0, [1])
        fusion.add_output(t1)
    c = t1.cache_before()
    assert c.has_reduction and not t1.has_reduction
    assert extents(c) == ["i0", "i1"] and extents(t1) == ["i0"]


# ---- set_memory_type -----------------------------------------------------
def test_set_memory_type():
    _, _, _, t2, _ = pointwise()
    assert t2.memory_type is MemoryType.Local
    t2.set_memory_type(MemoryType.Shared)
    assert t2.memory_type is MemoryType.Shared and str(t2).startswith("T2_s_float")
    t2.set_memory_type(MemoryType.Global)
    assert str(t2).startswith("T2_g_float")


# ---- circular_buffer -----------------------------------------------------
@pytest.mark.parametrize("stages, prefetch, expected", [(4, -1, 3), (2, -1, 1), (4, 3, 3), (4, 0, 0),
                                                          (3, -3, 0), (5, -2, 3)])
def test_circular_buffer_normalizes_prefetch(stages, prefetch, expected):
    _, t0, _, _, _ = pointwise()
    c = t0.cache_after(LoadStoreOpType.TMA)
    c.circular_buffer(stages, prefetch)
    opts = c.circular_buffer_options
    assert (opts.stages, opts.prefetch) == (stages, expected)
    assert isinstance(opts.type, Pipelined) and c.is_circular_buffered


def test_circular_buffer_default_prefetch_and_warp_specialized():
    _, t0, _, _, _ = pointwise()
    c = t0.cache_after(LoadStoreOpType.TMA)
    c.circular_buffer(4, type=WarpSpecialized(on=ParallelType.TIDy, num_registers=(40, 232)))
    assert c.circular_buffer_options.prefetch == 3
    assert str(c.circular_buffer_options) == (
        "CircularBufferOptions{ stage=4, prefetch=3, type=WarpSpecializedOnTIDyRegisterSharing_40_232 }")


# ---- transforms_string ---------------------------------------------------
def test_transforms_string_lists_the_history_in_order():
    _, _, _, _, t3 = pointwise()
    t3.split(1, 256).merge(0, 1)
    text = t3.transforms_string().splitlines()
    assert text[0] == "T3:"
    assert text[1] == " root domain : (iS6{i0}, iS7{i1})"
    assert text[2].startswith("  Split: iS7{i1} by factor 256")
    assert text[3].startswith("  Merge: iS6{i0} and iS8{ceilDiv(i1, 256)}")
    assert text[4] == " loop domain : (iS10{i0 * ceilDiv(i1, 256)}, iS9{256})"


def test_print_transforms_prints(capsys):
    _, _, _, _, t3 = pointwise()
    t3.print_transforms()
    assert capsys.readouterr().out.strip() == t3.transforms_string()


# ---- bindings a replay takes over (compute_at, transform_like): kept, never silently lost
def _tma_tiled():
    fusion, t0, t1, t2, t3 = pointwise()
    tile = t0.cache_after(LoadStoreOpType.TMA)
    t3.split(1, 128)
    t3.axis(0).parallelize(ParallelType.BIDx)
    t3.axis(2).parallelize(ParallelType.TIDx)
    return fusion, tile, t3


@pytest.mark.parametrize("first", ["compute_at", "split"])
def test_compute_at_again_keeps_the_bulk_axis_of_a_tma_tile(first: str) -> None:
    """A Bulk axis the replay remakes (the same split of the same axis) keeps its binding, so the tile lowers
    and matches numpy instead of failing in lower() with the box's axis bound to TIDx."""
    import numpy as np

    from fusion_ir import inline_most
    from lowering import lower
    from runtime import simulate
    from tests.helpers import assert_matches

    fusion, tile, out = _tma_tiled()
    if first == "compute_at":
        tile.compute_at(out, 2)
    else:
        tile.split(1, 128)
    tile.axis(2).parallelize(ParallelType.Bulk)
    tile.compute_at(out, 2)
    assert [i.parallel_type for i in tile.loop] == [ParallelType.BIDx, ParallelType.Serial, ParallelType.Bulk]
    inline_most(fusion)
    assert tile.compute_at_pos == 2
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((3, 300)).astype(np.float32) for _ in range(2)]
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs))


def test_transform_like_again_keeps_bindings_of_the_axes_it_remakes() -> None:
    fusion, t0, t1, t2, t3 = pointwise()
    t3.split(1, 128)
    t2.transform_like(t3)
    t2.axis(2).parallelize(ParallelType.TIDx)
    t2.transform_like(t3)
    assert [i.parallel_type for i in t2.loop] == [ParallelType.Serial, ParallelType.Serial, ParallelType.TIDx]
