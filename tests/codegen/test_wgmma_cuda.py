"""wgmma in the generated CUDA: the Mma call and its descriptors, the generated asm wrappers, fence,
commit and wait, the kernel-IR listing, the errors, and (with nvcc) registers without spills."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace

import pytest

from codegen import CodegenError, compile_check, nvcc_available, to_cuda
from codegen.helpers import helpers_source
from codegen.nvcc import NVCC_ARCH_FLAGS, WgmmaIssue, wgmma_issue
from codegen.wgmma import WgmmaShape, wrappers_source
from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType, SmemSwizzle
from lowering import kernel_ir as k
from tests.codegen import sample_kernels as s
from tests.codegen.test_cuda import assert_in_order, body_of

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")
BF16, F16 = DataType.BFloat16, DataType.Half
SHAPES = [(8, F16, 1), (64, F16, 1), (136, BF16, 1), (256, BF16, 2)]


def helpers_of(source: str) -> str:
    return source[:source.index('extern "C" __global__')]


# ---------------------------------------------------------------- the 128 x 256 bf16 tile, 2 warp groups
def test_the_k_tile_fences_issues_four_mmas_then_commits_and_waits() -> None:
    src = to_cuda(s.wgmma_tile().kernel)
    assert_in_order(
        src,
        "float T3[128];",
        "T3[r3] = 0.0f;",
        "#pragma unroll 1\n  for (int64_t i6 = 0; i6 < ceilDiv(i1, 64); ++i6) {",
        "fenceAsyncProxy();",
        "__syncthreads();  // RAW",
        "wgmma::fenceOperands(T3);\n    wgmma::fence();",
        "#pragma unroll\n    for (int64_t i9 = 0; i9 < 4; ++i9) {",
        "wgmma::mmaM64N256K16F32Bf16<0, 1>(&T3[0],\n"
        "          wgmma::smemDescriptor(toSmem(&T4[(((int64_t)tidY) * 4096) + (i9 * 16)]), 16, 1024, 1),\n"
        "          wgmma::smemDescriptor(toSmem(&T5[i9 * 1024]), 8192, 1024, 1));",
        "wgmma::commit();\n    wgmma::wait<0>();\n    wgmma::fenceOperands(T3);",
        "__syncthreads();  // WAR",
        "= T3[r3];",
    )
    body = body_of(src)
    assert body.count("wgmma::mmaM64N256K16F32Bf16") == 1
    assert body.count("wgmma::fence();") == body.count("wgmma::commit();") == body.count("wgmma::wait<0>();") == 1


def test_the_wrapper_passes_each_accumulator_as_its_own_register_operand() -> None:
    head = helpers_of(to_cuda(s.wgmma_tile().kernel))
    assert head.count("template <int TransA, int TransB>") == 1
    assert ("__device__ __forceinline__ void mmaM64N256K16F32Bf16(float* d, uint64_t desc_a, uint64_t desc_b, "
            "int scaleD = 1)") in head
    asm = head[head.index("mmaM64N256K16F32Bf16(float* d"):]
    asm = asm[:asm.index("\n}\n")]
    text = "".join(re.findall(r'"([^"]*)"\n', asm))   # the asm template's string pieces, concatenated
    # scale-d is the predicate scaleD != 0: 1 adds to the accumulators, 0 writes them (a tile's first k step)
    assert text == ("{\\n.reg .pred p;\\nsetp.ne.b32 p, %132, 0;\\n"
                    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
                    + ", ".join(f"%{i}" for i in range(128)) + "}, %128, %129, p, 1, 1, %130, %131;\\n}\\n")
    operands = re.findall(r'"\+f"\(d\[(\d+)\]\)', asm)
    assert [int(i) for i in operands] == list(range(128))
    assert asm.count('"+f"') == 128 and '"l"(d)' not in asm and "memory" not in asm
    assert asm.endswith(': "l"(desc_a), "l"(desc_b), "n"(TransA), "n"(TransB), "r"(scaleD));')
    # only the wrappers a kernel uses are pasted; the fixed helpers come from wgmma.cuh
    assert "m64n8k16" not in head and "mmaM64N8K16" not in head
    assert "wgmma.fence.sync.aligned;" in head and "wgmma.commit_group.sync.aligned;" in head
    assert "wgmma.wait_group.sync.aligned %0;" in head


def test_descriptor_fields_in_wgmma_cuh() -> None:
    head = helpers_of(to_cuda(s.wgmma_tile().kernel))
    assert "desc |= static_cast<uint64_t>((smem_addr & 0x3FFFF) >> 4);" in head
    assert "desc |= static_cast<uint64_t>((leading_byte_offset & 0x3FFFF) >> 4) << 16;" in head
    assert "desc |= static_cast<uint64_t>((stride_byte_offset & 0x3FFFF) >> 4) << 32;" in head
    assert "desc |= static_cast<uint64_t>(swizzle_mode & 0x3) << 62;" in head
    assert "uint32_t toSmem(const void* ptr)" in head   # the descriptor's start is a shared-window address


# ---------------------------------------------------------------- shapes, types, transposes
@pytest.mark.parametrize(("n", "dtype", "groups"), SHAPES)
def test_every_shape_gets_its_wrapper(n: int, dtype: DataType, groups: int) -> None:
    src = to_cuda(s.wgmma_tile(n, dtype, groups).kernel)
    t = "bf16" if dtype is BF16 else "f16"
    name = f"mmaM64N{n}K16F32{t.capitalize()}"
    r = n // 2
    assert f"wgmma::{name}<0, 1>(&T3[0]," in body_of(src)
    head = helpers_of(src)
    assert f'"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{t}.{t} "' in head
    assert f'"%{r}, %{r + 1}, p, 1, 1, %{r + 2}, %{r + 3};\\n"' in head and f'"setp.ne.b32 p, %{r + 4}, 0;\\n"' in head
    assert f"%{r - 1}}}, " in head and f'"+f"(d[{r - 1}])' in head and f"d[{r}]" not in head
    assert f"float T3[{r}];" in body_of(src)


def test_shapes_are_pasted_once_each_in_a_stable_order() -> None:
    shapes = {WgmmaShape(256, BF16), WgmmaShape(8, BF16), WgmmaShape(64, F16)}
    text = wrappers_source(shapes)
    names = re.findall(r"void (mma\w+)\(", text)
    assert names == ["mmaM64N8K16F32Bf16", "mmaM64N256K16F32Bf16", "mmaM64N64K16F32F16"]
    assert wrappers_source(set()) == ""


def _mma_kernel(*, n: int = 64, dtype: DataType = BF16, acc: k.Buffer | None = None, acc_index: Val | None = None,
                a: dict | None = None, b: dict | None = None, shape: tuple[int, int, int] | None = None,
                block: tuple = (128,), wrap=lambda mma: [mma]) -> k.Kernel:
    """Shared A [64][64] and B [64 k][64 n] (B128), accumulators, fence, one Mma, commit, wait, store."""
    out = s.global_tensor("T2", (s.I0,))
    acc = acc if acc is not None else s.local("T3", n // 2)
    a_tile = k.Buffer("T4", dtype, MemoryType.Shared, Val.const(64 * 64), align=1024, swizzle=SmemSwizzle.B128)
    b_tile = k.Buffer("T5", dtype, MemoryType.Shared, Val.const(64 * 64), align=1024, swizzle=SmemSwizzle.B128)
    desc_a = k.MatrixDescriptor(a_tile, Val.const(0), 16, 1024, SmemSwizzle.B128, False)
    desc_b = k.MatrixDescriptor(b_tile, Val.const(0), 8192, 1024, SmemSwizzle.B128, True)
    mma = k.Mma(acc, acc_index if acc_index is not None else Val.const(0), replace(desc_a, **(a or {})),
                replace(desc_b, **(b or {})), shape or (64, n, 16), dtype)
    body = [k.Allocate(a_tile, Val.const(0)), k.Allocate(b_tile, Val.const(8192)), k.Allocate(acc),
            k.WgmmaFence(), *wrap(mma), k.AsyncCommit(k.AsyncKind.Wgmma), k.AsyncWait(k.AsyncKind.Wgmma, 0),
            s.assign(out, s.TX, s.load(acc, 0))]
    return s.make_kernel("mma_kernel", body, [], [out], (1,), block, smem=16384)


def test_transpose_bits_are_the_operands_major_ness() -> None:
    assert "mmaM64N64K16F32Bf16<0, 1>(" in to_cuda(_mma_kernel())
    assert "mmaM64N64K16F32Bf16<0, 0>(" in to_cuda(_mma_kernel(b={"mn_major": False, "leading_bytes": 16}))
    assert "mmaM64N64K16F32F16<1, 1>(" in to_cuda(_mma_kernel(dtype=F16, a={"mn_major": True}))


def test_descriptor_modes_and_offsets() -> None:
    none = {"swizzle": SmemSwizzle.NONE, "buffer": k.Buffer("T5", BF16, MemoryType.Shared, Val.const(4096))}
    src = to_cuda(_mma_kernel(b=none | {"leading_bytes": 128, "stride_bytes": 256, "offset": Val.const(8)}))
    assert "wgmma::smemDescriptor(toSmem(&T5[8]), 128, 256, 0)" in src
    for swizzle, mode in ((SmemSwizzle.B64, 2), (SmemSwizzle.B32, 3)):
        buf = k.Buffer("T5", BF16, MemoryType.Shared, Val.const(4096), align=1024, swizzle=swizzle)
        src = to_cuda(_mma_kernel(b={"swizzle": swizzle, "buffer": buf}))
        assert f"wgmma::smemDescriptor(toSmem(&T5[0]), 8192, 1024, {mode})" in src


def test_the_accumulator_index_may_use_unrolled_loop_indices() -> None:
    acc = s.local("T3", 128)
    i = Val.symbol("i4")
    kern = _mma_kernel(acc=acc, acc_index=i * 32, wrap=lambda mma: [s.loop("i4", 0, 4, [mma], unroll=True)])
    src = to_cuda(kern)
    assert "wgmma::mmaM64N64K16F32Bf16<0, 1>(&T3[i4 * 32]," in src
    assert "float T3[128];" in src


def test_fence_operands_only_for_accumulators_in_scope() -> None:
    src = body_of(to_cuda(_mma_kernel()))
    assert_in_order(src, "wgmma::fenceOperands(T3);", "wgmma::fence();", "wgmma::mmaM64N64K16F32Bf16",
                    "wgmma::commit();", "wgmma::wait<0>();", "wgmma::fenceOperands(T3);")
    assert src.count("fenceOperands") == 2
    # a wait outside any accumulator's scope fences nothing
    out = s.global_tensor("T2", (s.I0,))
    kern = s.make_kernel("k", [k.AsyncCommit(k.AsyncKind.Wgmma), k.AsyncWait(k.AsyncKind.Wgmma, 1), s.assign(out, 0, s.fconst(1.0))], [], [out], (1,), (128,))
    assert "wgmma::wait<1>();" in to_cuda(kern) and "fenceOperands" not in body_of(to_cuda(kern))


# ---------------------------------------------------------------- the kernel-IR listing
def test_kernel_ir_listing() -> None:
    text = str(s.wgmma_tile().kernel)
    assert_lines = [
        "    fence.proxy.async()",
        "    __syncthreads();  // RAW: the operand tiles are written",
        "    wgmma.fence",
        "    FOR i9 in [0, 4) ():  // unroll",
        ("      T3[0:128] += wgmma.m64n256k16.bf16(A: T4 @ (threadIdx.y * 4096) + (i9 * 16) K-major B128 sbo=1024, "
         "B: T5 @ i9 * 1024 N-major B128 lbo=8192 sbo=1024)"),
        "    wgmma.commit_group",
        "    wgmma.wait_group 0",
    ]
    lines = text.splitlines()
    start = lines.index(assert_lines[0])
    assert lines[start:start + len(assert_lines)] == assert_lines
    no_swizzle = _mma_kernel(dtype=F16, a={"swizzle": SmemSwizzle.NONE, "leading_bytes": 128, "stride_bytes": 256,
                                           "buffer": k.Buffer("T4", F16, MemoryType.Shared, Val.const(4096))})
    assert ("  T3[0:32] += wgmma.m64n64k16.f16(A: T4 @ 0 K-major NONE lbo=128 sbo=256, "
            "B: T5 @ 0 N-major B128 lbo=8192 sbo=1024)") in str(no_swizzle).splitlines()


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize(("kwargs", "message"), [
    ({"n": 12}, r"Mma \(64, 12, 16\) into T3: N is 12; wgmma's N is a multiple of 8 from 8 to 256"),
    ({"n": 264}, r"N is 264; wgmma's N is a multiple of 8 from 8 to 256"),
    ({"shape": (128, 64, 16)}, r"M is 128; a wgmma is 64 rows"),
    ({"shape": (64, 64, 32)}, r"K is 32; a wgmma on BFloat16 operands is k16"),
    ({"dtype": DataType.Float}, r"operand type Float; wgmma is generated for BFloat16 and Half operands"),
    ({"acc": k.Buffer("T3", DataType.Float, MemoryType.Shared, Val.const(32))},
     r"the accumulators are Shared Float; wgmma accumulates into a Local Float \(register\) array"),
    ({"acc": s.local("T3", 32, DataType.Half)}, r"the accumulators are Local Half"),
    ({"acc_index": Val.const(8)}, r"registers T3\[8:40\] \(32 per thread for N = 64\) are out of bounds of T3\[32\]"),
    ({"acc_index": s.TX}, (r"register index threadIdx.x depends on threadIdx.x; it must be a constant once the "
                           r"enclosing loops are unrolled")),
    ({"acc_index": Val.symbol("i4") * 32, "acc": s.local("T3", 128),
      "wrap": lambda mma: [s.loop("i4", 0, 4, [mma])]}, r"depends on i4"),
    ({"acc_index": Val.symbol("i4") * 32, "acc": s.local("T3", 128),
      "wrap": lambda mma: [s.loop("i4", 0, 5, [mma], unroll=True)]}, r"registers T3\[128:160\] .* out of bounds"),
    ({"a": {"buffer": s.local("T4", 4096, BF16)}}, r"operand A \(T4\) of Mma into T3 is in Local memory; wgmma reads its operands from shared memory"),
    ({"b": {"buffer": k.Buffer("T5", F16, MemoryType.Shared, Val.const(4096), align=1024,
                               swizzle=SmemSwizzle.B128)}},
     r"operand B \(T5\) of Mma into T3 holds Half elements, but the Mma multiplies BFloat16"),
    ({"b": {"swizzle": SmemSwizzle.B64}}, r"the descriptor says swizzle B64, but T5 is laid out with swizzle B128"),
    ({"b": {"leading_bytes": 8200}}, r"leading byte offset 8200 is not a multiple of 16 in \[0, 262144\)"),
    ({"a": {"stride_bytes": 1 << 18}}, r"stride byte offset 262144 is not a multiple of 16"),
    ({"a": {"offset": Val.const(4)}}, (r"operand A \(T4\) of Mma into T3 starts at element 4, byte 8; a matrix "
                                       r"descriptor's start address is a multiple of 16 bytes")),
    ({"block": (96,)}, r"the block has 96 threads; wgmma is issued by whole warp groups of 128 threads"),
])
def test_mma_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(CodegenError, match=message):
        to_cuda(_mma_kernel(**kwargs))


def test_unknown_async_kind_names_wgmma() -> None:
    out = s.global_tensor("T2", (s.I0,))
    kern = s.make_kernel("k", [k.AsyncCommit("tensor"), s.assign(out, 0, s.fconst(1.0))], [], [out], (1,), (128,))
    with pytest.raises(CodegenError, match=r"unknown async group kind 'tensor'; the kind is an AsyncKind "
                                           r"\(AsyncKind.CpAsync, AsyncKind.Bulk, AsyncKind.Wgmma\)"):
        to_cuda(kern)


# ---------------------------------------------------------------- nvcc
@needs_nvcc
def test_two_warp_groups_of_128_accumulators_stay_in_registers() -> None:
    resources = compile_check(to_cuda(s.wgmma_tile(256, BF16, 2).kernel))
    assert "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" in resources.log
    assert resources.stack_bytes == 0 and not resources.spills
    assert 128 < resources.registers <= 255


@needs_nvcc
@pytest.mark.parametrize(("n", "dtype", "groups"), SHAPES[:3])
def test_every_shape_compiles_without_spills(n: int, dtype: DataType, groups: int) -> None:
    resources = compile_check(to_cuda(s.wgmma_tile(n, dtype, groups).kernel))
    assert resources.stack_bytes == 0 and not resources.spills


def _descriptor(address: int, leading: int, stride: int, mode: int) -> int:
    """The PTX ISA's matrix descriptor: bits 0-13 start address >> 4, 16-29 leading byte offset >> 4,
    32-45 stride byte offset >> 4, 49-51 base offset (0), 62-63 swizzle mode."""
    return ((address >> 4) & 0x3FFF) | ((leading >> 4) & 0x3FFF) << 16 | ((stride >> 4) & 0x3FFF) << 32 | mode << 62


@needs_nvcc
def test_smem_descriptor_encodes_the_ptx_fields(tmp_path) -> None:
    cases = [(0, 16, 1024, 1), (0x10, 8192, 1024, 1), (0x3A7F0, 0x3FFF0, 0x12340, 3), (65536 + 2048, 128, 256, 0),
             (230000 & ~15, 16, 1024, 2)]
    calls = "\n".join(f'  printf("%llx\\n", (unsigned long long)wgmma::smemDescriptor({a}u, {lb}u, {sb}u, {m}u));'
                      for a, lb, sb, m in cases)
    source = (helpers_source({"wgmma"}) + 'extern "C" int printf(const char*, ...);\n'
              + f"int main() {{\n{calls}\n  return 0;\n}}\n")
    (tmp_path / "desc.cu").write_text(source)
    subprocess.run(["nvcc", *NVCC_ARCH_FLAGS, "-o", str(tmp_path / "desc"), str(tmp_path / "desc.cu")], check=True,
                   capture_output=True, timeout=300)
    out = subprocess.run([str(tmp_path / "desc")], check=True, capture_output=True, text=True, timeout=60).stdout
    assert [int(x, 16) for x in out.split()] == [_descriptor(*case) for case in cases]


# ---------------------------------------------------------------- warp-uniform thread indices
def test_block_rows_of_whole_warps_read_their_thread_index_warp_uniform() -> None:
    from codegen.cuda import warp_uniform_builtins

    assert warp_uniform_builtins((128, 3, 1)) == {"threadIdx.y": "tidY"}
    assert warp_uniform_builtins((32, 2, 4)) == {"threadIdx.y": "tidY", "threadIdx.z": "tidZ"}
    assert warp_uniform_builtins((16, 2, 4)) == {"threadIdx.z": "tidZ"}       # a warp spans two rows
    assert warp_uniform_builtins((16, 16, 1)) == {}
    assert warp_uniform_builtins((128, 1, 1)) == {}
    assert warp_uniform_builtins((None, 3, 1)) == {}


def test_a_wgmma_kernel_reads_its_warp_group_index_by_one_shuffle() -> None:
    src = to_cuda(s.wgmma_tile().kernel)
    body = src[src.index('extern "C" __global__'):]
    assert body.count("threadIdx.y") == 1
    assert "const unsigned tidY = __shfl_sync(0xffffffffu, threadIdx.y, 0);" in body
    assert "toSmem(&T4[(((int64_t)tidY) * 4096) + (i9 * 16)])" in body


def test_a_kernel_without_wgmma_reads_its_thread_index_directly() -> None:
    kernel = s.tma_token_2d().kernel                         # a block of (32, 8): warp-uniform rows, no wgmma
    assert [b.const_value() for b in kernel.block][:2] == [32, 8]
    body = to_cuda(kernel)
    body = body[body.index('extern "C" __global__'):]
    assert "threadIdx.y == 0" in body and "tidY" not in body and "__shfl_sync" not in body


def lower_example(name: str):
    import examples
    from lowering import lower

    return lower(examples.load(name).build())


def _suggested_persistent(m: int, n: int, k: int, kind: str = "plain"):
    """The rules' persistent kernel of an ``m x n x k`` product (plain, or ``kind`` of examples/matmul_epilogue with
    the persistent 256 x 128 tile pinned)."""
    from examples import matmul_epilogue
    from fusion_ir import DataType
    from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
    from lowering import lower
    from runtime.tuning import matmul_fusion

    if kind == "plain":
        fusion = matmul_fusion(m, n, k)
        params = suggest_matmul_params(fusion)
        assert params.persistent and not params.ping_pong, params
    else:
        fusion = matmul_epilogue.fusion_of(kind, (m, n, k))
        params = MatmulParams(tile=(256, 128, 64), warp_specialized=True, tma_store=True, persistent=True, stages=4,
                              index_type=DataType.Int64, epilogue_tile=(256, 32))
    return lower(schedule_matmul(fusion, params))


# the elected thread is lane 0, not elect.sync: with elect.sync in their tile loop, the persistent cooperative
# kernels' descriptors were built per thread (31-32 R2UR per k tile), as were attention's and the sub-tiled epilogue's
UNIFORM_DESCRIPTORS = {
    "matmul_ping_pong": lambda: lower_example("matmul_ping_pong"),
    "matmul_ws_persistent": lambda: lower_example("matmul_ws_persistent"),
    "matmul_epilogue": lambda: lower_example("matmul_epilogue"),
    "attention_wgmma": lambda: lower_example("attention_wgmma"),
    "persistent 256 x 128, 4096^3": lambda: _suggested_persistent(4096, 4096, 4096),
    "persistent 128 x 256, 4128 x 10752 x 2944": lambda: _suggested_persistent(4128, 10752, 2944),
    "persistent gelu(a @ b + bias), 4096^3": lambda: _suggested_persistent(4096, 4096, 4096, "bias_gelu"),
}


@needs_nvcc
@pytest.mark.parametrize("name", sorted(UNIFORM_DESCRIPTORS))
def test_the_wgmma_descriptors_are_computed_in_uniform_registers(name: str) -> None:
    """Between a warp group's wgmma.fence and the wgmmas it issues, no value moves from a thread's registers
    to the uniform ones (R2UR): the descriptors come from the uniform datapath (SASS of nvcc for sm_90a)."""
    if shutil.which("cuobjdump") is None:
        pytest.skip("cuobjdump is not on PATH")
    issue = wgmma_issue(compile_check(to_cuda(UNIFORM_DESCRIPTORS[name]()), sass=True).sass or "")
    assert issue.wgmmas > 0 and issue.moves == 0, f"{name}: {issue}"


def test_wgmma_issue_counts_the_moves_among_a_k_tiles_wgmmas() -> None:
    sass = """
        /*0c30*/                   R2UR UR17, R5 ;
        /*0cf0*/                   WARPGROUP.ARRIVE ;
        /*0d40*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR16].tnspB, R24 ;
        /*0dd0*/                   R2UR UR13, R5 ;
        /*0e20*/              @!P0 R2UR UR12, R4 ;
        /*0e40*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR12].tnspB, R24, gsb0 ;
        /*0e50*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;
        /*0e60*/                   R2UR UR5, R7 ;
    """
    assert wgmma_issue(sass) == WgmmaIssue(wgmmas=2, moves=2)       # not the moves before the fence or after


def test_a_parameter_named_as_the_warp_uniform_index_is_refused() -> None:
    kernel = replace(s.wgmma_tile().kernel, scalars=(k.ScalarParam("tidY", DataType.Float),), scalar_positions=(2,))
    with pytest.raises(CodegenError, match=r"\['tidY'\] name a warp-uniform thread index"):
        to_cuda(kernel)
