"""Schedulers: functions that schedule every tensor of a fusion of a known shape from a few parameters."""

from .matmul import MatmulParams, schedule_matmul, schedule_mma_fragment
from .matmul_smem import MatmulLayout
from .suggest import suggest_matmul_params

__all__ = ["MatmulLayout", "MatmulParams", "schedule_matmul", "schedule_mma_fragment", "suggest_matmul_params"]
