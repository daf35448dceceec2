"""Kernel IR: the lowered program as immutable dataclasses.

Statements (``ForLoop``, ``IfThenElse``, ``Assign``, ``BlockSync``, mbarrier and TMA ops, ...)
nest into a body; values (``Load``, ``Const``, ``UnaryValue``, ...) form the right-hand sides.
Every index and predicate is a symbolic ``Val`` over these symbols:

- extents of inputs (``i0``, ``i1``, ...) and element strides of every global tensor
  (``T0_stride0``), bound from the actual arguments;
- ``threadIdx.x/y/z``, ``blockIdx.x/y/z``, ``blockDim.x/y/z``, ``gridDim.x/y/z``;
- loop indices (``i17``), bound by their ``ForLoop``.

Passes rebuild nodes (``dataclasses.replace``) rather than mutate them. The nodes live in
``lowering.kir_nodes``, re-exported here; this module adds the ``Kernel`` and argument binding.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType, ParallelType, SmemSwizzle

from .kir_nodes import (
    NODE_TYPES,
    Allocate,
    Assign,
    AsyncCommit,
    AsyncKind,
    AsyncWait,
    BinaryValue,
    BlockReduce,
    BlockSync,
    Buffer,
    CastValue,
    ClusterSync,
    Comment,
    CompareValue,
    Const,
    Continue,
    CopyKind,
    CpAsync,
    Discard,
    ElectSync,
    FenceAsyncProxy,
    ForLoop,
    GridFence,
    IfThenElse,
    LdMatrix,
    Let,
    Load,
    MatrixDescriptor,
    MBarrierArrive,
    MBarrierArriveExpectTx,
    MBarrierInit,
    MBarrierInval,
    MBarrierRemoteArrive,
    MBarrierWait,
    MBarrierWaitParity,
    Mma,
    NamedBarrier,
    Node,
    NodeVisitor,
    RegisterFragment,
    Return,
    ScalarParam,
    ScalarValue,
    SelectValue,
    SemaphoreArrive,
    SetMaxNReg,
    Stage,
    StMatrix,
    TensorMapParam,
    TensorOp,
    TensorOpKind,
    TmaLoad,
    TmaStore,
    UnaryValue,
    Value,
    WarpShuffleXor,
    WgmmaFence,
    body_fields,
    children,
    map_bodies,
    map_vals,
    rewrite,
    substitute,
    walk,
)
from .kir_printer import body_lines

__all__ = ["DataType", "MemoryType", "ParallelType", "SmemSwizzle", "Val",  # the types nodes hold
           "Allocate", "ArgumentBinding", "ArgumentError", "Assign", "AsyncCommit", "AsyncKind", "AsyncWait", "BinaryValue",
           "BlockReduce", "BlockSync", "Buffer", "CastValue", "ClusterSync", "CompareValue", "Comment", "Const", "Continue", "CopyKind", "CpAsync", "Discard",
           "ElectSync", "FenceAsyncProxy", "ForLoop", "GridFence", "IfThenElse", "Kernel", "LdMatrix", "Let", "Load", "MBarrierArrive",
           "MBarrierArriveExpectTx", "MBarrierInit", "MBarrierInval", "MBarrierRemoteArrive", "MBarrierWait", "MBarrierWaitParity",
           "MatrixDescriptor", "Mma", "NODE_TYPES", "NamedBarrier", "Node", "NodeVisitor", "RegisterFragment", "Return",
           "RuntimeCheck", "ScalarParam", "ScalarValue", "Scratch", "SelectValue", "SemaphoreArrive", "SetMaxNReg", "StMatrix", "Stage", "TensorMapParam", "TensorOp", "TensorOpKind", "TmaLoad",
           "TmaStore", "UnaryValue", "Value", "WarpShuffleXor", "WgmmaFence", "bind_arguments", "body_fields", "children",
           "map_bodies", "map_vals", "rewrite", "substitute", "walk"]


# ---------------------------------------------------------------- kernel
class InputRule(enum.Enum):
    """The rule an argument breaks, carried by ``ArgumentError``, ``RuntimeCheck`` and ``runtime.InputError``.

    Size rules (``is_size_rule``) refuse sizes a kernel was not made for (a pipeline longer than the
    loop, a vector width that does not divide an extent, tensors too large for 32-bit indices);
    the others say the arguments or the kernel itself are wrong.
    """

    ARGUMENT_COUNT = "argument count"
    ARGUMENT_TYPE = "argument type"
    DTYPE = "dtype"
    RANK = "rank"
    SHAPE = "shape"                      # an extent differs from the kernel's or another input's binding
    STRIDE = "stride"                    # negative, non-contiguous where contiguity is required
    EQUAL_EXTENTS = "equal extents"      # the fusion declared two extents equal (both operands of an add)
    VECTOR_DIVISIBLE = "vector divisible"
    VECTOR_CONTIGUOUS = "vector contiguous"
    PIPELINE_FILL = "pipeline fill"
    INDEX_TYPE = "index type"            # 32-bit indices and a tensor with 2**31 or more elements
    TMA_LAYOUT = "TMA layout"            # unit innermost stride, 16-byte strides, extents under 2**32
    TMA_ALIGNMENT = "TMA alignment"
    SHARED_MEMORY = "shared memory"      # shared memory sized by the extents, over the block's limit at these
    UNBOUND_SYMBOL = "unbound symbol"    # a size the kernel needs is no extent or stride of any input
    DIVISION_BY_ZERO = "division by zero"
    DEVICE = "device"
    OTHER = "other"

    @property
    def is_size_rule(self) -> bool:
        return self in SIZE_RULES


SIZE_RULES = frozenset({InputRule.EQUAL_EXTENTS, InputRule.VECTOR_DIVISIBLE, InputRule.VECTOR_CONTIGUOUS,
                        InputRule.PIPELINE_FILL, InputRule.INDEX_TYPE, InputRule.TMA_LAYOUT,
                        InputRule.SHARED_MEMORY})


@dataclass(frozen=True)
class RuntimeCheck:
    """A condition on the arguments checked before launch (by the executor and the simulator).

    ``rule`` is what a failure breaks; ``subject`` the tensor it is about (``"T3"``), when one is."""

    cond: Val
    message: str
    rule: InputRule = InputRule.OTHER
    subject: str | None = None


@dataclass(frozen=True)
class LaunchRequirement:
    """A rule on a launch's arguments that lowering records where the sizes leave it open (symbolic extents, and
    strides, which only the arguments give); the launch plan (executor and simulator) checks every recorded one
    rather than deriving rules again. Lowering itself refuses, naming the tensor and the rule, a kernel whose
    constant sizes already break one.

    ``holds`` is a condition on the kernel's extent and stride symbols. ``shown`` are the values a failure
    prints: each a template with one ``{}`` and the value that fills it (without them, the condition's
    symbols). A launch that breaks it raises ``InputError`` with ``input_rule`` and the tensor.
    """

    tensor: str
    rule: str
    holds: Val
    shown: tuple[tuple[str, Val], ...] = ()
    input_rule: InputRule = InputRule.OTHER

    def check(self, env: Mapping[str, int]) -> str | None:
        """None when the arguments' bound symbols ``env`` meet the rule; else the message: tensor, rule, values."""
        if bool(self.holds.evaluate(env)):
            return None
        values = [template.format(int(v.evaluate(env))) for template, v in self.shown]
        if not values:
            values = [f"{s} = {env[s]}" for s in sorted(self.holds.symbols()) if s in env]
        return f"{self.tensor}: {self.rule}; {', '.join(values)}"

    def __str__(self) -> str:
        return f"{self.tensor}: {self.rule} ({self.holds})"


