"""codegen: named barriers (``bar.sync id, threads`` through named_barrier.cuh) and loop steps that are values."""

from __future__ import annotations

from dataclasses import replace

import pytest

from codegen import CodegenError, compile_check, nvcc_available, to_cuda
from fusion_ir.scalar import Val, ceil_div
from fusion_ir.types import SmemSwizzle
from lowering import kernel_ir as k
from tests.codegen import sample_kernels as s
from tests.codegen.test_cuda import elect_line, lines_of

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
    (k.NamedBarrier(0, Val.const(64)), r"NamedBarrier: named barrier id 0 is out of range: named barrier ids are 1..15 \(0"),
    (k.NamedBarrier(16, Val.const(64)), "NamedBarrier: named barrier id 16 is out of range"),
    (k.NamedBarrier(1, Val.const(48)), "NamedBarrier: named barrier 1 counts 48 threads; bar.sync counts whole warps"),
    (k.NamedBarrier(1, Val.const(0)), "NamedBarrier: named barrier 1 counts 0 threads"),
    (k.NamedBarrier(1, Val.const(512)), "NamedBarrier: named barrier 1 counts 512 threads, more than the block's 256"),
    (k.NamedBarrier(1, Val.symbol("n")), "symbol n in NamedBarrier is not bound"),
])
def test_invalid_named_barriers_are_codegen_errors(barrier: k.NamedBarrier, message: str) -> None:
    with pytest.raises(CodegenError, match=message):
        to_cuda(barrier_kernel(barrier))


def warp_group_kernel() -> k.Kernel:
    """Blocks of (128, 2, 1), two warp groups running the same code: each stages its 128 elements of T0 in
    shared memory, meets on its own ``bar.sync 1 + threadIdx.y, 128`` and writes the mirrored element of
    its group; then one thread of the first warp of each group (``threadIdx.y * 4``) marks T3."""
    t0, t2, t3 = s.global_tensor("T0", (s.I0,)), s.global_tensor("T2", (s.I0,)), s.global_tensor("T3", (s.I1,))
    tile = s.shared("T1", 256)
    gid = s.BX * 256 + s.TY * 128 + s.TX
    body = [
        k.Allocate(tile, Val.const(0)),
        s.if_(gid.lt(s.I0), [s.assign(tile, s.TY * 128 + s.TX, s.load(t0, s.at(t0, gid)))],
              [s.assign(tile, s.TY * 128 + s.TX, s.fconst(0.0))]),
        k.NamedBarrier(Val.const(1) + s.TY, Val.const(128), "RAW: my group staged"),
        s.if_(gid.lt(s.I0), [s.assign(t2, s.at(t2, gid), s.load(tile, s.TY * 128 + (Val.const(127) - s.TX)))]),
        k.ElectSync((s.assign(t3, s.at(t3, s.BX * 2 + s.TY), s.fconst(1.0)),), s.TY * 4),
    ]
    return s.make_kernel("warp_group_kernel", body, [t0], [t2, t3], (ceil_div(s.I0, 256),), (128, 2), smem=1024)


def test_named_barrier_id_may_be_a_value() -> None:
    lines = lines_of(to_cuda(warp_group_kernel()))
    assert "namedBarrierSync(1 + ((int64_t)threadIdx.y), 128);  // RAW: my group staged" in lines
    kern = barrier_kernel(k.NamedBarrier(Val.symbol("threadIdx.y") * 15 + 1, Val.const(64)), block=(64, 2))
    assert "namedBarrierSync((((int64_t)threadIdx.y) * 15) + 1, 64);" in lines_of(to_cuda(kern))
    with pytest.raises(CodegenError, match="symbol n in NamedBarrier is not bound"):
        to_cuda(barrier_kernel(k.NamedBarrier(Val.symbol("n"), Val.const(64))))
    # a block reduction inside a warp group synchronizes on the same per-group barrier
    per_group = k.NamedBarrier(Val.const(1) + s.TY, Val.const(32))
    reduce = k.rewrite(s.block_reduce().kernel.body,
                       lambda n: replace(n, barrier=per_group) if isinstance(n, k.BlockReduce) else None)
    source = to_cuda(replace(s.block_reduce().kernel, body=reduce))
    assert "ReduceAdd(), 1 + ((int64_t)threadIdx.y), 32);" in source


def test_elect_in_the_first_warp_of_each_warp_group() -> None:
    """(128, 3, 1) and warp ``threadIdx.y * 4``: the linear index against the warp's first thread selects lane 0 of
    every threadIdx.y."""
    line = elect_line((128, 3), Val.symbol("threadIdx.y") * 4)
    cond = line.removeprefix("if (").removesuffix(") {")
    assert cond == "(((int64_t)threadIdx.x) + (((int64_t)threadIdx.y) * 128)) == (((int64_t)threadIdx.y) * 128)"
    as_python = cond.replace("((int64_t)threadIdx.x)", "x").replace("((int64_t)threadIdx.y)", "y")
    chosen = {(x, y) for y in range(3) for x in range(128) if eval(as_python, {}, {"x": x, "y": y})}
    assert chosen == {(0, y) for y in range(3)}


@needs_nvcc
def test_per_warp_group_barrier_and_elect_compile() -> None:
    assert compile_check(to_cuda(warp_group_kernel())).kernel == "warp_group_kernel"


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
