"""runtime.simulate executes wgmma: operands through matrix descriptors and swizzles, asynchronous
accumulators retired by wait_group, and the fence / overwrite / exit hazards; mutations must fail."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pytest

from fusion_ir.reference import round_bf16
from fusion_ir.types import SmemSwizzle
from lowering import kernel_ir as k
from lowering.layout import wgmma_accumulator
from runtime import SimulationError, simulate, simulator
from tests.runtime.kir_builders import TX, assign, c, elect, fconst, if_, insert_after, load, remove_nodes
from tests.runtime.wgmma_builders import (
    BF16,
    F16,
    K16,
    Layout,
    Spec,
    inputs,
    matmul_kernel,
    operands,
    reference,
    relative_error,
    two_groups_kernel,
)

SEEDS = (0, 1, 2)   # seed 0 lands TMA copies only when a wait forces them
TOLERANCE = 1e-5

SPECS = {
    "n256-tma": Spec(n=256),
    "n256-stores": Spec(n=256, fill="stores"),
    "n64-tma": Spec(n=64),
    "n64-stores": Spec(n=64, fill="stores"),
    "n8-mn-noswizzle-tma": Spec(n=8, b=Layout.mn(SmemSwizzle.NONE)),
    "n8-kmajor-stores": Spec(n=8, b=Layout.k(), fill="stores"),
    "n16-mn-b32-tma": Spec(n=16, b=Layout.mn(SmemSwizzle.B32)),
    "n32-mn-b64-stores": Spec(n=32, b=Layout.mn(SmemSwizzle.B64), fill="stores"),
    "n24-kmajor-stores": Spec(n=24, b=Layout.k(), fill="stores"),
    "n64-2groups-tma": Spec(n=64, groups=2),
    "n256-2groups-stores": Spec(n=256, groups=2, fill="stores"),
    "fp16-n64-tma": Spec(n=64, dtype=F16),
    "fp16-n128-2groups-stores": Spec(n=128, groups=2, dtype=F16, fill="stores"),
    "fp16-n8-kmajor-stores": Spec(n=8, dtype=F16, b=Layout.k(), fill="stores"),
    "n128-2groups-4ktiles-2x2blocks": Spec(n=128, groups=2, k_tiles=4, grid=(2, 2)),
}


def run(kern: k.Kernel, spec: Spec, seed: int = 0, data_seed: int = 0) -> float:
    """Relative error of the kernel's output against the float64 reference (inf with NaN)."""
    x = inputs(spec, data_seed)
    (y,) = simulate(kern, x, seed=seed)
    return relative_error(y, reference(*x))


def fails(kern: k.Kernel, spec: Spec, seed: int = 0) -> bool:
    """A mutation fails when the simulator refuses it or its output is wrong."""
    try:
        return run(kern, spec, seed) > 1e-3
    except SimulationError:
        return True


def with_mmas(kern: k.Kernel, **changes: object) -> k.Kernel:
    """Every Mma with its A (``a_*``) or B (``b_*``) descriptor fields changed."""
    def change(node: k.Node) -> k.Node | None:
        if not isinstance(node, k.Mma):
            return None
        a = {key[2:]: v for key, v in changes.items() if key.startswith("a_")}
        b = {key[2:]: v for key, v in changes.items() if key.startswith("b_")}
        return replace(node, a=replace(node.a, **a), b=replace(node.b, **b))

    return replace(kern, body=k.rewrite(kern.body, change))


def commit(node: k.Node) -> bool:
    return isinstance(node, k.AsyncCommit) and node.kind is k.AsyncKind.Wgmma


# ---------------------------------------------------------------- numerics
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(SPECS))
def test_wgmma_matmul_matches_numpy(name: str, seed: int) -> None:
    spec = SPECS[name]
    assert run(matmul_kernel(spec), spec, seed, data_seed=seed) < TOLERANCE


def test_two_warp_groups_compute_their_own_64_rows() -> None:
    """Each warp group's rows come from its own A rows: swapping the groups' A rows is visible."""
    spec = Spec(n=64, groups=2)
    x = inputs(spec)
    (y,) = simulate(matmul_kernel(spec), x)
    ref = reference(*x)
    assert relative_error(y[:64], ref[:64]) < TOLERANCE and relative_error(y[64:], ref[64:]) < TOLERANCE
    assert not np.allclose(ref[:64], ref[64:])


