"""runtime/sim_control.py's dispatch table: every kernel-IR statement class has exactly one simulator handler,
registered by the component that executes it (``handles()``)."""

from __future__ import annotations

import dataclasses
import inspect
from collections import Counter
from typing import get_args

import pytest

from lowering import kernel_ir as k
from lowering import kir_nodes
from runtime.errors import SimulationError
from runtime.sim_control import dispatch_table
from runtime.sim_memory import Grid
from runtime.simulator import Simulator
from tests.runtime.kir_builders import global_1d, kernel

# kir_nodes' dataclasses that are not statements: values, what statements refer to, and the pre-indexing op
NOT_STATEMENTS = {*get_args(k.Value), k.Buffer, k.TensorMapParam, k.MatrixDescriptor, k.RegisterFragment, k.TensorOp}


def statement_classes() -> set[type]:
    return set(k.NODE_TYPES)


def simulator() -> Simulator:
    kern = kernel([], [global_1d("T0")], [global_1d("T1")], (1,), (32,))
    return Simulator(kern, {}, Grid((1, 1, 1), (32, 1, 1)), 0, None)


def test_every_kir_node_dataclass_is_a_statement_or_known_not_to_be() -> None:
    """A new node class must join the ``Node`` union (so the test below asks the simulator for its handler)."""
    defined = {cls for _, cls in inspect.getmembers(kir_nodes, inspect.isclass)
               if cls.__module__ == kir_nodes.__name__ and dataclasses.is_dataclass(cls)}
    unclassified = sorted(cls.__name__ for cls in defined - statement_classes() - NOT_STATEMENTS)
    assert not unclassified, f"kernel IR classes neither in the Node union nor known non-statements: {unclassified}"


def test_every_statement_class_has_exactly_one_simulator_handler() -> None:
    sim = simulator()
    registered = Counter(cls for component in sim.control.components for cls in component.handles())
    missing = sorted(cls.__name__ for cls in statement_classes() if registered[cls] == 0)
    twice = sorted(cls.__name__ for cls, n in registered.items() if n > 1)
    extra = sorted(cls.__name__ for cls in registered if cls not in statement_classes())
    assert (missing, twice, extra) == ([], [], [])
    assert set(sim.control.handlers) == statement_classes()


def test_each_handler_is_a_method_of_the_component_that_registers_it() -> None:
    sim = simulator()
    for component in sim.control.components:
        for cls, handler in component.handles().items():
            assert handler.__self__ is component, f"{cls.__name__}: {handler} is not {type(component).__name__}'s"
            assert sim.control.handlers[cls] == handler


def test_a_statement_class_registered_twice_names_both_components() -> None:
    class Fences:
        def handles(self) -> dict:
            return {k.WgmmaFence: lambda node, ctx, i: None}

    class MoreFences(Fences):
        pass

    with pytest.raises(SimulationError, match="kernel IR node WgmmaFence has two simulator handlers: Fences and "
                                              "MoreFences"):
        dispatch_table([Fences(), MoreFences()])


def test_a_statement_without_a_handler_names_the_node() -> None:
    with pytest.raises(SimulationError, match="the simulator cannot handle kernel IR node TensorOp: no simulator "
                                              "component registers a handler for it"):
        simulator().control.handler(k.TensorOp)
