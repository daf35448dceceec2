"""Benchmark cases of the reduction and normalization schedulers: a plain data module (no main) that a
benchmark imports.

Each ``Case`` has an unscheduled fusion builder of constant shapes, the scheduler that takes it, a torch
reference (a callable of the torch input tensors, in the fusion's input order, returning the output tensor),
the input shapes and the dtype. ``schedule(case)`` builds the fusion and schedules it with
``SCHEDULER.apply(fusion, SCHEDULER.suggest(fusion, None))``. torch is imported only when a reference runs.

Softmax, log-softmax, layer norm and RMS norm over the last axis, hidden 1024, 4096 and 16384, fp32 and bf16;
softmax over the first axis; sum and max over the last and the first axis at three shapes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from examples import _reduction_fusions as fusions
from fusion_ir import DataType, Fusion
from fusion_ir.schedulers import normalization, reduction

EPS = fusions.EPS
NORM_SHAPES = [(16384, 1024), (16384, 4096), (4096, 16384)]
REDUCE_SHAPES = [(16384, 4096), (1024, 65536), (8, 1 << 20)]
OUTER_NORM_SHAPES = [(1024, 4096), (1024, 16384), (1024, 65536)]
DTYPES = {"float32": DataType.Float, "bfloat16": DataType.BFloat16}


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[], Fusion]
    scheduler: str                       # "reduction" or "normalization"
    reference: Callable[..., Any]        # torch tensors in -> torch tensor out: torch's own kernel for it
    shapes: tuple[tuple[int, ...], ...]
    dtype: str                           # "float32" or "bfloat16"


def _torch() -> Any:
    import torch

    return torch


def _softmax(axis: int) -> Callable[..., Any]:
    """torch's own kernel: bf16 in and out, fp32 inside, as the fusion computes."""
    return lambda x: _torch().softmax(x, dim=axis)


def _log_softmax(axis: int) -> Callable[..., Any]:
    return lambda x: _torch().log_softmax(x, dim=axis)


def _layer_norm(x: Any, w: Any, b: Any) -> Any:
    return _torch().nn.functional.layer_norm(x, (x.shape[-1],), w, b, EPS)


def _rms_norm(x: Any, w: Any) -> Any:
    functional = _torch().nn.functional
    if hasattr(functional, "rms_norm"):                  # torch >= 2.4: one kernel
        return functional.rms_norm(x, (x.shape[-1],), w, EPS)
    xf = x.float()
    return (xf * _torch().rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS) * w.float()).to(x.dtype)


def _reduce(op: str, axis: int) -> Callable[..., Any]:
    if op == "sum":
        return lambda x: x.sum(axis)
    return lambda x: x.amax(axis)


def _norm_cases() -> list[Case]:
    out = []
    for dtype_name, dtype in DTYPES.items():
        for shape in NORM_SHAPES:
            rows, hidden = shape
            tag = f"{rows}x{hidden}_{dtype_name}"
            out += [
                Case(f"softmax_{tag}", lambda s=shape, d=dtype: fusions.softmax(s, 1, d), "normalization",
                     _softmax(-1), (shape,), dtype_name),
                Case(f"log_softmax_{tag}", lambda s=shape, d=dtype: fusions.log_softmax(s, 1, d), "normalization",
                     _log_softmax(-1), (shape,), dtype_name),
                Case(f"layer_norm_{tag}", lambda s=shape, d=dtype: fusions.layer_norm(s, 1, d), "normalization",
                     _layer_norm, (shape, (hidden,), (hidden,)), dtype_name),
                Case(f"rms_norm_{tag}", lambda s=shape, d=dtype: fusions.rms_norm(s, 1, d), "normalization",
                     _rms_norm, (shape, (hidden,)), dtype_name),
            ]
    for shape in OUTER_NORM_SHAPES:
        out.append(Case(f"softmax_dim0_{shape[0]}x{shape[1]}_float32",
                        lambda s=shape: fusions.softmax(s, 0, DataType.Float), "normalization", _softmax(0),
                        (shape,), "float32"))
    return out


def _reduce_cases() -> list[Case]:
    out = []
    for op in ("sum", "max"):
        for axis in (1, 0):
            for shape in REDUCE_SHAPES:
                out.append(Case(f"{op}_dim{axis}_{shape[0]}x{shape[1]}_float32",
                                lambda s=shape, o=op, a=axis: fusions.reduction(s, o, a, DataType.Float),
                                "reduction", _reduce(op, axis), (shape,), "float32"))
    return out


CASES: list[Case] = _norm_cases() + _reduce_cases()

SCHEDULERS = {"reduction": reduction.SCHEDULER, "normalization": normalization.SCHEDULER}


def schedule(case: Case) -> Fusion:
    """``case``'s fusion, scheduled by its scheduler from the suggested parameters."""
    fusion = case.build()
    scheduler = SCHEDULERS[case.scheduler]
    scheduler.apply(fusion, scheduler.suggest(fusion, None))
    return fusion
