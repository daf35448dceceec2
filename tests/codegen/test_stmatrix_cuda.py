"""stmatrix in the generated CUDA: the stmatrixX{1,2,4} call with this lane's shared row address and
its registers packed by value from the Local array, the pasted helper, the errors, and (with nvcc)
a kernel that compiles without warnings, stack frame or spills."""

from __future__ import annotations

import re
import subprocess
from dataclasses import replace

import pytest

from codegen import CodegenError, compile_check, nvcc_available, to_cuda
from codegen.helpers import helper_text
from codegen.nvcc import NVCC_ARCH_FLAGS
from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType
from lowering import kernel_ir as k
from tests.codegen import sample_kernels as s
from tests.codegen.test_cuda import assert_in_order, body_of

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")
BF16, F16 = DataType.BFloat16, DataType.Half
LANE = s.TX % 32
# Lane l addresses row l % 8 of matrix l / 8 of a row-major 16 x 16 tile: matrices 0..3 are the
# tile's top-left, bottom-left, top-right and bottom-right 8 x 8 quarters.
TILE_ROW = ((LANE // 8) % 2 * 8 + LANE % 8) * 16 + (LANE // 16) * 8
PACKED = "(static_cast<uint32_t>((T2[{}]).raw) | (static_cast<uint32_t>((T2[{}]).raw) << 16))"


def stmatrix_tiles(tiles: int = 2, dtype: DataType = BF16, count: int = 4, **fields: object) -> k.Kernel:
    """One warp: T2 (8 registers per tile) from T0, an unrolled loop of stmatrix.x{count} into the
    16 x 16 tiles of shared T1, then a plain copy of T1 to T3. ``fields`` replace the StMatrix's."""
    elements = 8 * tiles
    t0 = s.global_tensor("T0", (s.c(32 * elements),), dtype)
    t3 = s.global_tensor("T3", (s.c(256 * tiles),), dtype)
    tile, regs = s.shared("T1", 256 * tiles, dtype), s.local("T2", elements, dtype)
    i, e, j = s.sym("i4"), s.sym("i5"), s.sym("i6")
    store = k.StMatrix(tile, i * 256 + TILE_ROW, regs, i * 8, count)
    store = replace(store, **fields)  # type: ignore[arg-type]
    body = [
        k.Allocate(tile, s.c(0)),
        k.Allocate(regs),
        s.loop("i5", 0, elements, [s.assign(regs, e, s.load(t0, s.at(t0, s.TX * elements + e)))], unroll=True),
        s.loop("i4", 0, tiles, [store], label="tiles", unroll=True),
        k.FenceAsyncProxy(),
        k.BlockSync("RAW: the stmatrix stores complete before T1 is read"),
        s.loop("i6", 0, 8 * tiles, [s.assign(t3, s.at(t3, j * 32 + s.TX), s.load(tile, j * 32 + s.TX))],
               unroll=True),
    ]
    return s.make_kernel("stmatrix_kernel", body, [t0], [t3], (1,), (32,), smem=512 * tiles)


# ---------------------------------------------------------------- the emitted call
def test_an_unrolled_loop_issues_stmatrix_x4_with_registers_packed_by_value() -> None:
    src = to_cuda(stmatrix_tiles())
    body = body_of(src)
    call = re.search(r"stmatrixX4\(toSmem\(&T1\[(.*)\]\),\n", body)
    assert call is not None, body
    assert "threadIdx.x" in call.group(1) and "i4 * 256" in call.group(1)
    assert_in_order(
        src,
        "__bfloat16 T2[16];",
        "#pragma unroll\n  for (int64_t i4 = 0; i4 < 2; ++i4) {",
        "stmatrixX4(toSmem(&T1[",
        PACKED.format("i4 * 8", "(i4 * 8) + 1") + ",",
        PACKED.format("(i4 * 8) + 2", "(i4 * 8) + 3") + ",",
        PACKED.format("(i4 * 8) + 4", "(i4 * 8) + 5") + ",",
        PACKED.format("(i4 * 8) + 6", "(i4 * 8) + 7") + ");",
        "fenceAsyncProxy();",
        "__syncthreads();  // RAW",
        "T3.data[",
    )
    assert body.count("stmatrixX4(") == 1
    assert not re.search(r"&T2\b", body), "the Local array's address would move it to local memory"


def test_x1_and_x2_pass_one_and_two_registers_of_a_constant_index() -> None:
    one = body_of(to_cuda(stmatrix_tiles(1, F16, 1, src_index=s.c(6), dst_index=TILE_ROW)))
    assert re.search(r"stmatrixX1\(toSmem\(&T1\[[^\n]*\]\),\n *" + re.escape(PACKED.format(6, 7)) + r"\);", one)
    two = body_of(to_cuda(stmatrix_tiles(1, F16, 2, src_index=s.c(4), dst_index=TILE_ROW)))
    assert re.search(r"stmatrixX2\(toSmem\(&T1\[[^\n]*\]\),\n *" + re.escape(PACKED.format(4, 5)) + ",\n *"
                     + re.escape(PACKED.format(6, 7)) + r"\);", two)
    assert "__half T2[8];" in two


def test_the_stmatrix_and_smem_helpers_are_pasted_once() -> None:
    src = to_cuda(stmatrix_tiles())
    head = src[:src.index('extern "C" __global__')]
    assert head.count(helper_text("stmatrix")) == 1
    assert head.index(helper_text("types")) < head.index(helper_text("smem")) < head.index(helper_text("stmatrix"))
    assert "stmatrix" not in to_cuda(s.all_samples()["pointwise"].kernel)


# ---------------------------------------------------------------- errors
def _local(name: str, dtype: DataType = BF16, size: int = 16) -> k.Buffer:
    return k.Buffer(name, dtype, MemoryType.Local, Val.const(size))


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"count": 3}, r"StMatrix from T2 into T1 stores 3 matrices; stmatrix stores 1, 2 or 4"),
    ({"count": 8}, r"stores 8 matrices; stmatrix stores 1, 2 or 4"),
    ({"dst": _local("T2")}, r"the destination is Local; stmatrix stores to shared memory"),
    ({"src": s.shared("T1", 512, BF16)}, r"the source is Shared; stmatrix stores registers \(a Local buffer\)"),
    ({"src": _local("T2", DataType.Float)},
     r"the source holds Float elements; stmatrix stores 16-bit elements \(BFloat16 or Half\)"),
    ({"dst": s.shared("T1", 512, DataType.Int32)}, r"the destination holds Int32 elements; stmatrix stores 16-bit"),
    ({"src": _local("T2", F16)}, r"the destination holds BFloat16 elements but the source Half"),
    ({"dst": s.shared("T1", 512, BF16, align=8)}, (r"T1 is 8-byte aligned; each stmatrix row address "
                                                    r"is a multiple of 16 bytes")),
    ({"dst_index": Val.const(4)}, r"the row starts at element 4, byte 8; stmatrix rows start on 16-byte"),
    ({"src_index": s.TX % 2 * 8}, (r"register index .*threadIdx\.x.* depends on threadIdx\.x; it must be a constant "
                                   r"once the enclosing loops are unrolled .* or nvcc moves T2 to local memory")),
    ({"src_index": s.sym("i4") * 8 + 2}, r"registers T2\[10:18\] \(8 elements for x4\) are out of bounds of T2\[16\]"),
])
def test_stmatrix_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(CodegenError, match=message):
        to_cuda(stmatrix_tiles(**kwargs))


