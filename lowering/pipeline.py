"""The lowering pipeline: one list of steps, read top to bottom.

Two kinds of step. An analysis (``Analysis``) computes typed facts about the fusion (or, for
``smem``, about the kernel it is given) and stores them in ``Analyses``; it leaves the kernel as
it is. A pass (``Pass``) is ``run(kernel, analyses) -> kernel``: it reads analyses and the kernel
IR and returns a rebuilt kernel. Each analysis comes right before the first pass that reads it.
``lower(fusion, trace=True)`` keeps the kernel after every step, with its time, so ``viz`` can
show each one. ``docs/architecture.md`` says what every step reads and writes.

``lowering.verify`` checks the kernel IR's structural rules on the final kernel, and with
``trace=True`` after every pass too, so a pass that breaks one fails where it broke it. (After every
pass it adds about half to the lowering time; at the end, a few percent.)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from fusion_ir import Fusion, ScalarInput
from fusion_ir.scalar import Val
from fusion_ir.schedulers.auto import auto_schedule
from fusion_ir.schedulers.protocol import Sizes

from .analysis import (
    Analyses,
    buffers,
    circular_buffer,
    id_model,
    mbarriers,
    mma,
    pipeline_depth,
    predicate_elimination,
    roles,
    smem,
    tensor_cores,
    tma,
    warp_specialization,
)
from .errors import LoweringError
from .host_sizes import check_host_sizes
from .kernel_ir import Kernel, ScalarParam
from .limits import check_launch_limits
from .passes import (
    allocation,
    async_copies,
    branch_barriers,
    cluster,
    defer_matmuls,
    grid_reduction,
    hoist_indices,
    indexing,
    launch,
    loop_nest,
    loop_versions,
    mbarrier,
    mma_init,
    ping_pong,
    smem_reuse,
    store_waits,
    syncs,
    unswitch,
    warp_group_turns,
    wgmma_groups,
    wgmma_peel,
)
from .passes import circular_buffer as circular_buffer_pass
from .persistent_buffers import check_persistent_buffers
from .verify import verify


@dataclass(frozen=True)
class Analysis:
    name: str
    build: Callable[[Kernel, Analyses], object]


@dataclass(frozen=True)
class Pass:
    name: str
    run: Callable[[Kernel, Analyses], Kernel]


Step = Analysis | Pass

PIPELINE: list[Step] = [
    Pass("persistent_buffers", lambda k, a: _checked(k, check_persistent_buffers(a.fusion))),  # register sizes
    Analysis("id_graph", lambda k, a: id_model.build(a.fusion)),           # loop groups, parallel types, launch
    Analysis("tensor_cores", lambda k, a: tensor_cores.build(a.ids)),      # tensor-core matmuls, turns, lags
    Analysis("roles", lambda k, a: roles.sub_dags(a.fusion)),              # load and compute sub-DAGs
    Pass("loop_nest", loop_nest.run),                                      # loops from compute-at positions
    Analysis("pipeline_depth", lambda k, a: pipeline_depth.build(a.ids, a.tensor_cores)),  # stages ("auto" resolved)
    Analysis("buffers", lambda k, a: buffers.build(a.ids, a.tensor_cores, a.depths.stages)),  # buffers, axes, depth
    Analysis("mma", lambda k, a: mma.build(a.ids, a.tensor_cores, a.buffers)),  # wgmma tiles, operands, fragments
    Pass("allocation", allocation.run),                                    # Allocate nodes placed
    Pass("defer_matmuls", defer_matmuls.run),                              # deferred matmuls an iteration late
    Analysis("tma", lambda k, a: tma.build(a.ids, a.buffers)),             # TMA boxes and tensor maps
    Analysis("circular", lambda k, a: circular_buffer.build(a.ids, a.tensor_cores, a.buffers, a.tma,
                                                            a.depths)),                     # pipelines
    Analysis("mbarriers", lambda k, a: mbarriers.build(a.tma, a.circular, a.ids.launch, k,
                                                       lambda tv: a.ids.depth(tv, tv.compute_at_pos))),  # barriers, parities, tokens
    Analysis("warp_specialization", lambda k, a: warp_specialization.build(a.ids, a.circular)),  # producer branch
    Pass("mbarrier", mbarrier.run),                                        # mbarrier/token init and inval
    Pass("async_copies", async_copies.run),                                # unpipelined TMA/cp.async complete
    Analysis("smem", lambda k, a: smem.build(k, a.buffers, a.mma, a.circular)),        # shared-memory live intervals
    Pass("smem_reuse", smem_reuse.run),                                    # shared-memory offsets
    Pass("circular_buffer", circular_buffer_pass.run),                     # pipeline stages cloned
    Pass("syncs", syncs.run),                                              # RAW/WAR barriers
    Pass("store_waits", store_waits.run),                                  # TMA stores' waits for their tile reads
    Analysis("predicates", predicate_elimination.build),                  # bounds conditions registers leave out
    Pass("indexing", indexing.run),                                        # explicit indices and predicates
    Pass("mma_init", mma_init.run),                                        # zeroing folded into first wgmmas
    Pass("wgmma_groups", wgmma_groups.run),                                # wgmma fence, commit, wait
    Pass("wgmma_peel", wgmma_peel.run),                                    # no wgmma under a loop index's branch
    Pass("grid_reduction", grid_reduction.run),                            # consumers in the last block only
    Pass("ping_pong", ping_pong.run),                                      # compute warp groups in turn
    Pass("branch_barriers", branch_barriers.run),                          # named barriers in warp-split branches
    Pass("warp_group_turns", warp_group_turns.run),                        # warp groups issue wgmmas in turn
    Pass("loop_versions", loop_versions.run),                              # masks left out where known true
    Pass("unswitch", unswitch.run),                                        # a loop's only branch moved around it
    Pass("hoist_indices", hoist_indices.run),                              # loop-invariant divisions before loops
    Pass("launch", launch.run),                                            # launch dimensions, runtime checks
    Pass("cluster", cluster.run),                                          # multicast loads, cluster barriers
    Pass("limits", lambda k, a: _checked(k, check_launch_limits(k))),      # threads, shared memory, int32 indices fit
    Pass("host_sizes", lambda k, a: _checked(k, check_host_sizes(k))),     # launch sizes read only the arguments
]

PASS_NAMES = [step.name for step in PIPELINE]
# from this pass on the kernel has its parameters, tensor maps and launch dimensions
COMPLETE_FROM = PASS_NAMES.index("launch")
# the Analyses field an analysis step fills, where it differs from its name
ANALYSIS_FIELD = {"id_graph": "ids", "pipeline_depth": "depths"}


@dataclass
class PassRecord:
    name: str
    kernel: Kernel
    seconds: float
    is_analysis: bool = False


@dataclass
class LoweredKernel:
    """``lower(..., trace=True)``: the final kernel, the kernel after every step, and the analyses."""

    kernel: Kernel
    passes: list[PassRecord] = field(default_factory=list)
    analyses: Analyses | None = None

    def after(self, name: str) -> Kernel:
        for record in self.passes:
            if record.name == name:
                return record.kernel
        raise KeyError(f"unknown pass {name!r}; passes are {', '.join(PASS_NAMES)}")


def lower(fusion: Fusion, trace: bool = False, *, sizes: Sizes | None = None) -> Kernel | LoweredKernel:
    """Lower a scheduled fusion to kernel IR; ``trace=True`` also keeps the kernel after every step.

    A fusion with no schedule at all is scheduled first by ``fusion_ir.schedulers.schedule`` at ``sizes`` (one
    shape per input; None: its constant extents, or a schedule for any size), with an ``AutoScheduleWarning``
    (``fusion.auto_schedule = False`` keeps it one thread)."""
    if not isinstance(fusion, Fusion):
        raise LoweringError(f"lower: expected a Fusion, got {type(fusion).__name__}")
    if not fusion.outputs:
        raise LoweringError("lower: the fusion has no outputs")
    auto_schedule(fusion, sizes, caller="lower", stacklevel=4)
    analyses = Analyses(fusion)
    kernel = empty_kernel(fusion)
    records: list[PassRecord] = []
    for position, step in enumerate(PIPELINE):
        start = time.perf_counter()
        try:
            if isinstance(step, Analysis):
                analyses.set(ANALYSIS_FIELD.get(step.name, step.name), step.build(kernel, analyses))
            else:
                kernel = step.run(kernel, analyses)
        except Exception as e:
            e.lowering_step = step.name   # type: ignore[attr-defined]  # which step refused (viz, fuzz)
            raise
        if trace:
            records.append(PassRecord(step.name, kernel, time.perf_counter() - start, isinstance(step, Analysis)))
            if isinstance(step, Pass):
                _verify_after(step.name, kernel, complete=position >= COMPLETE_FROM)
    if not trace:
        _verify_after(PIPELINE[-1].name, kernel, complete=True)
    if trace:
        return LoweredKernel(kernel, records, analyses)
    return kernel


def _verify_after(step: str, kernel: Kernel, *, complete: bool) -> None:
    try:
        verify(kernel, complete=complete)
    except Exception as e:
        e.lowering_step = step   # type: ignore[attr-defined]  # the pass whose output broke a rule
        raise


def _checked(kernel: Kernel, _: None) -> Kernel:
    """A validation step: it raises or leaves the kernel as it is."""
    return kernel


def empty_kernel(fusion: Fusion) -> Kernel:
    one = Val.const(1)
    positions = tuple(k for k, x in enumerate(fusion.inputs) if isinstance(x, ScalarInput))
    scalars = tuple(ScalarParam(fusion.inputs[k].param_name, fusion.inputs[k].dtype) for k in positions)
    return Kernel(name="fusion_kernel", body=(), inputs=(), outputs=(), tensor_maps=(),
                  grid=(one, one, one), block=(one, one, one), smem_bytes=Val.const(0), fusion=fusion,
                  index_type=fusion.index_type, scalars=scalars, scalar_positions=positions)
