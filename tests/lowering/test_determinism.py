"""Lowering is deterministic: the same fusion gives the same CUDA whatever Python's hash seed.

Python randomizes the hash of strings (and so of enums, whose hash is their name's) per process,
so a lowering step that iterates over a set, or stops early in ``all``/``any`` over one, can change
its result, or fail, from run to run. Every example (with the variants the golden tests build) and
a fixed sample of fuzz cases is lowered in two subprocesses with different ``PYTHONHASHSEED``
values; the CUDA text of each, or the error it raised, must be the same.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings

from fuzz.case import Case, apply_step, build
from fuzz.strategies import cases
from fusion_ir import ScheduleError

ROOT = Path(__file__).resolve().parents[2]
HASH_SEEDS = ("0", "12345")
FUZZ_CASES = 30


def fuzz_sample(n: int = FUZZ_CASES) -> list[Case]:
    """``n`` fuzz cases, the same ones every run (derandomized, no example database)."""
    drawn: list[Case] = []

    @settings(derandomize=True, database=None, max_examples=n, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=cases())
    def collect(case: Case) -> None:
        drawn.append(case)

    collect()
    return drawn


def _case_fusion(case: Case):
    fusion = build(case)
    for step in case.steps:
        try:
            apply_step(fusion, step)
        except ScheduleError:
            pass        # the fuzzer draws invalid calls too; each leaves the fusion as it was
    return fusion


def _variants() -> dict:
    """Example variants beyond the golden tests' (the other epilogues, the other store schedules)."""
    import examples

    def load(name: str):
        return examples.load(name).build

    out = {f"matmul_epilogue_{kind}": (lambda kind=kind: load("matmul_epilogue")(kind))
           for kind in ("bias_gelu", "alpha_beta")}
    out["matmul_ping_pong_register_store"] = lambda: load("matmul_ping_pong")(tma_store=False)
    out["matmul_ping_pong_deferred_wait"] = lambda: load("matmul_ping_pong")(store_wait="deferred")
    out["matmul_ws_persistent_deferred_wait"] = lambda: load("matmul_ws_persistent")(store_wait="deferred")
    out["layer_norm_300"] = lambda: load("layer_norm")(300)
    out["ws_seed_copy_registers"] = lambda: load("ws_seed_copy")(registers=(40, 232))
    return out


def lowered_digests(case_file: Path) -> list[str]:
    """``name: digest`` of the CUDA (or of the error) of every example and of each case in ``case_file``."""
    from codegen import to_cuda
    from lowering import lower
    from tests.codegen.test_generated_golden import BUILDERS

    from tests.fuzz.test_regressions import _cached_input_beside_a_dead_op

    builders = dict(sorted(BUILDERS.items()))
    builders.update(_variants())
    builders["dead_consumer_of_a_circular_buffer"] = _cached_input_beside_a_dead_op
    for k, case in enumerate(pickle.loads(case_file.read_bytes())):
        builders[f"fuzz_{k}"] = lambda case=case: _case_fusion(case)
    lines = []
    for name, make in builders.items():
        try:
            text = to_cuda(lower(make()))
        except Exception as e:      # an error must be the same error every run
            text = f"{type(e).__name__}: {e}"
        lines.append(f"{name}: {hashlib.sha256(text.encode()).hexdigest()[:16]}")
    return lines


def _run(seed: str, case_file: Path) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    script = ("import sys; from pathlib import Path; from tests.lowering.test_determinism import lowered_digests; "
              "print('\\n'.join(lowered_digests(Path(sys.argv[1]))))")
    done = subprocess.run([sys.executable, "-c", script, str(case_file)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, f"PYTHONHASHSEED={seed}:\n{done.stderr}"
    return done.stdout.splitlines()


def test_the_fuzz_sample_is_fixed() -> None:
    assert fuzz_sample(5) == fuzz_sample(5)


def test_lowering_does_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    case_file = tmp_path / "cases.pickle"
    case_file.write_bytes(pickle.dumps(fuzz_sample()))
    first, second = (_run(seed, case_file) for seed in HASH_SEEDS)
    assert len(first) > FUZZ_CASES + 100
    differ = [f"{a}  vs  {b}" for a, b in zip(first, second) if a != b]
    assert not differ, f"CUDA differs between PYTHONHASHSEED={HASH_SEEDS[0]} and {HASH_SEEDS[1]}:\n" + "\n".join(differ)
