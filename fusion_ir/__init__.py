"""The fusion IR: tensors, IterDomains, ops and the scheduling API."""

from . import ops
from .circular_buffer import CircularBufferOptions, Pipelined, WarpSpecialized
from .exprs import (ASYNC_LOADS, BinaryOp, BroadcastOp, CastOp, Expr, FullOp, IotaOp, LoadStoreOp, MmaOp, PadOp, ReductionOp,
                    RescaledSumOp, ScanOp,
                    UnaryOp, ViewOp, WhereOp, load_kind)
from .fusion import Fusion
from .inlining import inline_most, parallelize_like, transform_like
from .iter_domain import IterDomain, Merge, Split
from .scalar import Val, ceil_div
from .scalar_input import ScalarInput
from .tensor_view import Axis, TensorView
from .types import (DataType, IterType, LoadStoreOpType, MemoryType, MmaInputSmemSwizzle, ParallelType,
                    ScheduleError, SmemSwizzle, StoreWait)

__all__ = [
    "ASYNC_LOADS", "Axis", "BinaryOp", "BroadcastOp", "CastOp", "CircularBufferOptions", "DataType", "Expr", "Fusion",
    "IterDomain", "IterType", "LoadStoreOp", "LoadStoreOpType", "MemoryType", "Merge", "MmaOp", "ParallelType",
    "Pipelined", "ReductionOp", "ScalarInput", "ScheduleError", "Split", "TensorView", "UnaryOp", "Val", "WarpSpecialized",
    "MmaInputSmemSwizzle", "SmemSwizzle", "StoreWait", "ceil_div", "inline_most", "load_kind", "ops", "parallelize_like",
    "transform_like", "FullOp", "IotaOp", "ViewOp", "WhereOp", "PadOp", "ScanOp", "RescaledSumOp",
]
