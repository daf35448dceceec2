"""Tensor cores: the matmuls a kernel runs on tensor cores, and the questions generic passes ask of them.

Built right after the IterDomain graph, from the fusion alone. A tensor-core matmul is a tensor
with ``ParallelType.Mma`` axes (its accumulator, held in registers; today one ``wgmma`` per warp
group, the ``mma`` analysis says how); its operands are the two tensors its ``matmul`` reads, each
in shared memory or, for A, in registers (wgmma's register-sourced form). A kernel may hold any
number of them, chained: an operand computed (through other tensors) from another matmul's
accumulator names that matmul in ``TensorCoreMatmul.after``.

The generic analyses and passes never recognize a matmul; they ask this analysis:

| question | asked by |
| --- | --- |
| ``is_accumulator(tv)``: its registers are a tensor-core fragment | mma, release_lag |
| ``register_axes(tv, axes)``: an accumulator's allocation as its registers (the fragment) | buffers |
| ``operand_of(tv)``: the matmuls reading ``tv`` as an operand, and as which | (for register operands) |
| ``reads_accumulator(tv)``: computed from an accumulator (an epilogue) | shared_turn_axis |
| ``release_lag(tensors)``: iterations a stage stays in use after its own | circular_buffer |
| ``takes_turns(group)``: the compute warp groups take turns on the loop, in order | circular_buffer |
| ``deferred``: the matmuls issued an iteration late, by the loop group (``TensorView.defer``) | defer_matmuls, release_lag |
| ``shared_turn_axis(tv)``: the turn axis along which ``tv`` is not allocated | buffers |
| ``accumulated_in(acc)``, ``rescaled_in_place``: a rescaled sum whose registers the matmul accumulates into | loop_nest, buffers, mma, tensor_core_ops, wgmma_groups |

A rescaled sum of an accumulator, accumulated in place: ``total = rescaled_sum(acc, scale, j)`` where ``acc``'s
only reader is ``total`` (in registers) and ``acc`` is computed inside every loop of ``total``'s summed axis ``j``
(the matmul's K loop inside the loop over j). Then ``total``'s registers serve as the accumulator: the matmul of
iteration j accumulates into them, right after they are multiplied by the scale of their row (``total``'s step,
placed before the matmul by the loop nest and rescaling only, no term added), instead of a second accumulator
zeroed per j and added. ``total`` zeroes them once, before the loop.

Turns: a warp-specialized pipeline whose loads are read only by tensor cores and whose compute
warp groups take turns on its iterations (``pipeline_axes.turn_axis``) runs its groups in order:
group ``w + 1``'s mainloop starts when group ``w`` has issued its last MMA, and their epilogues
alternate (the ``ping_pong`` pass). Such a loop ``takes_turns``; a shared tensor of the epilogue
computed inside it is written and read by one group at a time, so the groups share one buffer
(``shared_turn_axis``), except the tile of a TMA store whose wait is deferred, which its stores
still read after the turn is handed on.

Stages read only by tensor cores retire late: an MMA reads its shared operands asynchronously
until a later wait retires it, so a loop whose tensors only tensor-core accumulators read releases
each stage one iteration after its own (``release_lag`` 1). So does a loop whose stages a deferred matmul reads
(``TensorView.defer``): its wgmmas of iteration j are issued and retired in iteration j + 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from fusion_ir import IterDomain, MemoryType, ParallelType, TensorView
from fusion_ir.exprs import MmaOp, rescales
from fusion_ir.scalar import Val
from target import current as current_target

from ..errors import LoweringError
from ..running_axes import root_ancestors, running_root
from .id_model import IdModel
from .pipeline_axes import deferred_store_tile, turn_axis


class OperandRole(Enum):
    A = "A"
    B = "B"


@dataclass(frozen=True)
class Operand:
    """A tensor a tensor-core matmul reads, and as which operand."""

    tv: TensorView
    role: OperandRole

    @property
    def memory(self) -> MemoryType:
        return self.tv.memory_type

    @property
    def in_registers(self) -> bool:
        """wgmma's register-sourced A: the warp group's registers hold the operand's fragment."""
        return self.tv.memory_type is MemoryType.Local


@dataclass(frozen=True)
class TensorCoreMatmul:
    """One tensor-core matmul: its accumulator, its operands, and the matmuls it is chained after."""

    accumulator: TensorView
    a: Operand | None
    b: Operand | None
    # accumulators of other tensor-core matmuls an operand of this one is computed from
    after: tuple[TensorView, ...] = ()

    @property
    def operands(self) -> tuple[Operand, ...]:
        return tuple(x for x in (self.a, self.b) if x is not None)


