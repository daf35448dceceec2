"""ldmatrix in the generated CUDA: the ldmatrixX{1,2,4} call with this lane's shared row address into 32-bit words
of a scope of their own, each split into two 16-bit elements of the Local array (low half first), the pasted
helper, the errors, and (with nvcc) a kernel that compiles without stack frame or spills."""

from __future__ import annotations

import re
import subprocess
from dataclasses import replace

import pytest

from codegen import CodegenError, compile_check, nvcc_available, to_cuda
from codegen.helpers import helper_text
from codegen.nvcc import NVCC_ARCH_FLAGS
from fusion_ir.scalar import Val
from fusion_ir.types import DataType
from lowering import kernel_ir as k
from tests.codegen import sample_kernels as s
from tests.codegen.test_cuda import assert_in_order, body_of
from tests.codegen.test_stmatrix_cuda import TILE_ROW, _local

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")
BF16, F16 = DataType.BFloat16, DataType.Half


def ldmatrix_tiles(tiles: int = 2, dtype: DataType = BF16, count: int = 4, **fields: object) -> k.Kernel:
    """One warp: shared T1 (16 x 16 tiles) from T0, an unrolled loop of ldmatrix.x{count} into T2 (8 registers per
    tile), then T2 to T3. ``fields`` replace the LdMatrix's."""
    elements = 8 * tiles
    t0 = s.global_tensor("T0", (s.c(256 * tiles),), dtype)
    t3 = s.global_tensor("T3", (s.c(32 * elements),), dtype)
    tile, regs = s.shared("T1", 256 * tiles, dtype), s.local("T2", elements, dtype)
    i, e, j = s.sym("i4"), s.sym("i5"), s.sym("i6")
    load = replace(k.LdMatrix(regs, i * 8, tile, i * 256 + TILE_ROW, count), **fields)  # type: ignore[arg-type]
    body = [
        k.Allocate(tile, s.c(0)),
        k.Allocate(regs),
        s.loop("i6", 0, 8 * tiles, [s.assign(tile, j * 32 + s.TX, s.load(t0, s.at(t0, j * 32 + s.TX)))],
               unroll=True),
        k.BlockSync("RAW: T1 is written before the ldmatrix reads it"),
        s.loop("i4", 0, tiles, [load], label="tiles", unroll=True),
        s.loop("i5", 0, elements, [s.assign(t3, s.at(t3, s.TX * elements + e), s.load(regs, e))], unroll=True),
    ]
    return s.make_kernel("ldmatrix_kernel", body, [t0], [t3], (1,), (32,), smem=512 * tiles)


def test_an_unrolled_loop_issues_ldmatrix_x4_into_words_split_into_elements() -> None:
    src = to_cuda(ldmatrix_tiles())
    body = body_of(src)
    call = re.search(r"ldmatrixX4\(toSmem\(&T1\[(.*)\]\), ldm\[0\], ldm\[1\], ldm\[2\], ldm\[3\]\);", body)
    assert call is not None, body
    assert "threadIdx.x" in call.group(1) and "i4 * 256" in call.group(1)
    assert_in_order(
        src,
        "__bfloat16 T2[16];",
        "__syncthreads();  // RAW",
        "for (int64_t i4 = 0; i4 < 2; ++i4) {",
        "uint32_t ldm[4];",
        "ldmatrixX4(toSmem(&T1[",
        "T2[i4 * 8].raw = static_cast<uint16_t>(ldm[0]);",
        "T2[(i4 * 8) + 1].raw = static_cast<uint16_t>(ldm[0] >> 16);",
        "T2[(i4 * 8) + 7].raw = static_cast<uint16_t>(ldm[3] >> 16);",
        "T3.data[",
    )
    assert body.count("ldmatrixX4(") == 1
    assert not re.search(r"&T2\b", body), "the Local array's address would move it to local memory"


