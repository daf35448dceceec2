"""Draw a held-out set of matmul problems for ``bench/matmul_shapes.py --shapes``, reproducibly from a seed.

``python bench/probes/draw_shapes.py --seed N [--kind mixed|large|narrow|short]`` prints one comma-separated
``--shapes`` argument. ``mixed`` draws from the kinds of the bench's own list (squares, small and large K, skinny,
batched, transposed operands, sizes that are not multiples of 64, rows TMA cannot copy), each size at random within
its kind's range;
``large``: 16 plain problems, each side a multiple of 8 or of 64 in 2048-16384; ``narrow``: 8 problems of N at most
64 (a multiple of 8), M of 1000-16000 and K a multiple of 8 in 1000-16000, one in four with B given transposed;
``short``: 10 problems of M at most 256 (any M), N a multiple of 8 in 1000-12000 and K a multiple of 8 in 256-16000, one
in four with B given transposed.
"""
from __future__ import annotations

import argparse
import random


def _between(rng: random.Random, lo: int, hi: int, step: int) -> int:
    return rng.randrange(lo // step, hi // step + 1) * step


def mixed(r: random.Random) -> list[str]:
    """Twenty problems, in the proportions of the bench's list."""
    shapes = []
    for _ in range(2):                                            # squares
        s = _between(r, 1024, 16384, 256)
        shapes.append(f"{s}x{s}x{s}")
    for _ in range(3):                                            # small K
        shapes.append(f"{_between(r, 2048, 16384, 64)}x{_between(r, 2048, 16384, 64)}x{_between(r, 128, 512, 64)}")
    for _ in range(2):                                            # large K
        shapes.append(f"{_between(r, 512, 4096, 256)}x{_between(r, 512, 4096, 256)}x{_between(r, 16384, 32768, 1024)}")
    for _ in range(3):                                            # skinny M or N
        thin, wide, k = _between(r, 64, 512, 64), _between(r, 4096, 16384, 256), _between(r, 2048, 8192, 256)
        shapes.append(f"{thin}x{wide}x{k}" if r.random() < 0.5 else f"{wide}x{thin}x{k}")
    for _ in range(3):                                            # batched, LLM-like
        b, m, n = r.randrange(8, 65), _between(r, 128, 2048, 128), _between(r, 128, 2048, 128)
        k = _between(r, 64, 2048, 64)
        form = r.choice(["", ":bt", ":shared"])
        shapes.append(f"{b}x{m}x{n}x{k}{form}")
    for form in (":bt", ":bt", ":at"):                            # an operand given transposed
        m, n, k = _between(r, 1024, 8192, 256), _between(r, 2048, 16384, 256), _between(r, 2048, 16384, 256)
        shapes.append(f"{m}x{n}x{k}{form}")
    for _ in range(3):                                            # not multiples of 64 (rows still 16-byte multiples)
        shapes.append(f"{r.randrange(500, 8001)}x{_between(r, 504, 8000, 8)}x{_between(r, 504, 8000, 8)}")
    shapes.append(f"{r.randrange(500, 8001)}x{_between(r, 504, 8000, 8)}x{r.randrange(100, 4001) | 1}")  # odd K
    return shapes


def large(rng: random.Random) -> list[str]:
    """Sixteen plain problems, each side a multiple of 8 or of 64 (the draw's choice) in 2048-16384."""
    return ["x".join(str(_between(rng, 2048, 16384, rng.choice((8, 64)))) for _ in range(3)) for _ in range(16)]


def _form(rng: random.Random, m: int, n: int, k: int) -> str:
    """``MxNxK``, with B given transposed one time in four."""
    return f"{m}x{n}x{k}{':bt' if rng.random() < 0.25 else ''}"


def narrow(rng: random.Random) -> list[str]:
    """Eight problems of N at most 64 columns."""
    return [_form(rng, rng.randrange(1000, 16001), _between(rng, 8, 64, 8), _between(rng, 1000, 16000, 8))
            for _ in range(8)]


def short(rng: random.Random) -> list[str]:
    """Ten problems of M at most 256 rows."""
    return [_form(rng, rng.randrange(1, 257), _between(rng, 1000, 12000, 8), _between(rng, 256, 16000, 8))
            for _ in range(10)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--kind", choices=("mixed", "large", "narrow", "short"), default="mixed")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    print(",".join({"mixed": mixed, "large": large, "narrow": narrow, "short": short}[args.kind](rng)))


if __name__ == "__main__":
    main()
