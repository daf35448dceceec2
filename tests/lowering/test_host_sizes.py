"""The values the host evaluates before a launch read only the arguments (lowering/host_sizes.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fusion_ir.scalar import Val
from fusion_ir.types import MemoryType
from lowering import LoweringError, lower
from lowering.host_sizes import argument_symbols, check_host_sizes
from lowering.kernel_ir import Allocate, Kernel, RuntimeCheck, rewrite
from lowering.passes import hoist_indices
from lowering.pipeline import PASS_NAMES
from tests.fuzz.test_regressions import shared_producer_of_a_split_row_sum


def _kernel() -> Kernel:
    return lower(shared_producer_of_a_split_row_sum())


def _with_offset(kernel: Kernel, name: str, offset: Val) -> Kernel:
    def move(node):
        if isinstance(node, Allocate) and node.buffer.name == name:
            return (replace(node, offset=offset),)
        return None
    return replace(kernel, body=rewrite(kernel.body, move))


def test_the_check_is_the_last_step() -> None:
    assert PASS_NAMES[-1] == "host_sizes"


def test_the_symbols_the_arguments_bind() -> None:
    assert argument_symbols(_kernel()) == {"i0", "i1", "T0_stride0", "T0_stride1", "T2_stride0"}


def test_a_kernel_whose_sizes_read_the_arguments_passes() -> None:
    kernel = _kernel()
    shared = [n for n in kernel.body if isinstance(n, Allocate) and n.buffer.memory is MemoryType.Shared]
    assert shared and kernel.smem_bytes.symbols() == {"i1"}
    check_host_sizes(kernel)


def test_a_shared_offset_reading_a_let_names_the_buffer_and_the_symbol() -> None:
    kernel = _with_offset(_kernel(), "T1", Val.symbol("h0") * 2)
    with pytest.raises(LoweringError, match=r"the shared-memory offset of T1 is h0 \* 2, which reads h0; the host "
                                            r"evaluates it before the launch"):
        check_host_sizes(kernel)


@pytest.mark.parametrize("where", ["grid", "block", "smem_bytes", "check"])
def test_launch_values_reading_kernel_symbols_are_refused(where: str) -> None:
    kernel = _kernel()
    one = Val.const(1)
    if where == "grid":
        kernel, what, symbol = replace(kernel, grid=(Val.symbol("i2"), one, one)), "grid dimension x", "i2"
    elif where == "block":
        kernel, what, symbol = replace(kernel, block=(one, Val.symbol("threadIdx.x"), one)), "block dimension y", \
            "threadIdx.x"
    elif where == "smem_bytes":
        kernel, what, symbol = replace(kernel, smem_bytes=Val.symbol("h3") + 16), "shared-memory size", "h3"
    else:
        check = RuntimeCheck(Val.symbol("i1").ge(Val.symbol("h1")), "enough columns")
        kernel, what, symbol = replace(kernel, checks=(check,)), "the runtime check 'enough columns'", "h1"
    with pytest.raises(LoweringError, match=f"{what}.*which reads {symbol}"):
        check_host_sizes(kernel)


def test_lower_refuses_a_hoisted_shared_offset(monkeypatch: pytest.MonkeyPatch) -> None:
    """With Allocate offsets hoisted like indices (the code motion that once did), the lowering refuses the
    kernel instead of handing over one that no input can launch."""
    monkeypatch.setattr(hoist_indices, "host_evaluated", lambda node: False)
    with pytest.raises(LoweringError, match="the shared-memory offset of T1 is h0, which reads h0") as raised:
        _kernel()
    assert raised.value.lowering_step == "host_sizes"
