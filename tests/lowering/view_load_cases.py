"""Loads of a chain of views of a fusion input (``fusion_ir.views``), by name, with input shapes.

Blocked keys as the online-softmax rewrite makes them: ``k`` padded past its key axis to a multiple of the block,
reshaped so the key axis splits into ``[nb, block]``, permuted so ``nb`` leads. One load per key block (TMA box,
cp.async or plain copies into shared memory) reads that block of ``k`` in place; the views are never computed.
Shared by the simulator tests, the golden CUDA, the nvcc compile gate and the GPU tier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from fusion_ir import DataType, Fusion, LoadStoreOpType, MemoryType, ParallelType, TensorView, ops
from fusion_ir.op_pad import pad_to_multiple

BLOCK = 32
Case = tuple[str, Callable[[], Fusion], list[list[tuple[int, ...]]]]


def blocked_keys(k: TensorView, axis: int, block: int = BLOCK, value: float = 0.0) -> TensorView:
    """``k [..., S, D]`` as ``[nb, ..., block, D]``: padded to whole blocks, the key axis split, ``nb`` first."""
    rank = len(k.shape_ids)
    padded = pad_to_multiple(k, axis, block, value)
    shape = [padded.size(d) for d in range(axis)] + [-1, block] + [padded.size(d) for d in range(axis + 1, rank)]
    split = ops.reshape(padded, shape)
    return ops.permute(split, [axis] + [d for d in range(rank + 1) if d != axis])


def keys_2d(kind: LoadStoreOpType = LoadStoreOpType.TMA, *, rows: int | None = None, head_dim: int = 32,
            value: float = 0.0, stages: int = 1, dtype: DataType = DataType.Float) -> Fusion:
    """``out = 2 * blocked(k)`` for ``k [S, D]`` (``rows``: a constant S, else symbolic), ``out [nb, 32, D]``: a
    loop over the key blocks; in it one TMA box ``32 x D`` of ``k`` at row ``32 j`` (or the block's copies, a row
    per thread), then a thread per key row doubles its row."""
    fusion = Fusion()
    with fusion:
        k = fusion.add_input(shape=(rows if rows is not None else -1, head_dim), dtype=dtype)
        kb = blocked_keys(k, 0, value=value)
        out = ops.mul(kb, 2.0)
        fusion.add_output(out)
    out.axis(1).parallelize(ParallelType.TIDx)
    _load_blocks(kb, out, kind, 1, stages)
    return fusion


def keys_attention(kind: LoadStoreOpType = LoadStoreOpType.TMA, *, rows: int | None = None,
                   head_dim: int = 32, stages: int = 1) -> Fusion:
    """The attention shape: ``k [B, H, S, D]`` -> ``[nb, B, H, 32, D]``; batch and head on blocks, key blocks a
    serial loop, one box ``1 x 1 x 32 x D`` of ``k`` per block index."""
    fusion = Fusion()
    with fusion:
        k = fusion.add_input(shape=(-1, -1, rows if rows is not None else -1, head_dim))
        kb = blocked_keys(k, 2)
        out = ops.mul(kb, 2.0)
        fusion.add_output(out)
    out.reorder({0: 2})                   # [B, H, nb, 32, D]
    out.axis(0).parallelize(ParallelType.BIDy)
    out.axis(1).parallelize(ParallelType.BIDx)
    out.axis(3).parallelize(ParallelType.TIDx)
    _load_blocks(kb, out, kind, 3, stages)
    return fusion


def _load_blocks(kb: TensorView, out: TensorView, kind: LoadStoreOpType, at: int, stages: int) -> None:
    """A load of ``kb`` at ``out``'s key-block loop (position ``at``): Bulk rows x D by TMA, else a row per thread."""
    tile = kb.cache_after(kind)
    if kind is LoadStoreOpType.Set:
        tile.set_memory_type(MemoryType.Shared)
    tile.compute_at(out, at)
    rank = len(tile.loop)
    if kind is LoadStoreOpType.TMA:
        tile.axis(rank - 2).parallelize(ParallelType.Bulk)
        tile.axis(rank - 1).parallelize(ParallelType.Bulk)
    else:
        tile.axis(rank - 2).parallelize(ParallelType.TIDx)
    if stages > 1:
        tile.circular_buffer(stages)


def view_load_cases() -> Iterator[Case]:
    for kind in (LoadStoreOpType.TMA, LoadStoreOpType.CpAsync, LoadStoreOpType.Set):
        name = kind.name.lower()
        yield (f"keys_2d_{name}_s200", lambda kind=kind: keys_2d(kind, rows=200), [[(200, 32)]])
        yield (f"keys_2d_{name}_symbolic", lambda kind=kind: keys_2d(kind), [[(37, 32)], [(200, 32)], [(64, 32)]])
        yield (f"keys_attention_{name}_symbolic", lambda kind=kind: keys_attention(kind),
               [[(2, 3, 37, 32)], [(1, 2, 96, 32)]])
    yield ("keys_2d_tma_circular_s2", lambda: keys_2d(rows=200, stages=2), [[(200, 32)]])
    yield ("keys_attention_tma_s37_d64", lambda: keys_attention(rows=37, head_dim=64), [[(2, 2, 37, 64)]])
    yield ("keys_2d_cp_async_pad_minus_one", lambda: keys_2d(LoadStoreOpType.CpAsync, value=-1.0),
           [[(37, 32)]])
    yield ("keys_2d_tma_half_d64", lambda: keys_2d(head_dim=64, dtype=DataType.Half), [[(37, 64)]])

