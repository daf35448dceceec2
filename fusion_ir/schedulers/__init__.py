"""Schedulers: functions that schedule every tensor of a fusion of a known shape from a few parameters."""

from .matmul import MatmulParams, schedule_matmul, schedule_mma_fragment

__all__ = ["MatmulParams", "schedule_matmul", "schedule_mma_fragment"]
