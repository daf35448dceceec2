"""What the matmul scheduler and its suggestion read of a fusion: its one matmul (``find_mma``),
the epilogue computed from the accumulator and the inputs that epilogue reads, and the problem's
sizes and dtypes (``matmul_problem``) with the checks that need only them."""

from __future__ import annotations

import math
from dataclasses import dataclass

from target import current as current_target

from ..exprs import BinaryOp, BroadcastOp, LoadStoreOp, MmaOp, UnaryOp, WhereOp
from ..fusion import Fusion
from ..tensor_view import TensorView
from ..types import DataType, LoadStoreOpType, ScheduleError
from .matmul_smem import ROW_MAJOR, LoadedTile, MatmulLayout


def wgmma_operand_types() -> tuple[DataType, ...]:
    """The dtypes the target's wgmma multiplies (bf16, fp16 on sm_90)."""
    return tuple(DataType[name] for name in current_target().wgmma.operand_types)


def transposed_input(tv: TensorView) -> TensorView | None:
    """The fusion input ``tv`` is a transpose of (``ops.transpose`` or ``ops.permute``), or None."""
    d = tv.definition
    if not isinstance(d, LoadStoreOp) or d.op_type is not LoadStoreOpType.Set or d.permutation is None:
        return None
    (source,) = d.tensor_inputs()
    return source if source.is_input else None


def operand_input(tv: TensorView) -> TensorView | None:
    """The fusion input a matmul operand reads in place: the operand itself, or the input it transposes."""
    return tv if tv.is_input else transposed_input(tv)


def contiguous_axis(tv: TensorView) -> int:
    """The axis of operand ``tv`` that is contiguous in memory: the input's innermost, through a transpose."""
    d = tv.definition
    if tv.is_input or not isinstance(d, LoadStoreOp) or d.permutation is None:
        return len(tv.shape_ids) - 1
    return d.permutation.index(len(d.permutation) - 1)


def operand_layout(fusion: Fusion) -> MatmulLayout:
    """The major order of the matmul's operands as their inputs lay them out in global memory."""
    a, b = find_mma(fusion).definition.inputs
    return MatmulLayout(a_mn_major=contiguous_axis(a) == a.ndim - 2, b_mn_major=contiguous_axis(b) == b.ndim - 1)


def find_mma(fusion: Fusion) -> TensorView:
    """The output of the fusion's one matmul, after checking its operands: bf16 or fp16 (the target's
    wgmma operand types) fusion inputs of one dtype, or transposes of fusion inputs that only the
    matmul reads (TMA loads those inputs in place, in their own major order)."""
    mmas = [e for e in fusion.exprs if isinstance(e, MmaOp)]
    if len(mmas) != 1:
        raise ScheduleError(f"schedule_matmul: the fusion has {len(mmas)} matmuls; it schedules exactly one")
    mm = mmas[0].output
    a, b = mmas[0].inputs
    for name, tv in (("a", a), ("b", b)):
        if operand_input(tv) is None:
            raise ScheduleError(f"schedule_matmul: operand {name} (T{tv.name}) of the matmul must be a fusion input "
                                f"or a transpose of one (TMA loads it from global memory)")
        others = [c for c in tv.consumers() if c is not mm]
        if not tv.is_input and others:
            raise ScheduleError(f"schedule_matmul: operand {name} (T{tv.name}), a transpose of input "
                                f"T{operand_input(tv).name}, is also read by "
                                f"{', '.join(f'T{c.name}' for c in others)}; TMA loads it into the matmul's shared "
                                f"tiles, which only the matmul reads: transpose the input once per use")
        d = tv.definition
        batch = len(tv.shape_ids) - 2
        if not tv.is_input and tuple(d.permutation[:batch]) != tuple(range(batch)):
            raise ScheduleError(f"schedule_matmul: operand {name} (T{tv.name}) permutes the batch axes of input "
                                f"T{operand_input(tv).name} (dims {list(d.permutation)}); a transposed operand may "
                                f"swap its last two axes only, its batch axes stay where the input has them")
        if tv.dtype not in wgmma_operand_types():
            raise ScheduleError(f"schedule_matmul: operand {name} (T{tv.name}) is {tv.dtype.short_name}; wgmma takes "
                                f"bf16 or fp16 operands")
    if a.dtype is not b.dtype:
        raise ScheduleError(f"schedule_matmul: operands T{a.name} ({a.dtype.short_name}) and T{b.name} "
                            f"({b.dtype.short_name}) must have the same dtype")
    return mm


