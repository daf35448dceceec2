"""Layer norm over rows: mean, variance, normalize, then scale and shift by 1-D weight and bias."""

from fusion_ir import DataType, Fusion, ParallelType, inline_most, ops, parallelize_like, transform_like

DESCRIPTION = "layer norm per row: block mean and variance, the centred row kept in registers, weight and bias"
HIDDEN = 300
EPS = 1e-5
PER_THREAD = 8
SIZES = [[(1, HIDDEN), (HIDDEN,), (HIDDEN,)], [(7, HIDDEN), (HIDDEN,), (HIDDEN,)],
         [(33, HIDDEN), (HIDDEN,), (HIDDEN,)]]


def build(hidden: int = HIDDEN) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)                 # [rows, hidden]
        weight = fusion.add_input(shape=(hidden,), dtype=DataType.Float)   # fixes x's row length
        bias = fusion.add_input(shape=(hidden,), dtype=DataType.Float)
        mean = ops.mul(ops.sum(x, [1]), 1.0 / hidden)
        centred = ops.sub(x, ops.broadcast(mean, [False, True]))
        var = ops.mul(ops.sum(ops.mul(centred, centred), [1]), 1.0 / hidden)
        rstd = ops.rsqrt(ops.add(var, EPS))
        normed = ops.mul(centred, ops.broadcast(rstd, [False, True]))
        scaled = ops.mul(normed, ops.broadcast(weight, [True, False]))
        out = ops.add(scaled, ops.broadcast(bias, [True, False]))
        fusion.add_output(out)
    # Each thread keeps PER_THREAD elements of its row: an outer split by a constant, so the
    # persistent buffer `centred` (read by the variance and, after it, by the normalize) has a
    # constant size per thread and stays in registers.
    out.split(1, PER_THREAD, inner_split=False)   # [rows, PER_THREAD, ceilDiv(hidden, PER_THREAD)]
    transform_like(out)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    parallelize_like(out)
    inline_most(fusion)
    return fusion
