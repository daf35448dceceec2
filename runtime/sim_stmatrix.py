"""``stmatrix`` and ``ldmatrix`` in the simulator: a warp stores 8 x 8 matrices of 16-bit elements from registers to
shared memory, or loads them back.

``StMatrix(dst, dst_index, src, src_index, count)`` is executed by whole warps together
(``stmatrix.sync.aligned.m8n8.x{count}.shared.b16``). Lane ``l`` gives the address of row ``l % 8`` of
matrix ``l / 8`` (lanes ``>= 8 count`` give none): its ``dst_index``, the first of the row's 8 consecutive
elements, already swizzled. Register ``m`` of lane ``l`` holds row ``l / 4``, columns ``2 (l % 4)`` and
``2 (l % 4) + 1`` of matrix ``m``: ``src[src_index + 2m]`` and ``src[src_index + 2m + 1]`` of the lane's
Local buffer. So row ``r`` of matrix ``m`` is made of register ``m`` of lanes ``4r .. 4r + 3`` and goes to
the address of lane ``8m + r``. With ``.trans`` (``StMatrix.trans``) each matrix is stored transposed: the row lane
``8m + r`` addresses receives column ``r`` of matrix ``m``, its element ``c`` from register ``m`` of lane
``4c + r / 2`` (half ``r % 2``).

A task executes it for warp ``w`` of every block at once: its lanes, 32 consecutive threads of a block
per warp, are taken as ``[warps, 32]``. Errors (``SimulationError``): a warp whose threads do not all
execute it, a count other than 1, 2 or 4, types other than 16-bit ones (bf16, fp16; source and
destination alike), a destination not in shared memory or a source not in registers, a row address
that is not 16-byte aligned, and rows or registers out of bounds. The writes go through the checks of
ordinary shared stores: shared memory an unretired wgmma reads, the source of a TMA store not yet
retired, and the generic-proxy writer record that ``fence.proxy.async`` checks use (``sim_proxy``);
the thread that writes an element is the lane whose register holds it.

``LdMatrix(dst, dst_index, src, src_index, count)`` is the mirror: lane ``8m + r`` gives the address of row ``r`` of
matrix ``m`` in ``src``, and register ``m`` of lane ``l`` receives row ``l / 4``, columns ``2 (l % 4)`` and
``2 (l % 4) + 1``: ``dst[dst_index + 2m]`` and ``dst[dst_index + 2m + 1]``. Its reads are ordinary shared reads:
an element a copy has not landed in yet reads as poison. The same errors as stmatrix's.
"""

from __future__ import annotations

import numpy as np

from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from target import DEFAULT_TARGET

from .errors import SimulationError
from .sim_eval import Evaluator
from .sim_memory import Grid, Memory, Storage
from .sim_proxy import AsyncProxy
from .sim_tasks import Ctx, Handler
from .sim_wgmma_state import WgmmaState

WARP = DEFAULT_TARGET.warp_size
# a matrix copy's shared and Local storage, its lanes as [W, 32] warps, its registers' and its rows' positions
Operands = tuple[Storage, Storage, np.ndarray, np.ndarray, np.ndarray]
ROW = 8             # elements per matrix row (16 bytes of 16-bit elements)
ROW_BYTES = 16