def computed_from(fusion: Fusion, acc: TensorView) -> list[TensorView]:
    """The tensors computed from the accumulator ``acc``, directly or not, in topological order."""
    after: list[TensorView] = []
    seen: set[TensorView] = set()
    for tv in fusion.topological_order():
        if any(p is acc or p in seen for p in tv.producers()):
            after.append(tv)
            seen.add(tv)
    return after


def epilogue_tensors(fusion: Fusion, acc: TensorView) -> list[TensorView]:
    """Tensors computed from the accumulator and the tensors they read besides it (a broadcast
    bias), in topological order; all pointwise."""
    after = set(computed_from(fusion, acc))
    beside: set[TensorView] = set()             # what they read besides the accumulator, back to the inputs
    stack = [p for tv in after for p in tv.producers() if p is not acc and p not in after]
    while stack:
        p = stack.pop()
        if p.is_input or p in beside:
            continue
        beside.add(p)
        stack.extend(p.producers())
    out = [tv for tv in fusion.topological_order() if tv in after or tv in beside]
    for tv in out:
        if tv.has_reduction:
            raise ScheduleError(f"schedule_matmul: T{tv.name} is a reduction; the matmul epilogue takes pointwise "
                                f"ops only")
        d = tv.definition
        permutes = isinstance(d, LoadStoreOp) and d.permutation is not None
        if permutes and d.permutation != tuple(range(len(d.permutation))):
            raise ScheduleError(f"schedule_matmul: T{tv.name} permutes its axes (dims {list(d.permutation)}); the matmul "
                                f"epilogue is laid out [M, N] as the accumulator and takes pointwise ops only (for "
                                f"(a @ b)^T compute transpose(b) @ transpose(a); transpose operands, not the epilogue)")
    return out


# special functions by how many the special function unit computes for one result (sigmoid: exp and a reciprocal,
# pow: log and exp, div: a reciprocal); every other pointwise op is one FP32 op, a cast, copy or broadcast none
SPECIAL_FUNCTIONS = {"exp": 1, "sqrt": 1, "sin": 1, "cos": 1, "log": 1, "rsqrt": 1, "tanh": 1, "erf": 1, "log1p": 1,
                     "expm1": 1, "sigmoid": 2, "pow": 2, "div": 1}
WITH_A_MULTIPLY = ("div",)      # a special function and an FP32 op: a / b is a * rcp(b)


def epilogue_ops(fusion: Fusion, acc: TensorView) -> int:
    """The epilogue's math per output element, in FP32 ops: each pointwise op computed from the accumulator counts
    one, a special function (``SPECIAL_FUNCTIONS``) the target's ``special_function_weight`` each (an H100's special
    function unit makes 16 results a cycle per SM against 128 FP32 ones). ``relu(a @ b + bias)``: 2; the tanh
    ``gelu(a @ b + bias)``: 8 + 8 = 16 (``ops.gelu``'s 7 FP32 ops and its tanh, and the bias's add). Casts,
    copies and broadcasts count nothing."""
    weight = current_target().special_function_weight
    ops = 0
    for tv in computed_from(fusion, acc):
        d = tv.definition
        if isinstance(d, (UnaryOp, BinaryOp)):
            special = SPECIAL_FUNCTIONS.get(d.op, 0)
            ops += special * weight + (1 if not special or d.op in WITH_A_MULTIPLY else 0)
        elif isinstance(d, WhereOp):
            ops += 1
    return ops


