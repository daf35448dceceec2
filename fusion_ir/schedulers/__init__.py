"""Schedulers: functions that schedule every tensor of a fusion of a known shape from a few parameters, and
``schedule``, which picks the scheduler that takes a fusion (``registry``)."""

from .attention import AttentionParams, schedule_attention, suggest_attention_params
from .matmul import MatmulParams, schedule_matmul, schedule_mma_fragment
from .matmul_entry import MatmulHeuristic
from .matmul_smem import MatmulLayout
from .pointwise_heuristic import PointwiseParams
from .protocol import HeuristicParams
from .registry import SCHEDULERS, schedule
from .suggest import suggest_matmul_params
from .transpose import TransposeParams
from .unscheduled import is_unscheduled, schedule_marks

__all__ = ["SCHEDULERS", "AttentionParams", "HeuristicParams", "MatmulHeuristic", "MatmulLayout", "MatmulParams", "PointwiseParams",
           "TransposeParams", "is_unscheduled", "schedule", "schedule_marks", "schedule_matmul",
           "schedule_attention", "schedule_mma_fragment", "suggest_attention_params", "suggest_matmul_params"]