@dataclass
class TensorCores:
    """The tensor-core matmuls of a kernel and the answers the generic passes read."""

    ids: IdModel
    matmuls: tuple[TensorCoreMatmul, ...] = ()
    turn_groups: frozenset[int] = frozenset()     # loop groups whose compute warp groups take turns
    _by_accumulator: dict[TensorView, TensorCoreMatmul] = field(default_factory=dict)
    _epilogue: frozenset[TensorView] = frozenset()
    # accumulator -> the rescaled sum it is accumulated into in place (its registers the accumulator's)
    rescaled_in_place: dict[TensorView, TensorView] = field(default_factory=dict)
    # loop group number -> the matmuls issued one iteration late in it (``TensorView.defer``)
    deferred: dict[int, tuple[TensorView, ...]] = field(default_factory=dict)

    # ---------------------------------------------------------------- accumulators and operands
    def is_accumulator(self, tv: TensorView) -> bool:
        return tv in self._by_accumulator

    def matmul(self, accumulator: TensorView) -> TensorCoreMatmul:
        return self._by_accumulator[accumulator]

    @property
    def accumulators(self) -> tuple[TensorView, ...]:
        return tuple(m.accumulator for m in self.matmuls)

    def operand_of(self, tv: TensorView) -> list[tuple[TensorCoreMatmul, Operand]]:
        """The matmuls reading ``tv`` as an operand, each with the operand (its role and memory)."""
        return [(m, x) for m in self.matmuls for x in m.operands if x.tv is tv]

    def accumulated_in(self, acc: TensorView) -> TensorView | None:
        """The rescaled sum whose registers the accumulator ``acc`` accumulates into (in place), or None."""
        return self.rescaled_in_place.get(acc)

    def reads_accumulator(self, tv: TensorView) -> bool:
        """``tv`` is computed from a tensor-core accumulator, directly or through other tensors."""
        return tv in self._epilogue

    def register_axes(self, tv: TensorView, axes: list[IterDomain]) -> tuple[list[IterDomain], IterDomain | None]:
        """``tv``'s allocation ``axes`` as registers: an accumulator's instruction axes among them (its M and N
        ``ParallelType.Mma`` axes, held by a warp group's threads) become one axis of the registers each thread
        holds (the fragment, returned second; None for any other tensor)."""
        instruction = [i for i in axes if self.ids.group(i).parallel_type is ParallelType.Mma]
        if not instruction:
            return axes, None
        fragment = _fragment(tv, instruction)
        return [i for i in axes if i not in instruction] + [fragment], fragment

    # ---------------------------------------------------------------- pipelines and turns
    def release_lag(self, tensors: list[TensorView], loops: set[int] | None = None) -> int:
        """Iterations a pipeline stage holding ``tensors`` stays in use after its own: 1 when someone reads
        them and only tensor-core matmuls do (their MMAs still read a stage while the next iteration issues
        its own), else 0. With ``loops`` (the loop groups the pipeline iterates over), 1 only when one of those
        matmuls sums over one of them (its K loop is the pipeline's): a matmul whose reduction lies inside one
        iteration (a key block's ``q @ k_j^T`` over the head dim, ``p_j @ v_j`` over the block's keys) is read
        out in that iteration, so its groups are retired there and the stage is free at the iteration's end."""
        readers = [c for tv in tensors for c in self.ids.consumers(tv)]
        if not readers or not all(self.is_accumulator(c) for c in readers):
            return 0
        if loops is None:
            return 1
        if any(c in self.deferred.get(g, ()) for g in loops for c in readers):
            return 1    # read in the next iteration
        summed = {self.ids.group(i).number for c in readers for i in c.loop if i.is_reduction}
        return 1 if summed & loops else 0

    def takes_turns(self, group_number: int) -> bool:
        """The compute warp groups take turns on this loop group's iterations, in order."""
        return group_number in self.turn_groups

    def shared_turn_axis(self, tv: TensorView) -> IterDomain | None:
        """The axis along which an epilogue's shared tensor is not allocated, or None.

        ``tv`` is in Shared memory, is computed from an accumulator and inside a loop the compute warp
        groups take turns on: each group writes and reads it only inside its turn, which the ordered turns
        keep one at a time, so the groups share one buffer. The shared tile of a TMA store whose wait is
        deferred keeps one per group: its stores still read it after the turn is handed on."""
        if tv.memory_type is not MemoryType.Shared or tv.circular_buffer_options is not None:
            return None
        if not self.turn_groups or not self.reads_accumulator(tv) or deferred_store_tile(self.ids, tv):
            return None
        on = [i for i in tv.loop[:tv.compute_at_pos]
              if self.ids.group(i).number in self.turn_groups and not i.is_broadcast]
        return on[0] if on else None


