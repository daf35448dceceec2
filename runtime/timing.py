"""Time device work the way a benchmark should: ``interleaved_ms(fns, batch, rounds)``.

Each function enqueues device work and returns (``runtime.executor.prepare``'s launch, a torch call).
A batch of ``batch`` back-to-back calls is captured once into a CUDA graph per function, so that the
host's cost of launching (Python, argument packing) stays out of the numbers: replaying the graph
enqueues the whole batch at once. Then ``rounds`` rounds each replay every function's graph in turn
between CUDA events, so that clock and temperature drift during the run fall on all of them alike,
and the result is each function's median milliseconds per call.

A function that cycles through input sets (``rotating``) is captured cycling: the graph holds the
batch's calls in order, each on its own inputs. Graphs and events are torch's; without torch, cupy's events
time batches launched from the host (no graphs), after half a second of warm-up so the clocks are up.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

WARMUP_CALLS = 3
WARMUP_SECONDS = 0.5


def interleaved_ms(fns: Sequence[Callable[[], object]], batch: int, rounds: int = 15, *,
                   graphs: bool = True) -> list[float]:
    """Median milliseconds per call of each of ``fns`` over ``rounds`` interleaved rounds of ``batch`` calls
    (``graphs``: captured into a CUDA graph and replayed, with torch; otherwise launched from the host each round)."""
    if batch < 1 or rounds < 1:
        raise ValueError(f"interleaved_ms: batch {batch} and rounds {rounds} must be positive")
    events, synchronize, torch_events = _events()
    graphs = graphs and torch_events
    runs = [_graph_of(fn, batch) if graphs else _loop_of(fn, batch) for fn in fns]
    for run in runs:
        run()
    synchronize()
    if not graphs:                                   # launched from the host: bring the clocks up first
        end_warm = time.perf_counter() + WARMUP_SECONDS
        while time.perf_counter() < end_warm:
            runs[0]()
            synchronize()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(rounds):
        for i, run in enumerate(runs):
            start, end = events()
            start.record()
            run()
            end.record()
            end.synchronize()
            times[i].append(_elapsed_ms(start, end) / batch)
    return [statistics.median(t) for t in times]


def _events() -> tuple[Callable[[], tuple[Any, Any]], Callable[[], None], bool]:
    """A pair of timing events on the current stream, a device synchronize, and whether they are torch's (else
    cupy's)."""
    try:
        import torch
    except ImportError:
        import cupy

        return (lambda: (cupy.cuda.Event(), cupy.cuda.Event())), (lambda: cupy.cuda.Device().synchronize()), False
    return ((lambda: (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))),
            torch.cuda.synchronize, True)


def _elapsed_ms(start: Any, end: Any) -> float:
    if hasattr(start, "elapsed_time"):
        return float(start.elapsed_time(end))                   # torch
    import cupy

    return float(cupy.cuda.get_elapsed_time(start, end))


def _loop_of(fn: Callable[[], object], batch: int) -> Callable[[], None]:
    def run() -> None:
        for _ in range(batch):
            fn()
    return run


def _graph_of(fn: Callable[[], object], batch: int) -> Callable[[], None]:
    """``batch`` calls of ``fn`` captured into one CUDA graph (after warm-up calls on the capturing
    stream, which torch needs before capturing its own work: workspaces, handles)."""
    import torch

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(WARMUP_CALLS):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(batch):
            fn()
    return graph.replay
