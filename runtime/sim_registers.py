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
from .sim_scheduler import Ctx

WARP_SIZE = DEFAULT_TARGET.warp_size                # the lane structure the simulator models
WARPS_PER_GROUP = DEFAULT_TARGET.warps_per_group


class RegisterSharing:
    def _init_registers(self) -> None:
        self._nreg_count: dict[tuple[int, int], int] = {}                     # (block, warp) -> executed so far
        self._nreg_site: dict[tuple[int, int, int], tuple[tuple, str]] = {}    # (block, group, n) -> site, text

    def visit_SetMaxNReg(self, node: k.SetMaxNReg, ctx: Ctx, i: int) -> None:
        what = f"setmaxnreg.{'inc' if node.increase else 'dec'} {node.count}"
        # lowering.verify has checked the register count
        grid = self.grid
        lanes = ctx.lanes
        blocks, warps = grid.block_of[lanes], grid.warp_of[lanes]
        for b, w in {(int(b), int(w)) for b, w in zip(blocks, warps)}:
            first = b * grid.threads_per_block + w * WARP_SIZE
            whole = np.arange(first, min(first + WARP_SIZE, (b + 1) * grid.threads_per_block))
            present = np.isin(whole, lanes) | self.exited[whole]
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
