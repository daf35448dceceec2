"""codegen.to_cuda on hand-built kernel IR: key lines, helper selection, errors, goldens.

Set UPDATE_GOLDEN=1 to rewrite the golden sources on purpose.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

import pytest

from codegen import CodegenError, shared_memory_layout, to_cuda
from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType
from lowering import kernel_ir as k
from tests.codegen import sample_kernels as s

GOLDEN = Path(__file__).parent / "golden"


def body_of(source: str) -> str:
    """The kernel function, without the pasted helpers."""
    return source[source.index('extern "C" __global__'):]


def lines_of(source: str) -> list[str]:
    return [line.strip() for line in body_of(source).splitlines()]


def assert_in_order(source: str, *needles: str) -> None:
    pos = 0
    body = body_of(source)
    for needle in needles:
        found = body.find(needle, pos)
        assert found >= 0, f"{needle!r} not found after offset {pos} in:\n{body}"
        pos = found + len(needle)


@pytest.mark.parametrize("name", ["pointwise", "tma_circular_buffer_3"])
def test_golden_kernel(name: str) -> None:
    """The kernel function; the helpers pasted before it are the codegen/*.cuh files verbatim."""
    source = to_cuda(s.all_samples()[name].kernel)
    text = source[source.index('extern "C" __global__'):]
    path = GOLDEN / f"{name}.cu"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def test_pointwise_signature_bindings_and_statement() -> None:
    src = to_cuda(s.pointwise().kernel)
    lines = lines_of(src)
    assert lines[0] == ('extern "C" __global__ void __launch_bounds__(128) pointwise_kernel('
                        'Tensor<float, 2> T0, Tensor<float, 2> T1, Tensor<float, 2> T2) {')
    assert "const int64_t i1 = T0.size[1];" in lines
    assert "const int64_t T1_stride1 = T1.stride[1];" in lines
    assert "const int64_t T2_stride0 = T2.stride[0];" in lines
    assert not any(line.startswith("const int64_t i0 ") for line in lines), "i0 is unused: no binding"
    assert "if (((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) < i1) {" in lines
    assert any(line.startswith("T2.data[") and "= expf(" in line and line.endswith(" * 0.5f;") for line in lines)
    assert "smem" not in body_of(src)


def test_no_includes_and_helpers_only_when_used() -> None:
    for name, sample in s.all_samples().items():
        src = to_cuda(sample.kernel)
        assert "#include" not in src, name
    pointwise = to_cuda(s.pointwise().kernel)
    assert "struct Tensor" in pointwise and "typedef long int int64_t;" in pointwise
    for helper in ("namespace mbarrier", "namespace Hopper", "blockAllReduce", "increaseRegisters", "cpAsync"):
        assert helper not in pointwise
    tma = to_cuda(s.tma_circular_buffer().kernel)
    assert "namespace mbarrier" in tma and "cpAsyncBulkTensorTileG2S" in tma
    assert "blockAllReduce" not in tma and "setmaxnreg" not in tma


def test_statements_are_one_per_line_with_two_space_indent() -> None:
    src = to_cuda(s.tma_circular_buffer().kernel)
    for line in body_of(src).splitlines()[1:-1]:
        if not line:
            continue
        indent = len(line) - len(line.lstrip(" "))
        assert indent % 2 == 0 and indent >= 2, line
        assert line.count(";") <= 1 or line.lstrip().startswith("for ("), line


def test_shared_memory_and_block_sync() -> None:
    src = to_cuda(s.smem_rotate().kernel)
    lines = lines_of(src)
    assert "extern __shared__ __align__(1024) char smem[];" in lines
    assert "float* T1 = reinterpret_cast<float*>(smem);" in lines
    assert "__syncthreads();  // RAW: T1 written, then read by another thread" in lines
    assert "T1[threadIdx.x] = 0.0f;" in lines
    assert_in_order(src, "T1[threadIdx.x] = T0.data[", "} else {", "__syncthreads();",
                    "= T1[(((int64_t)threadIdx.x) + 1) % 128] * 2.0f;")


def test_block_reduce_uses_workspace_as_raw_slots() -> None:
    src = to_cuda(s.block_reduce("add").kernel)
    lines = lines_of(src)
    assert "int64_t* T5 = reinterpret_cast<int64_t*>(smem);" in lines
    assert "T4[0] = blockAllReduce<true, false, false, 32, 4, 1>(T3[0], reinterpret_cast<float*>(T5), ReduceAdd());" in lines
    assert "float T3[1];" in lines and "T3[0] = 0.0f;" in lines
    max_src = to_cuda(s.block_reduce("max").kernel)
    assert "T3[0] = __uint_as_float(0xff800000u);" in lines_of(max_src)
    assert "ReduceMax()" in max_src and "T3[0] = fmaxf(T3[0], T0.data[" in max_src


def test_tma_circular_buffer_has_the_seed_structure() -> None:
    src = to_cuda(s.tma_circular_buffer(stages=3).kernel)
    elect = "if (threadIdx.x == 0) {"
    assert_in_order(
        src,
        # pre-prologue: mbarrier init loop by one elected thread, then a block sync
        "float* T1 = reinterpret_cast<float*>(smem);",
        "int64_t* T4 = reinterpret_cast<int64_t*>(smem + 1536);",
        elect, "// pre-prologue loop", "#pragma unroll 1", "mbarrier::init(toSmem(&T4[i5]), 1);",
        "__syncthreads();  // init",
        # prologue: prefetch loads
        "// prologue loop of iS3{ceilDiv(i0, 128)}", "#pragma unroll\n",
        elect, "mbarrier::arriveExpectTx(toSmem(&T4[i6 % 3]), 512);",
        "Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T1[(i6 % 3) * 128]), &tmap_T0, toSmem(&T4[i6 % 3]), i6 * 128);",
        # main: issue the load of i + prefetch, then wait on stage i
        "// main loop of iS3{ceilDiv(i0, 128)}", "#pragma unroll 1",
        "for (int64_t i7 = 0; i7 < ceilDiv(i0, 128) - 2; ++i7) {",
        elect, "mbarrier::arriveExpectTx(toSmem(&T4[(i7 + 2) % 3]), 512);",
        "Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T1[((i7 + 2) % 3) * 128]), &tmap_T0, toSmem(&T4[(i7 + 2) % 3]), "
        "(i7 + 2) * 128);",
        "mbarrier::waitParity(toSmem(&T4[i7 % 3]), (i7 / 3) % 2);",
        "__syncthreads();  // WAR",
        # epilogue: waits without loads
        "// epilogue loop of iS3{ceilDiv(i0, 128)}",
        "for (int64_t i8 = ceilDiv(i0, 128) - 2; i8 < ceilDiv(i0, 128); ++i8) {",
        "mbarrier::waitParity(toSmem(&T4[i8 % 3]), (i8 / 3) % 2);",
        # post-epilogue: inval loop
        elect, "// post-epilogue loop", "mbarrier::inval(toSmem(&T4[i9]));",
    )
    epilogue = body_of(src).split("// epilogue loop")[1].split("// post-epilogue")[0]
    assert "cpAsyncBulkTensorTileG2S" not in epilogue
    assert "TensorMap tmap_T0" in body_of(src).splitlines()[0]
    assert "const __grid_constant__ TensorMap tmap_T0)" in body_of(src).splitlines()[0]


def test_tma_token_form_and_reversed_coordinates() -> None:
    lines = lines_of(to_cuda(s.tma_token_2d().kernel))
    assert "int64_t T5[1];" in lines
    assert "T5[0] = mbarrier::arriveExpectTx(toSmem(&T4[0]), 1024);" in lines
    # kernel IR coordinates are (row, column); PTX takes the innermost (column) first
    assert ("Hopper::cpAsyncBulkTensorTileG2S(toSmem(&T1[0]), &tmap_T0, toSmem(&T4[0]), "
            "((int64_t)blockIdx.x) * 32, ((int64_t)blockIdx.y) * 8);") in lines
    assert "mbarrier::wait(toSmem(&T4[0]), T5[0]);" in lines
    assert "mbarrier::inval(toSmem(&T4[0]));" in lines
    assert "if (threadIdx.x == 0 && threadIdx.y == 0) {" in lines


def test_tma_store_fence_commit_and_wait() -> None:
    src = to_cuda(s.tma_store().kernel)
    assert_in_order(src, "fenceAsyncProxy();", "__syncthreads();",
                    "Hopper::cpAsyncBulkTensorTileS2G(&tmap_T2, toSmem(&T1[0]), ((int64_t)blockIdx.x) * 32, "
                    "((int64_t)blockIdx.y) * 8);",
                    "Hopper::cpAsyncBulkCommitGroup();", "Hopper::cpAsyncBulkWaitGroupRead<0>();")


def test_warp_specialization_register_sharing_and_launch_bounds() -> None:
    src = to_cuda(s.warp_specialized().kernel)
    lines = lines_of(src)
    assert lines[0].startswith('extern "C" __global__ void __launch_bounds__(384, 1) warp_specialized_kernel(')
    assert_in_order(src, "if (((int64_t)threadIdx.y) == 2) {", "decreaseRegisters<40>();", "// AsyncWarp loop",
                    # the AsyncWarp elects within its own first warp, not warp 0 of the block
                    "if (threadIdx.x == 0 && threadIdx.y == 2) {",
                    "mbarrier::waitParity(toSmem(&T4[(i7 % 3) + 3]), ((i7 / 3) + 1) % 2);",
                    "return;", "} else {", "increaseRegisters<232>();", "// ComputeWarp loop",
                    "mbarrier::waitParity(toSmem(&T4[i8 % 3]), (i8 / 3) % 2);",
                    "mbarrier::arrive(toSmem(&T4[(i8 % 3) + 3]));")


def test_cp_async_with_zero_fill_predicate() -> None:
    lines = lines_of(to_cuda(s.cp_async_copy().kernel))
    assert any(line.startswith("cpAsync<16>(toSmem(&T1[((int64_t)threadIdx.x) * 4]), &T0.data[")
               and line.endswith("< i0);") for line in lines)
    assert "cpAsyncCommitGroup();" in lines and "cpAsyncWaitGroup<0>();" in lines


def test_vector_access_and_unrolled_loop() -> None:
    lines = lines_of(to_cuda(s.vectorized_add().kernel))
    # one float4 load into registers, taken apart by value (a reinterpreted register array would
    # move to local memory)
    at = lines.index("const float4 vec = *reinterpret_cast<const float4*>(&T0.data["
                     "((((int64_t)blockIdx.x) * 128) + ((int64_t)threadIdx.x)) * 4]);")
    assert lines[at + 1:at + 5] == ["T3[0] = vec.x;", "T3[1] = vec.y;", "T3[2] = vec.z;", "T3[3] = vec.w;"]
    assert "// loop of iV5{4}" in lines
    assert lines[lines.index("// loop of iV5{4}") + 1] == "#pragma unroll"


def test_half_precision_computes_in_float() -> None:
    lines = lines_of(to_cuda(s.cast_kernel(DataType.Half, DataType.Half).kernel))
    # every Half-typed node rounds to half, as numpy's float16 arithmetic does
    assert any("= __float2half(__half2float(__float2half(-__half2float(T0.data[" in line
               and "]))) + 1.0f);" in line for line in lines)
    assert lines[0].startswith('extern "C" __global__ void __launch_bounds__(128) cast_half_to_half('
                               'Tensor<__half, 1> T0, Tensor<__half, 1> T2)')
    bf16 = to_cuda(s.cast_kernel(DataType.BFloat16, DataType.BFloat16).kernel)
    assert "__float2bfloat16(-__bfloat162float(T0.data[" in bf16


def test_unroll_pragmas() -> None:
    i = Val.symbol("i3")
    out = s.global_tensor("T2", (s.I0,))

    def pragma_of(**kw: object) -> str:
        loop = s.loop("i3", 0, 8, [s.assign(out, i, s.fconst(1.0))], **kw)
        kern = s.make_kernel("k", [loop], [], [out], (1,), (1,))
        lines = lines_of(to_cuda(kern))
        at = next(n for n, line in enumerate(lines) if line.startswith("for ("))
        return lines[at - 1]

    assert pragma_of(unroll=True) == "#pragma unroll"
    assert pragma_of(unroll=4) == "#pragma unroll 4"
    assert pragma_of(unroll=False, stage=k.Stage.Main, label="iS1{8}") == "#pragma unroll 1"
    assert pragma_of(unroll=False, label="iS1{8}") == "// loop of iS1{8}"


def elect_line(block: tuple, warp: int | Val = 0, conds: tuple[Val, ...] = ()) -> str:
    """The condition line of an ``ElectSync`` of warp ``warp`` in a block of ``block``."""
    mbar = s.shared("T4", 1, DataType.Int64, align=8)
    node: k.Node = k.ElectSync((k.MBarrierInit(mbar, Val.const(0), Val.const(1)),),
                               warp if isinstance(warp, Val) else Val.const(warp))
    for cond in conds:
        node = s.if_(cond, [node])
    kern = s.make_kernel("k", [k.Allocate(mbar, Val.const(0)), node], [], [], (1,), block, smem=8)
    lines = lines_of(to_cuda(kern))
    return lines[lines.index("mbarrier::init(toSmem(&T4[0]), 1);") - 1]


def test_elect_is_lane_zero_of_the_warp_by_block_shape() -> None:
    """The elected thread is lane 0 of its warp, a thread-index test (no ``elect.sync``)."""
    assert elect_line((64,)) == "if (threadIdx.x == 0) {"
    assert elect_line((16,)) == "if (threadIdx.x == 0) {"
    assert elect_line((1,)) == "if (threadIdx.x == 0) {"
    assert elect_line((64, 2)) == "if (threadIdx.x == 0 && threadIdx.y == 0) {"
    assert elect_line((16, 4)) == "if ((((int64_t)threadIdx.x) + (((int64_t)threadIdx.y) * 16)) == 0) {"
    assert "blockDim.x" in elect_line((Val.symbol("i0"), 2))
    assert "electSync" not in to_cuda(s.tma_circular_buffer().kernel)


def test_elect_warp_comes_from_the_node_not_from_enclosing_conditions() -> None:
    # a 256-thread block: warp 4 is threads 128..159
    assert elect_line((256,), 4) == "if (threadIdx.x == 128) {"
    assert elect_line((256,), 4, (s.TX.ge(128),)) == elect_line((256,), 4)
    # the last warp of a 48-thread block has 16 lanes: its lane 0 is thread 32
    assert elect_line((48,), 1) == "if (threadIdx.x == 32) {"
    # (128, 4): warp 4 is the first warp of row threadIdx.y == 1, warp 7 its last
    assert elect_line((128, 4), 4) == "if (threadIdx.x == 0 && threadIdx.y == 1) {"
    assert elect_line((128, 4), 7) == "if (threadIdx.x == 96 && threadIdx.y == 1) {"
    assert elect_line((64, 2, 2), 3) == "if (threadIdx.x == 32 && threadIdx.y == 1 && threadIdx.z == 0) {"
    # (16, 4): rows of 16 threads, warp 1 is rows 2 and 3; the linear index decides
    assert ") == 32)" in elect_line((16, 4), 1)
    # a warp that is a value: the linear index against its first thread
    line = elect_line((Val.symbol("i0"),), Val.symbol("blockDim.x") // 64)
    assert "((int64_t)threadIdx.x) == ((((int64_t)blockDim.x) / 64) * 32)" in line, line


def test_elect_warp_outside_the_block_or_unbound_is_an_error() -> None:
    with pytest.raises(CodegenError, match="ElectSync: elects in warp 8, but a block of 256 threads has warps 0..7"):
        elect_line((256,), 8)
    with pytest.raises(CodegenError, match="symbol w in ElectSync is not bound"):
        elect_line((256,), Val.symbol("w"))


def test_unplaced_shared_buffers_get_aligned_sequential_offsets() -> None:
    a = k.Buffer("T1", DataType.Float, MemoryType.Shared, Val.const(3))
    b = k.Buffer("T2", DataType.Float, MemoryType.Shared, Val.const(4), align=128)
    c = k.Buffer("T3", DataType.Int64, MemoryType.Shared, Val.symbol("i0"), align=8)
    placed = k.Buffer("T4", DataType.Float, MemoryType.Shared, Val.const(10))
    out = s.global_tensor("T9", (s.I0,))
    body = [k.Allocate(a), k.Allocate(b), k.Allocate(placed, Val.const(1024)), k.Allocate(c)]
    body += [s.assign(out, 0, s.load(buf, 0) if buf.dtype == DataType.Float else k.CastValue(s.load(buf, 0),
                                                                                             DataType.Float))
             for buf in (a, b, c, placed)]
    kern = s.make_kernel("k", body, [], [out], (1,), (1,))
    layout = shared_memory_layout(kern)
    assert {n: str(v) for n, v in layout.offsets.items()} == {"T4": "1024", "T1": "1072", "T2": "1152",
                                                              "T3": "1168"}
    assert str(layout.total) == "1168 + (i0 * 8)"
    lines = lines_of(to_cuda(kern))
    assert "float* T2 = reinterpret_cast<float*>(smem + 1152);" in lines


def test_unused_allocation_is_a_comment_not_a_declaration() -> None:
    out = s.global_tensor("T2", (s.I0,))
    unused = s.local("T3", 4)
    kern = s.make_kernel("k", [k.Allocate(unused), s.assign(out, 0, s.fconst(1.0))], [], [out], (1,), (1,))
    lines = lines_of(to_cuda(kern))
    assert "// T3 (Local, 4 x float) is allocated but unused" in lines
    assert "float T3[4];" not in lines


def test_literals_of_special_floats_and_negative_constants() -> None:
    out = s.global_tensor("T2", (s.I0,))
    values = [float("nan"), float("inf"), -2.5, 1e-5, 3.0, 1e40]
    body = [s.assign(out, n, s.fconst(v)) for n, v in enumerate(values)]
    lines = lines_of(to_cuda(s.make_kernel("k", body, [], [out], (1,), (1,))))
    assert "T2.data[0] = __uint_as_float(0x7fffffffu);" in lines
    assert "T2.data[1] = __uint_as_float(0x7f800000u);" in lines
    assert "T2.data[2] = -2.5f;" in lines
    assert "T2.data[3] = 1e-05f;" in lines
    assert "T2.data[4] = 3.0f;" in lines
    assert "T2.data[5] = __uint_as_float(0x7f800000u);" in lines


# ---------------------------------------------------------------- errors
def _one_statement_kernel(*nodes: k.Node, block: tuple = (1,), launch_bounds: int | None = None) -> k.Kernel:
    out = s.global_tensor("T2", (s.I0,))
    return s.make_kernel("k", list(nodes), [], [out], (1,), block, launch_bounds=launch_bounds)


def test_symbolic_local_size_is_an_error() -> None:
    buf = k.Buffer("T3", DataType.Float, MemoryType.Local, Val.symbol("i0"))
    out = s.global_tensor("T2", (s.I0,))
    kern = s.make_kernel("k", [k.Allocate(buf), s.assign(out, 0, s.load(buf, 0))], [], [out], (1,), (1,))
    with pytest.raises(CodegenError, match=r"Local buffer T3 has non-constant size i0"):
        to_cuda(kern)


def test_unbound_symbol_is_an_error() -> None:
    out = s.global_tensor("T2", (s.I0,))
    kern = _one_statement_kernel(s.assign(out, Val.symbol("i42"), s.fconst(1.0)))
    with pytest.raises(CodegenError, match=r"symbol i42 in Assign on T2 is not bound"):
        to_cuda(kern)


def test_buffer_outside_its_scope_is_an_error() -> None:
    tmp = s.local("T3", 1)
    out = s.global_tensor("T2", (s.I0,))
    kern = _one_statement_kernel(s.if_(s.TX.eq(0), [k.Allocate(tmp), s.assign(tmp, 0, s.fconst(1.0))]),
                                 s.assign(out, 0, s.load(tmp, 0)))
    with pytest.raises(CodegenError, match=r"Assign on T2: T3 is used outside the scope of its Allocate"):
        to_cuda(kern)


def test_setmaxnreg_rules() -> None:
    with pytest.raises(CodegenError, match=r"multiple of 8 in \[24, 256\]"):
        to_cuda(_one_statement_kernel(k.SetMaxNReg(100, True), block=(128,)))
    with pytest.raises(CodegenError, match=r"neither launch_bounds nor a constant block size"):
        to_cuda(_one_statement_kernel(k.SetMaxNReg(96, True), block=(Val.symbol("i0"),)))
    src = to_cuda(_one_statement_kernel(k.SetMaxNReg(96, True), block=(128,)))
    assert "__launch_bounds__(128, 1)" in src


def test_vector_width_and_tma_rank_errors() -> None:
    out = s.global_tensor("T2", (s.I0,))
    src_buf = s.local("T3", 8)
    kern = _one_statement_kernel(k.Allocate(src_buf), s.assign(out, 0, s.load(src_buf, 0), vector=8))
    with pytest.raises(CodegenError, match=r"moves 32 bytes; one vector access moves 4, 8 or 16 bytes"):
        to_cuda(kern)
    tma = s.tma_circular_buffer()
    other_map = k.TensorMapParam("tmap_T9", tma.kernel.inputs[0], (128,))
    kern = replace(tma.kernel, tensor_maps=(other_map,))
    with pytest.raises(CodegenError, match=r"uses tensor map tmap_T0, which is not in kernel.tensor_maps"):
        to_cuda(kern)


def test_mbarrier_must_be_eight_byte_shared() -> None:
    mbar = s.shared("T4", 2, DataType.Int32)
    kern = _one_statement_kernel(k.Allocate(mbar, Val.const(0)), k.MBarrierInit(mbar, Val.const(0), Val.const(1)))
    with pytest.raises(CodegenError, match=r"mbarrier buffer T4 holds Int32; mbarriers are 8-byte Int64 words"):
        to_cuda(kern)


def test_loop_index_may_not_shadow() -> None:
    out = s.global_tensor("T2", (s.I0,))
    inner = s.loop("i3", 0, 2, [s.assign(out, Val.symbol("i3"), s.fconst(0.0))])
    kern = _one_statement_kernel(s.loop("i3", 0, 2, [inner]))
    with pytest.raises(CodegenError, match=r"loop index i3 shadows another symbol"):
        to_cuda(kern)


def test_generated_names_are_c_identifiers() -> None:
    for sample in s.all_samples().values():
        src = to_cuda(sample.kernel)
        for decl in re.findall(r"^\s*(?:const )?(?:int64_t|float|__half)\*? (\S+?)(?:\[| =)", body_of(src), re.MULTILINE):
            assert re.match(r"^[A-Za-z_]\w*$", decl), decl


def test_the_source_is_the_used_cuh_files_verbatim_then_the_kernel() -> None:
    """What the golden kernels leave out: the helpers before the kernel are exactly the .cuh files."""
    from pathlib import Path as P

    src = to_cuda(s.tma_circular_buffer().kernel)
    head = src[:src.index('extern "C" __global__')]
    for name in ("types", "tensor", "smem", "mbarrier", "tma"):
        text = (P(__file__).parents[2] / "codegen" / f"{name}.cuh").read_text().strip()
        assert text in head, name
