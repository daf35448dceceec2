"""fusion_ir.ops_table: the op table is printed from ops' docstrings and refuses an op it cannot list."""

from __future__ import annotations

import pytest

from fusion_ir import ops, ops_table


def test_every_op_has_a_row_with_its_signature_and_summary() -> None:
    table = ops_table.ops_table()
    rows = [line for line in table.splitlines() if line.startswith("| `ops.")]
    assert len(rows) == len(ops.__all__)
    assert "| `ops.gelu(x)` | GELU, tanh form" in table
    assert "| `ops.sum(x, axes)` |" in table
    assert "| `ops.erf(x)` | `erf(x)`, the error function. |" in table     # re-exported from op_math
    assert "| `ops.where(cond, a, b)` |" in table


def test_an_op_family_module_counts_as_ops_but_the_builders_do_not() -> None:
    assert ops_table._is_op_module("fusion_ir.op_logic")
    assert not ops_table._is_op_module("fusion_ir.op_core")
    assert not ops_table._is_op_module("fusion_ir.tensor_view")


def test_a_public_op_left_out_of_all_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def frobnicate(x: object) -> object:
        """``frobnicate(x)``."""
        return x

    frobnicate.__module__ = ops.__name__
    monkeypatch.setattr(ops, "frobnicate", frobnicate, raising=False)
    with pytest.raises(ValueError, match=r"defines \['frobnicate'\] but leaves them out of ops.__all__"):
        ops_table.public_ops()


def test_an_op_without_a_docstring_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def frobnicate(x: object) -> object:
        return x

    frobnicate.__module__ = ops.__name__
    monkeypatch.setattr(ops, "frobnicate", frobnicate, raising=False)
    monkeypatch.setattr(ops, "__all__", [*ops.__all__, "frobnicate"])
    with pytest.raises(ValueError, match="ops.frobnicate has no docstring"):
        ops_table.ops_table()


def test_write_replaces_only_the_table(tmp_path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(f"before\n{ops_table.BEGIN}\nstale\n{ops_table.END}\nafter\n")
    assert ops_table.main(["--write", str(doc)]) == 0
    text = doc.read_text()
    assert text.startswith("before\n") and text.endswith("after\n") and "stale" not in text
    assert ops_table.ops_table() in text
