"""Enumerations shared by the whole package and the schedule error type."""

from __future__ import annotations

import enum


class ScheduleError(ValueError):
    """A scheduling call broke a rule; the message names the tensor, the axis and the rule."""


# The largest element count or offset a kernel with 32-bit indices may address
# (``Fusion.set_index_type(DataType.Int32)``; the executor checks every tensor against it).
INT32_INDEX_MAX = 2**31 - 1


class DataType(enum.Enum):
    Float = ("float", 4, "float32")
    Half = ("__half", 2, "float16")
    BFloat16 = ("__bfloat16", 2, "bfloat16")
    Int32 = ("int", 4, "int32")
    Int64 = ("int64_t", 8, "int64")
    Bool = ("bool", 1, "bool")

    def __init__(self, ctype: str, size: int, numpy_name: str) -> None:
        self.ctype = ctype
        self.size = size
        self.numpy_name = numpy_name

    @property
    def short_name(self) -> str:
        return {"Float": "float", "Half": "half", "BFloat16": "bfloat16",
                "Int32": "int", "Int64": "int64_t", "Bool": "bool"}[self.name]

    @property
    def is_float(self) -> bool:
        return self in (DataType.Float, DataType.Half, DataType.BFloat16)

    @staticmethod
    def from_numpy(dtype: object) -> "DataType":
        import numpy as np

        name = np.dtype(dtype).name
        for dt in DataType:
            if dt.numpy_name == name:
                return dt
        raise ValueError(f"no DataType for numpy dtype {name}")


def promote(a: DataType, b: DataType) -> DataType:
    """Result type of a binary op: floats win over ints, wider floats over narrower."""
    order = [DataType.Bool, DataType.Int32, DataType.Int64, DataType.BFloat16, DataType.Half, DataType.Float]
    if a == b:
        return a
    if {a, b} == {DataType.Half, DataType.BFloat16}:
        return DataType.Float
    return max(a, b, key=order.index)


class IterType(enum.Enum):
    Iteration = "i"
    Reduction = "r"
    Broadcast = "b"


class ParallelType(enum.Enum):
    BIDx = "BIDx"
    BIDy = "BIDy"
    BIDz = "BIDz"
    TIDx = "TIDx"
    TIDy = "TIDy"
    TIDz = "TIDz"
    Bulk = "B"
    Vectorize = "V"
    MisalignedVectorize = "MV"   # a vector whose source is aligned only to its element (nvFuser's name)
    Unroll = "UR"
    Serial = "S"
    Mma = "MMA"

    @property
    def is_block(self) -> bool:
        return self in (ParallelType.BIDx, ParallelType.BIDy, ParallelType.BIDz)

    @property
    def is_thread(self) -> bool:
        return self in (ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz)

    @property
    def vectorizes(self) -> bool:
        """Vectorize or MisalignedVectorize: a loop of consecutive elements copied as one vector access."""
        return self in (ParallelType.Vectorize, ParallelType.MisalignedVectorize)

    @property
    def never_inlined(self) -> bool:
        """Bulk and vector axes are never inlined: a TMA box or a vector is copied whole."""
        return self is ParallelType.Bulk or self.vectorizes

    @property
    def is_grid_or_thread(self) -> bool:
        return self.is_block or self.is_thread

    @property
    def cuda_index(self) -> str:
        """The CUDA builtin for a block or thread index, e.g. ``threadIdx.x``."""
        base = "blockIdx" if self.is_block else "threadIdx"
        return f"{base}.{self.value[-1]}"

    @property
    def cuda_dim(self) -> str:
        base = "gridDim" if self.is_block else "blockDim"
        return f"{base}.{self.value[-1]}"


class MemoryType(enum.Enum):
    Local = "l"
    Shared = "s"
    Global = "g"


class LoadStoreOpType(enum.Enum):
    Set = "Set"
    CpAsync = "CpAsync"
    TMA = "TMA"
    StMatrix = "StMatrix"
    TMAStore = "TMAStore"


class SmemSwizzle(enum.Enum):
    """How TMA lays a box out in shared memory (nvFuser's ``MmaInputSmemSwizzle``).

    With a swizzle of ``span`` bytes, the 16-byte chunks of each ``span``-byte row are permuted by
    XOR with the row's position in a repeating group of ``span / 16`` 128-byte rows; the buffer must
    start aligned to one repeat, ``8 * span`` bytes (1024 for 128 B), and a box row is exactly
    ``span`` bytes (TMA lays each swizzled row out at the full span).
    """

    NONE = 0
    B32 = 32
    B64 = 64
    B128 = 128

    @property
    def span(self) -> int:
        """Bytes per swizzled row (0 when not swizzled)."""
        return self.value

    @property
    def alignment(self) -> int:
        """Bytes a swizzled buffer's start is aligned to: one whole repeat of the pattern."""
        return 8 * self.value


MmaInputSmemSwizzle = SmemSwizzle


class StoreWait(enum.Enum):
    """When the thread that issued a TMA store's boxes waits for their reads of the shared tile
    (``TensorView.set_store_wait``; the ``store_waits`` lowering pass places the wait)."""

    AfterBoxes = "after_boxes"    # once, right after every box of the tile is issued and committed
    Deferred = "deferred"         # just before the loop's next iteration writes the tile again
    # deferred, and a ring's stores carried into the next iteration of the loops around the ring's loop (a
    # persistent kernel's tile loop): the last ones waited for once, after the outermost of those loops
    Carried = "carried"

    @property
    def defers(self) -> bool:
        """Whether the wait waits for the tile's next write (``Deferred``, ``Carried``)."""
        return self is not StoreWait.AfterBoxes

    @classmethod
    def of(cls, value: object) -> StoreWait | None:
        """The store wait ``value`` names (a ``StoreWait`` or its string, ``"after_boxes"``, ``"deferred"``);
        None for anything else."""
        if isinstance(value, cls):
            return value
        return next((w for w in cls if w.value == value), None) if isinstance(value, str) else None

    @classmethod
    def choices(cls) -> str:
        """The accepted values, for error messages."""
        return ", ".join(repr(w.value) for w in cls) + " (or StoreWait." + ", StoreWait.".join(w.name for w in cls) + ")"
