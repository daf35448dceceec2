"""Hand-built wgmma matmul kernels for the simulator tests, and their numpy inputs and reference.

``matmul_kernel`` computes ``T2[M, N] = T0[M, K] @ T1[K, N]`` (bf16 or fp16 operands, fp32 out): each
block owns a ``64 * groups`` x ``n`` output tile, warp group ``threadIdx.y`` its 64 rows. Per k tile of
64, the operand tiles are filled (by TMA, or by plain stores through ``swizzle_index`` and a block
sync), then ``wgmma.fence``, four ``m64nNk16`` MMAs (one per k16 step), commit and ``wait_group 0``;
at the end every thread stores the registers it holds where ``wgmma_accumulator`` says.

The shared layouts are written as plain row-major tiles (what TMA writes, box by box) so the
descriptor fields in ``Layout`` are what the test checks against ``wgmma_operand_offset``:

- A: ``[64 * groups][64 k]``, K-major, B128 (rows of 128 bytes); leading 16 (unused), stride 1024.
- B, ``Layout.mn(swizzle)``: N-major chunks ``[n / W][64 k][W n]`` with ``W`` the elements of one
  swizzle row (8 for no swizzle: 16-byte rows); leading = chunk bytes and stride = 8 rows for a
  swizzle, the other way round without one (core matrices: leading = 8 k rows, stride = chunk).
- B, ``Layout.k()``: K-major ``[n][64 k]`` B128, like A (filled by stores only: TMA cannot transpose).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fusion_ir.reference import round_bf16
from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType, SmemSwizzle
from lowering import kernel_ir as k
from lowering.layout import swizzle_index, wgmma_accumulator
from tests.runtime.kir_builders import BX, FLOAT, INT64, TX, TY, assign, c, elect, for_, global_2d, kernel, load, sym

BF16, F16 = DataType.BFloat16, DataType.Half
BY = Val.symbol("blockIdx.y")
KT = 64            # k elements per tile: one 128-byte swizzle row of bf16/fp16
K16 = 16           # k elements per wgmma
ACC_INDEX = c(0)


def at(buf: k.Buffer, *index: Val) -> Val:
    out = c(0)
    for idx, stride in zip(index, buf.strides):
        out = out + idx * stride
    return out


@dataclass(frozen=True)
class Layout:
    """A B tile's shared-memory layout and the descriptor fields that describe it."""

    mn_major: bool
    swizzle: SmemSwizzle

    @classmethod
    def mn(cls, swizzle: SmemSwizzle = SmemSwizzle.B128) -> Layout:
        return cls(True, swizzle)

    @classmethod
    def k(cls) -> Layout:
        return cls(False, SmemSwizzle.B128)

    def width(self, element_bytes: int) -> int:
        """Elements of n in one row of the tile."""
        return (self.swizzle.span or 16) // element_bytes if self.mn_major else KT

    def fields(self, element_bytes: int) -> tuple[int, int, int]:
        """(leading bytes, stride bytes, elements the start advances per k16 step)."""
        if not self.mn_major:
            return 16, 8 * KT * element_bytes, K16
        w = self.width(element_bytes)
        row = w * element_bytes
        chunk = KT * row
        if self.swizzle is SmemSwizzle.NONE:
            return 8 * row, chunk, K16 * w
        return chunk, 8 * row, K16 * w

    def source(self, e: Val, n: int, element_bytes: int) -> tuple[Val, Val]:
        """(k, n) in the B tile of row-major tile element ``e``."""
        if not self.mn_major:
            return e % KT, e // KT
        w = self.width(element_bytes)
        return (e // w) % KT, e // (KT * w) * w + e % w

    def describe(self) -> str:
        return f"{'mn' if self.mn_major else 'k'}-{self.swizzle.name}"


@dataclass(frozen=True)
class Spec:
    n: int = 64
    groups: int = 1
    k_tiles: int = 1
    dtype: DataType = BF16
    b: Layout = Layout(True, SmemSwizzle.B128)
    fill: str = "tma"      # "tma" | "stores"
    grid: tuple[int, int] = (1, 1)   # (N / n, M / (64 groups)) blocks

    @property
    def shapes(self) -> tuple[tuple[int, int], tuple[int, int]]:
        m, kk, n = self.grid[1] * 64 * self.groups, self.k_tiles * KT, self.grid[0] * self.n
        return (m, kk), (kk, n)


def operands(spec: Spec) -> tuple[k.Buffer, k.Buffer]:
    """The shared A and B tiles of a spec's kernel (names T3 and T4)."""
    a = k.Buffer("T3", spec.dtype, MemoryType.Shared, c(64 * spec.groups * KT), align=1024, swizzle=SmemSwizzle.B128)
    b = k.Buffer("T4", spec.dtype, MemoryType.Shared, c(KT * spec.n), align=max(spec.b.swizzle.alignment, 128),
                 swizzle=spec.b.swizzle)
    return a, b


def descriptors(spec: Spec, step: Val) -> tuple[k.MatrixDescriptor, k.MatrixDescriptor]:
    """The A and B descriptors of k16 step ``step``; warp group ``threadIdx.y`` reads its 64 rows of A."""
    size = spec.dtype.size
    sa, sb = operands(spec)
    a = k.MatrixDescriptor(sa, TY * (64 * KT) + step * K16, 16, 8 * KT * size, SmemSwizzle.B128, False)
    lead, stride, advance = spec.b.fields(size)
    b = k.MatrixDescriptor(sb, step * advance, lead, stride, spec.b.swizzle, spec.b.mn_major)
    return a, b


def store_fill(spec: Spec, a_g: k.Buffer, b_g: k.Buffer, kt: Val) -> list[k.Node]:
    """Every thread stores its share of k tile ``kt`` of both operands through ``swizzle_index``, then a block sync."""
    size, rows, threads = spec.dtype.size, 64 * spec.groups, 128 * spec.groups
    sa, sb = operands(spec)
    tid, row0 = TX + TY * 128, BY * rows
    ia, ib = sym("ia"), sym("ib")
    ea, eb = ia * threads + tid, ib * threads + tid
    kb, nb = spec.b.source(eb, spec.n, size)
    return [
        for_("ia", 0, rows * KT // threads, [
            assign(sa, swizzle_index(ea, SmemSwizzle.B128, size), load(a_g, at(a_g, row0 + ea // KT, kt * KT + ea % KT)))]),
        for_("ib", 0, KT * spec.n // threads, [
            assign(sb, swizzle_index(eb, spec.b.swizzle, size), load(b_g, at(b_g, kt * KT + kb, BX * spec.n + nb)))]),
        k.FenceAsyncProxy(),
        k.BlockSync("RAW: the operand tiles are stored"),
    ]


def matmul_kernel(spec: Spec, *, store: Callable[[Val, Val], tuple[Val, Val]] | None = None,
                  wait: list[k.Node] | None = None, after_store: list[k.Node] = ()) -> k.Kernel:  # type: ignore[assignment]
    """The kernel of ``spec`` (see the module docstring). ``store(thread, register) -> (row, col)`` replaces
    the fragment layout of the final stores, ``wait`` the ``wait_group 0`` after each k tile's MMAs, and
    ``after_store`` runs after the final stores."""
    dtype, n, groups, size = spec.dtype, spec.n, spec.groups, spec.dtype.size
    rows = 64 * groups
    if n % spec.b.width(size) if spec.b.mn_major else n % 8:
        raise ValueError(f"n = {n} is not whole rows of the {spec.b.describe()} layout")
    a_g, b_g = global_2d("T0", ("i0", "i1"), dtype), global_2d("T1", ("i1", "i2"), dtype)
    out = global_2d("T2", ("i0", "i2"), FLOAT)
    sa, sb = operands(spec)
    acc = k.Buffer("T5", FLOAT, MemoryType.Local, c(n // 2))
    mbar = k.Buffer("T6", INT64, MemoryType.Shared, c(1), align=8)
    kt = sym("kt")
    row0 = BY * rows

    tensor_maps: tuple[k.TensorMapParam, ...] = ()
    if spec.fill == "tma":
        if not spec.b.mn_major:
            raise ValueError("TMA cannot fill a K-major B from a row-major [K, N] tensor")
        w = spec.b.width(size)
        tmap_a = k.TensorMapParam("tmap_T0", a_g, (KT, rows), swizzle=SmemSwizzle.B128)
        tmap_b = k.TensorMapParam("tmap_T1", b_g, (w, KT), swizzle=spec.b.swizzle)
        tensor_maps = (tmap_a, tmap_b)
        nbytes = (rows * KT + KT * n) * size
        fill: list[k.Node] = [
            elect([k.MBarrierArriveExpectTx(mbar, c(0), c(nbytes)),
                   k.TmaLoad(sa, c(0), tmap_a, (row0, kt * KT), mbar, c(0)),
                   *[k.TmaLoad(sb, c(j * KT * w), tmap_b, (kt * KT, BX * n + j * w), mbar, c(0))
                     for j in range(n // w)]]),
            k.MBarrierWaitParity(mbar, c(0), kt % 2),
        ]
    elif spec.fill == "stores":
        fill = store_fill(spec, a_g, b_g, kt)
    else:
        raise ValueError(spec.fill)

    step = sym("s")
    da, db = descriptors(spec, step)
    r0, r1 = sym("r0"), sym("r1")
    row, col = (store or wgmma_accumulator)(TX, r1)
    body: list[k.Node] = [
        k.Allocate(sa), k.Allocate(sb), k.Allocate(acc),
        *([k.Allocate(mbar), elect([k.MBarrierInit(mbar, c(0), c(1))]), k.BlockSync("init: mbarrier")]
          if spec.fill == "tma" else []),
        for_("r0", 0, n // 2, [assign(acc, r0, k.Const(0.0, FLOAT))], unroll=True),
        for_("kt", 0, spec.k_tiles, [
            *fill,
            k.WgmmaFence(),
            for_("s", 0, KT // K16, [k.Mma(acc, ACC_INDEX, da, db, (64, n, K16), dtype)], unroll=True),
            k.AsyncCommit(k.AsyncKind.Wgmma),
            *(wait if wait is not None else [k.AsyncWait(k.AsyncKind.Wgmma, 0)]),
            k.BlockSync("WAR: the next k tile refills the operands"),
        ]),
        for_("r1", 0, n // 2, [assign(out, at(out, row0 + TY * 64 + row, BX * n + col), load(acc, r1))],
             unroll=True),
        *after_store,
        *([k.BlockSync("every wait done before inval"), elect([k.MBarrierInval(mbar, c(0))])]
          if spec.fill == "tma" else []),
    ]
    smem = sum(int(b.size.const_value()) * b.dtype.size for b in (sa, sb, mbar))
    return kernel(body, [a_g, b_g], [out], spec.grid, (128, groups), tensor_maps=tensor_maps, smem=smem)


def inputs(spec: Spec, seed: int = 0) -> list[np.ndarray]:
    """Random operands of the spec's shapes: float32 holding bf16 values, or float16."""
    rng = np.random.default_rng(seed)
    out = []
    for shape in spec.shapes:
        x = rng.standard_normal(shape).astype(np.float32)
        out.append(x.astype(np.float16) if spec.dtype is F16 else round_bf16(x))
    return out


def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a.astype(np.float64) @ b.astype(np.float64)


def relative_error(y: np.ndarray, ref: np.ndarray) -> float:
    """Largest error relative to the largest reference magnitude (NaN anywhere is infinite error)."""
    if np.isnan(y).any():
        return float("inf")
    return float(np.abs(y - ref).max() / np.abs(ref).max())


def two_groups_kernel(n: int = 64) -> k.Kernel:
    """Two commit groups into two halves of one accumulator buffer, then ``wait_group 1`` and ``0``.

    Group 0 is ``A[:, 0:16] @ B[0:16]`` into registers ``[0, n/2)``, group 1 ``A[:, 16:32] @ B[16:32]``
    into ``[n/2, n)``. After ``wait_group 1`` the fragments go to T7 (group 0) and T8 (group 1, still in
    flight: NaN); after ``wait_group 0`` group 1 goes to T9.
    """
    spec = Spec(n=n, fill="stores")
    a_g, b_g = global_2d("T0", ("i0", "i1"), spec.dtype), global_2d("T1", ("i1", "i2"), spec.dtype)
    outs = [global_2d(name, ("i0", "i2"), FLOAT) for name in ("T7", "T8", "T9")]
    sa, sb = operands(spec)
    acc = k.Buffer("T5", FLOAT, MemoryType.Local, c(n))
    regs = n // 2
    r = sym("r1")
    row, col = wgmma_accumulator(TX, r)

    def store(out: k.Buffer, first: int) -> k.ForLoop:
        return for_("r1", 0, regs, [assign(out, at(out, row, col), load(acc, r + first))], unroll=True)

    mmas = []
    for group in range(2):
        da, db = descriptors(spec, c(group))
        mmas += [k.Mma(acc, c(group * regs), da, db, (64, n, K16), spec.dtype), k.AsyncCommit(k.AsyncKind.Wgmma)]
    body: list[k.Node] = [
        k.Allocate(sa), k.Allocate(sb), k.Allocate(acc),
        for_("r0", 0, n, [assign(acc, sym("r0"), k.Const(0.0, FLOAT))], unroll=True),
        *store_fill(spec, a_g, b_g, c(0)),
        k.WgmmaFence(),
        *mmas,
        k.AsyncWait(k.AsyncKind.Wgmma, 1),
        store(outs[0], 0), store(outs[1], regs),
        k.AsyncWait(k.AsyncKind.Wgmma, 0),
        store(outs[2], regs),
    ]
    return kernel(body, [a_g, b_g], outs, (1, 1), (128,))
