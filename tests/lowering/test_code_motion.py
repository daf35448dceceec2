"""The two code-motion passes at the end of the pipeline: ``unswitch`` (a loop's only branch moved
around it) and ``hoist_indices`` (loop-invariant divisions computed once, before the loop)."""

from __future__ import annotations

import numpy as np
import pytest

from codegen import to_cuda
from codegen.errors import CodegenError
from examples import matmul_ping_pong, matmul_ws_persistent
from fusion_ir.scalar import Val, vmin
from lowering import kernel_ir as k
from lowering import lower
from lowering.passes import hoist_indices, unswitch
from runtime import simulate
from tests.runtime.kir_builders import BX, TX, assign, c, elect, for_, global_1d, if_, kernel, load, local, sym


def _run(pass_module, body: list[k.Node]) -> tuple[k.Node, ...]:
    kern = kernel(body, [global_1d("T0")], [global_1d("T1")], grid=(4,), block=(64,))
    return pass_module.run(kern, None).body


def _divides(v: Val) -> bool:
    return v.op in ("div", "mod", "ceilDiv") or any(_divides(a) for a in v.args)


def _loops_with(body: tuple[k.Node, ...], cls: type) -> list[k.ForLoop]:
    return [n for n in k.walk(body) if isinstance(n, k.ForLoop) and any(isinstance(m, cls) for m in k.walk(n.body))]


# ---------------------------------------------------------------- unswitch
def test_unswitch_moves_an_invariant_branch_around_its_loop_keeping_comments() -> None:
    t0, t1 = global_1d("T0"), global_1d("T1")
    body = [for_("i2", 0, 8, [k.Comment("boxes"), if_(TX.lt(32), [assign(t1, sym("i2"), load(t0, sym("i2")))])])]
    out = _run(unswitch, body)
    assert isinstance(out[0], k.IfThenElse) and out[0].cond == TX.lt(32)
    loop = out[0].then_body[0]
    assert isinstance(loop, k.ForLoop) and isinstance(loop.body[0], k.Comment)
    assert isinstance(loop.body[1], k.Assign)


def test_unswitch_moves_an_elected_thread_out_of_a_nest_of_loops() -> None:
    t0, t1 = global_1d("T0"), global_1d("T1")
    inner = for_("i3", 0, 4, [elect([assign(t1, sym("i3"), load(t0, sym("i2")))])])
    out = _run(unswitch, [for_("i2", 0, 8, [inner])])
    assert isinstance(out[0], k.ElectSync)
    assert [n.index.name for n in k.walk(out[0].body) if isinstance(n, k.ForLoop)] == ["i2", "i3"]


@pytest.mark.parametrize("case", ["reads the index", "has an else", "shares the body", "elects per iteration"])
def test_unswitch_keeps_a_branch_that_depends_on_the_loop(case: str) -> None:
    t0, t1 = global_1d("T0"), global_1d("T1")
    st = assign(t1, sym("i2"), load(t0, sym("i2")))
    body = {"reads the index": [if_(sym("i2").lt(4), [st])],
            "has an else": [if_(TX.lt(32), [st], [st])],
            "shares the body": [if_(TX.lt(32), [st]), st],
            "elects per iteration": [elect([st], warp=sym("i2"))]}[case]
    loop = for_("i2", 0, 8, body)
    assert _run(unswitch, [loop]) == (loop,)


def test_the_producer_elects_its_thread_once_per_tile_and_the_store_once_per_tile() -> None:
    kern = lower(matmul_ws_persistent.build())
    producer_loops = _loops_with(kern.body, k.TmaLoad)
    k_loop = producer_loops[-1]
    assert not any(isinstance(n, k.ElectSync) for n in k.walk(k_loop.body)), "elect.sync inside the k loop"
    elects = [n for n in k.walk(kern.body) if isinstance(n, k.ElectSync)
              and any(isinstance(m, k.TmaLoad) for m in k.walk(n.body))]
    assert len(elects) == 1 and k_loop in list(k.walk(elects[0].body))
    store_elect = next(n for n in k.walk(kern.body) if isinstance(n, k.ElectSync)
                       and any(isinstance(m, k.TmaStore) for m in k.walk(n.body)))
    assert any(isinstance(m, k.ForLoop) for m in store_elect.body), "the boxes' loop runs inside one election"


