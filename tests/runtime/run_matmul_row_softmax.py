"""Run the row softmax of a matmul (examples/matmul_row_softmax) on the GPU at sizes that are not tile multiples
and check it against numpy in float64: ``python -m tests.runtime.run_matmul_row_softmax``. Used under
compute-sanitizer by the GPU tier."""

from __future__ import annotations

import numpy as np

from examples import matmul_row_softmax
from lowering import lower
from runtime import execute

# M, K, N: ragged M, K by TMA (136) and by the warp group's copies (100), every N tile
SIZES = [(200, 136, 64), (200, 136, 128), (200, 100, 256), (1000, 520, 256)]


def main(sizes: list[tuple[int, int, int]] = SIZES) -> None:
    for n, size in enumerate(sizes):
        kernel = lower(matmul_row_softmax.build(*size))
        inputs = matmul_row_softmax.make_inputs(*size, seed=4100 + n)
        (out,) = execute(kernel, inputs)
        want = matmul_row_softmax.reference(*inputs)
        err = float(np.abs(np.asarray(out, dtype=np.float64) - want).max() / np.abs(want).max())
        assert err <= matmul_row_softmax.TOLERANCE, (size, err)
    print(f"matmul_row_softmax: matches numpy at {len(sizes)} sizes")


if __name__ == "__main__":
    main()
