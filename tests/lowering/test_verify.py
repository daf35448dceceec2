"""``lowering.verify``: every lowered kernel keeps the kernel-IR rules after every pass, and a kernel that
breaks a rule is refused with the node and the rule named."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings

import examples
from codegen import to_cuda
from codegen.errors import CodegenError
from fusion_ir import ScheduleError
from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType, SmemSwizzle
from fuzz.case import Case, apply_step, build
from fuzz.strategies import cases
from lowering import LoweringError, VerifyError, lower, verify
from lowering import kernel_ir as k
from lowering.pipeline import COMPLETE_FROM, PASS_NAMES
from runtime import simulate
from runtime.errors import SimulationError
from tests.codegen import sample_kernels as s
from tests.runtime.kir_builders import mutate

F32, I64, BF16 = DataType.Float, DataType.Int64, DataType.BFloat16
TX, I0 = s.TX, s.I0
OUT = s.global_tensor("T2", (I0,))
IN = s.global_tensor("T0", (I0,))


def kern(body: list[k.Node], *, block: tuple = (128,), inputs: tuple = (), tensor_maps: tuple = ()) -> k.Kernel:
    return s.make_kernel("k", body, list(inputs), [OUT], (1,), block, tensor_maps=tensor_maps)


def store(value: float = 1.0) -> k.Assign:
    return s.assign(OUT, TX, s.fconst(value))


def refused(kernel: k.Kernel, rule: str, message: str) -> VerifyError:
    with pytest.raises(VerifyError, match=message) as info:
        verify(kernel)
    assert info.value.rule == rule
    assert f"(rule {rule})" in str(info.value)
    return info.value


# ---------------------------------------------------------------- every lowered kernel, after every pass
def _verify_every_pass(fusion: object) -> None:
    traced = lower(fusion, trace=True)   # runs verify after every pass
    for record in traced.passes:
        if not record.is_analysis:
            verify(record.kernel, complete=PASS_NAMES.index(record.name) >= COMPLETE_FROM)
    verify(traced.kernel)


@pytest.mark.parametrize("name", examples.names())
def test_every_example_keeps_the_rules_after_every_pass(name: str) -> None:
    _verify_every_pass(examples.load(name).build())


@settings(derandomize=True, database=None, max_examples=50, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(cases())
def test_fuzz_cases_keep_the_rules_after_every_pass(case: Case) -> None:
    fusion = build(case)
    for step in case.steps:
        try:
            apply_step(fusion, step)
        except ScheduleError:
            pass
    try:
        _verify_every_pass(fusion)
    except VerifyError:
        raise
    except LoweringError:
        pass   # a schedule lowering refuses; verify only judges what lowering produces


def test_a_pass_that_breaks_a_rule_fails_where_it_broke_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from lowering import pipeline

    def broken(kernel: k.Kernel, analyses: object) -> k.Kernel:
        return replace(kernel, body=kernel.body + (k.Continue(),))

    steps = list(pipeline.PIPELINE)
    at = pipeline.PASS_NAMES.index("syncs")
    steps[at] = pipeline.Pass("syncs", broken)
    monkeypatch.setattr(pipeline, "PIPELINE", steps)
    with pytest.raises(VerifyError, match="Continue outside of a loop") as info:
        lower(examples.load("pointwise_2d").build(), trace=True)
    assert info.value.lowering_step == "syncs"
    with pytest.raises(VerifyError, match="Continue outside of a loop"):
        lower(examples.load("pointwise_2d").build())   # at the end by default


def test_codegen_and_the_simulator_refuse_with_their_own_error_types() -> None:
    bad = kern([k.Continue()])
    with pytest.raises(CodegenError, match=r"codegen: Continue: Continue outside of a loop \(rule control\)"):
        to_cuda(bad)
    with pytest.raises(SimulationError, match=r"kernel k: Continue: Continue outside of a loop \(rule control\)"):
        simulate(bad, [])


def test_the_samples_are_valid() -> None:
    for sample in s.all_samples().values():
        verify(sample.kernel)


# ---------------------------------------------------------------- one broken kernel per rule
def test_scope_buffer_used_outside_its_allocate() -> None:
    smem = s.shared("T1", 128)
    body = [s.if_(TX.lt(64), [k.Allocate(smem, Val.const(0))]), s.assign(OUT, TX, s.load(smem, TX))]
    refused(kern(body), "scope", "Assign on T2: T1 is used outside the scope of its Allocate")


def test_scope_global_buffer_not_a_parameter() -> None:
    other = s.global_tensor("T7", (I0,))
    refused(kern([s.assign(OUT, TX, s.load(other, TX))]), "scope", "global buffer T7 is not a kernel parameter")


def test_scope_allocated_twice() -> None:
    smem = s.shared("T1", 128)
    refused(kern([k.Allocate(smem, Val.const(0)), k.Allocate(smem, Val.const(0))]), "scope",
            "T1 is allocated twice in the same scope")


def test_scope_misaligned_shared_offset() -> None:
    smem = s.shared("T1", 128, align=128)
    refused(kern([k.Allocate(smem, Val.const(64)), s.assign(smem, TX, s.fconst(0))]), "scope",
            "shared buffer T1 at byte offset 64 is not aligned to 128 bytes")


def test_symbols_unbound() -> None:
    refused(kern([s.assign(OUT, Val.symbol("i9"), s.fconst(1))]), "symbols",
            "symbol i9 in Assign on T2 is not bound")


def test_symbols_let_used_before_it_is_bound() -> None:
    j = Val.symbol("j")
    refused(kern([s.assign(OUT, j, s.fconst(1)), k.Let("j", TX)]), "symbols", "symbol j in Assign on T2 is not bound")


def test_symbols_let_shadows() -> None:
    refused(kern([s.loop("i3", 0, 4, [k.Let("i3", TX)])]), "symbols", "Let i3 shadows another symbol")


def test_symbols_loop_index_not_unique_in_scope() -> None:
    refused(kern([s.loop("i3", 0, 4, [s.loop("i3", 0, 2, [store()])])]), "symbols",
            "loop index i3 shadows another symbol")


def test_symbols_loop_step_positive() -> None:
    refused(kern([s.loop("i3", 0, 4, [store()], step=Val.const(0))]), "symbols", "loop i3 has step 0")


def test_mbarrier_op_on_a_non_mbarrier_buffer() -> None:
    bar = s.shared("T4", 1, F32)
    refused(kern([k.Allocate(bar, Val.const(0)), k.MBarrierInit(bar, Val.const(0), Val.const(1))]), "mbarrier",
            "mbarrier buffer T4 holds Float; mbarriers are 8-byte Int64 words")


def test_mbarrier_buffer_used_as_data() -> None:
    bar = s.shared("T4", 1, I64, align=8)
    body = [k.Allocate(bar, Val.const(0)), k.MBarrierInit(bar, Val.const(0), Val.const(1)),
            s.assign(OUT, TX, k.CastValue(s.load(bar, 0), F32))]
    refused(kern(body), "mbarrier", "T4 is used as data here and as mbarrier elsewhere")


def test_mbarrier_token_without_index() -> None:
    bar, tok = s.shared("T4", 1, I64, align=8), s.local("T5", 1, I64)
    body = [k.Allocate(bar, Val.const(0)), k.Allocate(tok),
            k.MBarrierArriveExpectTx(bar, Val.const(0), Val.const(16), tok, None)]
    refused(kern(body), "mbarrier", "stores a token in T5 but has no token_index")


def test_control_continue_outside_a_loop() -> None:
    refused(kern([s.if_(TX.lt(4), [k.Continue()])]), "control", "Continue outside of a loop")


def test_control_return_is_last_in_its_body() -> None:
    refused(kern([s.if_(TX.lt(4), [k.Return(), store()])]), "control", "Return: is followed by Assign on T2")


def test_async_groups_wait_without_commit() -> None:
    refused(kern([k.AsyncWait(k.AsyncKind.CpAsync, 0)]), "async-groups",
            r"waits for cp.async groups, but no AsyncCommit\('cp.async'\) commits any")


def test_async_groups_unknown_kind_and_negative_pending() -> None:
    refused(kern([k.AsyncCommit("tma")]), "async-groups", "unknown async group kind 'tma'")
    refused(kern([k.AsyncWait(k.CopyKind.TmaStore)]), "async-groups", "unknown async group kind <CopyKind.TmaStore")
    refused(kern([k.AsyncCommit(k.AsyncKind.Bulk), k.AsyncWait(k.AsyncKind.Bulk, -1)]), "async-groups", "waits until -1 groups")


@pytest.mark.parametrize("kind", ["wgmma", "bulk", "cp.async"])
def test_async_groups_refuse_the_kind_spelled_as_a_string(kind: str) -> None:
    """The kind is an AsyncKind: its printed name as a string is refused, with the members named."""
    refused(kern([k.AsyncCommit(kind)]), "async-groups",
            rf"unknown async group kind '{kind}'; the kind is an AsyncKind \(AsyncKind.CpAsync, AsyncKind.Bulk, "
            r"AsyncKind.Wgmma\)")


def test_tensor_op_kind_is_a_tensor_op_kind() -> None:
    op = k.TensorOp(tv=SimpleNamespace(name=2), kind="compute", text="T2 = 1", expr=None)
    refused(kern([op]), "tensor-op", r"compute of T2: kind 'compute' is not a TensorOpKind \(TensorOpKind.Compute, TensorOpKind.Init")
    verify(kern([replace(op, kind=k.TensorOpKind.Compute)]), complete=False)


@pytest.mark.parametrize("node", [k.BlockSync(), k.NamedBarrier(1, Val.const(128)), k.SetMaxNReg(232, True),
                                  k.WgmmaFence(), k.ElectSync(())], ids=lambda n: type(n).__name__)
def test_elect_body_holds_only_what_one_thread_may_do(node: k.Node) -> None:
    refused(kern([k.ElectSync((node,))]), "elect", "is inside an ElectSync, which one thread runs")


def test_elect_wgmma_groups_are_not_elected() -> None:
    refused(kern([k.ElectSync((k.AsyncCommit(k.AsyncKind.Wgmma),))]), "elect", "wgmma groups are committed and waited for")


def test_elect_warp_in_the_block() -> None:
    refused(kern([k.ElectSync((store(),), Val.const(4))]), "elect", "elects in warp 4, but a block of 128 threads")


def _tma_load_kernel(*, tile: k.Buffer | None = None, tmap: k.TensorMapParam | None = None,
                     coords: tuple | None = None, in_kernel: bool = True, dst_index: int = 0) -> k.Kernel:
    tile = tile if tile is not None else s.shared("T1", 128, align=128)
    tmap = tmap if tmap is not None else k.TensorMapParam("tmap_T0", IN, (128,))
    bar = s.shared("T4", 1, I64, align=8)
    body = [k.Allocate(tile, Val.const(0)), k.Allocate(bar, Val.const(512)),
            k.ElectSync((k.MBarrierInit(bar, Val.const(0), Val.const(1)),
                         k.TmaLoad(tile, Val.const(dst_index), tmap, coords if coords is not None else (Val.const(0),),
                                   bar, Val.const(0))))]
    return kern(body, inputs=(IN,), tensor_maps=(tmap,) if in_kernel else ())


def test_tma_base_kernel_is_valid() -> None:
    verify(_tma_load_kernel())


def test_swizzle_alignment_of_a_tma_box() -> None:
    tile = k.Buffer("T1", F32, MemoryType.Shared, Val.const(256), align=128, swizzle=SmemSwizzle.B128)
    tmap = k.TensorMapParam("tmap_T0", IN, (32,), swizzle=SmemSwizzle.B128)
    refused(_tma_load_kernel(tile=tile, tmap=tmap), "swizzle",
            "shared buffer T1 has swizzle B128 but align 128; a B128-swizzled buffer starts on a 1024-byte boundary")


def test_swizzle_of_the_map_and_the_buffer_agree() -> None:
    tmap = k.TensorMapParam("tmap_T0", IN, (32,), swizzle=SmemSwizzle.B128)
    refused(_tma_load_kernel(tmap=tmap), "swizzle", "with swizzle B128, but T1 is laid out with swizzle NONE")


def test_tma_map_of_the_kernel_and_box_rank() -> None:
    refused(_tma_load_kernel(in_kernel=False), "tma", "uses tensor map tmap_T0, which is not in kernel.tensor_maps")
    refused(_tma_load_kernel(coords=(Val.const(0), Val.const(0))), "tma", "has 2 coordinates for a 1-d box")


def test_tma_element_type_and_shared_alignment() -> None:
    refused(_tma_load_kernel(tile=s.shared("T1", 128, I64, align=128)), "tma",
            "moves Float elements through T1 of Int64")
    refused(_tma_load_kernel(dst_index=2), "tma", r"shared address T1\[2\] is not 16-byte aligned")


def test_cp_async_sizes_and_memories() -> None:
    smem = s.shared("T1", 128)
    refused(kern([k.Allocate(smem, Val.const(0)), k.CpAsync(smem, TX, IN, TX, 3)], inputs=(IN,)), "cp.async",
            "copies 12 bytes; cp.async copies 4, 8 or 16")
    other = s.shared("T3", 128)
    refused(kern([k.Allocate(smem, Val.const(0)), k.Allocate(other, Val.const(512)),
                  k.CpAsync(smem, TX, other, TX, 4)]), "cp.async", "source T3 must be global memory")


def _mma(**changes: object) -> k.Kernel:
    kernel = s.wgmma_tile(n=64).kernel
    return mutate(kernel, lambda n: replace(n, **changes) if isinstance(n, k.Mma) else None)


def test_wgmma_shape_and_accumulators() -> None:
    refused(_mma(shape=(64, 12, 16)), "wgmma", r"Mma \(64, 12, 16\) into T3: N is 12")
    refused(_mma(acc_index=Val.const(8)), "wgmma", r"registers T3\[8:40\] \(32 per thread for N = 64\) are out of bounds")


def test_wgmma_descriptor_rules() -> None:
    kernel = s.wgmma_tile(n=64).kernel
    bad = mutate(kernel, lambda n: replace(n, a=replace(n.a, leading_bytes=8)) if isinstance(n, k.Mma) else None)
    refused(bad, "wgmma", r"operand A \(T4\) of Mma into T3: leading byte offset 8 is not a multiple of 16")
    bad = mutate(kernel, lambda n: replace(n, b=replace(n.b, swizzle=SmemSwizzle.B64)) if isinstance(n, k.Mma) else None)
    refused(bad, "swizzle", "the descriptor says swizzle B64, but T5 is laid out with swizzle B128")


def test_stmatrix_registers_and_rows() -> None:
    dst, src = s.shared("T1", 512, BF16), s.local("T6", 16, BF16)
    base = [k.Allocate(dst, Val.const(0)), k.Allocate(src)]
    refused(kern(base + [k.StMatrix(dst, Val.const(0), src, Val.const(0), 3)]), "stmatrix", "stores 3 matrices")
    refused(kern(base + [k.StMatrix(dst, Val.const(4), src, Val.const(0), 4)]), "stmatrix",
            "the row starts at element 4, byte 8")
    refused(kern(base + [k.StMatrix(dst, Val.const(0), src, Val.const(10), 4)]), "stmatrix",
            r"registers T6\[10:18\] \(8 elements for x4\) are out of bounds of T6\[16\]")


def test_barriers_named_barrier_and_setmaxnreg() -> None:
    refused(kern([k.NamedBarrier(0, Val.const(64))]), "barriers", "named barrier id 0 is out of range")
    refused(kern([k.NamedBarrier(1, Val.const(48))]), "barriers", "counts 48 threads; bar.sync counts whole warps")
    refused(kern([k.SetMaxNReg(100, True)]), "barriers", "setmaxnreg count 100 must be a multiple of 8")


def test_barriers_block_reduce_workspace() -> None:
    ws = s.shared("T5", 64, I64)
    acc = s.local("T3", 1)
    body = [k.Allocate(ws, Val.const(0)), k.Allocate(acc),
            k.BlockReduce(acc, Val.const(0), s.fconst(1), "add", (k.ParallelType.TIDx,), 0.0, ws)]
    refused(kern(body), "barriers", "workspace T5 has 64 slots for 128 threads")


def test_assign_reduce_op_and_vector_copy() -> None:
    refused(kern([s.assign(OUT, TX, s.fconst(1), reduce_op="pow")]), "assign", "unknown reduce_op 'pow'")
    refused(kern([s.assign(OUT, TX * 4, s.fconst(1), vector=4)]), "assign", "a vectorized copy must copy a Load")


def test_intermediate_kernels_wait_for_parameters_and_tensor_maps() -> None:
    """Before the launch pass a TMA copy's map is not in kernel.tensor_maps yet: complete=False allows it."""
    verify(_tma_load_kernel(in_kernel=False), complete=False)
