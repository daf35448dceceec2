"""Run the back-to-back matmul (examples/matmul_b2b) on the GPU at sizes that are not tile multiples and check it
against numpy: ``python -m tests.runtime.run_matmul_b2b``. Used under compute-sanitizer by the GPU tier."""

from __future__ import annotations

from examples import matmul_b2b
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs

# M, K1, N1, N2: ragged M and K1, every combination of N1 (64, 128) and N2 (64, 256), and the widest tiles
SIZES = [(200, 136, 64, 64), (200, 136, 128, 64), (200, 136, 64, 256), (200, 136, 128, 256), (1000, 520, 256, 256)]


def main(sizes: list[tuple[int, int, int, int]] = SIZES) -> None:
    for n, size in enumerate(sizes):
        fusion = matmul_b2b.build(*size)
        inputs = random_inputs(fusion, matmul_b2b.input_shapes(*size), seed=4000 + n)
        assert_matches(fusion, inputs, execute(lower(fusion), inputs), tol=matmul_b2b.TOLERANCE)
    print(f"matmul_b2b: matches numpy at {len(sizes)} sizes")


if __name__ == "__main__":
    main()
