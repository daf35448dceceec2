"""A plain Triton bf16 matmul with a few autotuned configurations: the peer a user would write
instead of scheduling the fusion (bench/matmul.py measures it beside torch.matmul).

Grouped tile order (GROUP_M row tiles per column of B), fp32 accumulation, a bf16 result.
``matmul(a, b, out)`` returns None when Triton is not installed.
"""

from __future__ import annotations

try:
    import triton
    import triton.language as tl
except ImportError:   # the bench reports the peer as unavailable
    triton = None

if triton is not None:
    CONFIGS = [
        triton.Config({"BM": 128, "BN": 256, "BK": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 256, "BK": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BM": 256, "BN": 128, "BK": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}, num_stages=5, num_warps=8),
    ]

    @triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
    @triton.jit
    def _kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
        pid = tl.program_id(0)
        tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
        group = GROUP_M * tiles_n
        first_m = (pid // group) * GROUP_M
        rows = min(tiles_m - first_m, GROUP_M)
        pm = first_m + (pid % group) % rows
        pn = (pid % group) // rows
        om = pm * BM + tl.arange(0, BM)
        on = pn * BN + tl.arange(0, BN)
        ok = tl.arange(0, BK)
        a_ptr = a + om[:, None] * sam + ok[None, :] * sak
        b_ptr = b + ok[:, None] * sbk + on[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            rest = K - k * BK
            x = tl.load(a_ptr, mask=(om[:, None] < M) & (ok[None, :] < rest), other=0.0)
            y = tl.load(b_ptr, mask=(ok[:, None] < rest) & (on[None, :] < N), other=0.0)
            acc = tl.dot(x, y, acc)
            a_ptr += BK * sak
            b_ptr += BK * sbk
        c_ptr = c + om[:, None] * scm + on[None, :] * scn
        tl.store(c_ptr, acc.to(tl.bfloat16), mask=(om[:, None] < M) & (on[None, :] < N))


def matmul(a, b, out):
    """``out = a @ b`` (bf16 [M, K] @ [K, N] -> bf16 [M, N]) with Triton; None without Triton."""
    if triton is None:
        return None
    m, k = a.shape
    n = b.shape[1]
    grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)
    _kernel[grid](a, b, out, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), out.stride(0),
                  out.stride(1))
    return out
