"""32-bit index arithmetic: bound every index expression of a kernel by interval arithmetic.

Reads: the final kernel (its body, block and grid dimensions, index type) and, at launch, the
values of the extent and stride symbols.
Writes: nothing.
Guarantees: in a kernel that indexes in 32 bits (``Fusion.set_index_type(DataType.Int32)``)
every index, predicate, loop bound and hoisted ``Let`` expression, and every part of one (C
computes each in ``int``), lies in ``[-2**31, 2**31 - 1]`` for every thread, block and loop
iteration, or ``first_int32_overflow`` names it. Ranges: ``threadIdx.d`` in ``[0, block[d])``,
``blockIdx.d`` in ``[0, grid[d])``, a loop index in ``[start, stop)``, a ``Let`` its value's,
extents and strides their values (at launch) or unknown (at ``lower()``, where only expressions
made of constants and bounded indices are checked; the rest wait for the launch sizes).
``ceilDiv(a, b)`` also counts its ``a + b - 1``. Predicates are not used to narrow ranges: an
index is computed before the predicate that guards its use.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields, is_dataclass

from fusion_ir.scalar import Val
from fusion_ir.types import INT32_INDEX_MAX, DataType

from .kernel_ir import Buffer, ForLoop, IfThenElse, Kernel, Let, Node, body_fields, children, walk

INT32_INDEX_MIN = -INT32_INDEX_MAX - 1
Interval = tuple[int, int]
_AXES = "xyz"


@dataclass(frozen=True)
class Int32Overflow:
    """An index expression of a 32-bit kernel whose value, or a part's, can leave ``int``."""

    expression: Val          # the whole expression, as codegen prints it
    part: Val                # the smallest part that overflows
    bounds: Interval         # the part's range
    where: str               # the statement it belongs to

    def describe(self) -> str:
        part = "" if self.part is self.expression else f"; its part {self.part}"
        return (f"the index expression {self.expression} of {self.where}{part} reaches "
                f"[{self.bounds[0]}, {self.bounds[1]}], outside the int range [-2**31, 2**31 - 1]")


def first_int32_overflow(kernel: Kernel, env: Mapping[str, int] | None = None) -> Int32Overflow | None:
    """The first index expression of a 32-bit ``kernel`` that can overflow ``int`` (None if every
    bounded one fits, or the kernel indexes in 64 bits). ``env``: extent and stride values."""
    if kernel.index_type != DataType.Int32:
        return None
    ranges: dict[str, Interval | None] = {}
    known = dict(env or {})
    for d, axis in enumerate(_AXES):
        block = _interval(kernel.block[d], ranges, known)
        grid = _interval(kernel.grid[d], ranges, known)
        ranges[f"blockDim.{axis}"] = block
        ranges[f"gridDim.{axis}"] = grid
        ranges[f"threadIdx.{axis}"] = None if block is None else (0, max(block[1] - 1, 0))
        ranges[f"blockIdx.{axis}"] = None if grid is None else (0, max(grid[1] - 1, 0))
    return _scan(kernel.body, ranges, known)


def _scan(body: tuple[Node, ...], ranges: dict[str, Interval | None], env: Mapping[str, int]) -> Int32Overflow | None:
    for node in body:
        where = _describe(node)
        for v in _vals(node):
            found = _check(v, ranges, env, where)
            if found is not None:
                return found
        if isinstance(node, Let):
            ranges[node.name] = _interval(node.value, ranges, env)
            continue
        if isinstance(node, ForLoop):
            found = _scan_loop(node, ranges, env, where)
        else:
            found = next((f for _, sub in children(node) if (f := _scan(sub, ranges, env)) is not None), None)
        if found is not None:
            return found
    return None


def _scan_loop(loop: ForLoop, ranges: dict[str, Interval | None], env: Mapping[str, int],
               where: str) -> Int32Overflow | None:
    start, stop = _interval(loop.start, ranges, env), _interval(loop.stop, ranges, env)
    step = _interval(loop.step, ranges, env)
    index = None
    if start is not None and stop is not None:
        if stop[1] <= start[0]:
            return None                       # the loop never runs
        index = (start[0], stop[1] - 1)
        last = stop[1] - 1 + (step[1] if step is not None else 1)   # the index after the last ++
        if last > INT32_INDEX_MAX:
            return Int32Overflow(loop.stop, loop.index, (start[0], last), f"{where} (its index after the last step)")
    ranges[str(loop.index.name)] = index
    return _scan(loop.body, ranges, env)


def _check(v: Val, ranges: dict[str, Interval | None], env: Mapping[str, int], where: str) -> Int32Overflow | None:
    """The smallest part of ``v`` whose known range leaves ``int``."""
    for part in _parts(v):
        bounds = _interval(part, ranges, env)
        if bounds is not None and (bounds[0] < INT32_INDEX_MIN or bounds[1] > INT32_INDEX_MAX):
            return Int32Overflow(v, part, bounds, where)
    return None


