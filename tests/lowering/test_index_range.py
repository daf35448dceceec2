"""32-bit index arithmetic (lowering/index_range.py): every index expression of an Int32 kernel is
bounded by interval arithmetic over its thread, block and loop ranges; one that can leave ``int``
is refused at ``lower()`` when the sizes are constants and before the launch when they are not."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import examples
from fusion_ir import DataType, Fusion, ParallelType, ops
from fusion_ir.scalar import ceil_div
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from lowering.index_range import first_int32_overflow
from lowering.kernel_ir import bind_arguments
from runtime import InputError, simulate
from runtime.arrays import as_array_arg
from runtime.inputs import random_inputs
from runtime.launch_plan import check_index_type, plan_launch
from tests.runtime.kir_builders import TX, assign, c, fconst, for_, global_1d, kernel, load

INT32_MAX = 2**31 - 1
SPLIT = 1000


def split_add(n: int | None = None, split: int = SPLIT, index_type: DataType = DataType.Int32) -> Fusion:
    """``x + 1`` split by ``split`` onto blocks and threads: thread t of block b reads ``b * split + t``."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float) if n is None else fusion.add_input(shape=(n,),
                                                                                             dtype=DataType.Float)
        out = ops.add(x, 1.0)
        fusion.add_output(out)
    out.split(0, split)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    fusion.set_index_type(index_type)
    return fusion


def largest_fitting(split: int = SPLIT) -> int:
    """The most elements whose padded thread index ``(blocks - 1) * split + split - 1`` fits int."""
    return (INT32_MAX + 1) // split * split


def test_a_padded_thread_index_over_int_is_refused_before_launch() -> None:
    """2**31 - 1 elements pass the tensor-size check, but the last block's threads compute
    ``blockIdx.x * 1000 + threadIdx.x`` up to 2,147,483,999."""
    kernel = lower(split_add())
    n = INT32_MAX
    env = bind_arguments(kernel, [(n,)], [(1,)]).env
    with pytest.raises(InputError, match=r"indexes in 32 bits.*\(blockIdx.x \* 1000\) \+ threadIdx.x reaches "
                                         r"\[0, 2147483999\].*i0 = 2147483647.*DataType.Int64"):
        check_index_type(kernel, [(n,), (n,)], [(1,), (1,)], env)
    n = largest_fitting()
    check_index_type(kernel, [(n,), (n,)], [(1,), (1,)], bind_arguments(kernel, [(n,)], [(1,)]).env)


def test_the_launch_plan_checks_index_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    """``plan_launch``, which the simulator and the executor call before anything runs, bounds the
    index expressions with the argument sizes (an int of 1000 here, so that small arrays overflow it)."""
    kernel = lower(split_add())
    args = [as_array_arg(np.zeros(1500, np.float32), "input 0")]
    plan_launch(kernel, args)
    import lowering.index_range as index_range

    monkeypatch.setattr(index_range, "INT32_INDEX_MAX", 1000)
    with pytest.raises(InputError, match=r"\(blockIdx.x \* 1000\) \+ threadIdx.x reaches \[0, 1999\].*i0 = 1500"):
        plan_launch(kernel, args)
    with pytest.raises(InputError, match=r"\(blockIdx.x \* 1000\) \+ threadIdx.x reaches \[0, 1999\]"):
        simulate(kernel, [np.zeros(1500, np.float32)])


def test_a_constant_tensor_whose_thread_index_overflows_is_refused_at_lower() -> None:
    with pytest.raises(LoweringError, match=r"indexes in 32 bits.* < 2147483647 of the predicate guarding T0, T1; "
                                            r"its part \(blockIdx.x \* 1000\) \+ threadIdx.x reaches \[0, 2147483999\]"):
        lower(split_add(INT32_MAX))
    lower(split_add(largest_fitting()))
    lower(split_add(INT32_MAX, index_type=DataType.Int64))      # 64-bit indices are not bounded


