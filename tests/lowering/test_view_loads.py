"""Loads of a chain of views of a fusion input (``fusion_ir.views``; ``lowering/analysis/tma.py`` for a TMA box of
one, ``lowering/passes/indexing.py`` for cp.async and plain copies): the simulator against the reference, the
views never computed, and the refusals of what TMA cannot read."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, LoadStoreOpType, MemoryType, ParallelType, ScheduleError, SmemSwizzle, ops
from fusion_ir.op_pad import pad
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from runtime import simulate
from tests.helpers import assert_matches, random_inputs
from tests.lowering.view_load_cases import blocked_keys, keys_2d, keys_attention, view_load_cases

CASES = list(view_load_cases())


@pytest.mark.parametrize("build,shapes", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_load_of_blocked_keys_matches_the_reference(build, shapes) -> None:
    kernel = lower(build())
    for n, shape in enumerate(shapes):
        fusion = build()
        inputs = random_inputs(fusion, shape, seed=700 + n)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=n))


def _allocated(kernel: k.Kernel) -> set[str]:
    return {n.buffer.name for n in k.walk(kernel.body) if isinstance(n, k.Allocate)}


@pytest.mark.parametrize("kind", [LoadStoreOpType.TMA, LoadStoreOpType.CpAsync, LoadStoreOpType.Set])
def test_the_views_are_index_maps_never_computed(kind: LoadStoreOpType) -> None:
    """Only the tile is allocated and only the key-block loop and the output's row loop run: no buffer and no
    loop of the pad, the reshape or the permute, and every read of global memory is of the input itself."""
    fusion = keys_2d(kind, rows=200)
    lowered = lower(fusion, trace=True)
    views = lowered.analyses.ids.views
    assert [f"T{t.name}" for t in views] == ["T3", "T2", "T1"]
    assert all(t not in lowered.analyses.ids.tensors for t in views)
    kernel = lowered.kernel
    assert _allocated(kernel) <= {"T5", "T5_mbar", "T5_token"}
    loops = [n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop)]
    assert len(loops) == (2 if kind is LoadStoreOpType.TMA else 3)     # blocks, output columns (, tile columns)
    reads = {n.buffer.name for n in k.walk(kernel.body) if isinstance(n, k.Load) and n.buffer.is_param}
    assert reads <= {"T0"}


def test_a_tma_box_of_a_block_is_a_box_of_the_input_at_its_key_offset() -> None:
    """The box of block j of ``[nb, B, H, 32, D]`` is the box ``1 x 1 x 32 x D`` of ``k [B, H, S, D]`` at
    ``(b, h, 32 j, 0)``; its tensor map is ``k``'s own (out of bounds past S: the pad's zeros)."""
    kernel = lower(keys_attention())
    (load,) = [n for n in k.walk(kernel.body) if isinstance(n, k.TmaLoad)]
    assert load.tensor_map.tensor.name == "T0"
    assert load.tensor_map.box == (32, 32, 1, 1)                      # innermost first
    assert [str(c) for c in load.coords] == ["blockIdx.y", "blockIdx.x", f"{load.coords[2]}", "0"]
    assert str(load.coords[2]).endswith("* 32")


def test_a_pad_before_its_axis_is_read_by_plain_copies() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(37, 32))
        kb = ops.permute(ops.reshape(pad(x, [0, 0, 5, 22]), [2, 32, 32]), [1, 0, 2])     # 5 rows before x
        out = ops.mul(kb, 2.0)
        fusion.add_output(out)
    out.reorder({1: 0})
    out.axis(1).parallelize(ParallelType.TIDx)
    tile = kb.cache_after(LoadStoreOpType.CpAsync)
    tile.compute_at(out, 1)
    tile.axis(1).parallelize(ParallelType.TIDx)
    inputs = random_inputs(fusion, [(37, 32)], seed=3)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs))


def test_a_merge_of_adjacent_dimensions_is_one_box_across_both() -> None:
    """``[4, 8, 32] -> [32, 32]``: one Bulk axis of 32 rows covers the 4 x 8 leading dimensions of the input."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 8, 32))
        view = ops.reshape(x, [32, 32])
        out = ops.mul(view, 2.0)
        fusion.add_output(out)
    out.axis(0).parallelize(ParallelType.TIDx)
    tile = view.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 0)
    tile.axis(0).parallelize(ParallelType.Bulk)
    tile.axis(1).parallelize(ParallelType.Bulk)
    kernel = lower(fusion)
    (load,) = [n for n in k.walk(kernel.body) if isinstance(n, k.TmaLoad)]
    assert load.tensor_map.box == (32, 8, 4)
    inputs = random_inputs(fusion, [(4, 8, 32)], seed=4)
    assert_matches(fusion, inputs, simulate(kernel, inputs))


