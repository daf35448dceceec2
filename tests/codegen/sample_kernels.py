"""Hand-built kernel IR for the codegen and executor tests, each with its numpy reference.

Every builder returns a ``Sample``: the kernel, a function computing the expected outputs from
the inputs, and a function making inputs of a given size (sizes include non-divisible ones).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fusion_ir.reference import as_stored
from fusion_ir.scalar import Val, ceil_div
from fusion_ir.types import DataType, MemoryType, ParallelType, SmemSwizzle
from lowering import kernel_ir as k
from lowering.analysis.tma import stride_requirements
from lowering.layout import swizzle_index, wgmma_accumulator

F32, I64 = DataType.Float, DataType.Int64
TX, TY = Val.symbol("threadIdx.x"), Val.symbol("threadIdx.y")
BX, BY = Val.symbol("blockIdx.x"), Val.symbol("blockIdx.y")
I0, I1 = Val.symbol("i0"), Val.symbol("i1")


@dataclass(frozen=True)
class Sample:
    kernel: k.Kernel
    reference: Callable[..., list[np.ndarray]]
    make_inputs: Callable[[int, np.random.Generator], list[np.ndarray]]
    sizes: tuple[int, ...]


# ---------------------------------------------------------------- builders
def c(x: int) -> Val:
    return Val.const(x)


def sym(name: str) -> Val:
    return Val.symbol(name)


def global_tensor(name: str, shape: tuple[Val, ...], dtype: DataType = F32) -> k.Buffer:
    size = c(1)
    for s in shape:
        size = size * s
    strides = tuple(sym(f"{name}_stride{d}") for d in range(len(shape)))
    return k.Buffer(name, dtype, MemoryType.Global, size, shape, strides, is_param=True)


def shared(name: str, size: int, dtype: DataType = F32, align: int = 16) -> k.Buffer:
    return k.Buffer(name, dtype, MemoryType.Shared, c(size), align=align)


def local(name: str, size: int, dtype: DataType = F32) -> k.Buffer:
    return k.Buffer(name, dtype, MemoryType.Local, c(size))


def at(buf: k.Buffer, *index: Val) -> Val:
    """Element offset of a global tensor through its stride symbols."""
    out = c(0)
    for idx, stride in zip(index, buf.strides):
        out = out + idx * stride
    return out


def load(buf: k.Buffer, index: Val | int) -> k.Load:
    return k.Load(buf, index if isinstance(index, Val) else c(index))


def assign(buf: k.Buffer, index: Val | int, value: k.Value, **kw: object) -> k.Assign:
    return k.Assign(buf, index if isinstance(index, Val) else c(index), value, **kw)  # type: ignore[arg-type]


def fconst(x: float) -> k.Const:
    return k.Const(x, F32)


def binary(op: str, a: k.Value, b: k.Value, dtype: DataType = F32) -> k.BinaryValue:
    return k.BinaryValue(op, a, b, dtype)


def loop(index: str, start: Val | int, stop: Val | int, body: list[k.Node], **kw: object) -> k.ForLoop:
    start = start if isinstance(start, Val) else c(start)
    stop = stop if isinstance(stop, Val) else c(stop)
    return k.ForLoop(sym(index), start, stop, tuple(body), **kw)  # type: ignore[arg-type]


def if_(cond: Val, then: list[k.Node], else_: list[k.Node] | None = None) -> k.IfThenElse:
    return k.IfThenElse(cond, tuple(then), tuple(else_ or ()))


def make_kernel(name: str, body: list[k.Node], inputs: list[k.Buffer], outputs: list[k.Buffer],
                grid: tuple, block: tuple, *, smem: int | Val = 0, tensor_maps: tuple = (), checks: tuple = (),
                launch_bounds: int | None = None) -> k.Kernel:
    def dims(t: tuple) -> tuple[Val, Val, Val]:
        vals = [x if isinstance(x, Val) else c(x) for x in t]
        return tuple(vals + [c(1)] * (3 - len(vals)))  # type: ignore[return-value]

    # the rules lowering records for each tensor map (TMA's 16-byte strides), as a lowered kernel has them
    requirements = tuple(r for m in tensor_maps for r in stride_requirements(m))
    return k.Kernel(name, tuple(body), tuple(inputs), tuple(outputs), tuple(tensor_maps), dims(grid), dims(block),
                    smem if isinstance(smem, Val) else c(smem), tuple(checks), launch_bounds,
                    launch_requirements=requirements)


def uniform(shape: tuple[int, ...], rng: np.random.Generator, dtype: object = np.float32) -> np.ndarray:
    return rng.uniform(-2.0, 2.0, size=shape).astype(dtype)


# ---------------------------------------------------------------- pointwise
def pointwise() -> Sample:
    """T2 = exp(T0 + T1) * 0.5 over a 2-D grid: columns by BIDx/TIDx, rows by BIDy."""
    t0, t1 = global_tensor("T0", (I0, I1)), global_tensor("T1", (I0, I1))
    t2 = global_tensor("T2", (I0, I1))
    col, row = BX * 128 + TX, BY
    value = binary("mul", k.UnaryValue("exp", binary("add", load(t0, at(t0, row, col)), load(t1, at(t1, row, col))),
                                       F32), fconst(0.5))
    body = [if_(col.lt(I1), [assign(t2, at(t2, row, col), value)])]
    kern = make_kernel("pointwise_kernel", body, [t0, t1], [t2], (ceil_div(I1, 128), I0), (128,))
    return Sample(kern, lambda a, b: [np.exp(a + b) * np.float32(0.5)],
                  lambda n, rng: [uniform((3, n), rng), uniform((3, n), rng)], (1, 300, 1024))


def vectorized_add() -> Sample:
    """T2 = T0 + T1 with 16-byte vector loads and stores through registers; needs i0 % 4 == 0."""
    t0, t1, t2 = (global_tensor(n, (I0,)) for n in ("T0", "T1", "T2"))
    a, b, out = local("T3", 4), local("T4", 4), local("T5", 4)
    base = (BX * 128 + TX) * 4
    body = [
        k.Allocate(a), k.Allocate(b), k.Allocate(out),
        if_(base.lt(I0), [
            assign(a, 0, load(t0, base), vector=4),
            assign(b, 0, load(t1, base), vector=4),
            loop("i3", 0, 4, [assign(out, sym("i3"), binary("add", load(a, sym("i3")), load(b, sym("i3"))))],
                 label="iV5{4}", unroll=True),
            assign(t2, base, load(out, 0), vector=4),
        ]),
    ]
    checks = (k.RuntimeCheck((I0 % 4).eq(0), "vectorized by 4: i0 must be a multiple of 4"),
              k.RuntimeCheck(sym("T0_stride0").eq(1).logical_and(sym("T1_stride0").eq(1)),
                             "vectorized by 4: T0 and T1 must be contiguous"))
    kern = make_kernel("vectorized_add_kernel", body, [t0, t1], [t2], (ceil_div(I0, 512),), (128,), checks=checks)
    return Sample(kern, lambda x, y: [x + y], lambda n, rng: [uniform((n,), rng), uniform((n,), rng)],
                  (4, 1000, 4096))


def cast_kernel(in_dtype: DataType, out_dtype: DataType) -> Sample:
    """T2 = 1 - T0 computed in ``out_dtype`` from an ``in_dtype`` input (16-bit types compute in float)."""
    t0, t2 = global_tensor("T0", (I0,), in_dtype), global_tensor("T2", (I0,), out_dtype)
    gid = BX * 128 + TX
    x = k.CastValue(load(t0, at(t0, gid)), out_dtype)
    value = binary("add", k.UnaryValue("neg", x, out_dtype), k.Const(1.0, out_dtype), out_dtype)
    body = [if_(gid.lt(I0), [assign(t2, at(t2, gid), value)])]
    kern = make_kernel(f"cast_{in_dtype.short_name}_to_{out_dtype.short_name}", body, [t0], [t2],
                       (ceil_div(I0, 128),), (128,))
    np_out = np.dtype(out_dtype.numpy_name) if out_dtype != DataType.BFloat16 else None
    return Sample(kern, lambda a: [(1 - a.astype(np.float32)).astype(np_out) if np_out else 1 - a],
                  lambda n, rng: [uniform((n,), rng, in_dtype.numpy_name)], (1, 1000))


# ---------------------------------------------------------------- shared memory
def smem_rotate() -> Sample:
    """Each block stages 128 elements in shared memory and writes them rotated by one, times 2.

    The shared buffer has no offset: codegen places it.
    """
    t0, t2 = global_tensor("T0", (I0,)), global_tensor("T2", (I0,))
    tile = shared("T1", 128)
    gid = BX * 128 + TX
    body = [
        k.Allocate(tile),
        if_(gid.lt(I0), [assign(tile, TX, load(t0, at(t0, gid)))], [assign(tile, TX, fconst(0.0))]),
        k.BlockSync("RAW: T1 written, then read by another thread"),
        if_(gid.lt(I0), [assign(t2, at(t2, gid), binary("mul", load(tile, (TX + 1) % 128), fconst(2.0)))]),
    ]
    kern = make_kernel("smem_rotate_kernel", body, [t0], [t2], (ceil_div(I0, 128),), (128,), smem=512)

    def reference(a: np.ndarray) -> list[np.ndarray]:
        n = a.shape[0]
        padded = np.zeros(-(-n // 128) * 128, dtype=np.float32)
        padded[:n] = a
        return [(np.roll(padded.reshape(-1, 128), -1, axis=1) * 2).reshape(-1)[:n]]

    return Sample(kern, reference, lambda n, rng: [uniform((n,), rng)], (1, 200, 1024))


def block_reduce(op: str = "add") -> Sample:
    """Row reduction of T0 [i0, i1]: 32 threads (TIDx) per row, 4 rows (TIDy) per block."""
    t0, t2 = global_tensor("T0", (I0, I1)), global_tensor("T2", (I0,))
    acc, result = local("T3", 1), local("T4", 1)
    workspace = shared("T5", 128, I64)
    row = BX * 4 + TY
    col = sym("i6") * 32 + TX
    init = 0.0 if op == "add" else float("-inf")
    binop = "add" if op == "add" else "maximum"
    body = [
        k.Allocate(workspace), k.Allocate(acc), k.Allocate(result),
        assign(acc, 0, fconst(init)),
        loop("i6", 0, ceil_div(I1, 32), [
            if_(row.lt(I0).logical_and(col.lt(I1)),
                [assign(acc, 0, binary(binop, load(acc, 0), load(t0, at(t0, row, col))))]),
        ], label="rS6{ceilDiv(i1, 32)}"),
        k.BlockReduce(result, c(0), load(acc, 0), op, (ParallelType.TIDx,), init, workspace),
        if_(TX.eq(0).logical_and(row.lt(I0)), [assign(t2, at(t2, row), load(result, 0))]),
    ]
    kern = make_kernel(f"block_reduce_{op}_kernel", body, [t0], [t2], (ceil_div(I0, 4),), (32, 4), smem=1024)
    ref = (lambda a: [a.sum(axis=1)]) if op == "add" else (lambda a: [a.max(axis=1)])
    return Sample(kern, ref, lambda n, rng: [uniform((n, 77), rng)], (1, 5, 64))


# ---------------------------------------------------------------- TMA
def _tma_map(name: str, tensor: k.Buffer, box: tuple[int, ...]) -> k.TensorMapParam:
    return k.TensorMapParam(name, tensor, box)


def tma_circular_buffer(stages: int = 3, box: int = 128) -> Sample:
    """The seed's circular-buffer kernel: 1-D TMA tiles of ``box`` floats through ``stages`` stages.

    Pre-prologue (mbarrier init), prologue (prefetch = stages - 1 loads), main loop (load tile
    i + prefetch, wait on tile i with parity (i / stages) % 2, compute, WAR sync), epilogue,
    post-epilogue (inval). One block walks every tile.
    """
    prefetch = stages - 1
    t0, t2 = global_tensor("T0", (I0,)), global_tensor("T2", (I0,))
    tmap = _tma_map("tmap_T0", t0, (box,))
    tile = shared("T1", box * stages, align=128)
    mbar = shared("T4", stages, I64, align=8)
    n = ceil_div(I0, box)
    i, s = sym("i7"), sym("i8")
    tx_bytes = c(box * 4)

    def issue(tile_index: Val) -> k.ElectSync:
        stage = tile_index % stages
        return k.ElectSync((
            k.MBarrierArriveExpectTx(mbar, stage, tx_bytes),
            k.TmaLoad(tile, stage * box, tmap, (tile_index * box,), mbar, stage),
        ))

    def compute(tile_index: Val) -> list[k.Node]:
        gid = tile_index * box + TX
        return [
            k.MBarrierWaitParity(mbar, tile_index % stages, (tile_index // stages) % 2),
            if_(gid.lt(I0), [assign(t2, at(t2, gid), binary("add", binary("mul", load(tile, (tile_index % stages)
                                                                                   * box + TX), fconst(2.0)),
                                                           fconst(1.0)))]),
        ]

    label = f"iS3{{ceilDiv(i0, {box})}}"
    body = [
        k.Allocate(tile, c(0)), k.Allocate(mbar, c(box * 4 * stages)),
        k.ElectSync((loop("i5", 0, stages, [k.MBarrierInit(mbar, sym("i5"), c(1))], stage=k.Stage.PrePrologue),)),
        k.BlockSync("init: mbarriers visible to all threads"),
        loop("i6", 0, prefetch, [issue(sym("i6"))], label=label, stage=k.Stage.Prologue, unroll=True),
        loop("i7", 0, n - prefetch, [issue(i + prefetch), *compute(i),
                                     k.BlockSync("WAR: stage i % S is loaded again next iteration")],
             label=label, stage=k.Stage.Main),
        loop("i8", n - prefetch, n, compute(s), label=label, stage=k.Stage.Epilogue),
        k.BlockSync("every wait done before inval"),
        k.ElectSync((loop("i9", 0, stages, [k.MBarrierInval(mbar, sym("i9"))], stage=k.Stage.PostEpilogue),)),
    ]
    checks = (k.RuntimeCheck(n.ge(stages), f"T1: the circular-buffered loop over ceilDiv(i0, {box}) tiles fails "
                                           f"to fill the circular buffer pipeline of {stages} stages",
                            k.InputRule.PIPELINE_FILL, "T1"),)
    kern = make_kernel(f"tma_circular_buffer_{stages}_kernel", body, [t0], [t2], (1,), (box,),
                       smem=box * 4 * stages + 8 * stages, tensor_maps=(tmap,), checks=checks)
    return Sample(kern, lambda a: [a * np.float32(2) + np.float32(1)], lambda n_, rng: [uniform((n_,), rng)],
                  (box * stages, 1000, 5000))


def tma_token_2d() -> Sample:
    """A non-circular 2-D TMA load in the token form: init, arriveExpectTx -> token, wait(token), inval.

    Each block loads one 8 x 32 box of T0 [i0, i1] and writes T2 = T0 + 1.
    """
    t0, t2 = global_tensor("T0", (I0, I1)), global_tensor("T2", (I0, I1))
    tmap = _tma_map("tmap_T0", t0, (32, 8))
    tile = shared("T1", 256, align=128)
    mbar = shared("T4", 1, I64, align=8)
    token = local("T5", 1, I64)
    row, col = BY * 8 + TY, BX * 32 + TX
    body = [
        k.Allocate(tile, c(0)), k.Allocate(mbar, c(1024)), k.Allocate(token),
        k.ElectSync((k.MBarrierInit(mbar, c(0), c(1)),)),
        k.BlockSync("init"),
        k.ElectSync((
            k.MBarrierArriveExpectTx(mbar, c(0), c(1024), token, c(0)),
            k.TmaLoad(tile, c(0), tmap, (BY * 8, BX * 32), mbar, c(0)),
            k.MBarrierWait(mbar, c(0), token, c(0)),
        )),
        k.BlockSync("RAW: the elected thread saw the copy complete"),
        if_(row.lt(I0).logical_and(col.lt(I1)),
            [assign(t2, at(t2, row, col), binary("add", load(tile, TY * 32 + TX), fconst(1.0)))]),
        k.BlockSync("every read done before inval"),
        k.ElectSync((k.MBarrierInval(mbar, c(0)),)),
    ]
    kern = make_kernel("tma_token_2d_kernel", body, [t0], [t2], (ceil_div(I1, 32), ceil_div(I0, 8)), (32, 8),
                       smem=1032, tensor_maps=(tmap,))
    # TMA needs row strides that are multiples of 16 bytes: widths are multiples of 4 floats.
    return Sample(kern, lambda a: [a + np.float32(1)], lambda n, rng: [uniform((n, 4 * n + 4), rng)], (1, 7, 33))


def tma_store() -> Sample:
    """Stage T0 * 2 in shared memory with ordinary stores, then write it with a 2-D TMA store."""
    t0, t2 = global_tensor("T0", (I0, I1)), global_tensor("T2", (I0, I1))
    tmap = _tma_map("tmap_T2", t2, (32, 8))
    tile = shared("T1", 256, align=128)
    row, col = BY * 8 + TY, BX * 32 + TX
    body = [
        k.Allocate(tile, c(0)),
        if_(row.lt(I0).logical_and(col.lt(I1)),
            [assign(tile, TY * 32 + TX, binary("mul", load(t0, at(t0, row, col)), fconst(2.0)))],
            [assign(tile, TY * 32 + TX, fconst(0.0))]),
        k.FenceAsyncProxy(),
        k.BlockSync("RAW: T1 complete before the TMA store reads it"),
        k.ElectSync((
            k.TmaStore(tile, c(0), tmap, (BY * 8, BX * 32)),
            k.AsyncCommit(k.AsyncKind.Bulk),
            k.AsyncWait(k.AsyncKind.Bulk, 0),
        )),
    ]
    kern = make_kernel("tma_store_kernel", body, [t0], [t2], (ceil_div(I1, 32), ceil_div(I0, 8)), (32, 8),
                       smem=1024, tensor_maps=(tmap,))
    return Sample(kern, lambda a: [a * np.float32(2)], lambda n, rng: [uniform((n, 4 * n + 4), rng)], (1, 9, 40))


def warp_specialized(stages: int = 3) -> Sample:
    """A warp-specialized TMA pipeline with register sharing.

    Block (128, 3): threadIdx.y == 2 is the AsyncWarp (setmaxnreg.dec 40, issues TMA of 256-float
    tiles after waiting on the stage's "empty" barrier), the other two rows are the ComputeWarp
    (setmaxnreg.inc 232, wait "full", compute, arrive "empty").
    """
    box = 256
    t0, t2 = global_tensor("T0", (I0,)), global_tensor("T2", (I0,))
    tmap = _tma_map("tmap_T0", t0, (box,))
    tile = shared("T1", box * stages, align=128)
    mbar = shared("T4", 2 * stages, I64, align=8)  # [0, S): full (RAW), [S, 2S): empty (WAR)
    n = ceil_div(I0, box)
    i, j = sym("i7"), sym("i8")
    compute_tid = TX + TY * 128
    gid = j * box + compute_tid
    body = [
        k.Allocate(tile, c(0)), k.Allocate(mbar, c(box * 4 * stages)),
        k.ElectSync((loop("i5", 0, stages, [k.MBarrierInit(mbar, sym("i5"), c(1)),
                                           k.MBarrierInit(mbar, sym("i5") + stages, c(256))],
                          stage=k.Stage.PrePrologue),), warp=c(0)),
        k.BlockSync("init"),
        if_(TY.eq(2), [
            k.SetMaxNReg(40, increase=False),
            # the AsyncWarp's first warp: thread (0, 2) is linear thread 256, warp 8
            loop("i7", 0, n, [k.ElectSync((
                k.MBarrierWaitParity(mbar, i % stages + stages, (i // stages + 1) % 2),
                k.MBarrierArriveExpectTx(mbar, i % stages, c(box * 4)),
                k.TmaLoad(tile, (i % stages) * box, tmap, (i * box,), mbar, i % stages),
            ), warp=c(8))], label="iS3{ceilDiv(i0, 256)}", stage=k.Stage.AsyncWarp),
            k.Return(),
        ], [
            k.SetMaxNReg(232, increase=True),
            loop("i8", 0, n, [
                k.MBarrierWaitParity(mbar, j % stages, (j // stages) % 2),
                if_(gid.lt(I0), [assign(t2, at(t2, gid), binary("mul", load(tile, (j % stages) * box + compute_tid),
                                                                fconst(3.0)))]),
                k.MBarrierArrive(mbar, j % stages + stages),
            ], label="iS3{ceilDiv(i0, 256)}", stage=k.Stage.ComputeWarp),
        ]),
        # the ComputeWarp invalidates the barriers once every wait is done (the AsyncWarp has returned)
        k.BlockSync("every wait done before inval"),
        k.ElectSync((loop("i9", 0, 2 * stages, [k.MBarrierInval(mbar, sym("i9"))], stage=k.Stage.PostEpilogue),),
                    warp=c(0)),
    ]
    kern = make_kernel("warp_specialized_kernel", body, [t0], [t2], (1,), (128, 3), smem=box * 4 * stages + 16 * stages,
                       tensor_maps=(tmap,), launch_bounds=384)
    return Sample(kern, lambda a: [a * np.float32(3)], lambda n_, rng: [uniform((n_,), rng)], (1, 256, 3000))


def cp_async_copy() -> Sample:
    """cp.async 16-byte copies global -> shared (zero-filled past the end), commit, wait, use."""
    t0, t2 = global_tensor("T0", (I0,)), global_tensor("T2", (I0,))
    tile = shared("T1", 256, align=16)
    base = (BX * 64 + TX) * 4
    body = [
        k.Allocate(tile, c(0)),
        k.CpAsync(tile, TX * 4, t0, base, vector=4, pred=base.lt(I0)),
        k.AsyncCommit(k.AsyncKind.CpAsync),
        k.AsyncWait(k.AsyncKind.CpAsync, 0),
        k.BlockSync("RAW"),
        loop("i4", 0, 4, [if_((base + sym("i4")).lt(I0), [
            assign(t2, at(t2, base + sym("i4")), binary("add", load(tile, TX * 4 + sym("i4")), fconst(1.0)))])],
             unroll=True),
    ]
    checks = (k.RuntimeCheck((I0 % 4).eq(0).logical_and(sym("T0_stride0").eq(1)),
                             "cp.async by 16 bytes: T0 must be contiguous with a multiple of 4 elements"),)
    kern = make_kernel("cp_async_kernel", body, [t0], [t2], (ceil_div(I0, 256),), (64,), smem=1024, checks=checks)
    return Sample(kern, lambda a: [a + np.float32(1)], lambda n, rng: [uniform((n,), rng)], (4, 1000, 4096))


# ---------------------------------------------------------------- named barriers, grid-stride loops
def named_barrier_groups(count: int = 128) -> Sample:
    """Two warp groups of a 256-thread block, each synchronizing on its own named barrier.

    Every thread stages its element of T0 in shared memory; group 0 (threads 0..127) then meets at
    ``bar.sync 1, count`` and group 1 at ``bar.sync 2, count``, and each thread writes twice the
    element mirrored inside its group. With ``count`` != 128 a barrier never completes.
    """
    t0, t2 = global_tensor("T0", (I0,)), global_tensor("T2", (I0,))
    tile = shared("T1", 256)
    gid = BX * 256 + TX
    mirrored = TX // 128 * 128 + (c(127) - TX % 128)
    body = [
        k.Allocate(tile, c(0)),
        if_(gid.lt(I0), [assign(tile, TX, load(t0, at(t0, gid)))], [assign(tile, TX, fconst(0.0))]),
        if_(TX.lt(128), [k.NamedBarrier(1, c(count), "RAW: group 0 staged T1[0:128]")],
            [k.NamedBarrier(2, c(count), "RAW: group 1 staged T1[128:256]")]),
        if_(gid.lt(I0), [assign(t2, at(t2, gid), binary("mul", load(tile, mirrored), fconst(2.0)))]),
    ]
    kern = make_kernel("named_barrier_kernel", body, [t0], [t2], (ceil_div(I0, 256),), (256,), smem=1024)

    def reference(a: np.ndarray) -> list[np.ndarray]:
        n = a.shape[0]
        padded = np.zeros(-(-n // 256) * 256, dtype=np.float32)
        padded[:n] = a
        return [(padded.reshape(-1, 2, 128)[:, :, ::-1] * np.float32(2)).reshape(-1)[:n]]

    return Sample(kern, reference, lambda n, rng: [uniform((n,), rng)], (1, 300, 1024))


def grid_stride(blocks: int = 4) -> Sample:
    """T2 = T0 * 2 + 1 by a persistent grid-stride loop: block b handles the 128-element tiles
    b, b + gridDim.x, b + 2 gridDim.x, ... (``for (i3 = blockIdx.x; i3 < ceilDiv(i0, 128); i3 += gridDim.x)``)."""
    t0, t2 = global_tensor("T0", (I0,)), global_tensor("T2", (I0,))
    i = sym("i3")
    gid = i * 128 + TX
    value = binary("add", binary("mul", load(t0, at(t0, gid)), fconst(2.0)), fconst(1.0))
    body = [loop("i3", BX, ceil_div(I0, 128), [if_(gid.lt(I0), [assign(t2, at(t2, gid), value)])],
                 label="iS3{ceilDiv(i0, 128)}", step=sym("gridDim.x"))]
    kern = make_kernel("grid_stride_kernel", body, [t0], [t2], (blocks,), (128,))
    return Sample(kern, lambda a: [a * np.float32(2) + np.float32(1)], lambda n, rng: [uniform((n,), rng)],
                  (1, 300, 5000))


# ---------------------------------------------------------------- swizzled TMA
SWIZZLE_BOXES = {  # (swizzle, dtype) -> (rows, columns) of a box whose rows are one swizzle span
    (SmemSwizzle.B128, F32): (8, 32),
    (SmemSwizzle.B64, F32): (16, 16),
    (SmemSwizzle.B32, F32): (8, 8),
    (SmemSwizzle.B128, DataType.Half): (64, 64),
}


def tma_swizzled(swizzle: SmemSwizzle = SmemSwizzle.B128, dtype: DataType = F32, *,
                 read_swizzled: bool = True) -> Sample:
    """T2 = T0 through one TMA box per block, laid out in shared memory with ``swizzle``.

    The elected thread loads the rows x columns box at (BY * rows, BX * columns) into a buffer
    aligned to the swizzle's repeat; after the parity wait, the 128 threads walk the box in
    row-major order and read element ``e`` at ``swizzle_index(e, swizzle, bytes)``. With
    ``read_swizzled=False`` they read ``e`` itself: the layout mistake a swizzle test must catch.
    """
    rows, cols = SWIZZLE_BOXES[(swizzle, dtype)]
    elements, nbytes = rows * cols, rows * cols * dtype.size
    t0, t2 = global_tensor("T0", (I0, I1), dtype), global_tensor("T2", (I0, I1), dtype)
    tmap = k.TensorMapParam("tmap_T0", t0, (cols, rows), swizzle=swizzle)
    tile = k.Buffer("T1", dtype, MemoryType.Shared, c(elements), align=max(swizzle.alignment, 128), swizzle=swizzle)
    mbar = shared("T4", 1, I64, align=8)
    e = sym("i5") * 128 + TX
    row, col = BY * rows + e // cols, BX * cols + e % cols
    where = swizzle_index(e, swizzle, dtype.size) if read_swizzled else e
    body = [
        k.Allocate(tile, c(0)), k.Allocate(mbar, c(nbytes)),
        k.ElectSync((k.MBarrierInit(mbar, c(0), c(1)),)),
        k.BlockSync("init"),
        k.ElectSync((k.MBarrierArriveExpectTx(mbar, c(0), c(nbytes)),
                     k.TmaLoad(tile, c(0), tmap, (BY * rows, BX * cols), mbar, c(0)))),
        k.MBarrierWaitParity(mbar, c(0), c(0)),
        loop("i5", 0, ceil_div(c(elements), 128), [
            if_(e.lt(elements).logical_and(row.lt(I0)).logical_and(col.lt(I1)),
                [assign(t2, at(t2, row, col), load(tile, where))]),
        ]),
        k.BlockSync("every wait done before inval"),
        k.ElectSync((k.MBarrierInval(mbar, c(0)),)),
    ]
    name = f"tma_swizzle_{swizzle.name.lower()}_{dtype.short_name}_kernel"
    kern = make_kernel(name, body, [t0], [t2], (ceil_div(I1, cols), ceil_div(I0, rows)), (128,),
                       smem=nbytes + 8, tensor_maps=(tmap,))
    # TMA needs 16-byte row strides: widths are multiples of 8 elements.
    return Sample(kern, lambda a: [a.copy()], lambda n, rng: [uniform((n, 8 * n), rng, dtype.numpy_name)],
                  (1, 9, 70))


# ---------------------------------------------------------------- wgmma
WGMMA_KT = 64   # k elements per tile: one 128-byte swizzle row of bf16/fp16


def wgmma_tile(n: int = 256, dtype: DataType = DataType.BFloat16, warp_groups: int = 2) -> Sample:
    """T2[M, N] = T0[M, K] @ T1[K, N] (bf16 or fp16 operands, fp32 out) on wgmma.m64nNk16.

    Block (128, ``warp_groups``): warp group ``threadIdx.y`` owns 64 rows of the block's
    ``64 * warp_groups`` x ``n`` tile, ``n / 2`` fp32 accumulators per thread in ``T3``. Per k tile of
    64 the threads fill the operand tiles with plain stores through the B128 swizzle (zeros outside
    the tensors), fence the async proxy and sync; then ``wgmma.fence``, four k16 MMAs (A advances 16
    elements in its rows, B 16 rows), commit and ``wait_group 0``, and a sync before the next fill.
    At the end each thread stores its registers where ``wgmma_accumulator`` says.

    - A ``T4``: ``[64 * warp_groups][64 k]``, K-major; stride byte offset 1024 (8 rows of 128 bytes).
    - B ``T5``: ``[ceil(n / 64)][64 k][64 n]``, N-major (transpose bit); leading byte offset 8192 (the
      next chunk of 64 columns), stride 1024 (8 k rows).
    """
    swz, eb, kt = SmemSwizzle.B128, dtype.size, WGMMA_KT
    rows, chunks, regs, threads = 64 * warp_groups, ceil_div(c(n), 64).const_value(), n // 2, 128 * warp_groups
    i2 = sym("i2")
    t0, t1 = global_tensor("T0", (I0, I1), dtype), global_tensor("T1", (I1, i2), dtype)
    t2 = global_tensor("T2", (I0, i2))
    acc = local("T3", regs)
    a_tile = k.Buffer("T4", dtype, MemoryType.Shared, c(rows * kt), align=1024, swizzle=swz)
    b_tile = k.Buffer("T5", dtype, MemoryType.Shared, c(chunks * kt * 64), align=1024, swizzle=swz)
    tid, ko, kk, r = TX + TY * 128, sym("i6"), sym("i9"), sym("r3")
    zero = k.Const(0.0, dtype)

    def fill(index: str, tile: k.Buffer, src: k.Buffer, where: Callable[[Val], tuple[Val, Val]]) -> k.ForLoop:
        """Row-major tile element e = index * threads + tid is source element where(e), stored swizzled."""
        e = sym(index) * threads + tid
        row, col = where(e)
        inside = row.lt(src.shape[0]).logical_and(col.lt(src.shape[1]))
        dst = swizzle_index(e, swz, eb)
        count = tile.size.const_value() // threads  # type: ignore[operator]
        return loop(index, 0, count, [if_(inside, [assign(tile, dst, load(src, at(src, row, col)))],
                                          [assign(tile, dst, zero)])])

    fill_a = fill("i7", a_tile, t0, lambda e: (BY * rows + e // kt, ko * kt + e % kt))
    fill_b = fill("i8", b_tile, t1, lambda e: (ko * kt + e // 64 % kt, BX * n + e // (kt * 64) * 64 + e % 64))
    a = k.MatrixDescriptor(a_tile, TY * (64 * kt) + kk * 16, 16, 8 * 128, swz, False)
    b = k.MatrixDescriptor(b_tile, kk * (16 * 64), kt * 128, 8 * 128, swz, True)
    row, col = wgmma_accumulator(TX, r)
    out_row, out_col = BY * rows + TY * 64 + row, BX * n + col
    body = [
        k.Allocate(a_tile, c(0)), k.Allocate(b_tile, c(rows * kt * eb)), k.Allocate(acc),
        loop("r3", 0, regs, [assign(acc, r, fconst(0.0))], unroll=True),
        loop("i6", 0, ceil_div(I1, kt), [
            fill_a, fill_b,
            k.FenceAsyncProxy(),
            k.BlockSync("RAW: the operand tiles are written"),
            k.WgmmaFence(),
            loop("i9", 0, kt // 16, [k.Mma(acc, c(0), a, b, (64, n, 16), dtype)], unroll=True),
            k.AsyncCommit(k.AsyncKind.Wgmma),
            k.AsyncWait(k.AsyncKind.Wgmma, 0),
            k.BlockSync("WAR: every warp group's MMAs are done before the next fill"),
        ], label="k tiles", unroll=1),
        loop("r3", 0, regs, [if_(out_row.lt(I0).logical_and(out_col.lt(i2)),
                                 [assign(t2, at(t2, out_row, out_col), load(acc, r))])], unroll=True),
    ]
    smem = (rows + chunks * 64) * kt * eb
    name = f"wgmma_m{rows}n{n}_{dtype.short_name}_kernel"
    kern = make_kernel(name, body, [t0, t1], [t2], (ceil_div(i2, n), ceil_div(I0, rows)), (128, warp_groups),
                       smem=smem)

    def reference(x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
        return [(as_stored(dtype, x).astype(np.float64) @ as_stored(dtype, y).astype(np.float64)).astype(np.float32)]

    host = np.float16 if dtype is DataType.Half else np.float32   # bf16 inputs are float32, rounded on the way in
    return Sample(kern, reference, lambda size, rng: [uniform((size, size + 8), rng, host),
                                                      uniform((size + 8, 2 * size), rng, host)], (40, 130))


def gpu_samples() -> dict[str, Sample]:
    """Every sample that runs on the GPU tier."""
    return {
        "pointwise": pointwise(),
        "vectorized_add": vectorized_add(),
        "cast_half": cast_kernel(DataType.Half, DataType.Half),
        "cast_float_to_half": cast_kernel(DataType.Float, DataType.Half),
        "smem_rotate": smem_rotate(),
        "block_reduce_add": block_reduce("add"),
        "block_reduce_max": block_reduce("max"),
        "tma_circular_buffer_2": tma_circular_buffer(2),
        "tma_circular_buffer_3": tma_circular_buffer(3),
        "tma_circular_buffer_4": tma_circular_buffer(4, box=64),
        "tma_token_2d": tma_token_2d(),
        "tma_store": tma_store(),
        "warp_specialized": warp_specialized(),
        "cp_async": cp_async_copy(),
        "named_barrier": named_barrier_groups(),
        "grid_stride": grid_stride(),
        **{f"tma_swizzle_{swz.name.lower()}_{dtype.short_name}": tma_swizzled(swz, dtype)
           for swz, dtype in SWIZZLE_BOXES},
    }


def all_samples() -> dict[str, Sample]:
    return gpu_samples() | {
        "cast_bf16": cast_kernel(DataType.BFloat16, DataType.BFloat16),
        "wgmma_m128n256_bf16": wgmma_tile(256, DataType.BFloat16, 2),
        "wgmma_m64n64_f16": wgmma_tile(64, DataType.Half, 1),
    }
