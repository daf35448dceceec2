"""The CUDA of a rescaled sum accumulated in place (examples/matmul_rescaled): one accumulator array, rescaled in the
J loop after the previous J's ``wgmma::wait<0>()`` and before the next ``wgmma::fence()``, which the wgmma writes."""

from __future__ import annotations

import re

from codegen import to_cuda
from examples import matmul_rescaled
from lowering import lower


def _kernel_text(**options: int) -> str:
    source = to_cuda(lower(matmul_rescaled.build(3, 200, 136, 72, **options)))
    return source[source.index('extern "C" __global__'):]


def test_one_accumulator_rescaled_between_the_wait_and_the_fence() -> None:
    text = _kernel_text()
    assert re.findall(r"float (T\d+)\[32\];", text) == ["T5"]            # no second fragment
    j_loop = text.index("for (int64_t i2 = 0; i2 < 3; ++i2)")
    rescale = re.search(r"T5\[([^\]]+)\] = T5\[\1\] \* T4\[i\d+\];", text).start()
    scales = text.index("T4[i", j_loop)                               # the two rows' scales, read first
    fence = text.index("wgmma::fence();", j_loop)
    wait = text.index("wgmma::wait<0>();", fence)
    assert j_loop < scales < rescale < fence < wait
    assert "float T4[2];" in text[j_loop:rescale]
    assert "(i2 > 0)" in text[j_loop:rescale]                            # from the second J on
    assert "wgmma::mmaM64N64K16F32Bf16<0, 1>(&T5[0]," in text[fence:wait]


def test_a_pipelined_k_loop_waits_for_every_group_before_the_next_rescale() -> None:
    text = _kernel_text(stages=2)
    j_loop = text.index("for (int64_t i2 = 0; i2 < 3; ++i2)")
    body = text[j_loop:]
    assert "wgmma::wait<1>();" in body                                   # the K loop keeps its pipeline
    last_mma = body.rindex("wgmma::mmaM64N64K16F32Bf16")
    assert "wgmma::wait<0>();" in body[last_mma:]
