"""Arguments are bound in one place: ``lowering.kernel_ir.bind_arguments``, used by ``Kernel.symbol_env``,
the launch plan (executor) and the simulator."""

from __future__ import annotations

import numpy as np
import pytest

from lowering import kernel_ir as k
from runtime import InputError, simulate
from runtime.arrays import as_array_arg
from runtime.launch_plan import plan_launch
from tests.codegen import sample_kernels as s


def test_symbol_env_and_the_launch_plan_bind_the_same_symbols() -> None:
    kern = s.pointwise().kernel
    a = np.zeros((3, 40), np.float32)
    b = np.zeros((6, 80), np.float32)[::2, ::2]   # element strides (160, 2)
    env = kern.symbol_env([a, b])
    plan = plan_launch(kern, [as_array_arg(a, "T0"), as_array_arg(np.ascontiguousarray(b), "T1")])
    assert env == {**plan.env, "T1_stride0": 160, "T1_stride1": 2}
    assert {env["i0"], env["i1"], env["T2_stride0"], env["T2_stride1"]} == {3, 40, 1}


def test_conflicting_extents_are_refused_by_every_user() -> None:
    kern = s.pointwise().kernel
    a, b = np.zeros((3, 40), np.float32), np.zeros((3, 41), np.float32)
    message = r"T1.shape\[1\] is 41, but i1 = 40 from T0.shape\[1\]"
    with pytest.raises(k.ArgumentError, match=message):
        kern.symbol_env([a, b])
    with pytest.raises(InputError, match=message):
        plan_launch(kern, [as_array_arg(a, "T0"), as_array_arg(b, "T1")])
    with pytest.raises(InputError, match=message):
        simulate(kern, [a, b])


def test_outputs_get_contiguous_or_given_strides() -> None:
    kern = s.pointwise().kernel
    binding = k.bind_arguments(kern, [(3, 40), (3, 40)], [(40, 1), (40, 1)])
    assert binding.output_shapes == ((3, 40),) and binding.output_strides == ((40, 1),)
    given = k.bind_arguments(kern, [(3, 40), (3, 40)], [(40, 1), (40, 1)], [((3, 40), (1, 3))])
    assert given.output_strides == ((1, 3),) and given.env["T2_stride0"] == 1
    with pytest.raises(k.ArgumentError, match=r"output T2 must have shape \(3, 40\), got \(3, 41\)"):
        k.bind_arguments(kern, [(3, 40), (3, 40)], [(40, 1), (40, 1)], [((3, 41), (41, 1))])