def has_mma_axes(ids: IdModel, tv: TensorView) -> bool:
    return not tv.is_input and any(ids.group(i).parallel_type is ParallelType.Mma for i in tv.loop)


def build(ids: IdModel) -> TensorCores:
    accumulators = [tv for tv in ids.tensors if has_mma_axes(ids, tv)]
    epilogue = frozenset(tv for tv in ids.tensors if any(p in accumulators for p in tv.ancestors()))
    matmuls = []
    for acc in accumulators:
        a, b = _operands(acc)
        after = tuple(p for x in (a, b) if x is not None
                      for p in accumulators if p is x.tv or p in x.tv.ancestors())
        matmuls.append(TensorCoreMatmul(acc, a, b, after))
    tc = TensorCores(ids, tuple(matmuls), _by_accumulator={m.accumulator: m for m in matmuls}, _epilogue=epilogue)
    for acc in accumulators:
        total = _rescaled_in_place(ids, acc)
        if total is not None:
            tc.rescaled_in_place[acc] = total
    deferred: dict[int, list[TensorView]] = {}
    for tv in ids.tensors:
        if tv.deferred is None:
            continue
        if tv not in tc._by_accumulator:
            raise LoweringError(f"T{tv.name}: defer needs a tensor-core matmul (a matmul with ParallelType.Mma axes, "
                                f"issued as wgmma); T{tv.name} is computed on the CUDA cores")
        if tv.deferred not in tv.loop:
            raise LoweringError(f"T{tv.name}: the axis it is deferred in ({tv.deferred.label()}) is no longer one of its "
                                f"loop axes; call defer after the transforms of that axis")
        deferred.setdefault(ids.group(tv.deferred).number, []).append(tv)
    tc.deferred = {g: tuple(tvs) for g, tvs in deferred.items()}
    turns = set()
    for tv in ids.tensors:
        turn = turn_axis(ids, tv)
        if turn is not None and tc.release_lag([tv]):
            turns.add(ids.group(turn).number)
    tc.turn_groups = frozenset(turns)
    return tc


def _rescaled_in_place(ids: IdModel, acc: TensorView) -> TensorView | None:
    """The rescaled sum ``acc`` accumulates into in place: the one reader of ``acc``, a rescaled sum of it (as its
    summed term) in registers, each loop of whose summed axis encloses ``acc``'s computation; else None."""
    readers = ids.consumers(acc)
    if len(readers) != 1:
        return None
    total = readers[0]
    e = total.definition
    if not rescales(e) or e.inputs[0] is not acc or total.memory_type is not MemoryType.Local or total.is_output:
        return None
    root = running_root(total)
    running = [k for k, i in enumerate(total.loop) if root in root_ancestors(i)]
    if not running or max(running) >= acc.compute_at_pos:
        return None
    return total


def _operands(acc: TensorView) -> tuple[Operand | None, Operand | None]:
    """The tensors ``acc``'s matmul reads (None for a tensor with Mma axes not defined by one: the ``mma``
    analysis refuses it)."""
    inputs = acc.definition.tensor_inputs() if acc.definition is not None else []
    if len(inputs) != 2 or not isinstance(acc.definition, MmaOp):
        return None, None
    return Operand(inputs[0], OperandRole.A), Operand(inputs[1], OperandRole.B)


def _fragment(tv: TensorView, instruction: list[IterDomain]) -> IterDomain:
    """The per-thread registers of an accumulator whose (M, N) instruction axes are ``instruction``."""
    if tv.memory_type is not MemoryType.Local:
        raise LoweringError(f"T{tv.name} has ParallelType.Mma axes, so it is a wgmma accumulator and lives in "
                            f"registers; keep it in Local memory")
    elements = 1
    for i in instruction:
        n = i.extent.const_value()
        if n is None:
            raise LoweringError(f"T{tv.name}: Mma axis {i.label()} has symbolic extent {i.extent}; an instruction "
                                f"tile is a constant")
        elements *= n
    group = current_target().warp_group_size
    if elements % group:
        raise LoweringError(f"T{tv.name}: its Mma axes hold {elements} accumulators, which the "
                            f"{group} threads of a warp group cannot share evenly")
    return IterDomain(Val.const(elements // group), name=-1)
