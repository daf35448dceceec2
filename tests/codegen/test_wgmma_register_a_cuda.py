"""wgmma's register-sourced A in the generated CUDA (examples/matmul_b2b): the wrapper (four 32-bit A registers,
B's descriptor, B's transpose bit only), the operand held as 32-bit words and the call passing the k-step's four, the
operand's registers fenced beside the accumulators, and (with nvcc) the kernel compiled for sm_90a without spills."""

from __future__ import annotations

import re

import pytest

from codegen import compile_check, nvcc_available, to_cuda
from codegen.wgmma import WgmmaShape, wrappers_source
from examples import matmul_b2b
from fusion_ir.types import DataType
from lowering import lower
from tests.codegen.test_cuda import assert_in_order, body_of

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")


def _source(n1: int = 64, n2: int = 64) -> str:
    return to_cuda(lower(matmul_b2b.build(200, 136, n1, n2)))


def test_the_register_a_wrapper_takes_four_words_and_b_descriptor() -> None:
    shape = WgmmaShape(64, DataType.BFloat16, register_a=True)
    assert shape.function == "mmaM64N64K16F32Bf16RegA"
    assert shape.callee(False, True) == "wgmma::mmaM64N64K16F32Bf16RegA<1>"
    text = shape.wrapper()
    assert "template <int TransB>" in text
    assert "(float* d, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3," in text
    assert '"{%32, %33, %34, %35}, %36, p, 1, 1, %37;\\n"' in text     # no transpose bit for A
    assert '"setp.ne.b32 p, %38, 0;\\n"' in text and '"r"(scaleD)' in text     # scale-d: 1 adds, 0 writes
    assert ': "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc_b), "n"(TransB), "r"(scaleD));' in text


def test_descriptor_wrappers_are_unchanged_and_come_first() -> None:
    plain = WgmmaShape(64, DataType.BFloat16)
    both = wrappers_source({plain, WgmmaShape(64, DataType.BFloat16, register_a=True)})
    assert wrappers_source({plain}).replace("}  // namespace wgmma\n", "") in both
    assert both.index("mmaM64N64K16F32Bf16(") < both.index("mmaM64N64K16F32Bf16RegA(")
    assert "fenceOperands(uint32_t (&a)[N])" in both and "fenceOperands(uint32_t (&a)[N])" not in wrappers_source({plain})


def test_the_operand_is_held_in_words_and_the_call_passes_the_k_steps_words() -> None:
    """The bf16 operand is declared as the 32-bit words the wgmmas read, its elements a view of them (the conversions
    that write a pair form a word; nothing is packed between the wgmma.fence and the wgmmas); the fence marks the words
    beside the accumulators; k-step t passes words 4 t .. 4 t + 3."""
    body = body_of(_source())
    assert_in_order(body, "uint32_t T5_w[16];  // T5 in pairs: the A registers of wgmmas",
                    "__bfloat16* const T5 = reinterpret_cast<__bfloat16*>(T5_w);",
                    "T5[",
                    "wgmma::fenceOperands(T5_w);\n  wgmma::fenceOperands(T10);\n  wgmma::fence();",
                    "RegA<1>(&T10[0],",
                    "wgmma::commit();\n  wgmma::wait<0>();\n  wgmma::fenceOperands(T5_w);\n  wgmma::fenceOperands(T10);\n")
    assert "T5_a0" not in body and "(T5[2 * q]).raw" not in body
    # the first accumulator is fenced around its own runs only: it is dead once the operand is computed
    second = body[body.index("wgmma::fenceOperands(T5_w);"):]
    assert "fenceOperands(T3)" not in second
    call = body[body.index("wgmma::mmaM64N64K16F32Bf16RegA<1>(&T10[0],"):]
    call = call[:call.index(");\n") + 2]
    base = "(((i20 * 16) / 8) * 4) / 2"
    assert re.findall(r"T5_w\[([^\]]+)\]", call) == [base, f"({base}) + 1", f"({base}) + 2", f"({base}) + 3"]
    assert "wgmma::smemDescriptor(toSmem(&T9[i20 * 1024]), 8192, 1024, 1)" in call
    assert "T5[" not in call


@needs_nvcc
@pytest.mark.parametrize("n1,n2", [(64, 64), (128, 256), (256, 128), (256, 256)])
def test_compiles_for_sm90a_without_spills(n1: int, n2: int) -> None:
    """N1 = N2 = 256 (128 + 128 accumulators and 64 A words per thread at the second run) spills a few bytes with
    nvcc 13: it compiles, without the spill check."""
    resources = compile_check(_source(n1, n2))
    assert resources.registers > 0 and (not resources.spills or (n1, n2) == (256, 256))
    # every register the wgmmas read is formed before their wgmma.fence: ptxas injects no warpgroup.arrive
    assert "C7519" not in resources.log and "warpgroup.arrive is injected" not in resources.log
