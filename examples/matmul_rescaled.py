"""A rescaled sum of matmuls on one wgmma accumulator: ``o = cast(rescaled_sum(a @ b, scale, axis=0), bf16)`` with a
``[J, M, K]``, b ``[J, K, N]`` (bf16) and scale ``[J, M]`` (fp32, broadcast over N): ``o = sum_j (a_j @ b_j) *
prod_{k > j} scale_k``, the accumulation of flash attention's output (``docs/attention.md``).

A hand schedule of the simplest arrangement: one warp group (128 threads on TIDx), a block per 64-row tile of M
(BIDx) and per TN-column tile of N (BIDy), J a serial loop, K inside it in tiles of 64 (a's ``[64, 64]`` tile and
b's ``[64, TN]`` tile TMA-loaded with a 128-byte swizzle, one stage, or ``stages`` in a circular buffer over K; the batched operands' J axis a
box of one). The matmul's accumulator ``a_j @ b_j`` is computed at the rescaled sum's J loop, which reads it in its
fragment layout (``schedule_mma_fragment``): the lowering accumulates the matmul in place, in the rescaled sum's
registers (``docs/matmul.md``, "A rescaled sum of matmuls"): at the start of each J iteration after the first,
every accumulator register is multiplied by the scale of its row, then that iteration's wgmmas accumulate into it.
"""

from fusion_ir import DataType, Fusion, LoadStoreOpType, MemoryType, ParallelType, Pipelined, inline_most, ops
from fusion_ir.schedulers import schedule_mma_fragment
from target import current as current_target

from fusion_ir.schedulers.mma_tiles import k_major_tile, n_major_tile

DESCRIPTION = "cast(rescaled_sum(a_j @ b_j, scale_j, j), bf16): one wgmma accumulator rescaled per row between j's"
SIZES = [[(3, 200, 72), (3, 72, 136), (3, 200)]]      # build()'s fixed sizes: a [J, M, K], b [J, K, N], scale [J, M]
TOLERANCE = 1e-2   # the output is rounded to bf16 (the reference rounds its float64 value)
TK = 64          # K per TMA tile: one 128-byte swizzle row of bf16


def input_shapes(j: int, m: int, n: int, k: int) -> list[tuple[int, ...]]:
    return [(j, m, k), (j, k, n), (j, m)]


def fusion_of(j: int, m: int, n: int, k: int) -> Fusion:
    """The fusion as written, unscheduled."""
    fusion = Fusion()
    with fusion:
        a_shape, b_shape, scale_shape = input_shapes(j, m, n, k)
        a = fusion.add_input(shape=a_shape, dtype=DataType.BFloat16)
        b = fusion.add_input(shape=b_shape, dtype=DataType.BFloat16)
        scale = fusion.add_input(shape=scale_shape, dtype=DataType.Float)
        total = ops.rescaled_sum(ops.matmul(a, b), ops.broadcast(scale, [False, False, True]), 0)
        fusion.add_output(ops.cast(total, DataType.BFloat16))
    return fusion


