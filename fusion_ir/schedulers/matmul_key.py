"""The tuning-cache key of a fusion's matmul: a printable line that two fusions share exactly when
they are the same problem, whatever their tensors are named.

``bf16 4096x4096x4096 batch 1 | A [M,K] K-major, B [K,N] N-major | out bf16 | e0=cast<bf16>(acc)``:
the operands' dtype, M x N x K (``?`` for a symbolic extent), the batch (the product of the batch
extents), each operand's axes and major order, the output dtype, and the epilogue's signature: every
tensor computed from the accumulator (or read beside it, a broadcast bias) in topological order as
``eN=op(args)``, its arguments ``acc``, an earlier ``eN``, a fusion input ``inJ<dtype,rank>`` (``J``
its position among the fusion's inputs) or ``scalar`` (a constant's value does not change the kernel's
speed, so ``alpha * acc`` shares a key with ``2 * acc``), and the outputs as ``out=eN``.
"""

from __future__ import annotations

from ..exprs import BinaryOp, BroadcastOp, CastOp, Expr, LoadStoreOp, UnaryOp
from ..fusion import Fusion
from ..scalar_input import ScalarInput
from ..tensor_view import TensorView
from .matmul_problem import MatmulProblem, epilogue_tensors, find_mma, matmul_problem


def problem_key(fusion: Fusion, problem: MatmulProblem | None = None) -> str:
    """The tuning-cache key of ``fusion``'s matmul (``problem``: ``matmul_problem(fusion)``, when the caller
    has it). Raises ``ScheduleError`` as ``matmul_problem`` does for a fusion the scheduler cannot take."""
    problem = problem if problem is not None else matmul_problem(fusion, caller="problem_key")
    mm = find_mma(fusion)
    a, b = mm.definition.inputs
    sizes = "x".join("?" if x is None else str(x) for x in (problem.m, problem.n, problem.k))
    batch = "?" if problem.batch is None else str(problem.batch)
    layout = problem.layout
    a_axes = "[" + "B," * (a.ndim - 2) + "M,K]"
    b_axes = "[" + "B," * (b.ndim - 2) + "K,N]"
    operands = (f"A {a_axes} {'M' if layout.a_mn_major else 'K'}-major, "
                f"B {b_axes} {'N' if layout.b_mn_major else 'K'}-major")
    out = ",".join(tv.dtype.short_name for tv in fusion.outputs)
    return (f"{problem.dtype.short_name} {sizes} batch {batch} | {operands} | out {out} | "
            f"{epilogue_signature(fusion, mm)}")


def epilogue_signature(fusion: Fusion, acc: TensorView) -> str:
    """The epilogue of ``acc`` with every tensor named by its place, not its name (see the module's text)."""
    names: dict[TensorView, str] = {acc: "acc"}
    for position, tv in enumerate(fusion.inputs):
        names[tv] = f"in{position}<{tv.dtype.short_name},{tv.ndim}>"
    steps = []
    for tv in epilogue_tensors(fusion, acc):
        names[tv] = f"e{len(steps)}"
        steps.append(f"{names[tv]}={_expr_text(tv.definition, names)}")
    outputs = [f"out={names.get(tv, '?')}" for tv in fusion.outputs if tv is not acc]
    if not steps:
        return "no epilogue"
    return ";".join(steps + outputs)


def _scalar_text(x: object) -> str:
    """A scalar operand by its kind only: a scalar input's value is given at launch, a constant's is not keyed
    either (a schedule does not depend on it)."""
    return f"arg<{x.dtype.short_name}>" if isinstance(x, ScalarInput) else "scalar"


def _expr_text(expr: Expr, names: dict[TensorView, str]) -> str:
    args = ",".join(names.get(x, "?") if isinstance(x, TensorView) else _scalar_text(x) for x in expr.inputs)
    if isinstance(expr, UnaryOp | BinaryOp):
        return f"{expr.op}({args})"
    if isinstance(expr, CastOp):
        return f"cast<{expr.dtype.short_name}>({args})"
    if isinstance(expr, BroadcastOp):
        flags = "".join("B" if b else "I" for b in expr.is_broadcast_dims)
        return f"broadcast<{flags}>({args})"
    if isinstance(expr, LoadStoreOp):
        return f"set({args})"
    return f"{type(expr).__name__}({args})"