def test_inputs_are_rounded_to_the_operand_type() -> None:
    """float32 inputs that are not bf16 values are rounded on the way in: the reference of the rounded
    inputs matches, that of the unrounded ones does not."""
    spec = Spec(n=64)
    rng = np.random.default_rng(5)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in spec.shapes)
    (y,) = simulate(matmul_kernel(spec), [a, b])
    assert relative_error(y, reference(round_bf16(a), round_bf16(b))) < TOLERANCE
    assert relative_error(y, reference(a, b)) > 1e-4


def test_wait_group_1_retires_all_but_the_newest_group() -> None:
    spec = Spec(n=64, fill="stores")
    a, b = inputs(spec, 3)
    first, in_flight, second = simulate(two_groups_kernel(64), [a, b])
    assert relative_error(first, reference(a[:, :K16], b[:K16])) < TOLERANCE
    assert np.isnan(in_flight).all()                      # read before the wait_group that covers it
    assert relative_error(second, reference(a[:, K16:2 * K16], b[K16:2 * K16])) < TOLERANCE


def test_a_256_cube_with_16_mmas_per_warp_simulates_fast() -> None:
    """256 x 256 x 256: 4 blocks of 2 warp groups, 128 x 128 tiles, 4 k tiles of 4 k16 steps (16 wgmma per warp)."""
    spec = Spec(n=128, groups=2, k_tiles=4, grid=(2, 2))
    assert spec.shapes == ((256, 256), (256, 256))
    kern = matmul_kernel(spec)
    x = inputs(spec)
    start = time.process_time()   # CPU time: other tests and jobs sharing the cores do not count
    (y,) = simulate(kern, x, seed=1)
    elapsed = time.process_time() - start
    assert relative_error(y, reference(*x)) < TOLERANCE
    print(f"256^3 wgmma matmul: {elapsed * 1e3:.1f} ms of CPU in the simulator")
    assert elapsed < 0.5


# ---------------------------------------------------------------- descriptor mutations
def test_a_descriptor_swizzle_other_than_the_buffers_is_refused() -> None:
    spec = Spec(n=64)
    with pytest.raises(SimulationError, match=r"operand A \(T3\) of Mma into T5: the descriptor says swizzle B64, but "
                                              r"T3 is laid out with swizzle B128"):
        run(with_mmas(matmul_kernel(spec), a_swizzle=SmemSwizzle.B64), spec)
    assert fails(with_mmas(matmul_kernel(spec), b_swizzle=SmemSwizzle.B32), spec)


@pytest.mark.parametrize("change", ["a_stride_bytes", "b_stride_bytes", "b_leading_bytes", "b_mn_major"])
def test_wrong_descriptor_fields_give_wrong_numbers_or_errors(change: str) -> None:
    spec = Spec(n=256)
    kern = matmul_kernel(spec)
    value = not True if change == "b_mn_major" else 512
    assert fails(with_mmas(kern, **{change: value}), spec)


def test_a_wrong_k_step_of_the_descriptor_start_is_wrong() -> None:
    """Advancing B by 16 elements (a K-major step) instead of 16 k rows of the N-major tile."""
    spec = Spec(n=64)
    kern = matmul_kernel(spec)

    def step(node: k.Node) -> k.Node | None:
        if isinstance(node, k.Mma):
            return replace(node, b=replace(node.b, offset=k.Val.symbol("s") * K16))
        return None

    assert fails(replace(kern, body=k.rewrite(kern.body, step)), spec)


def test_a_descriptor_start_off_the_16_byte_grid_is_refused() -> None:
    spec = Spec(n=64)
    kern = matmul_kernel(spec)

    def shift(node: k.Node) -> k.Node | None:
        return replace(node, a=replace(node.a, offset=node.a.offset + 4)) if isinstance(node, k.Mma) else None

    with pytest.raises(SimulationError, match=r"start address T3\[4\] \(byte 8\) is not 16-byte aligned"):
        run(replace(kern, body=k.rewrite(kern.body, shift)), spec)


