"""Every ```python block of the tutorial and the README runs (so a changed API breaks a test).

The blocks of one document run in order in one namespace. A block whose first line is
``# gpu`` needs a GPU: the CPU test skips it (later blocks must not depend on it), the GPU-tier
test runs the whole document.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fusion_ir import ops

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ["docs/tutorial.md", "README.md", "docs/matmul.md"]
GPU_MARK = "# gpu"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), flags=re.DOTALL | re.MULTILINE)


def run_blocks(document: str, with_gpu: bool, capsys: pytest.CaptureFixture[str]) -> int:
    blocks = python_blocks(ROOT / document)
    assert blocks, f"{document} has no python blocks"
    namespace: dict[str, object] = {"__name__": f"docs:{document}"}
    ran = 0
    for k, block in enumerate(blocks):
        if block.startswith(GPU_MARK) and not with_gpu:
            continue
        code = compile(block, f"{document}, python block {k + 1}", "exec")
        exec(code, namespace)  # noqa: S102 - running the documentation is the point
        ran += 1
    capsys.readouterr()
    return ran


@pytest.mark.parametrize("document", DOCUMENTS)
def test_python_blocks_run(document: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_blocks(document, with_gpu=False, capsys=capsys) >= 1


@pytest.mark.gpu
@pytest.mark.parametrize("document", DOCUMENTS)
def test_python_blocks_run_on_the_gpu(document: str, capsys: pytest.CaptureFixture[str]) -> None:
    run_blocks(document, with_gpu=True, capsys=capsys)


def test_the_tutorial_has_gpu_blocks_and_every_op() -> None:
    text = (ROOT / "docs/tutorial.md").read_text()
    assert any(b.startswith(GPU_MARK) for b in python_blocks(ROOT / "docs/tutorial.md"))
    table = text[text.index("Every op of the IR"):text.index("## 2.")]
    names = [*ops.UNARY_OPS, *ops.BINARY_OPS, *ops.REDUCTION_OPS, "set", "cast", "broadcast", "matmul"]
    missing = [n for n in names if f"ops.{n}" not in table]
    assert not missing, f"the op table of docs/tutorial.md misses {missing}"


def test_the_readme_lists_every_example() -> None:
    import examples

    section = (ROOT / "README.md").read_text().split("## Examples")[1].split("\n## ")[0]
    missing = [name for name in examples.names() if f"`{name}`" not in section]
    assert not missing, f"README.md's example table misses {missing}"
