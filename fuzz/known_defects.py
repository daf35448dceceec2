"""Defects the fuzzer knows of and counts instead of failing on, until their fixes land.

Each entry recognises one defect by the exception it raises (its type, its ``InputRule``, the
function it came out of), not by a whole message; ``known_defect`` names it. Remove an entry
when its fix lands: the fuzzer then fails on the defect again if the fix is incomplete.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable

from lowering.kernel_ir import InputRule


def _raised_in(e: BaseException, function: str, file_part: str = "") -> bool:
    return any(frame.name == function and file_part in frame.filename
               for frame in traceback.extract_tb(e.__traceback__))


def _raised_in_file(e: BaseException, file_part: str) -> bool:
    return any(file_part in frame.filename for frame in traceback.extract_tb(e.__traceback__))


DEFECTS: dict[str, Callable[[BaseException], bool]] = {
    # a 0-D output stored by TMA: lowering/analysis/tma.py indexes the box of a tensor without axes
    "0-D TMA store (IndexError in lowering/analysis/tma.py)":
        lambda e: isinstance(e, IndexError) and _raised_in_file(e, "lowering/analysis/tma.py"),
    # buffers.read_only_by_wgmma walks a set in an order that reaches a tensor no expression uses
    "unused tensor in buffers.read_only_by_wgmma (KeyError)":
        lambda e: isinstance(e, KeyError) and _raised_in(e, "read_only_by_wgmma"),
    # a shared-memory size refers to a hoisted index (a Let symbol, h0, ...) the launch cannot evaluate
    "shared-memory size refers to a Let symbol (unbound h<N>)":
        lambda e: getattr(e, "rule", None) is InputRule.UNBOUND_SYMBOL and " h" in str(e).split("(from")[0],
    # stages="auto" over a loop of symbolic trip count picks a pipeline far deeper than any loop drawn
    "stages='auto' with a symbolic trip count picks hundreds of stages (PipelineFillError)":
        lambda e: getattr(e, "rule", None) is InputRule.PIPELINE_FILL and _stages(str(e)) > AUTO_STAGES_SANE,
    # a 0-size extent bound to a thread axis makes a block of 0 threads, which the launch refuses
    # (LaunchError) where the kernel should run with the empty axis predicated off (a reduction over it
    # still writes its identity)
    "0-size extent bound to a thread axis (block of 0 threads, LaunchError)":
        lambda e: type(e).__name__ == "LaunchError" and _empty_block(str(e)),
}
AUTO_STAGES_SANE = 16


def _empty_block(message: str) -> bool:
    found = re.search(r"block \((\d+), (\d+), (\d+)\)", message)
    return found is not None and "0" in found.groups()


def _stages(message: str) -> int:
    found = re.search(r"pipeline of (\d+) stages", message)
    return 0 if found is None else int(found.group(1))


def known_defect(e: BaseException) -> str | None:
    """The known defect ``e`` is, or None."""
    for name, matches in DEFECTS.items():
        if matches(e):
            return name
    return None
