"""Run examples/matmul_epilogue of one kind on the GPU at three sizes and check it against numpy:
``python -m tests.runtime.run_matmul_epilogue alpha_beta [sub_tiled] [ping_pong] [producer] [carried]``. Used under
compute-sanitizer;
``sub_tiled`` walks the epilogue in 128 x 64 sub-tiles through a ring of staging tiles; ``ping_pong`` runs the ping-pong
kernel (128 x 128 per warp group, two blocks, so each group takes several tiles and loads C or the bias of each);
``producer`` (with ``sub_tiled``) has the producer warp group load C or the bias through a pipeline of sub-tiles
(``epilogue_loads="producer"``); ``carried`` walks 256 x 128 tiles in 256 x 32 sub-tiles, the ring carried across the
tile loop (``store_wait="carried"``), on two blocks so each walks several tiles."""

from __future__ import annotations

import sys

from examples import matmul_epilogue
from fusion_ir import DataType
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches

SIZES = [(256, 512, 192), (200, 264, 200), (384, 256, 512)]      # M, N, K


PING_PONG = {"ping_pong": True, "tile": (128, 128, 64), "stages": 4, "blocks": 2}
CARRIED = {"tile": (256, 128, 64), "epilogue_tile": (256, 32), "store_wait": "carried", "blocks": 2,
           "index_type": DataType.Int64}


def main(kind: str, sub_tiled: bool = False, ping_pong: bool = False, producer: bool = False,
         carried: bool = False) -> None:
    params = {**(PING_PONG if ping_pong else {}), **({"epilogue_tile": (128, 64)} if sub_tiled else {}),
              **({"epilogue_loads": "producer", "stages": "auto"} if producer else {}), **(CARRIED if carried else {})}
    fusion = matmul_epilogue.build(kind, **params)
    kernel = lower(fusion)
    for n, (m, nn, k) in enumerate(SIZES):
        inputs = matmul_epilogue.make_inputs(fusion, kind, m, nn, k, seed=5100 + n)
        assert_matches(fusion, inputs, execute(kernel, inputs), tol=matmul_epilogue.TOLERANCE)
    print(f"matmul_epilogue {kind}: matches numpy at {len(SIZES)} sizes")


if __name__ == "__main__":
    main(sys.argv[1], sub_tiled="sub_tiled" in sys.argv[2:], ping_pong="ping_pong" in sys.argv[2:],
         producer="producer" in sys.argv[2:], carried="carried" in sys.argv[2:])