def test_a_view_read_by_another_op_too_is_computed_for_it_and_seen_through_by_the_load() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(37, 32))
        padded = pad(x, [0, 0, 0, 27])
        kb = ops.reshape(padded, [2, 32, 32])
        fusion.add_output(ops.mul(kb, 2.0))
        fusion.add_output(ops.neg(padded))
    out, _ = fusion.outputs
    out.axis(1).parallelize(ParallelType.TIDx)
    tile = kb.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 1)
    tile.axis(1).parallelize(ParallelType.Bulk)
    tile.axis(2).parallelize(ParallelType.Bulk)
    lowered = lower(fusion, trace=True)
    assert [f"T{t.name}" for t in lowered.analyses.ids.views] == [f"T{kb.name}"]
    inputs = random_inputs(fusion, [(37, 32)], seed=5)
    assert_matches(fusion, inputs, simulate(lowered.kernel, inputs))


# ------------------------------------------------------------------------------------------------ refusals
def _tma_of(view_of: callable, shape: tuple[int, ...], bulk: tuple[int, ...], at: int = 0,
            split: tuple[int, int] | None = None) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape)
        view = view_of(x)
        out = ops.mul(view, 2.0)
        fusion.add_output(out)
    tile = view.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, at)
    if split is not None:
        tile.split(*split)
    for b in bulk:
        tile.axis(b).parallelize(ParallelType.Bulk)
    return fusion


def test_tma_refuses_a_pad_by_another_value_than_zero() -> None:
    with pytest.raises(LoweringError, match=r"T1 pads with -1.0; a TMA box fills zeros past T0's bounds"):
        lower(keys_2d(value=-1.0))


def test_tma_refuses_a_pad_before_an_axis() -> None:
    fusion = _tma_of(lambda x: ops.reshape(pad(x, [0, 0, 5, 22]), [2, 32, 32]), (37, 32), (1, 2), at=1)
    with pytest.raises(LoweringError, match=r"T1 pads axis 0 \(iS0\{37\}\) before it"):
        lower(fusion)


def test_tma_refuses_a_pad_of_an_axis_a_reshape_made() -> None:
    fusion = _tma_of(lambda x: pad(ops.reshape(x, [2, 32, 32]), [0, 0, 0, 8]), (64, 32), (1, 2), at=1)
    with pytest.raises(LoweringError, match=r"which a reshape made from several axes of T0"):
        lower(fusion)


def test_tma_refuses_a_merge_not_contiguous_in_the_input() -> None:
    fusion = _tma_of(lambda x: ops.reshape(ops.permute(x, [1, 0, 2]), [32, 32]), (4, 8, 32), (0, 1))
    with pytest.raises(LoweringError, match=r"not adjacent whole dimensions of T0 .* the merge is not contiguous"):
        lower(fusion)


def test_tma_refuses_a_box_along_the_outer_part_of_a_split() -> None:
    fusion = _tma_of(lambda x: ops.reshape(x, [2, 32, 32]), (64, 32), (0, 2))
    with pytest.raises(LoweringError, match=r"Bulk axis iB\S+ reads 2 consecutive elements .* the outer part of a "
                                            r"split"):
        lower(fusion)


def test_tma_refuses_a_box_that_crosses_a_block_of_the_reshape() -> None:
    fusion = _tma_of(lambda x: ops.reshape(x, [2, 32, 32]), (64, 32), (2, 3), at=1, split=(1, 24))
    with pytest.raises(LoweringError, match=r"24 must divide 32"):
        lower(fusion)


def test_tma_refuses_a_box_whose_rows_are_not_the_inputs_contiguous_dimension() -> None:
    """K^T: ``[nb, D, 32]``, the key axis innermost in the tile, while ``k``'s contiguous dimension is D."""
    def keys_transposed(x):
        return ops.transpose(blocked_keys(x, 0), 1, 2)

    fusion = _tma_of(keys_transposed, (64, 32), (1, 2), at=1)
    with pytest.raises(LoweringError, match=r"Bulk axes .* must be the innermost allocated axes of T\d+, in the "
                                            r"dimension order of T0"):
        lower(fusion)
    fusion = _tma_of(keys_transposed, (64, 32), (2,), at=1)
    with pytest.raises(LoweringError, match=r"TMA reads rows of T0's contiguous dimension iS1\{32\} \(its last\), "
                                            r"but no Bulk axis"):
        lower(fusion)


