"""Every ```python block of the tutorial and the README runs (so a changed API breaks a test).

The blocks of one document run in order in one namespace. A block whose first line is
``# gpu`` needs a GPU: the CPU test skips it (later blocks must not depend on it), the GPU-tier
test runs the whole document.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from fusion_ir import ops, ops_table

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ["docs/tutorial.md", "README.md", "docs/matmul.md", "docs/viz.md", "docs/schedulers.md", "docs/attention.md"]
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


def test_the_tutorial_has_gpu_blocks() -> None:
    assert any(b.startswith(GPU_MARK) for b in python_blocks(ROOT / "docs/tutorial.md"))


def test_every_public_function_of_ops_is_an_op_of_the_table() -> None:
    defined = {name for name, f in vars(ops).items()
               if inspect.isfunction(f) and ops_table._is_op_module(f.__module__) and not name.startswith("_")}
    assert defined == set(ops.__all__), f"ops.__all__ and the public functions of fusion_ir/ops.py differ: " \
                                        f"{sorted(defined ^ set(ops.__all__))}"
    assert "gelu" in ops_table.public_ops()
    table = ops_table.ops_table()
    for name in defined:
        assert f"`ops.{name}(" in table, f"the generated op table misses ops.{name}"


def test_the_tutorial_op_table_is_the_generated_one() -> None:
    text = (ROOT / "docs/tutorial.md").read_text()
    assert ops_table.replace_table(text, "docs/tutorial.md") == text, (
        "the op table of docs/tutorial.md is out of date: python -m fusion_ir.ops_table --write docs/tutorial.md")


def test_the_readme_lists_every_example() -> None:
    import examples

    section = (ROOT / "README.md").read_text().split("## Examples")[1].split("\n## ")[0]
    missing = [name for name in examples.names() if f"`{name}`" not in section]
    assert not missing, f"README.md's example table misses {missing}"


def test_the_readme_fusion_computes_one_element_per_thread(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's first fusion is the schedule to copy: the add is inlined into exp's TIDx loop,
    so each thread holds one element of it, not a serial loop over the whole 256-wide tile."""
    from fusion_ir import MemoryType
    from lowering import kernel_ir as k
    from lowering import lower

    namespace: dict[str, object] = {"__name__": "docs:README.md"}
    exec(compile(python_blocks(ROOT / "README.md")[0], "README.md, python block 1", "exec"), namespace)  # noqa: S102
    capsys.readouterr()
    kernel = lower(namespace["fusion"])  # type: ignore[arg-type]
    local = {node.buffer.name: str(node.buffer.size) for node in k.walk(kernel.body)
             if isinstance(node, k.Allocate) and node.buffer.memory is MemoryType.Local}
    assert local, "the README's fusion has no register buffer to check"
    assert all(size == "1" for size in local.values()), f"register buffers of the README's fusion: {local}"
    assert "out" in namespace, "the README's first block ends without running the kernel"


def test_the_docs_say_what_rfactor_does_to_axis_indices() -> None:
    tutorial = (ROOT / "docs/tutorial.md").read_text()
    assert any(".rfactor(" in block for block in python_blocks(ROOT / "docs/tutorial.md"))
    rules = (ROOT / "docs/schedule_rules.md").read_text()
    for name, text in (("docs/tutorial.md", tutorial), ("docs/schedule_rules.md", rules)):
        assert "moves down by one per removed axis" in text, f"{name} does not say how rfactor renumbers axes"


def test_every_document_with_python_blocks_is_run() -> None:
    """A new document with ```python blocks, or a block fenced as ```py / ```python3, is not left unrun."""
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for path in documents:
        name = path.relative_to(ROOT).as_posix()
        text = path.read_text()
        other_fences = re.findall(r"^```(py|python3|pycon)\s*$", text, flags=re.MULTILINE)
        assert not other_fences, f"{name}: fence python code as ```python so tests/docs runs it ({other_fences})"
        if python_blocks(path):
            assert name in DOCUMENTS, f"{name} has python blocks but tests/docs/test_code_blocks.py does not run it"
