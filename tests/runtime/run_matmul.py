"""Run the wgmma matmul with given MatmulParams on the GPU at the example's sizes and check it:
``python -m tests.runtime.run_matmul '{"warp_specialized": true}'`` (``"transpose_a"``/``"transpose_b"``: a given
[K, M], b given [N, K]; ``"batch": true``: both lead with a batch of 3; ``"shape": [M, N, K]``: constant sizes, run
at that size only). Used under compute-sanitizer."""

from __future__ import annotations

import json
import sys

from examples import matmul_wgmma
from fusion_ir import DataType
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs


def main(params: dict) -> None:
    if params.get("out_dtype") == "bf16":
        params = dict(params, out_dtype=DataType.BFloat16)
    for key in ("tile", "cluster", "shape", "epilogue_tile"):   # shape: constant sizes: rows TMA may not copy
        if key in params:
            params = dict(params, **{key: tuple(params[key])})
    fusion = matmul_wgmma.build(**params)
    kernel = lower(fusion)
    sizes = matmul_wgmma.SIZES
    if "shape" in params:
        m, nn, k = params["shape"]
        sizes = [[(m, k), (k, nn)]]
    for n, ((m, k), (_, nn)) in enumerate(sizes):
        shapes = matmul_wgmma.input_shapes(m, nn, k, bool(params.get("transpose_a")), bool(params.get("transpose_b")),
                                           bool(params.get("epilogue")), batch=3 if params.get("batch") else None)
        inputs = random_inputs(fusion, shapes, seed=5000 + n)
        assert_matches(fusion, inputs, execute(kernel, inputs), tol=1e-2 if "out_dtype" in params else 1e-5)
    print(f"matmul_wgmma {params}: matches numpy at {len(sizes)} sizes")


if __name__ == "__main__":
    main(json.loads(sys.argv[1]) if len(sys.argv) > 1 else {})