# ---------------------------------------------------------------- hoist_indices
def test_an_invariant_division_goes_before_the_outermost_loop_it_does_not_change_in() -> None:
    t0, t1 = global_1d("T0"), global_1d("T1")
    i2, i3 = sym("i2"), sym("i3")
    index = (BX // 8) % sym("i0") + (i2 // 3) + i3
    body = [for_("i2", 0, 6, [for_("i3", 0, 4, [assign(t1, index, load(t0, i3))])], unroll=1)]
    out = _run(hoist_indices, body)
    assert isinstance(out[0], k.Let) and out[0].value == (BX // 8) % sym("i0")
    outer = out[1]
    assert isinstance(outer, k.ForLoop) and isinstance(outer.body[0], k.Let)
    # the largest invariant part goes as one value; its own invariant part further out
    assert outer.body[0].value == Val.symbol(out[0].name) + i2 // 3
    st = outer.body[1].body[0]
    assert st.index == Val.symbol(outer.body[0].name) + i3


def test_nothing_is_hoisted_out_of_unrolled_loops_or_from_a_register_index() -> None:
    t1 = global_1d("T1")
    acc = local("T2", 8)
    i2, i3 = sym("i2"), sym("i3")
    unrolled = for_("i3", 0, 4, [assign(acc, i3 % 2, load(t1, (BX // 8) + i2))], unroll=True)
    body = [k.Allocate(acc), for_("i2", 0, 6, [unrolled])]
    out = _run(hoist_indices, body)
    lets = [n for n in k.walk(out) if isinstance(n, k.Let)]
    assert [let.value for let in lets] == [BX // 8]      # before the i2 loop; i3 % 2 stays in place
    st = next(n for n in k.walk(out) if isinstance(n, k.Assign))
    assert st.index == i3 % 2


def test_a_division_by_a_variable_goes_before_an_unrolled_loop_that_does_not_change_it() -> None:
    """A persistent tile loop (i2) around an unrolled sub-tile loop (i3): ``(i2 + BX) % n`` divided by a value that
    is not a constant is computed once per tile, before the unrolled loop (its copies, split by an asm volatile or a
    barrier, each divided again: the grouped walk's tile row); a division by a constant stays (a multiply and a
    shift), and so does anything that reads the unrolled index."""
    t1 = global_1d("T1")
    i2, i3, n = sym("i2"), sym("i3"), sym("i0")
    rows = ((i2 + BX) % n) // vmin(4, n - i2)
    per_copy = (i2 + BX) // 3 + i3
    unrolled = for_("i3", 0, 4, [assign(t1, rows * 8 + i3, load(t1, per_copy))], unroll=True)
    out = _run(hoist_indices, [for_("i2", 0, 6, [unrolled])])
    tile_loop = next(node for node in out if isinstance(node, k.ForLoop))
    lets = [node for node in tile_loop.body if isinstance(node, k.Let)]
    assert [let.value for let in lets] == [rows * 8]            # before the unrolled loop, inside the tile loop
    inner = next(node for node in tile_loop.body if isinstance(node, k.ForLoop))
    st = next(node for node in k.walk(inner.body) if isinstance(node, k.Assign))
    assert st.index == Val.symbol(lets[0].name) + i3
    assert _divides(st.value.index) and "i3" in st.value.index.symbols()     # (i2 + BX) / 3 + i3 stays


def test_loop_variant_and_division_free_expressions_stay() -> None:
    t0, t1 = global_1d("T0"), global_1d("T1")
    i2 = sym("i2")
    loop = for_("i2", 0, 6, [assign(t1, (i2 // 2) + BX * 4, load(t0, i2))])
    assert _run(hoist_indices, [loop]) == (loop,)


def test_hoisted_kernels_compute_the_same_values_in_the_simulator() -> None:
    t0, t1 = global_1d("T0"), global_1d("T1")
    i2, i3 = sym("i2"), sym("i3")
    index = ((BX * 2 + i2) // 2) * 4 + i3            # block b copies elements 4 b .. 4 b + 3 (twice)
    body = [for_("i2", 0, 2, [for_("i3", 0, 4, [if_(TX.eq(0), [assign(t1, index, load(t0, index))])])])]
    base = kernel(body, [t0], [t1], grid=(4,), block=(32,))
    hoisted = hoist_indices.run(base, None)
    assert any(isinstance(n, k.Let) for n in k.walk(hoisted.body))
    x = np.random.default_rng(1).standard_normal(64).astype(np.float32)
    want, got = simulate(base, [x]), simulate(hoisted, [x])
    np.testing.assert_array_equal(np.nan_to_num(want[0], nan=7.0), np.nan_to_num(got[0], nan=7.0))
    np.testing.assert_array_equal(got[0][:16], x[:16])    # the copied elements, not only equal runs
    assert "const int64_t h0 = " in to_cuda(hoisted)


def test_a_let_read_before_it_is_bound_is_a_codegen_error() -> None:
    t0, t1 = global_1d("T0"), global_1d("T1")
    body = [assign(t1, sym("h0"), load(t0, c(0))), k.Let("h0", BX // 2)]
    with pytest.raises(CodegenError, match="h0 .*not bound"):
        to_cuda(kernel(body, [t0], [t1], grid=(4,), block=(32,)))
    twice = [k.Let("h0", BX // 2), k.Let("h0", BX // 4)]
    with pytest.raises(CodegenError, match="Let h0 shadows"):
        to_cuda(kernel(twice, [t0], [t1], grid=(4,), block=(32,)))


@pytest.mark.parametrize("build", [matmul_ws_persistent.build, matmul_ping_pong.build])
def test_the_producer_divides_once_per_tile(build) -> None:
    """The TMA loads' coordinates and stages inside the k loop divide by nothing but the stage count."""
    kern = lower(build())
    k_loop = _loops_with(kern.body, k.TmaLoad)[-1]
    for node in k.walk(k_loop.body):
        if isinstance(node, k.TmaLoad):
            assert not any(_divides(x) for x in node.coords), node.coords
    lets = {n.name: n.value for n in k.walk(kern.body) if isinstance(n, k.Let)}
    assert lets and all(_divides(value.substitute(lets)) for value in lets.values())
