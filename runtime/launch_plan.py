"""Check arguments against a kernel and work out its launch, without touching the GPU.

``plan_launch`` binds the kernel's extent and stride symbols from the arguments (through
``lowering.kernel_ir.bind_arguments``, the one binding the simulator shares), checks dtype,
rank, shape, strides, the fusion's extent constraints, the kernel's runtime checks, the launch
requirements lowering recorded (``Kernel.launch_requirements``, such as TMA's 16-byte strides) and the
TMA descriptor limits, and evaluates grid, block, shared memory and output shapes. Everything it rejects raises
``InputError`` (or ``LaunchError`` for impossible launch shapes) before a
driver call is made, so these errors are testable on a machine without a GPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from codegen import shared_memory_layout
from fusion_ir.scalar import Val
from fusion_ir.types import INT32_INDEX_MAX, DataType, MemoryType, SmemSwizzle
from lowering.index_range import first_int32_overflow
from lowering.kernel_ir import (Allocate, ArgumentError, Buffer, InputRule, Kernel, Scratch, TensorMapParam,
                                bind_arguments, walk)
from target import current as current_target

from .arrays import ArrayArg, bfloat16_input_hint
from .errors import InputError, LaunchError


@dataclass(frozen=True)
class TensorMapSpec:
    """Host-side arguments of ``cuTensorMapEncodeTiled`` except the address (innermost first)."""

    name: str
    param_index: int                 # index into kernel.params
    dtype: DataType
    global_dims: tuple[int, ...]
    global_strides_bytes: tuple[int, ...]  # dims 1..rank-1
    box: tuple[int, ...]
    element_strides: tuple[int, ...]
    swizzle: SmemSwizzle = SmemSwizzle.NONE


@dataclass(frozen=True)
class LaunchPlan:
    env: dict[str, int]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    smem_bytes: int
    output_shapes: tuple[tuple[int, ...], ...]
    output_strides: tuple[tuple[int, ...], ...]   # elements
    tensor_maps: tuple[TensorMapSpec, ...]
    scratch_sizes: tuple[int, ...] = ()          # elements of each ``kernel.scratch`` buffer at this launch

    @property
    def empty_grid(self) -> bool:
        """No thread runs: a 0 grid extent, or a 0 block extent (every output is then empty)."""
        return 0 in self.grid or 0 in self.block

    def describe(self, kernel_name: str) -> str:
        return (f"kernel {kernel_name}: grid {self.grid}, block {self.block}, "
                f"dynamic shared memory {self.smem_bytes} bytes")


def plan_launch(kernel: Kernel, inputs: list[ArrayArg], outputs: list[ArrayArg] | None = None) -> LaunchPlan:
    if len(inputs) != len(kernel.inputs):
        raise InputError(f"kernel {kernel.name} takes {len(kernel.inputs)} inputs "
                         f"({', '.join(b.name for b in kernel.inputs)}), got {len(inputs)}", InputRule.ARGUMENT_COUNT)
    if outputs is not None and len(outputs) != len(kernel.outputs):
        raise InputError(f"kernel {kernel.name} has {len(kernel.outputs)} outputs, got {len(outputs)}",
                         InputRule.ARGUMENT_COUNT)
    for buf, arg in zip(kernel.params, list(inputs) + list(outputs or [])):
        _check_dtype(buf, arg)
    try:
        binding = bind_arguments(kernel, [a.shape for a in inputs], [a.strides for a in inputs],
                                 None if outputs is None else [(a.shape, a.strides) for a in outputs])
    except ArgumentError as e:
        raise InputError(str(e), e.rule, e.subject) from None
    env = dict(binding.env)
    _check_constraints(kernel, env)
    _check_runtime_checks(kernel, env)
    check_launch_requirements(kernel, env)
    grid, block = _launch_dims(kernel, env)
    layout = shared_memory_layout(kernel)
    smem = max(int(_evaluate(kernel.smem_bytes, env, "kernel.smem_bytes")),
               int(_evaluate(layout.total, env, "shared-memory layout")))
    target = current_target()      # the executor also asks the device
    if smem > target.smem_per_block:
        message = (f"kernel {kernel.name} needs {smem} bytes of shared memory per block; {target.name} allows "
                   f"at most {target.smem_per_block}")
        sized_by_inputs = kernel.smem_bytes.const_value() is None or layout.total.const_value() is None
        if not sized_by_inputs:
            raise LaunchError(message)
        largest = _largest_shared_buffer(kernel, env)
        raise InputError(f"{message}: at these sizes (its shared buffers are sized by the inputs' "
                         f"extents; the largest is {largest})", InputRule.SHARED_MEMORY, largest)

    if 0 in block and any(math.prod(shape) for shape in binding.output_shapes):
        # a block extent is 0 only when every output binds an empty axis to it (the lowering floors it at
        # 1 otherwise): then there is nothing to compute and nothing is launched
        raise LaunchError(f"kernel {kernel.name}: grid {grid}, block {block}: a block has 1 to "
                          f"{target.max_threads_per_block} threads")
    all_args = list(inputs) + (list(outputs) if outputs is not None else [None] * len(kernel.outputs))
    shapes = [a.shape for a in inputs] + list(binding.output_shapes)
    strides = [a.strides for a in inputs] + list(binding.output_strides)
    check_index_type(kernel, shapes, strides, env)
    maps = tuple(_tensor_map_spec(kernel, t, shapes, strides, all_args) for t in kernel.tensor_maps)
    scratch = tuple(scratch_size(kernel, s, env) for s in kernel.scratch)
    return LaunchPlan(env, grid, block, smem, binding.output_shapes, binding.output_strides, maps, scratch)


def scratch_size(kernel: Kernel, scratch: Scratch, env: dict[str, int]) -> int:
    """Elements of a kernel-owned global buffer (a grid reduction's partials or semaphores) at this launch."""
    return int(_evaluate(scratch.buffer.size, env, f"the size of {scratch.buffer.name}"))


# ---------------------------------------------------------------- checks
def _largest_shared_buffer(kernel: Kernel, env: dict[str, int]) -> str | None:
    """The name of the shared buffer with the most bytes at the sizes ``env`` binds."""
    sizes = {n.buffer.name: int(_evaluate(n.buffer.nbytes, env, n.buffer.name)) for n in walk(kernel.body)
             if isinstance(n, Allocate) and n.buffer.memory is MemoryType.Shared}
    return max(sizes, key=lambda name: sizes[name]) if sizes else None


def _check_dtype(buf: Buffer, arg: ArrayArg) -> None:
    if arg.dtype == buf.dtype.numpy_name:
        return
    hint = bfloat16_input_hint(host=not arg.on_device) if buf.dtype is DataType.BFloat16 else ""
    raise InputError(f"{buf.name} must be {buf.dtype.numpy_name}, got {arg.dtype}{hint}", InputRule.DTYPE, buf.name)


def check_index_type(kernel: Kernel, shapes: list[tuple[int, ...]], strides: list[tuple[int, ...]],
                     env: dict[str, int] | None = None) -> None:
    """A kernel with 32-bit indices runs only on tensors whose every element offset fits them, and
    only where every index expression (padded thread indices, loop bounds, ...) does, bounded with
    the extent and stride values ``env`` (``lowering.index_range``)."""
    if kernel.index_type != DataType.Int32:
        return
    for buf, shape, stride in zip(kernel.params, shapes, strides):
        numel = 1
        for d in shape:
            numel *= int(d)
        last = sum((int(d) - 1) * abs(int(s)) for d, s in zip(shape, stride)) if numel else 0
        if max(numel, last) > INT32_INDEX_MAX:
            raise InputError(f"kernel {kernel.name} indexes in 32 bits (Fusion.set_index_type(DataType.Int32)), but "
                             f"{buf.name} of shape {tuple(shape)} has {'elements' if numel >= last else 'offsets'} "
                             f"up to {max(numel, last)} > 2**31 - 1; schedule it with DataType.Int64 indices",
                             InputRule.INDEX_TYPE, buf.name)
    if env is None:
        return
    overflow = first_int32_overflow(kernel, env)
    if overflow is not None:
        sizes = ", ".join(f"{name} = {value}" for name, value in sorted(env.items()) if name in
                          overflow.expression.symbols())
        raise InputError(f"kernel {kernel.name} indexes in 32 bits (Fusion.set_index_type(DataType.Int32)), but "
                         f"{overflow.describe()}" + (f" with {sizes}" if sizes else "") + "; every index expression "
                         "of a 32-bit kernel must fit int: schedule it with DataType.Int64 indices",
                         InputRule.INDEX_TYPE, None)


def _check_constraints(kernel: Kernel, env: dict[str, int]) -> None:
    fusion = kernel.fusion
    for c in getattr(fusion, "extent_constraints", None) or ():
        va = _evaluate(c.a, env, c.message)
        vb = _evaluate(c.b, env, c.message)
        if int(va) != int(vb):
            raise InputError(f"{c.message}: {c.a} = {int(va)} but {c.b} = {int(vb)}", InputRule.EQUAL_EXTENTS,
                             c.subject)


def _check_runtime_checks(kernel: Kernel, env: dict[str, int]) -> None:
    for check in kernel.checks:
        if bool(_evaluate(check.cond, env, check.message)):
            continue
        values = ", ".join(f"{s} = {env[s]}" for s in sorted(check.cond.symbols()) if s in env)
        raise InputError(f"{check.message} (failed: {check.cond}; {values})", check.rule, check.subject)


def check_launch_requirements(kernel: Kernel, env: dict[str, int]) -> None:
    """Every rule lowering recorded on the arguments (``Kernel.launch_requirements``), on their bound symbols."""
    for req in kernel.launch_requirements:
        try:
            failure = req.check(env)
        except KeyError as e:
            raise InputError(f"{req}: {e.args[0]} is not an extent or stride of any input", InputRule.UNBOUND_SYMBOL,
                             req.tensor) from None
        if failure is None:
            continue
        raise InputError(failure, req.input_rule, req.tensor)


def _evaluate(v: Val, env: dict[str, int], what: str) -> Any:
    try:
        return v.evaluate(env)
    except KeyError as e:
        raise InputError(f"{what}: {e.args[0]} (from {v}); it is not an extent or stride of any input",
                         InputRule.UNBOUND_SYMBOL) from None
    except ZeroDivisionError:
        raise InputError(f"{what}: division by zero evaluating {v} with {env}", InputRule.DIVISION_BY_ZERO) from None


def _launch_dims(kernel: Kernel, env: dict[str, int]) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    grid = tuple(int(_evaluate(g, env, "grid")) for g in kernel.grid)
    block = tuple(int(_evaluate(b, env, "block")) for b in kernel.block)
    config = f"kernel {kernel.name}: grid {grid}, block {block}"
    target = current_target()
    if any(b < 0 for b in block) or block[0] * block[1] * block[2] > target.max_threads_per_block:
        raise LaunchError(f"{config}: a block has 1 to {target.max_threads_per_block} threads")
    if kernel.launch_bounds is not None and block[0] * block[1] * block[2] > kernel.launch_bounds:
        raise LaunchError(f"{config}: more threads than __launch_bounds__({kernel.launch_bounds})")
    if any(g < 0 or g > m for g, m in zip(grid, target.max_grid)):
        raise LaunchError(f"{config}: grid dimensions must lie in [0, {target.max_grid}]")
    return grid, block  # type: ignore[return-value]


# ---------------------------------------------------------------- TMA
def _tensor_map_spec(kernel: Kernel, tmap: TensorMapParam, shapes: list[tuple[int, ...]],
                     strides: list[tuple[int, ...]], args: list[ArrayArg | None]) -> TensorMapSpec:
    names = [b.name for b in kernel.params]
    if tmap.tensor.name not in names:
        raise LaunchError(f"tensor map {tmap.name} describes {tmap.tensor.name}, which is not a kernel parameter")
    k = names.index(tmap.tensor.name)
    buf = kernel.params[k]
    shape, stride = shapes[k], strides[k]
    itemsize = buf.dtype.size
    rank = len(shape)
    where = f"tensor map {tmap.name} of {buf.name}"
    tma = current_target().tma
    if not 1 <= rank <= tma.max_rank:
        raise LaunchError(f"{where}: TMA handles tensors of rank 1 to {tma.max_rank}, {buf.name} has rank {rank}")
    if len(tmap.box) != rank:
        raise LaunchError(f"{where}: box {tmap.box} has {len(tmap.box)} dimensions for a rank-{rank} tensor")
    if any(not 1 <= b <= tma.max_box for b in tmap.box):
        raise LaunchError(f"{where}: box extents must lie in [1, {tma.max_box}], got {tmap.box}")
    if tmap.box[0] * itemsize % tma.alignment != 0:
        raise LaunchError(f"{where}: the innermost box extent {tmap.box[0]} x {itemsize} bytes is not a "
                          f"multiple of {tma.alignment} bytes")
    if tmap.swizzle.span and tmap.box[0] * itemsize > tmap.swizzle.span:
        raise LaunchError(f"{where}: with swizzle {tmap.swizzle.name} a box row is at most {tmap.swizzle.span} bytes; "
                          f"the innermost box extent {tmap.box[0]} x {itemsize} bytes is "
                          f"{tmap.box[0] * itemsize}")
    element_strides = tmap.element_strides or (1,) * rank
    if len(element_strides) != rank or any(not 1 <= e <= tma.max_element_stride for e in element_strides):
        raise LaunchError(f"{where}: element strides {element_strides} must be {rank} values in "
                          f"[1, {tma.max_element_stride}]")
    if 0 in shape:      # checked first: an empty array's strides say nothing
        raise InputError(f"{where}: {buf.name} has shape {tuple(shape)}, empty along axis {list(shape).index(0)}; a "
                         f"TMA tensor map needs at least one element along every axis", InputRule.TMA_LAYOUT, buf.name)
    if rank and shape[-1] > 1 and stride[-1] != 1:
        raise InputError(f"{where}: TMA needs a unit innermost stride; {buf.name} has strides {stride} "
                         f"(elements)", InputRule.TMA_LAYOUT, buf.name)
    # multiples of 16 bytes: a rule lowering records (``Kernel.launch_requirements``), checked before
    byte_strides = tuple(s * itemsize for s in reversed(stride[:-1]))
    if any(bs >= tma.max_global_stride for bs in byte_strides):
        raise InputError(f"{where}: TMA strides are below {tma.max_global_stride} bytes; {buf.name} has strides "
                         f"{stride} (elements of {itemsize} bytes, shape {shape})", InputRule.TMA_LAYOUT, buf.name)
    if any(s > tma.max_global_extent for s in shape):
        raise InputError(f"{where}: TMA extents are at most {tma.max_global_extent}, {buf.name} has shape {shape}",
                         InputRule.TMA_LAYOUT, buf.name)
    arg = args[k]
    if arg is not None and arg.ptr is not None:
        check_tma_address(where, buf.name, arg.ptr)
    return TensorMapSpec(tmap.name, k, buf.dtype, tuple(reversed(shape)), byte_strides, tuple(tmap.box),
                         tuple(element_strides), tmap.swizzle)


def check_tma_address(where: str, tensor: str, address: int) -> None:
    alignment = current_target().tma.alignment
    if address % alignment != 0:
        raise InputError(f"{where}: TMA needs a {alignment}-byte aligned base address; {tensor} starts at "
                         f"{address:#x}", InputRule.TMA_ALIGNMENT, tensor)
