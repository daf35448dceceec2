"""runtime.simulate on plain kernels: values, predicates, memory poison, bounds, arguments, checks, speed."""

from __future__ import annotations

import time

import numpy as np
import pytest

from fusion_ir.scalar import Val
from fusion_ir.types import DataType
from lowering import kernel_ir as k
from runtime import InputError, SimulationError, simulate
from runtime.sim_memory import POISON_INT, round_bf16
from tests.runtime.kir_builders import (
    BX,
    FLOAT,
    TX,
    assign,
    binary,
    ceil_div,
    fconst,
    for_,
    global_1d,
    global_2d,
    if_,
    kernel,
    load,
    local,
    shared,
    sym,
)

N = sym("i0")
GID = BX * 128 + TX


def add_kernel(predicate: bool = True, dtype: DataType = FLOAT) -> k.Kernel:
    a, b, out = global_1d("T0", dtype=dtype), global_1d("T1", dtype=dtype), global_1d("T2", dtype=dtype)
    at = lambda buf: GID * sym(f"{buf.name}_stride0")
    store = assign(out, at(out), k.BinaryValue("add", load(a, at(a)), load(b, at(b)), dtype))
    body = [if_(GID.lt(N), [store])] if predicate else [store]
    return kernel(body, [a, b], [out], (ceil_div(N, 128),), (128,))


def test_pointwise_add_with_predicate_matches_numpy() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    (out,) = simulate(add_kernel(), [a, b])
    assert out.dtype == np.float32 and out.shape == (1000,)
    np.testing.assert_array_equal(out, a + b)


def test_strided_input_is_indexed_through_its_strides() -> None:
    rng = np.random.default_rng(1)
    base = rng.standard_normal(2000).astype(np.float32)
    a, b = base[::2], base[1::2]  # element stride 2
    (out,) = simulate(add_kernel(), [a, b])
    np.testing.assert_array_equal(out, a + b)


@pytest.mark.parametrize("op, ref", [
    ("neg", np.negative), ("exp", np.exp), ("abs", np.abs), ("relu", lambda x: np.maximum(x, 0)),
    ("sin", np.sin), ("cos", np.cos), ("tanh", np.tanh), ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
])
def test_unary_ops_match_numpy(op: str, ref: object) -> None:
    a, out = global_1d("T0"), global_1d("T1")
    kern = kernel([if_(GID.lt(N), [assign(out, GID, k.UnaryValue(op, load(a, GID), FLOAT))])], [a], [out],
                  (ceil_div(N, 128),), (128,))
    x = np.linspace(-3, 3, 300, dtype=np.float32)
    (y,) = simulate(kern, [x])
    np.testing.assert_allclose(y, ref(x.astype(np.float64)), rtol=1e-6, atol=1e-6)  # type: ignore[operator]


def test_out_of_bounds_load_names_buffer_index_and_thread() -> None:
    a = np.ones(1000, dtype=np.float32)
    with pytest.raises(SimulationError, match=r"out-of-bounds access T0\[1000\] \(size 1000.*thread \(104, 0, 0\) "
                                              r"of block \(7, 0, 0\)"):
        simulate(add_kernel(predicate=False), [a, a])


def test_out_of_bounds_store_to_shared_memory() -> None:
    out, smem = global_1d("T1"), shared("T5", 64)
    kern = kernel([k.Allocate(smem), assign(smem, TX, fconst(1.0)), assign(out, GID, fconst(0.0))],
                  [global_1d("T0")], [out], (1,), (128,))
    with pytest.raises(SimulationError, match=r"T5\[(6[4-9]|[7-9]\d|1[0-2]\d)\] \(size 64, Shared\) in a store"):
        simulate(kern, [np.zeros(128, np.float32)])