def build(j: int = 3, m: int = 200, n: int = 136, k: int = 72, tn: int = 64, stages: int = 1,
          j_split: int | None = None) -> Fusion:
    """``tn``: the columns of N per block, one wgmma tile (a multiple of 16 up to 256); ``stages`` > 1: the operand
    tiles in a circular buffer over the K loop (``Pipelined``), whose wgmmas then retire one iteration late and
    the wait after the K loop retires the last ones before the next J's rescale; ``j_split``: J walked as two
    serial loops ``[J / j_split, j_split]`` (the rescale from the second J on counts both; past J's end, TMA's zero
    fill makes the wgmmas add nothing)."""
    wgmma = current_target().wgmma
    if not (wgmma.valid_n(tn) and tn % 16 == 0):
        raise ValueError(f"matmul_rescaled.build: tn = {tn} must be a multiple of 16 up to {wgmma.max_n}: it is one "
                         f"wgmma tile, and a row of b's tile at least one 32-byte swizzle span")
    fusion = fusion_of(j, m, n, k)
    a, b, _ = fusion.inputs
    out = fusion.outputs[0]
    total = out.definition.inputs[0]
    mm, row_scale = total.definition.inputs
    k_step = wgmma.k_for(DataType.BFloat16.size)
    with fusion:
        a_s = a.cache_after(LoadStoreOpType.TMA)
        b_s = b.cache_after(LoadStoreOpType.TMA)
    for tv in (a_s, b_s):
        tv.set_memory_type(MemoryType.Shared)
    for tv in (mm, total):
        tv.set_memory_type(MemoryType.Local)

    # mm = a_j @ b_j: [Mo (BIDx), No (BIDy), J, Ko, Kr (UR), M64, TN, K16 (Mma)]
    mm.split(1, wgmma.m).split(3, tn).split(5, TK).split(6, k_step)   # [J, Mo, M64, No, TN, Ko, Kr, K16]
    mm.reorder({0: 2, 1: 0, 2: 5, 3: 1, 4: 6, 5: 3, 6: 4})            # [Mo, No, J, Ko, Kr, M64, TN, K16]
    js = 0 if j_split is None else 1                                  # J's loops past the first
    if j_split is not None:
        mm.split(2, j_split)                                          # [Mo, No, Jo, Ji, Ko, ...]
    mm.axis(0).parallelize(ParallelType.BIDx)
    mm.axis(1).parallelize(ParallelType.BIDy)
    mm.axis(4 + js).parallelize(ParallelType.Unroll)
    for axis in (5, 6, 7):
        mm.axis(axis + js).parallelize(ParallelType.Mma)
    # a's tile: [Mo, bNo, J, Ko, M64 (Bulk), TK (Bulk)], one box of 1 x 64 x 64 per J and K tile
    a_s.compute_at(mm, 4 + js)                                        # [Mo, bNo, J, Ko, M64, bTN, TK]
    a_s.reorder({5 + js: 4 + js})                                     # [Mo, bNo, J, Ko, bTN, M64, TK]
    k_major_tile(a_s, 5 + js)
    # b's tile, N contiguous: [bMo, No, J, Ko, TNc (UR), bM64, TK (Bulk), 64 (Bulk)], a box per 64 columns
    b_s.compute_at(mm, 4 + js)                                        # [bMo, No, J, Ko, bM64, TN, TK]
    n_major_tile(b_s, mn=5 + js, broadcast=4 + js, k=6 + js, at=4 + js)
    if stages > 1:
        for tv in (a_s, b_s):
            tv.circular_buffer(stages, type=Pipelined(uses_mbarrier_for_war=True))

    # the rescaled sum over J, in the accumulator's fragment layout: [Mo, No, rJ, TIDx, TN/8, 2, 2]
    # (the scale broadcast over N laid out alike, [Mo, bNo, J, TIDx, bTN/8, 2, b2]: each thread holds the scales
    # of its fragment's two rows)
    for tv in (row_scale, total):
        tv.split(1, wgmma.m).split(3, tn)                             # [J, Mo, M64, No, TN]
        tv.reorder({0: 2, 1: 0, 2: 3, 3: 1})                          # [Mo, No, J, M64, TN]
        if j_split is not None:
            tv.split(2, j_split)                                      # [Mo, No, Jo, Ji, M64, TN]
    out.split(0, wgmma.m).split(2, tn)                                # [Mo, M64, No, TN]
    out.reorder({1: 2, 2: 1})                                         # [Mo, No, M64, TN]
    for tv, fragment in ((row_scale, 3 + js), (total, 3 + js), (out, 2)):
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(1).parallelize(ParallelType.BIDy)
        schedule_mma_fragment(tv, fragment, vectorize=tv is out and n % 2 == 0)
    inline_most(fusion, [mm, total, out])
    # the scales of a thread's two rows, read once per J into two registers before the rescale reads them
    row_scale.compute_at(total, 4 + js)
    return fusion
