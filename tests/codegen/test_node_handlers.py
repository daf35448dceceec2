"""Every kernel IR node class has a handler in each ``NodeVisitor`` back end: codegen and the kernel IR printer
(the simulator's dispatch table is checked in tests/runtime/test_simulator_handlers.py)."""

from __future__ import annotations

import pytest

from codegen import CodegenError
from codegen.cuda import KernelPrinter
from lowering import kernel_ir as k
from lowering.kir_printer import KirPrinter

BACK_ENDS = {"codegen": KernelPrinter, "printer": KirPrinter}


def test_the_node_union_lists_every_statement_class() -> None:
    assert len(k.NODE_TYPES) == len(set(k.NODE_TYPES)) >= 25
    assert {k.NamedBarrier, k.ElectSync, k.ForLoop, k.Mma, k.WgmmaFence, k.StMatrix} <= set(k.NODE_TYPES)


@pytest.mark.parametrize("name", sorted(BACK_ENDS))
def test_every_node_class_has_a_handler(name: str) -> None:
    assert BACK_ENDS[name].missing_handlers() == []


def test_a_missing_handler_names_the_node_and_the_back_end() -> None:
    class Unknown:
        pass

    class Partial(k.NodeVisitor):
        backend = "a test back end"
        missing_error = CodegenError

    assert Partial.missing_handlers() == [t.__name__ for t in k.NODE_TYPES]
    with pytest.raises(CodegenError, match="a test back end cannot handle kernel IR node Unknown: Partial has no "
                                           "visit_Unknown method"):
        Partial().visit(Unknown())
