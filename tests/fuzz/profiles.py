"""Hypothesis profiles of the fuzz tier, chosen with ``HYPOTHESIS_PROFILE`` (default ``ci``).

- ``ci``: derandomized (the same examples every run) and bounded so the fuzz tier adds about two
  minutes to CI on a 2-core machine;
- ``long``: fresh random examples, 5,000 per property (nvcc: a sample of 300);
- ``dev``: a quick smoke run while editing.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILE_ENV = "HYPOTHESIS_PROFILE"
_COMMON = {"deadline": None, "print_blob": True,
           "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]}

# examples per property test, by profile. The ci budgets are not padding: recording when each
# coverage key of fuzz.properties.Stats (calls and variants by outcome, passes, kernel-IR node
# kinds, simulator outcomes) first appears, the derandomized ci runs still found new keys at
# example 2117 of 2500 (simulate), 1414 of 1500 (schedule) and 790 of 800 (circular_buffer)
# on 2026-11-25, so a smaller budget loses coverage. The suite runs them in parallel instead
# (pytest-xdist, tests/conftest.py).
BUDGETS: dict[str, dict[str, int]] = {
    # simulate and matmul cases grew (types, long axes, interleaved blocks, epilogues, suggested parameters):
    # fewer of them keep the tier's time
    "ci": {"schedule": 1500, "simulate": 2200, "circular_buffer": 800, "nvcc": 30, "gpu": 150,
           "gpu_circular_buffer": 100, "matmul": 100, "inline_most": 300, "schedulers": 150, "attention": 40},
    "long": {"schedule": 5000, "simulate": 5000, "circular_buffer": 2000, "nvcc": 300, "gpu": 2000,
             "gpu_circular_buffer": 1000, "matmul": 1000, "inline_most": 5000, "schedulers": 1000, "attention": 500},
    "dev": {"schedule": 50, "simulate": 50, "circular_buffer": 20, "nvcc": 2, "gpu": 20, "gpu_circular_buffer": 10,
            "matmul": 10, "inline_most": 50, "schedulers": 20, "attention": 10},
}

settings.register_profile("ci", derandomize=True, database=None, max_examples=BUDGETS["ci"]["simulate"], **_COMMON)
settings.register_profile("long", derandomize=False, max_examples=BUDGETS["long"]["simulate"], **_COMMON)
settings.register_profile("dev", derandomize=False, max_examples=BUDGETS["dev"]["simulate"], **_COMMON)


def profile_name() -> str:
    name = os.environ.get(PROFILE_ENV, "ci")
    if name not in BUDGETS:
        raise ValueError(f"{PROFILE_ENV}={name!r}: the fuzz profiles are {', '.join(BUDGETS)}")
    return name


def load() -> str:
    name = profile_name()
    settings.load_profile(name)
    return name


def budget(test: str) -> int:
    """How many examples ``test`` runs under the current profile."""
    return BUDGETS[profile_name()][test]
