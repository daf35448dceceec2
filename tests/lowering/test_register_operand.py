"""wgmma's register A operand in the kernel IR: the verifier's rules for a ``RegisterFragment``, its listing, and the
``wgmma_groups`` pass, which retires a run that reads registers before anything after it may rewrite them."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from examples import matmul_b2b
from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType, SmemSwizzle
from lowering import VerifyError, lower, verify
from lowering import kernel_ir as k
from lowering.passes import wgmma_groups
from tests.runtime.kir_builders import mutate


def _kernel() -> k.Kernel:
    return lower(matmul_b2b.build(64, 64, 64, 64))


def _register_a(change) -> k.Kernel:
    def fn(node):
        if isinstance(node, k.Mma) and isinstance(node.a, k.RegisterFragment):
            return replace(node, a=change(node.a))
        return None
    return mutate(_kernel(), fn)


def test_the_lowered_kernel_verifies_and_lists_the_operand() -> None:
    kernel = _kernel()
    verify(kernel)
    listing = str(kernel)
    assert "(A: T5[((i20 * 16) / 8) * 4:(((i20 * 16) / 8) * 4) + 8] in registers, B: T9 @ i20 * 1024" in listing
    assert listing.count("wgmma.fence  // A registers: T5") == 1 and listing.count("wgmma.fence\n") == 1


def test_a_register_operand_is_a_local_array_of_the_operand_type() -> None:
    shared = _register_a(lambda a: replace(a, buffer=replace(a.buffer, memory=MemoryType.Shared)))
    with pytest.raises(VerifyError, match=r"operand A \(T5, in registers\) of Mma into T10 is a Shared BFloat16 "
                                          r"array; a register A operand is a Local array"):
        verify(shared)
    wide = _register_a(lambda a: replace(a, buffer=replace(a.buffer, dtype=DataType.Float)))
    with pytest.raises(VerifyError, match="is a Local Float array"):
        verify(wide)


def test_a_fence_names_local_16_bit_arrays() -> None:
    bad = mutate(_kernel(), lambda n: replace(n, registers=tuple(replace(b, dtype=DataType.Float) for b in n.registers))
                 if isinstance(n, k.WgmmaFence) and n.registers else None)
    with pytest.raises(VerifyError, match=r"wgmma.fence names T5 \(Local Float\) as a register A operand"):
        verify(bad)


def test_the_k_steps_registers_lie_in_the_array() -> None:
    past = _register_a(lambda a: replace(a, index=a.index + 4))     # the last k-step reads T5[28:36] of 32
    with pytest.raises(VerifyError, match=r"registers T5\[28:36\] \(8 per thread for one k-step of A\)"):
        verify(past)


def _run(reads_registers: bool) -> list[k.Node]:
    acc = k.Buffer("T2", DataType.Float, MemoryType.Local, Val.const(32))
    b = k.MatrixDescriptor(k.Buffer("T1", DataType.BFloat16, MemoryType.Shared, Val.const(1024)), Val.const(0), 16,
                           128, SmemSwizzle.NONE, False)
    a = (k.RegisterFragment(k.Buffer("T5", DataType.BFloat16, MemoryType.Local, Val.const(8)), Val.const(0))
         if reads_registers else b)
    return [k.Mma(acc, Val.const(0), a, b, (64, 64, 16), DataType.BFloat16)]


@pytest.mark.parametrize("reads_registers,pending", [(False, 1), (True, 0)])
def test_a_run_reading_registers_waits_for_every_group(reads_registers: bool, pending: int) -> None:
    """In a loop whose stages are released one iteration late (lag 1), a run of shared-operand wgmmas leaves its
    group in flight; one that reads registers retires it, since the next iteration rewrites them."""
    no_loops = SimpleNamespace(circular=SimpleNamespace(loop_for=lambda node: None))
    out, in_flight = wgmma_groups._grouped(tuple(_run(reads_registers)), no_loops, wgmma_groups.Lag(1))
    assert out[0] == k.WgmmaFence(tuple(x.a.buffer for x in out[1:2] if isinstance(x.a, k.RegisterFragment)))
    assert isinstance(out[1], k.Mma) and bool(out[0].registers) is reads_registers
    assert out[2:] == (k.AsyncCommit(k.AsyncKind.Wgmma), k.AsyncWait(k.AsyncKind.Wgmma, pending))
    assert in_flight is (pending > 0)