def test_a_constant_above_int_in_a_32_bit_loop_is_refused_at_lower() -> None:
    """2**33 elements on one block: ``for (int i = 0; i < 8589934592LL; ...)`` would never end."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(2**40,), dtype=DataType.Float)
        out = ops.add(x, 1.0)
        fusion.add_output(out)
    out.split(0, 128)
    out.axis(1).parallelize(ParallelType.TIDx)
    fusion.set_index_type(DataType.Int32)
    with pytest.raises(LoweringError, match=r"indexes in 32 bits.*8589934592 of the loop over i0 "
                                            r"\(iS2\{8589934592\}\) reaches"):
        lower(fusion)
    fusion.set_index_type(DataType.Int64)
    lower(fusion)


def test_a_hoisted_index_and_the_expressions_reading_it_are_bounded() -> None:
    """``const int h = i * 4096`` before the loop nest reads it: bounded through the ``Let``."""
    x, y = global_1d("T0"), global_1d("T1")
    h = k.Let("h0", k.Val.symbol("i1") * 4096)
    body = [for_("i1", 0, c(1 << 20), [h, assign(y, k.Val.symbol("h0") + TX, load(x, TX))])]
    kern = replace(kernel(body, [x], [y], (1,), (128,)), index_type=DataType.Int32)
    overflow = first_int32_overflow(kern)
    assert overflow is not None and overflow.where == "the hoisted index h0"
    assert overflow.bounds == (0, ((1 << 20) - 1) * 4096)
    short = [for_("i1", 0, c(1 << 10), [h, assign(y, k.Val.symbol("h0") + TX, fconst(1.0))])]
    assert first_int32_overflow(replace(kernel(short, [x], [y], (1,), (128,)), index_type=DataType.Int32)) is None


def test_ceil_div_counts_its_rounding_sum() -> None:
    """``ceilDiv32(a, b)`` computes ``a + b - 1``: it overflows before the quotient does."""
    x, y = global_1d("T0"), global_1d("T1")
    index = ceil_div(k.Val.symbol("i0"), c(4096))
    kern = replace(kernel([assign(y, index + TX, load(x, TX))], [x], [y], (1,), (128,)), index_type=DataType.Int32)
    assert first_int32_overflow(kern, {"i0": INT32_MAX - 4096}) is None
    overflow = first_int32_overflow(kern, {"i0": INT32_MAX - 100})
    assert overflow is not None and str(overflow.part) == "i0 + 4096"


@pytest.mark.parametrize("name", ["pointwise_2d", "tma_add", "seed_circular_buffer", "ws_persistent_row_sum",
                                  "softmax", "matmul_ws_persistent", "matmul_ping_pong"])
def test_ordinary_kernels_lower_and_launch_with_32_bit_indices(name: str) -> None:
    fusion = examples.load(name).build()
    fusion.set_index_type(DataType.Int32)
    kernel = lower(fusion)
    shapes = examples.load(name).SIZES[-1]
    strides = [tuple(int(np.prod(s[d + 1:])) for d in range(len(s))) for s in shapes]
    binding = bind_arguments(kernel, shapes, strides)
    check_index_type(kernel, list(shapes) + list(binding.output_shapes), strides + list(binding.output_strides),
                     binding.env)
    if name != "matmul_ws_persistent" and name != "matmul_ping_pong":     # bf16 inputs: numpy has no such arrays
        inputs = random_inputs(fusion, shapes, seed=0)
        simulate(kernel, inputs)


def test_a_bitwise_xor_is_bounded_by_its_operands_bit_length() -> None:
    """A swizzle's ``index ^ (row % 8 * 8)`` reaches up to the next power of two of its operands, not 0 or 1."""
    from fusion_ir.scalar import Val
    from lowering.index_range import interval

    i = Val.symbol("i1")
    assert interval(i.bit_xor((i // 64) % 8 * 8), {"i1": (0, 1023)}) == (0, 1023)
    assert interval(i.bit_xor(Val.const(8)), {"i1": (0, 100)}) == (0, 127)
    assert interval(i.bit_xor(Val.const(8)), {"i1": (-1, 100)}) is None


def test_a_left_shift_of_non_negative_values_is_bounded() -> None:
    """A multicast mask ``pattern << rank``: from the least to the largest shift of its bounds."""
    from fusion_ir.scalar import Val
    from lowering.index_range import interval

    i = Val.symbol("i1")
    assert interval(Val.const(3).shl(i % 2 * 2), {"i1": (0, 1023)}) == (3, 12)
    assert interval(i.shl(Val.const(1)), {"i1": (-1, 4)}) is None
