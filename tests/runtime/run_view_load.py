"""Run one view-load case on the GPU at each of its sizes and check it:
``python -m tests.runtime.run_view_load NAME`` (a name of ``tests/lowering/view_load_cases.py``).

Used under compute-sanitizer by the GPU tier.
"""

from __future__ import annotations

import sys

from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs
from tests.lowering.view_load_cases import view_load_cases


def main(name: str) -> None:
    cases = {n: (build, shapes) for n, build, shapes in view_load_cases()}
    build, sizes = cases[name]
    kernel = lower(build())
    for n, shapes in enumerate(sizes):
        fusion = build()
        inputs = random_inputs(fusion, shapes, seed=5000 + n)
        assert_matches(fusion, inputs, execute(kernel, inputs))
    print(f"{name}: matches numpy at {len(sizes)} sizes")


if __name__ == "__main__":
    main(sys.argv[1])