def test_a_src_index_of_a_rolled_loop_is_not_constant() -> None:
    kern = stmatrix_tiles()
    tiles = kern.body[3]
    assert isinstance(tiles, k.ForLoop) and tiles.label == "tiles"
    rolled = replace(kern, body=(*kern.body[:3], replace(tiles, unroll=False), *kern.body[4:]))
    with pytest.raises(CodegenError, match=r"register index i4 \* 8 depends on i4; it must be a constant"):
        to_cuda(rolled)


# ---------------------------------------------------------------- nvcc
@needs_nvcc
@pytest.mark.parametrize(("tiles", "dtype", "count"), [(2, BF16, 4), (1, F16, 2), (1, BF16, 1)])
def test_compiles_without_warnings_stack_frame_or_spills(tiles: int, dtype: DataType, count: int) -> None:
    fields = {} if count == 4 else {"src_index": s.c(0), "dst_index": TILE_ROW}
    resources = compile_check(to_cuda(stmatrix_tiles(tiles, dtype, count, **fields)))
    assert "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" in resources.log
    assert resources.stack_bytes == 0 and not resources.spills


@needs_nvcc
def test_the_ptx_has_one_stmatrix_per_tile_and_no_local_memory(tmp_path) -> None:
    (tmp_path / "stmatrix.cu").write_text(to_cuda(stmatrix_tiles(2)))
    subprocess.run(["nvcc", *NVCC_ARCH_FLAGS, "-ptx", "-o", str(tmp_path / "stmatrix.ptx"),
                    str(tmp_path / "stmatrix.cu")], check=True, capture_output=True, timeout=300)
    ptx = (tmp_path / "stmatrix.ptx").read_text()
    assert len(re.findall(r"stmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16 \[%r\d+\], \{(?:%r\d+, ){3}%r\d+\};",
                          ptx)) == 2
    assert ".local" not in ptx
