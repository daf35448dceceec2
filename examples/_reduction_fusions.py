"""Unscheduled fusions of the reduction and normalization schedulers: softmax, log-softmax, layer norm,
RMS norm and plain sums and maxima over the last axis or the first, in fp32 or bf16 (bf16 inputs and
outputs, fp32 math through casts). The ``auto_*`` examples, the schedulers' tests and
``bench/schedulers_reduce_cases.py`` build from them."""

from __future__ import annotations

from fusion_ir import DataType, Fusion, TensorView, ops

EPS = 1e-5


def _load(x: TensorView) -> TensorView:
    return x if x.dtype is DataType.Float else ops.cast(x, DataType.Float)


def _store(fusion: Fusion, out: TensorView, dtype: DataType) -> None:
    fusion.add_output(out if dtype is DataType.Float else ops.cast(out, dtype))


def _back(t: TensorView, axis: int) -> TensorView:
    """A reduction's result over ``axis`` broadcast back onto the 2-D domain."""
    return ops.broadcast(t, [axis == 0, axis == 1])


def reduction(shape: tuple[int, int], op: str = "sum", axis: int = 1, dtype: DataType = DataType.Float,
              square: bool = False) -> Fusion:
    """``op(x, axis)`` (``x * x`` first with ``square``)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape, dtype=dtype)
        y = _load(x)
        if square:
            y = ops.mul(y, y)
        out = ops.sum(y, [axis]) if op == "sum" else ops.max(y, [axis])
        fusion.add_output(out)
    return fusion


def softmax(shape: tuple[int, int], axis: int = 1, dtype: DataType = DataType.Float, log: bool = False) -> Fusion:
    """``softmax(x, axis)`` (``log_softmax`` with ``log``), max-subtracted; softmax multiplies by the
    reciprocal of the row's sum (within 1.5 ulp of dividing by it)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape, dtype=dtype)
        y = _load(x)
        shifted = ops.sub(y, _back(ops.max(y, [axis]), axis))
        e = ops.exp(shifted)
        total = ops.sum(e, [axis])
        if log:
            out = ops.sub(shifted, _back(ops.log(total), axis))
        else:
            # one reciprocal per row, then a multiply per element: an IEEE division per element costs about
            # ten instructions, which bf16 rows (half the bytes per element) cannot hide behind memory
            out = ops.mul(e, _back(ops.div(1.0, total), axis))
        _store(fusion, out, dtype)
    return fusion


def log_softmax(shape: tuple[int, int], axis: int = 1, dtype: DataType = DataType.Float) -> Fusion:
    return softmax(shape, axis, dtype, log=True)


def layer_norm(shape: tuple[int, int], axis: int = 1, dtype: DataType = DataType.Float) -> Fusion:
    """``(x - mean) * rsqrt(var + eps) * w + b`` over ``axis``; ``w`` and ``b`` are 1-D along it."""
    n = shape[axis]
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape, dtype=dtype)
        w = fusion.add_input(shape=(n,), dtype=dtype)
        b = fusion.add_input(shape=(n,), dtype=dtype)
        y = _load(x)
        mean = ops.mul(ops.sum(y, [axis]), 1.0 / n)
        centred = ops.sub(y, _back(mean, axis))
        var = ops.mul(ops.sum(ops.mul(centred, centred), [axis]), 1.0 / n)
        normed = ops.mul(centred, _back(ops.rsqrt(ops.add(var, EPS)), axis))
        along = [axis == 1, axis == 0]
        out = ops.add(ops.mul(normed, ops.broadcast(_load(w), along)), ops.broadcast(_load(b), along))
        _store(fusion, out, dtype)
    return fusion


def rms_norm(shape: tuple[int, int], axis: int = 1, dtype: DataType = DataType.Float) -> Fusion:
    """``x * rsqrt(mean(x^2) + eps) * w`` over ``axis``; ``w`` is 1-D along it."""
    n = shape[axis]
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape, dtype=dtype)
        w = fusion.add_input(shape=(n,), dtype=dtype)
        y = _load(x)
        ms = ops.mul(ops.sum(ops.mul(y, y), [axis]), 1.0 / n)
        normed = ops.mul(y, _back(ops.rsqrt(ops.add(ms, EPS)), axis))
        out = ops.mul(normed, ops.broadcast(_load(w), [axis == 1, axis == 0]))
        _store(fusion, out, dtype)
    return fusion


def input_shapes(fusion: Fusion) -> list[tuple[int, ...]]:
    """The constant shapes of ``fusion``'s inputs, in order."""
    return [tuple(int(i.extent.const_value()) for i in tv.shape_ids) for tv in fusion.inputs]
