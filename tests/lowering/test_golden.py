"""Golden kernel IR listings: any change to generated loop nests shows up in review.

Set UPDATE_GOLDEN=1 to rewrite the files on purpose.
"""

import os
from pathlib import Path

import pytest

import examples
from lowering import lower

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", ["pointwise_2d", "inner_reduction", "smem_staging"])
def test_kernel_listing(name: str) -> None:
    text = str(lower(examples.load(name).build())) + "\n"
    path = GOLDEN / f"{name}.kir.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()
