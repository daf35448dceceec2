"""The epilogue computed per stmatrix reads a 16-bit [M, N] shared tile (C, a residual) by ldmatrix, four matrices
into the fragment's order, one per stmatrix (``StagedStore.matrix_reads``), instead of an element at a time; any
other shared input of the epilogue is read as before. The simulator checks the result against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from examples import matmul_epilogue
from fusion_ir import DataType, Fusion, ops
from fusion_ir.reference import evaluate, round_bf16
from fusion_ir.scalar import Val
from fusion_ir.schedulers import schedule_matmul
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from tests.helpers import rel_error
from tests.runtime.kir_builders import mutate
from tests.runtime.test_producer_epilogue_loads import build as producer_build

SIZE = (200, 264, 136)


def _counts(kernel: k.Kernel) -> tuple[int, int]:
    nodes = list(k.walk(kernel.body))
    return sum(isinstance(n, k.LdMatrix) for n in nodes), sum(isinstance(n, k.StMatrix) for n in nodes)


def _element_reads(kernel: k.Kernel, name: str) -> int:
    """Loads of buffer ``name`` inside the statements' values."""
    found = 0

    def count(v: object) -> None:
        nonlocal found
        if isinstance(v, k.Load) and v.buffer.name == name:
            found += 1
        for attr in ("x", "a", "b", "cond"):
            sub = getattr(v, attr, None)
            if sub is not None and not isinstance(sub, (int, float)):
                count(sub)

    for n in k.walk(kernel.body):
        if isinstance(n, k.Assign):
            count(n.value)
    return found


@pytest.mark.parametrize("kind", matmul_epilogue.C_KINDS)
@pytest.mark.parametrize("arrangement", ["rules", "one_tile", "persistent", "ping_pong"])
def test_the_c_tile_is_read_by_one_ldmatrix_per_stmatrix(kind: str, arrangement: str) -> None:
    if arrangement == "rules":
        fusion = matmul_epilogue.fusion_of(kind, (4096, 4096, 4096))
        schedule_matmul(fusion)
    else:
        fusion = producer_build(kind, arrangement)
    kernel = lower(fusion)
    loads, stores = _counts(kernel)
    assert loads == stores >= 1
    (tile,) = {n.src.name for n in k.walk(kernel.body) if isinstance(n, k.LdMatrix)}
    assert _element_reads(kernel, tile) == 0, f"{tile} is still read element by element"


@pytest.mark.parametrize("kind", ["bias_relu", "bias_gelu"])
def test_a_bias_is_not_read_by_ldmatrix(kind: str) -> None:
    fusion = matmul_epilogue.fusion_of(kind, (4096, 4096, 4096))
    schedule_matmul(fusion)
    assert _counts(lower(fusion))[0] == 0


def _residual(c_dtype: DataType) -> Fusion:
    m, n, kk = SIZE
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(m, kk), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(kk, n), dtype=DataType.BFloat16)
        c = fusion.add_input(shape=(m, n), dtype=c_dtype)
        fusion.add_output(ops.cast(ops.add(ops.matmul(a, b), c), DataType.BFloat16))
    return fusion


@pytest.mark.parametrize(("c_dtype", "ldmatrix"), [(DataType.Half, True), (DataType.Float, False)])
def test_a_16_bit_c_of_either_type_is_read_by_ldmatrix_and_a_float_c_element_by_element(c_dtype: DataType,
                                                                                       ldmatrix: bool) -> None:
    fusion = _residual(c_dtype)
    schedule_matmul(fusion)
    kernel = lower(fusion)
    assert (_counts(kernel)[0] > 0) is ldmatrix
    m, n, kk = SIZE
    for seed in (0, 1):
        rng = np.random.default_rng(seed)
        c = rng.standard_normal((m, n)).astype(np.float32)
        inputs = [round_bf16(rng.standard_normal((m, kk)).astype(np.float32)),
                  round_bf16(rng.standard_normal((kk, n)).astype(np.float32)),
                  c.astype(np.float16) if c_dtype is DataType.Half else c]
        (out,) = simulate(kernel, inputs, seed=seed)
        assert rel_error(out, evaluate(fusion, inputs)[0]) < matmul_epilogue.TOLERANCE


def test_a_wrong_row_address_is_a_wrong_result() -> None:
    """The mutation: every lane addresses the row of matrix 0 (column block 2 pair, rows 0-7), so matrices 1-3
    repeat it; the simulator's result differs from numpy."""
    fusion = _residual(DataType.BFloat16)
    schedule_matmul(fusion)
    kernel = lower(fusion)
    lane = Val.symbol("threadIdx.x") % 32

    def edit(n: k.Node):
        if isinstance(n, k.LdMatrix):
            return k.LdMatrix(n.dst, n.dst_index, n.src, n.src_index.substitute({"threadIdx.x": (
                Val.symbol("threadIdx.x") - lane) + lane % 8}), n.count)
        return None

    broken = mutate(kernel, edit)
    m, n, kk = SIZE
    rng = np.random.default_rng(0)
    inputs = [round_bf16(rng.standard_normal(s).astype(np.float32)) for s in ((m, kk), (kk, n), (m, n))]
    (out,) = simulate(broken, inputs)
    assert rel_error(out, evaluate(fusion, inputs)[0]) > 0.1
