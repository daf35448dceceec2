"""Run examples/attention_wgmma (attention on one warp group of tensor cores) on the GPU at small sizes, causal and
not, and check it against numpy: ``python -m tests.runtime.run_attention_wgmma [causal] [structures]`` (``structures``:
each kernel structure of ``STRUCTURES`` at each size, the K/V pipeline, the producer warp group, two compute warp
groups, those taking turns: ping-pong). Used under compute-sanitizer."""

from __future__ import annotations

import sys

import numpy as np

from examples import attention_wgmma
from lowering import lower
from runtime import execute

SIZES = [((1, 2, 200, 200, 64), 64), ((2, 1, 130, 70, 128), 128),   # (B, H, Sq, Skv, D), block_kv: ragged blocks
         ((1, 2, 100, 333, 64), 64)]                                  # causal: tiles of 2 of the 6 key blocks


# the kernel's structure (``attention_wgmma.KernelShape``): build()'s keyword arguments
STRUCTURES = {
    "single_stage": {},
    "s2": {"stages": 2},
    "s3_wg2": {"stages": 3, "compute_warp_groups": 2},
    "ws_s2": {"stages": 2, "warp_specialized": True},
    "ws_s3_wg2_rs": {"stages": 3, "warp_specialized": True, "compute_warp_groups": 2, "register_split": (24, 240)},
    # the two compute warp groups taking turns on the tensor cores (named barriers around each wgmma section)
    "s2_wg2_pp": {"stages": 2, "compute_warp_groups": 2, "ping_pong": True},
    "ws_s2_wg2_rs_pp": {"stages": 2, "warp_specialized": True, "compute_warp_groups": 2, "register_split": (24, 240),
                        "ping_pong": True},
    # the intra-warp-group overlap: o_{j-1} issued after s_j, under block j's softmax (TensorView.defer)
    "s3_ov": {"stages": 3, "overlap": True},
    "ws_s3_wg2_rs_ov": {"stages": 3, "warp_specialized": True, "compute_warp_groups": 2, "register_split": (24, 240),
                        "overlap": True},
    # persistent: the target's SM count of blocks walk the tiles; 3 blocks, each several tiles
    "pers": {"persistent": True},
    "pers3_wg2": {"persistent": True, "blocks": 3, "compute_warp_groups": 2},
}
PING_PONG = [name for name, shape in STRUCTURES.items() if shape.get("ping_pong")]


def main(causal: bool = False, structures: tuple[str, ...] = ("single_stage",)) -> None:
    for name in structures:
        for n, (shape, block_kv) in enumerate(SIZES):
            kernel = lower(attention_wgmma.build(*shape, causal=causal, block_kv=block_kv, **STRUCTURES[name]))
            inputs = attention_wgmma.make_inputs(*shape, seed=3200 + n)
            (out,) = execute(kernel, inputs)
            want = attention_wgmma.reference(*inputs, causal)
            err = float(np.abs(np.asarray(out, dtype=np.float64) - want).max() / np.abs(want).max())
            assert err <= attention_wgmma.TOLERANCE, (shape, causal, block_kv, name, err)
    print(f"attention_wgmma causal={causal} {', '.join(structures)}: matches numpy at {len(SIZES)} sizes")


if __name__ == "__main__":
    main(causal="causal" in sys.argv[1:],
         structures=tuple(STRUCTURES) if "structures" in sys.argv[1:] else ("single_stage",))