@dataclass(frozen=True)
class Scratch:
    """Global memory the kernel owns, passed as a parameter of its own after the outputs: the executor
    and the simulator allocate ``buffer.size`` elements (sized from the launch's arguments) for each
    launch, zero-filled when ``zeroed`` (a grid reduction's semaphores, which the last block puts back
    to zero), else left as they come (its work buffer of partials, written before it is read)."""

    buffer: Buffer
    zeroed: bool = False
    purpose: str = ""


@dataclass(frozen=True)
class Kernel:
    name: str
    body: tuple[Node, ...]
    inputs: tuple[Buffer, ...]
    outputs: tuple[Buffer, ...]
    tensor_maps: tuple[TensorMapParam, ...]
    grid: tuple[Val, Val, Val]
    block: tuple[Val, Val, Val]
    smem_bytes: Val
    checks: tuple[RuntimeCheck, ...] = ()
    launch_bounds: int | None = None
    fusion: Any = field(default=None, compare=False, repr=False)
    index_type: DataType = DataType.Int64   # the C type of index arithmetic (the fusion's index_type)
    launch_requirements: tuple[LaunchRequirement, ...] = ()   # rules on the arguments the launch plan checks
    scratch: tuple[Scratch, ...] = ()      # kernel-owned global buffers (grid reductions), after the outputs
    cluster_dims: tuple[int, int, int] = (1, 1, 1)   # blocks per thread-block cluster (``__cluster_dims__``)
    min_blocks_per_sm: int = 1             # ``__launch_bounds__(launch_bounds, min_blocks_per_sm)``
    # the fusion's scalar inputs, parameters by value after the tensor maps, and where each sits among the
    # arguments ``execute`` and ``simulate`` take (the order of ``fusion.inputs``)
    scalars: tuple[ScalarParam, ...] = ()
    scalar_positions: tuple[int, ...] = ()

    @property
    def argument_count(self) -> int:
        """How many inputs a launch takes: the tensor inputs and the scalars."""
        return len(self.inputs) + len(self.scalars)

    def argument_names(self) -> list[str]:
        """The inputs' names in the order a launch takes them (``T0, T1, S2``)."""
        names = [b.name for b in self.inputs]
        for position, scalar in zip(self.scalar_positions, self.scalars):
            names.insert(position, scalar.name)
        return names

    @property
    def params(self) -> tuple[Buffer, ...]:
        return self.inputs + self.outputs + tuple(s.buffer for s in self.scratch)

    def symbol_env(self, arrays: list[Any]) -> dict[str, int]:
        """Bind extent and stride symbols from actual arguments (arrays with .shape, .strides, .itemsize);
        ``bind_arguments`` does the work and raises ``ArgumentError`` for arguments that do not fit."""
        shapes, strides = [], []
        for arr in arrays:
            itemsize = arr.itemsize if hasattr(arr, "itemsize") else arr.dtype.itemsize
            shapes.append(tuple(int(d) for d in arr.shape))
            strides.append(tuple(int(st) // int(itemsize) for st in arr.strides))
        return bind_arguments(self, shapes, strides).env

    def output_shapes(self, env: dict[str, int]) -> list[tuple[int, ...]]:
        return [tuple(int(s.evaluate(env)) for s in b.shape) for b in self.outputs]

    def __str__(self) -> str:
        """The kernel as a readable listing: its signature, launch, checks and body (``kir_printer``)."""
        params = ", ".join(b.name for b in self.params)
        maps = "".join(f", {m.name}" for m in self.tensor_maps)
        maps += "".join(f", {s.param_dtype.ctype} {s.name}" for s in self.scalars)
        grid = ", ".join(str(g) for g in self.grid)
        block = ", ".join(str(b) for b in self.block)
        cluster = "" if self.cluster_dims == (1, 1, 1) else f", cluster ({', '.join(map(str, self.cluster_dims))})"
        lines = [f"KERNEL {self.name}({params}{maps})",
                 f"  grid ({grid}), block ({block}){cluster}, smem {self.smem_bytes} B"]
        lines += [f"  CHECK {c.cond}  // {c.message}" for c in self.checks]
        lines += [f"  REQUIRE {r.holds}  // {r.tensor}: {r.rule}" for r in self.launch_requirements]
        lines += [f"  SCRATCH {s.buffer.name}: Global {s.buffer.dtype.ctype}[{s.buffer.size}]"
                  f"{' zeroed' if s.zeroed else ''}  // {s.purpose}" for s in self.scratch]
        lines += body_lines(self.body, 1)
        return "\n".join(lines)

    def launch_dims(self, env: dict[str, int]) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        grid = tuple(int(g.evaluate(env)) for g in self.grid)
        block = tuple(int(b.evaluate(env)) for b in self.block)
        return grid, block  # type: ignore[return-value]


# ---------------------------------------------------------------- arguments
class ArgumentError(ValueError):
    """Arguments do not fit a kernel's parameters; the message names the parameter, dimension and rule.

    ``rule`` and ``subject`` (the parameter's name) say the same as data."""

    def __init__(self, message: str, rule: InputRule = InputRule.OTHER, subject: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.subject = subject

    def __reduce__(self) -> tuple:   # keep rule and subject across processes (the GPU worker)
        return type(self), (str(self), self.rule, self.subject)


@dataclass(frozen=True)
class ArgumentBinding:
    """Symbol values bound from a launch's arguments, and the outputs' shapes and element strides."""

    env: dict[str, int]
    output_shapes: tuple[tuple[int, ...], ...]
    output_strides: tuple[tuple[int, ...], ...]


def bind_arguments(kernel: Kernel, input_shapes: list[tuple[int, ...]], input_strides: list[tuple[int, ...]],
                   outputs: list[tuple[tuple[int, ...], tuple[int, ...]]] | None = None) -> ArgumentBinding:
    """The one place extent and stride symbols are bound from arguments (simulator, executor, launch plan).

    Strides count elements. A symbolic extent is bound by the first input that has it and must agree
    in every later one; constant and compound extents are checked; a parameter without stride
    symbols must be C-contiguous. Output shapes come from the bound extents; their strides are
    ``outputs``' (preallocated arrays, whose shapes must match) or contiguous.
    """
    if len(input_shapes) != len(kernel.inputs):
        raise ArgumentError(f"kernel {kernel.name} takes {len(kernel.inputs)} inputs "
                            f"({', '.join(b.name for b in kernel.inputs)}), got {len(input_shapes)}",
                            InputRule.ARGUMENT_COUNT)
    env: dict[str, int] = {}
    origin: dict[str, str] = {}
    compound: list[tuple[Val, int, str]] = []
    for buf, shape, strides in zip(kernel.inputs, input_shapes, input_strides):
        _check_rank(buf, shape)
        for d, (ext, actual) in enumerate(zip(buf.shape, shape)):
            what = f"{buf.name}.shape[{d}]"
            if ext.is_symbol:
                _bind(env, origin, str(ext.name), int(actual), what)
            elif ext.is_const:
                if ext.value != actual:
                    raise ArgumentError(f"{what} must be {ext.value}, got {actual} (shape {shape})",
                                        InputRule.SHAPE, buf.name)
            else:
                compound.append((ext, int(actual), what))
        _bind_strides(env, origin, buf, shape, strides)
    for ext, actual, what in compound:
        expected = int(_evaluate(ext, env, what))
        if expected != actual:
            raise ArgumentError(f"{what} must be {ext} = {expected}, got {actual}", InputRule.SHAPE,
                                what.split(".")[0])
    out_shapes: list[tuple[int, ...]] = []
    out_strides: list[tuple[int, ...]] = []
    for k, buf in enumerate(kernel.outputs):
        shape = tuple(int(_evaluate(ext, env, f"shape of output {buf.name}")) for ext in buf.shape)
        if any(s < 0 for s in shape):
            raise ArgumentError(f"output {buf.name} would have negative shape {shape}", InputRule.SHAPE, buf.name)
        if outputs is not None:
            given_shape, strides = outputs[k]
            _check_rank(buf, given_shape)
            if tuple(given_shape) != shape:
                raise ArgumentError(f"output {buf.name} must have shape {shape}, got {tuple(given_shape)}",
                                    InputRule.SHAPE, buf.name)
        else:
            strides = _contiguous(shape)
        for sym, st in zip(buf.strides, strides):
            if sym.is_symbol:
                env[str(sym.name)] = int(st)
        out_shapes.append(shape)
        out_strides.append(tuple(int(st) for st in strides))
    return ArgumentBinding(env, tuple(out_shapes), tuple(out_strides))


def _bind(env: dict[str, int], origin: dict[str, str], name: str, value: int, what: str) -> None:
    if name in env and env[name] != value:
        raise ArgumentError(f"{what} is {value}, but {name} = {env[name]} from {origin[name]}",
                            InputRule.STRIDE if ".stride[" in what else InputRule.SHAPE, what.split(".")[0])
    if name not in env:
        env[name] = value
        origin[name] = what


def _check_rank(buf: Buffer, shape: tuple[int, ...]) -> None:
    if len(shape) != len(buf.shape):
        dims = ", ".join(str(s) for s in buf.shape)
        raise ArgumentError(f"{buf.name} must have rank {len(buf.shape)} (shape [{dims}]), got rank {len(shape)} "
                            f"{tuple(shape)}", InputRule.RANK, buf.name)


def _bind_strides(env: dict[str, int], origin: dict[str, str], buf: Buffer, shape: tuple[int, ...],
                  strides: tuple[int, ...]) -> None:
    if any(s < 0 for s in strides):
        raise ArgumentError(f"{buf.name} has negative strides {tuple(strides)}; pass a copy", InputRule.STRIDE,
                            buf.name)
    if not buf.strides:
        if any(e > 1 and s != c for e, s, c in zip(shape, strides, _contiguous(shape))):
            raise ArgumentError(f"{buf.name} must be C-contiguous, got strides {tuple(strides)} for shape "
                                f"{tuple(shape)}", InputRule.STRIDE, buf.name)
        return
    for d, (sym, actual) in enumerate(zip(buf.strides, strides)):
        what = f"{buf.name}.stride[{d}]"
        if sym.is_symbol:
            _bind(env, origin, str(sym.name), int(actual), what)
        elif sym.is_const and shape[d] > 1 and sym.value != actual:
            raise ArgumentError(f"{what} must be {sym.value} elements, got {actual} (strides {tuple(strides)})",
                                InputRule.STRIDE, buf.name)


def _contiguous(shape: tuple[int, ...]) -> tuple[int, ...]:
    out, step = [], 1
    for extent in reversed(shape):
        out.append(step)
        step *= max(int(extent), 1)
    return tuple(reversed(out))


def _evaluate(v: Val, env: dict[str, int], what: str) -> Any:
    try:
        return v.evaluate(env)
    except KeyError as e:
        raise ArgumentError(f"{what}: {e.args[0]} (from {v}); it is not an extent or stride of any input",
                            InputRule.UNBOUND_SYMBOL) from None
    except ZeroDivisionError:
        raise ArgumentError(f"{what}: division by zero evaluating {v} with {env}", InputRule.DIVISION_BY_ZERO) from None