# ---------------------------------------------------------------- asynchrony mutations
def test_reading_accumulators_before_their_wait_group_reads_nan() -> None:
    """wait_group 1 leaves the only group in flight while the fragments are stored: NaN; the final
    wait_group 0 after the stores keeps the exit clean."""
    spec = Spec(n=64)
    kern = matmul_kernel(spec, wait=[k.AsyncWait(k.AsyncKind.Wgmma, 1)], after_store=[k.AsyncWait(k.AsyncKind.Wgmma, 0)])
    x = inputs(spec)
    (y,) = simulate(kern, x)
    assert np.isnan(y).all()


def test_a_missing_wait_group_is_reported_at_exit() -> None:
    spec = Spec(n=64)
    kern = remove_nodes(matmul_kernel(spec), k.AsyncWait, lambda n: n.kind is k.AsyncKind.Wgmma)
    with pytest.raises(SimulationError, match="exits with a committed wgmma group that no wgmma.wait_group "
                                              "retired; every wgmma must be committed and waited"):
        run(kern, spec)


def test_a_missing_commit_is_reported_at_exit() -> None:
    """Without a commit the MMAs stay in the open group, which wait_group never waits for."""
    spec = Spec(n=64)
    kern = remove_nodes(matmul_kernel(spec), k.AsyncCommit, commit)
    kern = replace(kern, body=(k.AsyncCommit(k.AsyncKind.Wgmma),) + kern.body)   # an empty group: verify asks for a commit
    with pytest.raises(SimulationError, match="exits with an uncommitted wgmma"):
        run(kern, spec)


def test_wait_group_1_before_the_next_k_tile_lets_tma_overwrite_operands(monkeypatch: pytest.MonkeyPatch) -> None:
    """The next k tile's TMA refills the operand tiles while the previous tile's group is in flight: the verifier's
    ``wgmma-in-flight`` rule refuses the kernel (single-stage tiles), and past it the run-time check reports it."""
    spec = Spec(n=64, k_tiles=2)
    kern = matmul_kernel(spec, wait=[k.AsyncWait(k.AsyncKind.Wgmma, 1)], after_store=[k.AsyncWait(k.AsyncKind.Wgmma, 0)])
    with pytest.raises(SimulationError, match=r"read T3 at the same place every iteration, but TmaLoad on T3 in the "
                                              r"loop writes T3.*\(rule wgmma-in-flight\)"):
        run(kern, spec)
    monkeypatch.setattr(simulator, "verify", lambda kernel: None)
    for seed in SEEDS:
        with pytest.raises(SimulationError, match=r"TMA load into T3 \(issued\) overwrites T3\[0:4096\] \(bytes "
                                                  r"0..8191, block \(0, 0, 0\)\) that a committed wgmma that no "
                                                  r"wgmma.wait_group has retired yet: wgmma m64n64k16 into T5"):
            run(kern, spec, seed)


# ---------------------------------------------------------------- fence mutations
def test_a_missing_fence_is_refused() -> None:
    spec = Spec(n=64)
    kern = remove_nodes(matmul_kernel(spec), k.WgmmaFence)
    with pytest.raises(SimulationError, match=r"missing wgmma.fence: warp 0 of block \(0, 0, 0\) issues wgmma "
                                              r"m64n64k16 into T5 without a wgmma.fence before it"):
        run(kern, spec)


def test_a_fence_before_the_zero_init_is_not_enough() -> None:
    spec = Spec(n=64)
    kern = remove_nodes(matmul_kernel(spec), k.WgmmaFence)
    kern = replace(kern, body=(k.WgmmaFence(), *kern.body))
    with pytest.raises(SimulationError, match=r"missing wgmma.fence: T5\[0\] of thread \(0, 0, 0\) of block "
                                              r"\(0, 0, 0\) was written by an ordinary store after the thread's "
                                              r"last wgmma.fence"):
        run(kern, spec)


def test_reading_an_accumulator_between_fence_and_mma_needs_another_fence() -> None:
    spec = Spec(n=64)
    kern = matmul_kernel(spec)
    acc = next(n.acc for n in k.walk(kern.body) if isinstance(n, k.Mma))
    spill = k.Buffer("T8", acc.dtype, acc.memory, c(1))
    kern = insert_after(kern, k.WgmmaFence, [k.Allocate(spill), assign(spill, 0, load(acc, 3))])
    with pytest.raises(SimulationError, match=r"missing wgmma.fence: T5\[3\] .* was read by an ordinary load"):
        run(kern, spec)


