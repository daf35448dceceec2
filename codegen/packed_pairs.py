"""Pairs of relu-then-convert statements written as one packed conversion with the relu folded in.

An epilogue that ends in ``relu`` and a 16-bit output writes, per element, ``T[i] = (bf16)(relu(x))``: a max
and a conversion, of which nvcc merges the conversions of two neighbours into one packed ``F2FP`` but keeps
each max (``FMNMX``). ``cvt.rn.relu.bf16x2.f32`` (and ``.f16x2``) converts two floats and clamps negative
results to zero in the one instruction, so a pair costs one instruction where it took three.

``find(body)`` finds the pairs: two consecutive ``Assign`` s into a Local array of 16-bit floats, elements
``2 j`` and ``2 j + 1`` (checked over every iteration of the constant loops around them), each the conversion
of a float ``relu``, the second not reading the array. The back end declares such an array as 32-bit words
(``{name}_w``; its elements a view of them only where something else reads or writes one: ``Pairs.viewed``), writes
the pair's word at the first statement and nothing at the second, and hands an ``stmatrix`` its words as they are. Such a pair's elements differ from the unpacked
statements in one case only: a NaN stays a NaN (as numpy's and torch's relu keep it), where ``fmaxf`` gave 0.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from fusion_ir import DataType, MemoryType
from fusion_ir.scalar import Val

from lowering.effects import buffers_touched, value_reads
from lowering.kernel_ir import Allocate, Assign, CastValue, ForLoop, Node, StMatrix, UnaryValue, children, walk

PACKED_TYPES = {DataType.BFloat16: "bf16x2", DataType.Half: "f16x2"}   # cvt.rn.relu.<t>.f32
FUNCTIONS = {DataType.BFloat16: "reluPairBf16", DataType.Half: "reluPairHalf"}   # packed_relu.cuh
MAX_POINTS = 4096     # iterations of the loops around a pair enumerated to check its indices


@dataclass
class Pairs:
    """The pairs of a kernel: each first statement (by ``id``) and its second; the arrays they write."""

    second_of: dict[int, Assign] = field(default_factory=dict)
    seconds: set[int] = field(default_factory=set)
    buffers: set[str] = field(default_factory=set)
    viewed: set[str] = field(default_factory=set)     # also accessed element by element


def find(body: tuple[Node, ...]) -> Pairs:
    pairs = Pairs()
    refused: set[str] = set()

    def visit(stmts: tuple[Node, ...], loops: tuple[ForLoop, ...]) -> None:
        j = 0
        while j < len(stmts):
            a = stmts[j]
            b = stmts[j + 1] if j + 1 < len(stmts) else None
            if isinstance(a, Assign) and isinstance(b, Assign) and _pair(a, b, loops):
                pairs.second_of[id(a)] = b
                pairs.seconds.add(id(b))
                pairs.buffers.add(a.buffer.name)
                j += 2
                continue
            for _, sub in children(a):
                visit(sub, (*loops, a) if isinstance(a, ForLoop) else loops)
            j += 1

    visit(body, ())
    # an array is words only if every write of it is such a pair: any other write goes through the element view
    for x in walk(body):
        if isinstance(x, Assign) and x.buffer.name in pairs.buffers and x.vector != 1:
            refused.add(x.buffer.name)
    if refused:
        keep = {i: b for i, b in pairs.second_of.items() if b.buffer.name not in refused}
        pairs = Pairs(keep, {id(b) for b in keep.values()}, pairs.buffers - refused)
    # read element by element anywhere (an stmatrix reads the words): the element view is declared too
    paired = pairs.seconds | set(pairs.second_of)
    for x in walk(body):
        if id(x) not in paired and not isinstance(x, Allocate) and not (isinstance(x, StMatrix) and x.src.name in pairs.buffers):
            pairs.viewed |= {e.name for e in buffers_touched(x)} & pairs.buffers
    return pairs


def relu_of(value: object) -> object | None:
    """``x`` where ``value`` is a conversion of ``relu(x)`` (a float) to a 16-bit float, else None."""
    if (isinstance(value, CastValue) and value.dtype in PACKED_TYPES and isinstance(value.x, UnaryValue)
            and value.x.op == "relu" and value.x.dtype == DataType.Float):
        return value.x.x
    return None


def _pair(a: Assign, b: Assign, loops: tuple[ForLoop, ...]) -> bool:
    buf = a.buffer
    if (b.buffer.name != buf.name or buf.memory is not MemoryType.Local or buf.dtype not in PACKED_TYPES
            or buf.size.const_value() is None or buf.size.const_value() % 2):
        return False
    for s in (a, b):
        if s.reduce_op is not None or s.vector != 1 or s.valid is not None or relu_of(s.value) is None:
            return False
    if any(e.name == buf.name for e in value_reads(b.value)):
        return False
    return _adjacent(a.index, b.index, loops)


def _adjacent(first: Val, second: Val, loops: tuple[ForLoop, ...]) -> bool:
    """``first`` is even and ``second`` is ``first + 1`` in every iteration of the constant loops around them."""
    names = first.symbols() | second.symbols()
    used = [loop for loop in loops if loop.index.name in names]
    if names != {loop.index.name for loop in used}:
        return False
    ranges = []
    for loop in used:
        bounds = [v.const_value() for v in (loop.start, loop.stop, loop.step)]
        if None in bounds or bounds[2] <= 0:
            return False
        ranges.append(range(*bounds))
    if _count(ranges) > MAX_POINTS:
        return False
    for point in itertools.product(*ranges):
        env = {loop.index.name: v for loop, v in zip(used, point)}
        i, j = int(first.evaluate(env)), int(second.evaluate(env))
        if i % 2 or j != i + 1:
            return False
    return True


def _count(ranges: list[range]) -> int:
    n = 1
    for r in ranges:
        n *= len(r)
    return n