def test_x1_and_x2_write_one_and_two_words() -> None:
    one = body_of(to_cuda(ldmatrix_tiles(1, F16, 1, dst_index=s.c(6), src_index=TILE_ROW)))
    assert re.search(r"ldmatrixX1\(toSmem\(&T1\[[^\n]*\]\), ldm\[0\]\);", one)
    assert "T2[7].raw = static_cast<uint16_t>(ldm[0] >> 16);" in one
    two = body_of(to_cuda(ldmatrix_tiles(1, F16, 2, dst_index=s.c(4), src_index=TILE_ROW)))
    assert re.search(r"ldmatrixX2\(toSmem\(&T1\[[^\n]*\]\), ldm\[0\], ldm\[1\]\);", two)
    assert "__half T2[8];" in two


def test_the_ldmatrix_helper_is_pasted_once_after_the_types() -> None:
    src = to_cuda(ldmatrix_tiles())
    head = src[:src.index('extern "C" __global__')]
    assert head.count(helper_text("ldmatrix")) == 1
    assert head.index(helper_text("types")) < head.index(helper_text("ldmatrix"))
    assert "stmatrix" not in head


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"count": 3}, r"LdMatrix from T1 into T2 loads 3 matrices; ldmatrix loads 1, 2 or 4"),
    ({"src": _local("T1")}, r"the source is Local; ldmatrix loads from shared memory"),
    ({"dst": s.shared("T2", 512, BF16)}, r"the destination is Shared; ldmatrix loads registers \(a Local buffer\)"),
    ({"dst": _local("T2", DataType.Float)},
     r"the destination holds Float elements; ldmatrix loads 16-bit elements \(BFloat16 or Half\)"),
    ({"dst": _local("T2", F16)}, r"the destination holds Half elements but the source BFloat16"),
    ({"src": s.shared("T1", 512, BF16, align=8)}, r"T1 is 8-byte aligned; each ldmatrix row address is a multiple"),
    ({"src_index": Val.const(4)}, r"the row starts at element 4, byte 8; ldmatrix rows start on 16-byte"),
    ({"dst_index": s.TX % 2 * 8}, (r"register index .*threadIdx\.x.* depends on threadIdx\.x; it must be a constant "
                                   r"once the enclosing loops are unrolled .* or nvcc moves T2 to local memory")),
    ({"dst_index": s.sym("i4") * 8 + 2}, r"registers T2\[10:18\] \(8 elements for x4\) are out of bounds of T2\[16\]"),
])
def test_ldmatrix_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(CodegenError, match=message):
        to_cuda(ldmatrix_tiles(**kwargs))


@needs_nvcc
@pytest.mark.parametrize(("tiles", "dtype", "count"), [(2, BF16, 4), (1, F16, 2), (1, BF16, 1)])
def test_compiles_without_stack_frame_or_spills(tiles: int, dtype: DataType, count: int) -> None:
    fields = {} if count == 4 else {"dst_index": s.c(0), "src_index": TILE_ROW}
    resources = compile_check(to_cuda(ldmatrix_tiles(tiles, dtype, count, **fields)))
    assert "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" in resources.log
    assert resources.stack_bytes == 0 and not resources.spills


@needs_nvcc
def test_the_ptx_has_one_ldmatrix_per_tile_and_no_local_memory(tmp_path) -> None:
    (tmp_path / "ldmatrix.cu").write_text(to_cuda(ldmatrix_tiles(2)))
    subprocess.run(["nvcc", *NVCC_ARCH_FLAGS, "-ptx", "-o", str(tmp_path / "ldmatrix.ptx"),
                    str(tmp_path / "ldmatrix.cu")], check=True, capture_output=True, timeout=300)
    ptx = (tmp_path / "ldmatrix.ptx").read_text()
    assert len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16 \{(?:%r\d+, ){3}%r\d+\}, \[%r\d+\];",
                          ptx)) == 2
    assert ".local" not in ptx