def test_a_store_to_accumulators_in_flight_is_refused() -> None:
    spec = Spec(n=64)
    kern = matmul_kernel(spec)
    acc = next(n.acc for n in k.walk(kern.body) if isinstance(n, k.Mma))
    kern = insert_after(kern, k.AsyncCommit, [assign(acc, 5, fconst(0.0))], commit)
    with pytest.raises(SimulationError, match=r"a store to T5\[5\] writes T5\[5\] of thread \(0, 0, 0\) .* while a "
                                              r"wgmma not yet retired by wgmma.wait_group accumulates into it"):
        run(kern, spec)


# ---------------------------------------------------------------- operand overwrites
@pytest.mark.parametrize("after", ["mma", "commit"])
def test_a_store_into_an_operand_before_the_wait_group_is_refused(after: str) -> None:
    spec = Spec(n=64)
    kern = matmul_kernel(spec)
    _, sb = operands(spec)
    clobber = [assign(sb, TX, k.Const(1.0, BF16))]
    if after == "mma":
        kern = insert_after(kern, k.ForLoop, clobber, lambda n: any(isinstance(m, k.Mma) for m in n.body))
        state = "an uncommitted wgmma"
    else:
        kern = insert_after(kern, k.AsyncCommit, clobber, commit)
        state = "a committed wgmma that no wgmma.wait_group has retired yet"
    with pytest.raises(SimulationError, match=rf"a store to T4\[threadIdx.x\] overwrites T4\[0:32\] \(bytes 0..63, "
                                              rf"block \(0, 0, 0\)\) that {state}"):
        run(kern, spec)


def test_a_tma_into_an_operand_before_the_wait_group_is_refused() -> None:
    spec = Spec(n=64)
    kern = matmul_kernel(spec)
    load_a = next(n for n in k.walk(kern.body) if isinstance(n, k.TmaLoad) and n.dst.name == "T3")
    expect = next(n for n in k.walk(kern.body) if isinstance(n, k.MBarrierArriveExpectTx))
    refill = [elect([replace(expect, tx_bytes=c(64 * 64 * 2)), load_a])]
    kern = insert_after(kern, k.AsyncCommit, refill, commit)
    with pytest.raises(SimulationError, match=r"TMA load into T3 \(issued\) overwrites T3\[0:\d+\] .* that a "
                                              r"committed wgmma that no wgmma.wait_group has retired yet"):
        run(kern, spec)


def test_a_tma_landing_on_operands_a_wgmma_still_reads_is_refused() -> None:
    """The mbarrier wait moved after the commit: the MMAs (issued after a block sync, so after the TMA
    copies) read tiles in flight, and the copy landing under them is refused. Seed 0 lands copies only
    when a wait forces them."""
    spec = Spec(n=64)
    kern = matmul_kernel(spec)
    wait = next(n for n in k.walk(kern.body) if isinstance(n, k.MBarrierWaitParity))
    kern = insert_after(remove_nodes(kern, k.MBarrierWaitParity), k.AsyncCommit, [wait], commit)
    kern = insert_after(kern, k.ElectSync, [k.BlockSync("the copies are issued")],
                        lambda n: any(isinstance(m, k.TmaLoad) for m in n.body))
    with pytest.raises(SimulationError, match=r"TMA load into T[34] \(landing\) overwrites .* that a committed wgmma"):
        run(kern, spec, seed=0)


@pytest.mark.parametrize("seed", range(6))
def test_a_missing_mbarrier_wait_fails(seed: int) -> None:
    """Either the MMAs read poison (NaN), a copy lands under them, or the barrier is invalidated in flight."""
    spec = Spec(n=64)
    assert fails(remove_nodes(matmul_kernel(spec), k.MBarrierWaitParity), spec, seed)