def test_out_of_bounds_register_read_names_buffer_and_thread() -> None:
    """A register read past its buffer (what a wrongly left-out bounds predicate could do) is an error, not a read
    of a neighbour's register: local buffers are bounds-checked like shared and global ones."""
    a, out, tmp = global_1d("T0"), global_1d("T1"), local("T2", 4)
    body = [k.Allocate(tmp), for_("i1", 0, 4, [assign(tmp, sym("i1"), load(a, GID))]),
            assign(out, GID, load(tmp, TX % 8))]
    kern = kernel(body, [a], [out], (1,), (128,))
    with pytest.raises(SimulationError, match=r"out-of-bounds access T2\[[4-7]\] \(size 4, Local\) in a load of T2\[threadIdx.x % 8\] by thread"):
        simulate(kern, [np.zeros(128, np.float32)])


def test_never_written_local_and_shared_memory_read_as_nan() -> None:
    # T1 is (n, 3): column 0 from a written register, 1 from an unwritten one, 2 from unwritten shared memory
    a, out, tmp, smem = global_1d("T0"), global_2d("T1", ("i0", "i1")), local("T2", 2), shared("T3", 256)
    at = lambda j: GID * sym("T1_stride0") + j
    body = [
        k.Allocate(tmp), k.Allocate(smem),
        assign(smem, TX, fconst(5.0)),
        if_(GID.lt(N), [
            assign(tmp, 0, load(a, GID * sym("T0_stride0"))),
            assign(out, at(0), load(tmp, 0)),
            assign(out, at(1), load(tmp, 1)),
            assign(out, at(2), load(smem, TX + 128)),
        ]),
    ]
    kern = kernel(body, [a, global_1d("T4", "i1")], [out], (ceil_div(N, 128),), (128,))
    x = np.arange(200, dtype=np.float32)
    (y,) = simulate(kern, [x, np.zeros(3, np.float32)])
    assert y.shape == (200, 3)
    np.testing.assert_array_equal(y[:, 0], x)
    assert np.isnan(y[:, 1]).all() and np.isnan(y[:, 2]).all()


def test_unwritten_output_elements_keep_poison() -> None:
    a, out = global_1d("T0", dtype=DataType.Int32), global_1d("T1", dtype=DataType.Int32)
    kern = kernel([if_(GID.lt(N - 1), [assign(out, GID, load(a, GID))])], [a], [out], (ceil_div(N, 128),), (128,))
    (y,) = simulate(kern, [np.arange(300, dtype=np.int32)])
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y[:-1], np.arange(299))
    assert y[-1] == POISON_INT


