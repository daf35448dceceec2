"""The device helper files (``*.cuh`` beside this module) and which of them a kernel needs.

Helpers are pasted into the translation unit, dependencies first, in the order of
``HELPER_DEPENDENCIES`` (every helper comes after the ones it depends on).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

HELPER_DIR = Path(__file__).parent

# name -> helpers it uses. Insertion order is a valid paste order.
HELPER_DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "types": (),
    "tensor": ("types",),
    "smem": ("types",),
    "fence": (),
    "setmaxnreg": (),
    "named_barrier": ("types",),
    "mbarrier": ("smem",),
    "tma": ("tensor", "smem"),
    "cluster": ("tensor", "smem"),
    "cp_async": ("smem",),
    "misaligned": ("types",),
    "block_reduce": ("types",),
    "wgmma": ("types", "smem"),
    "stmatrix": ("types",),
    "stmatrix_trans": ("types",),
    "ldmatrix": ("types",),
    "packed_relu": ("types",),
    "grid_sync": (),
}


@cache
def helper_text(name: str) -> str:
    return (HELPER_DIR / f"{name}.cuh").read_text()


def with_dependencies(names: set[str]) -> list[str]:
    """``names`` plus everything they depend on, in paste order."""
    needed: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        if name not in HELPER_DEPENDENCIES:
            raise KeyError(f"unknown device helper {name!r}")
        needed.add(name)
        todo.extend(HELPER_DEPENDENCIES[name])
    return [name for name in HELPER_DEPENDENCIES if name in needed]


def helpers_source(names: set[str]) -> str:
    """The text of the helpers ``names`` need, dependencies first."""
    return "\n".join(helper_text(name) for name in with_dependencies(names))
