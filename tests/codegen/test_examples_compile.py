"""CI gate: every example's kernel compiles for sm_90a with nvcc, with no errors and no warnings."""

import pytest

import examples
from codegen import to_cuda
from codegen.nvcc import compile_check, nvcc_available
from lowering import lower

pytestmark = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")


@pytest.mark.parametrize("name", examples.names())
def test_example_compiles_for_sm90a(name: str) -> None:
    source = to_cuda(lower(examples.load(name).build()))
    resources = compile_check(source)
    assert resources.registers > 0
