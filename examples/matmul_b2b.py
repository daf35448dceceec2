"""Back-to-back matmuls in one kernel: ``o = cast(relu(x @ w1), bf16) @ w2`` (x ``[M, K1]``, w1 ``[K1, N1]``,
w2 ``[N1, N2]``, bf16), the first result never leaving registers.

A hand schedule of the simplest arrangement: one compute warp group (128 threads on TIDx), one block per
64-row tile of M (BIDx). The first matmul ``s = x @ w1`` is one ``wgmma.m64nN1k16`` per k16 step, walking K1
in tiles of 64 (x's ``[64, 64]`` tile and w1's ``[64, N1]`` tile TMA-loaded with a 128-byte swizzle, one stage,
no pipeline); its fp32 fragment is turned into bf16 in registers (``p = cast(relu(s))``, scheduled with
``schedule_mma_fragment`` as an epilogue is); ``p`` is the A operand of the second matmul in registers
(wgmma's register-sourced form): columns ``[16 t, 16 t + 16)`` of a 64 x N1 accumulator fragment are exactly
the A fragment of k-step ``t``, registers ``8 t .. 8 t + 7`` of ``p``, so nothing moves between threads.
w2 ``[N1, N2]`` is TMA-loaded once into shared memory; the second accumulator's fragment is stored with
ordinary stores. N1 and N2 are each one wgmma tile (multiples of 16, at most 256).
"""

from fusion_ir import DataType, Fusion, LoadStoreOpType, MemoryType, ParallelType, inline_most, ops
from fusion_ir.schedulers import schedule_mma_fragment
from target import current as current_target

from fusion_ir.schedulers.mma_tiles import k_major_tile, mma_k_loop, n_major_tile

DESCRIPTION = "cast(relu(x @ w1), bf16) @ w2 in one kernel: the first accumulator is the second wgmma's A in registers"
SIZES = [[(200, 136), (136, 64), (64, 64)]]      # build()'s fixed sizes: x [M, K1], w1 [K1, N1], w2 [N1, N2]
TOLERANCE = 1e-2   # the first result is rounded to bf16 (the reference rounds its float64 value)
TK = 64          # K1 per TMA tile: one 128-byte swizzle row of bf16


def input_shapes(m: int, k1: int, n1: int, n2: int) -> list[tuple[int, int]]:
    return [(m, k1), (k1, n1), (n1, n2)]


def fusion_of(m: int, k1: int, n1: int, n2: int) -> Fusion:
    """The fusion as written, unscheduled."""
    fusion = Fusion()
    with fusion:
        x, w1, w2 = (fusion.add_input(shape=s, dtype=DataType.BFloat16) for s in input_shapes(m, k1, n1, n2))
        p = ops.cast(ops.relu(ops.matmul(x, w1)), DataType.BFloat16)
        fusion.add_output(ops.matmul(p, w2))
    return fusion


def build(m: int = 200, k1: int = 136, n1: int = 64, n2: int = 64) -> Fusion:
    wgmma = current_target().wgmma
    if not all(wgmma.valid_n(n) and n % 16 == 0 for n in (n1, n2)):
        raise ValueError(f"matmul_b2b.build: N1 = {n1} and N2 = {n2} must be multiples of 16 up to {wgmma.max_n}: each "
                         f"is one wgmma tile, N1 in k-steps of 16, and a row of w1's and w2's tiles at least one "
                         f"32-byte swizzle span")
    fusion = fusion_of(m, k1, n1, n2)
    x, w1, w2 = fusion.inputs
    out = fusion.outputs[0]
    o_mm = out.definition
    p = o_mm.inputs[0]
    relu = p.definition.inputs[0]
    s = relu.definition.inputs[0]
    k_step = wgmma.k_for(DataType.BFloat16.size)
    with fusion:
        xs = x.cache_after(LoadStoreOpType.TMA)
        w1s = w1.cache_after(LoadStoreOpType.TMA)
        w2s = w2.cache_after(LoadStoreOpType.TMA)
        o = out.cache_before()
    for tv in (xs, w1s, w2s):
        tv.set_memory_type(MemoryType.Shared)
    for tv in (s, relu, p, o):
        tv.set_memory_type(MemoryType.Local)

    # s = x @ w1: [Mo (BIDx), Ko, Kr (UR), M64, N1, K16 (Mma)]
    s.split(0, wgmma.m)                                    # [Mo, M64, N1, K1]
    mma_k_loop(s, 1, TK, k_step)                           # [Mo, Ko, Kr, M64, N1, K16]
    s.axis(0).parallelize(ParallelType.BIDx)
    # x's tile: [Mo, Ko, M64 (Bulk), TK (Bulk)], one box of 64 x 64 per K1 tile
    xs.compute_at(s, 2)
    k_major_tile(xs, 2)
    # w1's tile, N1 contiguous: [bMo, Ko, N1c (UR), bM64, TK (Bulk), 64 (Bulk)], a box per 64 columns
    w1s.compute_at(s, 2)                                   # [bMo, Ko, bM64, N1, TK]
    n_major_tile(w1s, mn=3, broadcast=2, k=4, at=2)

    # o = p @ w2: [Mo (BIDx), Kr (UR), M64, N2, K16 (Mma)], K over N1 in k16 steps
    o.split(0, wgmma.m).split(3, k_step)                   # [Mo, M64, N2, Kr, K16]
    o.reorder({1: 2, 2: 3, 3: 1})                          # [Mo, Kr, M64, N2, K16]
    o.axis(0).parallelize(ParallelType.BIDx)
    o.axis(1).parallelize(ParallelType.Unroll)
    for k in (2, 3, 4):
        o.axis(k).parallelize(ParallelType.Mma)
    # w2 whole, N2 contiguous, loaded once per block: [bMo, N2c (UR), bM64, N1 (Bulk), 64 (Bulk)]
    w2s.compute_at(o, 1)                                   # [bMo, bM64, N2, N1]
    n_major_tile(w2s, mn=2, broadcast=1, k=3, at=1)

    # the first accumulator's fragment in registers: relu and the cast, [Mo, TIDx, N1/8, 2, 2]
    for tv in (relu, p, out):
        tv.split(0, wgmma.m)                               # [Mo, M64, N]
        tv.axis(0).parallelize(ParallelType.BIDx)
        schedule_mma_fragment(tv, 1, vectorize=tv is out and n2 % 2 == 0)
    inline_most(fusion, [relu, p, s, o, out])
    return fusion

