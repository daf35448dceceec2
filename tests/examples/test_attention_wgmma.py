"""examples/attention_wgmma: the online-softmax rewrite of attention on one warp group of tensor cores (wgmma QK^T
into a register fragment, the row max and sum by quad shuffles, cast(e) the register A operand of the PV wgmma
accumulated in place by the rescaled sum). The simulator against float64 numpy (``attention.reference``: p not
rounded) at sizes no block divides, two seeds each; the kernel's structure; the sizes it refuses."""

from __future__ import annotations

import numpy as np
import pytest

from examples import attention_wgmma
from fusion_ir import ScheduleError
from lowering import lower
from runtime import simulate

CASES = [   # B, H, Sq, Skv, D, causal, block_kv
    ((1, 2, 200, 200, 64), False, 64),
    ((2, 1, 256, 256, 128), False, 64),
    ((2, 1, 256, 256, 128), False, 128),
    ((1, 2, 100, 333, 64), True, 64),          # causal with Sq != Skv: keys past the queries are masked too
    ((1, 1, 200, 130, 128), True, 128),
]


def _rel_error(out: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(np.asarray(out, dtype=np.float64) - want).max() / np.abs(want).max())


@pytest.mark.parametrize("shape,causal,block_kv", CASES, ids=[f"{s}-causal{c}-kv{b}" for s, c, b in CASES])
def test_matches_numpy(shape: tuple[int, ...], causal: bool, block_kv: int) -> None:
    kernel = lower(attention_wgmma.build(*shape, causal=causal, block_kv=block_kv))
    for seed in (0, 1):
        inputs = attention_wgmma.make_inputs(*shape, seed=seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        err = _rel_error(out, attention_wgmma.reference(*inputs, causal=causal))
        assert err <= attention_wgmma.TOLERANCE, (shape, causal, block_kv, seed, err)


def test_two_wgmma_per_key_block_and_q_loaded_once() -> None:
    """One warp group per 64 query rows; q's boxes loaded before the key-block loop; in it, k_j's boxes, the scores'
    wgmmas from shared memory and the output's wgmmas with the probabilities in registers."""
    kernel = lower(attention_wgmma.build(1, 2, 200, 200, 128, block_kv=64))
    text = str(kernel)
    assert "block (128, 1, 1)" in text and "grid (4, 2, 1)" in text
    assert "wgmma.m64n64k16" in text and "wgmma.m64n128k16" in text
    assert "in registers" in text                                    # cast(e) is the PV wgmma's register A
    key_blocks = text.index(") (rS")                                 # the serial loop over the key blocks
    # q: before it, once; k_j and v_j in each of its two ranges (the blocks before the last one, unmasked; the last)
    assert text.count("tma_load(") == 5 and text.index("tmap_T0, {") < key_blocks
    assert key_blocks < text.index("tmap_T1, {") and key_blocks < text.index("tmap_T2, {")  # k_j, v_j: in it
    assert text.count("shfl.xor") == 8                               # max and sum: lane masks 1 and 2, twice


@pytest.mark.parametrize("kwargs,needle", [({"head_dim": 96}, "head_dim = 96"), ({"block_kv": 32}, "block_kv = 32")])
def test_refuses_sizes_it_does_not_lay_out(kwargs: dict, needle: str) -> None:
    args = {"batch": 1, "heads": 1, "seq_q": 64, "seq_kv": 64, "head_dim": 64, **kwargs}
    with pytest.raises(ScheduleError, match=needle):
        attention_wgmma.build(**args)


def test_symbolic_sizes_non_causal_match_numpy() -> None:
    """Batch, heads and sequence lengths symbolic (the head dim constant): one kernel for any size; the views of k
    and v stay read through by their TMA boxes (never inlined, never computed)."""
    from examples import attention
    from fusion_ir.online_softmax import online_softmax
    from fusion_ir.schedulers.attention_wgmma import schedule_on_tensor_cores

    fusion = attention.fusion_of(head_dim=64, symbolic=True)
    (record,) = online_softmax(fusion, 64)
    schedule_on_tensor_cores(fusion, record)
    kernel = lower(fusion)
    for n, shape in enumerate([(1, 2, 200, 130, 64), (2, 1, 64, 300, 64)]):
        inputs = attention_wgmma.make_inputs(*shape, seed=10 + n)
        (out,) = simulate(kernel, inputs, seed=n)
        assert _rel_error(out, attention_wgmma.reference(*inputs)) <= attention_wgmma.TOLERANCE, shape


@pytest.mark.parametrize("causal,block_kv", [(False, 64), (True, 128)])
def test_the_per_row_recurrence_stays_in_registers(causal: bool, block_kv: int) -> None:
    """The row max and sum, the running max, the safe max, alpha and the row sum: Local, laid out as the fragment's
    rows with the quad's 4 lanes (every lane holds its rows' values), on all 128 threads. Shared memory holds only
    the q, k and v tiles (and the mbarriers); the key-block loop's barriers are the TMA tiles' (k_j and v_j arrived,
    k_j and v_j rewritten, v_j taking k_j's memory), none for a per-row value."""
    from fusion_ir import MemoryType
    from lowering import kernel_ir as k

    kernel = lower(attention_wgmma.build(1, 2, 200, 200, 64, causal=causal, block_kv=block_kv))
    shared = [n.buffer for n in k.walk(kernel.body) if isinstance(n, k.Allocate)
              and n.buffer.memory is MemoryType.Shared and not n.buffer.name.endswith("_mbar")]
    # the key blocks run in two ranges (loop_versions: the last, partial block masked), each with its k_j and v_j
    loops = [n for n in kernel.body if isinstance(n, k.ForLoop) and n.label.startswith("rS")
             and any(isinstance(m, k.Mma) for m in k.walk(n.body))]
    assert len(loops) == 2
    assert [b.dtype.name for b in shared] == ["BFloat16"] * (1 + 2 * len(loops))   # q, and k_j and v_j per range
    for key_blocks in loops:
        tiles = [n.buffer.name for n in k.walk(key_blocks.body) if isinstance(n, k.Allocate)
                 and n.buffer.memory is MemoryType.Shared and not n.buffer.name.endswith("_mbar")]
        v_j, k_j = tiles                                                         # in allocation order
        reasons = [n.reason for n in k.walk(key_blocks.body) if isinstance(n, k.BlockSync)]
        # k_j and v_j arrive: every thread waits on the mbarrier phase, no block barrier; k_j and v_j in memory of
        # their own (small tiles): one WAR barrier for both at the end of the key block (the head-dim loop around
        # k_j's load runs once)
        assert len(reasons) == 1 and reasons[0] in (f"WAR: {v_j} is rewritten next iteration",
                                                    f"WAR: {k_j} is rewritten next iteration")
    text = str(kernel)
    assert "threadIdx.x < 32" not in text                         # no thread per row pair


# ---------------------------------------------------------------------------------------------- causal block skipping
CAUSAL = [   # B, H, Sq, Skv, D, block_kv: Sq < Skv, Sq > Skv, Skv no multiple of the block, one square
    ((1, 2, 100, 333, 64), 64),
    ((1, 1, 200, 130, 128), 128),
    ((1, 1, 200, 130, 128), 64),
    ((1, 2, 256, 256, 64), 64),
    ((1, 1, 300, 70, 64), 64),             # rows past Skv see every key; most tiles walk every block
]


def _kv_loops(kernel) -> list:
    """The serial loops over the key blocks (``rS`` of ceilDiv(Skv, block_kv), bounded per block): the unmasked range
    and the masked one."""
    from lowering.kernel_ir import ForLoop

    return [n for n in kernel.body if isinstance(n, ForLoop) and n.label.startswith("rS")
            and "blockIdx" in str(n.stop)]


def _kv_loop(kernel):
    """The masked range of the key blocks, whose stop is the tile's bound; it starts where the unmasked one stops."""
    unmasked, masked = _kv_loops(kernel)
    assert str(unmasked.stop) == str(masked.start) and str(unmasked.start) == "0"
    return masked


@pytest.mark.parametrize("shape,block_kv", CAUSAL, ids=[f"{s}-kv{b}" for s, b in CAUSAL])
def test_causal_key_blocks_end_at_the_tile_and_match_numpy(shape: tuple[int, ...], block_kv: int) -> None:
    kernel = lower(attention_wgmma.build(*shape, causal=True, block_kv=block_kv))
    nb = -(-shape[3] // block_kv)
    assert str(_kv_loop(kernel).stop) == f"min({nb}, ceilDiv((blockIdx.x * 64) + 64, {block_kv}))"
    unmasked, masked = _kv_loops(kernel)      # the blocks the tile sees whole: no key compared (j <= i, j < Skv)
    masks = ("CompareValue(op='le'", "CompareValue(op='lt'")
    assert not any(m in repr(unmasked.body) for m in masks) and "CompareValue(op='le'" in repr(masked.body)
    for seed in (0, 1, 2):
        inputs = attention_wgmma.make_inputs(*shape, seed=seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        err = _rel_error(out, attention_wgmma.reference(*inputs, causal=True))
        assert err <= attention_wgmma.TOLERANCE, (shape, block_kv, seed, err)


def test_causal_blocks_run_out_of_lockstep_match_numpy() -> None:
    """Blocks of different trip counts interleaved at random (``interleave_blocks``), not in lockstep."""
    shape = (1, 2, 200, 333, 64)
    kernel = lower(attention_wgmma.build(*shape, causal=True))
    inputs = attention_wgmma.make_inputs(*shape, seed=5)
    (out,) = simulate(kernel, inputs, seed=5, interleave_blocks=5)
    assert _rel_error(out, attention_wgmma.reference(*inputs, causal=True)) <= attention_wgmma.TOLERANCE


def test_the_simulator_runs_each_block_to_its_last_visible_key_block() -> None:
    """The key-block iterations each block executes, counted in the simulator: tile t (rows 64 t .. 64 t + 63) of
    ``[1, 2, 300, 333, 64]`` with 64 keys a block runs min(6, t + 1) of the 6 blocks, for both heads: the t blocks
    it sees whole without the mask, then the diagonal block masked."""
    from runtime.sim_control import ControlFlow

    shape = (1, 2, 300, 333, 64)
    kernel = lower(attention_wgmma.build(*shape, causal=True))
    unmasked, masked = _kv_loops(kernel)
    seen: set[tuple[int, int, int]] = set()
    masked_seen: set[tuple[int, int, int]] = set()
    run_body = ControlFlow.run_body

    def counting(self, body, ctx):
        for loop, into in ((unmasked, seen), (masked, masked_seen)):
            if body is loop.body:
                index = np.broadcast_to(np.asarray(ctx.env[loop.index.name]), ctx.lanes.shape)
                for bx, by, j in zip(self.grid.bid[0][ctx.lanes], self.grid.bid[1][ctx.lanes], index):
                    into.add((int(bx), int(by), int(j)))
        return (yield from run_body(self, body, ctx))

    ControlFlow.run_body = counting
    try:
        inputs = attention_wgmma.make_inputs(*shape, seed=0)
        (out,) = simulate(kernel, inputs)
    finally:
        ControlFlow.run_body = run_body
    assert masked_seen == {(t, h, t) for t in range(5) for h in range(2)}     # the diagonal block only
    assert not seen & masked_seen
    seen |= masked_seen
    counts = {}
    for bx, by, j in seen:
        counts[bx, by] = counts.get((bx, by), 0) + 1
        assert j < min(6, bx + 1), (bx, by, j)
    assert counts == {(t, h): min(6, t + 1) for t in range(5) for h in range(2)}
    assert _rel_error(out, attention_wgmma.reference(*inputs, causal=True)) <= attention_wgmma.TOLERANCE


def _shifted_causal(shape: tuple[int, ...], shift: int):
    """Attention whose row i sees the keys j <= i + shift (``shift`` < 0: the first rows see none)."""
    import math

    from fusion_ir import DataType, Fusion, ops
    from fusion_ir.online_softmax import online_softmax
    from fusion_ir.schedulers.attention_wgmma import schedule_on_tensor_cores

    b, h, sq, skv, d = shape
    fusion = Fusion()
    with fusion:
        q = fusion.add_input(shape=(b, h, sq, d), dtype=DataType.BFloat16)
        k = fusion.add_input(shape=(b, h, skv, d), dtype=DataType.BFloat16)
        v = fusion.add_input(shape=(b, h, skv, d), dtype=DataType.BFloat16)
        s = ops.mul(ops.matmul(q, ops.transpose(k, -2, -1)), 1.0 / math.sqrt(d))
        i = ops.broadcast(ops.iota(sq), [True, True, False, True])
        j = ops.broadcast(ops.iota(skv), [True, True, True, False])
        s = ops.where(ops.le(j, ops.add(i, shift)), s, float("-inf"))
        last = [False, False, False, True]
        e = ops.exp(ops.sub(s, ops.broadcast(ops.max(s, [3]), last)))
        p = ops.div(e, ops.broadcast(ops.sum(e, [3]), last))
        fusion.add_output(ops.cast(ops.matmul(ops.cast(p, DataType.BFloat16), v), DataType.BFloat16))
    with fusion.transaction():
        (record,) = online_softmax(fusion, 64)
        schedule_on_tensor_cores(fusion, record)
    return fusion


def _shifted_reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, shift: int) -> np.ndarray:
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    s = q @ np.swapaxes(k, -2, -1) / np.sqrt(q.shape[-1])
    sq, skv = s.shape[-2:]
    s = np.where(np.arange(skv)[None, :] <= np.arange(sq)[:, None] + shift, s, -np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)) @ v


@pytest.mark.parametrize("shift,stop", [
    (40, "ceilDiv((blockIdx.x * 64) + 104, 64)"),
    (-3, "ceilDiv((blockIdx.x * 64) + 61, 64)"),
    (-100, "ceilDiv(max(0, (blockIdx.x * 64) + -36), 64)"),     # tile 0 sees no key: zero key blocks
])
def test_shifted_causal_masks_bound_by_their_shift(shift: int, stop: str) -> None:
    """``j <= i + shift``: the bound follows the shift; rows that see no key give NaN (0 / 0), as numpy's softmax of
    a row of -inf does (and torch's), also in a tile whose loop runs no key block at all."""
    shape = (1, 1, 200, 130, 64)
    kernel = lower(_shifted_causal(shape, shift))
    assert str(_kv_loop(kernel).stop) == f"min(3, {stop})"
    for seed in (0, 1):
        inputs = attention_wgmma.make_inputs(*shape, seed=seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        want = _shifted_reference(*inputs, shift)
        out = np.asarray(out, dtype=np.float64)
        assert (np.isnan(out) == np.isnan(want)).all(), (shift, seed)
        seen = ~np.isnan(want)
        err = np.abs(out[seen] - want[seen]).max() / np.abs(want[seen]).max()
        assert err <= attention_wgmma.TOLERANCE, (shift, seed, err)


# ---------------------------------------------------------------------------------------------- the mask per element
def _enclosing_loops(body: tuple, found: list, path: tuple = ()) -> None:
    """(the loops around it, node) for every node of ``body``."""
    from lowering import kernel_ir as k

    for node in body:
        found.append((path, node))
        for _, sub in k.children(node):
            _enclosing_loops(sub, found, path + ((node,) if isinstance(node, k.ForLoop) else ()))


MASKED = [((1, 2, 100, 333, 64), True, 64), ((1, 1, 200, 130, 128), True, 128), ((1, 2, 200, 200, 64), False, 64)]


@pytest.mark.parametrize("shape,causal,block_kv", MASKED, ids=[f"{s}-causal{c}-kv{b}" for s, c, b in MASKED])
def test_the_key_mask_is_computed_per_element_in_registers(shape: tuple[int, ...], causal: bool,
                                                           block_kv: int) -> None:
    """The key index (``j * block_kv + column``, the blocked key iota) and the query index are computed inside the
    fragment's loops, each element from its own column and row, and compared there (``key < Skv``,
    ``key <= query``): every integer or boolean buffer of the kernel holds one element. A buffer of the whole key
    block (``[block_kv]`` per thread) read at the fragment's thread-dependent column is local memory on the GPU."""
    from fusion_ir import DataType, MemoryType
    from lowering import kernel_ir as k

    kernel = lower(attention_wgmma.build(*shape, causal=causal, block_kv=block_kv))
    exact = (DataType.Int32, DataType.Int64, DataType.Bool)
    masks = [n.buffer for n in k.walk(kernel.body) if isinstance(n, k.Allocate)
             and n.buffer.memory is MemoryType.Local and n.buffer.dtype in exact
             and not n.buffer.name.endswith("_token")]          # a TMA load's mbarrier token, not a mask
    assert masks and all(str(b.size) == "1" for b in masks), [(b.name, str(b.size)) for b in masks]
    found: list = []
    _enclosing_loops(kernel.body, found)
    compares = [(loops, n) for loops, n in found if isinstance(n, k.Assign) and "CompareValue(op='l" in repr(n.value)]
    ops = {"CompareValue(op='le'" in repr(n.value) for _, n in compares}
    assert ops == ({True, False} if causal else {False})
    for loops, _ in compares:   # inside the fragment's column loop: block_kv / 8 column groups of a thread, unrolled
        assert any(str(f.stop) == str(block_kv // 8) and f.unroll for f in loops), [f.label for f in loops]


# ------------------------------------------------------------------------------------------- TMA waits without barriers
PHASES = [   # B, H, Sq, Skv, D, causal, block_kv
    ((1, 2, 200, 200, 64), False, 64),
    ((1, 2, 200, 200, 64), False, 128),
    ((1, 1, 200, 130, 128), True, 128),        # D = 128: k_j's load is issued twice per key block
    ((1, 2, 100, 333, 64), True, 64),          # causal with Sq != Skv: the key-block loop runs in two ranges
]


def _key_block_loops(kernel):
    from lowering import kernel_ir as k

    return [n for n in kernel.body if isinstance(n, k.ForLoop) and n.label.startswith("rS")
            and any(isinstance(m, k.Mma) for m in k.walk(n.body))]


@pytest.mark.parametrize("shape,causal,block_kv", PHASES, ids=[f"{s}-causal{c}-kv{b}" for s, c, b in PHASES])
def test_the_key_block_loop_waits_on_the_tma_phases_without_block_barriers(shape, causal: bool, block_kv: int) -> None:
    """k_j and v_j: every thread waits on its mbarrier's phase (the parity of the loads issued before, counted from
    the key-block index, the same in both ranges of the loop); no token, no RAW block barrier; k_j's WAR is the
    barrier at the end of the key block, shared with v_j's where the tiles have memory of their own (D = 64): 1 block
    barrier per key block (there were 5: k_j arrived, k_j rewritten, v_j takes k_j's memory, v_j arrived, v_j
    rewritten); where v_j takes k_j's memory (D = 128, 128 keys), that barrier is k_j's WAR one."""
    from lowering import kernel_ir as k

    kernel = lower(attention_wgmma.build(*shape, causal=causal, block_kv=block_kv))
    assert not any(isinstance(n, k.MBarrierWait) or (isinstance(n, k.BlockSync) and "arrived by TMA" in n.reason)
                   for n in k.walk(kernel.body))
    loops = _key_block_loops(kernel)
    assert len(loops) in (1, 2)                 # two ranges where the loop_versions pass splits it
    for loop in loops:
        waits = [n for n in k.walk(loop.body) if isinstance(n, k.MBarrierWaitParity)]
        assert len(waits) == 2 and str(loop.index) in str(waits[-1].parity)     # v_j's: one load per key block
        assert not any(isinstance(n, k.ElectSync) and any(isinstance(x, k.MBarrierWaitParity) for x in n.body)
                       for n in k.walk(loop.body))            # all threads wait, not an elected one
        # D = 128: k_j comes in two loads per key block, each rewritten by the next (its WAR barrier in that loop)
        reasons = [n.reason for n in k.walk(loop.body) if isinstance(n, k.BlockSync)]
        if shape[4] == 64:
            assert len(reasons) == 1 and reasons[0].startswith("WAR:"), reasons
        else:
            assert len(reasons) == 3 and "reuses the memory" in reasons[1], reasons
    assert [str(w.parity) for w in k.walk(loops[0].body) if isinstance(w, k.MBarrierWaitParity)] == \
        [str(w.parity) for w in k.walk(loops[-1].body) if isinstance(w, k.MBarrierWaitParity)]


def _simulated_error(kernel, shape, causal: bool, seed: int) -> str | None:
    from runtime import SimulationError

    inputs = attention_wgmma.make_inputs(*shape, seed=seed)
    try:
        (out,) = simulate(kernel, inputs, seed=seed)
    except SimulationError as e:
        return str(e)
    with np.errstate(invalid="ignore"):
        err = _rel_error(out, attention_wgmma.reference(*inputs, causal=causal))
    return None if err <= attention_wgmma.TOLERANCE else f"wrong result: {err}"


@pytest.mark.parametrize("tile", ["k_j", "v_j"])
def test_a_tma_phase_wait_off_by_one_is_reported(tile: str) -> None:
    """The parity of k_j's (v_j's) wait off by one: the wait returns before the copy landed (poison read) or the
    next arrive comes while it is in flight."""
    import dataclasses

    from lowering import kernel_ir as k
    from tests.runtime.kir_builders import mutate

    shape, causal = (1, 2, 200, 200, 64), False
    kernel = lower(attention_wgmma.build(*shape, causal=causal, block_kv=64))
    loop = _key_block_loops(kernel)[0]
    v_j, k_j = [n.buffer for n in k.walk(loop.body) if isinstance(n, k.Allocate) and n.buffer.memory.name == "Shared"]
    mbar = next(n.mbar for n in k.walk(loop.body) if isinstance(n, k.TmaLoad) and n.dst == (k_j if tile == "k_j" else v_j))
    bad = mutate(kernel, lambda n: dataclasses.replace(n, parity=(n.parity + 1) % 2)
                 if isinstance(n, k.MBarrierWaitParity) and n.mbar == mbar else None)
    assert all(_simulated_error(bad, shape, causal, seed) is not None for seed in (0, 3))


def test_a_parity_counted_from_the_second_range_is_reported() -> None:
    """The key-block loop's second range counting its phases from its own start, as if the first range had run
    none: where the first range ran an odd number of key blocks, its waits are off by one."""
    import dataclasses

    from lowering import kernel_ir as k
    from tests.runtime.kir_builders import mutate

    shape, causal = (1, 2, 100, 333, 64), True
    kernel = lower(attention_wgmma.build(*shape, causal=causal, block_kv=64))
    second = _key_block_loops(kernel)[-1]
    restart = {second.index.name: second.index - second.start}

    def from_its_start(node: k.Node):
        if node != second:
            return None
        return (dataclasses.replace(node, body=k.rewrite(node.body, lambda n: dataclasses.replace(
            n, parity=n.parity.substitute(restart)) if isinstance(n, k.MBarrierWaitParity) else None)),)

    bad = mutate(kernel, from_its_start)
    assert any(_simulated_error(bad, shape, causal, seed) is not None for seed in (0, 3))
