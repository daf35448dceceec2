"""The shared-memory model: where a block's shared buffers go and how many bytes they take.

One answer for every layer that counts shared memory. A ``BufferRequest`` is a buffer's bytes (per
stage, times its stage count), its alignment and its live interval (first and last position in any
order of events the caller picks; ``None``: live for the whole kernel). ``lay_out`` places the
requests the way the kernel does: first fit in order of first use (ties in request order), each
offset a multiple of the buffer's alignment, two buffers sharing bytes only when their intervals are
disjoint. ``bound`` is what the same buffers may take before their order and intervals are known:
an upper bound of ``lay_out`` over every order and every set of intervals.

Asked by the lowering's ``smem`` analysis (the kernel's real plan: live intervals read from the kernel
IR), the ``pipeline_depth`` analysis (``bound``, trying depths, before the kernel exists) and the
matmul scheduler's ``MatmulParams.smem_bytes`` (the buffers its schedule makes, on the timeline of
the kernel it lowers to). Pure and importing nothing of the project, so both ``fusion_ir`` and
``lowering`` can ask it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

MBARRIER_BYTES = 8      # one mbarrier: a 64-bit word of shared memory
MBARRIER_ALIGN = 8
GRANULE = 16            # ``bound`` counts every buffer in whole 16-byte units


@dataclass(frozen=True)
class BufferRequest:
    """One shared buffer: ``nbytes`` per stage, ``stages`` of them, starting at a multiple of ``align``,
    live from ``live[0]`` to ``live[1]`` inclusive (``None``: always)."""

    name: str
    nbytes: int
    align: int = GRANULE
    live: tuple[int, int] | None = None
    stages: int = 1

    @property
    def size(self) -> int:
        return self.nbytes * self.stages

    def overlaps(self, other: BufferRequest) -> bool:
        """Whether the two are ever live at once (a shared position counts)."""
        if self.live is None or other.live is None:
            return True
        return self.live[0] <= other.live[1] and other.live[0] <= self.live[1]


def mbarriers(name: str, slots: int, live: tuple[int, int] | None = None) -> BufferRequest:
    """An array of ``slots`` mbarriers."""
    return BufferRequest(name, slots * MBARRIER_BYTES, MBARRIER_ALIGN, live)


@dataclass(frozen=True)
class SmemLayout:
    """Each buffer's byte offset, the buffers whose bytes it takes over (dead by then), and the total."""

    offsets: dict[str, int] = field(default_factory=dict)
    reuses: dict[str, tuple[str, ...]] = field(default_factory=dict)
    total: int = 0


def align_up(offset: int, align: int) -> int:
    return (offset + align - 1) // align * align


def lay_out(requests: Sequence[BufferRequest]) -> SmemLayout:
    """First fit by first use: each buffer at the lowest aligned offset whose bytes no buffer live at
    the same time holds; the total is the end of the highest buffer."""
    placed: list[tuple[int, int, BufferRequest]] = []    # (offset, end, request)
    offsets: dict[str, int] = {}
    reuses: dict[str, tuple[str, ...]] = {}
    top = 0
    for req in sorted(requests, key=lambda r: -1 if r.live is None else r.live[0]):
        size = req.size
        offset = 0
        while True:
            offset = align_up(offset, req.align)
            clash = [p for p in placed if p[0] < offset + size and offset < p[1] and p[2].overlaps(req)]
            if not clash:
                break
            offset = max(p[1] for p in clash)
        dead = tuple(p[2].name for p in placed if p[0] < offset + size and offset < p[1])
        if dead:
            reuses[req.name] = dead
        offsets[req.name] = offset
        placed.append((offset, offset + size, req))
        top = max(top, offset + size)
    return SmemLayout(offsets, reuses, top)


def counted_bytes(req: BufferRequest) -> int:
    """A buffer's bytes as ``bound`` counts them: rounded up to 16."""
    return align_up(req.size, GRANULE)


def padding(requests: Sequence[BufferRequest]) -> int:
    """The most alignment padding the buffers laid end to end in any order may need.

    Every counted size is a multiple of 16, so only a buffer aligned to more than 16 bytes can need
    padding, at most ``alignment - 16``, and only after a buffer whose end may be misaligned: one
    not aligned to the largest alignment or not a multiple of it in size."""
    widest = max((r.align for r in requests), default=GRANULE)
    if widest <= GRANULE:
        return 0
    wide = sum(1 for r in requests if r.align > GRANULE)
    ragged = sum(1 for r in requests if r.align != widest or counted_bytes(r) % widest)
    return min(wide, ragged) * (widest - GRANULE)


def bound(requests: Sequence[BufferRequest]) -> int:
    """An upper bound of ``lay_out(requests).total`` whatever the requests' order and live intervals:
    the buffers end to end, never sharing bytes (first fit never ends above that), plus ``padding``."""
    return sum(counted_bytes(r) for r in requests) + padding(requests)
