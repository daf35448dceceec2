"""Run the rescaled sum of matmuls on one accumulator (examples/matmul_rescaled) on the GPU at sizes no tile divides
and check it against numpy: ``python -m tests.runtime.run_matmul_rescaled``. Used under compute-sanitizer by the GPU
tier."""

from __future__ import annotations

from examples import matmul_rescaled
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs

# J, M, N, K, tn, stages (, j_split): the example's ragged size, a pipelined K loop, a wide tile, many J at a larger
# size, J in two loops past its end
SIZES = [(3, 200, 136, 72, 64, 1), (3, 200, 136, 200, 64, 3), (5, 130, 264, 136, 256, 2),
         (16, 1000, 776, 264, 128, 3), (5, 130, 136, 200, 64, 3, 2)]


def main(sizes: list[tuple[int, ...]] = SIZES) -> None:
    for n, (j, m, nn, k, tn, stages, *j_split) in enumerate(sizes):
        fusion = matmul_rescaled.build(j, m, nn, k, tn=tn, stages=stages, j_split=j_split[0] if j_split else None)
        inputs = random_inputs(fusion, matmul_rescaled.input_shapes(j, m, nn, k), seed=5000 + n)
        assert_matches(fusion, inputs, execute(lower(fusion), inputs), tol=matmul_rescaled.TOLERANCE)
    print(f"matmul_rescaled: matches numpy at {len(sizes)} sizes")


if __name__ == "__main__":
    main()
