"""Run examples/attention_wgmma (attention on one warp group of tensor cores) on the GPU at small sizes, causal and
not, and check it against numpy: ``python -m tests.runtime.run_attention_wgmma [causal]``. Used under
compute-sanitizer."""

from __future__ import annotations

import sys

import numpy as np

from examples import attention_wgmma
from lowering import lower
from runtime import execute

SIZES = [((1, 2, 200, 200, 64), 64), ((2, 1, 130, 70, 128), 128),   # (B, H, Sq, Skv, D), block_kv: ragged blocks
         ((1, 2, 100, 333, 64), 64)]                                  # causal: tiles of 2 of the 6 key blocks


def main(causal: bool = False) -> None:
    for n, (shape, block_kv) in enumerate(SIZES):
        kernel = lower(attention_wgmma.build(*shape, causal=causal, block_kv=block_kv))
        inputs = attention_wgmma.make_inputs(*shape, seed=3200 + n)
        (out,) = execute(kernel, inputs)
        want = attention_wgmma.reference(*inputs, causal)
        err = float(np.abs(np.asarray(out, dtype=np.float64) - want).max() / np.abs(want).max())
        assert err <= attention_wgmma.TOLERANCE, (shape, causal, block_kv, err)
    print(f"attention_wgmma causal={causal}: matches numpy at {len(SIZES)} sizes")


if __name__ == "__main__":
    main(causal="causal" in sys.argv[1:])
