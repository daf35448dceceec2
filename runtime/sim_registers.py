"""Register sharing in the simulator: ``setmaxnreg`` is checked, not executed.

``setmaxnreg.{inc,dec}.sync.aligned`` acts on a whole warp group: every thread of the four warps
must execute the same instruction. The simulator checks that the count is valid (a multiple of 8
in [24, 256]), that whole warps execute it, and that the n-th ``setmaxnreg`` of every warp of a
warp group is the same statement (a producer branch that is not warp-group aligned would have one
warp decrease while its neighbours increase).
"""

from __future__ import annotations

import numpy as np

from lowering import kernel_ir as k
from target import DEFAULT_TARGET

from .errors import SimulationError
from .sim_memory import Grid
from .sim_tasks import Ctx, Handler
from .sim_threads import Threads

WARP_SIZE = DEFAULT_TARGET.warp_size                # the lane structure the simulator models
WARPS_PER_GROUP = DEFAULT_TARGET.warps_per_group
REGISTER_RANGE = DEFAULT_TARGET.setmaxnreg_range
REGISTER_FILE = DEFAULT_TARGET.registers_per_block   # 32-bit registers, all of it one block's under __launch_bounds__(T, 1)


class RegisterSharing:
    """``SetMaxNReg`` statements: per (block, warp) the registers per thread it holds; a warp that exited
    (``threads``) counts as present for the whole-warp rule."""

    def __init__(self, grid: Grid, threads: Threads) -> None:
        self.grid = grid
        self.threads = threads
        self._nreg_count: dict[tuple[int, int], int] = {}                     # (block, warp) -> executed so far
        self._nreg_site: dict[tuple[int, int, int], tuple[tuple, str]] = {}    # (block, group, n) -> site, text
        warps = -(-grid.threads_per_block // WARP_SIZE)
        per_thread = min(REGISTER_RANGE[1], REGISTER_FILE // max(warps * WARP_SIZE, 1) // 8 * 8)
        self._nreg_per_thread = np.full((grid.num_blocks, warps), per_thread, dtype=np.int64)
        self._nreg_changed: dict[int, set[str]] = {}    # block -> {"inc", "dec"} it executed

    def handles(self) -> dict[type, Handler]:
        return {k.SetMaxNReg: self.set_max_nreg}

    def check_exit(self) -> None:
        """The blocks exited: what the warps hold after their setmaxnreg must fit the register file."""
        for b, kinds in sorted(self._nreg_changed.items()):
            held = int(self._nreg_per_thread[b].sum()) * WARP_SIZE
            if held > REGISTER_FILE:
                raise SimulationError(f"block {self.grid.block_name(b)}: after its setmaxnreg.inc the warps hold "
                                      f"{held} registers, more than the {REGISTER_FILE} of the register file, so the "
                                      f"inc never completes on the GPU (a setmaxnreg.dec of the other warps missing)")
            if kinds == {"dec"}:
                raise SimulationError(f"block {self.grid.block_name(b)}: warps released registers with "
                                      f"setmaxnreg.dec but no warp claimed them with setmaxnreg.inc (a missing inc: "
                                      f"register sharing without a consumer)")

    def set_max_nreg(self, node: k.SetMaxNReg, ctx: Ctx, i: int) -> None:
        self._check_setmaxnreg(node, ctx, i)
        grid = self.grid
        lanes = ctx.lanes
        for b, w in sorted({(int(b), int(w)) for b, w in zip(grid.block_of[lanes], grid.warp_of[lanes])}):
            self._nreg_changed.setdefault(b, set()).add("inc" if node.increase else "dec")
            self._nreg_per_thread[b, w] = node.count

    def _check_setmaxnreg(self, node: k.SetMaxNReg, ctx: Ctx, i: int) -> None:
        what = f"setmaxnreg.{'inc' if node.increase else 'dec'} {node.count}"
        # lowering.verify has checked the register count
        grid = self.grid
        lanes = ctx.lanes
        blocks, warps = grid.block_of[lanes], grid.warp_of[lanes]
        for b, w in {(int(b), int(w)) for b, w in zip(blocks, warps)}:
            first = b * grid.threads_per_block + w * WARP_SIZE
            whole = np.arange(first, min(first + WARP_SIZE, (b + 1) * grid.threads_per_block))
            present = np.isin(whole, lanes) | self.threads.exited[whole]
            if not present.all():
                raise SimulationError(f"{what}: only {int(np.isin(whole, lanes).sum())} of the {whole.size} threads of "
                                      f"warp {w} of block {grid.block_name(b)} execute it; setmaxnreg is executed by "
                                      f"whole warp groups")
            n = self._nreg_count.get((b, w), 0)
            self._nreg_count[(b, w)] = n + 1
            key = (b, w // WARPS_PER_GROUP, n)
            seen = self._nreg_site.setdefault(key, (ctx.site + (i,), what))
            if seen[0] != ctx.site + (i,):
                raise SimulationError(f"{what}: warp {w} of block {grid.block_name(b)} executes it while another warp "
                                      f"of its warp group {w // WARPS_PER_GROUP} executed {seen[1]} at another place; "
                                      f"the warps of a warp group must execute the same setmaxnreg (is the producer "
                                      f"branch a whole warp group?)")