def _parts(v: Val) -> Iterator[Val]:
    """Sub-expressions of ``v``, innermost first (each computes in ``int``)."""
    for a in v.args if v.op not in ("const", "sym") else ():
        yield from _parts(a)
    if v.op == "ceilDiv":         # ceilDiv32 computes a + b - 1 first
        yield v.args[0] + v.args[1]
    yield v


def _interval(v: Val, ranges: Mapping[str, Interval | None], env: Mapping[str, int]) -> Interval | None:
    """The range of ``v``'s values, or None when a symbol in it has no known range."""
    op = v.op
    if op == "const":
        n = int(v.value)  # type: ignore[arg-type]
        return n, n
    if op == "sym":
        name = str(v.name)
        if name in env:
            return int(env[name]), int(env[name])
        return ranges.get(name)
    args = [_interval(a, ranges, env) for a in v.args]
    if any(a is None for a in args):
        return None
    if op == "not" or op in ("lt", "le", "gt", "ge", "eq", "ne", "and", "or"):
        return 0, 1
    (alo, ahi), (blo, bhi) = args  # type: ignore[misc]
    if op == "xor":              # bitwise (a swizzle): no bit above the larger operand's highest
        if alo < 0 or blo < 0:
            return None
        return 0, (1 << max(ahi, bhi).bit_length()) - 1
    if op == "shl":              # a non-negative value shifted by a small non-negative count
        if alo < 0 or blo < 0 or bhi > 62:
            return None
        return alo << blo, ahi << bhi
    if op == "add":
        return alo + blo, ahi + bhi
    if op == "sub":
        return alo - bhi, ahi - blo
    if op == "mul":
        corners = (alo * blo, alo * bhi, ahi * blo, ahi * bhi)
        return min(corners), max(corners)
    if op in ("min", "max"):
        fn = min if op == "min" else max
        return fn(alo, blo), fn(ahi, bhi)
    if blo <= 0 <= bhi:
        return None                  # a divisor that may be zero: no bound
    if op == "div":
        corners = tuple(_trunc_div(a, b) for a in (alo, ahi) for b in (blo, bhi))
        return min(corners), max(corners)
    if op == "ceilDiv":
        corners = tuple(_trunc_div(a + b - 1, b) for a in (alo, ahi) for b in (blo, bhi))
        return min(corners), max(corners)
    if op == "mod":
        m = max(abs(blo), abs(bhi)) - 1
        return (0 if alo >= 0 else -m), (min(ahi, m) if alo >= 0 else m)
    return None


def interval(v: Val, ranges: Mapping[str, Interval | None]) -> Interval | None:
    """The range of ``v``'s values when each symbol in ``ranges`` lies in its interval; None when a symbol
    has no known range or a divisor may be zero."""
    return _interval(v, ranges, {})


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _vals(node: Node) -> Iterator[Val]:
    """The index expressions a statement computes itself (not those of the statements it nests; a
    loop's index is bounded by its start and stop)."""
    skip = set(body_fields(type(node))) | ({"index"} if isinstance(node, ForLoop) else set())
    for f in fields(node):  # type: ignore[arg-type]
        if f.name not in skip:
            yield from _vals_in(getattr(node, f.name))


def _vals_in(x: object) -> Iterator[Val]:
    if isinstance(x, Val):
        yield x
    elif isinstance(x, Buffer):
        return                       # a buffer's shape and strides are the kernel's parameters
    elif isinstance(x, (tuple, list)):
        for y in x:
            yield from _vals_in(y)
    elif is_dataclass(x) and not isinstance(x, type):
        for f in fields(x):
            yield from _vals_in(getattr(x, f.name))


def _describe(node: Node) -> str:
    buffers = sorted({b.name for b in _buffers_in(node)})
    if isinstance(node, IfThenElse):
        guarded = sorted({b.name for n in walk(node.then_body) for b in _buffers_in(n)})
        return "the predicate" + (f" guarding {', '.join(guarded)}" if guarded else "")
    if isinstance(node, ForLoop):
        return f"the loop over {node.index} ({node.label})" if node.label else f"the loop over {node.index}"
    if isinstance(node, Let):
        return f"the hoisted index {node.name}"
    return f"a {type(node).__name__}" + (f" of {', '.join(buffers)}" if buffers else "")


def _buffers_in(x: object) -> Iterator[Buffer]:
    if isinstance(x, Buffer):
        yield x
    elif isinstance(x, (tuple, list)):
        for y in x:
            yield from _buffers_in(y)
    elif is_dataclass(x) and not isinstance(x, (type, Val)):
        nested = set(body_fields(type(x)))
        for f in fields(x):
            if f.name not in nested:
                yield from _buffers_in(getattr(x, f.name))
