"""codegen: named barriers (``bar.sync id, threads`` through named_barrier.cuh) and loop steps that are values."""

from __future__ import annotations

from dataclasses import replace

import pytest

from codegen import CodegenError, compile_check, nvcc_available, to_cuda
from fusion_ir.scalar import Val
from fusion_ir.types import SmemSwizzle
from lowering import kernel_ir as k
from tests.codegen import sample_kernels as s
from tests.codegen.test_cuda import lines_of

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")


def barrier_kernel(*nodes: k.Node, block: tuple = (256,)) -> k.Kernel:
    out = s.global_tensor("T2", (s.I0,))
    return s.make_kernel("k", [*nodes, s.assign(out, s.TX, s.fconst(1.0))], [], [out], (1,), block)


def test_named_barrier_prints_through_its_helper() -> None:
    source = to_cuda(s.named_barrier_groups().kernel)
    assert "namedBarrierSync(1, 128);  // RAW: group 0 staged T1[0:128]" in lines_of(source)
    assert "namedBarrierSync(2, 128);  // RAW: group 1 staged T1[128:256]" in lines_of(source)
    assert 'asm volatile("bar.sync %0, %1;\\n"' in source
    assert "bar.sync" not in to_cuda(s.smem_rotate().kernel)  # pasted only where used


def test_named_barrier_count_may_be_a_value() -> None:
    source = to_cuda(barrier_kernel(k.NamedBarrier(3, Val.symbol("blockDim.x") - 32)))
    assert "namedBarrierSync(3, ((int64_t)blockDim.x) - 32);" in lines_of(source)


@pytest.mark.parametrize(("barrier", "message"), [
    (k.NamedBarrier(0, Val.const(64)), r"NamedBarrier id 0 is out of range: named barrier ids are 1..15 \(0"),
    (k.NamedBarrier(16, Val.const(64)), "NamedBarrier id 16 is out of range"),
    (k.NamedBarrier(1, Val.const(48)), "NamedBarrier 1 counts 48 threads; bar.sync counts whole warps"),
    (k.NamedBarrier(1, Val.const(0)), "NamedBarrier 1 counts 0 threads"),
    (k.NamedBarrier(1, Val.const(512)), "NamedBarrier 1 counts 512 threads, more than the block's 256"),
    (k.NamedBarrier(1, Val.symbol("n")), "symbol n in NamedBarrier is not bound"),
])
def test_invalid_named_barriers_are_codegen_errors(barrier: k.NamedBarrier, message: str) -> None:
    with pytest.raises(CodegenError, match=message):
        to_cuda(barrier_kernel(barrier))


def test_grid_stride_loop_steps_by_grid_dim() -> None:
    lines = lines_of(to_cuda(s.grid_stride().kernel))
    assert "for (int64_t i3 = blockIdx.x; i3 < ceilDiv(i0, 128); i3 += gridDim.x) {" in lines


def test_loop_step_may_use_params_and_enclosing_indices_but_must_be_bound() -> None:
    out = s.global_tensor("T2", (s.I0,))
    inner = s.loop("i4", 0, s.I0, [s.assign(out, Val.symbol("i4"), s.fconst(1.0))], step=Val.symbol("i3") + s.I0)
    kern = s.make_kernel("k", [s.loop("i3", 1, 3, [inner])], [], [out], (1,), (1,))
    assert "for (int64_t i4 = 0; i4 < i0; i4 += i3 + i0) {" in lines_of(to_cuda(kern))
    own = s.loop("i4", 0, s.I0, [s.assign(out, Val.symbol("i4"), s.fconst(1.0))], step=Val.symbol("i4"))
    with pytest.raises(CodegenError, match="symbol i4 in loop i4 is not bound"):
        to_cuda(s.make_kernel("k", [own], [], [out], (1,), (1,)))
    zero = s.loop("i4", 0, s.I0, [s.assign(out, Val.symbol("i4"), s.fconst(1.0))], step=Val.const(0))
    with pytest.raises(CodegenError, match="loop i4 has step 0; steps are positive"):
        to_cuda(s.make_kernel("k", [zero], [], [out], (1,), (1,)))


@needs_nvcc
@pytest.mark.parametrize("sample", [s.named_barrier_groups, s.grid_stride])
def test_named_barrier_and_grid_stride_kernels_compile(sample: object) -> None:
    kern = sample().kernel  # type: ignore[operator]
    assert compile_check(to_cuda(kern)).kernel == kern.name


def test_swizzled_tma_kernels_read_through_the_xor_pattern() -> None:
    source = to_cuda(s.tma_swizzled(SmemSwizzle.B128).kernel)
    assert "extern __shared__ __align__(1024) char smem[];" in source
    assert "^ (((((i5 * 128) + ((int64_t)threadIdx.x)) / 32) % 8) * 4)]" in source


def test_swizzle_mismatch_and_alignment_are_codegen_errors() -> None:
    kern = s.tma_swizzled(SmemSwizzle.B128).kernel
    tmap = replace(kern.tensor_maps[0], swizzle=SmemSwizzle.B64)

    def swap_map(node: k.Node) -> k.Node | None:
        return replace(node, tensor_map=tmap) if isinstance(node, k.TmaLoad) else None

    mismatched = replace(kern, tensor_maps=(tmap,), body=k.rewrite(kern.body, swap_map))
    with pytest.raises(CodegenError, match="copies through tmap_T0 with swizzle B64, but T1 is laid out with "
                                           "swizzle B128"):
        to_cuda(mismatched)
    tile = kern.body[0].buffer

    def realign(align: int) -> k.Kernel:
        return replace(kern, body=(replace(kern.body[0], buffer=replace(tile, align=align)),) + kern.body[1:])

    with pytest.raises(CodegenError, match="T1 has swizzle B128 but align 128; a B128-swizzled buffer starts on a "
                                           "1024-byte boundary"):
        to_cuda(realign(128))
    with pytest.raises(CodegenError, match="T1 needs 2048-byte alignment; dynamic shared memory starts 1024-byte"):
        to_cuda(realign(2048))
