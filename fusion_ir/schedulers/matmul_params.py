"""The parameters of the matmul scheduler, ``MatmulParams``, and the rules they must satisfy on the
current target (``target.current()``): wgmma shapes, TMA boxes and swizzle spans, shared memory,
registers."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import smem_model
from target import current as current_target

from ..circular_buffer import AUTO
from ..types import DataType, ScheduleError, SmemSwizzle, StoreWait
from .matmul_problem import TMA_LOADS, OperandLoad
from .matmul_smem import ROW_MAJOR, LoadedTile, MatmulLayout, as_tiles, matmul_smem_requests
from .matmul_why import ParamsWhy

# fp32 accumulators per thread that leave room for addresses and the epilogue in the 232 registers
# of a compute warp group (a ping-pong group's 128 x 192 tile: no spills with register stores)
MAX_ACCUMULATORS = 192
# the registers one wgmma.m64nNk16 needs beside its N / 2 fp32 accumulators a thread (descriptors and addresses), as
# ptxas counts them against the kernel's register cap at entry (__launch_bounds__: the SM's registers over the block's
# threads, in steps of 8), whatever setmaxnreg raises it to later: "Insufficient registers (128) to compile
# instruction ... register target of 154" for N = 256 on 3 compute warp groups and a producer (512 threads), 138 for
# N = 224, 106 for N = 160 on 4 (640 threads, a cap of 96); N = 256 on 2 (cap 168) compiles
WGMMA_INSTRUCTION_REGISTERS = 26
MAX_THREAD_REGISTERS = 255
# a compute thread's registers beyond all its fp32 accumulators under setmaxnreg: below this ptxas spills the wgmma
# kernel's accumulators (ping-pong 128 x 128 on three compute warp groups, 128 a thread at setmaxnreg 152: 1.3 KB of
# spill stores; 192 x 128 on three 3.4 KB); 256 x 192 on two, 192 at 232, spills nothing
ACCUMULATOR_HEADROOM = 32


def swizzle_by_span() -> dict[int, SmemSwizzle]:
    """The target's TMA swizzle modes by the bytes of one swizzled row."""
    return {span: SmemSwizzle(span) for span in current_target().tma.swizzle_spans}


# who loads the epilogue's inputs (``MatmulParams.epilogue_loads``)
EPILOGUE_LOADS = ("consumer", "producer")

# Clusters of blocks along one tile axis, sharing the other operand's tile by TMA multicast, or along both (2-D:
# each block shares A's tile with the blocks of its cluster row and B's with those of its cluster column)
CLUSTER_SHAPES = ((2, 1), (1, 2), (4, 1), (1, 4), (2, 2), (4, 2), (2, 4))


