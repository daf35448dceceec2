"""The README's measured figures come from result files that cover what they claim."""

from __future__ import annotations

import json
from pathlib import Path

import examples

ROOT = Path(__file__).resolve().parents[2]


def test_lowering_time_results_cover_every_example_and_the_readme_quotes_them() -> None:
    result = json.loads((ROOT / "bench/results/lowering_time.json").read_text())
    measured = [row["example"] for row in result["rows"]]
    missing = sorted(set(examples.scheduled_names()) - set(measured))   # bench/lowering_time.py skips UNSCHEDULED
    assert not missing, f"bench/results/lowering_time.json has no row for {missing}: run bench/lowering_time.py"
    row = next(line for line in (ROOT / "README.md").read_text().splitlines()
               if line.startswith("| `bench/lowering_time.py`"))
    assert result["date"] in row, f"the README's lowering-time row is not dated {result['date']}, the results' date"
    assert f"{len(measured)} examples" in row
    for clock in ("lower_ms", "lower_cpu_ms"):
        assert f"{result[clock]['min']:.2f}–{result[clock]['max']:.2f} ms" in row, f"the README quotes other {clock}"