def test_a_write_to_a_buffer_aliasing_an_operand_is_refused() -> None:
    spec = Spec(n=64, fill="stores")
    kern = matmul_kernel(spec)
    sa, sb = operands(spec)
    other = k.Buffer("T9", sb.dtype, sb.memory, c(128), align=16)
    offset = sa.size.const_value() * 2

    def place(node: k.Node) -> k.Node | tuple | None:
        if isinstance(node, k.Allocate) and node.buffer in (sa, sb):
            return replace(node, offset=c(0 if node.buffer == sa else offset))
        return None

    kern = replace(kern, body=k.rewrite(kern.body, place), smem_bytes=c(offset + 64 * 64 * 2))
    kern = insert_after(kern, k.AsyncCommit, [k.Allocate(other, c(offset)), assign(other, TX, k.Const(1.0, BF16))],
                        commit)
    with pytest.raises(SimulationError, match=r"a write to T9 overwrites T4\[\d+:\d+\] \(the two share shared-memory "
                                              r"bytes\) that a wgmma not yet retired"):
        run(kern, spec)


# ---------------------------------------------------------------- fragment and warp mutations
@pytest.mark.parametrize("mapping", ["column pair swapped", "row halves swapped", "transposed"])
def test_a_wrong_fragment_mapping_in_the_store_is_wrong(mapping: str) -> None:
    spec = Spec(n=64)

    def store(thread: k.Val, register: k.Val) -> tuple[k.Val, k.Val]:
        if mapping == "column pair swapped":
            return wgmma_accumulator(thread, register.bit_xor(1))
        if mapping == "row halves swapped":
            return wgmma_accumulator(thread, register.bit_xor(2))
        row, col = wgmma_accumulator(thread, register)
        return col, row

    assert run(matmul_kernel(spec, store=store), spec) > 1e-2


def test_an_mma_by_part_of_a_warp_is_refused() -> None:
    spec = Spec(n=64, fill="stores")
    kern = matmul_kernel(spec)

    def half(node: k.Node) -> k.Node | None:
        return if_(TX.lt(16), [node]) if isinstance(node, k.Mma) else None

    with pytest.raises(SimulationError, match=r"only 16 of the 32 threads of warp 0 of block \(0, 0, 0\) execute it"):
        run(replace(kern, body=k.rewrite(kern.body, half)), spec)


# ---------------------------------------------------------------- through the lowering
def _lowered(tile: tuple[int, int, int], stages: int, groups: int) -> k.Kernel:
    from examples import matmul_wgmma
    from lowering import lower

    return lower(matmul_wgmma.build(tile=tile, stages=stages, compute_warp_groups=groups))


@pytest.mark.parametrize(("tile", "stages", "groups", "shapes"), [
    ((128, 128, 64), 3, 1, ((128, 128), (128, 128))),
    ((128, 256, 64), 4, 2, ((200, 200), (200, 264))),
    # two warp groups of 128 x 192 (a wave covers half as much again as 256 x 128): ragged in M, N and K
    ((256, 192, 64), 3, 2, ((300, 136), (136, 400))),
], ids=["128x128x64-1group", "128x256x64-2groups-ragged", "256x192x64-2groups-ragged"])
def test_the_lowered_wgmma_matmul_matches_numpy(tile: tuple, stages: int, groups: int, shapes: tuple) -> None:
    kern = _lowered(tile, stages, groups)
    rng = np.random.default_rng(0)
    a, b = (round_bf16(rng.standard_normal(s).astype(np.float32)) for s in shapes)
    for seed in SEEDS:
        (y,) = simulate(kern, [a, b], seed=seed)
        assert relative_error(y, reference(a, b)) < TOLERANCE


def test_the_lowered_matmul_without_fence_or_wait_group_fails() -> None:
    kern = _lowered((128, 128, 64), 3, 1)
    rng = np.random.default_rng(0)
    a, b = (round_bf16(rng.standard_normal((128, 128)).astype(np.float32)) for _ in range(2))
    with pytest.raises(SimulationError, match="missing wgmma.fence"):
        simulate(remove_nodes(kern, k.WgmmaFence), [a, b])
    with pytest.raises(SimulationError, match="wgmma"):
        simulate(remove_nodes(kern, k.AsyncWait, lambda n: n.kind is k.AsyncKind.Wgmma), [a, b])
