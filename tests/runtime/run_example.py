"""Run one example on the GPU at each of its sizes and check it: ``python -m tests.runtime.run_example NAME``.

Used under compute-sanitizer by the GPU tier.
"""

from __future__ import annotations

import sys

import examples
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs


def main(name: str) -> None:
    module = examples.load(name)
    for n, shapes in enumerate(module.SIZES):
        fusion = module.build()
        inputs = random_inputs(fusion, shapes, seed=3000 + n)
        assert_matches(fusion, inputs, execute(lower(fusion), inputs), tol=getattr(module, "TOLERANCE", 1e-5))
    print(f"{name}: matches numpy at {len(module.SIZES)} sizes")


if __name__ == "__main__":
    main(sys.argv[1])