def test_serial_reduction_loop_with_reduce_op() -> None:
    a, out, acc = global_2d("T0"), global_1d("T1"), local("T2", 1)
    row = GID
    body = [
        k.Allocate(acc),
        assign(acc, 0, fconst(0.0)),
        for_("i5", 0, sym("i1"), [
            if_(row.lt(N), [assign(acc, 0, load(a, row * sym("T0_stride0") + sym("i5") * sym("T0_stride1")),
                                   reduce_op="add")]),
        ]),
        if_(row.lt(N), [assign(out, row, load(acc, 0))]),
    ]
    kern = kernel(body, [a], [out], (ceil_div(N, 128),), (128,))
    x = np.random.default_rng(2).standard_normal((300, 17)).astype(np.float32)
    (y,) = simulate(kern, [x])
    np.testing.assert_allclose(y, x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_block_stride_loop_with_thread_dependent_start() -> None:
    a, out = global_1d("T0"), global_1d("T1")
    body = [for_("i3", TX, N, [assign(out, sym("i3"), binary("mul", load(a, sym("i3")), fconst(2.0)))], step=64)]
    kern = kernel(body, [a], [out], (1,), (64,))
    x = np.arange(1000, dtype=np.float32)
    (y,) = simulate(kern, [x])
    np.testing.assert_array_equal(y, 2 * x)


def test_vector_copy_and_misaligned_vector_access() -> None:
    a, out = global_1d("T0"), global_1d("T1")
    body = [if_((GID * 4).lt(N), [assign(out, GID * 4, load(a, GID * 4), vector=4)])]
    kern = kernel(body, [a], [out], (ceil_div(N, 512),), (128,))
    x = np.arange(1024, dtype=np.float32)
    (y,) = simulate(kern, [x])
    np.testing.assert_array_equal(y, x)
    bad = kernel([if_((GID * 4 + 1).lt(N - 3), [assign(out, GID * 4 + 1, load(a, GID * 4 + 1), vector=4)])],
                 [a], [out], (ceil_div(N, 512),), (128,))
    with pytest.raises(SimulationError, match="misaligned vector access"):
        simulate(bad, [x])


def test_return_and_continue() -> None:
    a, out = global_1d("T0"), global_1d("T1")
    body = [
        if_(GID.ge(N), [k.Return()]),
        assign(out, GID, fconst(0.0)),
        for_("i2", 0, 4, [
            if_((sym("i2") + TX) % 2, [k.Continue()]),   # odd (i2 + tid) skip the accumulation
            assign(out, GID, binary("add", load(out, GID), load(a, GID))),
        ]),
    ]
    kern = kernel(body, [a], [out], (ceil_div(N, 128),), (128,))
    x = np.arange(300, dtype=np.float32)
    (y,) = simulate(kern, [x])
    np.testing.assert_array_equal(y, 2 * x)  # two of the four iterations accumulate for every thread


def test_half_and_bfloat16_round_on_store() -> None:
    x = np.array([1.0, 1.0 + 2 ** -9, 3.14159, -2.7182818, 65504.0], dtype=np.float32)
    (h,) = simulate(add_kernel(dtype=DataType.Half), [x.astype(np.float16), np.full(5, 1e-3, np.float16)])
    assert h.dtype == np.float16
    np.testing.assert_array_equal(h, (x.astype(np.float16).astype(np.float32)
                                      + np.float16(1e-3).astype(np.float32)).astype(np.float16))
    (b,) = simulate(add_kernel(dtype=DataType.BFloat16), [x, np.zeros(5, np.float32)])
    assert b.dtype == np.float32  # numpy has no bfloat16: values are bf16-rounded float32
    np.testing.assert_array_equal(b, round_bf16(x))
    assert round_bf16(np.float32(1.0 + 2 ** -8)) == 1.0  # ties round to even
    assert round_bf16(np.float32(1.0 + 3 * 2 ** -8)) == 1.0 + 2 ** -6


def test_a_bfloat16_input_takes_float32_and_refuses_float16_saying_what_to_pass() -> None:
    kern = add_kernel(dtype=DataType.BFloat16)
    x = np.array([1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, -2.7182818], dtype=np.float32)
    (y,) = simulate(kern, [x, np.zeros(3, np.float32)])
    np.testing.assert_array_equal(y, round_bf16(x))            # float32 in: rounded to bfloat16 on the way
    with pytest.raises(InputError, match=r"input T0: dtype float16, but the kernel expects bfloat16; numpy has no "
                                         r"bfloat16: pass float32 values .*float16 is another 16-bit format and is "
                                         r"never converted: pass x.astype\(np.float32\)"):
        simulate(kern, [x.astype(np.float16), np.zeros(3, np.float32)])


def test_input_validation_names_the_tensor() -> None:
    kern = add_kernel()
    a = np.zeros(100, np.float32)
    with pytest.raises(InputError, match="takes 2 inputs"):
        simulate(kern, [a])
    with pytest.raises(InputError, match="input T1: dtype float64"):
        simulate(kern, [a, a.astype(np.float64)])
    with pytest.raises(InputError, match="input T1: rank 2"):
        simulate(kern, [a, a.reshape(10, 10)])
    with pytest.raises(InputError, match=r"T1.shape\[0\] is 99, but i0 = 100 from T0.shape\[0\]"):
        simulate(kern, [a, a[:99]])


def test_failing_runtime_checks_raise_input_errors() -> None:
    kern = add_kernel()
    a = np.zeros(100, np.float32)
    bad_shape = k.RuntimeCheck(N.ge(128), "T0 needs at least 128 elements")
    with pytest.raises(InputError, match="T0 needs at least 128 elements"):
        simulate(k.Kernel(**{**kern.__dict__, "checks": (bad_shape,)}), [a, a])
    fill = k.RuntimeCheck(ceil_div(N, 32).ge(5), "the loop fails to fill the circular buffer pipeline of T3",
                          k.InputRule.PIPELINE_FILL, "T3")
    with pytest.raises(InputError, match=r"fails to fill the circular buffer .*\(failed: "):
        simulate(k.Kernel(**{**kern.__dict__, "checks": (fill,)}), [a, a])
    simulate(k.Kernel(**{**kern.__dict__, "checks": (fill,)}), [np.zeros(160, np.float32)] * 2)


def test_unbound_symbol_and_mma_of_a_partial_warp_group_are_reported() -> None:
    out = global_1d("T1")
    kern = kernel([assign(out, TX + Val.symbol("i99"), fconst(0.0))], [global_1d("T0")], [out], (1,), (32,))
    with pytest.raises(SimulationError, match="symbol i99 in Assign on T1 is not bound"):
        simulate(kern, [np.zeros(32, np.float32)])
    tile = shared("T2", 64 * 16, DataType.BFloat16)
    desc = k.MatrixDescriptor(tile, Val.const(0), 16, 256, tile.swizzle, False)
    mma = k.Mma(local("T3", 32), Val.const(0), desc, desc, (64, 64, 16), DataType.BFloat16)
    kern = kernel([k.WgmmaFence(), mma], [global_1d("T0")], [out], (1,), (32,))
    with pytest.raises(SimulationError, match=r"Mma \(64, 64, 16\) into T3: the block has 32 threads; wgmma is issued "
                                              r"by whole warp groups"):
        simulate(kern, [np.zeros(32, np.float32)])


def test_64k_pointwise_simulates_under_two_seconds() -> None:
    n = 1 << 16
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    a_buf, b_buf, out = global_1d("T0"), global_1d("T1"), global_1d("T2")
    value = k.UnaryValue("exp", binary("add", load(a_buf, GID), binary("mul", load(b_buf, GID), fconst(0.5))), FLOAT)
    kern = kernel([if_(GID.lt(N), [assign(out, GID, value)])], [a_buf, b_buf], [out], (ceil_div(N, 128),), (128,))
    start = time.process_time()   # CPU time: other tests and jobs sharing the cores do not count
    (y,) = simulate(kern, [a, b])
    elapsed = time.process_time() - start
    np.testing.assert_allclose(y, np.exp(a.astype(np.float64) + 0.5 * b), rtol=1e-6)
    print(f"64k-element pointwise kernel: {elapsed * 1e3:.1f} ms of CPU in the simulator")
    assert elapsed < 2.0


def test_unknown_node_is_reported() -> None:
    out = global_1d("T1")
    op = k.TensorOp("T1", k.TensorOpKind.Compute, "T1 = T0", None, None)
    kern = kernel([op], [global_1d("T0")], [out], (1,), (32,))
    with pytest.raises(SimulationError, match="the simulator cannot handle kernel IR node TensorOp"):
        simulate(kern, [np.zeros(32, np.float32)])


def test_int_division_and_float_to_int_cast_truncate_like_c() -> None:
    out = global_1d("T1", dtype=DataType.Int32)
    value = k.BinaryValue("div", k.Const(-7, DataType.Int32), k.Const(2, DataType.Int32), DataType.Int32)
    kern = kernel([if_(TX.eq(0), [assign(out, 0, value)]), if_(TX.eq(1), [assign(out, 1, k.CastValue(
        fconst(-2.7), DataType.Int32))])], [global_1d("T0", dtype=DataType.Int32)], [out], (1,), (32,))
    (y,) = simulate(kern, [np.zeros(2, np.int32)])
    np.testing.assert_array_equal(y, [-3, -2])
