"""What bench/matmul.py and bench/matmul_heuristic.py share, without torch (the heuristic's
``--dry-run`` runs where torch is not installed): names, rates, the accuracy rule and the JSON
form of ``MatmulParams``."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fusion_ir import DataType
from fusion_ir.schedulers import MatmulParams
from fusion_ir.schedulers.matmul_why import params_name


def describe(params: MatmulParams) -> str:
    """A configuration's name in the tables: ``wgmma`` and ``params_name``, e.g. ``wgmma ws persistent tma-store i32
    128x256x64 s3 wg2`` (``split-k4``, ``cluster2x1``, ``g4``, ``raster-n`` where they are not the defaults)."""
    return f"wgmma {params_name(params)}"


def params_from_json(config: dict[str, Any]) -> dict[str, Any]:
    """``MatmulParams`` fields from their JSON form: the tile a list, the index type a name ("Int32")."""
    out = dict(config, tile=tuple(config["tile"]))
    for name in ("cluster", "epilogue_tile", "register_split"):
        if isinstance(out.get(name), list):
            out[name] = tuple(out[name])
    if "index_type" in out:
        out["index_type"] = DataType[out["index_type"]]
    return out


def params_json(params: MatmulParams) -> dict[str, Any]:
    """``MatmulParams`` as JSON: the index type by name, tuples as lists."""
    return {key: value.name if isinstance(value, DataType) else list(value) if isinstance(value, tuple) else value
            for key, value in asdict(params).items()}


def tflops(m: int, n: int, k: int, ms: float) -> float:
    return 2 * m * n * k / ms / 1e9


def relative_error(out: Any, expected: Any) -> float:
    """‖out − expected‖ / ‖expected‖ of two torch tensors, in float64."""
    return ((out.double() - expected).norm() / expected.norm()).item()


def check_error(err: float, torch_err: float) -> None:
    """A kernel is as accurate as torch.matmul of the same inputs: a relative error under twice torch's
    (both round a float32 accumulator to bf16) plus 1e-3."""
    if not err < 2 * torch_err + 1e-3:
        raise AssertionError(f"relative error {err:.2e} (torch.matmul: {torch_err:.2e})")


def problem_inputs(torch: Any, m: int, n: int, k: int) -> tuple[list, Any, Any, float]:
    """Three sets of bf16 inputs ``(a [m, k], b [k, n])`` (timed in rotation, so L2 does not hold them), the
    float64 product of the first, a bf16 output buffer and torch.matmul's relative error on the first.
    ``torch`` is passed in, so that this module imports without it."""
    sets = [(torch.randn(m, k, device="cuda").bfloat16(), torch.randn(k, n, device="cuda").bfloat16())
            for _ in range(3)]
    a, b = sets[0]
    expected = a.double() @ b.double()
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    return sets, expected, out, relative_error(torch.matmul(a, b), expected)