def epilogue_inputs(fusion: Fusion, acc: TensorView) -> list[TensorView]:
    """The ``[B..., M, N]`` fusion inputs the epilogue of ``acc`` reads (C), of the output's rank, whose rows TMA can
    copy (``tma_rows``): a C of fewer axes (``[M, N]`` broadcast over the batch), or of rows that are not 16-byte
    multiples, is read like a bias, by each thread from global memory."""
    found: list[TensorView] = []
    rank = len(acc.shape_ids)
    for tv in epilogue_tensors(fusion, acc):
        for p in tv.producers():
            if p.is_input and p.ndim == rank and not any(i.is_broadcast for i in p.logical) and p not in found \
                    and tma_rows(p):
                found.append(p)
    return found


def tma_rows(tv: TensorView) -> bool:
    """TMA can copy boxes of ``tv``: its rows (innermost extent; a symbolic one the runtime checks) are a multiple
    of 16 bytes. A C whose rows are not is read like a bias, by each thread from global memory."""
    extent = tv.shape_ids[-1].extent.const_value() if tv.shape_ids else None
    return extent is None or extent * tv.dtype.size % current_target().tma.alignment == 0


def broadcast_epilogue_inputs(fusion: Fusion, acc: TensorView) -> list[TensorView]:
    """The other fusion inputs the epilogue of ``acc`` reads: a bias row or column, broadcast over the tile."""
    loaded = epilogue_inputs(fusion, acc)
    found: list[TensorView] = []
    for tv in epilogue_tensors(fusion, acc):
        for p in tv.producers():
            if p.is_input and p not in loaded and p not in found and p not in acc.definition.inputs:
                found.append(p)
    return found


def epilogue_vectors(fusion: Fusion, acc: TensorView) -> list[TensorView]:
    """The 1-D fusion inputs the epilogue of ``acc`` broadcasts over the tile (a bias ``[N]`` per column or ``[M]``
    per row), read by one broadcast whose shape is the accumulator's and whose box TMA can copy (rows of a
    multiple of 16 bytes): loaded into shared memory once per output tile."""
    rank = len(acc.shape_ids)
    found: list[TensorView] = []
    for v in broadcast_epilogue_inputs(fusion, acc):
        readers = v.consumers()
        if v.ndim != 1 or len(readers) != 1 or v in found:
            continue
        (b,) = readers
        d = b.definition
        if not isinstance(d, BroadcastOp) or b.ndim != rank:
            continue
        found.append(v)
    return found


def loaded_tiles(fusion: Fusion, acc: TensorView) -> tuple[LoadedTile, ...]:
    """The tiles of the ``[M, N]`` inputs the epilogue of ``acc`` reads, in ``epilogue_inputs`` order.

    A tile is loaded after the mainloop (``LoadedTile.after_mainloop``, in the operands' dead memory)
    when the output reads it directly and no other epilogue tensor does: the lowering's emission order
    (``lowering/emission_order.py``) then reaches it only with the output, after the accumulator. A tile
    an epilogue tensor reads is one of that tensor's shallower dependencies and, an async load, is
    issued before the mainloop. ``tests/fusion_ir/test_matmul_smem.py`` holds the two equal."""
    inputs = epilogue_inputs(fusion, acc)
    out = fusion.outputs[0] if len(fusion.outputs) == 1 else None
    deep: set[TensorView] = set()        # what the output's computed producers (but the accumulator) read
    stack = [p for p in (out.producers() if out is not None else []) if p is not acc and not p.is_input]
    while stack:
        tv = stack.pop()
        if tv in deep or tv is acc:
            continue
        deep.add(tv)
        stack.extend(tv.producers())
    tiles = tuple(LoadedTile(c.dtype.size, out is not None and c in out.producers() and c not in deep) for c in inputs)
    return tiles + tuple(vector_tile(v, acc) for v in epilogue_vectors(fusion, acc))


def vector_tile(v: TensorView, acc: TensorView) -> LoadedTile:
    """The shared copy of an epilogue vector ``v``: its element size and which of the tile's dimensions it runs
    along, "N" (broadcast over the rows) or "M"."""
    (b,) = v.consumers()
    return LoadedTile(v.dtype.size, vector="M" if b.definition.is_broadcast_dims[-1] else "N")



