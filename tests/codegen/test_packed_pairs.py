"""``codegen.packed_pairs``: a relu and a conversion to a 16-bit float, for two neighbouring elements, as one
``cvt.rn.relu.bf16x2.f32`` (or ``.f16x2``) writing a 32-bit word."""

from __future__ import annotations

import pytest

from codegen import compile_check, nvcc_available, to_cuda
from codegen import packed_pairs
from examples import matmul_epilogue
from fusion_ir import DataType, Fusion, ops
from fusion_ir.scalar import Val
from fusion_ir.schedulers import schedule_matmul
from lowering import kernel_ir as k
from lowering import lower

F32, BF16 = DataType.Float, DataType.BFloat16


def _relu_kernel(out_dtype: DataType = BF16, activation=ops.relu) -> k.Kernel:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(8192, 2048), dtype=BF16)
        b = fusion.add_input(shape=(2048, 8192), dtype=BF16)
        bias = fusion.add_input(shape=(8192,), dtype=F32)
        pre = ops.add(ops.matmul(a, b), ops.broadcast(bias, [True, False]))
        fusion.add_output(ops.cast(activation(pre), out_dtype))
    schedule_matmul(fusion)
    return lower(fusion)


@pytest.mark.parametrize(("dtype", "function"), [(BF16, "reluPairBf16"), (DataType.Half, "reluPairHalf")])
def test_a_relu_epilogue_writes_its_staging_registers_a_pair_at_a_time(dtype: DataType, function: str) -> None:
    kern = _relu_kernel(dtype)
    staged = next(x.src.name for x in k.walk(kern.body) if isinstance(x, k.StMatrix))
    cuda = to_cuda(kern).split("__global__")[-1]     # the kernel, not the helpers
    assert f"uint32_t {staged}_w[" in cuda and f"{staged}_w[" in cuda.split("stmatrixX4(")[-1]
    assert cuda.count(f"= {function}(") == 4 and "fmaxf" not in cuda
    # no element of the array is read or written one at a time: it has no element view
    assert f"* const {staged} =" not in cuda


def test_the_packed_kernel_has_no_max_instruction() -> None:
    if not nvcc_available():
        pytest.skip("nvcc is not installed")
    result = compile_check(to_cuda(_relu_kernel()), sass=True)
    assert not result.spills
    if result.sass is None:
        pytest.skip("cuobjdump is not installed")
    assert "F2FP.RELU.BF16.F32.PACK_AB" in result.sass and "FMNMX" not in result.sass


def test_other_activations_and_float_outputs_are_not_paired() -> None:
    assert "Pair" not in to_cuda(_relu_kernel(activation=ops.gelu)).split("__global__")[-1]
    fusion = matmul_epilogue.fusion_of("bias_relu", (200, 264, 136))
    schedule_matmul(fusion)
    assert packed_pairs.find(lower(fusion).body).buffers         # the example's bf16 relu is


def _pair(first: Val, second: Val, value=None, loops: tuple = ()) -> tuple:
    buf = k.Buffer("T7", BF16, k.MemoryType.Local, Val.const(32))
    acc = k.Buffer("T3", F32, k.MemoryType.Local, Val.const(32))
    relu = value or (lambda i: k.CastValue(k.UnaryValue("relu", k.Load(acc, i), F32), BF16))
    body: tuple = (k.Assign(buf, first, relu(first)), k.Assign(buf, second, relu(second)))
    for index, extent in reversed(loops):
        body = (k.ForLoop(Val.symbol(index), Val.const(0), Val.const(extent), body, unroll=True),)
    return body


def test_a_pair_is_two_neighbours_from_an_even_element_in_every_iteration() -> None:
    q = Val.symbol("q")
    assert packed_pairs.find(_pair(q * 2, q * 2 + 1, loops=(("q", 4),))).buffers == {"T7"}
    assert not packed_pairs.find(_pair(q * 2 + 1, q * 2 + 2, loops=(("q", 4),))).buffers      # odd first element
    assert not packed_pairs.find(_pair(q * 2, q * 2 + 2, loops=(("q", 4),))).buffers          # not neighbours
    assert not packed_pairs.find(_pair(q * 2, q * 2 + 1)).buffers       # q bound by no constant loop


def test_a_second_element_reading_the_array_is_not_paired() -> None:
    buf = k.Buffer("T7", BF16, k.MemoryType.Local, Val.const(32))

    def reads_itself(i: Val):
        return k.CastValue(k.UnaryValue("relu", k.CastValue(k.Load(buf, Val.const(0)), F32), F32), BF16)

    assert not packed_pairs.find(_pair(Val.const(0), Val.const(1), value=reads_itself)).buffers
