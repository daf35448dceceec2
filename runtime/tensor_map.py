"""Host-side TMA descriptors: ``cuTensorMapEncodeTiled`` from a ``TensorMapSpec`` and an address."""

from __future__ import annotations

from typing import Any

from fusion_ir.types import DataType, SmemSwizzle

from . import driver as cu
from .errors import LaunchError
from .launch_plan import TensorMapSpec

_DATA_TYPES = {
    DataType.Float: "CU_TENSOR_MAP_DATA_TYPE_FLOAT32",
    DataType.Half: "CU_TENSOR_MAP_DATA_TYPE_FLOAT16",
    DataType.BFloat16: "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16",
    DataType.Int32: "CU_TENSOR_MAP_DATA_TYPE_INT32",
    DataType.Int64: "CU_TENSOR_MAP_DATA_TYPE_INT64",
    DataType.Bool: "CU_TENSOR_MAP_DATA_TYPE_UINT8",
}
_SWIZZLES = {
    SmemSwizzle.NONE: "CU_TENSOR_MAP_SWIZZLE_NONE",
    SmemSwizzle.B32: "CU_TENSOR_MAP_SWIZZLE_32B",
    SmemSwizzle.B64: "CU_TENSOR_MAP_SWIZZLE_64B",
    SmemSwizzle.B128: "CU_TENSOR_MAP_SWIZZLE_128B",
}


def encode_tiled(spec: TensorMapSpec, address: int) -> Any:
    """A ``CUtensorMap`` (128 bytes, passed by value as the kernel's ``TensorMap`` parameter).

    The shared-memory layout is the map's swizzle (``spec.swizzle``, the one ``lowering.layout``
    indexes with); no interleave; elements outside the tensor read as zero.
    """
    driver = cu.cuda_driver()
    data_type = getattr(driver.CUtensorMapDataType, _DATA_TYPES[spec.dtype])
    rank = len(spec.global_dims)
    strides = list(spec.global_strides_bytes)
    if rank == 1:
        # The driver rejects a rank-1 map whose stride array is empty (a NULL pointer); it reads no
        # entry of it, so pass the row's byte size, rounded up to the 16 bytes strides must be.
        itemsize = spec.dtype.size
        strides = [-(-spec.global_dims[0] * itemsize // 16) * 16]
    tmap = cu.check(
        driver.cuTensorMapEncodeTiled(
            data_type,
            rank,
            address,
            [driver.cuuint64_t(d) for d in spec.global_dims],
            [driver.cuuint64_t(s) for s in strides],
            [driver.cuuint32_t(b) for b in spec.box],
            [driver.cuuint32_t(e) for e in spec.element_strides],
            driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
            getattr(driver.CUtensorMapSwizzle, _SWIZZLES[spec.swizzle]),
            driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        ),
        f"cuTensorMapEncodeTiled for {spec.name} (dims {spec.global_dims}, byte strides "
        f"{spec.global_strides_bytes}, box {spec.box}, swizzle {spec.swizzle.name}, address {address:#x})",
        LaunchError,
    )
    return tmap
