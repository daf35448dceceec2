"""Property 5: drawn MatmulParams either raise ScheduleError (and change nothing) or give a kernel
that matches numpy in the simulator."""

from hypothesis import given, settings

from fusion_ir import DataType
from fusion_ir.schedulers import MatmulParams
from fuzz.matmul import MatmulCase, check_matmul_case, matmul_cases

from .profiles import budget


@settings(max_examples=budget("matmul"))
@given(case=matmul_cases())
def test_drawn_matmul_params_are_refused_or_match_numpy(case: MatmulCase) -> None:
    check_matmul_case(case)


def test_an_invalid_and_a_valid_case() -> None:
    bad = MatmulCase(MatmulParams(tile=(96, 64, 64)), DataType.BFloat16, False, 64, 64, 64, 0)
    assert check_matmul_case(bad) == "refused"
    good = MatmulCase(MatmulParams(tile=(64, 64, 64), stages=2, compute_warp_groups=1), DataType.Half, True,
                      70, 72, 40, 1)
    assert check_matmul_case(good, simulate=False) == "lowered"


def test_a_batched_case_matches_numpy() -> None:
    """The template's batched cases: a batch of 2 over both operands, or A only (a 2-D B broadcast over it),
    with C [B, M, N] or a bias in the epilogue."""
    persistent = MatmulParams(tile=(64, 64, 32), stages=2, compute_warp_groups=1, warp_specialized=True,
                              persistent=True, blocks=3)
    both = MatmulCase(persistent, DataType.BFloat16, "alpha_beta", 70, 72, 40, 2, transpose_b=True, batch=2)
    assert both.shapes() == [(2, 70, 40), (2, 72, 40), (2, 70, 72)]
    assert check_matmul_case(both) == "matched"
    b_2d = MatmulCase(MatmulParams(tile=(64, 64, 32), stages=2, compute_warp_groups=1), DataType.Half, "bias_gelu",
                      70, 72, 40, 3, batch=2, b_2d=True)
    assert b_2d.shapes() == [(2, 70, 40), (40, 72), (72,)]
    assert check_matmul_case(b_2d) == "matched"


def test_fixed_shape_cases_of_any_row_length() -> None:
    """The template's fixed-shape cases: rows TMA cannot copy (K = 99 of A, N = 37 of B, M = 45 of a [K, M] A) are
    loaded by the compute warp groups; parameters that cannot (warp-specialized, 2 stages) are refused."""
    pipelined = MatmulParams(tile=(64, 64, 32), stages=3, compute_warp_groups=1)
    odd_k = MatmulCase(pipelined, DataType.BFloat16, "alpha_beta", 70, 37, 99, 4, fixed_shapes=True)
    assert odd_k.valid and check_matmul_case(odd_k) == "matched"
    a_mn = MatmulCase(pipelined, DataType.Half, "bias_relu", 45, 72, 40, 5, transpose_a=True, batch=2,
                      fixed_shapes=True)
    assert a_mn.valid and check_matmul_case(a_mn) == "matched"
    ws = MatmulCase(MatmulParams(tile=(64, 64, 32), stages=3, compute_warp_groups=1, warp_specialized=True),
                    DataType.BFloat16, "none", 70, 72, 99, 6, fixed_shapes=True)
    assert not ws.valid and check_matmul_case(ws) == "refused"
    shallow = MatmulCase(MatmulParams(tile=(64, 64, 32), stages=2, compute_warp_groups=1), DataType.BFloat16,
                         "none", 70, 37, 40, 7, fixed_shapes=True)
    assert not shallow.valid and check_matmul_case(shallow) == "refused"


def test_cluster_cases_match_numpy() -> None:
    """The template's clusters: 2-D (A multicast along the cluster's rows, B along its columns) with C in the
    epilogue and a TMA store, four blocks along N with transposed operands and a bias, 4 x 2 batched; a cluster with
    an operand the compute warp groups load is refused."""
    ws = {"stages": 2, "compute_warp_groups": 1, "warp_specialized": True}
    two_d = MatmulCase(MatmulParams(tile=(64, 64, 32), tma_store=True, cluster=(2, 2), **ws), DataType.BFloat16,
                       "alpha_beta", 70, 136, 40, 8)
    assert check_matmul_case(two_d) == "matched"
    along_n = MatmulCase(MatmulParams(tile=(64, 64, 32), cluster=(1, 4), **ws), DataType.Half, "bias_gelu",
                         72, 200, 48, 9, transpose_a=True, transpose_b=True)
    assert check_matmul_case(along_n) == "matched"
    batched = MatmulCase(MatmulParams(tile=(64, 64, 32), cluster=(4, 2), **ws), DataType.BFloat16, "none",
                         130, 72, 40, 10, batch=2)
    assert check_matmul_case(batched) == "matched"
    odd_k = MatmulCase(MatmulParams(tile=(64, 64, 32), stages=3, compute_warp_groups=1, cluster=(2, 2)),
                       DataType.BFloat16, "none", 70, 72, 99, 11, fixed_shapes=True)
    assert not odd_k.valid and check_matmul_case(odd_k) == "refused"
