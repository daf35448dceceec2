"""Run examples/attention on the GPU at small sizes, causal and not, and check it against numpy:
``python -m tests.runtime.run_attention [causal]``. Used under compute-sanitizer."""

from __future__ import annotations

import sys

import numpy as np

from examples import attention
from lowering import lower
from runtime import execute

SIZES = [(1, 2, 48, 80, 32), (2, 1, 33, 70, 64)]      # B, H, Sq, Skv, D: not multiples of the blocks


def main(causal: bool = False) -> None:
    for n, shape in enumerate(SIZES):
        kernel = lower(attention.build(*shape, causal=causal))
        inputs = attention.make_inputs(*shape, seed=3100 + n)
        (out,) = execute(kernel, inputs)
        want = attention.reference(*inputs, causal)
        err = float(np.abs(np.asarray(out, dtype=np.float64) - want).max() / np.abs(want).max())
        assert err <= attention.TOLERANCE, (shape, causal, err)
    print(f"attention causal={causal}: matches numpy at {len(SIZES)} sizes")


if __name__ == "__main__":
    main(causal="causal" in sys.argv[1:])