# cp.async copies narrower than TMA's 16-byte rows need, widest first (a 16-byte-aligned row is TMA's)
CP_ASYNC_NARROW_BYTES = (8, 4)
# an operand row aligned to one element only: plain copies of misaligned vectors of this many bytes
MISALIGNED_VECTOR_BYTES = 16


@dataclass(frozen=True)
class OperandLoad:
    """How one operand's tile comes into shared memory: by TMA (rows of 16-byte multiples), by cp.async of
    ``vector`` elements, or by plain element copies (``LoadStoreOpType.Set``); ``dim`` and ``extent`` name the
    input's contiguous dimension (its rows), which decided it."""

    kind: LoadStoreOpType = LoadStoreOpType.TMA
    vector: int = 1
    dim: str = "K"
    extent: int | None = None
    rows_of: str = ""          # the tensor whose rows these are: "operand a (T0)", "input T0 (operand a, T2, ...)"
    misaligned: bool = False   # plain copies of misaligned vectors (``ParallelType.MisalignedVectorize``)

    @property
    def tma(self) -> bool:
        return self.kind is LoadStoreOpType.TMA

    def describe(self) -> str:
        if self.tma:
            return "TMA"
        if self.kind is LoadStoreOpType.CpAsync:
            return f"cp.async of {self.vector} elements"
        if self.misaligned:
            return f"misaligned vectors of {self.vector} elements (aligned 16-byte reads, shifted into place)"
        return "plain element copies"


TMA_LOADS = (OperandLoad(), OperandLoad(dim="N"))


