"""Run examples/matmul_epilogue of one kind on the GPU at three sizes and check it against numpy:
``python -m tests.runtime.run_matmul_epilogue alpha_beta``. Used under compute-sanitizer."""

from __future__ import annotations

import sys

from examples import matmul_epilogue
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches

SIZES = [(256, 512, 192), (200, 264, 200), (384, 256, 512)]      # M, N, K


def main(kind: str) -> None:
    fusion = matmul_epilogue.build(kind)
    kernel = lower(fusion)
    for n, (m, nn, k) in enumerate(SIZES):
        inputs = matmul_epilogue.make_inputs(fusion, kind, m, nn, k, seed=5100 + n)
        assert_matches(fusion, inputs, execute(kernel, inputs), tol=matmul_epilogue.TOLERANCE)
    print(f"matmul_epilogue {kind}: matches numpy at {len(SIZES)} sizes")


if __name__ == "__main__":
    main(sys.argv[1])
