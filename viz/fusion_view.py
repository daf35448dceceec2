"""``--show fusion`` and ``--show transforms``: the fusion in nvFuser notation and each tensor's splits and merges."""

from __future__ import annotations

from typing import Any

from fusion_ir import Fusion, ScalarInput, TensorView
from fusion_ir.iter_domain import GroupedMerge, Merge, Split
from fusion_ir.printer import expr_rhs

from .view import View


def fusion_view(fusion: Fusion) -> View:
    exprs = [{"output": str(e.output), "op": type(e).__name__, "text": f"{e.output} = {_one_line(expr_rhs(e))}",
              "inputs": [str(t) for t in e.tensor_inputs()]} for e in fusion.exprs]
    data = {
        "inputs": [_tensor_data(tv) for tv in fusion.inputs],
        "outputs": [_tensor_data(tv) for tv in fusion.outputs],
        "exprs": exprs,
        "text": str(fusion),
    }
    return View("fusion", "fusion", [str(fusion)], data, soft_wrap=True)


def transforms_view(fusion: Fusion) -> View:
    tensors = [tv for tv in fusion.used_tensors() if not tv.is_input]
    text = "\n".join(tv.transforms_string() for tv in tensors)
    data = {"tensors": [_transforms_data(tv) for tv in tensors]}
    return View("transforms", "transforms", [text], data, soft_wrap=True)


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines())


def _tensor_data(tv: TensorView | ScalarInput) -> dict[str, Any]:
    if isinstance(tv, ScalarInput):     # one value, a kernel parameter by value
        return {"name": str(tv), "label": str(tv), "text": f"{tv} ({tv.dtype.short_name}, scalar)",
                "dtype": tv.dtype.short_name, "memory": "Param", "loop": [], "compute_at": 0, "scalar": True}
    return {"name": f"T{tv.name}", "label": tv.label(), "text": str(tv), "dtype": tv.dtype.short_name,
            "memory": tv.memory_type.name, "loop": [i.label() for i in tv.loop],
            "compute_at": tv.compute_at_pos}


def _transforms_data(tv: TensorView) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    for t in tv.transforms:
        if isinstance(t, Split):
            steps.append({"kind": "split", "input": t.input.label(), "factor": t.factor,
                          "inner_split": t.inner_split, "outputs": [t.outer.label(), t.inner.label()]})
        elif isinstance(t, GroupedMerge):
            steps.append({"kind": "grouped_merge", "inputs": [t.outer.label(), t.inner.label()], "group": t.group,
                          "output": t.out.label()})
        elif isinstance(t, Merge):
            steps.append({"kind": "merge", "inputs": [t.outer.label(), t.inner.label()], "output": t.out.label()})
    cb = tv.circular_buffer_options
    return {"name": f"T{tv.name}", "root": [i.label() for i in tv.root], "logical": [i.label() for i in tv.logical],
            "loop": [i.label() for i in tv.loop], "transforms": steps,
            "circular_buffer": None if cb is None else str(cb), "text": tv.transforms_string()}