@dataclass(frozen=True)
class MatmulParams:
    """How ``schedule_matmul`` tiles a matmul.

    ``tile``: the block's (M, N, K) tile; ``stages``: depth of the A/B circular buffer (``"auto"``:
    the deepest that fits the shared memory the kernel's other buffers leave, picked at lowering);
    ``compute_warp_groups``: warp groups sharing the tile's rows (each owns TM / W rows, in
    pieces of 64); ``warp_specialized``: a producer warp group issues the loads (``register_split``:
    its and the compute warp groups' ``setmaxnreg``); ``persistent``: ``blocks`` resident blocks walk
    the tiles in grouped order (``group_m``); ``tma_store``: the epilogue of seed 000 (stmatrix, TMA
    store); ``ping_pong``: each compute warp group takes its own tile (the block's tiles dealt in
    turn) and their mainloops and epilogues alternate, one's epilogue under the other's mainloop;
    ``split_k``: blocks per output tile on blockIdx.z, each summing a range of the K tiles, their
    partial tiles summed in order by the last to finish (docs/matmul.md, "Split-K");
    ``cluster``: (M, N) blocks of a thread-block cluster: ``(2, 1)``, two blocks of adjacent tile rows that
    share B's tile (each loads half of it and multicasts it to both), ``(1, 2)`` two of adjacent tile
    columns that share A's; ``(4, 2)`` (2-D, a tile per block only), each block sharing B's tile with the 4 blocks of
    its cluster column and A's with the 2 of its cluster row; persistent, each cluster (blockIdx.x) walks cluster tiles, pairs of such tiles, and
    each block (its rank: blockIdx.y) takes its tile of the pair (``docs/matmul.md``, "Clusters and multicast",
    "Persistent, in clusters");
    ``epilogue_tile``: with ``tma_store``, the epilogue walks the output tile in sub-tiles of ``(TM, EN)`` (every
    row of the tile, ``EN`` of its columns: 16, 32 or 64): per sub-tile the fused ops on its accumulators, a
    stmatrix into one of ``epilogue_stages`` staging tiles (a ring) and a TMA store, the next sub-tile's math and
    stmatrix running while the previous ones are stored (``docs/matmul.md``, "Sub-tiled epilogues"); None:
    the whole tile at once; with ``swap_ab``, ``(EM, TN)``: EM of the tile's rows (the fragment's columns) and all its
    columns;
    ``swap_ab``: the wgmma's rows run along N and its N along M (``C^T = B^T A^T``, ``docs/matmul.md``, "Swapped
    operands"), so the tile's M is any multiple of 8 up to 256 and its N whole 64-row pieces per warp group.
    """

    tile: tuple[int, int, int] = (128, 256, 64)
    stages: int | Literal["auto"] = 4
    compute_warp_groups: int = 2
    warp_specialized: bool = False
    persistent: bool = False
    ping_pong: bool = False
    blocks: int = field(default_factory=lambda: current_target().sm_count)  # persistent: resident blocks
    group_m: int = 8                             # persistent: row tiles walked per column of B (L2 reuse)
    # persistent: the grouped order's direction: "m", group_m row tiles down a column of B (the default), or "n",
    # group_m column tiles along a row of A (CUTLASS's raster order along N)
    raster: str = "m"
    # a block per tile, the blocks on a 1-D grid in the grouped order (group_m, raster) instead of [Mo (BIDy),
    # No (BIDx)]: the blocks running at once share fewer, reused, operand tiles in L2 (CUTLASS's swizzle, Triton's
    # GROUP_M); not persistent (always grouped), not stream-K, no cluster
    grouped_grid: bool = False
    register_split: tuple[int, int] | None = (40, 232)   # warp-specialized: producer, compute registers
    tma_store: bool = False                      # the epilogue: stmatrix into shared memory, then a TMA store
    index_type: DataType = DataType.Int64        # the kernel's index arithmetic (Int32: tensors under 2**31 elements)
    # tma_store: when the stores' reads of the tile are waited for (a StoreWait or its string); with epilogue_tile,
    # "after_boxes" waits for a tile's last sub-tiles at its end and "carried" before the next tile writes them
    # (a persistent kernel's last stores then overlap the next tile's mainloop)
    store_wait: StoreWait | str = "after_boxes"
    # split-K: blocks per output tile (on blockIdx.z), each summing a range of the K tiles; the last block of a
    # tile to finish sums their partials in split order (deterministic) and runs the epilogue
    split_k: int = 1
    cluster: tuple[int, int] = (1, 1)            # blocks of a cluster along M and N (CLUSTER_SHAPES)
    epilogue_tile: tuple[int, int] | None = None  # tma_store: the epilogue's sub-tile (TM, EN); None: the whole tile
    epilogue_stages: int = 2                     # epilogue_tile: staging tiles the sub-tiles' stores rotate through
    # who TMA-loads the epilogue's inputs (an [M, N] C or residual, a bias vector): "consumer", each compute warp group
    # at its tile's start on a token mbarrier; "producer", the producer warp group through a circular buffer of
    # epilogue sub-tiles of its own (full/empty mbarriers), after the mainloop's first loads of the tile
    epilogue_loads: str = "consumer"
    # stream-K: ``blocks`` blocks each take a contiguous, nearly equal range of the (output tile x K tile)
    # iterations; a tile split between blocks is summed in block order by the last of them to finish
    # (deterministic), which runs its epilogue (docs/matmul.md, "Stream-K")
    stream_k: bool = False
    # the instruction's rows run along N and its columns along M: the kernel computes C^T = B^T A^T, each warp group's
    # wgmma.m64nNk16 taking 64 of the tile's N columns (b's tile its A operand) and all TM of its rows as the
    # instruction's N (a's tile its B operand), so TM may be any multiple of 8 (16 with tma_store) up to 256 and TN
    # is whole 64-column pieces per warp group; the epilogue stages its tile in C's layout by stmatrix.trans
    # (``docs/matmul.md``, "Swapped operands")
    swap_ab: bool = False

    @property
    def why(self) -> ParamsWhy | None:
        """Why these values (``matmul_why.ParamsWhy``: the rule or the tuning-cache entry they came from), on
        params that ``suggest_matmul_params`` returned; None on params made by hand or by ``replace``."""
        return _WHY.get(id(self))

    def validate(self, dtype: DataType = DataType.BFloat16, loaded: int | Sequence[LoadedTile] = 0,
                 layout: MatmulLayout = ROW_MAJOR, loads: Sequence[OperandLoad] = TMA_LOADS, *,
                 outputs: int = 1) -> None:
        """Raise ``ScheduleError`` naming the parameter and the rule it breaks (``loaded``, ``layout`` and ``outputs``:
        as in ``smem_bytes``; ``loads``: how A and B are loaded, ``MatmulProblem.loads``)."""
        if not (isinstance(self.tile, tuple) and len(self.tile) == 3 and all(isinstance(x, int) and x > 0
                                                                                for x in self.tile)):
            raise ScheduleError(f"MatmulParams.tile: {self.tile!r} must be three positive ints (M, N, K)")
        target = current_target()
        wgmma, max_box, swizzles = target.wgmma, target.tma.max_box, swizzle_by_span()
        widest = max(swizzles)
        tm, tn, tk = self.tile
        w = self.compute_warp_groups
        if not isinstance(w, int) or w < 1:
            raise ScheduleError(f"MatmulParams.compute_warp_groups: {w!r} must be a positive int")
        if not isinstance(self.swap_ab, bool):
            raise ScheduleError(f"MatmulParams.swap_ab: {self.swap_ab!r} must be a bool")
        sharing = self.tile_sharers()
        r, c = self.instruction_axes()                       # the tile's extent along the wgmma's rows and its N
        r_name, c_name = ("N", "M") if self.swap_ab else ("M", "N")
        swapped = " (swap_ab: the instruction's rows run along N, its N along M)" if self.swap_ab else ""
        if r % (wgmma.m * sharing):
            raise ScheduleError(f"MatmulParams.tile: {r_name} {r} is not a multiple of {wgmma.m} per warp group "
                                f"({sharing} compute warp groups share a tile: a multiple of {wgmma.m * sharing}); "
                                f"each warp group issues wgmma.m{wgmma.m}nNk16 on whole {wgmma.m}-row pieces{swapped}")
        if r > max_box:
            operand = "B" if self.swap_ab else "A"
            raise ScheduleError(f"MatmulParams.tile: {r_name} {r} is over {max_box}; one TMA box loads the tile's "
                                f"{r_name} of {operand} and a box extent is at most {max_box}")
        if c % wgmma.n_step or c > wgmma.max_n:
            raise ScheduleError(f"MatmulParams.tile: {c_name} {c} must be a multiple of {wgmma.n_step} and at most "
                                f"{wgmma.max_n} (wgmma.m{wgmma.m}nNk16 has N = {wgmma.n_step}, {2 * wgmma.n_step}, "
                                f"..., {wgmma.max_n}){swapped}")
        if self.swap_ab and layout.a_mn_major and tm % (min(swizzles) // dtype.size):
            raise ScheduleError(f"MatmulParams.tile: M {tm} with swap_ab=True makes a row of A's M-major tile "
                                f"{tm * dtype.size} bytes; A is laid out in chunks of swizzle rows, the widest that "
                                f"divides M, so M must be a multiple of {min(swizzles) // dtype.size}")
        k_step = wgmma.k_for(dtype.size)
        if tk % k_step:
            raise ScheduleError(f"MatmulParams.tile: K {tk} is not a multiple of {k_step} (one wgmma consumes "
                                f"K = {k_step} of {dtype.short_name})")
        a_row = tk * dtype.size
        spans = f"{', '.join(str(s) for s in list(swizzles)[:-1])} or {widest} bytes"
        if a_row not in swizzles:
            tiles = "A's K-major tile" if not layout.a_mn_major else "the K rows of the operand tiles"
            raise ScheduleError(f"MatmulParams.tile: K {tk} makes a row of {tiles} {a_row} bytes, but a "
                                f"row is exactly one swizzle span ({spans}: K = "
                                f"{', '.join(str(s // dtype.size) for s in swizzles)}); the swizzle span "
                                f"is exceeded")
        if self.tma_store and c % (2 * wgmma.n_step):
            raise ScheduleError(f"MatmulParams.tile: {c_name} {c} with tma_store=True; the output tile is staged by "
                                f"stmatrix.x4, which stores pairs of {wgmma.n_step}-column blocks of the accumulator"
                                f"{swapped}, so {c_name} must be a multiple of {2 * wgmma.n_step} (or set "
                                f"tma_store=False)")
        b_row = tn * dtype.size
        narrowest = min(swizzles) // dtype.size
        if layout.b_mn_major and tn % narrowest:
            raise ScheduleError(f"MatmulParams.tile: N {tn} makes a row of B's N-major tile {b_row} bytes; B is "
                                f"laid out in chunks of swizzle rows of {spans}, the widest that divides N, so N "
                                f"must be a multiple of {narrowest}")
        auto = isinstance(self.stages, str) and self.stages == AUTO
        if not auto and (not isinstance(self.stages, int) or isinstance(self.stages, bool) or self.stages < 2):
            raise ScheduleError(f"MatmulParams.stages: {self.stages!r} must be an int >= 2 (a circular buffer "
                                f"needs a stage to load while another is read) or \"auto\"")
        if self.tile_regs() > MAX_ACCUMULATORS:
            raise ScheduleError(f"MatmulParams.tile: each thread would hold {self.tile_regs()} fp32 accumulators "
                                f"({tm} x {tn} over {self.tile_sharers()} warp groups of {target.warp_group_size} "
                                f"threads); at "
                                f"most {MAX_ACCUMULATORS} fit in registers: use a smaller tile"
                                f"{'' if self.ping_pong else ' or more compute_warp_groups'}")
        self.validate_epilogue_tile()          # the staging ring counts in the shared memory below
        self.validate_epilogue_loads()
        smem = self.smem_bytes(dtype, loaded, layout, loads, outputs=outputs)
        if smem > target.smem_per_block:
            staged = " and the output tile" if self.tma_store else ""
            tiles = as_tiles(loaded)
            staged += " and the epilogue's TMA-loaded tile of C" if any(not t.vector for t in tiles) else ""
            staged += " and the epilogue's TMA-loaded vectors" if any(t.vector for t in tiles) else ""
            depth = "even the 2 stages of \"auto\"" if auto else f"{self.stages} stages"
            raise ScheduleError(f"MatmulParams.stages: {depth} of A ({tm} x {tk}) and B ({tk} x {tn}) "
                                f"{dtype.short_name} tiles{staged} need {smem} bytes of shared memory, over the "
                                f"{target.smem_per_block}-byte limit of a block; use fewer stages or a smaller tile")
        if auto:
            # "auto" picks the depth before the kernel's buffers have live intervals: beside every other shared
            # buffer at once (``smem_model.bound``, as the lowering's ``pipeline_depth`` counts them)
            bound = smem_model.bound(matmul_smem_requests(self, dtype, loaded, outputs=outputs))
            if bound > target.smem_per_block:
                raise ScheduleError(f"MatmulParams.stages: \"auto\" sizes the pipeline beside every other shared "
                                    f"buffer, with no reuse: 2 stages of A ({tm} x {tk}) and B ({tk} x {tn}) "
                                    f"{dtype.short_name} tiles and the epilogue's tiles need up to {bound} bytes, "
                                    f"over the {target.smem_per_block}-byte limit of a block; give stages as a "
                                    f"number (the epilogue then reuses the operands' memory: {smem} bytes at 2 "
                                    f"stages) or use a smaller tile")
        self._validate_instruction_registers()
        if self.ping_pong and not (self.warp_specialized and self.persistent):
            raise ScheduleError("MatmulParams.ping_pong: ping-pong warp groups take turns on the tiles of a "
                                "persistent warp-specialized kernel; set warp_specialized=True and persistent=True")
        if self.ping_pong and w < 2:
            raise ScheduleError(f"MatmulParams.compute_warp_groups: {w} with ping_pong=True; ping-pong needs at least "
                                f"2 compute warp groups to alternate")
        self.validate_split_k()
        self.validate_stream_k()
        wait = StoreWait.of(self.store_wait)
        if wait is None or (wait is not StoreWait.AfterBoxes and not self.tma_store):
            raise ScheduleError(f"MatmulParams.store_wait: {self.store_wait!r} must be one of "
                                f"{StoreWait.choices()} (TensorView.set_store_wait), and "
                                f"other than {StoreWait.AfterBoxes.value!r} only with tma_store=True")
        self.validate_loads(dtype, loads)
        if self.raster not in ("m", "n"):
            raise ScheduleError(f"MatmulParams.raster: {self.raster!r} must be \"m\" (group_m row tiles down a column "
                                f"of B) or \"n\" (group_m column tiles along a row of A)")
        if self.grouped_grid and (self.persistent or self.stream_k or self.cluster != (1, 1)):
            raise ScheduleError(f"MatmulParams.grouped_grid: a block per tile in grouped order on a 1-D grid, with "
                                f"persistent={self.persistent}, stream_k={self.stream_k}, cluster={self.cluster}; a "
                                f"persistent kernel always walks its tiles grouped, and stream-K and clusters order "
                                f"the blocks their own way: set grouped_grid=False")
        for name in ("blocks", "group_m"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ScheduleError(f"MatmulParams.{name}: {value!r} must be a positive int")
        self._validate_cluster()
        self._validate_swapped_multicast(layout)
        regs = self.register_split
        (lo, hi), step = target.setmaxnreg_range, target.setmaxnreg_step
        if regs is not None and not (isinstance(regs, tuple) and len(regs) == 2 and all(
                isinstance(r, int) and lo <= r <= hi and r % step == 0 for r in regs)):
            raise ScheduleError(f"MatmulParams.register_split: {regs!r} must be None or (producer, compute) "
                                f"register counts, multiples of {step} in [{lo}, {hi}] (setmaxnreg)")
        if self.warp_specialized and regs is not None:
            group = target.warp_group_size
            total = group * regs[0] + group * w * regs[1]
            if total > target.registers_per_sm:
                raise ScheduleError(f"MatmulParams.register_split: {regs} gives a producer and {w} compute warp "
                                    f"groups {total} registers, over the {target.registers_per_sm} of an SM; lower "
                                    f"the compute count or use fewer compute_warp_groups")
            need = self.tile_regs() + ACCUMULATOR_HEADROOM
            if regs[1] < need:
                raise ScheduleError(f"MatmulParams.register_split: {regs} leaves a compute thread {regs[1]} registers, "
                                    f"but its {self.tile_regs()} fp32 accumulators ({self.tile[0]} x {self.tile[1]} "
                                    f"over {self.tile_sharers()} warp groups) and the wgmma's operands need at least "
                                    f"{need} (fewer spill the accumulators to local memory); use a smaller tile or "
                                    f"fewer compute_warp_groups")

    def _validate_instruction_registers(self) -> None:
        """One wgmma.m64nNk16 (N the tile's N) must fit the kernel's register cap at entry, which ptxas checks each
        instruction against (``WGMMA_INSTRUCTION_REGISTERS``)."""
        target = current_target()
        groups = self.compute_warp_groups + (1 if self.warp_specialized else 0)
        threads = target.warp_group_size * groups
        cap = min(MAX_THREAD_REGISTERS, target.registers_per_sm // threads) // 8 * 8
        tn = self.instruction_axes()[1]
        need = tn * target.wgmma.m // target.warp_group_size + WGMMA_INSTRUCTION_REGISTERS
        if need > cap:
            producer = " and a producer" if self.warp_specialized else ""
            raise ScheduleError(f"MatmulParams.tile: N {tn} on {self.compute_warp_groups} compute warp groups"
                                f"{producer} ({threads} threads); one wgmma.m{target.wgmma.m}n{tn}k16 needs {need} "
                                f"registers a thread ({tn * target.wgmma.m // target.warp_group_size} accumulators "
                                f"and its operands), over the {cap} a thread of {threads} may have at entry "
                                f"(ptxas checks each instruction against it); use a narrower tile or fewer "
                                f"compute_warp_groups")

    def _validate_cluster(self) -> None:
        c = self.cluster
        if not (isinstance(c, tuple) and len(c) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                               for x in c)):
            raise ScheduleError(f"MatmulParams.cluster: {c!r} must be a pair of ints (blocks along M, along N)")
        if c == (1, 1):
            return
        if c not in CLUSTER_SHAPES:
            raise ScheduleError(f"MatmulParams.cluster: {c!r} is not supported; a cluster is (1, 1), (2, 1) or (4, 1) "
                                f"(blocks along M share B's tile), (1, 2) or (1, 4) (blocks along N share A's tile), "
                                f"or (2, 2), (4, 2) or (2, 4) (both)")
        limit = current_target().max_cluster_size
        if c[0] * c[1] > limit:
            raise ScheduleError(f"MatmulParams.cluster: {c!r} is {c[0] * c[1]} blocks, over the target's "
                                f"max_cluster_size {limit}")
        if self.persistent and c[0] > 1 and c[1] > 1:
            raise ScheduleError(f"MatmulParams.cluster: {c!r} with persistent=True; a persistent kernel walks "
                                f"cluster tiles along M or N, not both: use a cluster along one axis or "
                                f"persistent=False")
        if self.persistent:
            self._validate_persistent_cluster()

    def _validate_swapped_multicast(self, layout: MatmulLayout) -> None:
        """Swapped (``swap_ab``), a cluster along N multicasts A's K-major tile of ``TM`` rows (any multiple of 8) in
        one piece a block: each piece whole 8-row swizzle repeats (what a TMA box of the 128-byte swizzle starts on)."""
        cn = self.cluster[1]
        tm = self.tile[0]
        repeat = 8              # rows of one swizzle repeat (lowering.layout.CORE_ROWS)
        if not self.swap_ab or cn == 1 or layout.a_mn_major or (tm % cn == 0 and tm // cn % repeat == 0):
            return
        raise ScheduleError(f"MatmulParams.cluster: {self.cluster} with swap_ab=True multicasts A's {tm} x "
                            f"{self.tile[2]} tile in {cn} pieces of {tm / cn:g} rows, one a block; each piece must be "
                            f"whole swizzle repeats of {repeat} rows: use a tile M that is a multiple of {repeat * cn}")

    def _validate_persistent_cluster(self) -> None:
        """Persistent in clusters: the ``blocks`` are whole clusters, each walking cluster tiles (``cluster``'s
        adjacent tiles, ``schedule_matmul``'s ``_tile_axes``), and a group of the grouped order is whole cluster
        tiles along the raster's direction."""
        c = self.cluster
        size = c[0] * c[1]
        if self.blocks % size:
            raise ScheduleError(f"MatmulParams.blocks: {self.blocks} with cluster={c} and persistent=True; the "
                                f"persistent grid is whole clusters of {size} blocks (each cluster walks tiles "
                                f"together): use a multiple of {size}")
        along = c[0] if self.raster == "m" else c[1]
        if self.group_m % along:
            walk = "row tiles down a column of B" if self.raster == "m" else "column tiles along a row of A"
            raise ScheduleError(f"MatmulParams.group_m: {self.group_m} with cluster={c} and raster="
                                f"{self.raster!r}; the grouped order walks group_m {walk} in whole cluster tiles "
                                f"of {along}: use a multiple of {along}")

    def validate_epilogue_tile(self) -> None:
        """``epilogue_tile`` and ``epilogue_stages``: sub-tiles of every row of the tile and 16, 32 or 64 of its
        columns (a staging tile is one TMA box, a row of it one swizzle span), written by stmatrix.x4."""
        s = self.epilogue_stages
        if isinstance(s, bool) or not isinstance(s, int) or s < 1:
            raise ScheduleError(f"MatmulParams.epilogue_stages: {s!r} must be a positive int (staging tiles of the "
                                f"sub-tiled epilogue's ring)")
        e = self.epilogue_tile
        if e is None:
            return
        tm, tn, _ = self.tile
        if not (isinstance(e, tuple) and len(e) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                               for x in e)):
            raise ScheduleError(f"MatmulParams.epilogue_tile: {e!r} must be None or a pair of ints (rows, columns)")
        if not self.tma_store:
            raise ScheduleError(f"MatmulParams.epilogue_tile: {e} with tma_store=False; sub-tiles stage the output "
                                f"for TMA stores (register stores write each element where it is computed): set "
                                f"tma_store=True or epilogue_tile=None")
        em, en = e
        if self.swap_ab:
            self._validate_swapped_sub_tile()
        else:
            widths = [w for w in (16, 32, 64) if w * 2 in current_target().tma.swizzle_spans]
            if em != tm:
                raise ScheduleError(f"MatmulParams.epilogue_tile: {e} has {em} rows; a sub-tile spans every row of the "
                                    f"{tm} x {tn} tile (each warp group's fragment rows), so its rows must be {tm}")
            if en not in widths or tn % en:
                raise ScheduleError(f"MatmulParams.epilogue_tile: {e} has {en} columns; they must be one of "
                                    f"{', '.join(str(w) for w in widths)} (pairs of 8-column blocks for stmatrix.x4, a "
                                    f"staging row of one swizzle span) and divide the tile's N {tn}")
        if StoreWait.of(self.store_wait) is StoreWait.Deferred:
            raise ScheduleError(f"MatmulParams.store_wait: {self.store_wait!r} with epilogue_tile={e}; the sub-tiles' "
                                f"stores are waited for in their own ring (epilogue_stages): \"after_boxes\" waits for "
                                f"a tile's last ones at its end, \"carried\" before the next tile writes them")
        if s > self.sub_tiles():
            raise ScheduleError(f"MatmulParams.epilogue_stages: {s} staging tiles for {self.sub_tiles()} sub-tiles of "
                                f"{em} x {en}; a ring deeper than the sub-tiles is never used: at most "
                                f"{self.sub_tiles()}")

    def _validate_swapped_sub_tile(self) -> None:
        """Swapped (``swap_ab``), the fragment's columns are the tile's rows: a sub-tile is ``EM`` of the tile's rows
        and all its columns (``(EM, TN)``), EM a multiple of 16 (pairs of 8-column blocks of the fragment for
        stmatrix.x4) dividing TM, its staging tile in boxes of one swizzle row of columns."""
        assert self.epilogue_tile is not None
        em, en = self.epilogue_tile
        tm, tn, _ = self.tile
        pair = 2 * current_target().wgmma.n_step
        if en != tn:
            raise ScheduleError(f"MatmulParams.epilogue_tile: {self.epilogue_tile} has {en} columns; with swap_ab=True "
                                f"the accumulator's rows run along N, and a sub-tile is some of the tile's rows and "
                                f"all its {tn} columns (every fragment row): use ({em}, {tn})")
        if em % pair or tm % em:
            raise ScheduleError(f"MatmulParams.epilogue_tile: {self.epilogue_tile} has {em} rows; with swap_ab=True "
                                f"they are columns of the fragment, stored by stmatrix.x4 in pairs of 8, so they must "
                                f"be a multiple of {pair} that divides the tile's M {tm}")
        if self.epilogue_loads != "consumer":
            raise ScheduleError(f"MatmulParams.epilogue_loads: {self.epilogue_loads!r} with swap_ab=True and "
                                f"epilogue_tile={self.epilogue_tile}; the producer's pipeline of epilogue inputs runs "
                                f"over column sub-tiles: use epilogue_loads='consumer'")

    def validate_epilogue_loads(self) -> None:
        """``epilogue_loads="producer"``: the producer warp group loads the epilogue's inputs through a circular buffer
        over the epilogue's sub-tiles, so it needs a producer (``warp_specialized``), sub-tiles (``epilogue_tile``)
        and an epilogue that every block of a tile runs (``split_k=1``)."""
        mode = self.epilogue_loads
        if mode not in EPILOGUE_LOADS:
            raise ScheduleError(f"MatmulParams.epilogue_loads: {mode!r} must be one of "
                                f"{', '.join(repr(m) for m in EPILOGUE_LOADS)}")
        if mode != "producer":
            return
        if not self.warp_specialized:
            raise ScheduleError("MatmulParams.epilogue_loads: 'producer' with warp_specialized=False; the producer warp "
                                "group issues the epilogue's loads: set warp_specialized=True or "
                                "epilogue_loads='consumer'")
        if self.epilogue_tile is None:
            raise ScheduleError("MatmulParams.epilogue_loads: 'producer' with epilogue_tile=None; the producer's circular "
                                "buffer of epilogue inputs runs over the epilogue's sub-tiles (a stage per sub-tile): "
                                "set epilogue_tile (with tma_store=True) or epilogue_loads='consumer'")
        if self.split_k > 1:
            raise ScheduleError(f"MatmulParams.epilogue_loads: 'producer' with split_k={self.split_k}; only the last "
                                f"block of a tile runs the epilogue, so the other blocks would never release the "
                                f"stages the producer fills: use split_k=1 or epilogue_loads='consumer'")

    def epilogue_load_stages(self) -> int:
        """``epilogue_loads="producer"``: the stages of the epilogue inputs' circular buffer, one per sub-tile of a
        tile for each compute warp group taking turns (ping-pong), at least 2. Fewer than a tile's sub-tiles would
        deadlock: the producer, issuing a tile's epilogue loads before the rest of its mainloop loads, would wait
        for a stage that only that tile's epilogue frees, which waits for those mainloop loads."""
        turns = self.compute_warp_groups if self.ping_pong else 1
        return max(2, self.sub_tiles() * turns)

    def sub_tiles(self) -> int:
        """The epilogue's sub-tiles per output tile (1 without ``epilogue_tile``)."""
        if self.epilogue_tile is None:
            return 1
        return self.tile[0] // self.epilogue_tile[0] if self.swap_ab else self.tile[1] // self.epilogue_tile[1]

    def validate_loads(self, dtype: DataType, loads: Sequence[OperandLoad]) -> None:
        """The rules of an operand loaded by its compute warp groups (cp.async or plain copies, not TMA: its rows
        are not 16-byte multiples): see docs/matmul.md, "Any K and any row stride"."""
        own = [(name, load) for name, load in zip("AB", loads) if not load.tma]
        if not own:
            return
        name, load = own[0]
        nbytes = load.extent * dtype.size if load.extent is not None else "?"
        why = (f"a row of {load.rows_of or f'operand {name}'} holds {load.dim} = {load.extent} {dtype.short_name} "
               f"elements, {nbytes} bytes, not a multiple of the {current_target().tma.alignment} TMA needs, so the "
               f"compute warp groups load operand {name} with {load.describe()}")
        if self.warp_specialized:
            raise ScheduleError(f"MatmulParams.warp_specialized: {why}; its compute warp groups load it themselves "
                                f"and wait for their own copies, which a producer warp group cannot do for them: "
                                f"set warp_specialized=False (a Pipelined kernel)")
        if self.persistent:
            raise ScheduleError(f"MatmulParams.persistent: {why}; the pipeline of a compute-loaded operand runs one "
                                f"tile's K loop at a time: set persistent=False")
        if self.stream_k:
            raise ScheduleError(f"MatmulParams.stream_k: {why}; the pipeline of a compute-loaded operand runs one "
                                f"tile's K loop at a time: set stream_k=False")
        if isinstance(self.stages, str) or self.stages < 3:
            raise ScheduleError(f"MatmulParams.stages: {self.stages!r} with {why}; its loads are issued two stages "
                                f"ahead of the MMAs that read them and one stage behind those still in flight, "
                                f"so it needs at least 3 stages (an int)")
        threads = self.compute_warp_groups * current_target().warp_group_size
        tm, tn, tk = self.tile
        for name, load in own:
            rows = tm if name == "A" else tn
            vectors = rows * tk // load.vector
            if vectors % threads:
                raise ScheduleError(f"MatmulParams.tile: {self.tile} with operand {name} loaded by "
                                    f"{load.describe()}: its {rows} x {tk} tile is {vectors} copies, which the "
                                    f"{threads} threads of {self.compute_warp_groups} compute warp groups must share "
                                    f"evenly (a multiple of {threads})")

    def validate_split_k(self, k_tiles: int | None = None) -> None:
        """``split_k``'s rules; with ``k_tiles`` (the problem's K tiles, when known) also that every split has one."""
        s = self.split_k
        if not isinstance(s, int) or isinstance(s, bool) or s < 1:
            raise ScheduleError(f"MatmulParams.split_k: {s!r} must be a positive int (1: no split)")
        if s == 1:
            return
        max_z = current_target().max_grid[2]
        if s > max_z:
            raise ScheduleError(f"MatmulParams.split_k: {s} splits run on blockIdx.z, which takes at most {max_z} "
                                f"blocks")
        if self.persistent:
            raise ScheduleError(f"MatmulParams.split_k: {s} with persistent=True; split-K is implemented for the "
                                f"kernel with a block per output tile and K range (persistent=False): a persistent "
                                f"block would need a semaphore round per tile it walks")
        if tuple(self.cluster) != (1, 1):
            raise ScheduleError(f"MatmulParams.split_k: {s} with cluster={self.cluster}; split-K and clusters are not "
                                f"implemented together: use one of them")
        if k_tiles is not None and s > k_tiles:
            raise ScheduleError(f"MatmulParams.split_k: {s} splits of {k_tiles} K tiles (of {self.tile[2]}); each "
                                f"split needs at least one K tile: use split_k <= {k_tiles}")

    def validate_stream_k(self) -> None:
        """``stream_k``'s rules: a kernel of its own (its blocks walk their ranges of iterations, so not
        ``persistent``, no ``split_k`` nor clusters), Pipelined or warp-specialized (a producer warp group walks the
        block's range, its stages counted from the range's first iteration), the epilogue loads the consumers'."""
        sk = self.stream_k
        if not isinstance(sk, bool):
            raise ScheduleError(f"MatmulParams.stream_k: {sk!r} must be a bool")
        if not sk:
            return
        if self.split_k != 1:
            raise ScheduleError(f"MatmulParams.stream_k: True with split_k={self.split_k}; stream-K already splits the "
                                f"K tiles of a tile between blocks where its range ends: use split_k=1")
        if self.persistent:
            raise ScheduleError("MatmulParams.stream_k: True with persistent=True; a stream-K kernel is persistent in "
                                "its own way (each of its `blocks` blocks walks a range of tile x K-tile iterations): "
                                "use persistent=False")
        if self.epilogue_loads != "consumer":
            raise ScheduleError(f"MatmulParams.stream_k: True with epilogue_loads={self.epilogue_loads!r}; only the "
                                f"block that finishes a tile runs its epilogue, so a producer's epilogue pipeline would "
                                f"not be drained by the others: use epilogue_loads='consumer'")
        if tuple(self.cluster) != (1, 1):
            raise ScheduleError(f"MatmulParams.stream_k: True with cluster={self.cluster}; the blocks of a cluster "
                                f"would walk different tiles: use cluster=(1, 1)")

    def instruction_axes(self) -> tuple[int, int]:
        """The tile's extent along the wgmma's rows (whole 64-row pieces) and along its N: ``(TM, TN)``, or ``(TN,
        TM)`` with ``swap_ab``."""
        tm, tn, _ = self.tile
        return (tn, tm) if self.swap_ab else (tm, tn)

    def cluster_size(self) -> int:
        """Blocks of a thread-block cluster (1: no clusters)."""
        return self.cluster[0] * self.cluster[1]

    def tile_sharers(self) -> int:
        """Compute warp groups that share one tile: all of them (cooperative), or one (ping-pong)."""
        return 1 if self.ping_pong else self.compute_warp_groups

    def tile_regs(self) -> int:
        tm, tn, _ = self.tile
        return tm * tn // (current_target().warp_group_size * self.tile_sharers())

    def smem_bytes(self, dtype: DataType, loaded: int | Sequence[LoadedTile] = 0,
                   layout: MatmulLayout = ROW_MAJOR, loads: Sequence[OperandLoad] = TMA_LOADS, *,
                   outputs: int = 1) -> int:
        """Shared memory the kernel takes (with ``stages="auto"``: at its shallowest, 2 stages): the
        shared-memory model's layout of the buffers the schedule makes (``matmul_smem``), the same
        layout the lowering gives them. ``loaded``: the ``[M, N]`` inputs the epilogue reads (C),
        TMA-loaded into a tile each (``MatmulProblem.loaded_tiles``; an int: one tile of that many
        bytes per output element). ``layout``: the operands' major order (``MatmulProblem.layout``;
        default A K-major, B N-major). ``loads``: how A and B are loaded (``MatmulProblem.loads``: an operand the
        compute warp groups load has no barriers). ``outputs``: the fusion's outputs, with ``tma_store`` a staging
        tile (ring) each."""
        tma_operands = sum(load.tma for load in loads)
        return smem_model.lay_out(matmul_smem_requests(self, dtype, loaded, layout, tma_operands,
                                                       outputs=outputs)).total


# ``why`` of live params by ``id``, dropped when they are collected (``weakref.finalize``): no attribute of the
# instance, so ``__dict__``, ``asdict``, equality, hashing and ``repr`` see only the fields, and
# ``dataclasses.replace`` (or ``MatmulParams(**p.__dict__)``) makes params without it: a changed params is no
# longer the choice it explains.
_WHY: dict[int, ParamsWhy] = {}


def with_why(params: MatmulParams, why: ParamsWhy) -> MatmulParams:
    """``params`` carrying ``why`` (``params.why``)."""
    key = id(params)
    _WHY[key] = why
    weakref.finalize(params, _WHY.pop, key, None)
    return params