@dataclass(frozen=True)
class MatmulProblem:
    """What the suggestion needs to know of ``out = epilogue(a @ b)``: sizes (None: symbolic) and dtypes."""

    m: int | None
    n: int | None
    k: int | None
    dtype: DataType                    # the operands'
    out_dtype: DataType | None         # the outputs' dtype, when they all have the same
    loaded_tiles: tuple[LoadedTile, ...] = ()   # the [M, N] inputs the epilogue reads (C)
    broadcast: int = 0                 # other inputs the epilogue reads (a bias broadcast over the tile)
    layout: MatmulLayout = ROW_MAJOR   # the operands' major order (transposed inputs)
    batch: int | None = 1              # the product of the batch extents (None: symbolic)
    batch_axes: int = 0                # how many batch axes lead the output ([B..., M, N])
    loads: tuple[OperandLoad, OperandLoad] = TMA_LOADS   # how A and B come into shared memory
    outputs: int = 1                   # the fusion's outputs (with the TMA store, a staging tile each)
    epilogue_ops: int = 0              # the epilogue's math per output element in FP32 ops (``epilogue_ops``)

    @property
    def tma_operands(self) -> bool:
        """Both operands' rows are 16-byte multiples: TMA loads both."""
        return all(load.tma for load in self.loads)

    @property
    def loaded(self) -> int:
        """Bytes per output element of the ``[M, N]`` inputs the epilogue reads."""
        return sum(t.size for t in self.loaded_tiles if not t.vector)

    @property
    def vectors(self) -> int:
        """The vectors the epilogue broadcasts that TMA loads into shared memory (a bias)."""
        return sum(1 for t in self.loaded_tiles if t.vector)

    @property
    def tma_store_possible(self) -> bool:
        """The TMA-store epilogue stages one 16-bit output tile (stmatrix stores 16-bit elements) and stores it by
        TMA (rows of 16-byte multiples)."""
        return self.out_dtype is not None and self.out_dtype.size == 2 and self.output_rows_aligned

    @property
    def output_rows_aligned(self) -> bool:
        """The output's rows (N elements) are a multiple of 16 bytes, as a TMA store needs."""
        return self.n is None or self.out_dtype is None or \
            self.n * self.out_dtype.size % current_target().tma.alignment == 0

    def k_tiles(self, tile_k: int) -> int | None:
        return None if self.k is None else -(-self.k // tile_k)

    def row_tiles(self, tile: tuple[int, int, int]) -> int | None:
        """Rows of ``tile`` covering M (None: M unknown)."""
        return None if self.m is None else -(-self.m // tile[0])

    def col_tiles(self, tile: tuple[int, int, int]) -> int | None:
        """Columns of ``tile`` covering N (None: N unknown)."""
        return None if self.n is None else -(-self.n // tile[1])

    def tiles(self, tile: tuple[int, int, int]) -> int | None:
        if self.m is None or self.n is None or self.batch is None:
            return None
        return self.batch * -(-self.m // tile[0]) * -(-self.n // tile[1])


def matmul_problem(fusion: Fusion, caller: str = "suggest_matmul_params") -> MatmulProblem:
    """The problem of ``fusion``'s matmul, with the checks that need only the problem: the operands
    (bf16 or fp16 fusion inputs) and A's and B's K (``caller`` names the function in the messages); and
    how each operand is loaded (``operand_load``: TMA when its rows are 16-byte multiples)."""
    mm = find_mma(fusion)
    a, b = mm.definition.inputs
    m, k_a = (i.extent.const_value() for i in a.shape_ids[-2:])
    k_b, n = (i.extent.const_value() for i in b.shape_ids[-2:])
    if k_a is not None and k_b is not None and k_a != k_b:
        raise ScheduleError(f"{caller}: K of operand a (T{a.name}, [M, K] = [{m}, {k_a}]) is {k_a} but "
                            f"K of operand b (T{b.name}, [K, N] = [{k_b}, {n}]) is {k_b}; a @ b needs equal K")
    layout = operand_layout(fusion)
    loads = (operand_load(a, ("M", m) if layout.a_mn_major else ("K", k_a), "a"),
             operand_load(b, ("N", n) if layout.b_mn_major else ("K", k_b), "b"))
    dtypes = {out.dtype for out in fusion.outputs}
    out_dtype = next(iter(dtypes)) if len(dtypes) == 1 else None      # the outputs' one dtype
    broadcast = len(broadcast_epilogue_inputs(fusion, mm))
    batch_ids = mm.shape_ids[:-2]
    extents = [i.extent.const_value() for i in batch_ids]
    batch = None if None in extents else math.prod(extents)
    return MatmulProblem(m, n, k_a if k_a is not None else k_b, a.dtype, out_dtype, loaded_tiles(fusion, mm),
                         broadcast, layout, batch, len(batch_ids), loads, len(fusion.outputs),
                         epilogue_ops(fusion, mm))


def operand_load(tv: TensorView, row: tuple[str, int | None], name: str = "a") -> OperandLoad:
    """How operand ``tv``, whose input's rows (its contiguous dimension ``row``: name, extent or None) are laid
    out in global memory, is loaded into its shared tile.

    TMA needs every row stride a multiple of 16 bytes (``cuTensorMapEncodeTiled``); a symbolic extent is
    assumed to be one (the runtime checks the strides). Otherwise every row starts only as aligned as the
    row's bytes allow: cp.async of 8 or 4 bytes when a row is a multiple of that, else plain copies of 16-byte
    misaligned vectors (each reads the aligned 16 bytes that hold its elements and shifts them into place)."""
    dim, extent = row
    size = tv.dtype.size
    source = operand_input(tv)
    what = f"operand {name} (T{tv.name})" if source is tv or source is None else \
        f"input T{source.name} (operand {name}, T{tv.name}, is its transpose)"
    if extent is None or extent * size % current_target().tma.alignment == 0:
        return OperandLoad(LoadStoreOpType.TMA, 1, dim, extent, what)
    for nbytes in CP_ASYNC_NARROW_BYTES:
        if extent * size % nbytes == 0:
            return OperandLoad(LoadStoreOpType.CpAsync, nbytes // size, dim, extent, what)
    width = MISALIGNED_VECTOR_BYTES // size
    return OperandLoad(LoadStoreOpType.Set, width, dim, extent, what, misaligned=width > 1)
