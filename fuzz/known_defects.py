"""Defects the fuzzer knows of and counts instead of failing on, until their fixes land.

Each entry recognises one defect by the exception it raises (its type, its ``InputRule``, the
function it came out of), not by a whole message; ``known_defect`` names it. Remove an entry
when its fix lands: the fuzzer then fails on the defect again if the fix is incomplete.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable



def _raised_in(e: BaseException, function: str, file_part: str = "") -> bool:
    return any(frame.name == function and file_part in frame.filename
               for frame in traceback.extract_tb(e.__traceback__))


def _raised_in_file(e: BaseException, file_part: str) -> bool:
    return any(file_part in frame.filename for frame in traceback.extract_tb(e.__traceback__))


DEFECTS: dict[str, Callable[[BaseException], bool]] = {}


def known_defect(e: BaseException) -> str | None:
    """The known defect ``e`` is, or None."""
    for name, matches in DEFECTS.items():
        if matches(e):
            return name
    return None
