"""lowering.kir_printer: the listing of the enum-kinded nodes keeps the text it always had."""

from __future__ import annotations

import pytest

from lowering import kernel_ir as k
from lowering.kir_printer import node_lines


@pytest.mark.parametrize("node,text", [
    (k.AsyncCommit(k.AsyncKind.CpAsync), "cp.async.commit_group()"),
    (k.AsyncCommit(k.AsyncKind.Bulk), "bulk.commit_group()"),
    (k.AsyncCommit(k.AsyncKind.Wgmma), "wgmma.commit_group"),
    (k.AsyncWait(k.AsyncKind.CpAsync, 2), "cp.async.wait_group(2)"),
    (k.AsyncWait(k.AsyncKind.Bulk, 0), "bulk.wait_group(0)"),
    (k.AsyncWait(k.AsyncKind.Bulk, 0, read=False), "bulk.wait_group.complete(0)"),
    (k.AsyncWait(k.AsyncKind.Wgmma, 1), "wgmma.wait_group 1"),
], ids=lambda x: x if isinstance(x, str) else None)
def test_async_groups_print_as_before(node: k.Node, text: str) -> None:
    assert node_lines(node) == [text]


@pytest.mark.parametrize("kind,tag", [(k.TensorOpKind.Compute, ""), (k.TensorOpKind.Init, "  // init"),
                                      (k.TensorOpKind.BlockReduce, "  // block_reduce"),
                                      (k.TensorOpKind.Finalize, "  // finalize")])
def test_tensor_op_kinds_print_as_before(kind: k.TensorOpKind, tag: str) -> None:
    assert node_lines(k.TensorOp(tv=None, kind=kind, text="T3 = T2", expr=None)) == [f"T3 = T2{tag}"]


def test_every_kind_prints_by_its_value_and_a_string_kind_shows_quoted() -> None:
    """The printed name of each enum member is its value, so the listing reads like the instruction;
    a string kind (which verify refuses) still prints, quoted, instead of failing the listing."""
    for kind in k.AsyncKind:
        assert node_lines(k.AsyncWait(kind, 3))[0].startswith(kind.value)
    assert node_lines(k.AsyncCommit("wgmma")) == ["'wgmma'.commit_group()"]