class StMatrixOps:
    """``StMatrix`` statements; their shared-memory writes are checked against ``wgmma`` and ``proxy``."""

    def __init__(self, grid: Grid, evaluator: Evaluator, memory: Memory, wgmma: WgmmaState,
                 proxy: AsyncProxy) -> None:
        self.grid = grid
        self.eval = evaluator
        self.memory = memory
        self.wgmma = wgmma
        self.proxy = proxy

    def handles(self) -> dict[type, Handler]:
        return {k.StMatrix: self.st_matrix, k.LdMatrix: self.ld_matrix}

    def st_matrix(self, node: k.StMatrix, ctx: Ctx, i: int) -> None:
        what = f"stmatrix.x{node.count} from {node.src.name} into {node.dst.name}"
        # lowering.verify has checked the count, memories and element types
        found = self._operands(node, ctx, what, node.dst, node.dst_index, node.src, node.src_index)
        if found is None:
            return
        dst, src, warps, registers, pos = found                         # pos: [W, matrix, row, column]
        nw, count = len(warps), node.count
        values = src.data[registers].reshape(nw, ROW, 4, count, 2)     # [W, 32 lanes, count, 2]
        rows = values.transpose(0, 3, 1, 2, 4).reshape(nw, count, ROW, ROW)    # [W, matrix, row, column]
        writers = np.broadcast_to(warps.reshape(nw, 1, ROW, 4, 1), (nw, count, ROW, 4, 2)).reshape(rows.shape)
        if node.trans:      # .trans: row r as stored is column r of the registers' matrix
            rows, writers = rows.swapaxes(2, 3), writers.swapaxes(2, 3)
        where = lambda: f"{what} (dst_index {node.dst_index})"  # formatted only on error
        if dst.wgmma_reads is not None:
            self.wgmma.operand_overwrite(dst, pos, where)
        if dst.proxy is not None:
            self.proxy.generic_write(dst, pos, writers, where)
        dst.write(pos.reshape(-1), rows.reshape(-1))

    def ld_matrix(self, node: k.LdMatrix, ctx: Ctx, i: int) -> None:
        what = f"ldmatrix.x{node.count} from {node.src.name} into {node.dst.name}"
        found = self._operands(node, ctx, what, node.src, node.src_index, node.dst, node.dst_index)
        if found is None:
            return
        src, dst, warps, registers, pos = found                         # pos: [W, matrix, row, column]
        nw, count = len(warps), node.count
        rows = src.read(pos.reshape(-1)).reshape(nw, count, ROW, ROW)
        # register m of lane 4 r + q: row r, columns 2 q and 2 q + 1 of matrix m
        values = rows.reshape(nw, count, ROW, 4, 2).transpose(0, 2, 3, 1, 4)
        dst.write(registers.reshape(-1), values.reshape(-1))

    def _operands(self, node: k.StMatrix | k.LdMatrix, ctx: Ctx, what: str, shared: k.Buffer, rows: Val,
                  local: k.Buffer, registers: Val) -> Operands | None:
        """The shared and the Local storage, the lanes as ``[W, 32]`` warps, the positions of each lane's registers
        in the Local storage (``[lanes, 2 count]``) and those of the rows in the shared one (``[W, matrix, row,
        column]``); None where no lane executes it."""
        shared_st = self.memory.data_storage(shared, what)
        local_st = self.memory.data_storage(local, what)
        if ctx.lanes.size == 0:
            return None
        op = "stmatrix" if isinstance(node, k.StMatrix) else "ldmatrix"
        warps = self._warps(ctx.lanes, what, op)                        # [W, 32]
        blocks = self.grid.block_of[warps[:, 0]]
        regs = 2 * node.count
        base = self._registers(registers, local_st, regs, ctx, what)
        pos = self._rows(shared, rows, shared_st, ctx, warps, blocks, node.count, what)
        return shared_st, local_st, warps, (ctx.lanes * local_st.size + base)[:, None] + np.arange(regs), pos

    def _registers(self, index: Val, st: Storage, regs: int, ctx: Ctx, what: str) -> np.ndarray:
        """Each lane's first register, its ``regs`` registers inside its part of ``st``."""
        base = self.eval.per_lane(index, ctx)
        bad = (base < 0) | (base + regs > st.size)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise SimulationError(f"{what}: registers {st.buffer.name}[{int(base[j])}:{int(base[j]) + regs}] are out "
                                  f"of bounds (size {st.size}) for {self.grid.describe(int(ctx.lanes[j]))}")
        return base

    def _rows(self, buf: k.Buffer, index: Val, st: Storage, ctx: Ctx, warps: np.ndarray, blocks: np.ndarray,
              count: int, what: str) -> np.ndarray:
        """The shared positions of the rows the lanes address, ``[W, matrix, row, column]``: lane ``8m + r`` gives
        row ``r`` of matrix ``m``, 8 consecutive 16-bit elements from a 16-byte boundary, inside ``buf``."""
        nw = len(warps)
        addr = self.eval.per_lane(index, ctx).reshape(nw, WARP)[:, :ROW * count].reshape(nw, count, ROW)
        size = buf.dtype.size
        misaligned = (addr * size) % ROW_BYTES != 0
        if misaligned.any():
            w, m, r = (int(x[0]) for x in np.nonzero(misaligned))
            raise SimulationError(f"{what}: lane {ROW * m + r} of warp {self.grid.warp_name(int(warps[w, 0]))} gives "
                                  f"the row address {buf.name}[{int(addr[w, m, r])}] (byte "
                                  f"{int(addr[w, m, r]) * size}), not 16-byte aligned; every row starts on "
                                  f"a 16-byte boundary")
        outside = (addr < 0) | (addr + ROW > st.size)
        if outside.any():
            w, m, r = (int(x[0]) for x in np.nonzero(outside))
            a = int(addr[w, m, r])
            raise SimulationError(f"out-of-bounds access {buf.name}[{a}:{a + ROW}] (size {st.size}, Shared) in {what}: "
                                  f"row {r} of matrix {m}, addressed by lane {ROW * m + r} of warp "
                                  f"{self.grid.warp_name(int(warps[w, 0]))}")
        return (blocks[:, None, None] * st.size + addr)[..., None] + np.arange(ROW)

    def _warps(self, lanes: np.ndarray, what: str, op: str) -> np.ndarray:
        """The lanes as [warps, 32]: ``op`` (stmatrix or ldmatrix, ``.sync.aligned``) is executed by every thread of
        a warp together."""
        grid = self.grid
        if lanes.size % WARP == 0:
            warps = lanes.reshape(-1, WARP)
            first = warps[:, 0]
            if ((warps - first[:, None] == np.arange(WARP)).all() and not (grid.thread_of[first] % WARP).any()
                    and (grid.block_of[warps[:, -1]] == grid.block_of[first]).all()):
                return warps
        tpb = grid.threads_per_block
        key = grid.block_of[lanes] * tpb + grid.warp_of[lanes] * WARP       # the warp's first lane
        ids, counts = np.unique(key, return_counts=True)
        whole = np.minimum(WARP, tpb - ids % tpb)
        j = int(np.flatnonzero(counts != WARP)[0]) if (counts != WARP).any() else 0
        block = grid.block_name(int(ids[j]) // tpb)
        if whole[j] < WARP:
            raise SimulationError(f"{what}: warp {int(grid.warp_of[ids[j]])} of block {block} has only "
                                  f"{int(whole[j])} threads (a block of {tpb}); {op} needs whole warps of 32")
        raise SimulationError(f"{what}: only {int(counts[j])} of the 32 threads of warp {int(grid.warp_of[ids[j]])} "
                              f"of block {block} execute it; {op}.sync.aligned is executed by every thread of "
                              f"the warp together")


__all__ = ["StMatrixOps"]
