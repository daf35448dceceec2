"""What a statement handler of the simulator works with: the task and lanes executing it (``Ctx``), the
``Blocked`` value a waiting task yields, the handler signature, and the ``Progress`` counters.

A handler is ``handler(node, ctx, i)`` (``i``: the statement's index in its list). A handler that is a
generator may block (``yield from`` it; it returns the context that continues); any other handler
returns the continuing context, or None for "unchanged". A component that executes statements lists
its handlers in ``handles()``; ``sim_control`` dispatches on the node type through them.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


class Blocked:
    """Yielded by a task that cannot make progress; ``describe`` says what it waits for."""

    __slots__ = ("describe",)

    def __init__(self, describe: Callable[[], list[str]]) -> None:
        self.describe = describe


SWITCH = Blocked(lambda: ["(yielded to other tasks)"])


@dataclass
class Task:
    name: str
    lanes: np.ndarray
    key: tuple = ()   # ("warp", w) for a root task, extended by (if site, branch) for each fork


@dataclass
class Ctx:
    """The lanes executing a statement list and their symbol values (arrays are per lane)."""

    lanes: np.ndarray
    env: dict[str, Any]
    task: Task
    path: tuple = ()              # dynamic position: statement indices, branch and iteration numbers
    site: tuple = ()              # static position: statement indices and branch numbers
    loops: tuple[str, ...] = ()   # enclosing loop index symbols (for traces)

    def narrow(self, keep: np.ndarray) -> Ctx:
        env = {name: (v[keep] if isinstance(v, np.ndarray) else v) for name, v in self.env.items()}
        return Ctx(self.lanes[keep], env, self.task, self.path, self.site, self.loops)

    def enter(self, path: tuple, site: tuple) -> Ctx:
        return Ctx(self.lanes, self.env, self.task, self.path + path, self.site + site, self.loops)

    def empty(self) -> Ctx:
        return self.narrow(np.zeros(self.lanes.size, dtype=bool))


TaskGen = Generator[Blocked, None, Ctx]

# ``handler(node, ctx, i)``: returns a ``Ctx``, None, or (a statement that may block) a ``TaskGen``
Handler = Callable[[Any, Ctx, int], Any]


class ExecutesStatements(Protocol):
    """A component with statement handlers: ``handles()`` maps each kernel-IR node class it executes to one."""

    def handles(self) -> dict[type, Handler]: ...


class Progress:
    """The counters the scheduler reads. ``changes`` grows with everything that may let a waiting task go on
    (a statement executed, a barrier released, a copy landed, a thread exited or a task ended): a round of
    the scheduler without a change is a deadlock. ``steps`` counts the statements executed (trace times)."""

    def __init__(self) -> None:
        self.changes = 0
        self.steps = 0

    def advance(self) -> None:
        self.changes += 1


__all__ = ["SWITCH", "Blocked", "Ctx", "ExecutesStatements", "Handler", "Progress", "Task", "TaskGen"]