def test_cache_after_refuses_an_async_load_of_a_view_of_a_computed_tensor() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 32))
        view = ops.reshape(ops.neg(x), [2, 32, 32])
        fusion.add_output(ops.mul(view, 2.0))
    with pytest.raises(ScheduleError, match=r"a TMA load reads global memory, but T\d+ is in Local memory"):
        view.cache_after(LoadStoreOpType.TMA)


def test_cache_after_refuses_an_async_load_of_a_view_that_is_an_output() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 32))
        view = ops.reshape(x, [2, 32, 32])
        fusion.add_output(view)
        fusion.add_output(ops.mul(view, 2.0))
    with pytest.raises(ScheduleError, match=r"is a view of T0 and a fusion output"):
        view.cache_after(LoadStoreOpType.CpAsync)


def _vectorized_cp_async(view_of: callable, shape: tuple[int, ...]) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape)
        kb = view_of(x)
        out = ops.mul(kb, 2.0)
        fusion.add_output(out)
    out.axis(1).parallelize(ParallelType.TIDx)
    tile = kb.cache_after(LoadStoreOpType.CpAsync)
    tile.compute_at(out, 1)
    tile.axis(1).parallelize(ParallelType.TIDx)
    tile.split(2, 4)
    tile.axis(3).parallelize(ParallelType.Vectorize)
    return fusion


def test_a_vectorized_cp_async_of_blocked_keys_reads_16_bytes_of_the_input() -> None:
    fusion = _vectorized_cp_async(lambda x: blocked_keys(x, 0), (-1, 32))
    kernel = lower(fusion)
    (copy,) = [n for n in k.walk(kernel.body) if isinstance(n, k.CpAsync)]
    assert copy.vector == 4 and copy.src.name == "T0" and copy.pred is not None
    assert any(c.subject == "T0" for c in kernel.checks if "contiguous" in c.message)
    for n, rows in enumerate((37, 64)):
        inputs = random_inputs(fusion, [(rows, 32)], seed=n)
        assert_matches(fusion, inputs, simulate(kernel, inputs))


def test_a_vector_along_a_padded_dimension_of_the_input_is_refused() -> None:
    fusion = _vectorized_cp_async(lambda x: blocked_keys(pad(x, [0, 4]), 0), (64, 32))
    with pytest.raises(LoweringError, match=r"runs along iS1\{32\} of T0, which T1 pads: a vector could be partly "
                                            r"padding"):
        lower(fusion)


def test_a_vector_along_the_keys_is_refused() -> None:
    fusion = _vectorized_cp_async(lambda x: ops.transpose(blocked_keys(x, 0), 1, 2), (64, 32))
    with pytest.raises(LoweringError, match=r"not consecutive along T0's innermost dimension iS1\{32\}: they run "
                                            r"along iS0\{64\}"):
        lower(fusion)


def test_the_gpu_tiers_memchecked_cases_exist() -> None:
    """The GPU tier's compute-sanitizer runs name cases of view_load_cases (a wrong name fails only on a GPU)."""
    from tests.lowering.view_load_cases import view_load_cases
    from tests.runtime.test_view_loads_gpu import MEMCHECKED

    names = {name for name, _, _ in view_load_cases()}
    assert set(MEMCHECKED) <= names, sorted(set(MEMCHECKED) - names)


def _permuted_block_tile(block: int, head_dim: int):
    """``out = 2 * permute(blocked(k))`` as ``[nb, D, block]`` (the attention's blocked k: D before the keys), its
    tile a TMA box ``D x block`` per key block: the box's rows run along D, k's innermost dimension."""
    fusion = Fusion()
    with fusion:
        k = fusion.add_input(shape=(200, head_dim), dtype=DataType.BFloat16)
        kb = ops.permute(blocked_keys(k, 0, block=block), [0, 2, 1])
        out = ops.mul(kb, 2.0)
        fusion.add_output(out)
    tile = kb.cache_after(LoadStoreOpType.TMA)
    tile.set_memory_type(MemoryType.Shared)
    tile.compute_at(out, 1)
    tile.axis(1).parallelize(ParallelType.Bulk)
    tile.axis(2).parallelize(ParallelType.Bulk)
    return tile


def test_swizzle_row_of_a_view_load_runs_along_the_sources_innermost_dimension() -> None:
    """Blocks of 128 keys of a k with D = 64: a 128-byte swizzle row is D (64 bf16), whatever the view's last axis."""
    _permuted_block_tile(128, 64).set_swizzle(SmemSwizzle.B128)
    with pytest.raises(ScheduleError, match=r"TMA box row of 128 x bfloat16 = 256 bytes"):
        _permuted_block_tile(64, 128).set_swizzle(SmemSwizzle.B128)
