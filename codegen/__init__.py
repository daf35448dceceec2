"""Codegen: kernel IR -> CUDA C++ for sm_90a (``to_cuda``), and an nvcc/ptxas check (``compile_check``)."""

from .cuda import to_cuda
from .errors import CodegenError, NvccError
from .nvcc import PtxasResources, compile_check, nvcc_available
from .smem_layout import SharedLayout, shared_memory_layout

__all__ = [
    "CodegenError",
    "NvccError",
    "PtxasResources",
    "SharedLayout",
    "compile_check",
    "nvcc_available",
    "shared_memory_layout",
    "to_cuda",
]
